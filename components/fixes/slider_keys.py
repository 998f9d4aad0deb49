"""Works around noUiSlider (in BokehJS's sliders) sending Home and End to a slider's first range.

Upstream: none found; report text: docs/upstream.md, "Home and End".

noUiSlider 15's keyboard handler takes Home and End from the range the slider was created with
(`options.spectrum`); `updateOptions`, which BokehJS calls for a new start or end, replaces only
the range that arrows, drags and `aria-valuemax` use (`scope_Spectrum`). After the sequence
length moved from 64 to 264, End on pos gave 63. Here Home and End on a one-handle slider go
to the start and end its model has now, the way a step of BokehJS's own slider is sent.
"""

from __future__ import annotations

from pathlib import Path

# The script that does it, installed with the others by fixes/browser.py.
SCRIPT = Path(__file__).parents[1] / "js" / "fixes" / "slider_keys.js"

"""Works around BokehJS's sliders giving their handles no name (https://github.com/leongersen/noUiSlider/issues/1223).

BokehJS creates noUiSlider without `handleAttributes`, so a handle (`role="slider"`) has no
accessible name and reads its value as "7.00"; its Spinner's up and down buttons are unnamed
(docs/upstream.md, "Control names"); and Choices.js, in its MultiChoice, puts
`aria-selected` on chosen items that have no role allowing it. Here every slider handle is
named after the label shown above it ("Position pos") with a value text that reads "position
7" or "base 10000", the spin buttons say what they do, and the stray attribute is removed.
"""

from __future__ import annotations

from pathlib import Path

# The script that does it, installed with the others by fixes/browser.py.
SCRIPT = Path(__file__).parents[1] / "js" / "fixes" / "control_names.js"

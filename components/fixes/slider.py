"""Works around Panel holding every served widget change for 50 ms (`Syncable._debounce`).

Upstream: none found; report text: docs/upstream.md, "Debounce".

Under `panel serve` (./build.sh dev) the steps a slider sends within 50 ms reach Python as one
change, so Python never sees the positions between them: keys on pos that pass through 0 leave
k where the step to 0 would have bounded it, and the page no longer agrees with the same steps
taken one by one (tests/browser/test_controls_browser.py's storms). Each step reaches Python on
its own, as the site's worker applies them. Not for speed: the served tier's correctness.
"""

from __future__ import annotations

import panel as pn


class Slider(pn.widgets.IntSlider):
    """An IntSlider whose every step reaches Python on its own when served."""

    _debounce = 0

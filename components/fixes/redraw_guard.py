"""Works around Panel's Plotly model redrawing plots whose size did not change.

Upstream: none found (the calls came with https://github.com/holoviz/panel/pull/7483);
report text: docs/upstream.md, "Plotly resize".

Panel 1.9.4's Plotly model calls `Plotly.relayout(plot, {width, height})` after every layout
pass of the page and `Plotly.Plots.resize` after every `Plotly.react`; both redraw every trace
even when the size is the one already drawn. The guard lets them through only for a new size.
"""

from __future__ import annotations

from pathlib import Path

# The script that does it, installed with the others by fixes/browser.py.
SCRIPT = Path(__file__).parents[1] / "js" / "fixes" / "redraw_guard.js"

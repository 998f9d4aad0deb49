"""Works around Panel's Plotly view sending every relayout made in the page back to Python.

Upstream: https://github.com/holoviz/panel/pull/2445 (restyle and relayout events sent to
Python), https://github.com/holoviz/panel/pull/7662 (and handled there); no way to opt out but
`_update_from_property`; report text: docs/upstream.md, "Quiet relayout".

Panel's PlotlyPlot view (panel/models/plotly.ts) turns each `plotly_relayout` event into
`relayout_data`, a message to the worker, unless the update carries `_update_from_property:
true`; plotly.js takes that key for an unknown layout attribute and redraws the whole plot (a
64 × 128 heatmap's marker: 0.3 ms without it, 14–28 ms with it). The picker (plotkit/picks.py)
moves markers on every frame of a drag: its relayouts go through `quietly` (SCRIPT), which keeps
the chart's own `plotly_relayout` event from its listeners for the length of the call.
"""

from __future__ import annotations

from pathlib import Path

# The script that does it, installed with the others by fixes/browser.py.
SCRIPT = Path(__file__).parents[1] / "js" / "fixes" / "plotly_quiet.js"

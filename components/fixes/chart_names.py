"""Works around Panel's Plotly pane giving its chart no accessible name (and its HTML pane closing
an open `<details>` on every update).

Upstream: none found (nearest: https://github.com/bokeh/bokeh/issues/12259, ARIA attributes for
Bokeh models, open); report text: docs/upstream.md, "Chart names".

`NamedPlotly.label` is the chart's name, one sentence with its numbers now. It travels in the
Bokeh model's `tags` (user data Bokeh never draws), not in the figure's `layout.meta`: Plotly
marks `meta` editType "plot", so changing it in a relayout redraws every trace, and a step of
pos would no longer be one small relayout. Its script (components/js/fixes/chart_names.js, run
by fixes/browser.py once per page) makes Panel's Plotly view put the name on the chart element
(`.js-plotly-plot`) as `role="figure"` and `aria-label`, at every change of the name and after
every draw: role figure, not img, keeps the modebar's buttons in the accessibility tree. It
also keeps a view's "Show data" (`details.pe-data`) open when its
HTML pane gets new numbers (Panel's HTML view replaces its innerHTML).
"""

from __future__ import annotations

from pathlib import Path

import param

from .plotly_patch import PatchablePlotly

# The script that does it, installed with the others by fixes/browser.py.
SCRIPT = Path(__file__).parents[1] / "js" / "fixes" / "chart_names.js"


class NamedPlotly(PatchablePlotly):
    """A PatchablePlotly whose chart carries an accessible name (shown by SCRIPT), and the key
    and generation of its view's picks (plotkit/picks.py: the page's picker matches a chart's
    figure with the picks Python made for it)."""

    label = param.String(default="", doc="The chart's accessible name: what it shows, now.")
    pick_key = param.String(default="", doc="The key of the view's picks ('' when none).")
    pick_generation = param.Integer(default=0, doc="Which drawing of the view the chart shows.")

    _rename = {
        **PatchablePlotly._rename,
        "label": "tags",
        "pick_key": None,
        "pick_generation": None,
    }

    def _init_params(self):
        params = super()._init_params()
        params["label"] = self.label
        return params

    def _process_property_change(self, msg):
        # The name, key and generation go one way, to the page. A notebook's comm sends each tags
        # patch back, which would set the list on the String label (a ValueError in the kernel
        # at every redraw, and the changes Bokeh holds after it never sent).
        return super()._process_property_change({k: v for k, v in msg.items() if k != "tags"})

    def _process_param_change(self, params):
        tagged = any(name in params for name in ("label", "pick_key", "pick_generation"))
        props = super()._process_param_change(params)
        if tagged:
            props["tags"] = [self.label, self.pick_key, self.pick_generation]
        return props

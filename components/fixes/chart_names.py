"""Works around Panel's Plotly pane giving its chart no accessible name (and its HTML pane closing
an open `<details>` on every update).

Upstream: none found (nearest: https://github.com/bokeh/bokeh/issues/12259, ARIA attributes for
Bokeh models, open); report text: docs/upstream.md, "Chart names".

`NamedPlotly.label` is the chart's name, one sentence with its numbers now. It travels in the
Bokeh model's `tags` (user data Bokeh never draws), not in the figure's `layout.meta`: Plotly
marks `meta` editType "plot", so changing it in a relayout redraws every trace, and a step of
pos would no longer be one small relayout. `ChartNames` (once per page) makes Panel's Plotly view
put the name on the chart element (`.js-plotly-plot`) as `role="figure"` and `aria-label`, at
every change of the name and after every draw: role figure, not img, keeps the modebar's buttons
in the accessibility tree. It also keeps a view's "Show data" (`details.pe-data`) open when its
HTML pane gets new numbers (Panel's HTML view replaces its innerHTML).
"""

from __future__ import annotations

import param
from panel.custom import JSComponent

from .plotly_patch import PatchablePlotly


class NamedPlotly(PatchablePlotly):
    """A PatchablePlotly whose chart carries an accessible name (shown by ChartNames)."""

    label = param.String(default="", doc="The chart's accessible name: what it shows, now.")

    _rename = {**PatchablePlotly._rename, "label": "tags"}

    def _init_params(self):
        params = super()._init_params()
        params["label"] = self.label
        return params

    def _process_param_change(self, params):
        props = super()._process_param_change(params)
        if "tags" in props:
            props["tags"] = [props["tags"]]
        return props


class ChartNames(JSComponent):
    """Puts each NamedPlotly's label on its chart, and keeps the views' Show data open."""

    _esm = """
    const PATCHED = Symbol.for('pe-chart-names');
    const LISTENING = Symbol.for('pe-chart-names-listening');

    // The name in the model's tags on the Plotly div, or no name when there is none.
    function name(view) {
      const chart = view.container;
      if (chart == null) return;
      const label = (view.model.tags || [])[0];
      if (typeof label === 'string' && label !== '') {
        chart.setAttribute('role', 'figure');
        chart.setAttribute('aria-label', label);
      } else {
        chart.removeAttribute('role');
        chart.removeAttribute('aria-label');
      }
    }

    function listen(view) {
      if (view[LISTENING]) return;
      view[LISTENING] = true;
      view.on_change(view.model.properties.tags, () => name(view));
    }

    function viewClass(qualified) {
      const models = window.Bokeh && window.Bokeh.Models;
      const Model = models && models.get(qualified);
      return Model && Model.prototype.default_view && Model.prototype.default_view.prototype;
    }

    function patchPlotly() {
      const proto = viewClass('panel.models.plotly.PlotlyPlot');
      if (proto == null || proto[PATCHED]) return;
      // Every draw (a new figure, or render's new container) ends in plot().
      const plot = proto.plot;
      proto.plot = async function (...args) {
        listen(this);
        const result = await plot.apply(this, args);
        name(this);
        return result;
      };
      proto[PATCHED] = true;
      // Charts drawn before this ran.
      try {
        for (const view of window.Bokeh.index.query((v) => proto.isPrototypeOf(v))) {
          listen(view);
          name(view);
        }
      } catch (error) {
        // No index (an unusual embedding): charts are named from their next draw.
      }
    }

    function patchHTML() {
      const proto = viewClass('panel.models.markup.HTML');
      if (proto == null || proto[PATCHED]) return;
      const setHTML = proto.set_html;
      proto.set_html = function (...args) {
        const container = this.container;
        const open = container != null && container.querySelector('details.pe-data[open]') != null;
        const result = setHTML.apply(this, args);
        const details = open ? this.container.querySelector('details.pe-data') : null;
        if (details != null) details.open = true;
        return result;
      };
      proto[PATCHED] = true;
    }

    export function render() {
      patchPlotly();
      patchHTML();
      const element = document.createElement('span');
      element.hidden = true;
      return element;
    }
    """

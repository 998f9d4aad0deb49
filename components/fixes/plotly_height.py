"""Works around Panel's Plotly pane keeping its chart at the height it first had.

Upstream: none found for Plotly (the one-off sizing came with https://github.com/holoviz/panel/pull/7483;
the same bug in the Matplotlib pane: https://github.com/holoviz/panel/issues/5971); report text:
docs/upstream.md, "Plotly height".

Panel 1.9.4's Plotly view sizes the chart's element once, when it renders (`set_size`), and
after every `Plotly.react` calls `Plotly.Plots.resize`, which fits the chart to that element. A
pane given a new height (a narrow card's figure is taller: its title wraps under the mode bar)
grows, but its chart is squeezed back into the old height a moment after it was drawn at the
new one. The chart's element follows its pane instead.
"""

from __future__ import annotations

# The chart's element (Plotly marks it .js-plotly-plot) as tall as the pane that holds it: it
# overrides the inline height set_size gave it.
FOLLOW_THE_PANE_CSS = ":host > .js-plotly-plot { height: 100% !important; }"

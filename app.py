"""Positional Encoding Explorer: the app served by `panel serve` and converted to the static site."""

import panel as pn

from components.page import TITLE, ExplorerPage

pn.extension("plotly", sizing_mode="stretch_width")

ExplorerPage().servable(title=TITLE)

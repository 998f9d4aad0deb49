"""Positional Encoding Explorer: the app for `panel serve` and for the static Pyodide site."""

import panel as pn

from components.page import TITLE, ExplorerPage

pn.extension("plotly", sizing_mode="stretch_width")

ExplorerPage().servable(title=TITLE)

"""Positional Encoding Explorer: the app for `panel serve` and for the static Pyodide site."""

import panel as pn
from pe_explorer.ui.page import TITLE, ExplorerPage

pn.extension("plotly", sizing_mode="stretch_width")

# The cards below the first row are built once the page is shown: start-up builds half as much.
ExplorerPage(defer_cards=True).servable(title=TITLE)

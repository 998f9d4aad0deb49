"""Benchmark-only app: the explorer at the size named in the URL (?d_model=..&n_positions=..).

It builds the page with the state already at that size, so the benchmark does not depend on
the app's own URL support; where that support exists it reads the same two keys.
"""

import panel as pn
from pe_explorer.state import ExplorerState
from pe_explorer.ui.page import TITLE, ExplorerPage


def size_from_url(name: str, default: int) -> int:
    """An integer query argument of the session, or default."""
    values = pn.state.session_args.get(name) or [str(default).encode()]
    return int(values[0])


pn.extension("plotly", sizing_mode="stretch_width")

state = ExplorerState(
    d_model=size_from_url("d_model", 128), n_positions=size_from_url("n_positions", 128)
)
ExplorerPage(state=state).servable(title=TITLE)

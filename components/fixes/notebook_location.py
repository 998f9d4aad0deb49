"""Works around Panel's notebook Location, which a page made in a notebook takes for its link.

Upstream: none found; report text: docs/upstream.md, "Notebook location". Panel makes one
global Location when the first object is shown in a notebook (panel/viewable.py,
`Viewable._repr_mimebundle_`) and keeps it in the private `pn.state._location`. Seeing it, a page
that reads its link would apply the notebook's address (no query: every default) at once and
again whenever the notebook reloads, so the page is built with no location, as when served bare.
"""

from __future__ import annotations

from contextlib import contextmanager

import panel as pn


@contextmanager
def without_notebook_location():
    """Within the block, pn.state.location is None; Panel's own Location is put back after."""
    saved = pn.state._location
    pn.state._location = None
    try:
        yield
    finally:
        pn.state._location = saved

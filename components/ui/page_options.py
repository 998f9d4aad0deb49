"""PageOptions: what the page shows (all views or one, with or without its header)."""

from __future__ import annotations

import param


class PageOptions(param.Parameterized):
    """The page-level options read from ?view= and ?embed=."""

    view = param.String(default="", doc="The ?view= name of the one view to show; '' for all.")
    embed = param.Boolean(default=False, doc="Drop the header and explanations to fill an iframe.")

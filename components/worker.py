"""The Python side of the site's worker (static/worker.js): a document per frame of the site.

The worker runs one Python for every frame and tab of the site where the browser has shared
workers (a course page with three embeds would otherwise start three Pyodide runtimes, each
importing NumPy, Bokeh and Panel: issue 21), and one for its page otherwise; either way each
frame that connects gets a document of its own, and each of its messages acts on that document.
The worker runs one message at a time, so "the frame's document is the current one" holds for
everything a message runs: Panel's callbacks find it as `pn.state.curdoc`, its URL as
`pn.state.location`, and tasks they start keep it (`state.curdoc` is a context variable).

It calls Panel 1.9.4's worker helpers (`init_doc`, `write_doc`) and private ones
(`_link_docs_worker`, `_convert_json_patch`, `_cleanup_doc`), as Panel's own worker script
does: Panel's worker holds one document, and sharing Pyodide across frames has no API yet
(https://github.com/pyodide/pyodide/issues/4279). components/fixes/ lists it for upgrades.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bokeh.document import Document

# Panel and Bokeh are imported in the functions: prepare() must run before they are.
__all__ = ["build", "close", "frames", "location", "patch", "prepare", "rendered", "use"]

_documents: dict[int, Document] = {}


def prepare() -> None:
    """Import what every frame's page needs, Bokeh's models without their IDE signatures
    (components/fixes/bokeh_signatures.py): once per runtime, before the first frame."""
    from .fixes import bokeh_signatures

    bokeh_signatures.skip()
    import numpy  # noqa: F401
    import panel  # noqa: F401

    from .ui import page  # noqa: F401


def use(frame: int) -> Document:
    """Make the frame's document Panel's and Bokeh's current one, and return it."""
    from bokeh.io.doc import set_curdoc
    from panel.io.state import state

    doc = _documents[frame]
    set_curdoc(doc)
    state.curdoc = doc
    return doc


async def build(frame: int, href: str) -> tuple[str, str, str]:
    """A new frame's document, at the state its URL asks for (`href`, JSON of its
    window.location): write_doc()'s (docs_json, render_items, root_ids) for its page.

    The URL is applied before the page is built: the first document is the one the link asks
    for (an embed builds its one view), where Panel's worker builds the default page and learns
    the URL afterwards.
    """
    from panel.io.pyodide import init_doc, write_doc
    from panel.io.state import state

    from .ui.page import serve_page

    init_doc()
    _documents[frame] = state.curdoc
    location(frame, href)
    serve_page()
    return await write_doc()


def rendered(frame: int, send_patch: Any) -> None:
    """The frame's page embedded the document: its changes now go to `send_patch`."""
    from panel.io.pyodide import _link_docs_worker

    _link_docs_worker(use(frame), send_patch, setter="js")


def patch(frame: int, json_patch: Any) -> None:
    """A change the frame's page made, applied to its document (callbacks run)."""
    from panel.io.pyodide import _convert_json_patch

    use(frame).apply_json_patch(_convert_json_patch(json_patch), setter="js")


def location(frame: int, href: str) -> None:
    """The frame's URL (JSON of window.location), as Panel's Location holds it."""
    from panel.io.state import state
    from panel.util import edit_readonly

    use(frame)
    if state.location is None:
        return
    fields = json.loads(href)
    with edit_readonly(state.location):
        state.location.param.update(
            {key: value for key, value in fields.items() if key in state.location.param}
        )


def close(frame: int) -> None:
    """The frame's page went away: its document and everything Panel keeps for it go."""
    from panel.io.document import _cleanup_doc
    from panel.io.state import state

    doc = _documents.pop(frame, None)
    if doc is None:
        return
    _cleanup_doc(doc, destroy=True)
    state._locations.pop(doc, None)


def frames() -> int:
    """How many frames have a document."""
    return len(_documents)

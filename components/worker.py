"""One Python for every frame of the site: a document per frame in the shared worker.

A course page with three embeds would otherwise start three Pyodide runtimes, each importing
NumPy, Bokeh and Panel (issue 21). The built site's shared worker (`app-shared.js`, written by
scripts/shared_runtime.py) loads the runtime once and, for each frame that connects, runs the
app into a document of its own; every message of a frame then acts on that frame's document.
The worker runs one message at a time, so "the frame's document is the current one" holds for
everything the message runs: Panel's callbacks find it as `pn.state.curdoc`, its URL as
`pn.state.location`, and tasks they start keep it (`state.curdoc` is a context variable).

It calls Panel 1.9.4's private worker helpers (`_link_docs_worker`, `_convert_json_patch`,
`_cleanup_doc`): Panel's worker holds one document, and sharing Pyodide across frames has no
API yet (https://github.com/pyodide/pyodide/issues/4279). components/fixes/ lists it for
upgrades.
"""

from __future__ import annotations

import json
from typing import Any

from bokeh.document import Document
from bokeh.io.doc import set_curdoc
from panel.io.state import state
from panel.util import edit_readonly

__all__ = ["build", "close", "frames", "location", "patch", "rendered", "use"]

_documents: dict[int, Document] = {}
# The line of Panel's worker code (panel/_templates/pyodide_worker.js) that makes the document.
INIT_DOC = "\ninit_doc()\n"


def use(frame: int) -> Document:
    """Make the frame's document Panel's and Bokeh's current one, and return it."""
    doc = _documents[frame]
    set_curdoc(doc)
    state.curdoc = doc
    return doc


async def build(frame: int, code: str, href: str) -> Any:
    """Run the app's code (Panel's worker code: init_doc(), the app, write_doc()) for a new
    frame, in a namespace of its own; returns write_doc()'s (docs_json, render_items, ids).

    The frame's URL (`href`, JSON of its window.location) is applied right after init_doc(),
    before the app is built: the first document is the one the link asks for (an embed builds
    its one view), where Panel's worker builds the default page and learns the URL afterwards.
    """
    from pyodide.code import eval_code_async

    if code.count(INIT_DOC) != 1:
        raise RuntimeError("the app's code is not Panel 1.9.4's worker code (one init_doc())")

    def start() -> None:
        _documents[frame] = state.curdoc
        location(frame, href)

    code = code.replace(INIT_DOC, f"{INIT_DOC}_pe_start()\n")
    return await eval_code_async(code, {"__name__": "__main__", "_pe_start": start})


def rendered(frame: int, send_patch: Any) -> None:
    """The frame's page embedded the document: its changes now go to `send_patch`."""
    from panel.io.pyodide import _link_docs_worker

    _link_docs_worker(use(frame), send_patch, setter="js")


def patch(frame: int, json_patch: Any) -> None:
    """A change the frame's page made, applied to its document (callbacks run)."""
    from panel.io.pyodide import _convert_json_patch

    use(frame).apply_json_patch(_convert_json_patch(json_patch), setter="js")


def location(frame: int, href: str) -> None:
    """The frame's URL (JSON of window.location), as Panel's worker applies it."""
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

    doc = _documents.pop(frame, None)
    if doc is None:
        return
    _cleanup_doc(doc, destroy=True)
    state._locations.pop(doc, None)


def frames() -> int:
    """How many frames have a document."""
    return len(_documents)

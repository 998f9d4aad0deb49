"""How the served app (`panel serve`) talks to the page: what we set on each session's socket.

None of this runs in the Pyodide worker or in tests without a session: there is no socket.
Each part was found with a server-side timeline next to a websocket timeline in the page
(notes in the README, "Where a `d_model` step at S goes").
"""

from __future__ import annotations

import asyncio
import gc
import logging

import panel as pn

from .icon import icon_data_uri

_imports_frozen = False
log = logging.getLogger(__name__)


def connections(doc) -> list:
    """The websocket connections of doc's `panel serve` session (none without a session)."""
    session = getattr(getattr(doc, "session_context", None), "session", None)
    return list(getattr(session, "_subscribed_connections", ()))


def send_without_delay(doc) -> None:
    """Send every message of doc's session as soon as it is written (TCP_NODELAY).

    Bokeh's server leaves Nagle's algorithm on for its websockets. A slider step makes the
    server write several small messages in a row; the kernel then holds the next one until the
    page acknowledges the last, and the page delays its acknowledgement by up to 40 ms. Steps
    of pos were 36 ms or 78 ms at random, with nothing in between. (Upstream, Bokeh's
    WSHandler.open could call set_nodelay(True), as Tornado's documentation advises.)
    """
    for connection in connections(doc):
        set_nodelay = getattr(connection._socket, "set_nodelay", None)
        if set_nodelay is not None:
            set_nodelay(True)


async def reply_written(doc) -> None:
    """Wait until every connection of doc's session has finished the message it is writing.

    A widget's change is handled while Bokeh is still writing its reply (OK) to the page's
    message. Panel finds the socket busy and queues every change made meanwhile for a retry
    10 ms later (``panel.io.document._dispatch_msgs``). Waiting for the reply (a fraction of a
    millisecond) lets Panel write each change as it is made instead, so the page draws the
    first view while the server is still computing the next.
    """
    for connection in connections(doc):
        lock = getattr(connection._socket, "write_lock", None)
        if lock is not None:
            async with lock:
                pass


def freeze_imports() -> None:
    """Move everything imported so far out of the garbage collector's way, once per process.

    Panel, Bokeh and NumPy leave a large heap of objects that live as long as the server.
    Python's full collections walk all of it: under `panel serve` one took 56 to 94 ms, in the
    middle of a slider step, every 25 steps or so. Frozen before the first page is built, only
    the sessions' own objects are walked, and closed sessions are still collected (all but the
    first session's document, which already exists when the first page is built).
    """
    global _imports_frozen
    if not _imports_frozen:
        _imports_frozen = True
        gc.collect()
        gc.freeze()


def is_write_to_departed_page(context: dict) -> bool:
    """Whether an asyncio error report is a write to a page that has already gone away."""
    # Tornado is the server's: the Pyodide site imports this module without it.
    from tornado.websocket import WebSocketClosedError

    return context.get("message") == "Task exception was never retrieved" and isinstance(
        context.get("exception"), WebSocketClosedError
    )


def quiet_departed_pages(loop: asyncio.AbstractEventLoop) -> None:
    """Report writes to a page that has gone away as such, not as a traceback; once per loop.

    A visitor who closes the tab while a step's changes are being written leaves a traceback
    in the server's log ("Task exception was never retrieved", WebSocketClosedError). Panel's
    `dispatch_tornado` writes a message in several frames, one task each; when the socket
    closes after the first frame, writing the next raises, and the tasks already made are
    dropped unawaited (Panel 1.9.4; upstream it should catch the error and keep them). Nothing
    is lost, the page is gone, so the report becomes one debug line; every other unretrieved
    error still goes to the loop's handler.
    """
    previous = loop.get_exception_handler()
    if getattr(previous, "quiets_departed_pages", False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        if is_write_to_departed_page(context):
            log.debug("dropped a write to a page that has gone away")
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.quiets_departed_pages = True
    loop.set_exception_handler(handler)


def inline_icon(doc) -> None:
    """The served page gets the site's icon inline instead of Panel's `./favicon.ico`, which
    the browser fetched again after every step (components/icon.py)."""
    icon = icon_data_uri()
    if icon is not None:
        doc.template_variables["app_favicon"] = icon


def prepare_session() -> None:
    """Set up the current `panel serve` session's page and socket."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    freeze_imports()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # a session made outside a server's loop (tests)
        loop = None
    if loop is not None:
        quiet_departed_pages(loop)
    inline_icon(doc)
    pn.state.onload(lambda: send_without_delay(doc))

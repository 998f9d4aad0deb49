"""Works around Bokeh and Panel server internals that delay or litter a `panel serve` session.

None of this runs in the Pyodide worker or in tests without a session: there is no socket.
How each was found and what it gained: benchmarks/RESULTS.md, "Where a served step goes".
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys

import panel as pn

from ..plotkit.icon import icon_data_uri
from . import location

_imports_frozen = False
log = logging.getLogger(__name__)


def connections(doc) -> list:
    """The websocket connections of doc's `panel serve` session (none without a session)."""
    session = getattr(getattr(doc, "session_context", None), "session", None)
    return list(getattr(session, "_subscribed_connections", ()))


def send_without_delay(doc) -> None:
    """Works around Bokeh leaving Nagle's algorithm on for its websockets (WSHandler.open).

    Upstream: none found in Bokeh (Tornado's set_nodelay: https://github.com/tornadoweb/tornado/issues/755);
    report text: docs/upstream.md, "Nagle". Small messages in a row otherwise wait for the
    page's delayed ACK (up to 40 ms).
    """
    for connection in connections(doc):
        set_nodelay = getattr(connection._socket, "set_nodelay", None)
        if set_nodelay is not None:
            set_nodelay(True)


async def reply_written(doc) -> None:
    """Works around Panel retrying a change 10 ms later when the socket is busy writing.

    Upstream: none found (the retry came with https://github.com/holoviz/panel/pull/6052);
    report text: docs/upstream.md, "Busy socket". Waiting until the reply to the page's own
    message is written (well under a millisecond) lets Panel send each view's change as it is
    made (`panel.io.document._dispatch_msgs`).
    """
    for connection in connections(doc):
        lock = getattr(connection._socket, "write_lock", None)
        if lock is not None:
            async with lock:
                pass


def freeze_imports() -> None:
    """Works around full garbage collections of the imported heap pausing a step (60-90 ms).

    Upstream: none found (https://github.com/holoviz/panel/pull/3259 throttles explicit
    collections only); report text: docs/upstream.md, "GC pauses".

    Everything imported before the first page is moved out of the collector's way, once per
    process (`gc.freeze`); the sessions' own objects are still collected.
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
    """Works around Panel leaving write tasks unawaited when a page closes mid-write.

    Upstream: https://github.com/holoviz/panel/issues/3743 (open).
    A page closed mid-write left "Task exception was never retrieved" (WebSocketClosedError)
    in the server's log; it becomes one debug line. Every other error still reaches the loop's
    handler. Once per loop.
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


def ping_open_sockets_only() -> None:
    """Works around Bokeh's keep-alive letting go of a page's session while its socket closes.

    Upstream: none found (the keep-alive's `client_lost` on a failed ping came with
    https://github.com/bokeh/bokeh/pull/13655); report text: docs/upstream.md, "Keep-alive".
    A page that left mid-step failed its ping, and the keep-alive detached the connection from
    its session while the socket was still handling what the page had sent before it left; that
    message, then the socket's own close, asked for the session: `assert self._session is not
    None` in the server's log. A closing socket is no longer pinged: its close, which follows its
    last message, lets go of the session. Once per process.
    """
    # `panel serve` has imported Bokeh's socket handler; the Pyodide site has neither it nor
    # Tornado, which it imports.
    ws = sys.modules.get("bokeh.server.views.ws")
    if ws is None or getattr(ws.WSHandler.ping, "spares_closing_sockets", False):
        return
    WSHandler = ws.WSHandler
    ping = WSHandler.ping

    def ping_unless_closing(self, data: str | bytes = b"") -> None:
        if self.ws_connection is not None and self.ws_connection.is_closing():
            log.debug("no keep-alive ping to a page that is leaving")
            return
        ping(self, data)

    ping_unless_closing.spares_closing_sockets = True
    WSHandler.ping = ping_unless_closing


def inline_icon(doc) -> None:
    """Works around Bokeh's favicon.ico, sent without cache headers and so fetched again after
    every URL rewrite.

    Upstream: none found (the handler came with https://github.com/bokeh/bokeh/pull/11796);
    report text: docs/upstream.md, "Favicon". The served page gets the site's icon inline.
    """
    icon = icon_data_uri()
    if icon is not None:
        doc.template_variables["app_favicon"] = icon


def prepare_session() -> None:
    """Set up the current `panel serve` session's page and socket."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    location.install()
    freeze_imports()
    ping_open_sockets_only()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # a session made outside a server's loop (tests)
        loop = None
    if loop is not None:
        quiet_departed_pages(loop)
    inline_icon(doc)
    pn.state.onload(lambda: send_without_delay(doc))

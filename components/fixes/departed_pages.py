"""Works around Panel leaving write tasks unawaited when a page closes mid-write (https://github.com/holoviz/panel/issues/3743).

Under `panel serve` (./build.sh dev) a page closed while a step's changes were being written left
"Task exception was never retrieved" (WebSocketClosedError) and its traceback in the server's
log; the browser tier, which fails on any traceback there, failed at random. Such a write becomes
one debug line; every other error still reaches the loop's handler. The site's worker has no
socket and never calls this.
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger(__name__)


def is_write_to_departed_page(context: dict) -> bool:
    """Whether an asyncio error report is a write to a page that has already gone away."""
    # Tornado is the server's: the Pyodide site imports this module without it.
    from tornado.websocket import WebSocketClosedError

    return context.get("message") == "Task exception was never retrieved" and isinstance(
        context.get("exception"), WebSocketClosedError
    )


def quiet_departed_pages(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Report writes to departed pages on loop (the running one, if any) as debug lines; once
    per loop."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a session made outside a server's loop (tests)
            return
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

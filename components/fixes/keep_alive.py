"""Works around Bokeh's keep-alive detaching a session that its closing socket still uses.

Upstream: none found (the keep-alive's `client_lost` came with
https://github.com/bokeh/bokeh/pull/13655); report text: docs/upstream.md, "Keep-alive".

Under `panel serve` (./build.sh dev) a page that left mid-step failed its ping, and the
keep-alive let go of the connection's session while the socket was still handling what the page
had sent before it left: its close then asked for the session, `assert self._session is not
None`, a traceback in the server's log that fails the browser tier (seen again in issue 40's CI
once this fix had been taken out). A closing socket is no longer pinged; its own close, which
follows its last message, lets go of the session.
"""

from __future__ import annotations

import logging
import sys

log = logging.getLogger(__name__)


def ping_open_sockets_only() -> None:
    """Make Bokeh's socket handler skip the keep-alive ping of a closing socket; once."""
    # `panel serve` has imported Bokeh's socket handler; the Pyodide site has neither it nor
    # Tornado, which it imports.
    ws = sys.modules.get("bokeh.server.views.ws")
    if ws is None or getattr(ws.WSHandler.ping, "spares_closing_sockets", False):
        return
    ping = ws.WSHandler.ping

    def ping_unless_closing(self, data: str | bytes = b"") -> None:
        if self.ws_connection is not None and self.ws_connection.is_closing():
            log.debug("no keep-alive ping to a page that is leaving")
            return
        ping(self, data)

    ping_unless_closing.spares_closing_sockets = True
    ws.WSHandler.ping = ping_unless_closing

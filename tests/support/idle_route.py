"""A route the browser tests add to `panel serve` (its --plugins option, in
browser_support.panel_serve): what the server still has to do for a page's session, so that a
test can wait until it is idle instead of waiting a while.

GET /pe-test-idle?token=<the page's Bokeh session token> answers {"pending": n, "found": bool}:
the session's callbacks still to run (Panel applies a change the page sent in one, 50 ms later by
default: `Syncable._debounce`; a periodic one, Play's clock, does not count: it is time), the
changes Panel has taken off that list but not applied yet, and the messages being written to the
page (or held by Panel until its socket is free). Without the session (gone, or a token it
cannot read) it counts every session's.
"""

from __future__ import annotations

from bokeh.util.token import get_session_id
from tornado.web import RequestHandler


def _pending(session) -> int:
    from panel.io import document as panel_document
    from panel.io.state import state

    doc = session.document
    callbacks = [
        callback
        for callback in doc.session_callbacks
        if type(callback).__name__ != "PeriodicCallback"
    ]
    changes = state._change_callbacks.get(doc, {})
    writing = [
        connection
        for connection in getattr(session, "_subscribed_connections", ())
        if getattr(getattr(connection, "_socket", None), "write_lock", None) is not None
        and connection._socket.write_lock._block._value == 0
    ]
    # Panel's own writes: its tasks, and the messages it holds while a socket is busy.
    tasks = [task for task in panel_document._write_tasks.get(doc, []) if not task.done()]
    held = panel_document._WRITE_MSGS.get(doc, {})
    return len(callbacks) + len(changes) + len(writing) + len(tasks) + len(held)


class IdleHandler(RequestHandler):
    def get(self) -> None:
        sessions = [
            session
            for context in self.application._applications.values()
            for session in context.sessions
        ]
        token = self.get_argument("token", "")
        try:
            wanted = get_session_id(token) if token else None
        except Exception:  # noqa: BLE001 - an unreadable token counts every session
            wanted = None
        mine = [session for session in sessions if session.id == wanted]
        self.set_header("Cache-Control", "no-store")
        self.write({"pending": sum(map(_pending, mine or sessions)), "found": bool(mine)})


ROUTES = [(r"/pe-test-idle", IdleHandler)]

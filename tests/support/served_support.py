"""Stand-ins for the `panel serve` session a document belongs to: its connections, each with
the write lock of Bokeh's WSHandler that Panel looks at before it writes."""

from __future__ import annotations

import asyncio
import types
import weakref

from bokeh.document import Document
from tornado import locks


class WriteLock(locks.Lock):
    """Bokeh's write lock, which also says when someone has begun to wait for it: `waited` is set
    once an acquire could not take it at once (a test awaits that instead of sleeping)."""

    def __init__(self):
        super().__init__()
        self.waited = asyncio.Event()

    def acquire(self, timeout=None):
        acquiring = super().acquire(timeout)
        if not acquiring.done():
            self.waited.set()
        return acquiring


class Socket:
    """Stands in for Bokeh's WSHandler: the write lock it holds while writing."""

    def __init__(self):
        self.write_lock = WriteLock()


class Connection:
    def __init__(self):
        self._socket = Socket()


class Session:
    def __init__(self, connections):
        self._subscribed_connections = set(connections)


class SessionContext:
    """Stands in for the `panel serve` session a document belongs to."""

    def __init__(self, connections=()):
        self.session = Session(connections)
        self.request = types.SimpleNamespace(arguments={}, cookies={}, headers={})


def served_document(*connections) -> tuple[Document, SessionContext]:
    """A document of a served session with these connections (the context must be kept alive)."""
    doc = Document()
    context = SessionContext(connections)
    doc._session_context = weakref.ref(context)
    return doc, context

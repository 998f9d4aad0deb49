"""Under `panel serve`, a step's changes to a view are written to the page as one message."""

import threading
import types
import weakref

import panel as pn
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc
from pe_explorer.state import ExplorerState
from pe_explorer.views import view_spec
from tornado import locks


class Socket:
    """Stands in for Bokeh's WSHandler: the write lock Panel looks at before it writes."""

    def __init__(self):
        self.write_lock = locks.Lock()


class Connection:
    def __init__(self):
        self._socket = Socket()


class Session:
    def __init__(self, connections):
        self._subscribed_connections = set(connections)


class SessionContext:
    """Stands in for the `panel serve` session a document belongs to."""

    def __init__(self, connections):
        self.session = Session(connections)
        self.request = types.SimpleNamespace(arguments={}, cookies={}, headers={})


def served_document(*connections) -> tuple[Document, SessionContext]:
    doc = Document()
    context = SessionContext(connections)
    doc._session_context = weakref.ref(context)
    return doc, context


@pytest.mark.parametrize(("parameter", "value"), [("d_model", 130), ("pos", 9)])
def test_a_views_changes_in_one_step_are_written_as_one_message(monkeypatch, parameter, value):
    """Config, figure and readout of the compare view: one PATCH-DOC, not one per property."""
    from panel.io import document as panel_document

    written = []
    monkeypatch.setattr(
        panel_document,
        "write_events",
        lambda doc, connections, events: written.append([event.attr for event in events]),
    )
    doc, _context = served_document(Connection())
    # The page has loaded and connected: Panel writes changes at once, not at the next tick.
    monkeypatch.setitem(pn.state._loaded, doc, True)
    monkeypatch.setitem(pn.state._connected, doc, True)
    monkeypatch.setitem(pn.state._thread_id_, doc, threading.get_ident())
    state = ExplorerState(d_model=128, n_positions=128)
    view = view_spec("compare").make(state)
    with set_curdoc(doc):
        doc.add_root(view.__panel__().get_root(doc))
        setattr(state, parameter, value)
    assert len(written) == 1
    changed = set(written[0])
    assert "text" in changed  # the readout
    if parameter == "d_model":
        assert {"config", "layout", "data"} <= changed
    else:
        assert changed & {"restyle", "relayout"}

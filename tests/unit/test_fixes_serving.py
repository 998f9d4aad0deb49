"""Served sessions: a slider step waits for the reply being written, each view's changes go out
as one message, sockets send at once, the imported heap is frozen once, and the page's icon is
inline."""

import asyncio
import base64
import threading
import types
import weakref

import panel as pn
import panel.io.location
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc
from pe_explorer.fixes import serving
from pe_explorer.plotkit import icon
from pe_explorer.state import ExplorerState
from pe_explorer.ui.controls import Controls
from pe_explorer.views import view_spec
from tornado import locks
from tornado.websocket import WebSocketClosedError


class Socket:
    """Stands in for Bokeh's WSHandler: a write lock, and the no-delay flag it was given."""

    def __init__(self):
        self.write_lock = locks.Lock()
        self.nodelay = None

    def set_nodelay(self, value: bool) -> None:
        self.nodelay = value


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


def run(scenario) -> None:
    """Run the coroutine function scenario to the end on a loop of its own.

    In its own thread: the browser tests' Playwright keeps an event loop running in this one.
    """
    failures = []

    def main():
        try:
            asyncio.run(scenario())
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            failures.append(error)

    thread = threading.Thread(target=main)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the scenario did not finish in 30 s"
    if failures:
        raise failures[0]


def served_document(*connections) -> tuple[Document, SessionContext]:
    doc = Document()
    context = SessionContext(connections)
    doc._session_context = weakref.ref(context)
    return doc, context


def test_reply_written_waits_for_the_message_being_written():
    async def scenario():
        connection = Connection()
        doc, _context = served_document(connection)
        await connection._socket.write_lock.acquire()
        waiting = asyncio.ensure_future(serving.reply_written(doc))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        connection._socket.write_lock.release()
        await asyncio.wait_for(waiting, 1)

    run(scenario)


def test_reply_written_does_not_wait_without_a_session():
    async def scenario():
        await asyncio.wait_for(serving.reply_written(Document()), 1)

    run(scenario)


@pytest.mark.parametrize(("control", "value"), [("pos", 9), ("offset", 5), ("d_model", 130)])
def test_a_served_step_is_handled_once_the_reply_is_written(control, value):
    async def scenario():
        connection = Connection()
        doc, _context = served_document(connection)
        state = ExplorerState(d_model=128, n_positions=128)
        slider = getattr(Controls(state=state), control)
        slider._events = {"value": value}
        await connection._socket.write_lock.acquire()
        with set_curdoc(doc):
            step = asyncio.ensure_future(slider._change_coroutine(doc))
            await asyncio.sleep(0.01)
            # While the reply is being written nothing has moved, so nothing is queued.
            assert getattr(state, control) != value
            connection._socket.write_lock.release()
            await asyncio.wait_for(step, 5)
        assert getattr(state, control) == value

    run(scenario)


def test_every_connection_sends_without_delay():
    connections = [Connection(), Connection()]
    doc, _context = served_document(*connections)
    serving.send_without_delay(doc)
    assert [c._socket.nodelay for c in connections] == [True, True]


def test_the_imported_heap_is_frozen_once(monkeypatch):
    frozen = []
    monkeypatch.setattr(serving, "_imports_frozen", False)
    monkeypatch.setattr(serving.gc, "freeze", lambda: frozen.append(True))
    serving.freeze_imports()
    serving.freeze_imports()
    assert frozen == [True]


def test_a_page_without_a_session_changes_nothing(monkeypatch):
    """Tests and the Pyodide worker: no socket to set, nothing frozen."""
    monkeypatch.setattr(serving, "_imports_frozen", False)
    with set_curdoc(Document()):
        serving.prepare_session()
    assert serving._imports_frozen is False


def test_a_write_to_a_departed_page_is_not_reported_as_an_error():
    loop = asyncio.new_event_loop()
    try:
        reported = []
        loop.set_exception_handler(lambda loop, context: reported.append(context["message"]))
        serving.quiet_departed_pages(loop)
        serving.quiet_departed_pages(loop)  # once per loop: the handler does not wrap itself
        loop.call_exception_handler(
            {"message": "Task exception was never retrieved", "exception": WebSocketClosedError()}
        )
        loop.call_exception_handler(
            {"message": "Task exception was never retrieved", "exception": ValueError("ours")}
        )
        loop.call_exception_handler({"message": "Exception in callback"})
        assert reported == ["Task exception was never retrieved", "Exception in callback"]
    finally:
        loop.close()


def test_the_keep_alive_leaves_a_closing_socket_to_its_own_close(monkeypatch):
    """A failed keep-alive ping lets go of the socket's session; a closing socket may still be
    handling what its page sent, so it is not pinged (its close lets go of the session)."""
    from bokeh.server.views.ws import WSHandler

    monkeypatch.setattr(WSHandler, "ping", WSHandler.ping)  # put back after the test
    serving.ping_open_sockets_only()
    serving.ping_open_sockets_only()  # once per process: the ping does not wrap itself
    written = []
    socket = types.SimpleNamespace(is_closing=lambda: False, write_ping=written.append)
    WSHandler.ping(types.SimpleNamespace(ws_connection=socket), b"7")
    assert written == [b"7"]
    socket.is_closing = lambda: True
    WSHandler.ping(types.SimpleNamespace(ws_connection=socket), b"8")  # no WebSocketClosedError
    assert written == [b"7"]
    with pytest.raises(WebSocketClosedError):  # closed: the keep-alive still lets go of it
        WSHandler.ping(types.SimpleNamespace(ws_connection=None))


def test_the_icon_goes_inline_as_the_sites_own_file(tmp_path):
    uri = icon.icon_data_uri()
    assert uri.startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(uri.split(",", 1)[1]) == icon.ICON.read_bytes()
    # Where the file is not shipped (the Pyodide wheel), Panel's default stays.
    assert icon.icon_data_uri(tmp_path / "missing.svg") is None


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


@pytest.mark.parametrize(
    ("uri", "search"),
    [
        ("/app?text=why?", "?text=why%3F"),
        ("/app?pos=3?d_model=64", "?pos=3%3Fd_model=64"),
        ("/app??pos=3", "?%3Fpos=3"),
        ("/app?pos=3", "?pos=3"),
    ],
)
def test_a_second_question_mark_is_read_as_part_of_the_query(uri, search):
    from pe_explorer.fixes import location

    location.install()
    params = panel.io.location._get_location_params("http", "localhost:5006", uri)
    assert (params["pathname"], params["search"]) == ("/app", search)

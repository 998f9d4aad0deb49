"""Under `panel serve` each slider step reaches Python on its own, once the reply to the page's
message is written: Panel would hold a change for 50 ms and merge the steps sent meanwhile."""

import asyncio
import threading

import panel as pn
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc
from pe_explorer.fixes import slider as served_slider
from pe_explorer.state import ExplorerState
from pe_explorer.ui.controls import Controls
from served_support import Connection, served_document


def run(scenario) -> None:
    """Run the coroutine function scenario to the end on a loop of its own, in its own thread
    (the browser tests' Playwright keeps an event loop running in this one)."""
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


def delay_of_a_served_step(slider: pn.widgets.IntSlider) -> int:
    """The ms Panel waits before it applies a step the page sent on slider."""
    doc, _context = served_document()
    delays = []
    doc.add_timeout_callback = lambda callback, ms: delays.append(ms)
    model = slider.get_root(doc)
    slider._server_change(doc, model.ref["id"], None, "value", slider.value, slider.value + 1)
    return delays[0]


def test_panel_holds_a_served_step_of_its_own_slider():
    """The bug: when this fails, Panel no longer debounces, and the debounce's part can go."""
    assert delay_of_a_served_step(pn.widgets.IntSlider(start=0, end=9, value=3)) == 50


@pytest.mark.parametrize("name", ["pos", "offset", "d_model", "n_positions"])
def test_every_slider_of_the_controls_sends_its_steps_at_once(name):
    slider = getattr(Controls(state=ExplorerState()), name)
    assert isinstance(slider, served_slider.Slider)
    assert delay_of_a_served_step(slider) == 0


def test_reply_written_waits_for_the_message_being_written():
    async def scenario():
        connection = Connection()
        doc, _context = served_document(connection)
        await connection._socket.write_lock.acquire()
        waiting = asyncio.ensure_future(served_slider.reply_written(doc))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        connection._socket.write_lock.release()
        await asyncio.wait_for(waiting, 1)

    run(scenario)


def test_reply_written_does_not_wait_without_a_session():
    async def scenario():
        await asyncio.wait_for(served_slider.reply_written(Document()), 1)

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

"""The sliders: a served step's changes are held on the document and sent together."""

import weakref

import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from components.controls import Controls
from components.state import ExplorerState


class SessionContext:
    """Stands in for the `panel serve` session a document belongs to."""


def held_during_step(doc, control: str, value: int) -> list:
    state = ExplorerState(d_model=128, n_positions=128)
    controls = Controls(state=state)
    seen = []
    state.param.watch(lambda event: seen.append(doc.callbacks.hold_value), control)
    with set_curdoc(doc):
        getattr(controls, control)._process_events({"value": value})
    assert getattr(state, control) == value
    return seen


@pytest.mark.parametrize(("control", "value"), [("pos", 9), ("offset", 5), ("d_model", 130)])
def test_a_served_step_is_handled_inside_one_document_hold(control, value):
    doc = Document()
    session = SessionContext()
    doc._session_context = weakref.ref(session)
    assert held_during_step(doc, control, value) == ["combine"]
    # Released when the step is handled: its changes are sent, nothing stays held.
    assert doc.callbacks.hold_value is None
    assert doc.callbacks._held_events == []


def test_without_a_session_a_step_is_not_held():
    """Tests and the Pyodide worker: Panel sends the changes its own way."""
    doc = Document()
    assert held_during_step(doc, "pos", 9) == [None]


def test_a_step_inside_a_hold_leaves_it_to_its_owner():
    doc = Document()
    session = SessionContext()
    doc._session_context = weakref.ref(session)
    doc.hold("collect")
    try:
        assert held_during_step(doc, "pos", 9) == ["collect"]
        assert doc.callbacks.hold_value == "collect"
    finally:
        doc.unhold()

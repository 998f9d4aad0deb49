"""Under `panel serve`, a step's changes to a view are written to the page as one message."""

import threading

import panel as pn
import pytest
from panel.io.state import set_curdoc
from pe_explorer.state import ExplorerState
from pe_explorer.views import view_spec
from served_support import Connection, served_document


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

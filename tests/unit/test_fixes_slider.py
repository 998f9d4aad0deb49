"""Under `panel serve` each slider step reaches Python on its own: Panel would hold a change for
50 ms and merge the steps sent meanwhile, skipping the states between them."""

import weakref

import panel as pn
import pytest
from bokeh.document import Document
from pe_explorer.fixes.slider import Slider
from pe_explorer.state import ExplorerState
from pe_explorer.ui.controls import Controls


class SessionContext:
    """Stands in for the `panel serve` session a document belongs to."""


def delay_of_a_served_step(slider: pn.widgets.IntSlider) -> int:
    """The ms Panel waits before it applies a step the page sent on slider."""
    doc = Document()
    context = SessionContext()
    doc._session_context = weakref.ref(context)
    delays = []
    doc.add_timeout_callback = lambda callback, ms: delays.append(ms)
    model = slider.get_root(doc)
    slider._server_change(doc, model.ref["id"], None, "value", slider.value, slider.value + 1)
    return delays[0]


def test_panel_holds_a_served_step_of_its_own_slider():
    """The bug: when this fails, Panel no longer debounces, and fixes/slider.py can go."""
    assert delay_of_a_served_step(pn.widgets.IntSlider(start=0, end=9, value=3)) == 50


@pytest.mark.parametrize("name", ["pos", "offset", "d_model", "n_positions"])
def test_every_slider_of_the_controls_sends_its_steps_at_once(name):
    slider = getattr(Controls(state=ExplorerState()), name)
    assert isinstance(slider, Slider)
    assert delay_of_a_served_step(slider) == 0

"""The controls: each widget sets the state and follows it back."""

from components import encoding
from components.controls import BASE_STOPS, Controls
from components.state import ExplorerState


def test_base_slider_uses_log_stops_and_keeps_an_odd_base_from_a_link():
    state = ExplorerState(base=300.0)
    controls = Controls(state=state)
    values = list(controls.base.options.values())
    assert values == sorted([*map(float, BASE_STOPS), 300.0])
    assert controls.base.value == 300.0
    controls.base.value = 50.0
    assert state.base == 50.0
    state.base = 100000.0
    assert controls.base.value == 100000.0
    assert "pe-control-base" in controls.base.css_classes


def test_layout_toggle_sets_the_state():
    state = ExplorerState()
    controls = Controls(state=state)
    assert list(controls.layout.options) == list(encoding.LAYOUTS)
    controls.layout.value = "concatenated"
    assert state.layout == "concatenated"


def test_rotation_pair_slider_ends_at_the_last_pair_of_d_model():
    state = ExplorerState()
    controls = Controls(state=state)
    assert controls.rotation_pair.end == 63
    state.d_model = 16
    assert controls.rotation_pair.end == 7


def test_similarity_toggle_sets_the_state():
    state = ExplorerState()
    controls = Controls(state=state)
    controls.similarity.value = "cosine"
    assert state.similarity == "cosine"

"""The controls: each widget sets the state and follows it back."""

import pytest
from pe_explorer import encoding
from pe_explorer.scaling import SCALING_LABELS
from pe_explorer.state import DEFAULT_TEXT, ExplorerState
from pe_explorer.ui.controls import BASE_STOPS, METHOD_CONTROLS, Controls


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


def test_offset_slider_offers_only_offsets_with_pos_plus_k_at_least_0():
    state = ExplorerState(n_positions=100, pos=30, offset=-30)
    controls = Controls(state=state)
    assert (controls.offset.start, controls.offset.end, controls.offset.value) == (-30, 99, -30)
    state.pos = 12
    assert (controls.offset.start, controls.offset.value) == (-12, -12)
    state.n_positions = 20
    assert (controls.pos.end, controls.offset.end) == (19, 19)


def test_a_bounded_slider_gets_its_range_before_its_value_in_one_update():
    state = ExplorerState(n_positions=100, pos=80)
    controls = Controls(state=state)
    updates = []
    controls.pos.param.watch(
        lambda *events: updates.append([e.name for e in events]), ["start", "end", "value"]
    )
    state.n_positions = 50
    assert updates == [["end", "value"]]
    assert (controls.pos.end, controls.pos.value) == (49, 49)


def test_a_slider_value_the_state_does_not_keep_is_shown_as_the_state_kept():
    state = ExplorerState(pos=3, offset=0)
    controls = Controls(state=state)
    controls.offset.value = -20
    assert state.offset == -3
    assert controls.offset.value == -3


def test_a_sentence_past_the_limit_from_a_crafted_client_is_turned_away(caplog):
    state = ExplorerState()
    controls = Controls(state=state)
    controls.text.value = "x" * 100_000
    assert state.text == DEFAULT_TEXT
    assert controls.text.value == DEFAULT_TEXT
    assert "turned away" in caplog.text


def test_a_typed_sentence_reaches_the_state_and_the_state_reaches_the_box():
    state = ExplorerState()
    controls = Controls(state=state)
    controls.text.value = "a rose is a rose"
    assert state.text == "a rose is a rose"
    state.text = "why?"
    assert controls.text.value == "why?"


@pytest.mark.parametrize(
    ("name", "labels"),
    [
        ("truncate", ["Whole pairs", "Exact ends"]),
        ("t5_bidirectional", ["Encoder: both sides", "Decoder: causal"]),
    ],
)
def test_a_true_or_false_parameter_is_two_named_buttons_linked_both_ways(name, labels):
    state = ExplorerState()
    buttons = getattr(Controls(state=state), name)
    assert list(buttons.options) == labels
    assert f"pe-control-{name.replace('_', '-')}" in buttons.css_classes
    buttons.value = False
    assert getattr(state, name) is False
    setattr(state, name, True)
    assert buttons.value is True


@pytest.mark.parametrize("method", list(METHOD_CONTROLS))
def test_the_scaling_card_shows_the_chosen_methods_own_controls_and_says_so(method):
    state = ExplorerState(scaling="yarn" if method != "yarn" else "llama3")
    controls = Controls(state=state)
    state.scaling = method
    shown = {name for name, group in controls.method_groups.items() if group.visible}
    assert shown == set(METHOD_CONTROLS[method])
    assert shown <= set(controls.method_groups)
    note = controls.scaling_note.object
    assert SCALING_LABELS[method] in note and "The other methods' show when you choose one" in note


def test_another_methods_parameters_from_a_link_stay_in_the_state_while_hidden():
    state = ExplorerState(scaling="llama3", beta_fast=24.0)
    controls = Controls(state=state)
    assert not controls.method_groups["beta_fast"].visible
    assert state.beta_fast == 24.0 and controls.beta_fast.value == 24.0
    state.scaling = "yarn"
    assert controls.method_groups["beta_fast"].visible and controls.beta_fast.value == 24.0


@pytest.mark.parametrize("name", ["pos", "offset"])
def test_every_value_of_pos_and_k_tells_the_page_picker(name):
    """The slider's value, whoever sets it (a drag, a key, Play, a link), runs the pick in the
    page (components/js/picker.js): the views show it in the same frame."""
    controls = Controls(state=ExplorerState())
    model = getattr(controls, name).get_root()
    (callback,) = model.js_property_callbacks["change:value"]
    assert "'pe-pick'" in callback.code and f"axis: '{name}'" in callback.code

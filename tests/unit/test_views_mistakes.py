"""The mistakes view draws what simulate computes, and says it in numbers (issue 59)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pe_explorer import derived
from pe_explorer.mistakes.simulate import simulate
from pe_explorer.mistakes.types import MISTAKE_NAMES
from pe_explorer.model.reader import read_model
from pe_explorer.model.sources import load
from pe_explorer.plotkit.numbers import number
from pe_explorer.state import MISTAKE_SETTINGS, ExplorerState
from pe_explorer.ui.controls import Controls
from pe_explorer.urlstate import parse_query, state_keys, to_query, to_query_values
from pe_explorer.views import VIEW_NAMES, mistakes


def traces_named(figure: dict) -> dict:
    return {trace["name"]: trace for trace in figure["data"]}


def test_the_default_says_what_simulate_says_of_llama_3_1_in_bf16_at_32k():
    found = simulate("low_precision", "llama-3.1-8b", at="32k", precision="bf16")
    text = mistakes.describe(ExplorerState())
    assert found.summary in text
    assert "the worst angle error is 3.14 rad" in text


@pytest.mark.parametrize(
    ("mistake", "settings"),
    [
        ("low_precision", {"precision": "fp16", "place": "positions"}),
        ("wrong_theta", {}),
        ("cache_window", {}),
    ],
)
def test_the_score_curves_are_simulates_right_and_mistaken_scores(mistake, settings):
    place = settings.get("place", "product")
    state = ExplorerState(mistake=mistake, precision=settings.get("precision", "bf16"),
                          precision_place=place, mistake_on="rope", query_at="4k")  # fmt: skip
    found = simulate(mistake, None, at="4k", **settings)
    shown = traces_named(mistakes.figure(state))
    right = next(t for name, t in shown.items() if name.startswith("right q·k"))
    wrong = next(t for name, t in shown.items() if name.startswith("mistaken q·k"))
    row = int(np.argmax(np.nan_to_num(np.abs(found.score_wrong - found.score_right)).max(axis=1)))
    np.testing.assert_array_equal(right["y"], found.score_right[row])
    np.testing.assert_array_equal(wrong["y"], found.score_wrong[row])
    np.testing.assert_array_equal(shown["worst |error|"]["y"], found.score_error)


def test_alibi_draws_the_head_whose_slope_is_wrong_against_its_closed_form():
    # 12 heads: 8 slopes 2^-1 … 2^-8, then the odd ones of 16: head 9 is 2^-0.5, given 2^-4.5.
    figure = mistakes.figure(ExplorerState(mistake="alibi_slopes", query_at="4k"))
    shown = traces_named(figure)
    right, wrong = shown["right bias of head 9"], shown["mistaken bias of head 9"]
    assert right["x"][-1] == 4096
    assert right["y"][-1] == pytest.approx(-(2**-0.5) * 4096)
    assert wrong["y"][-1] == pytest.approx(-(2**-4.5) * 4096)


def test_angle_errors_are_drawn_for_the_fastest_and_slowest_pairs():
    state = ExplorerState(mistake="wrong_theta", mistake_on="rope", query_at="4k")
    found = simulate("wrong_theta", None, at="4k")
    shown = traces_named(mistakes.figure(state))
    assert {"pair 0", "pair 16", "pair 32", "pair 63"} == set(shown) - {
        "right q·k", "mistaken q·k", "worst |error|"}  # fmt: skip
    slowest = np.abs(found.angle_error[:, 63])
    np.testing.assert_array_equal(shown["pair 63"]["y"], np.where(slowest == 0, np.nan, slowest))


def test_left_padding_shows_each_rows_position_ids_right_and_mistaken():
    shown = traces_named(mistakes.figure(ExplorerState(mistake="left_padding")))
    # Row 0 holds 3 tokens after 7 pads: told 7, 8, 9 instead of 0, 1, 2.
    assert list(shown["mistaken (row 0)"]["y"][-3:]) == [7, 8, 9]
    assert list(shown["right (row 0)"]["y"][-3:]) == [0, 1, 2]


def test_scaling_on_plain_rope_says_there_is_none_to_drop():
    state = ExplorerState(mistake="scaling", mistake_on="rope")
    assert mistakes.figure(state)["data"] == []
    assert "has no RoPE scaling to drop or apply twice" in mistakes.describe(state)
    assert "choose “The model's layer”" in mistakes.describe(state)
    assert mistakes.data(state).rows == ()


def test_scaling_applied_twice_on_the_model_squares_its_attention_factor():
    text = mistakes.describe(ExplorerState(mistake="scaling", scaling_mistake="twice",
                                           model="qwen3-yarn-4x"))  # fmt: skip
    # YaRN at factor 4: 0.1 ln 4 + 1 = 1.1386, squared 1.2965.
    assert "attention factor 1.2965 instead of 1.1386" in text


@pytest.mark.parametrize("mistake", MISTAKE_NAMES)
def test_every_mistake_draws_two_charts_and_a_table_of_both(mistake):
    state = ExplorerState(mistake=mistake)
    figure = mistakes.figure(state)
    assert {trace["xaxis"] for trace in figure["data"]} == {"x", "x2"}
    charts = {row[0] for row in mistakes.data(state).rows}
    assert len(charts) == 2 and "score against Δ" in charts


def test_a_mistakes_own_settings_show_only_while_it_is_chosen():
    state = ExplorerState()
    groups = Controls(state=state).mistake_groups
    assert groups["precision"].visible and not groups["scaling_mistake"].visible
    state.mistake = "scaling"
    assert not groups["precision"].visible and groups["scaling_mistake"].visible
    assert groups["query_at"].visible and groups["mistake_on"].visible
    state.mistake = "left_padding"
    assert not groups["query_at"].visible and groups["mistake_on"].visible
    state.mistake = "alibi_slopes"
    assert groups["query_at"].visible and not groups["mistake_on"].visible


def test_the_mistake_chosen_in_its_list_reaches_the_state_and_back():
    state = ExplorerState()
    controls = Controls(state=state)
    controls.mistake.value = "pairing_swapped"
    assert state.mistake == "pairing_swapped"
    state.mistake = "alibi_slopes"
    assert controls.mistake.value == "alibi_slopes"


def test_the_model_view_links_its_preset_to_the_mistakes_view():
    from pe_explorer.views import view_spec

    view = view_spec("model").make(ExplorerState(model="qwen3-8b"))
    view.update_extras()
    link = 'href="?model=qwen3-8b&amp;mistake_on=model&amp;view=mistakes"'
    assert link in view._status.object


@pytest.mark.parametrize(
    ("mistake", "settings"),
    [
        ("low_precision", {"precision": "bf16", "place": "positions"}),
        ("low_precision", {"precision": "fp16", "place": "product"}),
        ("wrong_theta", {}),
        ("scaling", {"how": "twice"}),
        ("dynamic_ntk_cache", {}),
    ],
)
def test_the_sliders_sentence_gives_simulates_worst_angle_error_at_pos(mistake, settings):
    state = ExplorerState(mistake=mistake, n_positions=2048, pos=1500, offset=7,
                          precision=settings.get("precision", "bf16"),
                          precision_place=settings.get("place", "product"),
                          scaling_mistake=settings.get("how", "dropped"))  # fmt: skip
    found = simulate(mistake, "llama-3.1-8b", [1500], at="32k", **settings)
    errors = np.abs(found.angle_error[0])
    words = f"At position pos = 1500, the worst angle error is {errors.max():.3g} rad (pair "
    assert f"{words}{int(errors.argmax())})." in mistakes.describe(state)
    line = mistakes.figure(state)["layout"]["images"][-2]
    assert (line["name"], line["x"], line["xref"], line["visible"]) == ("pos", 1500, "x", True)


@pytest.mark.parametrize("offset", [-40, 0, 300])
@pytest.mark.parametrize("mistake", ["low_precision", "pairing_swapped", "alibi_slopes"])
def test_the_sliders_sentence_gives_the_scores_of_the_key_abs_k_before_the_query(mistake, offset):
    state = ExplorerState(mistake=mistake, mistake_on="rope", query_at="4k", n_positions=1024,
                          pos=500, offset=offset)  # fmt: skip
    row = derived.mistake_of(state).score_row
    delta = abs(offset)
    found = simulate(mistake, None, at="4k", distances=[delta])
    right, wrong = found.score_right[row, 0], found.score_wrong[row, 0]
    text = mistakes.describe(state)
    assert f"The key Δ = |k| = {delta} before the query at 4,096: " in text
    assert f"{number(right)} right, {number(wrong)} mistaken" in text
    assert f"the worst error is {found.score_error[0]:.3g}." in text
    line = mistakes.figure(state)["layout"]["images"][-1]
    assert (line["name"], line["x"], line["xref"], line["visible"]) == (
        "Δ = |k|",
        delta,
        "x2",
        True,
    )


@pytest.mark.parametrize("mistake", ["left_padding", "cache_window", "packed_documents"])
def test_a_mistake_its_own_numbering_decides_has_no_picks_and_no_markers(mistake):
    state = ExplorerState(mistake=mistake, pos=20, offset=3)
    assert mistakes.picks(state) is None
    assert "pos = 20" not in mistakes.describe(state)
    assert [line["visible"] for line in mistakes.figure(state)["layout"]["images"][-2:]] == [
        False, False]  # fmt: skip


def test_distances_are_refused_where_the_mistake_numbers_its_own():
    with pytest.raises(ValueError, match="its own numbering"):
        simulate("cache_window", None, distances=[1, 2])


# A published config.json, as a visitor pastes or drops it on the model view.
VISITORS = Path(__file__).resolve().parents[1] / "fixtures/published_configs/gemma-3-4b-it.json"


def visitor_state(**params) -> tuple[ExplorerState, object]:
    """A state whose model view was given VISITORS and asked its what-if."""
    from pe_explorer.views import view_spec

    state = ExplorerState(**params)
    view = view_spec("model").make(state)
    view._paste.value = VISITORS.read_text(encoding="utf-8")
    view.what_if()
    return state, view


def test_the_visitors_model_gives_the_mistakes_view_its_layers():
    state, _ = visitor_state(query_at="4k")
    reading = read_model(load(VISITORS.read_text(encoding="utf-8")))
    found = simulate("low_precision", reading, at="4k", precision="bf16")
    assert state.mistake_on == "upload" and found.summary.startswith(
        "gemma3_text sliding_attention (θ 10000, rotary 256)"
    )
    assert mistakes.describe(state).startswith(f"{mistakes.named(state)}. {found.summary} At ")
    shown = traces_named(mistakes.figure(state))
    np.testing.assert_array_equal(shown["worst |error|"]["y"], found.score_error)


def test_the_visitors_model_keys_the_cache_by_what_it_holds():
    first, _ = visitor_state()
    again, _ = visitor_state()
    assert first.visitor_model == again.visitor_model
    assert hash(first.visitor_model) == hash(again.visitor_model)
    assert first.visitor_model.reading is not again.visitor_model.reading
    assert derived.mistake_of(first) is derived.mistake_of(again)


def test_the_visitors_model_is_never_in_the_link():
    state, _ = visitor_state()
    assert state.visitor_model is not None
    alone = ExplorerState(mistake_on="upload")
    assert (
        to_query(state)
        == to_query(alone)
        == "d_model=128&n_positions=64&mistake_on=upload&pos=7&offset=1"
    )
    assert "visitor_model" not in to_query_values(state) and "visitor_model" not in state_keys()
    parsed = parse_query("visitor_model=x&mistake_on=upload", VIEW_NAMES)
    assert [str(n) for n in parsed.notices] == ["'visitor_model': unknown parameter, ignored"]


def test_a_link_to_the_visitors_model_without_one_runs_on_the_preset_and_says_so():
    parsed = parse_query("model=qwen3-8b&mistake_on=upload&view=mistakes", VIEW_NAMES)
    assert parsed.notices == [] and parsed.view == "mistakes"
    state = ExplorerState(**parsed.values)
    found = simulate("low_precision", "qwen3-8b", at="32k", precision="bf16")
    text = mistakes.describe(state)
    assert text.startswith(f"{mistakes.named(state)}. No model of yours is open here")
    assert "runs on the preset Qwen3 8B" in text and f"{found.summary} At position" in text
    assert mistakes.figure(state)["data"] and mistakes.data(state).rows


def test_the_visitors_model_leaves_the_state_when_the_model_view_goes_back_to_the_preset():
    state, view = visitor_state()
    assert view._what_if.visible
    view._back_to_preset()
    assert state.visitor_model is None and not view._what_if.visible
    assert "No model of yours is open here" in mistakes.describe(state)


# Each mistake's own settings in the state, a value other than the default, and what simulate
# takes for it.
OWN_SETTINGS = [
    ("cache_window", {"window": 512, "sinks": 8}, {"window": 512, "sinks": 8}),
    ("left_padding", {"padded_lengths": "5,2,9"}, {"lengths": (5, 2, 9)}),
    ("packed_documents", {"packed_lengths": "100,200"}, {"lengths": (100, 200)}),
    ("alibi_slopes", {"alibi_heads": 6, "alibi_as_heads": 8}, {"heads": 6, "as_heads": 8}),
    ("wrong_theta", {"theta_read": 1e6}, {"theta": 1e6}),
    ("dynamic_ntk_cache", {"prefill": 1024}, {"prefill": 1024}),
]


def test_a_window_of_512_with_4_sinks_says_what_simulate_says():
    state = ExplorerState(mistake="cache_window", window=512, sinks=4)
    found = simulate("cache_window", "llama-3.1-8b", at="32k", window=512, sinks=4)
    text = mistakes.describe(state)
    assert text.endswith(found.summary)
    # 4 sinks and 512 recent keys: the query at 32,768 is numbered by its slot, 4 + 511.
    assert "4 sinks and a window of 512: the query at 32,768 is numbered 515" in text
    assert text != mistakes.describe(ExplorerState(mistake="cache_window"))


@pytest.mark.parametrize(("mistake", "values", "settings"), OWN_SETTINGS)
def test_each_mistakes_own_settings_reach_simulate(mistake, values, settings):
    state = ExplorerState(mistake=mistake, mistake_on="rope", query_at="4k", **values)
    found = simulate(mistake, None, at="4k", **settings)
    assert f"{mistakes.named(state)}. {found.summary}" in mistakes.describe(state)
    assert mistakes.describe(state) != mistakes.describe(
        ExplorerState(mistake=mistake, mistake_on="rope", query_at="4k")
    )
    assert dict(derived.mistake_own(state)) == settings


@pytest.mark.parametrize(("mistake", "values", "settings"), OWN_SETTINGS)
def test_the_settings_cache_key_is_hashable(mistake, values, settings):
    own = derived.mistake_own(ExplorerState(mistake=mistake, **values))
    assert hash(own) == hash(derived.mistake_own(ExplorerState(mistake=mistake, **values)))


def test_empty_settings_take_simulates_defaults():
    state = ExplorerState(mistake="wrong_theta", mistake_on="rope", query_at="4k")
    assert derived.mistake_own(state) == ()
    # Plain RoPE is at θ 10 000: the mistake reads 500 000.
    assert "θ 500000 instead of 10000" in mistakes.describe(state)


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ({"mistake": "cache_window", "window": 40000},
         "at (32,768) must be at least sinks + window (40,004): choose a smaller window"),
        ({"mistake": "alibi_slopes", "alibi_heads": 12, "alibi_as_heads": 8},
         "the slopes must be computed for at least the 12 heads the model has"),
        ({"mistake": "dynamic_ntk_cache", "prefill": 40000},
         "the prompt's length (prefill) must be 1 … the query's position p (32,768), got 40,000"),
    ],
)  # fmt: skip
def test_settings_simulate_refuses_are_said_not_drawn(values, says):
    state = ExplorerState(**values)
    assert says in mistakes.describe(state)
    assert "choose “The model's layer”" not in mistakes.describe(state)
    assert mistakes.figure(state)["data"] == []
    assert says in mistakes.data(state).note


@pytest.mark.parametrize(
    ("query", "key", "default"),
    [
        ("padded_lengths=abc", "padded_lengths", "3,7,10"),
        ("packed_lengths=1,2,3,4,5,6,7,8,9", "packed_lengths", "512,1024,2048,512"),
        ("packed_lengths=70000", "packed_lengths", "512,1024,2048,512"),
        ("theta_read=abc", "theta_read", None),
    ],
)
def test_a_bad_setting_in_a_link_gets_a_notice_and_the_default(query, key, default):
    result = parse_query(f"view=mistakes&{query}", VIEW_NAMES)
    assert result.values[key] == default
    assert [notice.key for notice in result.notices] == [key]
    state = ExplorerState()
    state.apply(result.values)
    assert mistakes.describe(state)


def test_a_window_past_the_context_in_a_link_is_said_by_the_view():
    result = parse_query("view=mistakes&mistake=cache_window&window=99999999", VIEW_NAMES)
    assert [str(notice) for notice in result.notices] == [
        "window: 99999999 is outside 1 … 1048576; used the nearest value 1048576"
    ]
    state = ExplorerState()
    state.apply(result.values)
    assert "must be at least sinks + window (1,048,580)" in mistakes.describe(state)


@pytest.mark.parametrize(("mistake", "values", "settings"), OWN_SETTINGS)
def test_a_settings_control_shows_only_for_its_mistake(mistake, values, settings):
    state = ExplorerState()
    groups = Controls(state=state).mistake_groups
    mine = set(MISTAKE_SETTINGS[mistake].values())
    assert mine == set(values)
    assert not any(groups[name].visible for name in mine)
    state.mistake = mistake
    assert all(groups[name].visible for name in mine)
    others = {name for names in MISTAKE_SETTINGS.values() for name in names.values()} - mine
    assert not any(groups[name].visible for name in others)


def test_typed_lengths_reach_the_state_and_bad_ones_get_a_message():
    state = ExplorerState(mistake="packed_documents")
    controls = Controls(state=state)
    note = controls.lengths_notes["packed_lengths"]
    controls.packed_lengths.value = " 100, 200 ,300"
    assert state.packed_lengths == "100,200,300" and not note.visible
    controls.packed_lengths.value = "100, lots"
    assert state.packed_lengths == "100,200,300" and note.visible
    assert (
        "whole numbers from 1 to 65,536" in note.object
        and "still drawn: 100,200,300" in note.object
    )
    state.packed_lengths = "7,8"
    assert controls.packed_lengths.value == "7,8" and not note.visible


def test_the_number_controls_set_the_state():
    state = ExplorerState(mistake="cache_window")
    controls = Controls(state=state)
    controls.window.value, controls.sinks.value = 512, 8
    controls.theta_read.value, controls.prefill.value = 1e6, 2048
    controls.alibi_heads.value, controls.alibi_as_heads.value = 6, 8
    assert (state.window, state.sinks, state.theta_read, state.prefill) == (512, 8, 1e6, 2048)
    assert (state.alibi_heads, state.alibi_as_heads) == (6, 8)
    controls.prefill.value = None
    assert state.prefill is None


@pytest.mark.parametrize("lengths", ["65536,1", "1,65536", ",".join(["65536"] * 8)])
def test_the_longest_lengths_are_drawn_at_bounded_size(lengths):
    for mistake, name in (
        ("left_padding", "padded_lengths"),
        ("packed_documents", "packed_lengths"),
    ):
        found = derived.mistake_of(ExplorerState(mistake=mistake, **{name: lengths})).simulation
        assert found is not None
        assert np.size(found.x) <= 2039 and found.distances.size <= 2039

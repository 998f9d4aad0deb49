"""The mistakes view draws what simulate computes, and says it in numbers (issue 59)."""

from __future__ import annotations

import numpy as np
import pytest
from pe_explorer.mistakes.simulate import simulate
from pe_explorer.mistakes.types import MISTAKE_NAMES
from pe_explorer.state import ExplorerState
from pe_explorer.ui.controls import Controls
from pe_explorer.views import mistakes


def traces_named(figure: dict) -> dict:
    return {trace["name"]: trace for trace in figure["data"]}


def test_the_default_says_what_simulate_says_of_llama_3_1_in_bf16_at_32k():
    found = simulate("low_precision", "llama-3.1-8b", at="32k", precision="bf16")
    text = mistakes.describe(ExplorerState())
    assert text.endswith(found.summary)
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

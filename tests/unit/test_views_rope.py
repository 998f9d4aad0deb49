"""The RoPE view: scores of rotated q and k depend on n − m alone, and RoPE's link to D(k)."""

import math
import re

import numpy as np
import plotly.graph_objs as go
import pytest
from pe_explorer import derived, encoding, methods
from pe_explorer.fixes.plotly_patch import same_value
from pe_explorer.plotkit.numbers import readout_number
from pe_explorer.state import ExplorerState
from pe_explorer.views import rope
from state_values import mistake_values

LAYOUTS = ("interleaved", "concatenated")
# (n_positions, d_model, base, pos, offset, seed): the default, pos + k beyond the shown
# positions, negative k down to −pos, large sizes and other bases and seeds.
STATES = [
    (64, 128, 10000.0, 7, 1, 0),
    (64, 128, 10000.0, 60, 63, 3),
    (64, 128, 10000.0, 40, -40, 5),
    (10, 2, 10.0, 9, -3, 1),
    (2048, 2048, 100000.0, 2047, 2047, 42),
    (300, 512, 500.0, 150, -120, 7),
]


def state_of(values: tuple, layout: str) -> ExplorerState:
    """The state of one of STATES, in layout."""
    keys = ("n_positions", "d_model", "base", "pos", "offset", "seed")
    return ExplorerState(**dict(zip(keys, values, strict=True)), layout=layout)


def closed_form_score(q, k, m, n, d_model, base, layout):
    """q_m·k_n with each pair as a complex number z, turned by multiplying with exp(i·pos·θ)."""
    first, second = encoding.pair_columns(d_model, layout)
    theta = base ** (-np.arange(0, d_model, 2) / d_model)
    q_turned = (q[first] + 1j * q[second]) * np.exp(1j * m * theta)
    k_turned = (k[first] + 1j * k[second]) * np.exp(1j * n * theta)
    return float(np.real(np.sum(q_turned * np.conj(k_turned))))


def largest_score(state):
    """‖q‖·‖k‖: no score of the seeded q and k can be larger in size."""
    q, k = derived.query_key(state.d_model, state.seed)
    return float(np.linalg.norm(q) * np.linalg.norm(k))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("values", STATES)
def test_scores_at_other_starts_with_the_same_offset_equal_the_current_one(values, layout):
    state = state_of(values, layout)
    shown = derived.rope_offset_scores(state)
    assert shown.current.n == state.pos + state.offset
    assert len({other.m for other in shown.others} | {state.pos}) == derived.OTHER_PAIRS + 1
    # Near-zero scores are compared relative to the largest possible score, ‖q‖·‖k‖.
    tolerance = {"rel_tol": 1e-9, "abs_tol": 1e-12 * largest_score(state)}
    for other in shown.others:
        assert other.m != state.pos and min(other.m, other.n) >= 0
        assert other.n - other.m == state.offset
        assert math.isclose(other.score, shown.current.score, **tolerance)
    assert math.isclose(shown.offset_only, shown.current.score, **tolerance)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("values", STATES)
def test_live_score_is_the_dot_product_of_the_turned_query_and_key(values, layout):
    state = state_of(values, layout)
    q, k = methods.random_qk(state.d_model, state.seed)
    expected = closed_form_score(
        q, k, state.pos, state.second_pos, state.d_model, state.base, layout
    )
    score = derived.rope_offset_scores(state).current.score
    assert math.isclose(score, expected, rel_tol=1e-9, abs_tol=1e-12 * largest_score(state))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("pos", "other_pos", "offset"), [(7, 30, 1), (63, 5, -5), (2, 50, 40)])
def test_moving_pos_at_the_same_offset_keeps_the_score(layout, pos, other_pos, offset):
    # pos + k = 90 lies beyond the 64 shown positions.
    one = derived.rope_offset_scores(ExplorerState(pos=pos, offset=offset, layout=layout, seed=11))
    other = derived.rope_offset_scores(
        ExplorerState(pos=other_pos, offset=offset, layout=layout, seed=11)
    )
    assert math.isclose(one.current.score, other.current.score, rel_tol=1e-9, abs_tol=1e-13)


def test_unrotated_score_is_q_dot_k_and_the_rope_score_at_offset_zero():
    state = ExplorerState(pos=5, offset=0, d_model=64, seed=9)
    q, k = methods.random_qk(64, 9)
    shown = derived.rope_offset_scores(state)
    assert shown.unrotated == pytest.approx(float(np.sum(q * k)), abs=1e-12)
    assert shown.current.score == pytest.approx(shown.unrotated, abs=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("n_positions", "d_model", "seed"), [(64, 128, 0), (17, 2, 4), (300, 64, 8), (2048, 2048, 1)]
)
def test_shown_score_matrix_is_toeplitz_and_holds_rope_scores(n_positions, d_model, seed, layout):
    state = ExplorerState(n_positions=n_positions, d_model=d_model, seed=seed, layout=layout)
    heatmap = rope.figure(state)["data"][0]
    z, rows = heatmap["z"], heatmap["y"]
    assert z.dtype == np.float32 and z.shape == (rows.size, rows.size)
    np.testing.assert_array_equal(heatmap["x"], rows)
    for diagonal in range(-(rows.size - 1), rows.size):
        assert np.ptp(np.diagonal(z, offset=diagonal)) == 0.0
    q, k = methods.random_qk(d_model, seed)
    last = rows.size - 1
    for row, column in [(0, 0), (0, last), (last, 0), (last // 2, last // 3), (last, last)]:
        expected = methods.rope_score(q, k, rows[row], rows[column], state.base, layout)
        # float32 rounding of scores no larger than ‖q‖·‖k‖.
        assert z[row, column] == pytest.approx(expected, abs=1e-6 * largest_score(state))


def test_large_score_matrix_is_strided_and_says_so():
    state = ExplorerState(n_positions=2048, d_model=2048, pos=2000, offset=47)
    figure = rope.figure(state)
    rows = figure["data"][0]["y"]
    stride = derived.dot_product_stride(2048)
    assert stride > 1 and rows[1] - rows[0] == stride
    assert figure["data"][0]["z"].size <= derived.MAX_DISPLAY_CELLS
    assert f"every {stride}th position" in figure["layout"]["title"]["text"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("d_model", "base", "pos", "offset"),
    [(128, 10000.0, 7, 1), (2, 10.0, 0, 0), (512, 100000.0, 900, -700), (2048, 10000.0, 3, 2047)],
)
def test_rope_of_pe_zero_with_itself_scores_the_sinusoidal_dot_product(
    d_model, base, pos, offset, layout
):
    state = ExplorerState(
        n_positions=2048, d_model=d_model, base=base, pos=pos, offset=offset, layout=layout
    )
    shown = derived.rope_offset_scores(state)
    omega = base ** (-np.arange(0, d_model, 2) / d_model)
    d_of_k = float(np.sum(np.cos(offset * omega)))
    assert shown.link_dot == pytest.approx(d_of_k, abs=1e-12 * d_model)
    assert shown.link_score == pytest.approx(shown.link_dot, abs=1e-12 * d_model)
    # The sinusoidal dot product itself: PE(pos)·PE(pos + k).
    pe = encoding.encode_positions([pos, pos + offset], d_model, base, layout=layout)
    assert shown.link_dot == pytest.approx(float(pe[0] @ pe[1]), abs=1e-11 * d_model)


def test_pe_zero_is_zero_one_in_every_pair():
    for layout in LAYOUTS:
        unit = derived.unit_pairs(8, layout)
        np.testing.assert_array_equal(unit, encoding.encode_positions([0], 8, layout=layout)[0])


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (1, 2), (2048, 2048), (9, 6)])
def test_decay_curve_starts_at_half_of_d_over_two_plus_one(n_positions, d_model):
    state = ExplorerState(n_positions=n_positions, d_model=d_model, pos=0, offset=0)
    decay, marker = rope.figure(state)["data"][3:5]
    np.testing.assert_array_equal(decay["x"], np.arange(n_positions))
    assert decay["y"][0] == pytest.approx((d_model / 2 + 1) / 2, rel=1e-12)
    assert derived.rope_offset_scores(state).decay == pytest.approx(
        (d_model / 2 + 1) / 2, rel=1e-12
    )
    assert (marker["x"][0], marker["y"][0]) == (0, decay["y"][0])


def test_decay_marker_sits_at_the_size_of_a_negative_offset():
    state = ExplorerState(pos=40, offset=-25)
    decay, marker = rope.figure(state)["data"][3:5]
    assert marker["x"][0] == 25 and marker["y"][0] == decay["y"][25]
    assert derived.rope_offset_scores(state).decay == pytest.approx(
        methods.rope_decay(25, 128), rel=1e-12
    )


@pytest.mark.parametrize(("n_positions", "pos", "offset"), [(64, 7, 1), (64, 40, -30), (10, 9, 9)])
def test_offset_curve_holds_every_offset_with_the_current_one_marked(n_positions, pos, offset):
    state = ExplorerState(n_positions=n_positions, pos=pos, offset=offset, seed=2)
    curve, marker = rope.figure(state)["data"][1:3]
    np.testing.assert_array_equal(curve["x"], np.arange(-(n_positions - 1), n_positions))
    q, k = methods.random_qk(128, 2)
    for index in (0, n_positions - 1, 2 * n_positions - 2):
        expected = closed_form_score(q, k, 0, curve["x"][index], 128, 10000.0, "interleaved")
        assert curve["y"][index] == pytest.approx(expected, abs=1e-12)
    assert marker["x"][0] == offset
    assert marker["y"][0] == pytest.approx(
        derived.rope_offset_scores(state).current.score, abs=1e-12
    )


def marks(state: ExplorerState) -> dict[str, dict]:
    """The matrix's marks by name: layout images, which a pick moves without redrawing it."""
    layout = rope.figure(state)["layout"]
    assert "shapes" not in layout
    return {image["name"]: image for image in layout["images"]}


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (0, 63), (40, -30)])
def test_diagonal_k_is_marked_and_the_current_cell_outlined(pos, offset):
    shown = marks(ExplorerState(pos=pos, offset=offset))
    line = shown["offset k"]
    # A line across a square box, from its top left corner to its bottom right (x is the key
    # position n, y the query position m, downwards): along it n − m = k.
    assert (line["xanchor"], line["yanchor"], line["sizex"]) == ("left", "middle", line["sizey"])
    top_left = (line["x"], line["y"] - line["sizey"] / 2)
    bottom_right = (line["x"] + line["sizex"], line["y"] + line["sizey"] / 2)
    assert top_left[0] - top_left[1] == offset and bottom_right[0] - bottom_right[1] == offset
    cell = shown["pos, pos+k"]
    assert (cell["x"], cell["y"], cell["visible"]) == (pos + offset, pos, True)


def test_no_cell_is_outlined_when_pos_plus_k_is_beyond_the_shown_positions():
    shown = marks(ExplorerState(pos=60, offset=20))
    assert shown["offset k"]["visible"] and not shown["pos, pos+k"]["visible"]


@pytest.mark.parametrize(
    "values",
    [
        {"n_positions": 1, "pos": 0, "offset": 0, "d_model": 2},
        {"n_positions": 2, "d_model": 2, "pos": 1, "offset": -1, "theme": "dark"},
        {"n_positions": 2048, "d_model": 2048, "pos": 2047, "offset": -2047},
        {"n_positions": 2048, "d_model": 2, "pos": 0, "offset": 2047, "base": 10.0},
        {"n_positions": 1, "d_model": 2048, "pos": 0, "offset": 0, "layout": "concatenated"},
    ],
)
def test_figure_and_readout_work_at_the_extremes(values):
    state = ExplorerState(**values)
    figure = rope.figure(state)
    go.Figure(data=figure["data"], layout=figure["layout"])  # raises if Plotly does not know a key
    for trace in figure["data"]:
        assert np.isfinite(np.asarray(trace["y"], dtype=np.float64)).all()
    assert figure["data"][0]["z"].size <= derived.MAX_DISPLAY_CELLS
    assert 'class="pe-rope-score"' in rope.readout(state)


def test_changing_the_seed_changes_the_scores():
    one, other = ExplorerState(seed=0), ExplorerState(seed=1)
    assert derived.rope_offset_scores(one).unrotated != derived.rope_offset_scores(other).unrotated
    assert (
        derived.rope_offset_scores(one).current.score
        != derived.rope_offset_scores(other).current.score
    )
    assert not np.array_equal(rope.figure(one)["data"][0]["z"], rope.figure(other)["data"][0]["z"])


def test_layout_changes_the_score_but_not_that_it_depends_on_k_alone():
    interleaved = derived.rope_offset_scores(ExplorerState(seed=0))
    concatenated = derived.rope_offset_scores(ExplorerState(seed=0, layout="concatenated"))
    # The layouts pair different dimensions of the same q and k, so the scores differ...
    assert abs(interleaved.current.score - concatenated.current.score) > 1e-3
    # ...but in each, the score is the one read from k alone, and q·k is the same.
    for shown in (interleaved, concatenated):
        assert shown.offset_only == pytest.approx(shown.current.score, abs=1e-12)
    assert interleaved.unrotated == concatenated.unrotated
    assert interleaved.link_score == pytest.approx(concatenated.link_score, abs=1e-12)


@pytest.mark.parametrize(
    ("d_model", "layout", "expected"),
    [
        (128, "interleaved", ((0, 0, 1), (1, 2, 3), (63, 126, 127))),
        (128, "concatenated", ((0, 0, 64), (1, 1, 65), (63, 63, 127))),
        (2, "concatenated", ((0, 0, 1),)),
        (4, "interleaved", ((0, 0, 1), (1, 2, 3))),
    ],
)
def test_readout_names_the_dimensions_of_each_pair(d_model, layout, expected):
    state = ExplorerState(d_model=d_model, layout=layout)
    assert rope.shown_pairs(d_model, layout) == expected
    text = rope.readout(state)
    for i, first, second in expected:
        assert (
            f'pair <span class="pe-rope-pair">{i}</span> = dimensions '
            f'(<span class="pe-rope-pair-first">{first}</span>, '
            f'<span class="pe-rope-pair-second">{second}</span>)'
        ) in text
    assert ("GPT-J" in text) == (layout == "interleaved")
    assert ("rotate_half" in text) == (layout == "concatenated")


NUMBER_CLASSES = (
    "pe-rope-score",
    "pe-rope-other",
    "pe-rope-offset-only",
    "pe-rope-unrotated",
    "pe-rope-link-score",
    "pe-rope-link-dot",
    "pe-rope-decay",
)


@pytest.mark.parametrize("values", [{}, {"pos": 40, "offset": -40, "seed": 123}])
def test_readout_shows_the_numbers_to_nine_decimals_in_their_classes(values):
    state = ExplorerState(**values)
    shown = derived.rope_offset_scores(state)
    text = rope.readout(state)
    cells = {name: re.findall(rf'class="{name}">([^<]*)<', text) for name in NUMBER_CLASSES}
    for name, values_shown in cells.items():
        assert values_shown, name
        for value in values_shown:
            assert re.fullmatch(r"−?\d+\.\d{9}", value), (name, value)
    assert cells["pe-rope-score"] == [readout_number(shown.current.score)]
    assert cells["pe-rope-other"] == [readout_number(other.score) for other in shown.others]
    assert cells["pe-rope-offset-only"] == [readout_number(shown.offset_only)]
    assert cells["pe-rope-link-dot"] == [readout_number(shown.link_dot)]
    # No markup but ours: every tag is one the readout writes.
    assert set(re.findall(r"</?([a-z]+)", text)) <= {
        "table", "caption", "thead", "tbody", "tr", "th", "td", "sub", "sup", "span", "p"
    }  # fmt: skip


def test_exact_zero_shows_without_a_sign():
    assert readout_number(-0.0) == "0.000000000"
    assert readout_number(-1e-12) == "0.000000000"
    assert readout_number(-0.25) == "\u22120.250000000"


FOLLOWED = {
    "pos": 9,
    "offset": 3,
    "n_positions": 9,
    "d_model": 64,
    "base": 1000.0,
    "layout": "concatenated",
    "seed": 5,
    "theme": "dark",
}
NOT_FOLLOWED = {
    "pairs": [1, 3],
    "rotation_pair": 3,
    "similarity": "cosine",
    "text": "a rose is a rose",
    "method": "rope",
    "heads": 4,
    "train_length": 9,
    "scaling": "pi",
    "factor": 8.0,
    "original_context": 8192,
    "seq_len": 100,
    "beta_fast": 8.0,
    "beta_slow": 2.0,
    "truncate": False,
    "low_freq_factor": 2.0,
    "high_freq_factor": 8.0,
    "longrope_factors": "1, 2",
    "t5_buckets": 8,
    "t5_max_distance": 20,
    "t5_bidirectional": False,
    "shaw_clip": 2,
    "model": "phi-2",
    "mistake": "wrong_theta",
    "precision": "fp16",
    "precision_place": "cache",
    "scaling_mistake": "twice",
    "query_at": "4k",
    "mistake_on": "rope",
    **mistake_values(),
}


def test_every_state_parameter_is_either_followed_or_not():
    assert set(FOLLOWED) | set(NOT_FOLLOWED) == {name for name in ExplorerState.param} - {"name"}


def shown(state):
    return rope.figure(state), rope.readout(state)


@pytest.mark.parametrize(("name", "value"), FOLLOWED.items())
def test_view_changes_with_each_parameter_it_follows(name, value):
    assert not same_value(shown(ExplorerState()), shown(ExplorerState(**{name: value})))


@pytest.mark.parametrize(("name", "value"), NOT_FOLLOWED.items())
def test_view_stays_the_same_for_parameters_it_does_not_follow(name, value):
    assert same_value(shown(ExplorerState()), shown(ExplorerState(**{name: value})))

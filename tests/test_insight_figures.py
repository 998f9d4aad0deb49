"""The "see why it works" views: each figure and readout against the maths it illustrates."""

import json
import math

import numpy as np
import plotly.io
import pytest

from components import encoding, gram, heatmap, properties, rotation, tokens
from components.controls import BASE_STOPS, Controls
from components.registry import VIEWS, view_spec
from components.state import MAX_TEXT_CHARS, ExplorerState

HOSTILE = "<img src=x onerror=alert(1)>"


def diagonal_spread(z: np.ndarray) -> float:
    """The largest max − min over the diagonals of a square matrix."""
    n = z.shape[0]
    return max(float(np.ptp(np.diagonal(z, offset=k))) for k in range(-(n - 1), n))


def strings_in(figure: dict) -> str:
    """Every string a figure sends to Plotly, as one JSON text."""
    return plotly.io.to_json(figure, validate=False)


# --- the dot-product view -----------------------------------------------------------------


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (200, 4), (300, 512), (1, 2)])
def test_gram_matrix_is_toeplitz(n_positions, d_model):
    pe = encoding.positional_encoding(n_positions, d_model)
    product = encoding.gram_matrix(pe)
    for k in range(-(n_positions - 1), n_positions):
        diagonal = np.diagonal(product, offset=k)
        assert np.abs(diagonal - encoding.offset_dot(k, d_model)).max() <= 1e-12


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (200, 4), (300, 64)])
def test_gram_figure_shows_the_product_pe_pe_transposed(n_positions, d_model):
    state = ExplorerState(n_positions=n_positions, d_model=d_model)
    trace = gram.figure(state)["data"][0]
    assert trace["z"].dtype == np.float32
    pe = encoding.positional_encoding(n_positions, d_model)
    np.testing.assert_allclose(trace["z"], pe @ pe.T, atol=d_model * 1e-7)
    # Every diagonal is constant: a Toeplitz matrix (to float32 rounding of values ≤ d/2).
    assert diagonal_spread(trace["z"].astype(np.float64)) <= d_model * 1e-7


@pytest.mark.parametrize("size", [1024, 2048])
def test_large_gram_is_reduced_says_so_and_equals_the_product(size):
    state = ExplorerState(n_positions=size, d_model=size)
    figure = gram.figure(state)
    trace = figure["data"][0]
    assert trace["z"].size <= heatmap.MAX_DISPLAY_CELLS
    title = figure["layout"]["title"]["text"]
    assert "Reduced for display" in title
    rows = trace["y"]
    assert rows[1] - rows[0] == gram.display_stride(size) > 1
    pe = encoding.positional_encoding(size, size)[rows]
    np.testing.assert_allclose(trace["z"], pe @ pe.T, atol=size * 1e-7)
    if not gram.display_gram(size, size, 10000.0, "interleaved").direct:
        assert "filled from D(i − j)" in title


def test_both_layouts_give_equal_gram_matrices_but_different_heatmaps():
    interleaved = encoding.positional_encoding(100, 64)
    concatenated = encoding.positional_encoding(100, 64, layout="concatenated")
    for similarity in ("dot", "cosine"):
        np.testing.assert_allclose(
            encoding.gram_matrix(interleaved, similarity),
            encoding.gram_matrix(concatenated, similarity),
            rtol=0,
            atol=1e-12,
        )
    state = ExplorerState(n_positions=100, d_model=64)
    before, heat_before = gram.figure(state), heatmap.figure(state)
    state.layout = "concatenated"
    after, heat_after = gram.figure(state), heatmap.figure(state)
    np.testing.assert_allclose(before["data"][0]["z"], after["data"][0]["z"], atol=1e-5)
    assert not np.allclose(heat_before["data"][0]["z"], heat_after["data"][0]["z"])
    concatenated_numbers = gram.readout(state)
    state.layout = "interleaved"
    interleaved_numbers = gram.readout(state)
    assert concatenated_numbers.dot == interleaved_numbers.dot
    assert concatenated_numbers.spread <= 1e-12 and interleaved_numbers.spread <= 1e-12


def test_cosine_variant_divides_by_the_norms():
    state = ExplorerState(n_positions=50, d_model=32, similarity="cosine")
    figure = gram.figure(state)
    z = figure["data"][0]["z"]
    np.testing.assert_allclose(np.diagonal(z), 1.0, atol=1e-6)
    pe = encoding.positional_encoding(50, 32)
    np.testing.assert_allclose(z, pe @ pe.T / 16, atol=1e-6)
    assert (figure["data"][0]["zmin"], figure["data"][0]["zmax"]) == (-1.0, 1.0)
    curve = figure["data"][1]
    np.testing.assert_allclose(curve["y"], encoding.offset_cosine(curve["x"], 32), atol=1e-12)
    assert "cosine" in figure["layout"]["title"]["text"]


@pytest.mark.parametrize(("n_positions", "offset"), [(64, 1), (64, -20), (10, 9), (1, 0)])
def test_offset_curve_is_d_of_k_with_the_current_k_marked(n_positions, offset):
    state = ExplorerState(n_positions=n_positions, d_model=128, pos=0)
    state.pos = max(0, -offset)
    state.offset = offset
    figure = gram.figure(state)
    curve, marker = figure["data"][1], figure["data"][2]
    np.testing.assert_array_equal(curve["x"], np.arange(-(n_positions - 1), n_positions))
    np.testing.assert_allclose(curve["y"], encoding.offset_dot(curve["x"], 128), atol=1e-10)
    assert marker["x"][0] == offset
    assert marker["y"][0] == pytest.approx(encoding.offset_dot(offset, 128), abs=1e-12)


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (0, 63), (40, -30)])
def test_highlighted_diagonal_holds_the_cells_k_apart(pos, offset):
    state = ExplorerState(pos=pos, offset=offset)
    (line,) = [s for s in gram.figure(state)["layout"]["shapes"] if s["name"] == "offset k"]
    # x is the column j, y the row i: along the line j − i = k.
    assert line["x0"] - line["y0"] == offset
    assert line["x1"] - line["y1"] == offset
    (cell,) = [s for s in gram.figure(state)["layout"]["shapes"] if s["name"] == "pos, pos+k"]
    assert ((cell["x0"] + cell["x1"]) / 2, (cell["y0"] + cell["y1"]) / 2) == (pos + offset, pos)


def test_gram_readout_reads_off_cosine_and_distance_from_d():
    state = ExplorerState(pos=7, offset=5, d_model=512, n_positions=128)
    numbers = gram.readout(state)
    assert numbers.dot == encoding.offset_dot(5, 512)
    assert numbers.cosine == pytest.approx(2 * numbers.dot / 512, abs=1e-15)
    assert numbers.distance == pytest.approx(math.sqrt(512 - 2 * numbers.dot), abs=1e-12)
    assert numbers.entries == 123
    assert numbers.spread <= 1e-12
    text = gram.readout_html(state)
    assert f'<span class="pe-gram-dot">{numbers.dot:.9f}</span>' in text
    assert f'<span class="pe-gram-distance">{numbers.distance:.9f}</span>' in text


def test_moving_pos_or_k_does_not_recompute_the_gram_matrix():
    state = ExplorerState(n_positions=300, d_model=96)
    gram.figure(state)
    shown = gram.display_gram(300, 96, 10000.0, "interleaved")
    misses = gram.display_gram.cache_info().misses, gram.offset_dots.cache_info().misses
    for pos in range(0, 300, 37):
        state.pos = pos
        state.offset = -pos // 2
        gram.figure(state)
        assert gram.display_gram(300, 96, 10000.0, "interleaved") is shown
    assert (gram.display_gram.cache_info().misses, gram.offset_dots.cache_info().misses) == misses


# --- the rotation view ----------------------------------------------------------------------


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(
    ("pos", "offset", "d_model", "base"),
    [(7, 1, 128, 10000.0), (0, 63, 4, 10000.0), (2000, -2000, 2048, 100.0), (55, 9, 6, 20.0)],
)
def test_rotation_error_of_the_whole_vector_is_rounding(layout, pos, offset, d_model, base):
    state = ExplorerState(
        n_positions=2048, pos=pos, offset=offset, d_model=d_model, base=base, layout=layout
    )
    numbers = rotation.readout(state)
    assert numbers.error <= 1e-12
    rows = encoding.encode_positions([pos, pos + offset], d_model, base, layout=layout)
    matrix = encoding.rotation_matrix(offset, d_model, base, layout=layout)
    assert np.linalg.norm(rows[1] - matrix @ rows[0]) <= 1e-12


@pytest.mark.parametrize(("pos", "pair"), [(0, 0), (7, 3), (1500, 63)])
def test_rotation_matrix_is_the_same_at_pos_and_far_away(pos, pair):
    state = ExplorerState(n_positions=2048, pos=pos, offset=11, rotation_pair=pair)
    numbers = rotation.readout(state)
    assert numbers.far_start == pos + rotation.FAR_START
    np.testing.assert_allclose(numbers.measured, numbers.formula, atol=1e-12)
    np.testing.assert_allclose(numbers.measured_far, numbers.formula, atol=1e-12)
    omega = encoding.angular_frequencies(128)[pair]
    np.testing.assert_allclose(
        numbers.formula,
        [
            [math.cos(11 * omega), math.sin(11 * omega)],
            [-math.sin(11 * omega), math.cos(11 * omega)],
        ],
        atol=1e-15,
    )


def test_rotation_readout_html_has_the_numbers_in_their_classes():
    text = rotation.readout_html(ExplorerState(pos=7, offset=1, rotation_pair=0))
    assert '<span class="pe-rotation-angle">1.000000</span>' in text
    assert 'class="pe-matrix pe-rotation-matrix"' in text
    assert "<td>0.540302306</td><td>0.841470985</td>" in text
    error = float(text.split('class="pe-rotation-error">')[1].split("<")[0])
    assert error <= 1e-12


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_rotation_figure_puts_both_points_on_the_circle_from_the_encoding(layout):
    state = ExplorerState(pos=9, offset=4, d_model=16, rotation_pair=2, layout=layout)
    figure = rotation.figure(state)
    first, second = [t for t in figure["data"] if t["name"].startswith("pair 2 of PE(")]
    pe = encoding.encode_positions([9, 13], 16, layout=layout)
    sin_dim, cos_dim = (4, 5) if layout == "interleaved" else (2, 10)
    assert (first["x"][1], first["y"][1]) == pytest.approx((pe[0, sin_dim], pe[0, cos_dim]))
    assert (second["x"][1], second["y"][1]) == pytest.approx((pe[1, sin_dim], pe[1, cos_dim]))
    # The arc starts at PE(pos) and ends at PE(pos + k), on a circle of the arc's radius.
    arc = figure["data"][1]
    r = rotation.ARC_RADIUS
    assert (arc["x"][0] / r, arc["y"][0] / r) == pytest.approx((pe[0, sin_dim], pe[0, cos_dim]))
    assert (arc["x"][-1] / r, arc["y"][-1] / r) == pytest.approx((pe[1, sin_dim], pe[1, cos_dim]))
    assert f"dimensions {sin_dim}, {cos_dim}" in figure["layout"]["title"]["text"]


def test_rotation_pair_is_clamped_to_the_pairs_of_d_model():
    state = ExplorerState(d_model=128, rotation_pair=60)
    state.d_model = 16
    assert state.rotation_pair == 7
    state.rotation_pair = 500
    assert state.rotation_pair == 7
    assert ExplorerState(d_model=4, rotation_pair=30).rotation_pair == 1


# --- the tokens view ------------------------------------------------------------------------


def test_token_embedding_is_deterministic_and_scaled():
    first = encoding.token_embedding("park", 2048)
    assert first.shape == (2048,) and first.dtype == np.float64
    np.testing.assert_array_equal(first, encoding.token_embedding("park", 2048))
    assert not np.allclose(first, encoding.token_embedding("Park", 2048))
    assert first.std() == pytest.approx(1 / math.sqrt(2048), rel=0.1)


@pytest.mark.parametrize("bad", [None, 3, b"park"])
def test_token_embedding_rejects_non_strings(bad):
    with pytest.raises(ValueError, match="token must be a string"):
        encoding.token_embedding(bad, 8)


def test_same_word_at_two_positions_has_one_embedding_and_two_sums():
    state = ExplorerState(text="park by the park", d_model=16)
    first, _, _, last = tokens.steps(state)
    np.testing.assert_array_equal(first.embedding, last.embedding)
    assert not np.allclose(first.total, last.total)


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_each_sum_is_the_embedding_plus_pe(layout):
    state = ExplorerState(text="I sleep in my park", d_model=32, layout=layout)
    pe = encoding.encode_positions(np.arange(5), 32, layout=layout)
    for position, (word, row) in enumerate(
        zip(["I", "sleep", "in", "my", "park"], tokens.steps(state), strict=True)
    ):
        assert (row.position, row.token) == (position, word)
        np.testing.assert_array_equal(row.embedding, encoding.token_embedding(word, 32))
        np.testing.assert_array_equal(row.total, encoding.token_embedding(word, 32) + pe[position])


def test_reordering_words_changes_sums_not_embeddings():
    forward = {r.token: r for r in tokens.steps(ExplorerState(text="dog bites man"))}
    backward = {r.token: r for r in tokens.steps(ExplorerState(text="man bites dog"))}
    for word in ("dog", "man"):
        np.testing.assert_array_equal(forward[word].embedding, backward[word].embedding)
        assert not np.allclose(forward[word].total, backward[word].total)
    np.testing.assert_array_equal(forward["bites"].total, backward["bites"].total)


def test_tokens_figure_bars_add_up_for_the_word_at_pos():
    state = ExplorerState(text="I sleep in my park", pos=4, offset=-2, d_model=64)
    figure = tokens.figure(state)
    heatmaps = [t for t in figure["data"] if t["type"] == "heatmap"]
    embedding, pe, total = [t for t in figure["data"] if t["type"] == "bar"]
    embedding_z, pe_z, sum_z = heatmaps
    np.testing.assert_allclose(sum_z["z"], embedding_z["z"] + pe_z["z"], atol=1e-6)
    np.testing.assert_array_equal(embedding["y"], encoding.token_embedding("park", 64))
    np.testing.assert_array_equal(pe["y"], encoding.encode_positions([4], 64)[0])
    np.testing.assert_array_equal(total["y"], embedding["y"] + pe["y"])
    marked = {s["name"]: (s["y0"] + s["y1"]) / 2 for s in figure["layout"]["shapes"]}
    assert marked == {"pos": 4, "pos+k": 2}
    assert "output = TokenEmbedding(“<span" in tokens.step_html(state)


def test_the_default_sentence_has_a_word_at_pos_that_recurs_elsewhere():
    """The tokens view opens on a word at pos, and on that word at other places too."""
    state = ExplorerState()
    rows = tokens.steps(state)
    assert len(rows) > state.second_pos
    word = rows[state.pos].token
    assert [row.position for row in rows if row.token == word] == [0, 4, 7]
    assert "no word" not in strings_in(tokens.figure(state))
    same = [row.total for row in rows if row.token == word]
    assert not np.allclose(same[0], same[1])


def test_pos_beyond_the_sentence_shows_pe_alone_and_says_so():
    state = ExplorerState(text="I sleep in my park", pos=7)
    figure = tokens.figure(state)
    (bar,) = [t for t in figure["data"] if t["type"] == "bar"]
    np.testing.assert_array_equal(bar["y"], encoding.encode_positions([7], 128)[0])
    assert "no word at pos = 7" in strings_in(figure)
    assert "No word at pos = 7: the sentence has 5 words" in tokens.step_html(state)


def test_tokens_are_capped_by_count_and_sequence_length():
    words = " ".join(f"w{i}" for i in range(50))
    assert len(tokens.tokens(words, 2048)) == tokens.MAX_TOKENS
    assert tokens.tokens(words, 3) == ["w0", "w1", "w2"]
    assert tokens.tokens("  spaced\tout\nwords  ", 64) == ["spaced", "out", "words"]
    with pytest.raises(ValueError, match="text"):
        ExplorerState(text="x" * (MAX_TEXT_CHARS + 1))


def test_hostile_text_is_escaped_in_html_and_in_plotly():
    state = ExplorerState(text=f"{HOSTILE} & <b>bold</b>", pos=0, offset=1)
    for text in (tokens.table_html(state), tokens.step_html(state)):
        assert "<img" not in text and "<b>bold" not in text
        assert "&lt;img" in text
    figure_json = strings_in(tokens.figure(state))
    assert "<img" not in figure_json and "<b>bold" not in figure_json
    assert "&lt;img" in figure_json and "&amp;" in figure_json


def test_clicking_chips_sets_pos_and_the_second_word():
    state = ExplorerState(text="dog bites man", pos=7, offset=1)
    view = tokens.TokensView(state=state)
    chips = view._chips.objects
    assert [chip.label for chip in chips] == ["dog", "bites", "man"]
    chips[2].clicks += 1
    assert state.pos == 2
    view.click_sets = "second"
    chips[0].clicks += 1
    assert (state.pos, state.offset, state.second_pos) == (2, -2, 0)
    # With a second word chosen, a new pos keeps it.
    view.click_sets = "pos"
    chips[1].clicks += 1
    assert (state.pos, state.second_pos) == (1, 0)
    assert [chip.color for chip in chips] == ["warning", "primary", "light"]
    state.text = "a b"
    assert [chip.label for chip in view._chips.objects] == ["a", "b"]


# --- the properties view --------------------------------------------------------------------


def test_position_1885_comes_back_within_0_045_of_position_0_at_d_model_4():
    position, distance = encoding.nearest_position(0, 4, 10000.0, horizon=10_000)
    assert position == 1885
    assert distance < 0.045
    assert distance == pytest.approx(encoding.offset_distance(1885, 4), abs=1e-12)
    state = ExplorerState(d_model=4, pos=0)
    assert properties.properties(state).nearest == (1885, pytest.approx(distance, abs=1e-12))
    figure = properties.figure(state)
    nearest = figure["data"][1]
    assert (nearest["x"][0], nearest["y"][0]) == (1885, pytest.approx(distance))
    assert '<span class="pe-prop-nearest">PE(1885)</span>' in properties.properties_html(state)


@pytest.mark.parametrize(("pos", "d_model"), [(7, 128), (0, 2), (2047, 16), (300, 6)])
def test_distances_from_pos_equal_the_encodings(pos, d_model):
    curve = encoding.offset_distances(10_000, d_model)
    distances = encoding.position_distances(pos, curve)
    q = np.array([0, 1, pos, 999, 5000, 9999])
    rows = encoding.encode_positions(np.concatenate([[pos], q]), d_model)
    expected = np.linalg.norm(rows[1:] - rows[0], axis=1)
    np.testing.assert_allclose(distances[q], expected, atol=1e-9)


@pytest.mark.parametrize("n_offsets", [1, 2, 3, 17, 10_000, encoding.MAX_HORIZON])
@pytest.mark.parametrize("d_model", [2, 4, 512])
def test_offset_dots_equal_the_direct_sum(n_offsets, d_model):
    dots = encoding.offset_dots(n_offsets, d_model)
    assert dots.shape == (n_offsets,)
    sample = np.unique(np.linspace(0, n_offsets - 1, 500).astype(int))
    # Both round k·ω_i differently: about 1e-16 · k · d_model/2 apart.
    tolerance = 1e-14 * max(n_offsets, 1) * d_model / 2 + 1e-12
    np.testing.assert_allclose(dots[sample], encoding.offset_dot(sample, d_model), atol=tolerance)


def test_offset_dots_rejects_horizons_beyond_the_bound():
    with pytest.raises(ValueError, match="n_offsets must be an integer between 1 and 100000"):
        encoding.offset_dots(encoding.MAX_HORIZON + 1, 8)


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 4), (200, 8), (2, 2)])
def test_uniqueness_is_the_smallest_distance_between_any_two_positions(n_positions, d_model):
    pe = encoding.positional_encoding(n_positions, d_model)
    pairwise = np.linalg.norm(pe[:, None, :] - pe[None, :, :], axis=-1)
    pairwise[np.diag_indices(n_positions)] = np.inf
    k, distance = encoding.smallest_separation(n_positions, d_model)
    assert distance == pytest.approx(pairwise.min(), abs=1e-9)
    assert pairwise[0, k] == pytest.approx(distance, abs=1e-9)
    assert encoding.smallest_separation(1, d_model) is None


def test_bounded_and_smooth_readouts():
    state = ExplorerState(n_positions=500, d_model=64)
    facts = properties.properties(state)
    assert (facts.smallest, facts.largest) == (state.matrix.min(), state.matrix.max())
    assert -1 <= facts.smallest < -0.99 and 0.99 < facts.largest <= 1
    assert facts.row_norm == math.sqrt(32)
    assert facts.neighbour == pytest.approx(encoding.offset_distance(1, 64), abs=1e-12)
    text = properties.properties_html(state)
    assert f'<span class="pe-prop-smoothness">{facts.neighbour:.6f}</span>' in text


def test_moving_pos_does_not_recompute_the_distance_curve():
    state = ExplorerState(d_model=32)
    properties.figure(state)
    misses = properties.offset_curve.cache_info().misses
    for pos in range(0, 64, 9):
        state.pos = pos
        properties.figure(state)
        properties.properties_html(state)
    assert properties.offset_curve.cache_info().misses == misses


# --- base and layout controls, and the registry ---------------------------------------------


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.name)
def test_every_view_follows_the_base(spec):
    # Pair 0 has ω_0 = 1 whatever the base, so the rotation view is shown at pair 5.
    state = ExplorerState(pos=3, offset=2, text="a b c d e", rotation_pair=5)
    view = spec.make(state)
    assert "base" in type(view).watches
    before = strings_in(type(view).figure(state))
    state.base = 100.0
    assert strings_in(type(view).figure(state)) != before


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


def test_layout_toggle_and_rotation_pair_slider_follow_the_state():
    state = ExplorerState()
    controls = Controls(state=state)
    assert list(controls.layout.options) == list(encoding.LAYOUTS)
    controls.layout.value = "concatenated"
    assert state.layout == "concatenated"
    assert controls.rotation_pair.end == 63
    state.d_model = 16
    assert controls.rotation_pair.end == 7
    controls.similarity.value = "cosine"
    assert state.similarity == "cosine"


@pytest.mark.parametrize("name", ["dotproduct", "rotation", "tokens", "properties"])
def test_new_views_are_registered_with_known_controls(name):
    spec = view_spec(name)
    controls = Controls(state=ExplorerState())
    assert len(controls.widgets(spec.controls)) >= len(spec.controls)
    sentences = [s for s in spec.explanation.replace("e.g.", "eg").split(". ") if s.strip()]
    assert 2 <= len(sentences) <= 3


def test_the_page_says_layout_leaves_dot_products_unchanged():
    assert "dot products and similarities do not" in view_spec("dotproduct").explanation


def test_figures_are_json_serialisable_with_numpy_arrays():
    state = ExplorerState(text="a b", pos=1, offset=-1)
    for module in (gram, rotation, tokens, properties):
        figure = module.figure(state)
        json.loads(strings_in(figure))

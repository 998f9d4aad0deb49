"""The dot-product view: PE·PEᵀ is Toeplitz, D(k) beside it, and the layout changes neither."""

import math

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.plotkit.numbers import readout_number
from pe_explorer.state import ExplorerState
from pe_explorer.views import dotproduct, view_spec


def diagonal_spread(z: np.ndarray) -> float:
    """The largest max − min over the diagonals of a square matrix."""
    n = z.shape[0]
    return max(float(np.ptp(np.diagonal(z, offset=k))) for k in range(-(n - 1), n))


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (200, 4), (300, 512), (1, 2)])
def test_gram_matrix_is_toeplitz(n_positions, d_model):
    pe = encoding.positional_encoding(n_positions, d_model)
    product = encoding.gram_matrix(pe)
    for k in range(-(n_positions - 1), n_positions):
        diagonal = np.diagonal(product, offset=k)
        assert np.abs(diagonal - encoding.offset_dot(k, d_model)).max() <= 1e-12


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (200, 4), (300, 64)])
def test_dot_product_figure_shows_the_product_pe_pe_transposed(n_positions, d_model):
    state = ExplorerState(n_positions=n_positions, d_model=d_model)
    trace = dotproduct.figure(state)["data"][0]
    assert trace["z"].dtype == np.float32
    pe = encoding.positional_encoding(n_positions, d_model)
    np.testing.assert_allclose(trace["z"], pe @ pe.T, atol=d_model * 1e-7)
    # Every diagonal is constant: a Toeplitz matrix (to float32 rounding of values ≤ d/2).
    assert diagonal_spread(trace["z"].astype(np.float64)) <= d_model * 1e-7


@pytest.mark.parametrize("size", [1024, 2048])
def test_large_dot_product_matrix_is_reduced_says_so_and_equals_the_product(size):
    state = ExplorerState(n_positions=size, d_model=size)
    figure = dotproduct.figure(state)
    trace = figure["data"][0]
    assert trace["z"].size <= derived.MAX_DISPLAY_CELLS
    title = figure["layout"]["title"]["text"]
    assert "Reduced for display" in title
    rows = trace["y"]
    assert rows[1] - rows[0] == derived.dot_product_stride(size) > 1
    pe = encoding.positional_encoding(size, size)[rows]
    np.testing.assert_allclose(trace["z"], pe @ pe.T, atol=size * 1e-7)
    if not derived.dot_product_cells(size, size, 10000.0).direct:
        assert "filled from D(i − j)" in title


@pytest.mark.parametrize("similarity", ["dot", "cosine"])
def test_both_layouts_give_equal_gram_matrices(similarity):
    interleaved = encoding.positional_encoding(100, 64)
    concatenated = encoding.positional_encoding(100, 64, layout="concatenated")
    np.testing.assert_allclose(
        encoding.gram_matrix(interleaved, similarity),
        encoding.gram_matrix(concatenated, similarity),
        rtol=0,
        atol=1e-12,
    )


def test_dot_product_figure_is_the_same_in_both_layouts():
    state = ExplorerState(n_positions=100, d_model=64)
    interleaved = dotproduct.figure(state)["data"][0]["z"]
    state.layout = "concatenated"
    concatenated = dotproduct.figure(state)["data"][0]["z"]
    np.testing.assert_array_equal(interleaved, concatenated)


def test_dot_product_numbers_are_the_same_in_both_layouts():
    state = ExplorerState(n_positions=100, d_model=64, layout="concatenated")
    concatenated = dotproduct.diagonal(state)
    state.layout = "interleaved"
    interleaved = dotproduct.diagonal(state)
    assert concatenated.dot == interleaved.dot
    assert concatenated.spread <= 1e-12 and interleaved.spread <= 1e-12


def test_the_page_says_layout_leaves_dot_products_unchanged():
    assert "dot products and similarities do not" in view_spec("dotproduct").explanation


def test_cosine_variant_divides_by_the_norms():
    state = ExplorerState(n_positions=50, d_model=32, similarity="cosine")
    figure = dotproduct.figure(state)
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
    figure = dotproduct.figure(state)
    curve, marker = figure["data"][1], figure["data"][2]
    np.testing.assert_array_equal(curve["x"], np.arange(-(n_positions - 1), n_positions))
    np.testing.assert_allclose(curve["y"], encoding.offset_dot(curve["x"], 128), atol=1e-10)
    assert marker["x"][0] == offset
    assert marker["y"][0] == pytest.approx(encoding.offset_dot(offset, 128), abs=1e-12)


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (0, 63), (40, -30), (60, 20)])
def test_highlighted_diagonal_holds_the_cells_k_apart(pos, offset):
    state = ExplorerState(pos=pos, offset=offset)
    images = dotproduct.figure(state)["layout"]["images"]
    (line,) = [image for image in images if image["name"] == "offset k"]
    # A square from the corner of the diagonal's first cell to that of its last: x is the column
    # j at its left edge, y the row i at its middle, so along the line j − i = k.
    assert (line["xanchor"], line["yanchor"], line["sizex"]) == ("left", "middle", line["sizey"])
    top, bottom = line["y"] - line["sizey"] / 2, line["y"] + line["sizey"] / 2
    assert line["x"] - top == offset
    assert line["x"] + line["sizex"] - bottom == offset
    assert (top, bottom) == (max(0, -offset) - 0.5, min(63, 63 - offset) + 0.5)
    (cell,) = [image for image in images if image["name"] == "pos, pos+k"]
    assert (cell["xanchor"], cell["yanchor"]) == ("center", "middle")
    assert (cell["x"], cell["y"]) == (pos + offset, pos)
    # Past the last position there is no cell (pos, pos + k) to outline.
    assert cell["visible"] == (pos + offset < 64)


def test_dot_product_numbers_read_off_cosine_and_distance_from_d():
    state = ExplorerState(pos=7, offset=5, d_model=512, n_positions=128)
    shown = dotproduct.diagonal(state)
    assert shown.dot == encoding.offset_dot(5, 512)
    assert shown.cosine == pytest.approx(2 * shown.dot / 512, abs=1e-15)
    assert shown.distance == pytest.approx(math.sqrt(512 - 2 * shown.dot), abs=1e-12)
    assert shown.entries == 123
    assert shown.spread <= 1e-12


def test_dot_product_readout_shows_the_numbers_in_their_classes():
    state = ExplorerState(pos=7, offset=5, d_model=512, n_positions=128)
    shown = dotproduct.diagonal(state)
    text = dotproduct.readout(state)
    assert f'<span class="pe-gram-dot">{readout_number(shown.dot)}</span>' in text
    assert f'<span class="pe-gram-dot">{shown.dot:.9f}</span>' in text
    assert f'<span class="pe-gram-distance">{shown.distance:.9f}</span>' in text


def test_moving_pos_or_k_does_not_recompute_the_dot_products():
    state = ExplorerState(n_positions=300, d_model=96)
    dotproduct.figure(state)
    shown = derived.dot_product_cells(300, 96, 10000.0)
    misses = [cache.cache_info().misses for cache in derived.cached_functions()]
    for pos in range(0, 300, 37):
        state.pos = pos
        state.offset = -pos // 2
        dotproduct.figure(state)
        assert derived.dot_product_cells(300, 96, 10000.0) is shown
    assert [cache.cache_info().misses for cache in derived.cached_functions()] == misses


@pytest.mark.parametrize(("n_positions", "d_model"), [(50, 16), (7, 128)])
def test_every_diagonals_spread_is_the_one_its_readout_gives(n_positions, d_model):
    spreads = derived.offset_spreads(n_positions, d_model, 10000.0)
    for k in range(-(n_positions - 1), n_positions):
        shown = derived.offset_diagonal(n_positions, d_model, 10000.0, k)
        assert shown.spread == spreads[abs(k)]


@pytest.mark.parametrize(("n_positions", "d_model"), [(2048, 128), (512, 128), (1024, 2)])
def test_picks_leave_pos_and_k_to_python_where_the_spreads_would_take_too_long(
    n_positions, d_model
):
    state = ExplorerState(n_positions=n_positions, d_model=d_model)
    assert dotproduct.picks(state) is None
    state.n_positions = 400
    assert dotproduct.picks(state) is not None

"""The rotation view: moving by k turns each pair by k·ω_i, whatever pos and the layout."""

import math

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import rotation


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(
    ("pos", "offset", "d_model", "base"),
    [(7, 1, 128, 10000.0), (0, 63, 4, 10000.0), (2000, -2000, 2048, 100.0), (55, 9, 6, 20.0)],
)
def test_rotation_error_of_the_whole_vector_is_rounding(layout, pos, offset, d_model, base):
    state = ExplorerState(
        n_positions=2048, pos=pos, offset=offset, d_model=d_model, base=base, layout=layout
    )
    rotated = derived.pair_rotation(state)
    assert rotated.error <= 1e-12
    rows = encoding.encode_positions([pos, pos + offset], d_model, base, layout=layout)
    matrix = encoding.rotation_matrix(offset, d_model, base, layout=layout)
    assert np.linalg.norm(rows[1] - matrix @ rows[0]) <= 1e-12


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(("pos", "pair"), [(0, 0), (7, 3), (1500, 63)])
def test_rotation_matrix_is_the_same_at_pos_and_far_away(layout, pos, pair):
    state = ExplorerState(n_positions=2048, pos=pos, offset=11, rotation_pair=pair, layout=layout)
    rotated = derived.pair_rotation(state)
    assert rotated.far_start == pos + derived.FAR_START
    np.testing.assert_allclose(rotated.measured, rotated.formula, atol=1e-12)
    np.testing.assert_allclose(rotated.measured_far, rotated.formula, atol=1e-12)
    omega = encoding.angular_frequencies(128)[pair]
    np.testing.assert_allclose(
        rotated.formula,
        [
            [math.cos(11 * omega), math.sin(11 * omega)],
            [-math.sin(11 * omega), math.cos(11 * omega)],
        ],
        atol=1e-15,
    )


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(
    ("first", "second", "pair", "d_model", "base"),
    [
        (7, 8, 0, 128, 10000.0),
        (0, 63, 1, 4, 10000.0),
        (2000, 0, 1023, 2048, 100.0),
        (55, 64, 2, 6, 20.0),
    ],
)
def test_measured_rotation_block_equals_the_formula_block(
    layout, first, second, pair, d_model, base
):
    measured = encoding.measured_rotation_block(first, second, pair, d_model, base, layout)
    formula = encoding.rotation_blocks(second - first, d_model, base)[pair]
    np.testing.assert_allclose(measured, formula, atol=1e-12)


def test_rotation_readout_has_the_numbers_in_their_classes():
    text = rotation.readout(ExplorerState(pos=7, offset=1, rotation_pair=0))
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

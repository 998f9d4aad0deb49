"""The properties view: unique, bounded and smooth, and how close far positions come back."""

import math

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import properties


def test_position_1885_comes_back_within_0_045_of_position_0_at_d_model_4():
    position, distance = encoding.nearest_position(0, 4, 10000.0, horizon=10_000)
    assert position == 1885
    assert distance < 0.045
    assert distance == pytest.approx(encoding.offset_distance(1885, 4), abs=1e-12)
    state = ExplorerState(d_model=4, pos=0)
    assert derived.position_properties(state).nearest == (1885, pytest.approx(distance, abs=1e-12))
    figure = properties.figure(state)
    (nearest,) = [trace for trace in figure["data"] if trace["name"] == "nearest to PE(pos)"]
    assert (nearest["x"][0], nearest["y"][0]) == (1885, pytest.approx(distance))
    assert '<span class="pe-prop-nearest">PE(1885)</span>' in properties.readout(state)


@pytest.mark.parametrize(("pos", "d_model"), [(7, 128), (0, 2), (2047, 16), (300, 6)])
def test_distances_from_pos_equal_the_encodings(pos, d_model):
    curve = encoding.offset_distances(10_000, d_model)
    distances = encoding.position_distances(pos, curve)
    q = np.array([0, 1, pos, 999, 5000, 9999])
    rows = encoding.encode_positions(np.concatenate([[pos], q]), d_model)
    expected = np.linalg.norm(rows[1:] - rows[0], axis=1)
    np.testing.assert_allclose(distances[q], expected, atol=1e-9)


@pytest.mark.parametrize(("pos", "d_model"), [(0, 4), (7, 128), (2047, 16)])
def test_the_curve_drawn_is_the_distance_from_pos_over_the_horizon(pos, d_model):
    state = ExplorerState(n_positions=2048, pos=pos, d_model=d_model)
    figure = properties.figure(state)
    right, left = figure["data"][:2]
    drawn = np.full(properties.HORIZON, np.nan)
    for half in (left, right):
        q = half["x0"] + half["dx"] * np.arange(len(half["y"]))
        inside = (q >= 0) & (q < properties.HORIZON)
        drawn[q[inside]] = half["y"][inside]
    np.testing.assert_array_equal(drawn, derived.position_properties(state).distances)
    assert figure["layout"]["xaxis"]["range"] == [0, properties.HORIZON - 1]


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


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_bounded_and_smooth_readouts(layout):
    state = ExplorerState(n_positions=500, d_model=64, layout=layout)
    shown = derived.position_properties(state)
    assert (shown.smallest, shown.largest) == (
        derived.shown_pe_matrix(state).min(),
        derived.shown_pe_matrix(state).max(),
    )
    assert -1 <= shown.smallest < -0.99 and 0.99 < shown.largest <= 1
    assert shown.row_norm == math.sqrt(32)
    assert shown.neighbour == pytest.approx(encoding.offset_distance(1, 64), abs=1e-12)
    text = properties.readout(state)
    assert f'<span class="pe-prop-smoothness">{shown.neighbour:.6f}</span>' in text


def test_moving_pos_does_not_recompute_the_distance_curve():
    state = ExplorerState(d_model=32)
    properties.figure(state)
    misses = derived.offset_distance_curve.cache_info().misses
    for pos in range(0, 64, 9):
        state.pos = pos
        properties.figure(state)
        properties.readout(state)
    assert derived.offset_distance_curve.cache_info().misses == misses

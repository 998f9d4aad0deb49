"""Learned position tables: principal components against closed forms, row comparisons against
direct NumPy, and the checks a table must pass."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pe_explorer.diagnosis import MatrixError
from pe_explorer.learned import (
    SYNTHETIC_DIMENSIONS,
    SYNTHETIC_NAME,
    SYNTHETIC_POSITIONS,
    check_table,
    compare_rows,
    learned_table,
    principal_components,
    rows_within,
    sinusoidal_width,
    synthetic_table,
)


def orthonormal(d_model: int, count: int, seed: int) -> np.ndarray:
    """count orthonormal vectors of length d_model, as columns."""
    basis, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((d_model, count)))
    return basis


def same_up_to_sign(a: np.ndarray, b: np.ndarray, atol: float) -> bool:
    """Columns of a equal those of b, each possibly negated."""
    return all(
        np.allclose(x, y, atol=atol) or np.allclose(x, -y, atol=atol)
        for x, y in zip(a.T, b.T, strict=True)
    )


@pytest.mark.parametrize("n_positions", [8, 64, 1000])
def test_one_sin_cos_pair_over_a_full_period_has_two_equal_components(n_positions):
    # sin and cos of 2πp/n over p = 0 … n − 1: each has mean 0 and variance exactly 1/2, and
    # they are uncorrelated, so the two components explain half the variance each.
    angle = 2 * math.pi * np.arange(n_positions) / n_positions
    table = np.stack([np.sin(angle), np.cos(angle)], axis=1)
    components = principal_components(table)
    assert components.scores.shape == (n_positions, 2)
    assert np.allclose(components.variances, [0.5, 0.5], atol=1e-12)
    assert components.total_variance == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(components.explained, [0.5, 0.5], atol=1e-12)
    # Every row lies on the unit circle around the mean (0, 0).
    assert np.allclose(np.hypot(*components.scores.T), 1.0, atol=1e-12)


@pytest.mark.parametrize(("d_model", "radius"), [(16, 1.0), (768, 0.25), (3, 4.0)])
def test_a_circle_in_many_dimensions_is_two_components_explaining_everything(d_model, radius):
    n_positions = 90
    angle = 2 * math.pi * np.arange(n_positions) / n_positions
    plane = orthonormal(d_model, 2, seed=d_model)
    centre = np.random.default_rng(1).normal(size=d_model)
    table = centre + radius * (
        np.cos(angle)[:, None] * plane[:, 0] + np.sin(angle)[:, None] * plane[:, 1]
    )
    components = principal_components(table)
    assert components.explained[:2].sum() == pytest.approx(1.0, abs=1e-10)
    assert np.allclose(components.variances[:2], radius**2 / 2, rtol=1e-10)
    assert components.variances[2] == pytest.approx(0.0, abs=1e-10 * radius**2)
    assert np.allclose(np.hypot(*components.scores[:, :2].T), radius, rtol=1e-10)
    assert np.allclose(components.mean, centre, atol=1e-12)
    # The two directions span the circle's plane: projected on it, each keeps its length.
    assert np.allclose(np.linalg.norm(components.directions[:2] @ plane, axis=1), 1.0)


@pytest.mark.parametrize(("n_positions", "d_model"), [(40, 5), (5, 40), (12, 12)])
def test_known_singular_values_give_known_variances_by_either_route(n_positions, d_model):
    # X = Q·diag(s)·Vᵀ with Q's columns orthonormal and centred: the components are V's
    # columns and their variances s²/n (n > d uses XᵀX, n ≤ d uses XXᵀ).
    rng = np.random.default_rng(7)
    count = 3
    centred = rng.standard_normal((n_positions, count))
    centred -= centred.mean(axis=0)
    q, _ = np.linalg.qr(centred)
    singular = np.array([5.0, 2.0, 0.5])
    v = orthonormal(d_model, count, seed=3)
    table = q @ np.diag(singular) @ v.T + rng.normal(size=d_model)
    components = principal_components(table)
    assert np.allclose(components.variances, singular**2 / n_positions, rtol=1e-10)
    assert np.allclose(components.explained, singular**2 / np.sum(singular**2), rtol=1e-10)
    assert same_up_to_sign(components.directions.T, v, atol=1e-10)
    assert same_up_to_sign(components.scores, q * singular, atol=1e-10)


def test_a_straight_line_of_positions_is_one_component():
    # Rows p·v: the variance along v is Var(p)·|v|² = (n² − 1)/12·|v|², all of it.
    n_positions = 50
    direction = np.array([3.0, 0.0, -4.0, 0.0])
    table = np.arange(n_positions)[:, None] * direction
    components = principal_components(table)
    assert components.explained[0] == pytest.approx(1.0)
    assert components.variances[0] == pytest.approx((n_positions**2 - 1) / 12 * 25.0)
    assert np.allclose(np.abs(components.directions[0]), np.abs(direction) / 5.0)


def test_the_sign_convention_makes_a_negated_table_give_negated_scores():
    table = synthetic_table(40, 10, seed=4)
    components = principal_components(table)
    negated = principal_components(-table)
    # Negating the table negates every direction; the convention turns it back, so the
    # scores of −T are those of T negated, and the shares are the same.
    assert np.allclose(negated.scores, -components.scores, atol=1e-10)
    assert np.allclose(negated.explained, components.explained)
    largest = np.argmax(np.abs(components.directions), axis=1)
    assert np.all(components.directions[np.arange(3), largest] > 0)


def test_reordering_the_columns_changes_no_score():
    # The concatenated layout only reorders a table's columns: its PCA picture is the same.
    table = synthetic_table(60, 12, seed=2)
    order = np.random.default_rng(0).permutation(12)
    assert np.allclose(
        principal_components(table[:, order]).scores, principal_components(table).scores
    )


def test_fewer_components_when_the_table_has_fewer():
    assert principal_components(np.eye(3)[:, :2] + [[0, 0], [0, 0], [1, 1]]).scores.shape == (
        3,
        2,
    )
    assert principal_components(np.arange(10.0)[:, None]).scores.shape == (10, 1)


@pytest.mark.parametrize(("pos", "offset"), [(0, 1), (7, 3), (20, -5), (3, 0)])
def test_the_comparison_numbers_are_numpys(pos, offset):
    table = synthetic_table(32, 16, seed=9)
    u, v = table[pos], table[pos + offset]
    shown = compare_rows(table, pos, offset)
    assert (shown.first, shown.second, shown.moved) == (pos, pos + offset, False)
    assert shown.dot == pytest.approx(np.dot(u, v), rel=1e-12)
    assert shown.cosine == pytest.approx(
        np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)), rel=1e-12
    )
    assert shown.distance == pytest.approx(np.linalg.norm(u - v), rel=1e-12)


def test_a_zero_row_has_no_cosine():
    table = np.zeros((4, 3))
    table[2] = [1.0, 2.0, 2.0]
    shown = compare_rows(table, 1, 1)
    assert shown.dot == 0.0 and math.isnan(shown.cosine) and shown.distance == 3.0


@pytest.mark.parametrize(
    ("n_positions", "pos", "offset", "expected"),
    [
        (10, 3, 2, (3, 5, False)),
        (10, 20, 1, (8, 9, True)),
        (10, 9, 0, (9, 9, False)),
        (10, 9, -4, (9, 5, False)),
        (4, 1, 10, (0, 3, True)),
        (4, 30, -25, (3, 0, True)),
    ],
)
def test_rows_beyond_the_table_are_moved_into_it(n_positions, pos, offset, expected):
    assert rows_within(n_positions, pos, offset) == expected


@given(
    n_positions=st.integers(3, 2048),
    pos=st.integers(0, 2047),
    offset=st.integers(-2047, 2047),
)
def test_the_moved_rows_keep_the_offset_when_it_fits(n_positions, pos, offset):
    offset = max(offset, -pos)  # the state keeps pos + k ≥ 0
    first, second, moved = rows_within(n_positions, pos, offset)
    assert 0 <= first < n_positions and 0 <= second < n_positions
    fits = abs(offset) < n_positions
    assert second - first == (offset if fits else math.copysign(n_positions - 1, offset))
    assert moved == (pos >= n_positions or pos + offset >= n_positions)
    if not moved:
        assert (first, second) == (pos, pos + offset)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.arange(5.0), "wrong rank: a vector of 5 numbers"),
        (np.zeros((2, 3, 4)), "wrong rank: 3 axes"),
        (np.zeros((2, 8)), "at least 3 rows"),
        (np.ones((5, 8)), "every row is the same"),
        (np.array([[0.0, 1.0], [np.nan, 1.0], [1.0, 0.0]]), "NaN or infinity at row 2"),
        (np.array([[0.0, 1.0], [1.0, np.inf], [1.0, 0.0]]), "NaN or infinity at row 2"),
        (np.zeros((2049, 2)), "over the size cap: 2049 × 2"),
    ],
)
def test_a_table_that_is_not_one_is_refused_with_its_reason(matrix, message):
    with pytest.raises(MatrixError, match=message.replace("(", r"\(")):
        check_table(matrix)
    with pytest.raises(MatrixError):
        learned_table(matrix, "t.npy")


def test_a_checked_table_is_read_only_and_keeps_its_name():
    table = learned_table(synthetic_table(20, 6), "wpe.npy")
    assert table.shape == (20, 6) and table.name == "wpe.npy" and not table.synthetic
    for array in (table.values, table.components.scores, table.components.directions):
        assert not array.flags.writeable


@pytest.mark.parametrize(("d_model", "width"), [(768, 768), (7, 8), (1, 2), (2047, 2048)])
def test_an_odd_width_is_compared_with_one_more_dimension(d_model, width):
    assert sinusoidal_width(d_model) == width


def test_the_synthetic_example_is_a_seeded_helix_and_says_it_is_not_gpt2():
    table = synthetic_table()
    assert table.shape == (SYNTHETIC_POSITIONS, SYNTHETIC_DIMENSIONS)
    assert np.array_equal(table, synthetic_table())
    assert not np.array_equal(table, synthetic_table(seed=1))
    # Three directions hold the helix; the noise is spread over all 64.
    assert principal_components(table).explained.sum() > 0.85
    assert "synthetic" in SYNTHETIC_NAME and "not GPT-2" in SYNTHETIC_NAME

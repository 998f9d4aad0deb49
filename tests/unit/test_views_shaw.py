"""The Shaw et al. view: clip(j − i, −K, K), the pairs sharing a vector, the seeded vectors."""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pe_explorer import relative
from pe_explorer.state import ExplorerState
from pe_explorer.views import shaw

MINUS = "\u2212"


def brute_force_sharing(vector: int, clip: int, n: int) -> int:
    """Pairs (i, j) of n positions with max(−K, min(K, j − i)) = vector, counted one by one."""
    return sum(1 for i in range(n) for j in range(n) if max(-clip, min(clip, j - i)) == vector)


def vectors(clip: int, d_model: int, seed: int) -> np.ndarray:
    """The 2K + 1 stand-in vectors: N(0, 1/d) from the seed after the RoPE q's."""
    rng = np.random.default_rng(seed + 1)
    return rng.standard_normal((2 * clip + 1, d_model)) / math.sqrt(d_model)


def test_the_matrix_entry_is_the_clipped_distance():
    state = ExplorerState(n_positions=40, shaw_clip=5, pos=3, offset=2)
    z = shaw.figure(state)["data"][0]["z"]
    expected = [[max(-5, min(5, j - i)) for j in range(40)] for i in range(40)]
    np.testing.assert_array_equal(z, expected)


@pytest.mark.parametrize(
    ("n", "clip", "k", "vector", "sharing"),
    [
        (64, 16, 1, 1, 63),  # within ±K: the pairs of diagonal 1
        (64, 16, -7, -7, 57),
        (64, 16, 16, 16, 48 * 49 // 2),  # at K: every pair 16 … 63 apart, (n − K)(n − K + 1)/2
        (64, 16, 40, 16, 1176),
        (64, 2, -7, -2, 62 * 63 // 2),
        (10, 100, 9, 9, 1),  # K beyond the sequence: nothing is clipped
        (1, 4, 0, 0, 1),
    ],
)
def test_the_readout_counts_the_pairs_sharing_the_vector(n, clip, k, vector, sharing):
    assert sharing == brute_force_sharing(vector, clip, n)
    state = ExplorerState(n_positions=n, shaw_clip=clip, pos=max(0, -k), offset=k)
    text = shaw.readout(state)
    assert f'<span class="pe-shaw-vector">a<sub>{str(vector).replace("-", MINUS)}</sub>' in text
    assert f'<span class="pe-shaw-sharing">{sharing}</span> pairs' in text
    name = shaw.describe(state)
    assert f"shared by {sharing} pairs" in name


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), clip=st.integers(0, 35), vector=st.integers(-36, 36))
def test_the_closed_form_count_equals_counting(n, clip, vector):
    assert relative.shaw_sharing_pairs(vector, clip, n) == brute_force_sharing(vector, clip, n)


@pytest.mark.parametrize(("n", "clip"), [(64, 16), (20, 3), (5, 9)])
def test_every_pair_uses_exactly_one_vector(n, clip):
    assert sum(relative.shaw_sharing_pairs(c, clip, n) for c in range(-clip, clip + 1)) == n * n


@pytest.mark.parametrize(("seed", "clip", "k"), [(0, 16, 1), (5, 3, -6), (123, 16, 40)])
def test_the_vectors_are_seeded_random_stand_ins(seed, clip, k):
    d = 128
    state = ExplorerState(seed=seed, shaw_clip=clip, pos=10, offset=k)
    table = vectors(clip, d, seed)
    c = max(-clip, min(clip, k))
    shown = shaw.readout_values(state)
    np.testing.assert_allclose(shown.first_numbers, table[c + clip, :4], rtol=0, atol=1e-15)
    q = np.random.default_rng(seed).standard_normal(d)
    assert shown.score == pytest.approx(float(q @ table[c + clip]), abs=1e-12)
    heatmap = shaw.figure(state)["data"][1]
    np.testing.assert_allclose(heatmap["z"], table.astype(np.float32))
    assert list(heatmap["y"]) == list(range(-clip, clip + 1))


def marks(state: ExplorerState) -> dict[str, dict]:
    """The figure's layout images (its marks, which a pick moves or hides), by name."""
    return {image["name"]: image for image in shaw.figure(state)["layout"]["images"]}


def triangle_corners(image: dict) -> list[tuple[float, float]]:
    """The corners of an image's triangle in data units: its SVG's points, stretched over its
    box from its top left corner (the matrix's y axis points down)."""
    svg = base64.b64decode(image["source"].split(",", 1)[1]).decode()
    points = re.search(r'points="([^"]*)"', svg)[1]
    return [
        (image["x"] + float(x) / 100 * image["sizex"], image["y"] + float(y) / 100 * image["sizey"])
        for x, y in (point.split(",") for point in points.split())
    ]


def test_an_unclipped_pair_marks_its_diagonal_and_a_clipped_one_its_triangle():
    shown = marks(ExplorerState(offset=3))
    assert shown["offset k"]["visible"]
    assert not shown["pairs using a_K"]["visible"] and not shown["pairs using a_−K"]["visible"]
    shown = marks(ExplorerState(n_positions=64, offset=40))
    triangle = shown["pairs using a_K"]
    assert triangle["visible"] and not shown["offset k"]["visible"]
    assert triangle_corners(triangle) == [(15.5, -0.5), (63.5, -0.5), (63.5, 47.5)]
    shown = marks(ExplorerState(pos=30, offset=-20))
    triangle = shown["pairs using a_−K"]
    assert triangle["visible"] and not shown["pairs using a_K"]["visible"]
    assert triangle_corners(triangle) == [(-0.5, 15.5), (-0.5, 63.5), (47.5, 63.5)]


def test_the_pairs_vector_is_outlined_among_the_vectors():
    row = marks(ExplorerState(offset=-3))["a_c of (pos, pos + k)"]
    assert (row["xref"], row["yref"]) == ("x2", "y2")
    assert (row["y"] - row["sizey"] / 2, row["y"] + row["sizey"] / 2) == (-3.5, -2.5)


def test_a_long_sequence_and_a_wide_table_are_strided_and_say_so():
    state = ExplorerState(n_positions=2048, d_model=2048, shaw_clip=512, pos=100, offset=5)
    figure = shaw.figure(state)
    matrix, table = figure["data"]
    assert np.asarray(matrix["z"]).size <= 250_000 and np.asarray(table["z"]).size <= 62_500
    rows = np.asarray(matrix["x"])
    assert matrix["z"][3, 9] == max(-512, min(512, int(rows[9] - rows[3])))
    captions = " ".join(a["text"] for a in figure["layout"]["annotations"])
    assert "every 5th position" in captions and "vector and dimension" in captions


def test_show_data_lists_the_vectors_near_the_pairs():
    table = shaw.data(ExplorerState(n_positions=64, offset=40))
    assert [row[0] for row in table.rows] == [f"a_{c}" for c in range(10, 17)]
    last = table.rows[-1]
    assert last[1:4] == (16, 63, 1176)
    np.testing.assert_allclose(last[5:], vectors(16, 128, 0)[32, :11], atol=1e-15)
    # No two of 10 positions are 10 apart: a_10 … a_12 are never used.
    unused = shaw.data(ExplorerState(n_positions=10, shaw_clip=12, pos=0, offset=9)).rows
    assert [row[:4] for row in unused[-4:]] == [("a_9", 9, 9, 1)] + [
        (f"a_{c}", "none", "none", 0) for c in (10, 11, 12)
    ]


def test_the_script_reproduces_the_numbers_the_view_shows():
    for state in (
        ExplorerState(offset=40),
        ExplorerState(pos=20, offset=-3, shaw_clip=2, seed=7, d_model=16, n_positions=30),
    ):
        namespace: dict = {}
        exec(shaw.code(state), namespace)
        shown = shaw.readout_values(state)
        assert namespace["c"] == shown.vector
        assert namespace["sharing"] == shown.sharing
        row = namespace["vectors"][shown.vector + state.shaw_clip]
        np.testing.assert_array_equal(row[:4], shown.first_numbers)
        assert namespace["score"] == pytest.approx(shown.score, abs=1e-12)
        z = shaw.figure(state)["data"][0]["z"]
        np.testing.assert_array_equal(namespace["vector_of"], z)


def test_the_script_is_numpy_only():
    imports = re.findall(r"^(?:import|from) (\w+)", shaw.code(ExplorerState()), re.MULTILINE)
    assert imports == ["numpy"]

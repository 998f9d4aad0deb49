"""The heatmap view: the PE matrix, reduced only when it has more cells than a screen."""

import numpy as np
import pytest

from components import derived, encoding
from components.state import ExplorerState
from components.views import heatmap


def row_marked(figure, name):
    """The rows the heatmap's marker called name spans, as (first edge, last edge)."""
    return [
        (image["y"] - image["sizey"] / 2, image["y"] + image["sizey"] / 2)
        for image in figure["layout"]["images"]
        if image["name"] == name
    ]


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (10, 4), (1, 2), (300, 512)])
def test_heatmap_shows_the_whole_matrix_when_it_fits(n_positions, d_model):
    state = ExplorerState(n_positions=n_positions, d_model=d_model, pos=0, offset=0)
    trace = heatmap.figure(state)["data"][0]
    assert trace["z"].shape == (n_positions, d_model)
    assert trace["z"].dtype == np.float32
    np.testing.assert_allclose(
        trace["z"], encoding.positional_encoding(n_positions, d_model), atol=1e-7
    )
    assert (trace["zmin"], trace["zmid"], trace["zmax"]) == (-1.0, 0.0, 1.0)


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (0, 5), (40, -40), (63, 0)])
def test_heatmap_highlights_pos_and_marks_pos_plus_k(pos, offset):
    state = ExplorerState(pos=pos, offset=offset)
    figure = heatmap.figure(state)
    assert row_marked(figure, "pos") == [(pos - 0.5, pos + 0.5)]
    ((top, bottom),) = row_marked(figure, "pos+k")
    assert (top + bottom) / 2 == pos + offset


def test_heatmap_says_when_pos_plus_k_is_beyond_the_rows_shown():
    figure = heatmap.figure(ExplorerState(pos=60, offset=20))
    assert row_marked(figure, "pos+k") == []
    assert "pos + k = 80" in figure["layout"]["annotations"][0]["text"]


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        (
            "interleaved",
            {0: "dim 0 · i = 0 · sin", 1: "dim 1 · i = 0 · cos", 2: "dim 2 · i = 1 · sin"},
        ),
        ("concatenated", {0: "dim 0 · i = 0 · sin", 4: "dim 4 · i = 0 · cos"}),
    ],
)
def test_heatmap_hover_names_dimension_pair_and_function(layout, expected):
    state = ExplorerState(d_model=8, n_positions=4, layout=layout)
    labels = heatmap.figure(state)["data"][0]["x"]
    assert {column: labels[column] for column in expected} == expected


def test_heatmap_differs_between_layouts():
    state = ExplorerState(n_positions=100, d_model=64)
    interleaved = heatmap.figure(state)["data"][0]["z"]
    state.layout = "concatenated"
    concatenated = heatmap.figure(state)["data"][0]["z"]
    assert not np.allclose(interleaved, concatenated)


@pytest.mark.parametrize("size", [1024, 2048])
def test_large_heatmap_is_reduced_and_says_so(size):
    state = ExplorerState(n_positions=size, d_model=size)
    figure = heatmap.figure(state)
    trace = figure["data"][0]
    assert trace["z"].size <= derived.MAX_DISPLAY_CELLS
    assert "Reduced for display" in figure["layout"]["title"]["text"]
    rows, columns = trace["y"], [int(label.split()[1]) for label in trace["x"]]
    np.testing.assert_allclose(
        trace["z"], encoding.positional_encoding(size, size)[np.ix_(rows, columns)], atol=1e-7
    )
    # Striding by whole pairs keeps both the sine and the cosine of every shown pair.
    assert {c % 2 for c in columns} == {0, 1}


def test_heatmap_width_follows_d_model():
    state = ExplorerState()
    assert heatmap.figure(state)["data"][0]["z"].shape[1] == 128
    state.d_model = 16
    assert heatmap.figure(state)["data"][0]["z"].shape[1] == 16

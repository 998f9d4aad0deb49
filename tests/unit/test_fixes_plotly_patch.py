"""The figure patcher: the restyle/relayout that turns the figure shown into a new one, or None
when only a whole figure can carry the change (components/fixes/plotly_patch.py)."""

from __future__ import annotations

import numpy as np
import pytest
from pe_explorer.fixes.plotly_patch import MAX_RESTYLE_VALUES, FigurePatcher, same_value


def figure(y, shapes=(), title="t", z=None):
    trace = {"type": "heatmap", "z": z} if z is not None else {"type": "scatter", "y": y}
    return {"data": [trace], "layout": {"title": {"text": title}, "shapes": list(shapes)}}


def test_patches_are_cumulative_since_the_last_whole_figure():
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(3), title="a"))
    first = patcher.patch(figure(np.zeros(3), title="b"))
    assert first == ({}, {"title.text": "b"}, [])
    # The title is back to its first value, but a browser that missed the first patch
    # (combined away) must still be told.
    restyle, relayout, traces = patcher.patch(figure(np.ones(3), title="a"))
    assert relayout == {"title.text": "a"}
    assert traces == [0]
    np.testing.assert_array_equal(restyle["y"][0], np.ones(3))


def test_an_unchanged_figure_gives_an_empty_patch():
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(3)))
    assert patcher.patch(figure(np.zeros(3))) == ({}, {}, [])


@pytest.mark.parametrize(
    "changed",
    [
        {"data": [{"type": "scatter", "y": np.zeros(3)}] * 2, "layout": {}},
        {"data": [{"type": "bar", "y": np.zeros(3)}], "layout": {}},
        figure(None, z=np.ones((2, 2))),
        {"data": [{"type": "scatter", "y": np.zeros(3)}], "layout": {"xaxis": {"range": [0, 1]}}},
        {"data": [{"type": "scatter", "y": np.zeros(3)}], "layout": {"uirevision": "other"}},
    ],
    ids=["more traces", "other trace type", "2-D array", "axis range", "uirevision"],
)
def test_what_a_patch_cannot_carry_asks_for_the_whole_figure(changed):
    patcher = FigurePatcher()
    heatmap = "z" in changed["data"][0]
    patcher.reset(figure(None, z=np.zeros((2, 2))) if heatmap else figure(np.zeros(3)))
    assert patcher.patch(changed) is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (np.arange(3.0), np.arange(3.0), True),
        (np.arange(3.0), np.arange(3.0).astype(np.float32), False),
        (np.arange(3.0), [0.0, 1.0, 2.0], False),
        ({"a": [1, {"b": np.ones(2)}]}, {"a": [1, {"b": np.ones(2)}]}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
    ],
)
def test_same_value_compares_arrays_by_content(a, b, same):
    assert same_value(a, b) is same


def test_a_property_a_trace_lacks_asks_for_the_whole_figure():
    # A restyle would have to send null for the first trace's text: Plotly reports that back as
    # undefined, which the page cannot serialise.
    start = {
        "data": [{"type": "scatter", "y": np.zeros(2)}, {"type": "scatter", "text": ["a"]}],
        "layout": {},
    }
    changed = {
        "data": [{"type": "scatter", "y": np.ones(2)}, {"type": "scatter", "text": ["b"]}],
        "layout": {},
    }
    patcher = FigurePatcher()
    patcher.reset(start)
    assert patcher.patch(changed) is None


def test_a_layout_property_that_is_gone_asks_for_the_whole_figure():
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(3), title="a"))
    assert patcher.patch({"data": [{"type": "scatter", "y": np.zeros(3)}], "layout": {}}) is None


def test_patch_arrays_travel_as_lists():
    # The page echoes a restyle back, and the Pyodide worker cannot decode binary arrays from it.
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(3)))
    restyle, _, _ = patcher.patch(figure(np.arange(3.0)))
    assert restyle == {"y": [[0.0, 1.0, 2.0]]}


def test_a_patch_with_too_many_values_asks_for_the_whole_figure():
    size = MAX_RESTYLE_VALUES + 1
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(size)))
    assert patcher.patch(figure(np.ones(size))) is None


def test_a_moved_shape_travels_as_indexed_paths():
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(3), shapes=[{"type": "line", "y0": 1}]))
    assert patcher.patch(figure(np.zeros(3), shapes=[{"type": "line", "y0": 2}])) == (
        {},
        {"shapes[0].y0": 2},
        [],
    )


def test_a_shape_added_or_removed_sends_the_figure_whole():
    patcher = FigurePatcher()
    patcher.reset(figure(np.zeros(3), shapes=[{"type": "line", "y0": 1}]))
    two = [{"type": "line", "y0": 1}, {"type": "line", "y0": 2}]
    assert patcher.patch(figure(np.zeros(3), shapes=two)) is None
    assert patcher.patch(figure(np.zeros(3), shapes=[])) is None

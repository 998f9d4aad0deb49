"""The plotting kit's composer gives each subplot its own axes, place and caption."""

from __future__ import annotations

from pe_explorer.plotkit.subplots import Subplot, axis_names, compose
from pe_explorer.state import ExplorerState


def two_subplots() -> dict:
    left = Subplot(
        traces=[{"type": "scatter", "x": [0, 1], "y": [1, 2]}],
        x_axis={"title": {"text": "pair i"}},
        y_axis={"type": "log"},
        domain=((0.0, 0.45), (0.0, 0.9)),
        caption="wavelengths",
        shapes=[{"type": "line", "xref": "x", "yref": "y domain", "x0": 1, "x1": 1}],
    )
    right = Subplot(
        traces=[{"type": "bar", "x": [0], "y": [3]}, {"type": "scatter", "x": [0], "y": [1]}],
        x_axis={},
        y_axis={"range": [-1, 1]},
        domain=((0.55, 1.0), (0.0, 0.9)),
        annotations=[{"text": "k", "xref": "x", "yref": "paper", "x": 0, "y": 1}],
    )
    return compose(ExplorerState(), {"title": {"text": "t"}}, [left, right])


def test_axis_names() -> None:
    assert [axis_names(i) for i in (1, 2, 4)] == [("x", "y"), ("x2", "y2"), ("x4", "y4")]


def test_each_subplot_draws_on_its_own_axes() -> None:
    figure = two_subplots()
    assert [(t["xaxis"], t["yaxis"]) for t in figure["data"]] == [
        ("x", "y"),
        ("x2", "y2"),
        ("x2", "y2"),
    ]
    layout = figure["layout"]
    assert layout["xaxis2"]["domain"] == [0.55, 1.0] and layout["xaxis2"]["anchor"] == "y2"
    assert layout["yaxis"]["type"] == "log" and layout["yaxis2"]["range"] == [-1, 1]


def test_shapes_and_annotations_follow_their_subplot() -> None:
    layout = two_subplots()["layout"]
    assert (layout["shapes"][0]["xref"], layout["shapes"][0]["yref"]) == ("x", "y domain")
    note = next(a for a in layout["annotations"] if a["text"] == "k")
    assert (note["xref"], note["yref"]) == ("x2", "paper")


def test_caption_sits_over_its_subplot() -> None:
    caption = next(a for a in two_subplots()["layout"]["annotations"] if a["text"] == "wavelengths")
    assert (caption["x"], caption["y"]) == (0.0, 0.9 + 0.01)

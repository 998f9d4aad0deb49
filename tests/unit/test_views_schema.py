"""Every view's figure: valid against Plotly's schema, drawn with its template, JSON-ready."""

import json

import plotly.graph_objs as go
import plotly.io
import pytest
from pe_explorer.plotkit import theme
from pe_explorer.plotkit.narrow import for_narrow_screen, for_wide_screen
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEW_NAMES, view_spec


def without_empty_lists(text: str):
    """Parsed figure JSON without keys holding [] (Plotly draws them as if absent, and
    validation drops them)."""

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if v != []}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(json.loads(text))


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"d_model": 4, "n_positions": 10, "pos": 9, "offset": -9, "theme": "dark"},
        {"d_model": 512, "n_positions": 700, "layout": "concatenated", "similarity": "cosine"},
        {"pos": 60, "offset": 20, "text": "dog bites man"},
    ],
    ids=["default", "small-dark", "large-concatenated", "beyond-rows"],
)
@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("view", VIEW_NAMES)
def test_every_figure_follows_plotlys_schema(view, state, narrow):
    """The page builds figures unvalidated (components/fixes/plotly_patch.py), so check them
    here, as the view draws them, for a wide card and a narrow one (plotkit/narrow.py)."""
    figure = view_spec(view).make(ExplorerState(**state)).figure()
    figure = for_narrow_screen(figure) if narrow else for_wide_screen(figure)
    validated = go.Figure(data=figure["data"], layout=figure["layout"])  # raises if unknown
    # Validation would also rewrite values (a colour scale's name into its stops): then the
    # unvalidated figure the page draws would look different. It must need no rewriting.
    unvalidated = go.Figure(data=figure["data"], layout=figure["layout"], _validate=False)
    assert without_empty_lists(plotly.io.to_json(unvalidated, validate=False)) == (
        without_empty_lists(plotly.io.to_json(validated))
    )


def test_the_template_figures_carry_is_plotlys_default_for_what_they_draw():
    """theme.TEMPLATE stands in for plotly.py's default template: the same values for every
    layout key and trace type the explorer uses, so figures look as plotly.py would draw them."""
    default = plotly.io.templates["plotly"].to_plotly_json()
    ours = theme.TEMPLATE
    assert ours["layout"] == {key: default["layout"][key] for key in ours["layout"]}
    for kind, (defaults,) in ours["data"].items():
        (expected,) = default["data"][kind]
        # Left out on purpose: every heatmap names its own colour scale.
        assert defaults == {key: value for key, value in expected.items() if key != "colorscale"}
    assert set(default["layout"]) - set(ours["layout"]) <= {
        "polar",
        "ternary",
        "coloraxis",
        "colorscale",
        "scene",
        "geo",
    }


@pytest.mark.parametrize("view", VIEW_NAMES)
def test_every_trace_type_drawn_has_its_template_and_every_heatmap_its_colour_scale(view):
    state = ExplorerState(text="the cat sat")
    figure = view_spec(view).figure(state)
    assert figure["layout"]["template"] is theme.TEMPLATE
    for trace in figure["data"]:
        assert trace["type"] in theme.TEMPLATE["data"]
        if trace["type"] == "heatmap":
            assert trace["colorscale"]


@pytest.mark.parametrize("view", VIEW_NAMES)
def test_every_axis_and_colour_bar_draws_its_tick_labels_unmeasured(view):
    """No tick label is ever hidden for crossing the figure's edge (automargin makes room), so
    none is measured for it after each redraw (theme.TICK_LABELS)."""
    state = ExplorerState(text="the cat sat")
    figure = view_spec(view).figure(state)
    axes = [value for key, value in figure["layout"].items() if key[1:5] == "axis"]
    bars = [
        trace["colorbar"]
        for trace in figure["data"]
        if trace["type"] == "heatmap" and trace.get("showscale", True)
    ]
    assert axes
    for part in axes + bars:
        assert part["ticklabeloverflow"] == "allow"
    assert theme.TEMPLATE["layout"]["xaxis"]["automargin"] is True


@pytest.mark.parametrize("view", VIEW_NAMES)
def test_figures_are_json_serialisable_with_numpy_arrays(view):
    state = ExplorerState(text="a b", pos=1, offset=-1)
    figure = view_spec(view).figure(state)
    json.loads(plotly.io.to_json(figure, validate=False))

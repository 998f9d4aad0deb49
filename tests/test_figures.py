"""Each pure figure function, for a given state, draws the right data and readouts."""

import json

import numpy as np
import plotly.graph_objs as go
import plotly.io
import pytest

from components import compare, encoding, frequency, heatmap, theme, waves
from components.registry import VIEWS, view_spec
from components.state import ExplorerState


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


def test_heatmap_hover_names_dimension_pair_and_function():
    state = ExplorerState(d_model=8, n_positions=4)
    labels = heatmap.figure(state)["data"][0]["x"]
    assert labels[:3] == ["dim 0 · i = 0 · sin", "dim 1 · i = 0 · cos", "dim 2 · i = 1 · sin"]
    state.layout = "concatenated"
    labels = heatmap.figure(state)["data"][0]["x"]
    assert labels[0] == "dim 0 · i = 0 · sin" and labels[4] == "dim 4 · i = 0 · cos"


@pytest.mark.parametrize("size", [1024, 2048])
def test_large_heatmap_is_reduced_and_says_so(size):
    state = ExplorerState(n_positions=size, d_model=size)
    figure = heatmap.figure(state)
    trace = figure["data"][0]
    assert trace["z"].size <= heatmap.MAX_DISPLAY_CELLS
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


def test_waves_draw_each_chosen_pair_with_the_formula():
    state = ExplorerState(pairs=[0, 5], pos=9, offset=4)
    figure = waves.figure(state)
    omega = encoding.angular_frequencies(128)
    lines = [t for t in figure["data"] if t["mode"] == "lines"]
    dots = [t for t in figure["data"] if t["mode"] == "markers"]
    assert len(lines) == 4 and len(dots) == 4
    sin_line = lines[2]
    np.testing.assert_allclose(sin_line["y"], np.sin(sin_line["x"] * omega[5]), atol=1e-15)
    np.testing.assert_allclose(dots[2]["y"], encoding.positional_encoding(64, 128)[:, 10])
    np.testing.assert_allclose(dots[3]["y"], encoding.positional_encoding(64, 128)[:, 11])
    assert "λ = 6.283" in lines[0]["name"]
    assert [s["x0"] for s in figure["layout"]["shapes"]] == [9, 13]


def test_waves_curves_resolve_the_shortest_wavelength():
    state = ExplorerState(n_positions=2048, d_model=512)
    lines = [t for t in waves.figure(state)["data"] if t["mode"] == "lines"]
    wavelength = encoding.wavelengths(512)
    for pair, (sin_line, cos_line) in zip(
        state.chosen_pairs, zip(lines[::2], lines[1::2], strict=True), strict=True
    ):
        for trace in (sin_line, cos_line):
            assert trace["x"][1] - trace["x"][0] <= wavelength[pair] / 8


def test_frequency_panel_plots_omega_and_lambda_and_marks_chosen_pairs():
    state = ExplorerState(d_model=512, pairs=[1, 100])
    figure = frequency.figure(state)
    omega, wavelength, chosen_lambda, chosen_omega = figure["data"]
    np.testing.assert_allclose(omega["y"], encoding.angular_frequencies(512))
    np.testing.assert_allclose(wavelength["y"], encoding.wavelengths(512))
    assert list(chosen_lambda["x"]) == [1, 100]
    assert figure["layout"]["yaxis"]["type"] == "log"
    extremes = frequency.summary(state)
    assert extremes.shortest == pytest.approx(2 * np.pi)
    assert extremes.longest == pytest.approx(60611.477, abs=5e-4)
    assert "60611.477" in frequency.summary_html(state)


def test_compare_readouts_equal_the_encoding_functions():
    state = ExplorerState(pos=7, offset=1, d_model=512)
    first = compare.readouts(state)[0]
    pe = encoding.encode_positions([7, 8], 512)
    assert first.comparison == encoding.compare(pe[0], pe[1])
    assert first.comparison.dot == pytest.approx(249.102097827363, abs=1e-9)


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (22, 1), (5, -5), (0, 79)])
def test_other_pairs_at_the_same_offset_give_the_same_numbers(pos, offset):
    state = ExplorerState(pos=pos, offset=offset, d_model=512, n_positions=128)
    rows = compare.readouts(state)
    assert len(rows) == 4
    assert len({row.first for row in rows}) == 4
    for row in rows:
        assert row.second - row.first == offset
        assert row.comparison.dot == pytest.approx(encoding.offset_dot(offset, 512), abs=1e-10)
        assert row.comparison.cosine == pytest.approx(rows[0].comparison.cosine, abs=1e-12)


def test_compare_html_shows_the_current_numbers():
    state = ExplorerState(pos=7, offset=1, d_model=512)
    text = compare.readouts_html(state)
    assert '<td class="pe-readout-dot">249.102097827</td>' in text
    assert "pos = 7 · pos + k = 8" in text


def test_compare_figure_draws_both_vectors():
    state = ExplorerState(pos=3, offset=10, d_model=16)
    first, second = compare.figure(state)["data"]
    pe = encoding.encode_positions([3, 13], 16)
    np.testing.assert_array_equal(first["y"], pe[0])
    np.testing.assert_array_equal(second["y"], pe[1])
    assert first["name"] == "PE(3)" and second["name"] == "PE(13)"


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
@pytest.mark.parametrize("view", [spec.name for spec in VIEWS])
def test_every_figure_follows_plotlys_schema(view, state):
    """The page builds figures unvalidated (components/figure_patch.py), so check them here."""
    figure = type(view_spec(view).make(ExplorerState(**state))).figure(ExplorerState(**state))
    validated = go.Figure(data=figure["data"], layout=figure["layout"])  # raises if unknown
    # Validation would also rewrite values (a colour scale's name into its stops): then the
    # unvalidated figure the page draws would look different. It must need no rewriting.
    unvalidated = go.Figure(data=figure["data"], layout=figure["layout"], _validate=False)
    assert without_empty_lists(plotly.io.to_json(unvalidated, validate=False)) == (
        without_empty_lists(plotly.io.to_json(validated))
    )


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


@pytest.mark.parametrize("view", [spec.name for spec in VIEWS])
def test_every_trace_type_drawn_has_its_template_and_every_heatmap_its_colour_scale(view):
    state = ExplorerState(text="the cat sat")
    figure = type(view_spec(view).make(state)).figure(state)
    assert figure["layout"]["template"] is theme.TEMPLATE
    for trace in figure["data"]:
        assert trace["type"] in theme.TEMPLATE["data"]
        if trace["type"] == "heatmap":
            assert trace["colorscale"]


@pytest.mark.parametrize("view", [spec.name for spec in VIEWS])
def test_every_axis_and_colour_bar_draws_its_tick_labels_unmeasured(view):
    """No tick label is ever hidden for crossing the figure's edge (automargin makes room), so
    none is measured for it after each redraw (theme.TICK_LABELS)."""
    state = ExplorerState(text="the cat sat")
    figure = type(view_spec(view).make(state)).figure(state)
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

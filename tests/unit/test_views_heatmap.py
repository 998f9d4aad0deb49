"""The heatmap view: the PE matrix, reduced only when it has more cells than a screen, and the
formula behind each cell."""

import dataclasses
import re

import numpy as np
import pytest
from pe_explorer import derived, encoding, formula
from pe_explorer.fixes.plotly_patch import FigurePatcher
from pe_explorer.formula import cell_formula
from pe_explorer.state import ExplorerState
from pe_explorer.views import heatmap, view_spec


def row_marked(figure, name):
    """The rows the heatmap's marker called name spans, as (first edge, last edge)."""
    return [
        (image["y"] - image["sizey"] / 2, image["y"] + image["sizey"] / 2)
        for image in figure["layout"]["images"]
        if image["name"] == name and image.get("visible", True)
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
    (note,) = figure["layout"]["annotations"]
    assert note["visible"] and "pos + k = 80" in note["text"]


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("interleaved", {0: (0, 0, "sin"), 1: (1, 0, "cos"), 2: (2, 1, "sin"), 7: (7, 3, "cos")}),
        ("concatenated", {0: (0, 0, "sin"), 3: (3, 3, "sin"), 4: (4, 0, "cos"), 7: (7, 3, "cos")}),
    ],
)
def test_heatmap_hover_names_dimension_pair_and_function(layout, expected):
    state = ExplorerState(d_model=8, n_positions=4, layout=layout)
    labels = heatmap.figure(state)["data"][0]["x"]
    for column, (dimension, pair, name) in expected.items():
        assert labels[column].startswith(f"dim {dimension} · pair i = {pair} · wavelength ")
        assert labels[column].endswith(
            f"PE(pos, {dimension}) = {name}(pos / 10000^({2 * pair}/8)) = {name}"
        )


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


# The formula behind a cell: in the hover label, and under the plot after a click.


def hover_text(trace: dict, row: int, column: int) -> str:
    """The hover label Plotly draws for one shown cell: its hovertemplate filled in as
    plotly.js fills it (d3-format rounds like formula.fixed, with a hyphen for minus)."""
    angle_and_value = trace["customdata"][row, column]

    def number(match):
        value = angle_and_value[int(match[1])]
        return formula.fixed(value, int(match[2])).replace(formula.MINUS, "-")

    text = trace["hovertemplate"].replace("%{y}", str(trace["y"][row]))
    text = text.replace("%{x}", trace["x"][column])
    text = re.sub(r"%\{customdata\[(\d)\]:\.(\d+)f\}", number, text)
    assert "%{" not in text
    return re.sub(r"<extra>.*</extra>", "", text).replace("<br>", "\n")


def test_the_hover_of_the_issues_worked_example():
    trace = heatmap.figure(ExplorerState())["data"][0]
    assert hover_text(trace, 7, 6) == (
        "pos 7 · dim 6 · pair i = 3 · wavelength 9.7\n"
        "PE(pos, 6) = sin(pos / 10000^(6/128)) = sin(4.5457) = -0.9861"
    )


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(
    ("n_positions", "d_model", "base"), [(64, 128, 10000.0), (20, 6, 37.5), (2048, 2048, 500.0)]
)
def test_every_hover_shows_its_cells_formula(layout, n_positions, d_model, base):
    """With pos filled in, the hover's equation is the cell's formula, digit for digit."""
    state = ExplorerState(n_positions=n_positions, d_model=d_model, base=base, layout=layout)
    trace = heatmap.figure(state)["data"][0]
    rows, columns = trace["z"].shape
    for row in range(0, rows, max(1, rows // 40)):
        for column in range(0, columns, max(1, columns // 40)):
            pos, dimension = int(trace["y"][row]), int(trace["x"][column].split()[1])
            cell = cell_formula(pos, dimension, d_model, base, layout)
            equation, pair, wavelength = cell.parts(heatmap.DIGITS)
            where, shown = hover_text(trace, row, column).split("\n")
            assert shown.replace("pos", str(pos)) == equation.replace(formula.MINUS, "-")
            assert (
                where
                == f"pos {pos} · dim {dimension} · {pair} · wavelength "
                + (wavelength.rsplit(" = ", 1)[1])
            )
            # The colours' float32 copy is the same number.
            assert trace["z"][row, column] == pytest.approx(cell.value, abs=1e-7)


@pytest.mark.parametrize(("n_positions", "d_model"), [(64, 128), (2048, 2048)])
def test_hover_numbers_are_the_matrix_and_its_angles_in_float64(n_positions, d_model):
    state = ExplorerState(n_positions=n_positions, d_model=d_model, layout="concatenated")
    trace = heatmap.figure(state)["data"][0]
    rows, columns = trace["y"], [int(label.split()[1]) for label in trace["x"]]
    pair_of, _ = encoding.column_roles(d_model, "concatenated")
    omega = encoding.angular_frequencies(d_model)
    assert trace["customdata"].shape == (*trace["z"].shape, 2)
    assert trace["customdata"].dtype == np.float64
    np.testing.assert_array_equal(
        trace["customdata"][..., 0], rows[:, None] * omega[pair_of[columns]][None, :]
    )
    np.testing.assert_array_equal(
        trace["customdata"][..., 1],
        encoding.positional_encoding(n_positions, d_model, layout="concatenated")[
            np.ix_(rows, columns)
        ],
    )


@pytest.mark.parametrize(("parameter", "value"), [("pos", 20), ("offset", 5)])
def test_moving_pos_or_k_reuses_every_data_array_and_moves_only_the_markers(parameter, value):
    state = ExplorerState()
    before = heatmap.figure(state)
    misses = derived.hover_cells.cache_info().misses
    setattr(state, parameter, value)
    after = heatmap.figure(state)
    assert derived.hover_cells.cache_info().misses == misses
    for key in ("x", "y", "z", "customdata"):
        assert after["data"][0][key] is before["data"][0][key]
    patcher = FigurePatcher()
    patcher.reset(before)
    restyle, relayout, traces = patcher.patch(after)
    assert (restyle, traces) == ({}, [])
    assert {path.split(".")[0] for path in relayout} <= {"images[0]", "images[1]"}


def test_hover_data_is_read_only():
    trace = heatmap.figure(ExplorerState())["data"][0]
    with pytest.raises(ValueError, match="read-only"):
        trace["customdata"][0, 0, 0] = 1.0


def heatmap_view(**values) -> heatmap.HeatmapView:
    spec = dataclasses.replace(view_spec("heatmap"), view_class=heatmap.HeatmapView)
    return spec.make(ExplorerState(**values))


def click(view: heatmap.HeatmapView, pos, dimension: int) -> None:
    """What Panel sets when the visitor clicks or taps the cell (pos, dimension)."""
    trace = view._plot.object["data"][0]
    (label,) = [label for label in trace["x"] if label.split()[1] == str(dimension)]
    view._plot.click_data = {"points": [{"curveNumber": 0, "x": label, "y": pos, "z": 0.5}]}


def shown(view: heatmap.HeatmapView) -> str:
    return re.sub(r"<[^>]+>", "", view._formula.object)


def test_the_formula_pane_has_its_css_class():
    assert "pe-cell-formula" in heatmap_view()._formula.css_classes


def test_before_any_click_the_pane_shows_a_hint_and_the_worked_example():
    view = heatmap_view()
    assert shown(view) == (
        "Click or tap a cell to see its formula. For example:"
        "PE(7, 6) = sin(7 / 10000^(6/128)) = sin(4.5457) = −0.9861 · pair i = 3 · "
        "wavelength 2π·10000^(6/128) = 9.7"
    )


@pytest.mark.parametrize(("d_model", "dimension"), [(128, 6), (8, 6), (6, 5), (2, 1)])
def test_the_example_is_dimension_6_or_the_last_below_it_at_pos(d_model, dimension):
    view = heatmap_view(d_model=d_model)
    view.state.pos = 12
    assert view._formula.object == heatmap.HINT + cell_formula(12, dimension, d_model).html()


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(("pos", "dimension"), [(20, 9), (0, 0), (63, 127), (7, 67)])
def test_a_click_shows_that_cells_formula_as_its_hover_shows_it(layout, pos, dimension):
    view = heatmap_view(layout=layout)
    click(view, pos, dimension)
    cell = cell_formula(pos, dimension, 128, 10000.0, layout)
    assert view._formula.object == cell.html()
    trace = view._plot.object["data"][0]
    hover = hover_text(trace, pos, dimension).split("\n")[1].replace("pos", str(pos))
    assert hover == cell.parts()[0].replace(formula.MINUS, "-")


def test_a_click_on_dimension_64_plus_3_when_concatenated_is_the_cosine_of_pair_3():
    view = heatmap_view(layout="concatenated")
    click(view, 7, 67)
    assert shown(view).startswith("PE(7, 67) = cos(7 / 10000^(6/128)) = cos(4.5457) = ")
    assert "pair i = 3" in shown(view)


def test_after_a_click_moving_pos_takes_the_formula_to_row_pos_of_the_clicked_column():
    view = heatmap_view()
    click(view, 20, 9)
    view.state.pos = 8
    assert view._formula.object == cell_formula(8, 9, 128).html()
    view.state.pos = 7
    assert view._formula.object == cell_formula(7, 9, 128).html()


@pytest.mark.parametrize("parameter", ["offset", "theme"])
def test_other_changes_keep_the_clicked_cell(parameter):
    view = heatmap_view()
    click(view, 20, 9)
    setattr(view.state, parameter, {"offset": 4, "theme": "dark"}[parameter])
    assert view._formula.object == cell_formula(20, 9, 128).html()


def test_a_new_base_or_layout_keeps_the_clicked_cell_and_redoes_its_formula():
    view = heatmap_view()
    click(view, 20, 67)
    view.state.base = 500.0
    assert view._formula.object == cell_formula(20, 67, 128, 500.0).html()
    view.state.layout = "concatenated"
    assert view._formula.object == cell_formula(20, 67, 128, 500.0, "concatenated").html()


def test_a_sequence_without_the_clicked_row_shows_row_pos_of_the_clicked_column():
    view = heatmap_view()
    click(view, 50, 9)
    view.state.n_positions = 30
    assert view._formula.object == cell_formula(7, 9, 128).html()


def test_a_d_model_without_the_clicked_dimension_brings_the_example_back():
    view = heatmap_view()
    click(view, 20, 100)
    view.state.d_model = 64
    assert view._formula.object == heatmap.HINT + cell_formula(7, 6, 64).html()
    view.state.d_model = 128
    assert view._formula.object == heatmap.HINT + cell_formula(7, 6, 128).html()


def test_a_click_in_a_reduced_heatmap_shows_the_clicked_cell():
    view = heatmap_view(n_positions=2048, d_model=2048)
    trace = view._plot.object["data"][0]
    row, column = 100, 201
    pos, dimension = int(trace["y"][row]), int(trace["x"][column].split()[1])
    click(view, pos, dimension)
    assert view._formula.object == cell_formula(pos, dimension, 2048).html()


@pytest.mark.parametrize(
    "click_data",
    [
        None,
        {},
        {"points": []},
        {"points": [None]},
        {"points": [{"x": "dim 999", "y": 1}]},
        {"points": [{"x": None, "y": 1}]},
        {"points": [{"y": 1}]},
    ],
)
def test_a_click_that_is_not_on_a_cell_changes_nothing(click_data):
    view = heatmap_view()
    before = view._formula.object
    view._plot.click_data = click_data
    assert view._formula.object == before


@pytest.mark.parametrize("pos", [-1, 64, 2.5, True, float("nan"), "7", None])
def test_a_click_outside_the_rows_changes_nothing(pos):
    view = heatmap_view()
    label = view._plot.object["data"][0]["x"][9]
    before = view._formula.object
    view._plot.click_data = {"points": [{"x": label, "y": pos}]}
    assert view._formula.object == before


def test_a_step_of_pos_with_a_clicked_cell_still_sends_only_the_markers():
    view = heatmap_view()
    click(view, 20, 9)
    patches, wholes = [], []
    view._plot._send_patch = lambda *patch: patches.append(patch)
    view._plot.param.watch(wholes.append, "object")
    view.state.pos = 8
    ((restyle, relayout, traces),) = patches
    assert (wholes, restyle, traces) == ([], {}, [])
    assert relayout == {"images[0].y": 8, "images[1].y": 9}

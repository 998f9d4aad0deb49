"""The checker view: the visitor's file or numbers in; the verdict, escaped, and evidence out."""

from __future__ import annotations

import html
import json

import numpy as np
import panel as pn
import plotly.graph_objs as go
import plotly.io
import pytest
from bokeh.document import Document
from checker_support import npy, torch_style
from pe_explorer import derived, encoding
from pe_explorer import diagnosis as diagnose
from pe_explorer.state import ExplorerState
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.ui.page_options import PageOptions
from pe_explorer.views import checker, view_spec


def base_1000(n: int, d_model: int) -> np.ndarray:
    """The PyTorch tutorial's code with base 1000: the mistake the checker names first."""
    return torch_style(n, d_model, 1000.0)


@pytest.fixture
def view():
    return view_spec("checker").make(ExplorerState())


def verdict(view) -> str:
    return view._verdict.object


def test_before_any_matrix_it_shows_the_reference_at_the_states_base(view):
    assert "No matrix yet" in verdict(view)
    assert view.figure()["layout"]["title"]["text"].startswith("The reference: base 10000")
    view.state.base = 1000.0
    assert view.figure()["layout"]["title"]["text"].startswith("The reference: base 1000,")
    assert not view._download.visible


def test_a_chosen_file_is_checked_and_its_mistake_named(view):
    view._file.param.update(value=npy(base_1000(300, 64)), filename="pe.npy")
    assert "It looks like base 1000 instead of 10000" in verdict(view)
    assert "Fix:" in verdict(view) and view._download.visible
    figure = view.figure()
    assert [trace["type"] for trace in figure["data"]][:5] == ["heatmap"] * 5
    assert "Theirs (300 × 64)" in figure["layout"]["title"]["text"]


def test_the_evidence_is_theirs_the_reference_and_their_difference(view):
    matrix = base_1000(40, 16)
    view.check_file(npy(matrix), "pe.npy")
    theirs, ours, difference, their_gram, our_gram = view.figure()["data"][:5]
    reference = encoding.positional_encoding(40, 16)
    assert np.array_equal(theirs["z"], matrix)
    assert np.array_equal(ours["z"], reference.astype(np.float32))
    assert np.allclose(difference["z"], matrix - reference, atol=1e-6)
    assert np.allclose(their_gram["z"], matrix.astype(np.float64) @ matrix.T, rtol=1e-5)
    assert np.allclose(our_gram["z"], reference @ reference.T, rtol=1e-5, atol=1e-4)


def test_pasted_numbers_are_checked_when_the_box_is_left(view):
    text = "\n".join(
        ",".join(repr(float(v)) for v in row) for row in encoding.positional_encoding(8, 4)
    )
    view._text.value = text
    assert "It matches the reference (base 10000, interleaved layout)" in verdict(view)
    view._text.value = ""
    assert "No matrix yet" in verdict(view)


def test_the_verdict_follows_the_base(view):
    view.check_file(npy(base_1000(50, 32)), "pe.npy")
    assert "base 1000 instead" in verdict(view)
    view.state.base = 1000.0
    assert "It matches the reference (base 1000," in verdict(view)


def test_the_rows_choice_reads_a_transposed_matrix(view):
    view.check_file(npy(encoding.positional_encoding(40, 16).T), "pe.npy")
    assert "Transposed: its rows are dimensions" in verdict(view)
    view.rows = "dimensions"
    assert "It matches the reference" in verdict(view)


@pytest.mark.parametrize(
    "data, filename, message",
    [
        (b"", "pe.csv", "empty file"),
        (b"0,1\n0.5,abc\n", "pe.csv", "not numeric: row 2, column 2 holds &#x27;abc&#x27;"),
        (npy(np.zeros((3, 5))), "pe.npy", "odd number of columns (5)"),
        (b"0,1\nnan,1\n", "pe.csv", "NaN or infinity at row 2, column 1"),
    ],
)
def test_bad_input_gets_its_message_and_the_reference_figure(view, data, filename, message):
    view.check_file(data, filename)
    assert "Not checked: " + message in verdict(view)
    assert view.figure()["layout"]["title"]["text"].startswith("The reference")
    assert not view._error.visible and not view._download.visible


def test_hostile_text_is_shown_as_text(view):
    view.check_text("<img src=x onerror=alert(1)>, 1\n0, 1")
    shown = verdict(view)
    assert "&lt;img" in shown and "<img" not in shown


def test_the_report_download_is_the_diagnosis_report(view):
    view.check_file(npy(base_1000(30, 16)), "pe.npy")
    report = view._download.callback().getvalue()
    assert report == view.result().report()
    assert "Reference (NumPy):" in report
    assert html.escape(report) in view._report.object


@pytest.mark.parametrize(
    "matrix",
    [
        pytest.param(encoding.positional_encoding(20, 8), id="match"),
        pytest.param(base_1000(64, 32), id="mistake"),
        pytest.param(np.random.default_rng(1).uniform(-1, 1, (30, 12)), id="no-match"),
        pytest.param(encoding.positional_encoding(1500, 512, layout="concatenated"), id="large"),
    ],
)
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_evidence_figure_follows_plotlys_schema(matrix, theme):
    figure = checker.evidence_figure(ExplorerState(theme=theme), diagnose.diagnose(matrix))
    go.Figure(data=figure["data"], layout=figure["layout"])  # raises if anything is unknown
    json.loads(plotly.io.to_json(figure, validate=False))
    for key, value in figure["layout"].items():
        if key[1:5] == "axis":
            assert value["ticklabeloverflow"] == "allow"


def test_a_large_matrix_is_reduced_for_display_by_whole_pairs():
    diagnosis = diagnose.diagnose(encoding.positional_encoding(2048, 1024))
    cells = derived.evidence_cells(diagnosis)
    assert cells.reduced and cells.theirs.size <= derived.PANEL_CELLS
    assert cells.gram_rows.size <= derived.GRAM_POSITIONS
    pair_of, _ = encoding.column_roles(1024, "interleaved")
    assert np.all(np.bincount(pair_of[cells.columns])[pair_of[cells.columns]] == 2)


def test_the_checkers_inputs_never_reach_the_url():
    page = ExplorerPage(state=ExplorerState(), options=PageOptions(view="checker"))
    pn.panel(page).get_root(Document())
    before = page.url.query()
    checker_view = page.view("checker")
    checker_view.check_text("0, 1\n0.841, 0.54")
    checker_view.rows = "dimensions"
    assert page.url.query() == before
    assert not set(checker_view.param) & set(ExplorerState.param) - {"name"}


def test_a_new_files_bytes_before_its_name_are_read_by_their_content(view):
    """In the Pyodide worker the file input's value and filename arrive as two patches: the
    bytes of a .csv come while the name is still the previous .npy's."""
    view._file.param.update(value=npy(base_1000(30, 16)), filename="pe.npy")
    text = "\n".join(",".join(f"{v:.9g}" for v in row) for row in base_1000(30, 16))
    view._file.value = text.encode()
    assert "not a valid .npy" not in verdict(view)
    assert "base 1000" in verdict(view)
    view._file.filename = "pe.csv"
    assert "base 1000" in verdict(view)

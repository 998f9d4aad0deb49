"""The learned-table view: the visitor's table (or the synthetic example) beside the sinusoidal
table of its size; bad files get a message, never a traceback; numbers as NumPy computes them."""

from __future__ import annotations

import io
import json
import math
import pickle

import numpy as np
import plotly.graph_objs as go
import plotly.io
import pytest
from pe_explorer import derived
from pe_explorer.fixes.plotly_patch import CONTAINER_ARRAYS, flatten, same_value
from pe_explorer.learned import synthetic_table
from pe_explorer.plotkit.numbers import number
from pe_explorer.plotkit.picks import pick
from pe_explorer.state import ExplorerState
from pe_explorer.views import learned, view_spec

BASE = 10000.0


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def csv(array: np.ndarray) -> bytes:
    return "\n".join(",".join(repr(float(v)) for v in row) for row in array).encode()


def sinusoidal(n_positions: int, d_model: int, base: float = BASE) -> np.ndarray:
    """The interleaved sinusoidal table, written out here: sin on even, cos on odd columns."""
    table = np.empty((n_positions, d_model))
    for pos in range(n_positions):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            table[pos, 2 * i], table[pos, 2 * i + 1] = math.sin(angle), math.cos(angle)
    return table


def shares(table: np.ndarray) -> np.ndarray:
    """Variance share of the top three principal components, from the singular values."""
    singular = np.linalg.svd(table - table.mean(axis=0), compute_uv=False)
    return singular[:3] ** 2 / np.sum(singular**2)


def traces_named(figure: dict, name: str) -> list[dict]:
    return [trace for trace in figure["data"] if trace.get("name", "").startswith(name)]


@pytest.fixture
def view():
    return view_spec("learned").make(ExplorerState())


def test_before_any_table_the_sinusoidal_table_is_drawn_with_a_prompt(view):
    assert "No learned table yet" in view._status.object
    figure = view.figure()
    assert figure["layout"]["title"]["text"].startswith("The sinusoidal table, 64 × 128")
    matrix, gram, trajectory = (
        t for t in figure["data"] if t["type"] != "scatter" or "rows" in t["name"]
    )
    assert np.allclose(matrix["z"], sinusoidal(64, 128), atol=1e-6)
    assert np.allclose(gram["z"], sinusoidal(64, 128) @ sinusoidal(64, 128).T, rtol=1e-5)
    assert trajectory["x"].size == 64
    assert "No learned table yet" in figure["layout"]["title"]["text"]
    # Alone, the sinusoidal side takes the whole width.
    assert figure["layout"]["xaxis"]["domain"] == [0.0, 1.0]
    assert not view._clear.visible
    assert view.description().startswith("No learned table given yet")


def test_the_example_is_labelled_synthetic_everywhere(view):
    view.load_example()
    assert "A synthetic example, not GPT-2" in view._status.object
    assert "Synthetic example, not GPT-2" in view.figure()["layout"]["title"]["text"]
    assert "synthetic learned-like table (not GPT-2" in view.description()
    assert "synthetic" in view._readout.object
    assert view._clear.visible
    view.clear()
    assert "No learned table yet" in view._status.object


def test_a_table_file_is_drawn_beside_the_sinusoidal_table_of_its_size(view):
    table = synthetic_table(48, 20, seed=3)
    view.check_file(npy(table), "wpe.npy")
    assert "Loaded <b>wpe.npy</b>: 48 positions × 20 dimensions" in view._status.object
    figure = view.figure()
    (matrix,) = traces_named(figure, "learned table")
    (their_gram,) = traces_named(figure, "learned dot products")
    (reference,) = traces_named(figure, "sinusoidal table")
    assert np.array_equal(matrix["z"], table.astype(np.float32))
    assert np.allclose(their_gram["z"], table @ table.T, rtol=1e-5)
    assert np.allclose(reference["z"], sinusoidal(48, 20), atol=1e-6)
    (trajectory,) = traces_named(figure, "learned rows")
    # The trajectory is the rows' coordinates on the top two principal directions: its points
    # keep the variance shares of those two components.
    centred = table - table.mean(axis=0)
    variance = np.array([np.mean(trajectory["x"] ** 2), np.mean(trajectory["y"] ** 2)])
    assert np.allclose(variance / np.mean(np.sum(centred**2, axis=1)), shares(table)[:2], rtol=1e-5)


def test_a_csv_file_is_read_too(view):
    table = synthetic_table(10, 4, seed=1)
    view.check_file(csv(table), "wpe.csv")
    assert "10 positions × 4 dimensions" in view._status.object


def test_the_readout_compares_rows_pos_and_pos_plus_k_of_both_tables(view):
    table = synthetic_table(30, 8, seed=5)
    view.state.param.update(pos=4, offset=3)
    view.check_file(npy(table), "t.npy")
    readout = view._readout.object
    for name, t in (("learned", table), ("sinusoidal", sinusoidal(30, 8))):
        u, v = t[4], t[7]
        row = readout.split(f'<tr class="pe-learned-{name}">')[1].split("</tr>")[0]
        cosine = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
        for value in (np.dot(u, v), cosine, np.linalg.norm(u - v)):
            assert f"<td>{number(value, 6)}</td>" in row
    assert "Rows pos = 4 and pos + k = 7 (k = 3)" in readout


def test_the_accessible_name_gives_the_variance_explained_and_the_comparison(view):
    table = synthetic_table(40, 12, seed=8)
    view.check_file(npy(table), "wpe.npy")
    name = view.description()
    learned_shares = shares(table)
    sinusoidal_shares = shares(sinusoidal(40, 12))
    assert (
        f"{100 * learned_shares.sum():.1f} % of the variance (PC1 {100 * learned_shares[0]:.1f} %"
        in name
    )
    assert f"{100 * sinusoidal_shares.sum():.1f} % of the variance" in name
    u, v = table[7], table[8]
    cosine = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    assert f"cosine {cosine:.4f}" in name
    assert "\n" not in name and "<" not in name


def test_rows_beyond_a_short_table_are_moved_into_it_and_it_says_so():
    view = view_spec("learned").make(ExplorerState(pos=60, offset=2))
    view.check_file(npy(synthetic_table(10, 4)), "short.npy")
    assert "rows 7 and 9 are compared" in view._readout.object
    assert "rows 7 and 9 (moved into the table)" in view.description()
    trajectory_marks = traces_named(view.figure(), "pos")
    assert {mark["name"] for mark in trajectory_marks} >= {"pos = 7", "pos + k = 9"}


def test_an_odd_width_is_set_beside_one_more_sinusoidal_dimension(view):
    view.check_file(npy(synthetic_table(20, 7)), "odd.npy")
    assert "the sinusoidal table beside it has 8 dimensions" in view._status.object
    (reference,) = traces_named(view.figure(), "sinusoidal table")
    assert reference["z"].shape == (20, 8)
    assert "odd width" in view.figure()["layout"]["title"]["text"]


def over_the_cap() -> bytes:
    """A .npy header that claims 4096 × 4096 float64, with no data behind it."""
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (4096, 4096)}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (npy(np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]])), "t.npy", "NaN or infinity"),
        (b"0,1\n1,inf\n2,2\n", "t.csv", "NaN or infinity at row 2, column 2"),
        (npy(np.arange(6.0)), "t.npy", "wrong rank: a vector of 6 numbers"),
        (npy(np.zeros((3, 4, 5))), "t.npy", "wrong rank: 3 axes"),
        (over_the_cap(), "big.npy", "over the size cap: 4096 × 4096"),
        (npy(np.zeros((2049, 2))), "tall.npy", "over the size cap: 2049 × 2"),
        (b"hello, world\nthis is not, a table\n", "t.csv", "not numeric"),
        (pickle.dumps(np.zeros((3, 3))), "wpe.pt", "archives and pickles are never opened"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "wpe.png", "neither a .npy file nor text"),
        (b"", "t.csv", "empty file"),
        (npy(np.zeros((2, 8))), "t.npy", "at least 3 rows"),
        (npy(np.ones((6, 8))), "t.npy", "every row is the same"),
    ],
    ids=[
        "nan",
        "inf",
        "1-D",
        "3-D",
        "header-too-big",
        "too-many-rows",
        "text",
        "pickle",
        "binary",
        "empty",
        "two-rows",
        "constant",
    ],
)
def test_a_bad_file_gets_its_message_and_the_sinusoidal_table(view, data, filename, message):
    view.check_file(data, filename)
    status = view._status.object
    assert "Not loaded: " in status and message.replace("'", "&#x27;") in status
    figure = view.figure()
    assert figure["layout"]["title"]["text"].startswith("The sinusoidal table")
    assert not view._error.visible
    assert view.description().startswith("No learned table given yet")


def test_html_in_a_file_name_is_escaped(view):
    hostile = "<img src=x onerror=alert(1)>.npy"
    view.check_file(npy(synthetic_table(10, 4)), hostile)
    assert "&lt;img src=x" in view._status.object and "<img" not in view._status.object
    title = view.figure()["layout"]["title"]["text"]
    assert "&lt;img" in title and "<img" not in title
    view.check_file(b"<script>alert(1)</script>", "<b>x</b>.csv")
    assert "<script>" not in view._status.object and "<b>x" not in view._status.object


def test_the_3d_toggle_draws_two_scenes(view):
    view.load_example()
    view.projection = "3D"
    figure = view.figure()
    scenes = {trace["scene"] for trace in figure["data"] if trace["type"] == "scatter3d"}
    assert scenes == {"scene", "scene2"}
    assert {"scene", "scene2"} <= set(figure["layout"])
    assert not any(key.startswith("xaxis5") for key in figure["layout"])


@pytest.mark.parametrize("projection", learned.PROJECTIONS)
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("similarity", ["dot", "cosine"])
def test_every_figure_with_a_table_follows_plotlys_schema(projection, theme, similarity):
    state = ExplorerState(theme=theme, similarity=similarity)
    view = view_spec("learned").make(state)
    view.check_file(npy(synthetic_table(50, 9)), "t.npy")
    view.projection = projection
    figure = view.figure()
    go.Figure(data=figure["data"], layout=figure["layout"])  # raises if anything is unknown
    json.loads(plotly.io.to_json(figure, validate=False))


def test_a_large_table_is_reduced_for_display():
    view = view_spec("learned").make(ExplorerState())
    view.check_file(npy(synthetic_table(1500, 512, seed=2).astype(np.float32)), "big.npy")
    figure = view.figure()
    for name in ("learned table", "sinusoidal table"):
        (matrix,) = traces_named(figure, name)
        assert matrix["z"].size <= derived.PANEL_CELLS
    for name in ("learned dot", "sinusoidal dot"):
        (gram,) = traces_named(figure, name)
        assert gram["z"].shape[0] <= derived.GRAM_POSITIONS
    assert "products: 150 positions drawn" in figure["layout"]["title"]["text"]


def test_moving_pos_recomputes_no_principal_components(view):
    view.load_example()
    table = view.table()
    misses = derived.sinusoidal_components.cache_info().misses
    view.state.pos = 20
    view.state.offset = 5
    assert view.table() is table
    assert derived.sinusoidal_components.cache_info().misses == misses


def test_the_table_is_never_state(view):
    view.load_example()
    assert view.state.param.values() == ExplorerState().param.values() | {"name": view.state.name}


def test_show_data_lists_the_principal_coordinates_around_pos(view):
    table = synthetic_table(30, 6, seed=4)
    view.check_file(npy(table), "t.npy")
    data = view.data_table()
    assert data.columns[:4] == ("pos", "learned PC1", "learned PC2", "learned PC3")
    assert [row[0] for row in data.rows] == list(range(4, 11))
    centred = table - table.mean(axis=0)
    # Each row's coordinates have the length of its projection on the top three directions.
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    for row in data.rows:
        assert np.linalg.norm(row[1:4]) == pytest.approx(np.linalg.norm(vt[:3] @ centred[row[0]]))


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_the_code_reproduces_the_views_numbers(tmp_path, monkeypatch, layout):
    table = synthetic_table(40, 11, seed=6)
    np.save(tmp_path / "wpe.npy", table)
    state = ExplorerState(pos=5, offset=4, base=1000.0, layout=layout)
    view = view_spec("learned").make(state)
    view.check_file(npy(table), "wpe.npy")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(learned.code(state), namespace)
    results = namespace["results"]
    shown = view.table().components
    assert np.allclose(results["learned"]["explained"], shown.explained)
    assert np.allclose(results["learned"]["scores"], shown.scores)
    assert np.allclose(results["sinusoidal"]["explained"], shares(sinusoidal(40, 12, 1000.0)))
    # The script's sinusoidal table is the reference in the state's layout.
    expected = sinusoidal(40, 12, 1000.0)
    if layout == "concatenated":
        expected = np.concatenate([expected[:, 0::2], expected[:, 1::2]], axis=1)
    assert np.allclose(namespace["sinusoidal"], expected)
    for name, t in (("learned", table), ("sinusoidal", expected)):
        u, v = t[5], t[9]
        assert results[name]["dot"] == pytest.approx(np.dot(u, v))
        assert results[name]["distance"] == pytest.approx(np.linalg.norm(u - v))
        assert f"<td>{number(results[name]['dot'], 6)}</td>" in view._readout.object


@pytest.mark.parametrize("n_positions", [1, 2])
def test_a_short_sequence_shows_the_three_rows_principal_components_need(n_positions) -> None:
    state = ExplorerState(n_positions=n_positions, pos=0, offset=0)
    assert "sinusoidal table of 3 positions" in learned.describe(state)
    assert len(learned.data(state).rows) == 3


def drawn_paths(view) -> tuple[list[dict], dict]:
    """The figure Python drew last, flattened: each trace's paths and the layout's."""
    figure = view._plot.object
    traces = [flatten(trace) for trace in figure["data"]]
    return traces, flatten(figure["layout"], items=CONTAINER_ARRAYS)


@pytest.mark.parametrize("projection", learned.PROJECTIONS)
def test_the_picks_of_a_visitors_table_are_what_the_view_draws(view, projection):
    """Python computes, the page picks: from the visitor's table (30 rows; pos 50 is moved into
    it), the circles, the outlines, the name and the readout Python draws at each pos."""
    view.projection = projection
    view.check_file(npy(synthetic_table(30, 6, seed=4)), "t.npy")
    view.__panel__()
    picks = view.picks()
    assert picks.tables.keys() >= {learned.pca_rows(0, "x"), learned.pca_rows(1, "y")}
    for pos in (0, 12, 29, 50):
        picked = pick(picks, "pos", pos)
        view.state.pos = pos
        traces, layout = drawn_paths(view)
        assert picked["label"] == view._plot.label
        assert picked["pane"]["pe-learned-readout"] == view._readout.object
        for index, attributes in picked["trace"].items():
            for path, value in attributes.items():
                assert same_value(
                    np.asarray(value).tolist(), np.asarray(traces[index][path]).tolist()
                )
        assert all(same_value(value, layout[path]) for path, value in picked["layout"].items())
    assert "rows 28 and 29 are compared" in view._readout.object
    # The rows and the cell are outlined by images, which a pick moves without a redraw.
    assert not view._plot.object["layout"].get("shapes")

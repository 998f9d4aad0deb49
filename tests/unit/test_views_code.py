"""The code view: the reference implementation step by step, each step's cells on the heatmap."""

import base64
import re

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.fixes.plotly_patch import FigurePatcher
from pe_explorer.state import ExplorerState
from pe_explorer.views import code, view_spec

HOSTILE = "<img src=x onerror=alert(1)>"
# The view as its row of the view table describes it.
SPEC = view_spec("code")
SIZES = [
    {"n_positions": 12, "d_model": 8, "pos": 5, "text": "a b c d"},
    {"n_positions": 64, "d_model": 128, "pos": 7},
    # Reduced for display: every 5th position and pair.
    {"n_positions": 2048, "d_model": 2048, "pos": 1000},
]


def sines_and_cosines(d_model: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The sine and cosine columns of a layout, from encoding.pair_columns."""
    columns = np.arange(d_model)
    sin_columns, cos_columns = encoding.pair_columns(d_model, layout, np.arange(d_model // 2))
    return columns[sin_columns], columns[cos_columns]


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize("step", range(1, 6))
def test_each_step_fills_exactly_its_columns_and_rows(layout, step):
    sines, cosines = sines_and_cosines(16, layout)
    cells = code.step_cells(10, 16, layout, 4, step)
    expected = {
        1: ([], [], []),
        2: ([], [], []),
        3: (range(10), sines, sines),
        4: (range(10), cosines, range(16)),
        5: (range(4), range(16), range(16)),
    }[step]
    for got, want in zip((cells.rows, cells.columns, cells.filled), expected, strict=True):
        assert sorted(got) == sorted(want)


def cover_image(figure: dict) -> dict:
    (image,) = [image for image in figure["layout"]["images"] if image["name"] == "cover"]
    return image


def cover_of(figure: dict) -> str:
    return base64.b64decode(cover_image(figure)["source"].split(",", 1)[1]).decode()


def shading_drawn(svg: str, rows: int, columns: int) -> np.ndarray:
    """The cover as drawn: 0 clear, 1 the light cover, 2 the heavy one, per shown cell."""
    shade = np.zeros((rows, columns), dtype=np.int8)
    for d, opacity in re.findall(r'<path d="([^"]*)" fill="[^"]*" fill-opacity="([^"]*)"', svg):
        level = 2 if float(opacity) == code.EMPTY_COVER else 1
        for x, y, width, height in re.findall(r"M(\d+) (\d+)h(\d+)v(\d+)h-\d+z", d):
            x, y = int(x), int(y)
            shade[y : y + int(height), x : x + int(width)] = level
    return shade


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['n_positions']}x{s['d_model']}")
@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize("step", range(1, 6))
def test_the_heatmap_leaves_clear_exactly_the_cells_the_step_fills(size, layout, step):
    state = ExplorerState(layout=layout, **size)
    n, d = state.n_positions, state.d_model
    cells = derived.matrix_cells(n, d, float(state.base), layout)
    sines, cosines = sines_and_cosines(d, layout)
    filled_before = {4: sines, 5: np.arange(d)}.get(step, [])
    written = {3: sines, 4: cosines, 5: np.arange(d)}.get(step, [])
    rows_written = np.arange(len(state.words) if step == 5 else n)
    in_step = np.isin(cells.rows, rows_written)[:, None] & np.isin(cells.columns, written)
    filled = np.isin(cells.columns, np.concatenate([filled_before, written]))
    expected = np.where(in_step, 0, np.where(filled, 1, 2))
    svg = cover_of(code.figure(state, step))
    np.testing.assert_array_equal(shading_drawn(svg, len(cells.rows), len(cells.columns)), expected)


def test_the_cover_lies_on_the_heatmap_cells():
    state = ExplorerState(n_positions=2048, d_model=2048)
    figure = code.figure(state, 3)
    cells = derived.matrix_cells(2048, 2048, 10000.0, "interleaved")
    image = cover_image(figure)
    stride = cells.row_stride
    assert (image["xref"], image["yref"], image["sizing"]) == ("x", "y", "stretch")
    assert (image["x"], image["sizex"]) == (-0.5, len(cells.columns))
    assert (image["y"], image["sizey"]) == (-stride / 2, len(cells.rows) * stride)
    assert f'viewBox="0 0 {len(cells.columns)} {len(cells.rows)}"' in cover_of(figure)


def outlines(figure: dict) -> list[tuple[float, ...]]:
    """The outlined boxes shown, in shown cells (x, y, width, height): a shown row j spans
    y = j … j + 1, a column c spans x = c … c + 1 (the axes put its centre at c)."""
    stride = figure["data"][0]["y"][1] - figure["data"][0]["y"][0]
    return [
        (image["x"] + 0.5, image["y"] / stride + 0.5, image["sizex"], image["sizey"] / stride)
        for image in figure["layout"]["images"]
        if image["name"].startswith("outline") and image["visible"]
    ]


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_the_outline_marks_what_the_numbers_are_about(layout):
    state = ExplorerState(layout=layout, n_positions=12, d_model=8, pos=5, text="a b c d")
    pair = code.example_pair(state)
    sin_column, cos_column = encoding.pair_columns(8, layout, pair)
    assert outlines(code.figure(state, 1)) == [(0, 5, 8, 1)]
    assert outlines(code.figure(state, 2)) == [
        (sin_column, 0, 1, 12),
        (cos_column, 0, 1, 12),
    ]
    assert outlines(code.figure(state, 3)) == [(sin_column, 5, 1, 1)]
    assert outlines(code.figure(state, 4)) == [(cos_column, 5, 1, 1)]
    assert outlines(code.figure(state, 5)) == [(0, 0, 8, 4)]


@pytest.mark.parametrize("d_model", [2, 8, 128, 2048])
@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_the_code_slices_pe_as_the_layout_does(d_model, layout):
    lines = code.code_lines(ExplorerState(d_model=d_model, layout=layout))
    written = {}
    for line in lines:
        found = re.fullmatch(r"pe\[:, ([^\]]*)\] = np\.(sin|cos)\(position \* div_term\)", line)
        if found:
            written[found[2]] = eval(f"np.s_[{found[1]}]", {"np": np, "d_model": d_model})
    columns = np.arange(d_model)
    sines, cosines = sines_and_cosines(d_model, layout)
    np.testing.assert_array_equal(columns[written["sin"]], sines)
    np.testing.assert_array_equal(columns[written["cos"]], cosines)


def test_the_code_names_the_layouts_slices():
    interleaved = code.code_lines(ExplorerState(layout="interleaved"))
    concatenated = code.code_lines(ExplorerState(layout="concatenated"))
    assert "pe[:, 0::2] = np.sin(position * div_term)" in interleaved
    assert "pe[:, 1::2] = np.cos(position * div_term)" in interleaved
    assert "pe[:, :d_model // 2] = np.sin(position * div_term)" in concatenated
    assert "pe[:, d_model // 2:] = np.cos(position * div_term)" in concatenated


def test_the_code_carries_the_states_sizes_and_base():
    lines = code.code_lines(ExplorerState(n_positions=300, d_model=64, base=500.0, text="a b c"))
    assert lines[0] == "max_len, d_model, base = 300, 64, 500.0"
    assert "seq_len = x.shape[1]  # 3: the words of the sentence" in lines


@pytest.mark.parametrize("d_model", [2, 16, 128, 2048])
@pytest.mark.parametrize("base", [10.0, 10000.0, 12345.678, 100000.0])
def test_div_term_by_exp_and_log_is_the_angular_frequency(d_model, base):
    by_code = derived.reference_div_term(d_model, base)
    pairs = np.arange(d_model // 2)
    np.testing.assert_allclose(by_code, base ** (-2.0 * pairs / d_model), rtol=1e-12, atol=0)
    np.testing.assert_allclose(
        by_code, encoding.angular_frequencies(d_model, base), rtol=1e-12, atol=0
    )


@pytest.mark.parametrize("base", [10000.0, 777.5])
def test_step_two_shows_both_numbers_and_their_difference(base):
    state = ExplorerState(d_model=128, base=base)
    pair = code.example_pair(state)
    text = code.step_html(state, 2)
    by_code, by_power = (
        float(v) for v in re.search(r"\) = ([0-9.e-]+) and .*?= ([0-9.e-]+);", text).groups()
    )
    assert by_power == encoding.angular_frequencies(128, base)[pair]
    assert by_code == derived.reference_div_term(128, base)[pair]
    assert abs(by_code - by_power) <= 1e-12
    assert f"difference {by_code - by_power:.3g}" in text


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_the_sine_and_cosine_steps_show_the_cell_they_fill(layout):
    state = ExplorerState(layout=layout, pos=9)
    pair = code.example_pair(state)
    angle = 9 * encoding.angular_frequencies(128, 10000.0)[pair]
    for step, column, value in zip(
        (3, 4),
        encoding.pair_columns(128, layout, pair),
        (np.sin(angle), np.cos(angle)),
        strict=True,
    ):
        assert f"pe[9, {column}] = " in code.step_html(state, step)
        assert f"= {value:.6f}." in code.step_html(state, step)


def test_the_last_step_broadcasts_over_a_batch_of_the_sentences_length():
    state = ExplorerState(text="the cat sat on the mat", d_model=16, n_positions=20)
    text = code.step_html(state, 5)
    x_shape, pe_shape = (code.BATCH, 6, 16), (6, 16)
    assert f"shape {x_shape}" in text and f"shape {pe_shape}" in text
    assert f"sum has shape {np.broadcast_shapes(x_shape, pe_shape)}" in text
    assert "Rows 6 … 19 of pe are not used" in text
    assert "seq_len = 0" in code.step_html(ExplorerState(text=""), 5)


@pytest.mark.parametrize("step", range(1, 6))
def test_the_code_block_highlights_the_lines_of_the_step(step):
    html_code = code.step_code_html(ExplorerState(), step)
    current = re.findall(r'data-line="(\d+)" aria-current="step">', html_code)
    assert [int(line) - 1 for line in current] == list(code.STEPS[step - 1].lines)
    assert html_code.count("pe-code-current") == len(current)
    marked = re.findall(r'<mark class="pe-code-mark">([^<]*)</mark>', html_code)
    assert marked == ([code.STEPS[0].mark] * 2 if step == 1 else [])


def test_code_and_marks_are_escaped():
    text = code.code_html([f"x = '{HOSTILE}'", "a < b & c"], (0,), HOSTILE)
    assert "<img" not in text
    assert '<mark class="pe-code-mark">&lt;img src=x onerror=alert(1)&gt;</mark>' in text
    assert "a &lt; b &amp; c" in text


def test_the_sentence_in_the_last_step_is_escaped():
    state = ExplorerState(text=f"{HOSTILE} & more")
    text = code.step_html(state, 5)
    assert "<img" not in text and "&lt;img" in text and "“&amp;”" in text


@pytest.mark.parametrize("bad", [0, 6, 2.0, True, None])
def test_a_step_outside_the_code_is_refused(bad):
    with pytest.raises(ValueError, match="step must be an integer between 1 and 5"):
        code.check_step(bad)


@pytest.mark.parametrize("bad", [0, 6, 2.5, None])
def test_the_view_refuses_a_step_outside_the_code(bad):
    with pytest.raises(ValueError):
        SPEC.make(ExplorerState()).step = bad


def next_step(view) -> int:
    """Press Next; the step shown after."""
    view._next.clicks += 1
    return view.step


def test_prev_and_next_stay_within_the_steps():
    view = SPEC.make(ExplorerState())
    assert view.step == 1
    view._prev.clicks += 1
    assert view.step == 1
    assert [next_step(view) for _ in range(6)] == [2, 3, 4, 5, 5, 5]
    assert "Step 5 of 5" in view._indicator.object
    view._prev.clicks += 1
    assert view.step == 4 and "Step 4 of 5" in view._indicator.object
    assert "pe-code-prev" in view._prev.css_classes and "pe-code-next" in view._next.css_classes
    assert "pe-code-step" in view._indicator.css_classes
    assert "step" not in ExplorerState.param


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_the_view_draws_its_step_and_the_table_figure_draws_the_first(layout):
    state = ExplorerState(layout=layout)
    view = SPEC.make(state)
    view.step = 4
    assert view.figure()["layout"]["title"]["text"].startswith("Step 4 of 5")
    assert code.figure(state)["layout"]["title"]["text"].startswith("Step 1 of 5")
    assert cover_of(view.figure()) == cover_of(code.figure(state, 4))
    assert 'data-line="6" aria-current="step"' in view._code.object


def test_stepping_sends_the_cover_and_title_not_the_matrix():
    view = SPEC.make(ExplorerState(n_positions=2048, d_model=2048))
    patcher = FigurePatcher()
    patcher.reset(view.figure())
    covers = []
    for step in (2, 3, 4, 5):
        view.step = step
        restyle, relayout, traces = patcher.patch(view.figure())
        assert (restyle, traces) == ({}, [])
        # The title, the outlines' places and, once it changes, the cover's source.
        assert "title.text" in relayout
        assert all(re.match(r"images\[[0-2]\]\.|title\.text$", path) for path in relayout)
        covers.append("images[0].source" in relayout)
    # Steps 1 and 2 fill nothing: the same cover.
    assert covers == [False, True, True, True]

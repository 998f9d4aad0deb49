"""The code, walked through: the reference implementation line by line, on the matrix it fills.

The lines are those of the PyTorch tutorial ("Language Modeling with nn.Transformer"), in NumPy,
with the state's sizes, base and layout; each step marks its lines and, on the heatmap, the
cells they fill.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from functools import partial

import numpy as np
import panel as pn
import param

from .. import derived, encoding
from ..code_templates import reference_lines, slice_code
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import pe_matrix_layout, pe_matrix_trace
from ..plotkit.frame import (
    DATA_COLUMNS,
    DATA_ROWS,
    ChartData,
    PlotView,
    indices_near,
    span_text,
)
from ..plotkit.markers import layout_image
from ..plotkit.picked_texts import filled, formatted, printed, whole, written
from ..state import ExplorerState

# The batch the last step adds pe to: this many sequences of the sentence's length.
BATCH = 2
SHOWN_WORDS = 6
# How much of the plot's colour covers cells not filled yet, and cells filled by an earlier
# step (or, at the last step, rows not added): what the current step fills stays clear.
EMPTY_COVER = 0.88
EARLIER_COVER = 0.55

STYLE = """
:host { width: 100%; overflow-x: auto; }
pre.pe-code-block { background: var(--pe-code-bg, #f6f8fa); padding: 0.6em 0; margin: 0.3em 0;
                    border-radius: 6px; overflow-x: auto; font-size: 0.88em; line-height: 1.5; }
.pe-code-line { display: inline-block; min-width: 100%; padding: 0 0.8em; box-sizing: border-box;
                border-left: 3px solid transparent; }
.pe-code-line.pe-code-current { background: rgba(230, 159, 0, 0.18); border-left-color: #E69F00; }
mark.pe-code-mark { background: rgba(230, 159, 0, 0.45); color: inherit; border-radius: 2px; }
p.pe-code-note { margin: 0.4em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


@dataclass(frozen=True)
class CodeStep:
    """One step of the walk-through: what it does, its lines of the code, and the part of them
    it is about (marked wherever it appears)."""

    title: str
    lines: tuple[int, ...]
    mark: str = ""


STEPS = (
    CodeStep(
        "position * div_term, the angle of every position and pair", (1,), "position * div_term"
    ),
    CodeStep("div_term = exp(2i · −ln(base)/d_model), which is base^(−2i/d_model)", (2,)),
    CodeStep("the sines fill their columns", (4,)),
    CodeStep("the cosines fill theirs", (5,)),
    CodeStep("x + pe[:seq_len] adds the same rows to every sequence of a batch", (6, 7)),
)
STEP_COUNT = len(STEPS)


def check_step(step: object) -> int:
    """Return step as an int, or raise ValueError unless it is one of 1 … STEP_COUNT."""
    return encoding.check_integer("step", step, 1, STEP_COUNT)


def step_label(step: int) -> str:
    """The step indicator: "Step 2 of 5"."""
    return f"Step {check_step(step)} of {STEP_COUNT}"


def seq_len(state: ExplorerState) -> int:
    """The length of the sequences the last step adds pe to: the sentence's words."""
    return len(state.words)


def code_lines(state: ExplorerState) -> list[str]:
    """The reference implementation with the state's sizes, base and layout's slicing."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    return reference_lines(n, d, base, state.layout, seq_len(state))


def code_html(lines: list[str], current: tuple[int, ...], mark: str = "") -> str:
    """The code as a block, every line escaped, the current lines highlighted and mark marked."""
    marked = html.escape(mark)
    shown = []
    for index, line in enumerate(lines):
        text = html.escape(line)
        if marked:
            text = text.replace(marked, f'<mark class="pe-code-mark">{marked}</mark>')
        is_current = index in current
        css = "pe-code-line pe-code-current" if is_current else "pe-code-line"
        aria = ' aria-current="step"' if is_current else ""
        shown.append(f'<span class="{css}" data-line="{index + 1}"{aria}>{text}</span>')
    return '<pre class="pe-code-block"><code>' + "\n".join(shown) + "</code></pre>"


def step_code_html(state: ExplorerState, step: int) -> str:
    """The code with the lines of step highlighted."""
    current = STEPS[check_step(step) - 1]
    return code_html(code_lines(state), current.lines, current.mark)


@dataclass(frozen=True)
class StepCells:
    """What a step does to pe, in full-size positions and dimensions."""

    rows: np.ndarray  # positions of the cells the step fills (the last step: adds to x)
    columns: np.ndarray  # dimensions of those cells
    filled: np.ndarray  # dimensions filled, in every row, once the step has run


def step_cells(n_positions: int, d_model: int, layout: str, length: int, step: int) -> StepCells:
    """The cells step fills: none before the sines, then the sine columns, the cosine columns,
    and at the last step the rows 0 … length − 1 that x + pe[:seq_len] adds."""
    dimensions = np.arange(encoding.check_d_model(d_model))
    sin_columns, cos_columns = encoding.pair_columns(d_model, layout)
    sines, cosines = dimensions[sin_columns], dimensions[cos_columns]
    every_row = np.arange(encoding.check_n_positions(n_positions))
    nothing = np.arange(0)
    step = check_step(step)
    if step <= 2:
        return StepCells(nothing, nothing, nothing)
    if step == 3:
        return StepCells(every_row, sines, sines)
    if step == 4:
        return StepCells(every_row, cosines, dimensions)
    return StepCells(np.arange(min(length, n_positions)), dimensions, dimensions)


def example_pair(state: ExplorerState) -> int:
    """The pair i the readout follows: halfway along the pairs, one the heatmap shows."""
    _, pair_stride = derived.display_strides(state.n_positions, state.d_model)
    return (state.d_model // 4) // pair_stride * pair_stride


@dataclass(frozen=True)
class Cover:
    """The heatmap's cells by what a step did to them, as the heatmap shows them (strided):
    a region is a product of shown rows and shown columns."""

    empty: tuple[tuple[np.ndarray, np.ndarray], ...]  # not filled yet
    earlier: tuple[tuple[np.ndarray, np.ndarray], ...]  # filled, but not by this step

    def shading(self, rows: int, columns: int) -> np.ndarray:
        """0 for cells the step fills, 1 for earlier ones, 2 for empty ones: rows × columns."""
        shade = np.zeros((rows, columns), dtype=np.int8)
        for level, regions in ((1, self.earlier), (2, self.empty)):
            for row_mask, column_mask in regions:
                shade[np.ix_(row_mask, column_mask)] = level
        return shade


def cover(cells: derived.MatrixCells, filled: StepCells) -> Cover:
    """Which shown cells a step leaves empty, which it finds filled, which it fills itself."""
    every_row = np.ones(len(cells.rows), dtype=bool)
    filled_columns = np.isin(cells.columns, filled.filled)
    step_columns = np.isin(cells.columns, filled.columns)
    step_rows = np.isin(cells.rows, filled.rows)
    return Cover(
        empty=((every_row, ~filled_columns),),
        earlier=((every_row, filled_columns & ~step_columns), (~step_rows, step_columns)),
    )


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each run of True in a 1-D boolean array."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return [(int(start), int(stop)) for start, stop in zip(edges[::2], edges[1::2], strict=True)]


def region_path(row_mask: np.ndarray, column_mask: np.ndarray) -> str:
    """An SVG path of the cells in the product of two masks, one rectangle per pair of runs."""
    return "".join(
        f"M{c0} {r0}h{c1 - c0}v{r1 - r0}h{c0 - c1}z"
        for r0, r1 in runs(row_mask)
        for c0, c1 in runs(column_mask)
    )


def outline_boxes(
    state: ExplorerState, cells: derived.MatrixCells, step: int, pos=None
) -> list[tuple]:
    """(x, y, width, height) of what the readout's numbers are about, in shown cells (a shown
    row j spans y = j … j + 1, position p is centred at y = p / row_stride + 0.5), at the
    state's pos or at pos (an array of positions: y, where pos moves it, an array)."""
    stride = cells.row_stride
    width = len(cells.columns)
    pair = example_pair(state)
    sin_column, cos_column = encoding.pair_columns(state.d_model, state.layout, pair)
    at = {int(c): index for index, c in enumerate(cells.columns)}
    row_top = (state.pos if pos is None else pos) / stride
    if step == 1:
        return [(0, row_top, width, 1)]
    if step == 2:
        return [(at[sin_column], 0, 1, len(cells.rows)), (at[cos_column], 0, 1, len(cells.rows))]
    if step in (3, 4):
        return [(at[sin_column if step == 3 else cos_column], row_top, 1, 1)]
    length = min(seq_len(state), state.n_positions)
    return [(0, 0, width, (length - 0.5) / stride + 0.5)] if length else []


def cover_source(state: ExplorerState, cells: derived.MatrixCells, step: int) -> str:
    """The cover of a step as one SVG (a data URI) over the whole heatmap: each shown cell is a
    unit square, stretched with the plot, so a zoom keeps it on its cells."""
    palette = theme.colours(state.theme)
    shown = cover(
        cells, step_cells(state.n_positions, state.d_model, state.layout, seq_len(state), step)
    )
    rows, columns = len(cells.rows), len(cells.columns)
    paths = []
    for regions, opacity in ((shown.earlier, EARLIER_COVER), (shown.empty, EMPTY_COVER)):
        d = "".join(region_path(r, c) for r, c in regions if r.any() and c.any())
        if d:
            paths.append(
                f'<path d="{d}" fill="{palette["plot"]}" fill-opacity="{opacity}" '
                'shape-rendering="crispEdges"/>'
            )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {columns} {rows}" '
        f'preserveAspectRatio="none">{"".join(paths)}</svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


# The readout's numbers are about at most this many boxes (step 2: a sine and a cosine column).
OUTLINES = 2
# Where an outline a step does not use waits, hidden (the figure keeps its images whatever pos).
UNUSED_BOX = (0, 0, 1, 1)


def outline_place(box: tuple, stride: int) -> dict:
    """Where the outline image of box (outline_boxes: shown cells) lies on the axes; its
    numbers are arrays where the box's are."""
    x, y, width, height = box
    return {"x": x - 0.5, "y": (y - 0.5) * stride, "sizex": width, "sizey": height * stride}


def outline_places(state: ExplorerState, cells: derived.MatrixCells, step: int, pos=None):
    """The OUTLINES outline images' places and whether each is shown, at pos (outline_boxes)."""
    boxes = outline_boxes(state, cells, step, pos)
    shown = [index < len(boxes) for index in range(OUTLINES)]
    boxes = [*boxes, *[UNUSED_BOX] * (OUTLINES - len(boxes))]
    return [outline_place(box, cells.row_stride) for box in boxes], shown


def outline_images(state: ExplorerState, cells: derived.MatrixCells, step: int) -> list[dict]:
    """What the readout's numbers are about, outlined: layout images that Plotly moves without
    redrawing the heatmap when pos moves them."""
    source = theme.outline_source(theme.colours(state.theme)["pos"])
    places, shown = outline_places(state, cells, step)
    return [
        layout_image(
            source,
            ("x", "y"),
            f"outline {index + 1}",
            xanchor="left",
            yanchor="top",
            visible=visible,
            **{key: float(value) for key, value in place.items()},
        )
        for index, (place, visible) in enumerate(zip(places, shown, strict=True))
    ]


def figure(state: ExplorerState, step: int = 1) -> dict:
    """The PE matrix with the cells step fills clear and the rest covered (step 1 by default),
    and what the step's numbers are about outlined."""
    step = check_step(step)
    n, d = state.n_positions, state.d_model
    cells = derived.matrix_cells(n, d, float(state.base), state.layout)
    title = f"{step_label(step)}: {STEPS[step - 1].title}"
    layout = pe_matrix_layout(state, cells, cells.labels, title, f"code-{n}-{d}")
    # One image covers the matrix: a new step replaces its source, not the heatmap.
    cover_image = layout_image(
        cover_source(state, cells, step),
        ("x", "y"),
        "cover",
        x=-0.5,
        y=-0.5 * cells.row_stride,
        sizex=len(cells.columns),
        sizey=len(cells.rows) * cells.row_stride,
        xanchor="left",
        yanchor="top",
    )
    layout.update(images=[cover_image, *outline_images(state, cells, step)])
    trace = pe_matrix_trace(
        cells,
        cells.labels,
        hovertemplate="pos %{y}<br>%{x}<br>value %{z:.6f}<extra></extra>",
    )
    return {"data": [trace], "layout": layout}


def _columns_text(columns: np.ndarray) -> str:
    if columns.size <= 4:
        return ", ".join(str(c) for c in columns)
    return ", ".join(str(c) for c in columns[:3]) + f", …, {columns[-1]}"


def _angle_text(state: ExplorerState, pair: int, *, pos: str, angle: str, **_: str) -> str:
    """Step 1: position * div_term broadcast to the angle of every position and pair."""
    n, d = state.n_positions, state.d_model
    omega = derived.angular_frequencies(d, float(state.base))[pair]
    shape = np.broadcast_shapes((n, 1), (d // 2,))
    return (
        f"position has shape ({n}, 1) and div_term ({d // 2},): NumPy broadcasts the product "
        f"to shape {shape}, the angle pos·ω<sub>i</sub> of every position and pair. At "
        f"<i>i</i> = {pair}, pos = {pos}: {pos} × {omega:.6g} = {angle} rad."
    )


def _div_term_text(state: ExplorerState, pair: int) -> str:
    """Step 2: div_term by exp and log is ω_i, to rounding."""
    d, base = state.d_model, float(state.base)
    omega = derived.angular_frequencies(d, base)[pair]
    by_code = derived.reference_div_term(d, base)[pair]
    return (
        "Since exp(t · ln b) = b<sup>t</sup>, div_term[<i>i</i>] = exp(2<i>i</i> · (−ln base / "
        "d_model)) is ω<sub>i</sub> = base<sup>−2<i>i</i>/d_model</sup>. For <i>i</i> = "
        f"{pair}: exp({2 * pair} · (−ln {base:.12g} / {d})) = {by_code:.17g} and "
        f"{base:.12g}<sup>−{2 * pair}/{d}</sup> = {omega:.17g}; difference "
        f"{by_code - omega:.3g} (rounding)."
    )


def _fill_text(
    state: ExplorerState, pair: int, step: int, *, pos: str, angle: str, **values: str
) -> str:
    """Steps 3 and 4: the sine or cosine columns filled, and the cell of pos and pair i (values:
    its sine and cosine, sin_value and cos_value)."""
    d = state.d_model
    name = "sin" if step == 3 else "cos"
    columns_slice = encoding.pair_columns(d, state.layout)[step - 3]
    columns = np.arange(d)[columns_slice]
    column = encoding.pair_columns(d, state.layout, pair)[step - 3]
    return (
        f"np.{name}(position * div_term) fills pe[:, {slice_code(columns_slice, d)}]: columns "
        f"{_columns_text(columns)} ({columns.size} columns, one per pair <i>i</i>), in every "
        f"row. At <i>i</i> = {pair}, pos = {pos}: pe[{pos}, {column}] = {name}({angle}) = "
        f"{values[f'{name}_value']}."
    )


def _batch_text(state: ExplorerState) -> str:
    """Step 5: x + pe[:seq_len] broadcast over a batch of the sentence's length."""
    n, d = state.n_positions, state.d_model
    length = min(seq_len(state), n)
    if not length:
        return (
            "The sentence is empty, so seq_len = 0 and pe[:0] adds nothing: type a sentence to "
            "see it added."
        )
    x_shape, pe_shape = (BATCH, length, d), (length, d)
    words = ", ".join(f"“{html.escape(w)}”" for w in state.words[:SHOWN_WORDS])
    more = ", …" if length > SHOWN_WORDS else ""
    text = (
        f"x holds a batch of {BATCH} sequences of seq_len = {length} tokens (the first is the "
        f"sentence: {words}{more}), shape {x_shape}. pe[:seq_len] has shape {pe_shape}: "
        "NumPy lines the shapes up from the right and repeats it for every sequence, so the "
        f"sum has shape {np.broadcast_shapes(x_shape, pe_shape)} and token j of every "
        "sequence gets PE(j)."
    )
    return text + (f" Rows {length} … {n - 1} of pe are not used." if length < n else "")


def step_text(state: ExplorerState, step: int, **numbers: str) -> str:
    """What the step computes, with its numbers for pos and the example pair i (numbers:
    step_numbers' printed); words escaped."""
    pair = example_pair(state)
    if step == 1:
        text = _angle_text(state, pair, **numbers)
    elif step == 2:
        text = _div_term_text(state, pair)
    elif step in (3, 4):
        text = _fill_text(state, pair, step, **numbers)
    else:
        text = _batch_text(state)
    return f'<p class="pe-code-note">{text}</p>'


def step_numbers(state: ExplorerState, positions) -> dict[str, list[str]]:
    """The numbers the texts print at each pos of positions: the angle pos·ω_i of the example
    pair, the sine and cosine the matrix holds for it, and the sine as the name prints it."""
    d, base = state.d_model, float(state.base)
    pair = example_pair(state)
    positions = np.asarray(positions)
    matrix = derived.pe_matrix(state.n_positions, d, base, state.layout)
    sin_column, cos_column = encoding.pair_columns(d, state.layout, pair)
    return {
        "pos": whole(positions),
        "angle": formatted(positions * derived.angular_frequencies(d, base)[pair], ".6g"),
        "sin_value": formatted(matrix[positions, sin_column], ".6f"),
        "cos_value": formatted(matrix[positions, cos_column], ".6f"),
        "value": printed(matrix[positions, sin_column]),
    }


def step_html(state: ExplorerState, step: int) -> str:
    """What the step computes, with its numbers for pos and the example pair i; words escaped."""
    write = partial(step_text, state, check_step(step))
    return written(write, **step_numbers(state, [state.pos]))


class CodeView(PlotView):
    """The reference code, a step at a time (Prev, Next), its lines and its cells highlighted."""

    # The step is the visitor's place in this view: not URL state.
    step = param.Integer(1, bounds=(1, STEP_COUNT), doc="The step of the code shown (1 … 5).")

    def __init__(self, **params):
        super().__init__(**params)
        self._prev, self._next = self.step_buttons("code", {"prev": "Prev", "next": "Next"})
        self._prev.on_click(lambda event: self.step_by(-1))
        self._next.on_click(lambda event: self.step_by(1))
        self.param.watch(self._step_changed, "step")

    def extra_panes(self) -> list:
        """The code and the step's numbers (above the plot, see content)."""
        self._indicator = self.step_indicator(self._indicator_html(), "pe-code-step")
        self._code = self.text_pane(STYLE, (0, 8), "pe-code-lines")
        self._readout = self.text_pane(STYLE, (0, 8), "pe-code-readout")
        return [self._code, self._readout]

    def update_extras(self) -> None:
        self._code.object = step_code_html(self.state, self.step)
        self._readout.object = step_html(self.state, self.step)

    def own_arguments(self) -> tuple:
        return (self.step,)

    def _indicator_html(self) -> str:
        return f'<span class="pe-code-step-text" aria-live="polite">{step_label(self.step)}</span>'

    def step_by(self, delta: int) -> None:
        """Go delta steps on (Next: 1, Prev: −1), staying within 1 … STEP_COUNT."""
        self.step = min(max(self.step + delta, 1), STEP_COUNT)

    def _step_changed(self, event) -> None:
        self._indicator.object = self._indicator_html()
        self._refresh()

    def content(self) -> pn.Column:
        stepper = self.step_bar("pe-code-controls", self._prev, self._next, self._indicator)
        # The buttons in a column of their own: the chart's siblings are the panes a drag of
        # pos changes, where the page's picker finds them (plotkit/picks.py).
        return pn.Column(
            pn.Column(stepper, sizing_mode="stretch_width", margin=0),
            self._code,
            self._readout,
            self._error,
            self._plot,
            self._data,
            sizing_mode="stretch_width",
        )


def describe_text(state: ExplorerState, step: int, *, pos: str, value: str, **_: str) -> str:
    """The chart's accessible name: the step, the matrix and the cell the readout follows."""
    n, d = state.n_positions, state.d_model
    column = encoding.pair_columns(d, state.layout, example_pair(state))[0]
    filled_columns = step_cells(n, d, state.layout, seq_len(state), step).filled.size
    return (
        f"{step_label(step)}, {STEPS[step - 1].title}: PE matrix, {n} positions by {d} "
        f"dimensions, {filled_columns} columns filled; pe[{pos}, {column}] = {value}"
    )


def caption_text(step: int, *, pos: str, **_: str) -> str:
    """The Show data table's caption."""
    return f"pe[pos, dimension] near pos = {pos}, after {step_label(step).lower()}"


def describe(state: ExplorerState, step: int = 1) -> str:
    """The chart's accessible name: the step, the matrix and the cell the readout follows."""
    write = partial(describe_text, state, check_step(step))
    return written(write, **step_numbers(state, [state.pos]))


def data(state: ExplorerState, step: int = 1) -> ChartData:
    """The rows of pe near pos, the first DATA_COLUMNS dimensions, "–" where the step has not
    filled a cell yet."""
    step = check_step(step)
    n, d, pos = state.n_positions, state.d_model, state.pos
    rows = indices_near(pos, n, DATA_ROWS)
    columns = range(min(d, DATA_COLUMNS))
    matrix = derived.shown_pe_matrix(state)
    filled_columns = set(step_cells(n, d, state.layout, seq_len(state), step).filled.tolist())
    return ChartData(
        caption=written(partial(caption_text, step), pos=str(pos)),
        columns=("pos", *(f"dim {c}" for c in columns)),
        rows=tuple(
            (r, *(matrix[r, c] if c in filled_columns else float("nan") for c in columns))
            for r in rows
        ),
        note=f"Rows {span_text(rows)} of {n} and dimensions {span_text(columns)} of {d} shown, "
        "near pos; – marks a cell not filled yet.",
    )


# ---- What a drag of pos moves (plotkit/picks.py) -------------------------------------------


def outline_updates(state: ExplorerState, step: int, positions: np.ndarray) -> list:
    """The outline images at each pos of positions (those a step draws at pos move)."""
    cells = derived.matrix_cells(state.n_positions, state.d_model, float(state.base), state.layout)
    places, shown = outline_places(state, cells, step, positions)
    count, updates = len(positions), []
    for index, (place, visible) in enumerate(zip(places, shown, strict=True), start=1):
        for key, value in place.items():
            each = np.full(count, value, dtype=np.float64) if np.ndim(value) == 0 else value * 1.0
            updates.append(picks_kit.Update("layout", f"images[{index}].{key}", each=each))
        updates.append(
            picks_kit.Update("layout", f"images[{index}].visible", each=(visible,) * count)
        )
    return updates


def picks(state: ExplorerState, step: int = 1) -> picks_kit.Picks:
    """What a drag of pos moves: the outlines, the name, the caption and the step's numbers."""
    step = check_step(step)
    moved = picks_kit.moved_positions(state)[0]
    count, numbers = moved.count, step_numbers(state, moved.firsts)
    updates = [
        *outline_updates(state, step, moved.firsts),
        picks_kit.Update(
            "label", text=filled(count, partial(describe_text, state, step), **numbers)
        ),
        picks_kit.Update("caption", text=filled(count, partial(caption_text, step), **numbers)),
        picks_kit.Update(
            "pane",
            "pe-code-readout",
            text=filled(count, partial(step_text, state, step), **numbers),
        ),
    ]
    return picks_kit.Picks({}, (moved.picks(updates),))

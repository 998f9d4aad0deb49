"""Heatmap of the PE matrix (positions × dimensions) with the rows pos and pos + k marked.

A cell's hover label shows its formula with its own numbers; a click or tap shows it in full
under the plot (HeatmapView).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import derived, encoding, formula
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import pe_matrix_layout, pe_matrix_trace
from ..plotkit.frame import (
    DATA_COLUMNS,
    DATA_ROWS,
    ChartData,
    PlotView,
    indices_near,
    pe_table,
)
from ..plotkit.numbers import number
from ..state import ExplorerState

# Decimals of the angle and value in the hover label and the formula under the plot.
DIGITS = 4
# A heatmap's hover has per-column text only in its x category, so each column's label holds
# its dimension, pair, wavelength and formula, ending in its function's name for the cell's
# angle to follow: "pos 7 · dim 6 · pair i = 3 · wavelength 9.7" and, on a second line,
# "PE(pos, 6) = sin(pos / 10000^(6/128)) = sin(4.5457) = -0.9861" (Plotly's minus is "-").
HOVERTEMPLATE = (
    f"pos %{{y}} · %{{x}}(%{{customdata[0]:.{DIGITS}f}}) = %{{customdata[1]:.{DIGITS}f}}"
    "<extra></extra>"
)
# The cell the formula under the plot shows before any click, at row pos: the worked
# example PE(7, 6), whose exponent 6/d_model is not 0 as dimension 0's is.
EXAMPLE_DIMENSION = 6
HINT = '<p class="pe-cell-hint">Click or tap a cell to see its formula. For example:</p>'
FORMULA_STYLE = """
:host { width: 100%; overflow-x: auto; }
p.pe-cell-hint { margin: 0.3em 0 0; line-height: 1.45; }
p.pe-cell-formula-text { margin: 0.3em 0; line-height: 1.45; font-variant-numeric: tabular-nums; }
.pe-cell-equation { font-weight: 600; }
"""


def row_marker(position: float, half_height: float, colour: str, dash: str) -> dict:
    """A rectangle around one row of the heatmap, spanning every column.

    It is a layout image, not a shape: Plotly recomputes and redraws the whole heatmap when a
    shape moves (shape positions can change the axis ranges), but only moves an image. A step
    of pos then costs one small relayout at any matrix size.
    """
    return {
        "source": theme.outline_source(colour, "2 3" if dash == "dot" else ""),
        "xref": "paper",
        "yref": "y",
        "x": 0,
        "y": position,
        "sizex": 1,
        "sizey": 2 * half_height,
        "sizing": "stretch",
        "xanchor": "left",
        "yanchor": "middle",
        "layer": "above",
        "name": "pos" if dash == "solid" else "pos+k",
    }


def below_note(second: int, n: int) -> dict:
    """The note under the heatmap when pos + k lies beyond its rows (hidden otherwise: the figure
    keeps one layout, so that a pick moves markers and never adds or removes one)."""
    return {
        "text": below_text(second, n),
        "visible": second >= n,
        "xref": "paper",
        "yref": "paper",
        "x": 1,
        "y": -0.08,
        "xanchor": "right",
        "showarrow": False,
        "font": {"size": 12},
    }


def below_text(second: int, n: int) -> str:
    """The note's text (while hidden, one that does not change with the positions)."""
    shown = f"pos + k = {second}" if second >= n else "pos + k"
    return f"{shown} is below the {n} rows shown"


def second_row(second: int, n: int) -> int:
    """Where the dotted marker of pos + k sits: its row, or (hidden) the last row."""
    return min(second, n - 1)


def figure(state: ExplorerState) -> dict:
    """The heatmap figure for the state."""
    n, d = state.n_positions, state.d_model
    cells = derived.matrix_cells(n, d, float(state.base), state.layout)
    hover = derived.hover_cells(n, d, float(state.base), state.layout)
    palette = theme.colours(state.theme)
    half = 0.5 * cells.row_stride
    second = state.second_pos
    dotted = row_marker(second_row(second, n), half, palette["second"], "dot")
    dotted["visible"] = second < n
    markers = [row_marker(state.pos, half, palette["pos"], "solid"), dotted]
    title = f"PE matrix: {n} positions × {d} dimensions ({state.layout})"
    layout = pe_matrix_layout(state, cells, hover.labels, title, f"heatmap-{n}-{d}")
    layout.update(images=markers, annotations=[below_note(second, n)])
    trace = pe_matrix_trace(
        cells, hover.labels, customdata=hover.customdata, hovertemplate=HOVERTEMPLATE
    )
    return {"data": [trace], "layout": layout}


def example_dimension(d_model: int) -> int:
    """The dimension of the example formula: EXAMPLE_DIMENSION, or the last one below it."""
    return min(EXAMPLE_DIMENSION, d_model - 1)


class HeatmapView(PlotView):
    """The heatmap, and under it the formula of the cell last clicked or tapped.

    Before any click it shows the example cell (pos, EXAMPLE_DIMENSION) with a hint. A clicked
    cell stays until pos moves: then the formula follows pos in the clicked column, as it does
    when the sequence no longer has the clicked row. A d_model without the clicked dimension
    brings the example back.
    """

    def __init__(self, **params):
        self._clicked: tuple[int, int] | None = None  # (pos, dimension) of the last click
        self._pos_at_click = 0
        super().__init__(**params)
        self._plot.param.watch(self._cell_clicked, "click_data")

    def extra_panes(self) -> list:
        """The formula of a cell, under the plot."""
        self._formula = self.text_pane(FORMULA_STYLE, css_class="pe-cell-formula")
        return [self._formula]

    def update_extras(self) -> None:
        """Move the clicked cell with the state (see the class), then show its formula."""
        state = self.state
        if self._clicked is not None:
            pos, dimension = self._clicked
            if dimension >= state.d_model:
                self._clicked = None
            elif state.pos != self._pos_at_click or pos >= state.n_positions:
                self._clicked, self._pos_at_click = (state.pos, dimension), state.pos
        self._formula.object = self.formula_html()

    def formula_html(self) -> str:
        """The formula of the clicked cell, or the hint and the example cell's formula."""
        state = self.state
        if self._clicked is None:
            (pos, dimension), hint = (state.pos, example_dimension(state.d_model)), HINT
        else:
            (pos, dimension), hint = self._clicked, ""
        cell = formula.cell_formula(pos, dimension, state.d_model, state.base, state.layout)
        return hint + cell.html(DIGITS)

    def clicked_cell(self, click_data: dict | None) -> tuple[int, int] | None:
        """(pos, dimension) of the cell a Plotly click reports, None for anything else."""
        points = (click_data or {}).get("points") or [{}]
        point = points[0] if isinstance(points[0], dict) else {}
        label, pos = point.get("x"), point.get("y")
        state = self.state
        hover = derived.hover_cells(
            state.n_positions, state.d_model, float(state.base), state.layout
        )
        dimension = hover.dimensions.get(label) if isinstance(label, str) else None
        if (
            dimension is None
            or isinstance(pos, bool)
            or not isinstance(pos, int | float)
            or not 0 <= pos < state.n_positions
            or pos != int(pos)
        ):
            return None
        return int(pos), dimension

    def _cell_clicked(self, event) -> None:
        # A click is not state (it is in no URL): it changes only this view's formula.
        cell = self.clicked_cell(event.new)
        if cell is None:
            return
        self._clicked, self._pos_at_click = cell, self.state.pos
        self._formula.object = self.formula_html()
        # The picks' formula follows the clicked column now (the page would put the example's
        # back at the next step otherwise).
        if not self.picks_held:
            self._show_picks(self.picks())

    def pick_arguments(self) -> tuple:
        """The formula as this view shows it: in the clicked column (or the example's), and at
        pos as drawn now, the formula shown (a clicked cell's own row)."""
        dimension, hint = example_dimension(self.state.d_model), HINT
        if self._clicked is not None:
            dimension, hint = self._clicked[1], ""
        shown, pos = self.formula_html(), self.state.pos

        def formula_at(positions):
            texts = formula_texts(self.state, positions, dimension)
            pairs = zip(positions, texts, strict=True)
            return picks_kit.compressed([shown if p == pos else hint + t for p, t in pairs])

        return (formula_at,)


def describe(state: ExplorerState) -> str:
    """The heatmap's accessible name: its size, the rows marked and the example cell's value."""
    n, d, pos, second = state.n_positions, state.d_model, state.pos, state.second_pos
    cell = formula.cell_formula(pos, example_dimension(d), d, state.base, state.layout)
    marked = f"row pos + k = {second} dotted" if second < n else f"pos + k = {second} below"
    return (
        f"PE matrix, {n} positions by {d} dimensions ({state.layout}), row {pos} highlighted, "
        f"{marked}; PE({pos}, {cell.dimension}) = {number(cell.value)}"
    )


def data(state: ExplorerState) -> ChartData:
    """The rows of the PE matrix near pos, the first DATA_COLUMNS dimensions."""
    n, d, pos = state.n_positions, state.d_model, state.pos
    rows = indices_near(pos, n, DATA_ROWS)
    columns = range(min(d, DATA_COLUMNS))
    matrix = derived.shown_pe_matrix(state)
    caption = f"PE(pos, dimension) near pos = {pos} ({state.layout})"
    return pe_table(
        caption, matrix, rows, columns, f", near pos = {pos}; Export has the whole matrix."
    )


def marked_text(second: int, n: int) -> str:
    """How the accessible name tells where pos + k is."""
    return f"row pos + k = {second} dotted" if second < n else f"pos + k = {second} below"


def formula_texts(state: ExplorerState, positions, dimension: int) -> tuple[str, ...]:
    """The formula under the plot at each position, in the example (or clicked) dimension: one
    cell's formula with each position's angle (the product encode_positions takes) and value."""
    first = formula.cell_formula(
        int(positions[0]), dimension, state.d_model, state.base, state.layout
    )
    frequency = encoding.angular_frequencies(state.d_model, state.base)[first.pair]
    column = derived.shown_pe_matrix(state)[:, dimension]
    texts = {}
    for pos in dict.fromkeys(int(p) for p in positions):
        cell = dataclasses.replace(
            first, pos=pos, angle=float(pos * frequency), value=float(column[pos])
        )
        texts[pos] = cell.html(DIGITS)
    return tuple(texts[int(pos)] for pos in positions)


def axis_updates(state: ExplorerState, moved: picks_kit.Moved, formulas: str) -> list:
    """The markers, the note below, the name and the caption at each value of one axis."""
    n, d, count = state.n_positions, state.d_model, moved.count
    firsts, seconds = moved.firsts, moved.seconds
    example = example_dimension(d)
    values = derived.shown_pe_matrix(state)[firsts, example]
    label = picks_kit.joined(
        count,
        f"PE matrix, {n} positions by {d} dimensions ({state.layout}), row ",
        picks_kit.whole(firsts),
        " highlighted, ",
        [marked_text(int(second), n) for second in seconds],
        "; PE(",
        picks_kit.whole(firsts),
        f", {example}) = ",
        picks_kit.numbers(values),
    )
    below = picks_kit.compressed([below_text(int(second), n) for second in seconds])
    return [
        picks_kit.Update("layout", "images[0].y", each=firsts.astype(np.float64)),
        picks_kit.Update("layout", "images[1].y", each=np.minimum(seconds, n - 1).astype(float)),
        picks_kit.Update("layout", "images[1].visible", each=tuple(bool(s < n) for s in seconds)),
        picks_kit.Update(
            "layout", "annotations[0].visible", each=tuple(bool(s >= n) for s in seconds)
        ),
        picks_kit.Update("layout", "annotations[0].text", text=below),
        picks_kit.Update("label", text=label),
        picks_kit.Update(
            "caption",
            text=picks_kit.joined(
                count,
                "PE(pos, dimension) near pos = ",
                picks_kit.whole(firsts),
                f" ({state.layout})",
            ),
        ),
        picks_kit.Update("pane", "pe-cell-formula", text=formulas),
    ]


def picks(state: ExplorerState, formula_at=None) -> picks_kit.Picks:
    """What a drag of pos or k moves: the markers, the note below, the name, the caption and the
    formula under the plot (formula_at(positions): its text at each; the example cell's, with
    the hint, unless a view passes its clicked cell's)."""
    if formula_at is None:
        dimension = example_dimension(state.d_model)

        def formula_at(positions):
            return picks_kit.joined(
                len(positions), HINT, formula_texts(state, positions, dimension)
            )

    axes = []
    for moved in picks_kit.moved_positions(state):
        formulas = formula_at(moved.firsts)
        axes.append(moved.picks(axis_updates(state, moved, formulas)))
    return picks_kit.Picks({}, tuple(axes))

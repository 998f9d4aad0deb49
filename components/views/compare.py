"""Comparison of PE(pos) and PE(pos + k): both vectors, and how they relate."""

from __future__ import annotations

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import DATA_COLUMNS, ChartData, span_text
from ..plotkit.numbers import number, readout_number
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

# Beyond this many dimensions the bars are under 2 px wide; a filled step line looks the same
# and Plotly redraws it several times faster (benchmarks/RESULTS.md).
MAX_BARS = 256

# The readout's columns, also each cell's label when a phone lists a row's cells one per line.
COLUMNS = ("dot product", "cosine similarity", "Euclidean distance")
# On a narrow screen each row is a block: its pair, then one line per number with its column's
# name.
READOUT_STYLE = theme.READOUT_TABLE_STYLE + theme.rows_as_blocks_style("pe-readouts")


def _comparison_cells(comparison, classes: tuple[str, ...] = ("", "", "")) -> str:
    """The dot product, cosine similarity and distance as table cells, with classes (the live
    pair's, which the page's tests read)."""
    cells = []
    values = (comparison.dot, comparison.cosine, comparison.distance)
    for name, column, value in zip(classes, COLUMNS, values, strict=True):
        attribute = f' class="{name}"' if name else ""
        cells.append(
            f'<td role="cell" data-label="{column}"{attribute}>{readout_number(value)}</td>'
        )
    return "".join(cells)


def _row(css_class: str, pair: str, comparison, classes: tuple[str, ...] = ("", "", "")) -> str:
    """One row of the readout: the pair (trusted HTML) and its three numbers."""
    return (
        f'<tr class="{css_class}" role="row"><th scope="row" role="rowheader">{pair}</th>'
        f"{_comparison_cells(comparison, classes)}</tr>"
    )


def readout(state: ExplorerState) -> str:
    """The readout table (numbers only; nothing a visitor typed is ever put in it)."""
    shown = derived.offset_comparisons(state)
    current, *others = shown.pairs
    live = ("pe-readout-dot", "pe-readout-cosine", "pe-readout-distance")
    rows = [
        _row("pe-current", f"PE({current.first}) · PE({current.second})", current.comparison, live),
        *(
            _row("pe-other", f"PE({pair.first}) · PE({pair.second})", pair.comparison)
            for pair in others
        ),
        _row("pe-closed-form", "from k alone: D(k) = Σ cos(k·ω<sub>i</sub>)", shown.from_offset),
    ]
    head = "".join(f'<th scope="col" role="columnheader">{c}</th>' for c in ("positions", *COLUMNS))
    return (
        '<table class="pe-readouts" role="table">'
        f'<caption class="pe-pos-readout">pos = {state.pos} · pos + k = {state.second_pos} '
        f"· k = {state.offset}</caption>"
        f'<thead role="rowgroup"><tr role="row">{head}</tr></thead>'
        f'<tbody role="rowgroup">{"".join(rows)}</tbody></table>'
        '<p class="pe-note">Every pair k positions apart gives the same three numbers: '
        "PE(pos + k) is PE(pos) rotated by angles k·ω<sub>i</sub> that do not depend on pos.</p>"
    )


def vector_subplot(state: ExplorerState, row: int, values: np.ndarray) -> Subplot:
    """Row 0: PE(pos), row 1: PE(pos + k), over the dimensions (the dimension axis below)."""
    position = (state.pos, state.second_pos)[row]
    colour = theme.PAIR_COLOURS[row]
    trace = {
        "x": np.arange(state.d_model),
        "y": values,
        "name": f"PE({position})",
        "hovertemplate": f"PE({position})<br>dim %{{x}}<br>%{{y:.6f}}<extra></extra>",
    }
    if state.d_model <= MAX_BARS:
        trace.update(type="bar", marker={"color": colour, "line": {"width": 0}})
    else:
        trace.update(
            type="scatter",
            mode="lines",
            line={"color": colour, "shape": "hvh", "width": 1},
            fill="tozeroy",
            fillcolor=colour,
        )
    if row == 0:
        x_axis = {"matches": "x2", "showticklabels": False}
        title = {"text": "PE(pos)", "font": {"color": theme.colours(state.theme)["text"]}}
    else:
        x_axis, title = {"title": {"text": "dimension"}}, {"text": "PE(pos + k)"}
    y_axis = {"range": [-1.05, 1.05], "title": title}
    domain = ((0.0, 1.0), (0.55, 1.0) if row == 0 else (0.0, 0.45))
    return Subplot([trace], x_axis, y_axis, domain)


def figure(state: ExplorerState) -> dict:
    """PE(pos) and PE(pos + k) as bars over the dimensions (a filled step line when there are
    many), one above the other."""
    # Which positions stays in the legend and the readout, so that a step of pos or k
    # changes only the traces (one restyle, one redraw).
    title = f"PE(pos) and PE(pos + k) over the {state.d_model} dimensions"
    layout = titled_layout(state, f"compare-{state.d_model}", title)
    layout.update(
        bargap=0.05,
        legend={"orientation": "h", "y": -0.2, "x": 0},
        margin={"l": 72, "r": 24, "t": 48, "b": 80},
    )
    rows = [vector_subplot(state, row, values) for row, values in enumerate(derived.pe_pair(state))]
    return compose(state, layout, rows)


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the two positions and how they compare."""
    current = derived.offset_comparisons(state).pairs[0]
    return (
        f"PE({current.first}) and PE({current.second}) over the {state.d_model} dimensions, "
        f"k = {state.offset}: dot product {number(current.comparison.dot)}, cosine similarity "
        f"{number(current.comparison.cosine)}, distance {number(current.comparison.distance)}"
    )


def data(state: ExplorerState) -> ChartData:
    """The first DATA_COLUMNS dimensions of PE(pos) and PE(pos + k)."""
    first, second = derived.pe_pair(state)
    dimensions = range(min(state.d_model, DATA_COLUMNS))
    return ChartData(
        caption=f"PE({state.pos}) and PE({state.second_pos}) by dimension",
        columns=("dimension", f"PE({state.pos})", f"PE({state.second_pos})"),
        rows=tuple((c, first[c], second[c]) for c in dimensions),
        note=f"Dimensions {span_text(dimensions)} of {state.d_model} shown; "
        "Export has the whole vectors.",
    )

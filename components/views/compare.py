"""Comparison of PE(pos) and PE(pos + k): both vectors, and how they relate."""

from __future__ import annotations

import functools

import numpy as np

from .. import derived, encoding
from ..plotkit import picks as picks_kit
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
    return readout_of(state.offset, derived.offset_comparisons(state))


def readout_of(offset: int, shown: derived.OffsetComparisons) -> str:
    """The readout table of the pairs k = offset apart in shown."""
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
        f'<caption class="pe-pos-readout">pos = {current.first} · pos + k = {current.second} '
        f"· k = {offset}</caption>"
        f'<thead role="rowgroup"><tr role="row">{head}</tr></thead>'
        f'<tbody role="rowgroup">{"".join(rows)}</tbody></table>'
        '<p class="pe-note">Every pair k positions apart gives the same three numbers: '
        "PE(pos + k) is PE(pos) rotated by angles k·ω<sub>i</sub> that do not depend on pos.</p>"
    )


def trace_name(position: int) -> str:
    return f"PE({position})"


def hovertemplate(position: int) -> str:
    return f"PE({position})<br>dim %{{x}}<br>%{{y:.6f}}<extra></extra>"


def vector_subplot(state: ExplorerState, row: int, values: np.ndarray) -> Subplot:
    """Row 0: PE(pos), row 1: PE(pos + k), over the dimensions (the dimension axis below)."""
    position = (state.pos, state.second_pos)[row]
    colour = theme.PAIR_COLOURS[row]
    trace = {
        "x": np.arange(state.d_model),
        "y": values,
        "name": trace_name(position),
        "hovertemplate": hovertemplate(position),
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
    return describe_of(state.d_model, state.offset, derived.offset_comparisons(state).pairs[0])


def describe_of(d_model: int, offset: int, current: derived.PairComparison) -> str:
    """The accessible name for the pair current, k = offset apart."""
    return (
        f"PE({current.first}) and PE({current.second}) over the {d_model} dimensions, "
        f"k = {offset}: dot product {number(current.comparison.dot)}, cosine similarity "
        f"{number(current.comparison.cosine)}, distance {number(current.comparison.distance)}"
    )


def caption_of(first: int, second: int) -> str:
    """The Show data table's caption."""
    return f"PE({first}) and PE({second}) by dimension"


def data(state: ExplorerState) -> ChartData:
    """The first DATA_COLUMNS dimensions of PE(pos) and PE(pos + k)."""
    first, second = derived.pe_pair(state)
    dimensions = range(min(state.d_model, DATA_COLUMNS))
    return ChartData(
        caption=caption_of(state.pos, state.second_pos),
        columns=("dimension", f"PE({state.pos})", f"PE({state.second_pos})"),
        rows=tuple((c, first[c], second[c]) for c in dimensions),
        note=f"Dimensions {span_text(dimensions)} of {state.d_model} shown; "
        "Export has the whole vectors.",
    )


def axis_updates(state: ExplorerState, moved: picks_kit.Moved, rows: np.ndarray) -> list:
    """The two vectors, their names, the chart's name, the caption and the readout at each
    value of one axis; rows holds PE(0), PE(1) … (the table "pe")."""
    d = state.d_model
    names, labels, readouts, captions = [[], []], [], [], []

    @functools.cache
    def compared(m: int, k: int) -> encoding.Comparison:
        if max(m, m + k) < len(rows):
            return encoding.compare(rows[m], rows[m + k])
        pair = encoding.encode_positions([m, m + k], d, state.base, layout=state.layout)
        return encoding.compare(pair[0], pair[1])

    for first, second, offset in zip(moved.firsts, moved.seconds, moved.offsets, strict=True):
        first, second, offset = int(first), int(second), int(offset)
        starts = [first, *derived.other_starts(first, offset)]
        shown = derived.OffsetComparisons(
            tuple(derived.PairComparison(m, m + offset, compared(m, offset)) for m in starts),
            derived.offset_comparison(offset, d, float(state.base)),
        )
        for row, position in enumerate((first, second)):
            names[row].append(position)
        labels.append(describe_of(d, offset, shown.pairs[0]))
        readouts.append(readout_of(offset, shown))
        captions.append(caption_of(first, second))
    updates = []
    for row, positions in enumerate((moved.firsts, moved.seconds)):
        updates += [
            picks_kit.Update("trace", "y", row, rows="pe", index=positions),
            picks_kit.Update(
                "trace", "name", row, text=picks_kit.compressed([trace_name(p) for p in names[row]])
            ),
            picks_kit.Update(
                "trace",
                "hovertemplate",
                row,
                text=picks_kit.compressed([hovertemplate(p) for p in names[row]]),
            ),
        ]
    return [
        *updates,
        picks_kit.Update("label", text=picks_kit.compressed(labels)),
        picks_kit.Update("caption", text=picks_kit.compressed(captions)),
        picks_kit.Update("pane", "pe-readout-pane", text=picks_kit.compressed(readouts)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks | None:
    """What a drag of pos or k moves: both vectors (rows of PE), their names, the chart's name,
    the caption and the readout; nothing when the rows would be too many to send."""
    moved = picks_kit.moved_positions(state)
    # pos + k ≤ 2n − 2 on either axis: one size of table for every pos and k, computed once.
    count = 2 * state.n_positions - 1
    rows = derived.pe_rows(count, state.d_model, float(state.base), state.layout)
    if not picks_kit.fits(rows):
        return None
    axes = tuple(m.picks(axis_updates(state, m, rows)) for m in moved)
    return picks_kit.Picks({"pe": rows}, axes)

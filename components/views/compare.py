"""Comparison of PE(pos) and PE(pos + k): both vectors, and how they relate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import encoding
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import DATA_COLUMNS, ChartData, span_text
from ..plotkit.numbers import number
from ..state import ExplorerState

# Starting positions of the other pairs at the same offset (the text's 7 → 8 and 22 → 23).
OTHER_STARTS = (0, 22, 100, 1000)
OTHER_PAIRS = 3
# Beyond this many dimensions the bars are under 2 px wide; a filled step line looks the same
# and Plotly redraws it several times faster (benchmarks/RESULTS.md).
MAX_BARS = 256

READOUT_STYLE = theme.READOUT_TABLE_STYLE


@dataclass(frozen=True)
class PairReadout:
    """The comparison numbers of positions first and second = first + k."""

    first: int
    second: int
    comparison: encoding.Comparison


def vectors(state: ExplorerState) -> np.ndarray:
    """PE(pos) and PE(pos + k), shape (2, d_model); works beyond the shown length."""
    return encoding.encode_positions(
        [state.pos, state.second_pos], state.d_model, state.base, layout=state.layout
    )


def other_starts(pos: int, offset: int) -> list[int]:
    """A few starting positions other than pos whose pair at the same offset is valid."""
    starts = []
    for start in OTHER_STARTS:
        start = max(start, -offset)
        if start != pos and start not in starts:
            starts.append(start)
    return starts[:OTHER_PAIRS]


def readouts(state: ExplorerState) -> list[PairReadout]:
    """The current pair first, then other pairs at the same offset k."""
    starts = [state.pos, *other_starts(state.pos, state.offset)]
    positions = [p for start in starts for p in (start, start + state.offset)]
    rows = encoding.encode_positions(positions, state.d_model, state.base, layout=state.layout)
    return [
        PairReadout(start, start + state.offset, encoding.compare(rows[2 * n], rows[2 * n + 1]))
        for n, start in enumerate(starts)
    ]


def _number(value: float) -> str:
    # Adding 0.0 turns -0.0 into 0.0, so an exact zero never shows a sign.
    return f"{value + 0.0:.9f}"


def readout(state: ExplorerState) -> str:
    """The readout table (numbers only; nothing a visitor typed is ever put in it)."""
    pairs = readouts(state)
    exact = encoding.offset_comparison(state.offset, state.d_model, state.base)
    current = pairs[0]
    lines = [
        '<table class="pe-readouts">',
        f'<caption class="pe-pos-readout">pos = {state.pos} · pos + k = {state.second_pos} '
        f"· k = {state.offset}</caption>",
        "<thead><tr><th>positions</th><th>dot product</th><th>cosine similarity</th>"
        "<th>Euclidean distance</th></tr></thead><tbody>",
        f'<tr class="pe-current"><td>PE({current.first}) · PE({current.second})</td>'
        f'<td class="pe-readout-dot">{_number(current.comparison.dot)}</td>'
        f'<td class="pe-readout-cosine">{_number(current.comparison.cosine)}</td>'
        f'<td class="pe-readout-distance">{_number(current.comparison.distance)}</td></tr>',
    ]
    for pair in pairs[1:]:
        lines.append(
            f'<tr class="pe-other"><td>PE({pair.first}) · PE({pair.second})</td>'
            f"<td>{_number(pair.comparison.dot)}</td><td>{_number(pair.comparison.cosine)}</td>"
            f"<td>{_number(pair.comparison.distance)}</td></tr>"
        )
    lines.append(
        f'<tr class="pe-closed-form"><td>from k alone: D(k) = Σ cos(k·ω<sub>i</sub>)</td>'
        f"<td>{_number(exact.dot)}</td><td>{_number(exact.cosine)}</td>"
        f"<td>{_number(exact.distance)}</td></tr></tbody></table>"
    )
    lines.append(
        '<p class="pe-note">Every pair k positions apart gives the same three numbers: '
        "PE(pos + k) is PE(pos) rotated by angles k·ω<sub>i</sub> that do not depend on pos.</p>"
    )
    return "".join(lines)


def figure(state: ExplorerState) -> dict:
    """PE(pos) and PE(pos + k) as bars over the dimensions (a filled step line when there are
    many), one above the other."""
    first, second = vectors(state)
    dimension = np.arange(state.d_model)
    palette = theme.colours(state.theme)
    traces = []
    for values, position, axis_name, colour in (
        (first, state.pos, "y", theme.PAIR_COLOURS[0]),
        (second, state.second_pos, "y2", theme.PAIR_COLOURS[1]),
    ):
        trace = {
            "x": dimension,
            "y": values,
            "yaxis": axis_name,
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
        traces.append(trace)
    # Which positions stays in the legend and the readout, so that a step of pos or k
    # changes only the traces (one restyle, one redraw).
    title = f"PE(pos) and PE(pos + k) over the {state.d_model} dimensions"
    layout = titled_layout(state, f"compare-{state.d_model}", title)
    layout.update(
        bargap=0.05,
        xaxis=theme.axis(state.theme, title={"text": "dimension"}, anchor="y2"),
        yaxis=theme.axis(
            state.theme,
            domain=[0.55, 1.0],
            range=[-1.05, 1.05],
            title={"text": "PE(pos)", "font": {"color": palette["text"]}},
        ),
        yaxis2=theme.axis(
            state.theme,
            domain=[0.0, 0.45],
            range=[-1.05, 1.05],
            title={"text": "PE(pos + k)"},
        ),
    )
    layout["legend"] = {"orientation": "h", "y": -0.2, "x": 0}
    layout["margin"] = {"l": 72, "r": 24, "t": 48, "b": 80}
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the two positions and how they compare."""
    current = readouts(state)[0]
    return (
        f"PE({current.first}) and PE({current.second}) over the {state.d_model} dimensions, "
        f"k = {state.offset}: dot product {number(current.comparison.dot)}, cosine similarity "
        f"{number(current.comparison.cosine)}, distance {number(current.comparison.distance)}"
    )


def data(state: ExplorerState) -> ChartData:
    """The first DATA_COLUMNS dimensions of PE(pos) and PE(pos + k)."""
    first, second = vectors(state)
    dimensions = range(min(state.d_model, DATA_COLUMNS))
    return ChartData(
        caption=f"PE({state.pos}) and PE({state.second_pos}) by dimension",
        columns=("dimension", f"PE({state.pos})", f"PE({state.second_pos})"),
        rows=tuple((c, first[c], second[c]) for c in dimensions),
        note=f"Dimensions {span_text(dimensions)} of {state.d_model} shown; "
        "Export has the whole vectors.",
    )

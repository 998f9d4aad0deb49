"""ALiBi (Press et al., "Train Short, Test Long"): each head adds −m_h·|i − j| to its scores."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import derived, methods
from ..plotkit import theme
from ..plotkit.charts import matrix_axis, panel_caption, titled_layout
from ..plotkit.frame import DATA_COLUMNS, DATA_ROWS, ChartData, span_text, window
from ..plotkit.numbers import number
from ..state import ExplorerState

# With more heads than this the readout lists the first few, then "…", then the last.
MAX_LISTED_HEADS = 8
FIRST_LISTED_HEADS = 6
# The slopes are 2^(−8h/c) (c ≤ 64) and 2^(−4(2h − 1)/c) (c ≤ 32): their exponents are
# multiples of 1/8, so rounding log2 to 1/1024 recovers them exactly from the floats.
EXPONENT_DENOMINATOR = 1024
# The slopes panel spans 2^0 … 2^−8, the range of m_h for every number of heads.
SLOPE_EXPONENTS = tuple(range(9))
LOG10_2 = math.log10(2.0)  # a log axis's range is in powers of ten
# Biases are ≤ 0: the blue half of the diverging scale, white at 0, darkest at the lowest.
NEGATIVE_SCALE = [[2 * stop, colour] for stop, colour in theme.DIVERGING_SCALE if stop <= 0.5]
# Domains of the three panels: heads × keys on top, slopes and one head's n × n matrix below.
TOP_DOMAIN, BOTTOM_DOMAIN = [0.62, 1.0], [0.0, 0.4]
SLOPES_DOMAIN, MATRIX_DOMAIN = [0.0, 0.36], [0.52, 1.0]

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
table.pe-alibi-table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.pe-alibi-table th, .pe-alibi-table td { padding: 0.2em 0.7em; text-align: right;
                                         border-bottom: 1px solid var(--pe-grid, #e5e7eb); }
.pe-alibi-table caption { text-align: left; padding-bottom: 0.3em; }
p.pe-note { margin: 0.4em 0 0; line-height: 1.45; }
"""


@dataclass(frozen=True)
class AlibiReadout:
    """The slopes of the heads and each head's bias for the key pos + k of the query pos."""

    heads: int
    slopes: tuple[float, ...]  # m_1 … m_H
    exponents: tuple[Fraction, ...]  # m_h = 2^(−exponent_h)
    pos: int
    second_pos: int  # pos + k
    offset: int
    biases: tuple[float, ...]  # −m_h·|k| for h = 1 … H
    masked: bool  # True when the key pos + k lies after the query (k > 0): a decoder masks it


def numbers(state: ExplorerState) -> AlibiReadout:
    """The slopes, their exponents and −m_h·|k| for every head."""
    slopes = derived.alibi_slopes(state.heads)
    return AlibiReadout(
        heads=state.heads,
        slopes=tuple(float(m) for m in slopes),
        exponents=tuple(slope_exponent(m) for m in slopes),
        pos=state.pos,
        second_pos=state.second_pos,
        offset=state.offset,
        biases=tuple(float(methods.alibi_offset_bias(state.offset, m)) for m in slopes),
        masked=state.offset > 0,
    )


def slope_exponent(slope: float) -> Fraction:
    """e with slope = 2^(−e): a multiple of 1/8 for every ALiBi slope."""
    return Fraction(round(-np.log2(slope) * EXPONENT_DENOMINATOR), EXPONENT_DENOMINATOR)


def power_of_two(exponent: Fraction) -> str:
    """2^(−exponent) as HTML, the exponent a whole number or a fraction."""
    if exponent == 0:
        return "1"
    return f"2<sup>−{exponent}</sup>"


def listed_heads(n_heads: int) -> list[int | None]:
    """The heads (1-based) the readout lists, None where it leaves some out."""
    if n_heads <= MAX_LISTED_HEADS:
        return list(range(1, n_heads + 1))
    return [*range(1, FIRST_LISTED_HEADS + 1), None, n_heads]


def _number(value: float) -> str:
    # Adding 0.0 turns −0.0 into 0.0; nine significant digits print 1/256 = 0.00390625 exactly.
    return f"{value + 0.0:.9g}"


def readout(state: ExplorerState) -> str:
    """The slopes and the biases at offset k as a table, and the causal mask in one line."""
    shown = numbers(state)
    k = shown.offset
    lines = [
        '<table class="pe-alibi-table">',
        f'<caption class="pe-alibi-caption">{shown.heads} head{"s" if shown.heads > 1 else ""}: '
        f"query pos = {shown.pos}, key pos + k = {shown.second_pos}, k = {k}</caption>",
        "<thead><tr><th>head h</th><th>slope m<sub>h</sub></th><th>as a power of 2</th>"
        f"<th>bias −m<sub>h</sub>·|k| at k = {k}</th></tr></thead><tbody>",
    ]
    for head in listed_heads(shown.heads):
        if head is None:
            lines.append('<tr class="pe-alibi-more"><td>…</td><td>…</td><td>…</td><td>…</td></tr>')
            continue
        lines.append(
            f'<tr class="pe-alibi-head"><td class="pe-alibi-h">{head}</td>'
            f'<td class="pe-alibi-slope">{_number(shown.slopes[head - 1])}</td>'
            f'<td class="pe-alibi-power">{power_of_two(shown.exponents[head - 1])}</td>'
            f'<td class="pe-alibi-bias">{_number(shown.biases[head - 1])}</td></tr>'
        )
    lines.append("</tbody></table>")
    if shown.masked:
        where = (
            f"the key pos + k = {shown.second_pos} comes after the query pos = {shown.pos}, so "
            f"it is masked there; the bias above is what query {shown.second_pos} adds when it "
            f"looks back at key {shown.pos}."
        )
    else:
        where = f"the key pos + k = {shown.second_pos} is visible to the query pos = {shown.pos}."
    lines.append(
        '<p class="pe-note pe-alibi-mask">A decoder\'s query i attends only to keys j ≤ i (the '
        f"causal mask): {where} Nothing is added to the input: the bias alone tells the heads "
        "how far apart two tokens are.</p>"
    )
    return "".join(lines)


def _column_mark(x: float, width: float, axis: str, colour: str, dash: str, name: str) -> dict:
    """An outline around one column of a heatmap, full height."""
    return {
        "type": "rect",
        "xref": f"x{axis}",
        "yref": f"y{axis} domain",
        "x0": x - width / 2,
        "x1": x + width / 2,
        "y0": 0,
        "y1": 1,
        "line": {"color": colour, "width": 2, "dash": dash},
        "fillcolor": "rgba(0,0,0,0)",
        "name": name,
    }


def figure(state: ExplorerState) -> dict:
    """Top: each head's bias for the query pos over the keys j. Bottom: the slopes m_h, and
    the steepest head's bias over all queries and keys with the causal mask."""
    n, pos, n_heads = state.n_positions, state.pos, state.heads
    palette = theme.colours(state.theme)
    slopes = derived.alibi_slopes(n_heads)
    # Head 1 for H a power of two; with other H the interleaved slopes come later and are larger.
    steepest_head = int(np.argmax(slopes)) + 1
    steepest = float(slopes[steepest_head - 1])
    heads = np.arange(1, n_heads + 1)
    matrix = derived.masked_bias_cells(n, steepest)
    exponents = [slope_exponent(m) for m in slopes]
    traces = [
        {
            "type": "heatmap",
            "x": np.arange(n),
            "y": heads,
            "z": derived.head_bias_cells(n, pos, n_heads),
            # At pos = 0 every visible bias is 0: keep a range so the scale stays readable.
            "zmin": -steepest * max(pos, 1),
            "zmax": 0.0,
            "colorscale": NEGATIVE_SCALE,
            "hoverongaps": False,
            "colorbar": theme.colorbar(
                y=sum(TOP_DOMAIN) / 2, len=TOP_DOMAIN[1] - TOP_DOMAIN[0], thickness=10
            ),
            "hovertemplate": "head %{y}, key j = %{x}<br>bias = %{z:.6g}<extra></extra>",
            "name": "bias of the query pos",
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": heads,
            "y": slopes,
            "xaxis": "x2",
            "yaxis": "y2",
            "line": {"color": theme.PAIR_COLOURS[0], "width": 1.5},
            "marker": {"color": theme.PAIR_COLOURS[0], "size": 6 if n_heads <= 16 else 4},
            "customdata": [power_of_two(e) for e in exponents],
            "hovertemplate": "head %{x}<br>m = %{y:.9g} = %{customdata}<extra></extra>",
            "name": "slopes m_h",
        },
        {
            "type": "heatmap",
            "x": matrix.rows,
            "y": matrix.rows,
            "z": matrix.bias,
            "xaxis": "x3",
            "yaxis": "y3",
            "zmin": -steepest * max(n - 1, 1),
            "zmax": 0.0,
            "colorscale": NEGATIVE_SCALE,
            "hoverongaps": False,
            "colorbar": theme.colorbar(
                y=sum(BOTTOM_DOMAIN) / 2, len=BOTTOM_DOMAIN[1] - BOTTOM_DOMAIN[0], thickness=10
            ),
            "hovertemplate": "query i = %{y}, key j = %{x}<br>bias = %{z:.6g}<extra></extra>",
            "name": f"head {steepest_head} with the causal mask",
        },
    ]
    shapes = [_column_mark(pos, 1, "", palette["pos"], "solid", "pos")]
    if state.second_pos < n:
        shapes.append(_column_mark(state.second_pos, 1, "", palette["second"], "dot", "pos+k"))
    # The query pos is one row of this head's matrix: the top panel's row of the head.
    shapes.append(
        {
            "type": "rect",
            # In data units: the axis is constrained to a square, so its domain is not the
            # matrix's width.
            "xref": "x3",
            "yref": "y3",
            "x0": -matrix.stride / 2,
            "x1": matrix.rows[-1] + matrix.stride / 2,
            "y0": pos - matrix.stride / 2,
            "y1": pos + matrix.stride / 2,
            "line": {"color": palette["pos"], "width": 1.5},
            "fillcolor": "rgba(0,0,0,0)",
            "name": "query pos",
        }
    )
    reduced = (
        f"<br>every {matrix.stride}th position ({matrix.rows.size} × {matrix.rows.size} of "
        f"{n} × {n} cells)"
        if matrix.stride > 1
        else ""
    )
    annotations = [
        panel_caption(
            "<b>Bias of each head for the query pos</b> · keys j > pos masked (empty) · "
            "pos solid, pos + k dotted",
            0.0,
            TOP_DOMAIN[1] + 0.01,
        ),
        panel_caption(
            "<b>Slopes m<sub>h</sub></b> (log scale)", SLOPES_DOMAIN[0], BOTTOM_DOMAIN[1]
        ),
        panel_caption(
            f"<b>Head {steepest_head} (steepest, m = {_number(steepest)})</b> · causal mask: "
            f"empty above the diagonal{reduced}",
            MATRIX_DOMAIN[0],
            BOTTOM_DOMAIN[1],
        ),
    ]
    title = (
        f"ALiBi: {n_heads} head{'s add' if n_heads > 1 else ' adds'} "
        "−m<sub>h</sub>·|i − j| to the scores of query i and key j"
    )
    layout = titled_layout(state, f"alibi-{n}-{n_heads}", title)
    layout.update(
        margin={"l": 64, "r": 24, "t": 76, "b": 48},
        showlegend=False,
        xaxis=matrix_axis(
            state, "key position j", domain=[0.0, 1.0], anchor="y", range=[-0.5, n - 0.5]
        ),
        yaxis=matrix_axis(state, "head h", domain=TOP_DOMAIN, anchor="x", autorange="reversed"),
        xaxis2=theme.axis(
            state.theme,
            domain=SLOPES_DOMAIN,
            anchor="y2",
            range=[0.5, n_heads + 0.5],
            title={"text": "head h"},
        ),
        yaxis2=theme.axis(
            state.theme,
            domain=BOTTOM_DOMAIN,
            anchor="x2",
            type="log",
            range=[-8.5 * LOG10_2, 0.5 * LOG10_2],
            tickmode="array",
            tickvals=[2.0**-e for e in SLOPE_EXPONENTS],
            ticktext=[power_of_two(Fraction(e)) for e in SLOPE_EXPONENTS],
            title={"text": "m<sub>h</sub>"},
        ),
        xaxis3=matrix_axis(state, "key j", domain=MATRIX_DOMAIN, anchor="y3"),
        yaxis3=matrix_axis(
            state,
            "query i",
            domain=BOTTOM_DOMAIN,
            anchor="x3",
            autorange="reversed",
            scaleanchor="x3",
            constrain="domain",
        ),
        shapes=shapes,
        annotations=annotations,
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the heads' slopes and biases for the key pos + k."""
    shown = numbers(state)
    mask = ", which the causal mask hides" if shown.masked else ""
    return (
        f"ALiBi biases of {shown.heads} heads for query pos = {shown.pos}: slopes from "
        f"{number(max(shown.slopes))} to {number(min(shown.slopes))}; for key pos + k = "
        f"{shown.second_pos}{mask}, head 1 adds {number(shown.biases[0])} and head "
        f"{shown.heads} adds {number(shown.biases[-1])}"
    )


def data(state: ExplorerState) -> ChartData:
    """Each head's slope and bias −m_h·|pos − j| for the keys j near pos ("masked" after pos)."""
    shown = numbers(state)
    keys = window(state.pos, state.n_positions, DATA_ROWS)
    heads = range(min(shown.heads, DATA_COLUMNS))
    return ChartData(
        caption=f"Bias −m_h·|pos − j| of query pos = {state.pos}, by head and key j",
        columns=("head h", "slope m_h", *(f"key {j}" for j in keys)),
        rows=tuple(
            (
                h + 1,
                f"{shown.slopes[h]:.4g}",
                *(
                    "masked"
                    if j > state.pos
                    else float(methods.alibi_offset_bias(j - state.pos, shown.slopes[h]))
                    for j in keys
                ),
            )
            for h in heads
        ),
        note=f"Keys {span_text(keys)} of {state.n_positions} shown"
        + (f", heads 1–{len(heads)} of {shown.heads}" if len(heads) < shown.heads else "")
        + "; a decoder masks the keys after the query.",
    )

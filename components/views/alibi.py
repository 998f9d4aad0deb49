"""ALiBi (Press et al., "Train Short, Test Long"): each head adds −m_h·|i − j| to its scores."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import derived
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import panel_caption, titled_layout
from ..plotkit.frame import DATA_COLUMNS, DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.markers import column_marker, row_marker
from ..plotkit.numbers import DATA_DIGITS, READOUT_DIGITS, number, readout_number
from ..plotkit.picked_texts import printed, whole
from ..plotkit.subplots import Subplot, axis_names, compose, heatmap_axis
from ..state import ExplorerState

# With more heads than this the readout lists the first few, then "…", then the last.
MAX_LISTED_HEADS = 8
FIRST_LISTED_HEADS = 6
# The slopes panel spans 2^0 … 2^−8, the range of m_h for every number of heads.
SLOPE_EXPONENTS = tuple(range(9))
LOG10_2 = math.log10(2.0)  # a log axis's range is in powers of ten
# Biases are ≤ 0: the blue half of the diverging scale, white at 0, darkest at the lowest.
NEGATIVE_SCALE = [[2 * stop, colour] for stop, colour in theme.DIVERGING_SCALE if stop <= 0.5]
# Domains of the three panels: heads × keys on top, slopes and one head's n × n matrix below.
TOP_DOMAIN, BOTTOM_DOMAIN = [0.62, 1.0], [0.0, 0.4]
SLOPES_DOMAIN, MATRIX_DOMAIN = [0.0, 0.36], [0.52, 1.0]
# The steepest head's matrix is the figure's third subplot: its y axis is scaled to its x axis.
MATRIX_AXES = axis_names(3)
# Where the figure keeps what pos and k move: the heads' band of biases (trace 0, moved by its
# x0) and the marks of the keys pos and pos + k and of the query pos's row (layout images).
BAND, KEY_POS, KEY_SECOND, QUERY_ROW = 0, 0, 1, 2

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


def readout_values(state: ExplorerState) -> AlibiReadout:
    """The slopes, their exponents and −m_h·|k| for every head."""
    slopes = derived.alibi_slopes(state.heads)
    return AlibiReadout(
        heads=state.heads,
        slopes=tuple(float(m) for m in slopes),
        exponents=tuple(derived.slope_exponent(m) for m in slopes),
        pos=state.pos,
        second_pos=state.second_pos,
        offset=state.offset,
        biases=tuple(float(b) for b in derived.alibi_biases(state.heads, [state.offset])[:, 0]),
        masked=state.offset > 0,
    )


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


def _head_row(shown: AlibiReadout, head: int | None, biases: list[str] | str) -> list:
    """A head's row of the readout's table: h, m_h, m_h as a power of 2 and its bias at k (at
    each value: biases)."""
    if head is None:
        return ['<tr class="pe-alibi-more"><td>…</td><td>…</td><td>…</td><td>…</td></tr>']
    return [
        f'<tr class="pe-alibi-head"><td class="pe-alibi-h">{head}</td>'
        f'<td class="pe-alibi-slope">{readout_number(shown.slopes[head - 1])}</td>'
        f'<td class="pe-alibi-power">{power_of_two(shown.exponents[head - 1])}</td>'
        '<td class="pe-alibi-bias">',
        biases,
        "</td></tr>",
    ]


def _mask_note(firsts: list[str], seconds: list[str], offsets: np.ndarray) -> list:
    """What the causal mask does to the key pos + k, in one paragraph, at each value."""
    masked = (offsets > 0).tolist()
    return [
        '<p class="pe-note pe-alibi-mask">A decoder\'s query i attends only to keys j ≤ i (the '
        "causal mask): the key pos + k = ",
        seconds,
        " ",
        ["comes after" if m else "is visible to" for m in masked],
        " the query pos = ",
        firsts,
        [", so it is masked there" if m else "" for m in masked],
        "; the bias above is what query ",
        [second if m else first for m, first, second in zip(masked, firsts, seconds, strict=True)],
        " adds when it looks back at key ",
        [first if m else second for m, first, second in zip(masked, firsts, seconds, strict=True)],
        ". Nothing is added to the input: the bias alone tells the heads how far apart two "
        "tokens are.</p>",
    ]


def readout_text(shown: AlibiReadout, firsts, offsets) -> picks_kit.Text:
    """The slopes and the biases at offset k as a table, and the causal mask in one line, at
    each pos of firsts and k of offsets (shown: the slopes)."""
    firsts, offsets = np.asarray(firsts), np.asarray(offsets)
    poses, seconds, ks = whole(firsts), whole(firsts + offsets), whole(offsets)
    biases = derived.alibi_biases(shown.heads, offsets)
    rows = []
    for head in listed_heads(shown.heads):
        bias = printed(biases[head - 1], READOUT_DIGITS) if head is not None else ""
        rows += _head_row(shown, head, bias)
    return picks_kit.joined(
        len(poses),
        '<table class="pe-alibi-table">'
        f'<caption class="pe-alibi-caption">{shown.heads} head{"s" if shown.heads > 1 else ""}'
        ": query pos = ",
        poses,
        ", key pos + k = ",
        seconds,
        ", k = ",
        ks,
        "</caption><thead><tr><th>head h</th><th>slope m<sub>h</sub></th><th>as a power of 2"
        "</th><th>bias −m<sub>h</sub>·|k| at k = ",
        ks,
        "</th></tr></thead><tbody>",
        *rows,
        "</tbody></table>",
        *_mask_note(poses, seconds, offsets),
    )


def readout(state: ExplorerState) -> str:
    """The slopes and the biases at offset k as a table, and the causal mask in one line."""
    return readout_text(readout_values(state), [state.pos], [state.offset]).at(0)


def _colorbar(domain: list[float]) -> dict:
    """A thin colour bar beside a panel of the given y domain."""
    return theme.colorbar(y=sum(domain) / 2, len=domain[1] - domain[0], thickness=10)


def head_bias_subplot(state: ExplorerState, steepest: float) -> Subplot:
    """Each head's bias for the query pos over the keys j: the heads' band of biases, its keys
    0 … n − 1 in view (derived.head_bias_band)."""
    n, pos = state.n_positions, state.pos
    trace = {
        "type": "heatmap",
        "x0": band_start(pos, n),
        "dx": 1,
        "y": np.arange(1, state.heads + 1),
        "z": derived.head_bias_band(n, state.heads),
        # At pos = 0 every visible bias is 0: keep a range so the scale stays readable.
        "zmin": float(lowest_bias(steepest, pos)),
        "zmax": 0.0,
        "colorscale": NEGATIVE_SCALE,
        "hoverongaps": False,
        "colorbar": _colorbar(TOP_DOMAIN),
        "hovertemplate": "head %{y}, key j = %{x}<br>bias = %{z:.6g}<extra></extra>",
        "name": "bias of the query pos",
    }
    return Subplot(
        traces=[trace],
        x_axis=heatmap_axis("key position j", range=[-0.5, n - 0.5]),
        y_axis=heatmap_axis("head h", autorange="reversed"),
        domain=([0.0, 1.0], TOP_DOMAIN),
        caption="<b>Bias of each head for the query pos</b> · keys j > pos masked (empty) · "
        "pos solid, pos + k dotted",
    )


def band_start(pos, n_positions: int):
    """Where the band of biases starts (x0) for the query pos: the key n − 1 before it."""
    return pos - (n_positions - 1)


def lowest_bias(steepest: float, pos):
    """The colour scale's lowest bias for the query pos (numbers or arrays)."""
    return -steepest * np.maximum(pos, 1)


def markers(state: ExplorerState, steepest_head: int) -> list[dict]:
    """The keys pos (solid) and pos + k (dotted; hidden past the last key) of the heads' band,
    and the query pos's row of the steepest head's matrix."""
    n, pos, second = state.n_positions, state.pos, state.second_pos
    palette = theme.colours(state.theme)
    matrix = derived.masked_bias_cells(n, float(derived.alibi_slopes(state.heads)[steepest_head]))
    # In data units: the matrix's axis is constrained to a square, so its domain is not the
    # matrix's width.
    half = matrix.stride / 2
    return [
        column_marker(pos, palette["pos"], False, "key pos"),
        column_marker(second, palette["second"], True, "key pos+k", visible=second < n),
        row_marker(
            pos, (-half, matrix.rows[-1] + half), 2 * half, palette["pos"], "query pos", MATRIX_AXES
        ),
    ]


def slopes_subplot(state: ExplorerState) -> Subplot:
    """The slopes m_h against the head h on a log axis labelled in powers of two."""
    n_heads = state.heads
    slopes = derived.alibi_slopes(n_heads)
    trace = {
        "type": "scatter",
        "mode": "lines+markers",
        "x": np.arange(1, n_heads + 1),
        "y": slopes,
        "line": {"color": theme.PAIR_COLOURS[0], "width": 1.5},
        "marker": {"color": theme.PAIR_COLOURS[0], "size": 6 if n_heads <= 16 else 4},
        "customdata": [power_of_two(derived.slope_exponent(m)) for m in slopes],
        "hovertemplate": "head %{x}<br>m = %{y:.9g} = %{customdata}<extra></extra>",
        "name": "slopes m_h",
    }
    y_axis = {
        "type": "log",
        "range": [-8.5 * LOG10_2, 0.5 * LOG10_2],
        "tickmode": "array",
        "tickvals": [2.0**-e for e in SLOPE_EXPONENTS],
        "ticktext": [power_of_two(Fraction(e)) for e in SLOPE_EXPONENTS],
        "title": {"text": "m<sub>h</sub>"},
    }
    return Subplot(
        traces=[trace],
        x_axis={"range": [0.5, n_heads + 0.5], "title": {"text": "head h"}},
        y_axis=y_axis,
        domain=(SLOPES_DOMAIN, BOTTOM_DOMAIN),
        # At the top edge of the bottom panels (a Subplot's caption would sit 0.01 above it).
        annotations=[
            panel_caption(
                "<b>Slopes m<sub>h</sub></b> (log scale)", SLOPES_DOMAIN[0], BOTTOM_DOMAIN[1]
            )
        ],
    )


def masked_matrix_subplot(state: ExplorerState, head: int) -> Subplot:
    """Head's bias over every query i and key j, empty above the diagonal (the causal mask)."""
    n = state.n_positions
    steepest = float(derived.alibi_slopes(state.heads)[head])
    matrix = derived.masked_bias_cells(n, steepest)
    trace = {
        "type": "heatmap",
        "x": matrix.rows,
        "y": matrix.rows,
        "z": matrix.bias,
        "zmin": -steepest * max(n - 1, 1),
        "zmax": 0.0,
        "colorscale": NEGATIVE_SCALE,
        "hoverongaps": False,
        "colorbar": _colorbar(BOTTOM_DOMAIN),
        "hovertemplate": "query i = %{y}, key j = %{x}<br>bias = %{z:.6g}<extra></extra>",
        "name": f"head {head + 1} with the causal mask",
    }
    reduced = (
        f"<br>every {matrix.stride}th position ({matrix.rows.size} × {matrix.rows.size} of "
        f"{n} × {n} cells)"
        if matrix.stride > 1
        else ""
    )
    caption = (
        f"<b>Head {head + 1} (steepest, m = {number(steepest)})</b> · causal mask: "
        f"empty above the diagonal{reduced}"
    )
    y_axis = heatmap_axis(
        "query i", autorange="reversed", scaleanchor=MATRIX_AXES[0], constrain="domain"
    )
    return Subplot(
        traces=[trace],
        x_axis=heatmap_axis("key j"),
        y_axis=y_axis,
        domain=(MATRIX_DOMAIN, BOTTOM_DOMAIN),
        annotations=[panel_caption(caption, MATRIX_DOMAIN[0], BOTTOM_DOMAIN[1])],
    )


def figure(state: ExplorerState) -> dict:
    """Top: each head's bias for the query pos over the keys j. Bottom: the slopes m_h, and
    the steepest head's bias over all queries and keys with the causal mask."""
    n, n_heads = state.n_positions, state.heads
    # Head 1 for H a power of two; with other H the interleaved slopes come later and are larger.
    steepest_head = derived.extreme_alibi_heads(n_heads)[0]
    steepest = float(derived.alibi_slopes(n_heads)[steepest_head])
    title = (
        f"ALiBi: {n_heads} head{'s add' if n_heads > 1 else ' adds'} "
        "−m<sub>h</sub>·|i − j| to the scores of query i and key j"
    )
    layout = titled_layout(state, f"alibi-{n}-{n_heads}", title)
    layout.update(margin={"l": 64, "r": 24, "t": 76, "b": 48}, showlegend=False)
    layout["images"] = markers(state, steepest_head)
    subplots = (
        head_bias_subplot(state, steepest),
        slopes_subplot(state),
        masked_matrix_subplot(state, steepest_head),
    )
    return compose(state, layout, subplots)


def label_text(shown: AlibiReadout, firsts, offsets) -> picks_kit.Text:
    """The chart's accessible name at each pos of firsts and k of offsets (shown: the slopes)."""
    firsts, offsets = np.asarray(firsts), np.asarray(offsets)
    biases = derived.alibi_biases(shown.heads, offsets)
    return picks_kit.joined(
        len(firsts),
        f"ALiBi biases of {shown.heads} heads for query pos = ",
        whole(firsts),
        f": slopes from {number(max(shown.slopes))} to {number(min(shown.slopes))}; for key "
        "pos + k = ",
        whole(firsts + offsets),
        [", which the causal mask hides" if k > 0 else "" for k in offsets.tolist()],
        ", head 1 adds ",
        printed(biases[0], DATA_DIGITS),
        f" and head {shown.heads} adds ",
        printed(biases[-1], DATA_DIGITS),
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the heads' slopes and biases for the key pos + k."""
    return label_text(readout_values(state), [state.pos], [state.offset]).at(0)


def caption_text(firsts) -> picks_kit.Text:
    """The Show data table's caption at each pos of firsts."""
    return picks_kit.joined(
        len(firsts), "Bias −m_h·|pos − j| of query pos = ", whole(firsts), ", by head and key j"
    )


def data(state: ExplorerState) -> ChartData:
    """Each head's slope and bias −m_h·|pos − j| for the keys j near pos ("masked" after pos)."""
    pos, n_heads = state.pos, state.heads
    keys = indices_near(pos, state.n_positions, DATA_ROWS)
    heads = range(min(n_heads, DATA_COLUMNS))
    slopes = derived.alibi_slopes(n_heads)
    biases = derived.alibi_biases(n_heads, [j - pos for j in keys])
    cells = [
        ["masked" if j > pos else float(bias) for j, bias in zip(keys, row, strict=True)]
        for row in biases
    ]
    return ChartData(
        caption=caption_text([pos]).at(0),
        columns=("head h", "slope m_h", *(f"key {j}" for j in keys)),
        rows=tuple((h + 1, float(slopes[h]), *cells[h]) for h in heads),
        note=f"Keys {span_text(keys)} of {state.n_positions} shown"
        + (f", heads 1–{len(heads)} of {n_heads}" if len(heads) < n_heads else "")
        + "; a decoder masks the keys after the query.",
    )


def axis_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """Everything pos and k move, at each value of one axis."""
    n, firsts, seconds = state.n_positions, moved.firsts, moved.seconds
    slopes = derived.alibi_slopes(state.heads)
    steepest = float(slopes[derived.extreme_alibi_heads(state.heads)[0]])
    shown = readout_values(state)
    return [
        picks_kit.Update("trace", "x0", BAND, each=band_start(firsts, n)),
        picks_kit.Update("trace", "zmin", BAND, each=lowest_bias(steepest, firsts)),
        picks_kit.Update("layout", f"images[{KEY_POS}].x", each=firsts),
        picks_kit.Update("layout", f"images[{KEY_SECOND}].x", each=seconds),
        picks_kit.Update(
            "layout", f"images[{KEY_SECOND}].visible", each=tuple((seconds < n).tolist())
        ),
        picks_kit.Update("layout", f"images[{QUERY_ROW}].y", each=firsts),
        picks_kit.Update("label", text=label_text(shown, firsts, moved.offsets)),
        picks_kit.Update("caption", text=caption_text(firsts)),
        picks_kit.Update(
            "pane", "pe-readout-pane", text=readout_text(shown, firsts, moved.offsets)
        ),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks:
    """What a drag of pos or k moves: the heads' band of biases, the keys and the query row
    marked, the chart's name, the caption and the readout."""
    moved = picks_kit.moved_positions(state)
    return picks_kit.Picks({}, tuple(m.picks(axis_updates(state, m)) for m in moved))

"""The position part of the attention score against the offset k, for every method at once."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from .. import derived
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import offset_label, point_hovertemplate, point_name, titled_layout
from ..plotkit.frame import ChartData, offset_curves_table
from ..plotkit.narrow import WIDE_ONLY
from ..plotkit.numbers import READOUT_DIGITS, numbers_of, readout_number
from ..plotkit.picked_texts import filled, whole
from ..state import ExplorerState

NAMES = {
    "sinusoidal": "sinusoidal",
    "rope": "RoPE",
    "alibi": "ALiBi",
    "none": "none",
    "t5": "T5",
    "shaw": "Shaw",
    "xl": "Transformer-XL",
}
# The relative methods are drawn beside the four a model can be switched to; each has its view.
RELATIVE = ("t5", "shaw", "xl")
COLOURS = {
    "sinusoidal": theme.PAIR_COLOURS[0],
    "rope": theme.PAIR_COLOURS[1],
    "alibi": theme.PAIR_COLOURS[2],
    "none": theme.PAIR_COLOURS[3],
    "t5": theme.PAIR_COLOURS[4],
    "shaw": theme.PAIR_COLOURS[5],
    "xl": theme.PAIR_COLOURS[0],
}
# Each line's name, where it says more than the method's (ALiBi's heads, T5's and Shaw's
# settings are named by curve_label).
LABELS = {
    "sinusoidal": "sinusoidal: D(k) = Σ cos(k·ω_i)",
    "rope": "RoPE: q·R(k)q, the seeded q with itself",
    "none": "none: 0",
    "xl": "Transformer-XL: q·W_R R(k) + v·W_R R(k)",
}
# Lines told apart by their dash as well as their colour (Transformer-XL shares a colour).
DASHES = {"alibi-gentlest": "dash", "xl": "dot", "shaw": "dashdot"}
# What each method does at offsets no training sequence had, in short lines: the chart stacks
# them, so the labels fit in the shaded half of a narrow chart.
BEYOND = {
    "sinusoidal": ("defined and bounded (|D(k)| ≤ d/2),", "but offsets never seen in training"),
    "rope": ("defined and bounded, rotations never seen", "in training; decays on average"),
    "alibi": ("a linear penalty that keeps growing:", "far keys fade"),
    "none": ("0: no position, nothing changes",),
    "t5": ("k ≥ max_distance: the last bucket's bias, flat",),
    "shaw": ("k ≥ clip: the vector a_clip again, flat",),
    "xl": ("the sinusoid R(k): defined, never seen",),
}
CURRENT_WIDTH, OTHER_WIDTH = 3.5, 1.5
OTHER_OPACITY = 0.4

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
table.pe-methods { border-collapse: collapse; font-variant-numeric: tabular-nums; width: 100%; }
.pe-methods th, .pe-methods td { padding: 0.25em 0.6em; text-align: right;
                                 border-bottom: 1px solid var(--pe-grid, #e5e7eb); }
.pe-methods th:first-child, .pe-methods td:first-child,
.pe-methods .pe-beyond { text-align: left; }
.pe-methods tr.pe-current { font-weight: 600; background: var(--pe-code-bg, #f6f8fa); }
.pe-methods caption { text-align: left; padding-bottom: 0.3em; }
""" + theme.rows_as_blocks_style("pe-methods")
# The readout's columns after the method's name, also each cell's label on a narrow screen.
AT_K, BEYOND_L = "score at k", "beyond L"


@dataclass(frozen=True)
class Curve:
    """One line of the chart: a method (an ALiBi head for ALiBi) and its score at each k."""

    method: str
    css_name: str  # pe-method-<css_name>-at-k
    label: str
    scores: np.ndarray


@dataclass(frozen=True)
class MethodRow:
    """A readout row: one curve's score at k = |offset| and at k = 2L."""

    method: str
    css_name: str
    label: str
    at_offset: float
    at_far: float


@dataclass(frozen=True)
class MethodsReadout:
    """The numbers the readout shows."""

    offset: int  # |offset|, the k of the marker
    far_offset: int  # 2L, well beyond the training length
    train_length: int
    method: str
    rows: tuple[MethodRow, ...]


def slope_text(slope: float) -> str:
    """An ALiBi slope as 1/2ⁿ when it is one (every slope of a power-of-two H), else decimal."""
    exponent = -math.log2(slope)
    if exponent.is_integer():
        return f"1/{2 ** int(exponent)}"
    return f"{slope:.3g}"


def curve_label(state: ExplorerState, curve: derived.PositionScoreCurve) -> str:
    """A line's name in the legend, the readout and the data table."""
    if curve.method == "alibi":
        slope = derived.alibi_slopes(state.heads)[curve.head]
        return f"ALiBi, head {curve.head + 1} (m = {slope_text(slope)})"
    if curve.method == "t5":
        return f"T5: bias of k's bucket ({state.t5_buckets} buckets, max {state.t5_max_distance})"
    if curve.method == "shaw":
        return f"Shaw: q·a_clip(k), clip {state.shaw_clip}"
    return LABELS[curve.method]


def curves(state: ExplorerState) -> list[Curve]:
    """The lines drawn (derived.position_score_curves), each with its name."""
    return [
        Curve(curve.method, curve.name, curve_label(state, curve), curve.scores)
        for curve in derived.position_score_curves(state)
    ]


def readout_values(state: ExplorerState) -> MethodsReadout:
    """Each curve's score at k = |offset| and at k = 2L."""
    k, far = abs(state.offset), 2 * state.train_length
    rows = tuple(
        MethodRow(
            line.method, line.css_name, line.label, float(line.scores[k]), float(line.scores[far])
        )
        for line in curves(state)
    )
    return MethodsReadout(k, far, state.train_length, state.method, rows)


def scores_at(lines: list[Curve], offsets: np.ndarray) -> np.ndarray:
    """Each line's score at k = |offset| for each of offsets (a row per line)."""
    distances = np.abs(offsets)
    return np.array([line.scores[distances] for line in lines]).reshape(len(lines), -1)


def _readout_row(shown: MethodsReadout, index: int, at_k) -> list:
    """A curve's row (at_k: its score at each k, as text): its scores at k and 2L; the first
    row of a method also says, over all its rows, what the method does beyond L."""
    row = shown.rows[index]
    current = ' class="pe-current"' if row.method == shown.method else ""
    beyond = ""
    if index == 0 or shown.rows[index - 1].method != row.method:
        span = sum(other.method == row.method for other in shown.rows)
        rowspan = f' rowspan="{span}"' if span > 1 else ""
        beyond = (
            f'<td{rowspan} role="cell" data-label="{BEYOND_L}" '
            f'class="pe-beyond pe-method-{row.method}-beyond">{" ".join(BEYOND[row.method])}</td>'
        )
    return [
        f'<tr role="row"{current}><th scope="row" role="rowheader">{row.label}</th>'
        f'<td role="cell" data-label="{AT_K}" class="pe-method-{row.css_name}-at-k">',
        at_k,
        f'</td><td role="cell" data-label="at 2L = {shown.far_offset}" '
        f'class="pe-method-{row.css_name}-at-2l">{readout_number(row.at_far)}</td>'
        f"{beyond}</tr>",
    ]


def readout_text(shown: MethodsReadout, offsets: np.ndarray, at_k: np.ndarray) -> picks_kit.Text:
    """The table of each method's score at k = |offset| for each of offsets (at_k: scores_at)
    and at 2L (numbers and our own words only); shown gives the rest."""
    head = "".join(
        f'<th scope="col" role="columnheader"{css}>{name}</th>'
        for name, css in (
            ("method", ""),
            (AT_K, ""),
            (f"at 2L = {shown.far_offset}", ""),
            (BEYOND_L, ' class="pe-beyond"'),
        )
    )
    rows = []
    for index, scores in enumerate(at_k):
        rows += _readout_row(shown, index, numbers_of(scores, READOUT_DIGITS))
    return picks_kit.joined(
        len(offsets),
        '<table class="pe-methods" role="table"><caption>k = |',
        whole(offsets),
        '| = <span class="pe-methods-offset">',
        whole(np.abs(offsets)),
        '</span> · training length L = <span class="pe-methods-train-length">'
        f"{shown.train_length}</span></caption>"
        f'<thead role="rowgroup"><tr role="row">{head}</tr></thead><tbody role="rowgroup">',
        *rows,
        "</tbody></table>",
    )


def readout(state: ExplorerState) -> str:
    """The table of each method's score at k and at 2L (numbers and our own words only)."""
    shown = readout_values(state)
    at_k = np.array([[row.at_offset] for row in shown.rows])
    return readout_text(shown, np.array([state.offset]), at_k).at(0)


def translucent(colour: str, alpha: float) -> str:
    """A #rrggbb colour as rgba with the given alpha."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def beyond_label(method: str) -> str:
    """The chart's words on what each method does beyond L, the current method's in bold."""
    lines = []
    # The relative methods' words are in the readout's table only: there is no room for them.
    for name, words in BEYOND.items():
        if name in RELATIVE:
            continue
        # Continuation lines are indented with no-break spaces (SVG text collapses plain ones).
        parts = [f"{NAMES[name]} — {words[0]}", *("\u00a0\u00a0\u00a0" + w for w in words[1:])]
        for part in parts:
            text = f"<b>{part}</b>" if name == method else part
            lines.append(f'<span style="color:{COLOURS[name]}">{text}</span>')
    return "<br>".join(lines)


def _line_trace(line: Curve, rank: int, current: bool) -> dict:
    """A method's line, emphasised when it is the current method; ALiBi's gentlest head dashed
    (the same colour as its steepest, told apart)."""
    return {
        "type": "scatter",
        "mode": "lines",
        "x": np.arange(line.scores.size),
        "y": line.scores,
        "name": line.label,
        "legendrank": rank,
        "opacity": 1.0 if current else OTHER_OPACITY,
        "line": {
            "color": COLOURS[line.method],
            "width": CURRENT_WIDTH if current else OTHER_WIDTH,
            "dash": DASHES.get(line.css_name, "solid"),
        },
        "hovertemplate": f"{line.label}<br>k = %{{x}}<br>score = %{{y:.6f}}<extra></extra>",
    }


def _marker_trace(state: ExplorerState, lines: list[Curve]) -> dict:
    """The current method's lines at k = |offset|, as diamonds."""
    k = abs(state.offset)
    marked = [line for line in lines if line.method == state.method]
    return {
        "type": "scatter",
        "mode": "markers",
        "x": np.full(len(marked), k),
        "y": np.array([line.scores[k] for line in marked]),
        "name": point_name("k", k),
        "legendrank": len(lines) + 1,
        "marker": {
            "color": COLOURS[state.method],
            "size": 11,
            "symbol": "diamond",
            "line": {"color": theme.colours(state.theme)["pos"], "width": 1.5},
        },
        "hovertemplate": point_hovertemplate("k", k, "score", 6),
    }


def _full_height(shape: str, x: tuple[float, float], style: dict, name: str) -> dict:
    """A shape from x[0] to x[1] over the chart's full height."""
    return {
        "type": shape,
        "xref": "x",
        "yref": "paper",
        "x0": x[0],
        "x1": x[1],
        "y0": 0,
        "y1": 1,
        **style,
        "name": name,
    }


def _shapes(state: ExplorerState, palette: dict) -> list[dict]:
    """The offsets beyond the training length L shaded, L dashed, and the sequence's own longest
    offset dotted (is the text shown longer than training was?)."""
    length, end = state.train_length, state.n_positions - 1
    shade = {"fillcolor": palette["grid"], "opacity": 0.5, "line": {"width": 0}, "layer": "below"}
    dashed = {"line": {"color": palette["text"], "width": 1.5, "dash": "dash"}}
    dotted = {"line": {"color": palette["second"], "width": 1, "dash": "dot"}}
    beyond = (length, derived.last_scored_offset(state))
    return [
        _full_height("rect", beyond, shade, "beyond the training length"),
        _full_height("line", (length, length), dashed, "training length"),
        _full_height("line", (end, end), dotted, "sequence end"),
    ]


def _annotations(state: ExplorerState, palette: dict) -> list[dict]:
    """L's label, what each method does beyond it, and the sequence's length at its end."""
    length, end = state.train_length, state.n_positions - 1
    on_right = end > derived.last_scored_offset(state) / 2
    words = {
        "text": beyond_label(state.method),
        "xref": "x",
        "yref": "paper",
        "x": length,
        "xshift": 6,
        "xanchor": "left",
        "y": 0.98,
        "yanchor": "top",
        "align": "left",
        "showarrow": False,
        "bgcolor": translucent(palette["paper"], 0.8),
        "font": {"size": 11},
        # A narrow chart has no room for them: the readout's table has the same words.
        "name": WIDE_ONLY,
    }
    sequence = {
        "text": f"n = {state.n_positions} positions: k ≤ {end}",
        "xref": "x",
        "yref": "paper",
        "x": end,
        # Written on the side with room: left of the line unless it is near k = 0.
        "xshift": -4 if on_right else 4,
        "xanchor": "right" if on_right else "left",
        "y": 0.02,
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 11, "color": palette["second"]},
    }
    label = offset_label(f"training length L = {length}", length, palette["text"], "x")
    return [label, words, sequence]


def figure(state: ExplorerState) -> dict:
    """Every method's position-only score against k = 0 … max(n − 1, 2L), the current one
    emphasised, the offsets beyond the training length L shaded."""
    palette = theme.colours(state.theme)
    last = derived.last_scored_offset(state)
    lines = curves(state)
    traces = [
        _line_trace(line, rank, line.method == state.method) for rank, line in enumerate(lines, 1)
    ]
    title = f"Position part of the score against k: <b>{NAMES[state.method]}</b> (the others faded)"
    layout = titled_layout(state, f"methods-{last}-{state.d_model}", title)
    layout.update(
        margin={"l": 64, "r": 24, "t": 72, "b": 80},
        xaxis=theme.axis(state.theme, title={"text": "offset k"}, range=[0, last]),
        yaxis=theme.axis(state.theme, title={"text": "position part of the score"}),
        shapes=_shapes(state, palette),
        annotations=_annotations(state, palette),
    )
    layout["legend"] = {"orientation": "h", "y": -0.16, "x": 0}
    return {"data": [*traces, _marker_trace(state, lines)], "layout": layout}


def describe_text(state: ExplorerState, shown: MethodsReadout, offsets, at_k) -> picks_kit.Text:
    """The chart's accessible name at each k = |offset| of offsets (at_k: scores_at)."""
    scores = []
    for row, at in zip(shown.rows, at_k, strict=True):
        scores += ["; " if scores else "", f"{row.label}: ", numbers_of(at)]
    return picks_kit.joined(
        len(offsets),
        f"Position part of the score against offset k = 0 … {derived.last_scored_offset(state)}, "
        f"training length L = {shown.train_length} shaded beyond, {NAMES[shown.method]} "
        "emphasised; at k = ",
        whole(np.abs(offsets)),
        ": ",
        *scores,
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: each curve's score at k = |offset|."""
    shown = readout_values(state)
    at_k = np.array([[row.at_offset] for row in shown.rows])
    return describe_text(state, shown, np.array([state.offset]), at_k).at(0)


def caption_text(offsets) -> picks_kit.Text:
    """The Show data table's caption at each k = |offset| of offsets."""
    return picks_kit.joined(
        len(offsets),
        "Position part of the score near k = ",
        whole(np.abs(offsets)),
    )


def data(state: ExplorerState) -> ChartData:
    """Each curve's score at the offsets near k = |offset|."""
    k = abs(state.offset)
    return offset_curves_table(
        caption_text([state.offset]).at(0),
        "k",
        {line.label: line.scores for line in curves(state)},
        k,
        near=f", near k = {k}",
    )


def marker_updates(lines: list[Curve], offsets: np.ndarray) -> list:
    """The diamonds on the current method's lines at each k = |offset| of offsets: rows of the
    tables "marker_x" and "marker_y" (by k) and their names."""
    index, count = len(lines), len(offsets)  # the marker follows the lines
    distances = np.abs(offsets)
    ks = whole(distances)
    hover = partial(point_hovertemplate, "k", y_label="score", digits=6)
    return [
        picks_kit.Update("trace", "x", index, rows="marker_x", index=distances),
        picks_kit.Update("trace", "y", index, rows="marker_y", index=distances),
        picks_kit.Update(
            "trace", "name", index, text=filled(count, partial(point_name, "k"), x=ks)
        ),
        picks_kit.Update("trace", "hovertemplate", index, text=filled(count, hover, x=ks)),
    ]


def marker_tables(state: ExplorerState, lines: list[Curve], last: int) -> dict[str, np.ndarray]:
    """The diamonds' x and y at each k = 0 … last (a row each)."""
    scores = [line.scores[: last + 1] for line in lines if line.method == state.method]
    offsets = np.arange(last + 1, dtype=np.float64)
    return {
        "marker_x": np.repeat(offsets[:, None], len(scores), axis=1),
        "marker_y": np.ascontiguousarray(np.stack(scores, axis=1), dtype=np.float64),
    }


def picks(state: ExplorerState) -> picks_kit.Picks:
    """What a drag of k moves (the view does not follow pos): the diamonds, the chart's name,
    the caption and the readout."""
    (moved,) = [m for m in picks_kit.moved_positions(state) if m.axis == "offset"]
    offsets, lines, shown = moved.offsets, curves(state), readout_values(state)
    at_k = scores_at(lines, offsets)
    updates = [
        *marker_updates(lines, offsets),
        picks_kit.Update("label", text=describe_text(state, shown, offsets, at_k)),
        picks_kit.Update("caption", text=caption_text(offsets)),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_text(shown, offsets, at_k)),
    ]
    tables = marker_tables(state, lines, int(np.abs(offsets).max()))
    return picks_kit.Picks(tables, (moved.picks(updates),))

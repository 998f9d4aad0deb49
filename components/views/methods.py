"""The position part of the attention score against the offset k, for every method at once."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import offset_label, titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, span_text, window
from ..plotkit.numbers import number as four_decimals
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
"""


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
class MethodNumbers:
    """The numbers the readout shows."""

    offset: int  # |offset|, the k of the marker
    far_offset: int  # 2L, well beyond the training length
    train_length: int
    method: str
    rows: tuple[MethodRow, ...]


def last_offset(state: ExplorerState) -> int:
    """The largest k drawn: the shown sequence's, and at least twice the training length."""
    return max(state.n_positions - 1, 2 * state.train_length)


def slope_text(slope: float) -> str:
    """An ALiBi slope as 1/2ⁿ when it is one (every slope of a power-of-two H), else decimal."""
    exponent = -math.log2(slope)
    if exponent.is_integer():
        return f"1/{2 ** int(exponent)}"
    return f"{slope:.3g}"


def curves(state: ExplorerState) -> list[Curve]:
    """The lines drawn: sinusoidal, RoPE, ALiBi's steepest and gentlest heads, none, and the
    relative methods T5, Shaw et al. and Transformer-XL with their seeded stand-in weights."""
    shown = derived.method_curves(
        last_offset(state),
        state.d_model,
        float(state.base),
        state.layout,
        state.seed,
        state.heads,
    )
    slopes = derived.alibi_slopes(state.heads)
    # For H a power of two these are heads 1 and H; otherwise the reference code's order is
    # not sorted (H = 3: 1/16, 1/256, 1/4), so the extremes are looked up.
    heads = dict.fromkeys([int(np.argmax(slopes)), int(np.argmin(slopes))])
    lines = [
        Curve("sinusoidal", "sinusoidal", "sinusoidal: D(k) = Σ cos(k·ω_i)", shown.sinusoidal),
        Curve("rope", "rope", "RoPE: q·R(k)q, the seeded q with itself", shown.rope),
    ]
    for number, head in enumerate(heads):
        lines.append(
            Curve(
                "alibi",
                "alibi" if number == 0 else "alibi-gentlest",
                f"ALiBi, head {head + 1} (m = {slope_text(slopes[head])})",
                shown.alibi[head],
            )
        )
    lines.append(Curve("none", "none", "none: 0", shown.none))
    n_offsets = last_offset(state) + 1
    lines += [
        Curve(
            "t5",
            "t5",
            f"T5: bias of k's bucket ({state.t5_buckets} buckets, max {state.t5_max_distance})",
            derived.t5_bias_curve(
                n_offsets,
                state.t5_buckets,
                state.t5_max_distance,
                state.t5_bidirectional,
                state.seed,
            ),
        ),
        Curve(
            "shaw",
            "shaw",
            f"Shaw: q·a_clip(k), clip {state.shaw_clip}",
            derived.shaw_score_curve(n_offsets, state.shaw_clip, state.d_model, state.seed),
        ),
        Curve(
            "xl",
            "xl",
            "Transformer-XL: q·W_R R(k) + v·W_R R(k)",
            derived.xl_position_curve(n_offsets, state.d_model, float(state.base), state.seed),
        ),
    ]
    return lines


def numbers(state: ExplorerState) -> MethodNumbers:
    """Each curve's score at k = |offset| and at k = 2L."""
    k, far = abs(state.offset), 2 * state.train_length
    rows = tuple(
        MethodRow(
            line.method, line.css_name, line.label, float(line.scores[k]), float(line.scores[far])
        )
        for line in curves(state)
    )
    return MethodNumbers(k, far, state.train_length, state.method, rows)


def _number(value: float) -> str:
    # Adding 0.0 turns -0.0 into 0.0, so an exact zero never shows a sign.
    return f"{value + 0.0:.6f}"


def readout(state: ExplorerState) -> str:
    """The table of each method's score at k and at 2L (numbers and our own words only)."""
    shown = numbers(state)
    lines = [
        '<table class="pe-methods">',
        f'<caption>k = |{state.offset}| = <span class="pe-methods-offset">{shown.offset}</span>'
        f' · training length L = <span class="pe-methods-train-length">{shown.train_length}'
        "</span></caption>",
        "<thead><tr><th>method</th><th>score at k</th>"
        f"<th>at 2L = {shown.far_offset}</th>"
        '<th class="pe-beyond">beyond L</th></tr></thead><tbody>',
    ]
    for index, row in enumerate(shown.rows):
        current = ' class="pe-current"' if row.method == shown.method else ""
        first_of_method = index == 0 or shown.rows[index - 1].method != row.method
        span = sum(other.method == row.method for other in shown.rows)
        rowspan = f' rowspan="{span}"' if span > 1 else ""
        beyond = (
            f'<td{rowspan} class="pe-beyond pe-method-{row.method}-beyond">'
            f"{' '.join(BEYOND[row.method])}</td>"
            if first_of_method
            else ""
        )
        lines.append(
            f"<tr{current}><td>{row.label}</td>"
            f'<td class="pe-method-{row.css_name}-at-k">{_number(row.at_offset)}</td>'
            f'<td class="pe-method-{row.css_name}-at-2l">{_number(row.at_far)}</td>{beyond}</tr>'
        )
    lines.append("</tbody></table>")
    return "".join(lines)


def translucent(colour: str, alpha: float) -> str:
    """A #rrggbb colour as rgba with the given alpha."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def beyond_label(method: str) -> str:
    """The chart's words on what each method does beyond L, the current method's in bold."""
    lines = []
    # The relative methods' words are in the readout's table only: a phone has no room for them.
    for name, words in BEYOND.items():
        if name in RELATIVE:
            continue
        # Continuation lines are indented with no-break spaces (SVG text collapses plain ones).
        parts = [f"{NAMES[name]} — {words[0]}", *("\u00a0\u00a0\u00a0" + w for w in words[1:])]
        for part in parts:
            text = f"<b>{part}</b>" if name == method else part
            lines.append(f'<span style="color:{COLOURS[name]}">{text}</span>')
    return "<br>".join(lines)


def figure(state: ExplorerState) -> dict:
    """Every method's position-only score against k = 0 … max(n − 1, 2L), the current one
    emphasised, the offsets beyond the training length L shaded."""
    palette = theme.colours(state.theme)
    last = last_offset(state)
    k = abs(state.offset)
    lines = curves(state)
    offsets = np.arange(last + 1)
    traces = []
    for number, line in enumerate(lines):
        current = line.method == state.method
        # ALiBi's gentlest head is dashed: the same colour as its steepest, told apart.
        dash = DASHES.get(line.css_name, "solid")
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": offsets,
                "y": line.scores,
                "name": line.label,
                "legendrank": number + 1,
                "opacity": 1.0 if current else OTHER_OPACITY,
                "line": {
                    "color": COLOURS[line.method],
                    "width": CURRENT_WIDTH if current else OTHER_WIDTH,
                    "dash": dash,
                },
                "hovertemplate": f"{line.label}<br>k = %{{x}}<br>score = %{{y:.6f}}<extra></extra>",
            }
        )
    marked = [line for line in lines if line.method == state.method]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.full(len(marked), k),
            "y": np.array([line.scores[k] for line in marked]),
            "name": f"k = {k}",
            "legendrank": len(lines) + 1,
            "marker": {
                "color": COLOURS[state.method],
                "size": 11,
                "symbol": "diamond",
                "line": {"color": palette["pos"], "width": 1.5},
            },
            "hovertemplate": f"k = {k}<br>score = %{{y:.6f}}<extra></extra>",
        }
    )
    train_length = state.train_length
    sequence_end = state.n_positions - 1
    on_right = sequence_end > last / 2
    shapes = [
        {
            "type": "rect",
            "xref": "x",
            "yref": "paper",
            "x0": train_length,
            "x1": last,
            "y0": 0,
            "y1": 1,
            "fillcolor": palette["grid"],
            "opacity": 0.5,
            "line": {"width": 0},
            "layer": "below",
            "name": "beyond the training length",
        },
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": train_length,
            "x1": train_length,
            "y0": 0,
            "y1": 1,
            "line": {"color": palette["text"], "width": 1.5, "dash": "dash"},
            "name": "training length",
        },
        # The sequence's own longest offset: is the text shown longer than training was?
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": sequence_end,
            "x1": sequence_end,
            "y0": 0,
            "y1": 1,
            "line": {"color": palette["second"], "width": 1, "dash": "dot"},
            "name": "sequence end",
        },
    ]
    annotations = [
        offset_label(f"training length L = {train_length}", train_length, palette["text"], "x"),
        {
            "text": beyond_label(state.method),
            "xref": "x",
            "yref": "paper",
            "x": train_length,
            "xshift": 6,
            "xanchor": "left",
            "y": 0.98,
            "yanchor": "top",
            "align": "left",
            "showarrow": False,
            "bgcolor": translucent(palette["paper"], 0.8),
            "font": {"size": 11},
        },
        {
            "text": f"n = {state.n_positions} positions: k ≤ {sequence_end}",
            "xref": "x",
            "yref": "paper",
            "x": sequence_end,
            # Written on the side with room: left of the line unless it is near k = 0.
            "xshift": -4 if on_right else 4,
            "xanchor": "right" if on_right else "left",
            "y": 0.02,
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 11, "color": palette["second"]},
        },
    ]
    title = f"Position part of the score against k: <b>{NAMES[state.method]}</b> (the others faded)"
    layout = titled_layout(state, f"methods-{last}-{state.d_model}", title)
    layout.update(
        margin={"l": 64, "r": 24, "t": 72, "b": 80},
        xaxis=theme.axis(state.theme, title={"text": "offset k"}, range=[0, last]),
        yaxis=theme.axis(state.theme, title={"text": "position part of the score"}),
        shapes=shapes,
        annotations=annotations,
    )
    layout["legend"] = {"orientation": "h", "y": -0.16, "x": 0}
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: each curve's score at k = |offset|."""
    shown = numbers(state)
    scores = "; ".join(f"{row.label}: {four_decimals(row.at_offset)}" for row in shown.rows)
    return (
        f"Position part of the score against offset k = 0 … {last_offset(state)}, training "
        f"length L = {shown.train_length} shaded beyond, {NAMES[shown.method]} emphasised; "
        f"at k = {shown.offset}: {scores}"
    )


def data(state: ExplorerState) -> ChartData:
    """Each curve's score at the offsets near k = |offset|."""
    lines = curves(state)
    k = abs(state.offset)
    offsets = window(k, last_offset(state) + 1, DATA_ROWS)
    return ChartData(
        caption=f"Position part of the score near k = {k}",
        columns=("k", *(line.label for line in lines)),
        rows=tuple((o, *(line.scores[o] for line in lines)) for o in offsets),
        note=f"Offsets {span_text(offsets)} of 0–{last_offset(state)} shown, near k = {k}.",
    )

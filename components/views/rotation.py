"""Pair i of PE(pos) and PE(pos + k) on the unit circle: moving by k turns it by k·ω_i."""

from __future__ import annotations

import math

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import ChartData
from ..plotkit.numbers import number, readout_number
from ..state import ExplorerState

ARC_RADIUS = 0.3

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
.pe-rotation-readouts { font-variant-numeric: tabular-nums; line-height: 1.5; }
.pe-rotation-readouts p { margin: 0.3em 0; }
.pe-rotation-matrices { display: flex; flex-wrap: wrap; gap: 0.3em 1.5em; }
.pe-rotation-matrices figure { margin: 0.2em 0; }
.pe-rotation-matrices figcaption { margin-bottom: 0.2em; }
table.pe-matrix { border-left: 2px solid currentColor; border-right: 2px solid currentColor;
                  border-radius: 4px; border-collapse: separate; padding: 0 0.2em; }
.pe-matrix td { padding: 0 0.4em; text-align: right; }
"""


def matrix_html(matrix: np.ndarray, css_class: str) -> str:
    """A 2 × 2 matrix as a bracketed table, as readouts print numbers (9 decimals)."""
    cells = "".join(
        "<tr>" + "".join(f"<td>{readout_number(value)}</td>" for value in row) + "</tr>"
        for row in matrix
    )
    return f'<table class="pe-matrix {css_class}">{cells}</table>'


def readout(state: ExplorerState) -> str:
    """R_i(k) three ways and the whole-vector check, as text (numbers only)."""
    shown = derived.pair_rotation(state)
    k, pos, second, far = state.offset, state.pos, state.second_pos, shown.far_start
    difference = float(np.abs(shown.measured - shown.measured_far).max())
    return (
        '<div class="pe-rotation-readouts">'
        f"<p>Pair i = {shown.pair}: from pos to pos + k the point turns by k·ω<sub>i</sub> = "
        f'<span class="pe-rotation-angle">{shown.angle + 0.0:.6f}</span> rad.</p>'
        '<div class="pe-rotation-matrices">'
        f"<figure><figcaption>R<sub>{shown.pair}</sub>({k}) from its formula</figcaption>"
        f"{matrix_html(shown.formula, 'pe-rotation-formula')}</figure>"
        f"<figure><figcaption>read off PE({pos}) → PE({second})</figcaption>"
        f"{matrix_html(shown.measured, 'pe-rotation-matrix')}</figure>"
        f"<figure><figcaption>read off PE({far}) → PE({far + k})</figcaption>"
        f"{matrix_html(shown.measured_far, 'pe-rotation-matrix-other')}</figure>"
        "</div>"
        f"<p>The same matrix wherever the pair starts (largest difference "
        f'<span class="pe-rotation-difference">{difference:.1e}</span>): R(k) depends on k '
        "alone.</p>"
        f"<p>Whole vector, all {state.d_model} dimensions: ‖PE({second}) − R({k})·PE({pos})‖ = "
        f'<span class="pe-rotation-error">{shown.error:.1e}</span></p>'
        "</div>"
    )


def arc(start: float, turn: float, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Points (sin θ, cos θ)·radius for θ from start over turn radians."""
    theta = start + np.linspace(0.0, turn, max(2, math.ceil(abs(turn) / 0.05) + 1))
    return radius * np.sin(theta), radius * np.cos(theta)


def _circle_axis(state: ExplorerState, text: str, **extra) -> dict:
    """An axis of the unit circle's plot: −1.3 … 1.3, with its zero line."""
    return theme.axis(
        state.theme,
        range=[-1.3, 1.3],
        title={"text": text},
        zeroline=True,
        constrain="domain",
        **extra,
    )


def _circle_traces(state: ExplorerState, shown: derived.PairRotation) -> list[dict]:
    """The unit circle, and the arc turning PE(pos)'s point by k·ω_i (its remainder mod 2π)."""
    k, omega = state.offset, shown.omega
    turn = math.copysign(math.fmod(abs(k) * omega, 2 * math.pi), k)
    circle_x, circle_y = arc(0.0, 2 * math.pi, 1.0)
    arc_x, arc_y = arc(state.pos * omega, turn, ARC_RADIUS)
    palette = theme.colours(state.theme)
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "x": circle_x,
            "y": circle_y,
            "line": {"color": palette["grid"], "width": 1.5},
            "name": "unit circle",
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": arc_x,
            "y": arc_y,
            "line": {"color": palette["second"], "width": 2.5},
            "name": f"k·ω<sub>{shown.pair}</sub> = {shown.angle:.4f} rad",
            "hoverinfo": "skip",
        },
    ]


def _point_trace(shown: derived.PairRotation, position: int, point, style: tuple[str, str]) -> dict:
    """Pair i of PE(position): a line from the centre to its point (sin, cos), labelled."""
    colour, dash = style
    (sin_dim, cos_dim), (x, y) = shown.dimensions, point
    return {
        "type": "scatter",
        "mode": "lines+markers+text",
        "x": np.array([0.0, x]),
        "y": np.array([0.0, y]),
        "line": {"color": colour, "width": 2, "dash": dash},
        "marker": {"color": colour, "size": np.array([0, 11])},
        "text": ["", f"PE({position})"],
        "textposition": "top center" if y >= 0 else "bottom center",
        "textfont": {"color": colour},
        "name": f"pair {shown.pair} of PE({position})",
        "hovertemplate": f"PE({position}, {sin_dim}) = sin = %{{x:.6f}}<br>"
        f"PE({position}, {cos_dim}) = cos = %{{y:.6f}}<extra></extra>",
    }


def figure(state: ExplorerState) -> dict:
    """The unit circle, pair i of PE(pos) and PE(pos + k) on it, and the angle k·ω_i between."""
    shown = derived.pair_rotation(state)
    i, (sin_dim, cos_dim), pos, second = shown.pair, shown.dimensions, state.pos, state.second_pos
    styles = ((theme.PAIR_COLOURS[0], "solid"), (theme.PAIR_COLOURS[1], "dash"))
    traces = _circle_traces(state, shown) + [
        _point_trace(shown, position, point, style)
        for position, point, style in zip((pos, second), shown.points, styles, strict=True)
    ]
    title = (
        f"Pair i = {i} (dimensions {sin_dim}, {cos_dim}), ω<sub>{i}</sub> = "
        f"{shown.omega:.6g}: turned by {shown.angle:.4f} rad, PE({pos}) is PE({second})"
    )
    layout = titled_layout(state, "rotation", title, 14)
    layout.update(
        xaxis=_circle_axis(state, f"sin(pos·ω<sub>{i}</sub>)"),
        yaxis=_circle_axis(state, f"cos(pos·ω<sub>{i}</sub>)", scaleanchor="x"),
        margin={"l": 64, "r": 24, "t": 56, "b": 48},
        legend={"orientation": "v", "x": 1.0, "xanchor": "right", "y": 0.0, "yanchor": "bottom"},
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the two points of pair i and the angle between them."""
    shown = derived.pair_rotation(state)
    first, second = shown.points
    return (
        f"Pair i = {shown.pair} on the unit circle: PE({state.pos}) at (sin, cos) = "
        f"({number(first[0])}, {number(first[1])}), turned by k·ω_{shown.pair} = "
        f"{number(shown.angle)} rad to PE({state.second_pos}) at "
        f"({number(second[0])}, {number(second[1])})"
    )


def data(state: ExplorerState) -> ChartData:
    """The two points of pair i and the rotation R_i(k) between them."""
    shown = derived.pair_rotation(state)
    first, second = shown.points
    (sin_dim, cos_dim), i = shown.dimensions, shown.pair
    return ChartData(
        caption=f"Pair i = {i} (dimensions {sin_dim}, {cos_dim}) of PE(pos) and PE(pos + k)",
        columns=("point", f"sin(pos·ω_{i})", f"cos(pos·ω_{i})"),
        rows=(
            (f"PE({state.pos})", *first),
            (f"PE({state.second_pos})", *second),
            (f"R_{i}({state.offset}), row 1", *shown.formula[0]),
            (f"R_{i}({state.offset}), row 2", *shown.formula[1]),
        ),
        note=f"The angle k·ω_{i} = {number(shown.angle)} rad.",
    )

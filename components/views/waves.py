"""Sine and cosine waves of chosen dimension pairs, sampled at the integer positions."""

from __future__ import annotations

import math

import numpy as np

from .. import encoding
from ..plotkit import theme
from ..plotkit.frame import DATA_ROWS, ChartData, span_text, window
from ..plotkit.numbers import number
from ..state import ExplorerState

# Points per wavelength of the continuous curves, and bounds on points per curve.
SAMPLES_PER_WAVELENGTH = 24
MIN_CURVE_POINTS, MAX_CURVE_POINTS = 200, 8000
# Integer positions beyond this many are drawn as lines only (dots would merge anyway).
MAX_SAMPLE_DOTS = 512


def curve_points(span: float, wavelength: float) -> int:
    """How many points draw a smooth curve of this wavelength over [0, span]."""
    wanted = math.ceil(SAMPLES_PER_WAVELENGTH * span / wavelength) + 1
    return int(min(max(wanted, MIN_CURVE_POINTS), MAX_CURVE_POINTS))


FUNCTIONS = {"sin": np.sin, "cos": np.cos}


def _wave_trace(mode: str, points: tuple, axis_name: str, name: str, hover: str, **style) -> dict:
    """One function of a pair: its points (x, y) on the row's y axis, styled by style."""
    x, y = points
    return {
        "type": "scatter",
        "mode": mode,
        "x": x,
        "y": y,
        "yaxis": axis_name,
        "name": name,
        "hovertemplate": hover,
        **style,
    }


def figure(state: ExplorerState) -> dict:
    """One row per chosen pair: continuous sin and cos, samples at integer positions, pos lines."""
    pairs = state.chosen_pairs
    omega = encoding.angular_frequencies(state.d_model, state.base)
    wavelength = 2.0 * np.pi / omega
    span = float(max(state.n_positions - 1, state.pos, state.second_pos, 1))
    integer_positions = np.arange(0, int(span) + 1, dtype=np.float64)
    show_dots = integer_positions.size <= MAX_SAMPLE_DOTS
    palette = theme.colours(state.theme)
    n_rows = len(pairs)
    gap = 0.06 if n_rows > 1 else 0.0
    # Its own height: one row per pair.
    height = 120 + 130 * n_rows
    layout = theme.base_layout(state.theme, uirevision=f"waves-{state.d_model}-{state.n_positions}")
    layout["height"] = height
    traces = []
    for row, i in enumerate(pairs):
        colour = theme.PAIR_COLOURS[row % len(theme.PAIR_COLOURS)]
        axis_name = "y" if row == 0 else f"y{row + 1}"
        key = "yaxis" if row == 0 else f"yaxis{row + 1}"
        top = 1.0 - row / n_rows
        bottom = 1.0 - (row + 1) / n_rows + (gap if row < n_rows - 1 else 0.0)
        layout[key] = theme.axis(
            state.theme,
            domain=[bottom, top],
            range=[-1.15, 1.15],
            tickvals=[-1, 0, 1],
            title={"text": f"i = {i}", "font": {"size": 12}},
        )
        x = np.linspace(0.0, span, curve_points(span, wavelength[i]))
        group = f"pair {i}"
        label = f"i = {i}, λ = {wavelength[i]:.4g}"
        for function, dash in (("sin", "solid"), ("cos", "dash")):
            traces.append(
                _wave_trace(
                    "lines",
                    (x, FUNCTIONS[function](x * omega[i])),
                    axis_name,
                    f"{function} · {label}",
                    f"{function}(pos·ω_{i})<br>pos %{{x:.2f}}<br>%{{y:.6f}}<extra></extra>",
                    line={"color": colour, "dash": dash, "width": 1.6},
                    legendgroup=group,
                )
            )
        if show_dots:
            for function, symbol in (("sin", "circle"), ("cos", "circle-open")):
                traces.append(
                    _wave_trace(
                        "markers",
                        (integer_positions, FUNCTIONS[function](integer_positions * omega[i])),
                        axis_name,
                        f"{function} at integer pos · i = {i}",
                        f"{function}(pos·ω_{i}) at pos %{{x}}<br>%{{y:.6f}}<extra></extra>",
                        marker={"color": colour, "size": 5, "symbol": symbol},
                        legendgroup=group,
                        showlegend=False,
                    )
                )
    layout["xaxis"] = theme.axis(
        state.theme,
        title={"text": "position pos"},
        range=[-0.5, span + 0.5],
        anchor="y" if n_rows == 1 else f"y{n_rows}",
    )
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": position,
            "x1": position,
            "y0": 0,
            "y1": 1,
            "line": {"color": palette[key], "width": 2, "dash": dash},
            "name": name,
        }
        for position, key, dash, name in (
            (state.pos, "pos", "solid", "pos"),
            (state.second_pos, "second", "dot", "pos+k"),
        )
    ]
    layout["title"] = {
        "text": f"Waves of {n_rows} pairs: solid sin, dashed cos; lines at pos = {state.pos} "
        f"and pos + k = {state.second_pos}",
        "x": 0,
        "font": {"size": 15},
    }
    layout["legend"] = {"orientation": "h", "y": -60 / height - 0.02, "x": 0}
    layout["margin"] = {"l": 64, "r": 24, "t": 48, "b": 90}
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the pairs drawn and their sine and cosine at pos."""
    pairs = state.chosen_pairs
    (row,) = encoding.encode_positions([state.pos], state.d_model, state.base, layout=state.layout)
    values = "; ".join(
        f"pair {i}: sin {number(row[sin])}, cos {number(row[cos])}"
        for i in pairs
        for sin, cos in [encoding.pair_columns(state.d_model, state.layout, i)]
    )
    return (
        f"Sine and cosine waves of {len(pairs)} pairs against position, lines at "
        f"pos = {state.pos} and pos + k = {state.second_pos}; at pos {state.pos}: {values}"
    )


def data(state: ExplorerState) -> ChartData:
    """The sines and cosines of the pairs drawn at the whole positions near pos."""
    pairs = state.chosen_pairs
    span = max(state.n_positions - 1, state.pos, state.second_pos, 1)
    positions = window(state.pos, span + 1, DATA_ROWS)
    values = encoding.encode_positions(
        np.asarray(positions), state.d_model, state.base, layout=state.layout
    )
    columns = [encoding.pair_columns(state.d_model, state.layout, i) for i in pairs]
    return ChartData(
        caption=f"sin(pos·ω_i) and cos(pos·ω_i) near pos = {state.pos}",
        columns=("pos", *(f"{name} i = {i}" for i in pairs for name in ("sin", "cos"))),
        rows=tuple(
            (p, *(row[c] for pair in columns for c in pair))
            for p, row in zip(positions, values, strict=True)
        ),
        note=f"Positions {span_text(positions)} of 0–{span} shown, near pos = {state.pos}.",
    )

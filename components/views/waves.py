"""Sine and cosine waves of chosen dimension pairs, sampled at the integer positions."""

from __future__ import annotations

from .. import derived
from ..plotkit import theme
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.numbers import number
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

# The gap between two rows of waves, as a part of the figure's height.
ROW_GAP = 0.06


def span(state: ExplorerState) -> int:
    """The last position drawn: the last shown one, or pos or pos + k beyond it."""
    return max(state.n_positions - 1, state.pos, state.second_pos, 1)


def _pair_traces(state: ExplorerState, pair: int, colour: str) -> list[dict]:
    """Pair i's smooth sine (solid) and cosine (dashed), and their dots at whole positions."""
    base = float(state.base)
    wave = derived.pair_wave(span(state), state.d_model, base, pair)
    label = f"i = {pair}, λ = {derived.wavelengths(state.d_model, base)[pair]:.4g}"
    traces = []
    for function, values, dash in (("sin", wave.sin, "solid"), ("cos", wave.cos, "dash")):
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": wave.x,
                "y": values,
                "name": f"{function} · {label}",
                "hovertemplate": f"{function}(pos·ω_{pair})<br>pos %{{x:.2f}}<br>%{{y:.6f}}"
                "<extra></extra>",
                "line": {"color": colour, "dash": dash, "width": 1.6},
                "legendgroup": f"pair {pair}",
            }
        )
    if wave.positions.size:
        traces += _sample_dots(wave, pair, colour)
    return traces


def _sample_dots(wave: derived.PairWave, pair: int, colour: str) -> list[dict]:
    """The sine (filled) and cosine (open) of pair i at the whole positions."""
    return [
        {
            "type": "scatter",
            "mode": "markers",
            "x": wave.positions,
            "y": values,
            "name": f"{function} at integer pos · i = {pair}",
            "hovertemplate": f"{function}(pos·ω_{pair}) at pos %{{x}}<br>%{{y:.6f}}<extra></extra>",
            "marker": {"color": colour, "size": 5, "symbol": symbol},
            "legendgroup": f"pair {pair}",
            "showlegend": False,
        }
        for function, values, symbol in (
            ("sin", wave.sampled_sin, "circle"),
            ("cos", wave.sampled_cos, "circle-open"),
        )
    ]


def pair_subplot(state: ExplorerState, row: int, pair: int) -> Subplot:
    """Row row of the figure: pair i's waves, against the position axis of the last row."""
    rows = len(state.chosen_pairs)
    top = 1.0 - row / rows
    bottom = 1.0 - (row + 1) / rows + (ROW_GAP if row < rows - 1 else 0.0)
    last = row == rows - 1
    x_axis = {"range": [-0.5, span(state) + 0.5]}
    if last:
        x_axis["title"] = {"text": "position pos"}
    else:
        x_axis.update(matches=f"x{rows}", showticklabels=False)
    y_axis = {
        "range": [-1.15, 1.15],
        "tickvals": [-1, 0, 1],
        "title": {"text": f"i = {pair}", "font": {"size": 12}},
    }
    colour = theme.PAIR_COLOURS[row % len(theme.PAIR_COLOURS)]
    return Subplot(_pair_traces(state, pair, colour), x_axis, y_axis, ((0.0, 1.0), (bottom, top)))


def position_lines(state: ExplorerState) -> list[dict]:
    """Lines across every row at pos (solid) and pos + k (dotted)."""
    palette = theme.colours(state.theme)
    return [
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


def figure(state: ExplorerState) -> dict:
    """One row per chosen pair: continuous sin and cos, samples at integer positions, pos lines."""
    pairs = state.chosen_pairs
    # Its own height: one row per pair.
    height = 120 + 130 * len(pairs)
    layout = theme.base_layout(state.theme, uirevision=f"waves-{state.d_model}-{state.n_positions}")
    layout.update(
        height=height,
        shapes=position_lines(state),
        title={
            "text": f"Waves of {len(pairs)} pairs: solid sin, dashed cos; lines at pos = "
            f"{state.pos} and pos + k = {state.second_pos}",
            "x": 0,
            "font": {"size": 15},
        },
        legend={"orientation": "h", "y": -60 / height - 0.02, "x": 0},
        margin={"l": 64, "r": 24, "t": 48, "b": 90},
    )
    return compose(state, layout, [pair_subplot(state, row, i) for row, i in enumerate(pairs)])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the pairs drawn and their sine and cosine at pos."""
    pairs = state.chosen_pairs
    (at_pos,) = derived.pair_samples([state.pos], state.d_model, state.base, state.layout, pairs)
    values = "; ".join(
        f"pair {i}: sin {number(sin)}, cos {number(cos)}"
        for i, (sin, cos) in zip(pairs, at_pos, strict=True)
    )
    return (
        f"Sine and cosine waves of {len(pairs)} pairs against position, lines at "
        f"pos = {state.pos} and pos + k = {state.second_pos}; at pos {state.pos}: {values}"
    )


def data(state: ExplorerState) -> ChartData:
    """The sines and cosines of the pairs drawn at the whole positions near pos."""
    pairs = state.chosen_pairs
    last = span(state)
    positions = indices_near(state.pos, last + 1, DATA_ROWS)
    samples = derived.pair_samples(positions, state.d_model, state.base, state.layout, pairs)
    return ChartData(
        caption=f"sin(pos·ω_i) and cos(pos·ω_i) near pos = {state.pos}",
        columns=("pos", *(f"{name} i = {i}" for i in pairs for name in ("sin", "cos"))),
        rows=tuple((p, *row.ravel()) for p, row in zip(positions, samples, strict=True)),
        note=f"Positions {span_text(positions)} of 0–{last} shown, near pos = {state.pos}.",
    )

"""Why the encoding works: unique, bounded and smooth, and how close far positions can come."""

from __future__ import annotations

import math

import numpy as np

from .. import derived, encoding
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.numbers import number
from ..state import ExplorerState

HORIZON = encoding.NEAREST_HORIZON
# The last position searched, with a thin space between thousands: "9 999".
LAST_SEARCHED = f"{HORIZON - 1:,}".replace(",", "\u2009")

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
ul.pe-properties { margin: 0.3em 0; padding-left: 1.2em; line-height: 1.5;
                   font-variant-numeric: tabular-nums; }
ul.pe-properties li { margin: 0.15em 0; }
"""


def readout(state: ExplorerState) -> str:
    """The four properties as a list of sentences with their numbers (numbers only)."""
    shown = derived.position_properties(state)
    n, pos = state.n_positions, state.pos
    if shown.closest_pair is None:
        unique = "only one position is shown, so there is no pair to compare."
    else:
        k, distance = shown.closest_pair
        unique = (
            f"the closest two of the {n} shown positions are k = {k} apart, at distance "
            f'<span class="pe-prop-uniqueness">{distance:.6f}</span>, so no two rows are equal '
            "(the distance depends only on |i − j|, so checking each k once is enough)."
        )
    q, distance = shown.nearest
    return (
        '<ul class="pe-properties">'
        f"<li><b>Unique</b>: {unique}</li>"
        f"<li><b>Nearest to pos</b>: among positions 0 … {LAST_SEARCHED}, PE({pos}) is "
        "nearest to "
        f'<span class="pe-prop-nearest">PE({q})</span> at distance '
        f'<span class="pe-prop-nearest-distance">{distance:.6f}</span>. With few dimensions '
        "far positions can come back close: try d<sub>model</sub> = 4.</li>"
        f"<li><b>Bounded</b>: every entry lies between "
        f'<span class="pe-prop-bounds">{shown.smallest + 0.0:.6f} and {shown.largest:.6f}</span>'
        f", and every row has length √(d<sub>model</sub>/2) = {shown.row_norm:.6f}, "
        "however long the text.</li>"
        f"<li><b>Smooth</b>: neighbours are "
        f'<span class="pe-prop-smoothness">{shown.neighbour:.6f}</span> apart, against '
        f"{shown.mean_distance:.6f} on average from PE({pos}) over the horizon.</li>"
        "</ul>"
    )


def _traces(state: ExplorerState, shown: derived.PositionProperties) -> list[dict]:
    """The distance curve from PE(pos), the nearest position (a star) and pos itself."""
    pos, (q, nearest) = state.pos, shown.nearest
    palette = theme.colours(state.theme)
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "x": np.arange(HORIZON),
            "y": shown.distances,
            "line": {"color": theme.PAIR_COLOURS[0], "width": 1},
            "name": f"‖PE(q) − PE({pos})‖",
            "hovertemplate": f"q = %{{x}}<br>‖PE(q) − PE({pos})‖ = %{{y:.6f}}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([q]),
            "y": np.array([nearest]),
            "marker": {"color": palette["second"], "size": 12, "symbol": "star"},
            "name": f"nearest: PE({q}), {nearest:.4f}",
            "hovertemplate": f"nearest q = {q}<br>distance %{{y:.6f}}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([pos]),
            "y": np.array([0.0]),
            "marker": {"color": palette["pos"], "size": 9},
            "name": f"pos = {pos}",
            "hovertemplate": f"pos = {pos}<extra></extra>",
        },
    ]


def shown_positions(state: ExplorerState) -> dict:
    """A band under the curve over the positions the other views show, 0 … n − 1."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": -0.5,
        "x1": state.n_positions - 0.5,
        "y0": 0,
        "y1": 1,
        "fillcolor": theme.colours(state.theme)["grid"],
        "opacity": 0.35,
        "line": {"width": 0},
        "layer": "below",
        "name": "shown positions",
    }


def figure(state: ExplorerState) -> dict:
    """Distance from PE(pos) to PE(q) for every q in the horizon, the nearest q marked."""
    d, base, pos = state.d_model, float(state.base), state.pos
    shown = derived.position_properties(state)
    q, nearest = shown.nearest
    title = f"‖PE(q) − PE({pos})‖ for q < {HORIZON}: nearest is PE({q}), {nearest:.4f}"
    layout = titled_layout(state, f"properties-{d}-{base}", title, 14)
    layout.update(
        xaxis=theme.axis(state.theme, title={"text": "position q"}),
        # Two rows are at most √(2·d_model) apart.
        yaxis=theme.axis(
            state.theme,
            title={"text": "distance"},
            range=[0.0, 1.05 * math.sqrt(2 * d)],
            rangemode="tozero",
        ),
        shapes=[shown_positions(state)],
        margin={"l": 64, "r": 24, "t": 48, "b": 80},
        legend={"orientation": "h", "y": -0.2, "x": 0},
    )
    return {"data": _traces(state, shown), "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the nearest position to pos and the bounds."""
    shown = derived.position_properties(state)
    q, distance = shown.nearest
    return (
        f"Distance from PE({state.pos}) to PE(q) for q below {HORIZON}: nearest is PE({q}) at "
        f"{number(distance)}; neighbours are {number(shown.neighbour)} apart; every entry "
        f"between {number(shown.smallest)} and {number(shown.largest)}"
    )


def data(state: ExplorerState) -> ChartData:
    """The distances from PE(pos) to the positions near it, and to the nearest one."""
    pos = state.pos
    shown = derived.position_properties(state)
    listed = indices_near(pos, HORIZON, DATA_ROWS)
    q, distance = shown.nearest
    return ChartData(
        caption=f"Distance ‖PE(q) − PE({pos})‖ near q = pos = {pos}",
        columns=("q", f"‖PE(q) − PE({pos})‖"),
        rows=tuple((p, shown.distances[p]) for p in listed),
        note=f"Positions {span_text(listed)} of 0–{HORIZON - 1} shown; the nearest to PE({pos}) "
        f"is PE({q}), at {number(distance)}.",
    )

"""Why the encoding works: unique, bounded and smooth, and how close far positions can come."""

from __future__ import annotations

import math

import numpy as np

from .. import derived, encoding
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.numbers import number
from ..plotkit.picked_texts import filled, formatted, printed, whole, written
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


# ---- The texts, each written once (plotkit/picked_texts.py): numbers come printed ----------


def unique_text(n: int, closest_pair: tuple[int, float] | None) -> str:
    """The sentence on uniqueness, which pos does not change."""
    if closest_pair is None:
        return "only one position is shown, so there is no pair to compare."
    k, distance = closest_pair
    return (
        f"the closest two of the {n} shown positions are k = {k} apart, at distance "
        f'<span class="pe-prop-uniqueness">{distance:.6f}</span>, so no two rows are equal '
        "(the distance depends only on |i − j|, so checking each k once is enough)."
    )


def readout_text(
    *,
    unique: str,
    pos: str,
    nearest: str,
    nearest_distance: str,
    smallest: str,
    largest: str,
    row_norm: str,
    neighbour: str,
    mean_distance: str,
    **_: str,
) -> str:
    """The four properties as a list of sentences with their numbers (numbers only)."""
    return (
        '<ul class="pe-properties">'
        f"<li><b>Unique</b>: {unique}</li>"
        f"<li><b>Nearest to pos</b>: among positions 0 … {LAST_SEARCHED}, PE({pos}) is "
        "nearest to "
        f'<span class="pe-prop-nearest">PE({nearest})</span> at distance '
        f'<span class="pe-prop-nearest-distance">{nearest_distance}</span>. With few dimensions '
        "far positions can come back close: try d<sub>model</sub> = 4.</li>"
        f"<li><b>Bounded</b>: every entry lies between "
        f'<span class="pe-prop-bounds">{smallest} and {largest}</span>'
        f", and every row has length √(d<sub>model</sub>/2) = {row_norm}, "
        "however long the text.</li>"
        f"<li><b>Smooth</b>: neighbours are "
        f'<span class="pe-prop-smoothness">{neighbour}</span> apart, against '
        f"{mean_distance} on average from PE({pos}) over the horizon.</li>"
        "</ul>"
    )


def describe_text(
    *,
    pos: str,
    nearest: str,
    nearest_name: str,
    neighbour_name: str,
    smallest_name: str,
    largest_name: str,
    **_: str,
) -> str:
    """The chart's accessible name: the nearest position to pos and the bounds."""
    return (
        f"Distance from PE({pos}) to PE(q) for q below {HORIZON}: nearest is PE({nearest}) at "
        f"{nearest_name}; neighbours are {neighbour_name} apart; every entry between "
        f"{smallest_name} and {largest_name}"
    )


def title_text(*, pos: str, nearest: str, nearest_title: str, **_: str) -> str:
    """The figure's title."""
    return f"‖PE(q) − PE({pos})‖ for q < {HORIZON}: nearest is PE({nearest}), {nearest_title}"


def caption_text(*, pos: str, **_: str) -> str:
    """The Show data table's caption."""
    return f"Distance ‖PE(q) − PE({pos})‖ near q = pos = {pos}"


def curve_hovertemplate(*, pos: str, **_: str) -> str:
    """The hover of the distance curve."""
    return f"q = %{{x}}<br>‖PE(q) − PE({pos})‖ = %{{y:.6f}}<extra></extra>"


def nearest_hovertemplate(*, nearest: str, **_: str) -> str:
    """The hover of the nearest position's star."""
    return f"nearest q = {nearest}<br>distance %{{y:.6f}}<extra></extra>"


def pos_hovertemplate(*, pos: str, **_: str) -> str:
    """The hover of pos's marker."""
    return f"pos = {pos}<extra></extra>"


# ---- The numbers, printed for the texts --------------------------------------------------


def fixed_fields(state: ExplorerState, shown: derived.PositionProperties) -> dict[str, str]:
    """The numbers of the texts that pos does not change."""
    return {
        "unique": unique_text(state.n_positions, shown.closest_pair),
        "smallest": f"{shown.smallest + 0.0:.6f}",
        "largest": f"{shown.largest:.6f}",
        "row_norm": f"{shown.row_norm:.6f}",
        "neighbour": f"{shown.neighbour:.6f}",
        "neighbour_name": number(shown.neighbour),
        "smallest_name": number(shown.smallest),
        "largest_name": number(shown.largest),
    }


def moving_fields(positions, nearest, distances, means) -> dict[str, list[str]]:
    """The numbers the texts print at each pos: its nearest q, their distance, and the mean
    distance from pos (arrays, one entry per pos)."""
    return {
        "pos": whole(positions),
        "nearest": whole(nearest),
        "nearest_distance": formatted(distances, ".6f"),
        "nearest_title": formatted(distances, ".4f"),
        "nearest_name": printed(distances),
        "mean_distance": formatted(means, ".6f"),
    }


def state_fields(state: ExplorerState) -> dict:
    """Every number the state's texts print."""
    shown = derived.position_properties(state)
    (q, distance), mean = shown.nearest, shown.mean_distance
    moving = moving_fields([state.pos], [q], [distance], [mean])
    return {**fixed_fields(state, shown), **moving}


def readout(state: ExplorerState) -> str:
    """The four properties as a list of sentences with their numbers (numbers only)."""
    return written(readout_text, **state_fields(state))


# ---- The figure --------------------------------------------------------------------------


def _curve_traces(state: ExplorerState, curve: np.ndarray, fields: dict) -> list[dict]:
    """‖PE(q) − PE(pos)‖ = curve[|q − pos|]: the curve drawn from pos to the right (q = pos + j)
    and, unnamed, to the left (q = pos − j). Only where it starts moves with pos (its x0); the
    axis shows q = 0 … HORIZON − 1 of it."""
    common = {
        "type": "scatter",
        "mode": "lines",
        "y": curve,
        "x0": state.pos,
        "line": {"color": theme.PAIR_COLOURS[0], "width": 1},
        "name": "‖PE(q) − PE(pos)‖",
        "legendgroup": "distance",
        "hovertemplate": written(curve_hovertemplate, **fields),
    }
    return [{**common, "dx": 1}, {**common, "dx": -1, "showlegend": False}]


def _traces(state: ExplorerState, shown: derived.PositionProperties, fields: dict) -> list[dict]:
    """The distance curve from PE(pos), the nearest position (a star) and pos itself."""
    pos, (q, nearest) = state.pos, shown.nearest
    palette = theme.colours(state.theme)
    curve = derived.offset_distance_curve(state.d_model, float(state.base))
    # The markers may sit on the axis's ends, q = 0 or q = HORIZON − 1: drawn whole.
    return [
        *_curve_traces(state, curve, fields),
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([q]),
            "y": np.array([nearest]),
            "marker": {"color": palette["second"], "size": 12, "symbol": "star"},
            "cliponaxis": False,
            "name": "nearest to PE(pos)",
            "hovertemplate": written(nearest_hovertemplate, **fields),
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([pos]),
            "y": np.array([0.0]),
            "marker": {"color": palette["pos"], "size": 9},
            "cliponaxis": False,
            "name": "pos",
            "hovertemplate": written(pos_hovertemplate, **fields),
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
    d, base = state.d_model, float(state.base)
    shown = derived.position_properties(state)
    fields = state_fields(state)
    layout = titled_layout(state, f"properties-{d}-{base}", written(title_text, **fields), 14)
    layout.update(
        # The curve runs on past both ends of the horizon (its two halves start at pos): the
        # axis, autoranged or not, shows the horizon.
        xaxis=theme.axis(
            state.theme,
            title={"text": "position q"},
            range=[0, HORIZON - 1],
            autorangeoptions={"clipmin": 0, "clipmax": HORIZON - 1},
        ),
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
    return {"data": _traces(state, shown, fields), "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the nearest position to pos and the bounds."""
    return written(describe_text, **state_fields(state))


def data(state: ExplorerState) -> ChartData:
    """The distances from PE(pos) to the positions near it, and to the nearest one."""
    pos = state.pos
    shown = derived.position_properties(state)
    listed = indices_near(pos, HORIZON, DATA_ROWS)
    q, distance = shown.nearest
    return ChartData(
        caption=written(caption_text, pos=str(pos)),
        columns=("q", f"‖PE(q) − PE({pos})‖"),
        rows=tuple((p, shown.distances[p]) for p in listed),
        note=f"Positions {span_text(listed)} of 0–{HORIZON - 1} shown; the nearest to PE({pos}) "
        f"is PE({q}), at {number(distance)}.",
    )


# ---- What a drag of pos moves (plotkit/picks.py) -------------------------------------------


def axis_updates(state: ExplorerState, moved: picks_kit.Moved, nearest, distances) -> list:
    """Where the curve starts, the star, pos's marker, the title, the name, the caption and the
    readout at each pos of the slider (nearest, distances: its nearest q and their distance;
    rows of the tables of picks)."""
    count, positions, rows = moved.count, moved.firsts, np.arange(moved.count)
    curve = derived.offset_distance_curve(state.d_model, float(state.base))
    means = encoding.mean_distances(positions, curve)
    fixed = fixed_fields(state, derived.position_properties(state))
    fields = {**fixed, **moving_fields(positions, nearest, distances, means)}
    starts = positions.astype(np.float64)
    curve_hover = filled(count, curve_hovertemplate, **fields)
    return [
        *(picks_kit.Update("trace", "x0", trace, each=starts) for trace in (0, 1)),
        *(picks_kit.Update("trace", "hovertemplate", trace, text=curve_hover) for trace in (0, 1)),
        picks_kit.Update("trace", "x", 2, rows="nearest", index=rows),
        picks_kit.Update("trace", "y", 2, rows="nearest_distance", index=rows),
        picks_kit.Update(
            "trace", "hovertemplate", 2, text=filled(count, nearest_hovertemplate, **fields)
        ),
        picks_kit.Update("trace", "x", 3, rows="pos", index=rows),
        picks_kit.Update(
            "trace", "hovertemplate", 3, text=filled(count, pos_hovertemplate, **fields)
        ),
        picks_kit.Update("layout", "title.text", text=filled(count, title_text, **fields)),
        picks_kit.Update("label", text=filled(count, describe_text, **fields)),
        picks_kit.Update("caption", text=filled(count, caption_text, **fields)),
        picks_kit.Update("pane", "pe-readout-pane", text=filled(count, readout_text, **fields)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks:
    """What a drag of pos moves: the distance curve, the nearest position and pos marked, the
    title, the name, the caption and the readout."""
    pos_axis = picks_kit.moved_positions(state)[0]
    curve = derived.offset_distance_curve(state.d_model, float(state.base))
    nearest, distances = encoding.nearest_positions(pos_axis.firsts, curve)
    tables = {
        "nearest": nearest.astype(np.float64)[:, None],
        "nearest_distance": distances[:, None],
        "pos": pos_axis.firsts.astype(np.float64)[:, None],
    }
    updates = axis_updates(state, pos_axis, nearest, distances)
    return picks_kit.Picks(tables, (pos_axis.picks(updates),))

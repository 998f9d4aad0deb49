"""Pair i of PE(pos) and PE(pos + k) on the unit circle: moving by k turns it by k·ω_i."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .. import derived, encoding
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import ChartData
from ..plotkit.numbers import READOUT_DIGITS, number
from ..plotkit.picked_texts import filled, formatted, printed_all, printed_near, whole, written
from ..state import ExplorerState

ARC_RADIUS = 0.3
# The arc of k·ω_i has as many points whatever its angle, so that each value of a slider is a
# row of one table (which a move of pos resends, its rows for k made at the new pos): a turn
# under 2π in 8 steps of at most 45°, joined by Plotly's spline, which bends them into a circle
# to well under a pixel at the arc's 40 px. The unit circle has finer ones, joined straight.
ARC_POINTS = 9
CIRCLE_POINTS = 127
# The picks check the whole vector at every value of both sliders (the readout's last line): at
# most this many values × d_model cells (2048 positions of 128 dimensions, or 512 of 512), beyond
# which the page waits for Python.
MAX_CHECKED_CELLS = 1 << 20

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


# ---- The texts, each written once (plotkit/picked_texts.py): numbers come printed ----------


def matrix_html(cos: str, sin: str, minus_sin: str, css_class: str) -> str:
    """The rotation [[cos, sin], [−sin, cos]] as a bracketed table."""
    rows = ((cos, sin), (minus_sin, cos))
    cells = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table class="pe-matrix {css_class}">{cells}</table>'


def readout_text(
    *,
    pair: str,
    d_model: str,
    angle: str,
    offset: str,
    pos: str,
    second: str,
    far: str,
    far_second: str,
    formula_cos: str,
    formula_sin: str,
    formula_minus: str,
    near_cos: str,
    near_sin: str,
    near_minus: str,
    far_cos: str,
    far_sin: str,
    far_minus: str,
    difference: str,
    error: str,
    **_: str,
) -> str:
    """R_i(k) three ways and the whole-vector check (numbers only)."""
    formula = matrix_html(formula_cos, formula_sin, formula_minus, "pe-rotation-formula")
    near = matrix_html(near_cos, near_sin, near_minus, "pe-rotation-matrix")
    far_matrix = matrix_html(far_cos, far_sin, far_minus, "pe-rotation-matrix-other")
    return (
        '<div class="pe-rotation-readouts">'
        f"<p>Pair i = {pair}: from pos to pos + k the point turns by k·ω<sub>i</sub> = "
        f'<span class="pe-rotation-angle">{angle}</span> rad.</p>'
        '<div class="pe-rotation-matrices">'
        f"<figure><figcaption>R<sub>{pair}</sub>({offset}) from its formula</figcaption>"
        f"{formula}</figure>"
        f"<figure><figcaption>read off PE({pos}) → PE({second})</figcaption>{near}</figure>"
        f"<figure><figcaption>read off PE({far}) → PE({far_second})</figcaption>"
        f"{far_matrix}</figure>"
        "</div>"
        f"<p>The same matrix wherever the pair starts (largest difference "
        f'<span class="pe-rotation-difference">{difference}</span>): R(k) depends on k '
        "alone.</p>"
        f"<p>Whole vector, all {d_model} dimensions: ‖PE({second}) − R({offset})·PE({pos})‖ = "
        f'<span class="pe-rotation-error">{error}</span></p>'
        "</div>"
    )


def describe_text(
    *,
    pair: str,
    pos: str,
    second: str,
    pos_sin: str,
    pos_cos: str,
    second_sin: str,
    second_cos: str,
    angle_name: str,
    **_: str,
) -> str:
    """The chart's accessible name: the two points of pair i and the angle between them."""
    return (
        f"Pair i = {pair} on the unit circle: PE({pos}) at (sin, cos) = ({pos_sin}, {pos_cos}), "
        f"turned by k·ω_{pair} = {angle_name} rad to PE({second}) at ({second_sin}, {second_cos})"
    )


def title_text(
    *,
    pair: str,
    sin_dim: str,
    cos_dim: str,
    omega: str,
    angle_title: str,
    pos: str,
    second: str,
    **_,
) -> str:
    """The figure's title."""
    return (
        f"Pair i = {pair} (dimensions {sin_dim}, {cos_dim}), ω<sub>{pair}</sub> = {omega}: "
        f"turned by {angle_title} rad, PE({pos}) is PE({second})"
    )


def arc_name(*, pair: str, angle_title: str, **_: str) -> str:
    """The arc's name in the legend."""
    return f"k·ω<sub>{pair}</sub> = {angle_title} rad"


def point_name(*, pair: str, position: str) -> str:
    """The name of pair i of PE(position)'s point."""
    return f"pair {pair} of PE({position})"


def point_hovertemplate(*, position: str, sin_dim: str, cos_dim: str) -> str:
    """The hover of pair i of PE(position)'s point."""
    return (
        f"PE({position}, {sin_dim}) = sin = %{{x:.6f}}<br>"
        f"PE({position}, {cos_dim}) = cos = %{{y:.6f}}<extra></extra>"
    )


def point_labels(positions: list[str]) -> list[list[str]]:
    """The text beside the point of PE(position) (none at the centre), for each position."""
    labels = {position: ["", f"PE({position})"] for position in set(positions)}
    return [labels[position] for position in positions]


def label_positions(cosines) -> list[str]:
    """Where each point's text goes: above it in the upper half of the circle, below in the
    lower (cosines: the points' y)."""
    return np.where(np.asarray(cosines) >= 0, "top center", "bottom center").tolist()


# ---- The numbers, printed for the texts --------------------------------------------------


def shown_rotations(state: ExplorerState) -> derived.PairRotations:
    """The state's rotation (derived.pair_rotation) as derived.pair_rotations gives it."""
    return derived.pair_rotations(
        [state.pos],
        [state.offset],
        state.d_model,
        float(state.base),
        state.layout,
        state.rotation_pair,
    )


def fixed_fields(d_model: int, base: float, layout: str, pair: int) -> dict[str, str]:
    """The numbers of the texts that neither pos nor k moves."""
    sin_dim, cos_dim = encoding.pair_columns(d_model, layout, pair)
    omega = derived.angular_frequencies(d_model, base)[pair]
    return {
        "pair": str(pair),
        "d_model": str(d_model),
        "sin_dim": str(sin_dim),
        "cos_dim": str(cos_dim),
        "omega": format(float(omega), ".6g"),
    }


def moving_fields(shown: derived.PairRotations, positions, offsets) -> dict[str, list[str]]:
    """The numbers the texts print at each entry of shown (positions and offsets its pos and k),
    each distinct number printed once."""
    positions, offsets = np.asarray(positions), np.asarray(offsets)
    seconds = positions + offsets
    fields = {
        "pos": whole(positions),
        "second": whole(seconds),
        "offset": whole(offsets),
        "far": whole(positions + derived.FAR_START),
        "far_second": whole(seconds + derived.FAR_START),
        "angle": formatted(shown.angles + 0.0, ".6f"),
        "angle_title": formatted(shown.angles, ".4f"),
        "difference": formatted(
            np.abs(shown.measured - shown.measured_far).max(axis=(1, 2)), ".1e"
        ),
        "error": formatted(shown.errors, ".1e"),
    }
    names = ("angle_name", "pos_sin", "pos_cos", "second_sin", "second_cos")
    points = shown.points
    values = (shown.angles, points[:, 0, 0], points[:, 0, 1], points[:, 1, 0], points[:, 1, 1])
    fields.update(zip(names, printed_all(values), strict=True))
    # R_i(k) read off the encodings is its formula to rounding: it prints the formula's digits.
    cells = (("cos", 0, 0), ("sin", 0, 1), ("minus", 1, 0))
    formula = [shown.formula[:, row, column] for _, row, column in cells]
    for (cell, row, column), values, texts in zip(
        cells, formula, printed_all(formula, READOUT_DIGITS), strict=True
    ):
        fields[f"formula_{cell}"] = texts
        for name, block in (("near", shown.measured), ("far", shown.measured_far)):
            fields[f"{name}_{cell}"] = printed_near(
                block[:, row, column], values, texts, READOUT_DIGITS
            )
    return fields


def state_fields(state: ExplorerState) -> dict[str, str | list[str]]:
    """Every number the state's texts print."""
    settings = (state.d_model, float(state.base), state.layout, state.rotation_pair)
    moving = moving_fields(shown_rotations(state), [state.pos], [state.offset])
    return {**fixed_fields(*settings), **moving}


def readout(state: ExplorerState) -> str:
    """R_i(k) three ways and the whole-vector check, as text (numbers only)."""
    return written(readout_text, **state_fields(state))


# ---- The figure --------------------------------------------------------------------------


def arc(start, turn, radius: float, points: int) -> tuple[np.ndarray, np.ndarray]:
    """points points (sin θ, cos θ)·radius for θ from start over turn radians (start and turn
    may be arrays: an arc per entry, one a row)."""
    theta = np.expand_dims(start, -1) + np.expand_dims(turn, -1) * np.linspace(0.0, 1.0, points)
    return radius * np.sin(theta), radius * np.cos(theta)


def turn_of(offset, omega: float):
    """k·ω_i less its whole turns, the sign of k kept: the arc drawn (offset: a k or an array)."""
    return np.copysign(np.fmod(np.abs(offset) * omega, 2 * math.pi), offset)


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


def _circle_traces(state: ExplorerState, shown: derived.PairRotation, fields: dict) -> list[dict]:
    """The unit circle, and the arc turning PE(pos)'s point by k·ω_i (its remainder mod 2π)."""
    circle_x, circle_y = arc(0.0, 2 * math.pi, 1.0, CIRCLE_POINTS)
    arc_x, arc_y = arc(
        state.pos * shown.omega, turn_of(state.offset, shown.omega), ARC_RADIUS, ARC_POINTS
    )
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
            "line": {"color": palette["second"], "width": 2.5, "shape": "spline"},
            "name": written(arc_name, **fields),
            "hoverinfo": "skip",
        },
    ]


def _point_trace(position: int, point, style: tuple[str, str], fields: dict) -> dict:
    """Pair i of PE(position): a line from the centre to its point (sin, cos), labelled."""
    colour, dash = style
    x, y = point
    return {
        "type": "scatter",
        "mode": "lines+markers+text",
        "x": np.array([0.0, x]),
        "y": np.array([0.0, y]),
        "line": {"color": colour, "width": 2, "dash": dash},
        "marker": {"color": colour, "size": np.array([0, 11])},
        "text": point_labels([str(position)])[0],
        "textposition": label_positions([y])[0],
        "textfont": {"color": colour},
        "name": point_name(pair=fields["pair"], position=str(position)),
        "hovertemplate": point_hovertemplate(
            position=str(position), sin_dim=fields["sin_dim"], cos_dim=fields["cos_dim"]
        ),
    }


POINT_STYLES = ((theme.PAIR_COLOURS[0], "solid"), (theme.PAIR_COLOURS[1], "dash"))


def figure(state: ExplorerState) -> dict:
    """The unit circle, pair i of PE(pos) and PE(pos + k) on it, and the angle k·ω_i between."""
    shown = derived.pair_rotation(state)
    fields = state_fields(state)
    positions = (state.pos, state.second_pos)
    traces = _circle_traces(state, shown, fields) + [
        _point_trace(position, point, style, fields)
        for position, point, style in zip(positions, shown.points, POINT_STYLES, strict=True)
    ]
    i = shown.pair
    layout = titled_layout(state, "rotation", written(title_text, **fields), 14)
    layout.update(
        xaxis=_circle_axis(state, f"sin(pos·ω<sub>{i}</sub>)"),
        yaxis=_circle_axis(state, f"cos(pos·ω<sub>{i}</sub>)", scaleanchor="x"),
        margin={"l": 64, "r": 24, "t": 56, "b": 48},
        legend={"orientation": "v", "x": 1.0, "xanchor": "right", "y": 0.0, "yanchor": "bottom"},
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the two points of pair i and the angle between them."""
    return written(describe_text, **state_fields(state))


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


# ---- What a drag of pos or k moves (plotkit/picks.py) --------------------------------------


def _tables(axis: str, shown: derived.PairRotations, positions, offsets) -> dict:
    """The arc at each value of axis (rows of "arc_x_{axis}", "arc_y_{axis}"), and the two
    points' lines from the centre (rows 2v and 2v + 1 of "point_x_{axis}", "point_y_{axis}":
    pos's and pos + k's at value v)."""
    arc_x, arc_y = arc(
        positions * shown.omega, turn_of(offsets, shown.omega), ARC_RADIUS, ARC_POINTS
    )
    centre = np.zeros(2 * len(positions))
    tables = {
        f"arc_x_{axis}": arc_x,
        f"arc_y_{axis}": arc_y,
        f"point_x_{axis}": np.stack([centre, shown.points[:, :, 0].ravel()], axis=1),
        f"point_y_{axis}": np.stack([centre, shown.points[:, :, 1].ravel()], axis=1),
    }
    for table in tables.values():
        table.flags.writeable = False
    return tables


def _point_updates(
    moved: picks_kit.Moved, trace: int, shown: derived.PairRotations, fields: dict
) -> list:
    """The point of trace (2: pos's, 3: pos + k's) at each value of one axis."""
    axis, count, which = moved.axis, moved.count, trace - 2
    positions = fields[("pos", "second")[which]]
    row = 2 * np.arange(count) + which
    return [
        picks_kit.Update("trace", "x", trace, rows=f"point_x_{axis}", index=row),
        picks_kit.Update("trace", "y", trace, rows=f"point_y_{axis}", index=row),
        picks_kit.Update("trace", "text", trace, each=tuple(point_labels(positions))),
        picks_kit.Update(
            "trace", "textposition", trace, each=tuple(label_positions(shown.points[:, which, 1]))
        ),
        picks_kit.Update(
            "trace",
            "name",
            trace,
            text=filled(count, point_name, pair=fields["pair"], position=positions),
        ),
        picks_kit.Update(
            "trace",
            "hovertemplate",
            trace,
            text=filled(
                count,
                point_hovertemplate,
                position=positions,
                sin_dim=fields["sin_dim"],
                cos_dim=fields["cos_dim"],
            ),
        ),
    ]


def axis_updates(moved: picks_kit.Moved, shown: derived.PairRotations, fields: dict) -> list:
    """The arc, the two points, the title, the name and the readout at each value of one axis
    (shown and fields: their numbers at each)."""
    axis, count, rows = moved.axis, moved.count, np.arange(moved.count)
    return [
        picks_kit.Update("trace", "x", 1, rows=f"arc_x_{axis}", index=rows),
        picks_kit.Update("trace", "y", 1, rows=f"arc_y_{axis}", index=rows),
        picks_kit.Update("trace", "name", 1, text=filled(count, arc_name, **fields)),
        *_point_updates(moved, 2, shown, fields),
        *_point_updates(moved, 3, shown, fields),
        picks_kit.Update("layout", "title.text", text=filled(count, title_text, **fields)),
        picks_kit.Update("label", text=filled(count, describe_text, **fields)),
        picks_kit.Update("pane", "pe-readout-pane", text=filled(count, readout_text, **fields)),
    ]


# An axis's picks follow the other axis's value alone (and d_model, base …): a drag of pos leaves
# those of k as they were, and the other way round. Each is kept for the next drawing.
@lru_cache(maxsize=4)
def axis_picks(
    axis: str, at: int, firsts: bytes, seconds: bytes, settings: tuple, reach: int
) -> tuple[dict, picks_kit.AxisPicks]:
    """The tables and picks of one axis whose values put pos at firsts and pos + k at seconds
    (int64 bytes), the other axis at `at`; settings: d_model, base, layout and the pair; reach:
    derived.pair_rotations'."""
    firsts, seconds = np.frombuffer(firsts, dtype=np.int64), np.frombuffer(seconds, dtype=np.int64)
    offsets = seconds - firsts
    moved = picks_kit.Moved(axis, firsts if axis == "pos" else offsets, at, firsts, seconds)
    shown = derived.pair_rotations(firsts, offsets, *settings, reach)
    fields = {**fixed_fields(*settings), **moving_fields(shown, firsts, offsets)}
    return _tables(axis, shown, firsts, offsets), moved.picks(axis_updates(moved, shown, fields))


def picks(state: ExplorerState) -> picks_kit.Picks | None:
    """What a drag of pos or k moves: the arc, both points, the title, the name and the
    readout, each axis's from one derived.pair_rotations of its values; nothing when the
    whole-vector check of them all would be too long."""
    moved = picks_kit.moved_positions(state)
    if sum(m.count for m in moved) * state.d_model > MAX_CHECKED_CELLS:
        return None
    settings = (state.d_model, float(state.base), state.layout, state.rotation_pair)
    # Rows of PE up to the largest pos + k the sliders offer: one table whatever pos and k.
    reach = 2 * state.n_positions - 1
    tables, axes = {}, []
    for m in moved:
        firsts, seconds = m.firsts.astype(np.int64), m.seconds.astype(np.int64)
        axis_tables, picked = axis_picks(
            m.axis, int(m.at), firsts.tobytes(), seconds.tobytes(), settings, reach
        )
        tables.update(axis_tables)
        axes.append(picked)
    if not picks_kit.fits(*tables.values()):
        return None
    return picks_kit.Picks(tables, tuple(axes))

"""Sine and cosine waves of chosen dimension pairs, sampled at the integer positions."""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import derived, encoding
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.markers import layout_image
from ..plotkit.picked_texts import filled, printed_all, whole, written
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

# The gap between two rows of waves, as a part of the figure's height.
ROW_GAP = 0.06
# A position's line is drawn in a layout image this part of the position axis wide (the line
# keeps its 2 px at any zoom; the rest of the image is clear).
LINE_IMAGE_WIDTH = 1 / 25


def span(state: ExplorerState) -> int:
    """The last position drawn: the last one shown (at least 1). pos + k beyond it is named, not
    drawn, so that the waves stay as they are whatever pos and k."""
    return max(state.n_positions - 1, 1)


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


def line_place(second, last: int):
    """Where the line of pos + k stands: at it, or (hidden) at the last position (second: a
    position or an array of them)."""
    return np.minimum(second, last)


def position_lines(state: ExplorerState) -> list[dict]:
    """Lines across every row at pos (solid) and pos + k (dotted; hidden beyond the last
    position): layout images, which Plotly moves without redrawing the waves."""
    palette, last = theme.colours(state.theme), span(state)
    lines = []
    for position, key, dashes, name in (
        (state.pos, "pos", "", "pos"),
        (int(line_place(state.second_pos, last)), "second", "3 3", "pos+k"),
    ):
        source = theme.line_source(palette[key], (50, 0, 50, 100), 2, dashes)
        place = {"x": position, "y": 1, "sizex": LINE_IMAGE_WIDTH * last, "sizey": 1}
        lines.append(
            layout_image(source, ("x", "paper"), name, xanchor="center", yanchor="top", **place)
        )
    lines[0]["visible"], lines[1]["visible"] = True, state.second_pos <= last
    return lines


# ---- The texts, each written once (plotkit/picked_texts.py): numbers come printed ----------


# What the title and the name add after pos + k when it lies beyond the last position drawn.
BEYOND = " (beyond the positions drawn)"


def beyond_notes(seconds, last: int) -> list[str]:
    """BEYOND for each pos + k of seconds past last, "" for the others."""
    return [BEYOND if beyond else "" for beyond in (np.asarray(seconds) > last).tolist()]


def title_text(*, pairs: str, pos: str, second: str, beyond: str, **_: str) -> str:
    """The figure's title."""
    return (
        f"Waves of {pairs} pairs: solid sin, dashed cos; lines at pos = {pos} and "
        f"pos + k = {second}{beyond}"
    )


def describe_text(*, pairs: str, pos: str, second: str, beyond: str, values: str, **_) -> str:
    """The chart's accessible name: the pairs drawn and their sine and cosine at pos."""
    return (
        f"Sine and cosine waves of {pairs} pairs against position, lines at pos = {pos} and "
        f"pos + k = {second}{beyond}; at pos {pos}: {values}"
    )


def values_text(pairs: list[int], **numbers: str) -> str:
    """The sine and cosine of each pair at pos (numbers: sin_0, cos_0, sin_1 … by row)."""
    return "; ".join(
        f"pair {i}: sin {numbers[f'sin_{row}']}, cos {numbers[f'cos_{row}']}"
        for row, i in enumerate(pairs)
    )


def caption_text(*, pos: str, **_: str) -> str:
    """The Show data table's caption."""
    return f"sin(pos·ω_i) and cos(pos·ω_i) near pos = {pos}"


def pair_values(state: ExplorerState, positions) -> np.ndarray:
    """PE's (sin, cos) of each chosen pair at each position (below n_positions): shape
    (positions, pairs, 2), read off the PE matrix's pair columns in the state's layout."""
    pairs = np.array(state.chosen_pairs)
    columns = np.stack(encoding.pair_columns(state.d_model, state.layout, pairs), axis=-1)
    matrix = derived.shown_pe_matrix(state)
    return matrix[np.asarray(positions)[:, None], columns.ravel()].reshape(-1, pairs.size, 2)


def text_fields(state: ExplorerState, firsts, seconds) -> dict:
    """What the texts print at each pos (firsts) and pos + k (seconds)."""
    count = len(firsts)
    samples = pair_values(state, firsts)
    rows = range(samples.shape[1])
    names = [f"{part}_{row}" for row in rows for part in ("sin", "cos")]
    columns = [samples[:, row, part] for row in rows for part in (0, 1)]
    numbers = dict(zip(names, printed_all(columns), strict=True))
    values = filled(count, partial(values_text, state.chosen_pairs), **numbers)
    return {
        "pairs": str(len(state.chosen_pairs)),
        "pos": whole(firsts),
        "second": whole(seconds),
        "beyond": beyond_notes(seconds, span(state)),
        "values": values,
    }


def state_fields(state: ExplorerState) -> dict:
    """Every number the state's texts print."""
    return text_fields(state, [state.pos], [state.second_pos])


def figure(state: ExplorerState) -> dict:
    """One row per chosen pair: continuous sin and cos, samples at integer positions, pos lines."""
    pairs = state.chosen_pairs
    # Its own height: one row per pair.
    height = 120 + 130 * len(pairs)
    layout = theme.base_layout(state.theme, uirevision=f"waves-{state.d_model}-{state.n_positions}")
    layout.update(
        height=height,
        images=position_lines(state),
        title={
            "text": written(title_text, **state_fields(state)),
            "x": 0,
            "font": {"size": 15},
        },
        legend={"orientation": "h", "y": -60 / height - 0.02, "x": 0},
        margin={"l": 64, "r": 24, "t": 48, "b": 90},
    )
    return compose(state, layout, [pair_subplot(state, row, i) for row, i in enumerate(pairs)])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the pairs drawn and their sine and cosine at pos."""
    return written(describe_text, **state_fields(state))


def data(state: ExplorerState) -> ChartData:
    """The sines and cosines of the pairs drawn at the whole positions near pos."""
    pairs = state.chosen_pairs
    last = span(state)
    positions = indices_near(state.pos, last + 1, DATA_ROWS)
    samples = derived.pair_samples(positions, state.d_model, state.base, state.layout, pairs)
    return ChartData(
        caption=written(caption_text, pos=str(state.pos)),
        columns=("pos", *(f"{name} i = {i}" for i in pairs for name in ("sin", "cos"))),
        rows=tuple((p, *row.ravel()) for p, row in zip(positions, samples, strict=True)),
        note=f"Positions {span_text(positions)} of 0–{last} shown, near pos = {state.pos}.",
    )


# ---- What a drag of pos or k moves (plotkit/picks.py) --------------------------------------


def axis_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """The two lines, the title, the name and the caption at each value of one axis."""
    count, last = moved.count, span(state)
    fields = text_fields(state, moved.firsts, moved.seconds)
    return [
        picks_kit.Update("layout", "images[0].x", each=moved.firsts.astype(np.float64)),
        picks_kit.Update(
            "layout", "images[1].x", each=line_place(moved.seconds, last).astype(np.float64)
        ),
        picks_kit.Update(
            "layout", "images[1].visible", each=tuple((moved.seconds <= last).tolist())
        ),
        picks_kit.Update("layout", "title.text", text=filled(count, title_text, **fields)),
        picks_kit.Update("label", text=filled(count, describe_text, **fields)),
        picks_kit.Update("caption", text=filled(count, caption_text, **fields)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks:
    """What a drag of pos or k moves: the lines at pos and pos + k, the title, the name and the
    caption."""
    moved = picks_kit.moved_positions(state)
    return picks_kit.Picks({}, tuple(m.picks(axis_updates(state, m)) for m in moved))

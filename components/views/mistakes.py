"""What goes wrong, and by how much: one published mistake beside the exact computation (issue 59).

Every number comes from components/mistakes/ through derived.mistake_of: this module only draws.
"""

from __future__ import annotations

import html

import numpy as np

from .. import derived
from ..mistakes.types import MISTAKE_LABELS
from ..plotkit import theme
from ..plotkit.charts import message_figure, titled_layout
from ..plotkit.frame import ChartData
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

TITLE = "What goes wrong, and by how much"
# The two charts side by side (paper x), and how many rows of each the Show data table lists.
DOMAINS = ((0.0, 0.44), (0.56, 1.0))
TABLE_ROWS = 8
# What to do when the mistake cannot run on the chosen layer (plain RoPE has no scaling).
OTHER_LAYER = "choose “The model's layer” with a model that scales (Llama 3.1 8B, a YaRN preset)"
READOUT_STYLE = """
:host { max-width: 100%; }
p.pe-mistakes-readout { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


def hint(state: ExplorerState, problem: str) -> str:
    """The problem, with what to choose instead when the layer cannot run the mistake (it has no
    scaling); a setting's own problem says what to change."""
    return f"{problem}: {OTHER_LAYER}" if state.mistake == "scaling" else problem


def named(state: ExplorerState) -> str:
    """The chosen mistake in words, as a title starts."""
    words = MISTAKE_LABELS[state.mistake]
    return words[0].upper() + words[1:]


def _line(x, y, name: str, colour: str, hover: tuple[str, str], **style) -> dict:
    """One curve: lines, with dots while there are few points; hover names x and y."""
    x_name, y_name = hover
    return {
        "type": "scatter",
        "mode": "lines+markers" if np.size(x) <= 64 else "lines",
        "x": np.asarray(x),
        "y": np.asarray(y),
        "name": name,
        "line": {"color": colour, "width": 1.5, **style},
        "marker": {"size": 5},
        "hovertemplate": f"{x_name} = %{{x}}<br>{y_name} = %{{y:.6g}}<extra>{name}</extra>",
    }


# The pairs' colours: blue, green, pink, ochre; not the mistaken curve's orange (PAIR_COLOURS[1]).
ANGLE_COLOURS = tuple(theme.PAIR_COLOURS[i] for i in (0, 2, 3, 4))


def angle_subplot(state: ExplorerState, shown) -> Subplot:
    """|angle error| of a few pairs (the fastest, the slowest, two between) against position,
    on a log axis: the right error is 0, which a log axis leaves out."""
    found = shown.simulation
    hover = ("position", "|angle error| (rad)")
    traces = [
        _line(
            found.positions,
            shown.pair_errors[:, index],
            f"pair {pair}",
            ANGLE_COLOURS[index % len(ANGLE_COLOURS)],
            hover,
            width=1,
        )  # fmt: skip
        for index, pair in enumerate(shown.pairs)
    ]
    return Subplot(
        traces,
        {"title": {"text": "position"}},
        {
            "title": {"text": "|angle error| (rad)"},
            "type": "log",
            "dtick": 1,
            "exponentformat": "power",
        },
        (DOMAINS[0], (0.0, 1.0)),
        caption="<b>Angle error per pair</b> (right: 0), wrapped to π",
    )


def told_subplot(state: ExplorerState, shown) -> Subplot:
    """What the model is told against the truth (position ids, distances, frequencies, slopes):
    one right and one mistaken curve, per padded row when there are several."""
    found, palette = shown.simulation, theme.colours(state.theme)
    right, wrong = np.atleast_2d(found.right), np.atleast_2d(found.wrong)
    hover = (found.x_name, found.quantity)
    traces = []
    for row in range(right.shape[0]):
        suffix = f" (row {row})" if right.shape[0] > 1 else ""
        traces += [
            _line(found.x, right[row], f"right{suffix}", palette["pos"], hover),
            _line(
                found.x, wrong[row], f"mistaken{suffix}", theme.PAIR_COLOURS[1], hover, dash="dash"
            ),  # fmt: skip
        ]
    return Subplot(
        traces,
        {"title": {"text": found.x_name}},
        {"title": {"text": found.quantity}},
        (DOMAINS[0], (0.0, 1.0)),
        caption=f"<b>What the model is told</b>: {html.escape(found.quantity)}",
    )


def score_subplot(state: ExplorerState, shown) -> Subplot:
    """q·k (ALiBi: the bias) against the key's distance Δ from the query at p, right and
    mistaken, for the sample the mistake moves most; and the worst error over every sample."""
    found, palette = shown.simulation, theme.colours(state.theme)
    alibi = found.mistake == "alibi_slopes"
    what = f"bias of head {shown.score_row + 1}" if alibi else "q·k"
    hover = ("Δ", what)
    row = shown.score_row
    traces = [
        _line(found.distances, found.score_right[row], f"right {what}", palette["pos"], hover),
        _line(
            found.distances,
            found.score_wrong[row],
            f"mistaken {what}",
            theme.PAIR_COLOURS[1],
            hover,
            dash="dash",
        ),  # fmt: skip
        _line(
            found.distances,
            found.score_error,
            "worst |error|",
            palette["second"],
            ("Δ", "worst |error|"),
            dash="dot",
        ),  # fmt: skip
    ]
    where = found.settings.get("at")
    at = f" (query at p = {where:,})" if isinstance(where, int) else ""
    caption = "<b>Bias against Δ</b>" if alibi else f"<b>Score of unit q, k against Δ</b>{at}"
    return Subplot(
        traces,
        {"title": {"text": "distance Δ from the query"}},
        {"title": {"text": "bias" if alibi else "q·k"}},
        (DOMAINS[1], (0.0, 1.0)),
        caption=caption,
    )


def figure(state: ExplorerState) -> dict:
    """The mistake's angles (or what the model is told) beside its scores, right and mistaken."""
    shown = derived.mistake_of(state)
    title = named(state)
    if shown.simulation is None:
        text = html.escape(hint(state, shown.problem))
        return message_figure(state, f"mistakes-{state.mistake}", title, text)
    layer = html.escape(shown.simulation.summary.partition(": ")[0])
    layout = titled_layout(state, f"mistakes-{state.mistake}", f"{title}: {layer}")
    layout.update(
        margin={"l": 64, "r": 24, "t": 64, "b": 90},
        legend={"orientation": "h", "y": -0.17, "x": 0},
    )
    first = angle_subplot if shown.simulation.angle_error is not None else told_subplot
    return compose(state, layout, [first(state, shown), score_subplot(state, shown)])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the mistake's sentence, with its numbers at this setting."""
    shown = derived.mistake_of(state)
    if shown.simulation is None:
        return f"{named(state)}: {hint(state, shown.problem)}"
    return f"{named(state)}. {shown.simulation.summary}"


def readout(state: ExplorerState) -> str:
    """The sentence as text under the chart (escaped: a model's name is the config's)."""
    return f'<p class="pe-mistakes-readout">{html.escape(describe(state))}</p>'


def rows_of(size: int) -> np.ndarray:
    """TABLE_ROWS indices spread over size points, the first and the last among them."""
    return np.unique(np.linspace(0, size - 1, min(size, TABLE_ROWS)).round().astype(int))


def data(state: ExplorerState) -> ChartData:
    """The numbers of both charts at a few points each: the angle error of the pairs drawn (or
    what the model is told, right and mistaken), then the scores against Δ."""
    shown = derived.mistake_of(state)
    found = shown.simulation
    columns = ("chart", "x", "right", "mistaken", "worst |error|")
    if found is None:
        return ChartData(caption=TITLE, columns=columns, rows=(), note=shown.problem)
    rows = []
    if found.angle_error is not None:
        for i in rows_of(found.positions.size):
            worst = shown.worst_angle[i]
            rows.append(("angle error (rad)", int(found.positions[i]), 0.0, "–", float(worst)))
    else:
        right, wrong = np.atleast_2d(found.right), np.atleast_2d(found.wrong)
        for i in rows_of(np.size(found.x)):
            rows.append((found.quantity, found.x[i].item(), float(right[0, i]),
                         float(wrong[0, i]), float(found.error[i])))  # fmt: skip
    row = shown.score_row
    for i in rows_of(found.distances.size):
        rows.append(("score against Δ", int(found.distances[i]), float(found.score_right[row, i]),
                     float(found.score_wrong[row, i]), float(found.score_error[i])))  # fmt: skip
    return ChartData(
        caption=f"{named(state)}: right and mistaken",
        columns=columns,
        rows=tuple(rows),
        note=f"{TABLE_ROWS} points of each chart; the scores of the (q, k) sample the mistake "
        "moves most, and the worst error over all 32.",
    )

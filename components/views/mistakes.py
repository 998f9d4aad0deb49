"""What goes wrong, and by how much: one published mistake beside the exact computation (issue 59).

Every number comes from components/mistakes/ through derived.mistake_of: this module only draws.
"""

from __future__ import annotations

import dataclasses
import html
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import derived
from ..mistakes.types import MISTAKE_LABELS
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import message_figure, titled_layout
from ..plotkit.frame import ChartData
from ..plotkit.markers import layout_image
from ..plotkit.numbers import numbers_of
from ..plotkit.picks import Text, joined, whole
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

TITLE = "What goes wrong, and by how much"
# The two charts side by side (paper x), and how many rows of each the Show data table lists.
DOMAINS = ((0.0, 0.44), (0.56, 1.0))
TABLE_ROWS = 8
# The slider lines' places among the figure's layout images: pos's, then Δ = |k|'s.
LINE_IMAGES = (0, 1)
# What to do when the mistake cannot run on the chosen layer (plain RoPE has no scaling).
OTHER_LAYER = "choose “The model's layer” with a model that scales (Llama 3.1 8B, a YaRN preset)"
READOUT_STYLE = """
:host { max-width: 100%; }
p.pe-mistakes-readout, p.pe-mistakes-at {
  margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums;
}
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
        note = f"{shown.note}. " if shown.note else ""
        text = html.escape(note + hint(state, shown.problem))
        return message_figure(state, f"mistakes-{state.mistake}", title, text)
    layer = html.escape(shown.simulation.summary.partition(": ")[0])
    layout = titled_layout(state, f"mistakes-{state.mistake}", f"{title}: {layer}")
    layout.update(
        margin={"l": 64, "r": 24, "t": 64, "b": 90},
        legend={"orientation": "h", "y": -0.17, "x": 0},
    )
    first = angle_subplot if shown.simulation.angle_error is not None else told_subplot
    figure = compose(state, layout, [first(state, shown), score_subplot(state, shown)])
    figure["layout"]["images"] = [*lines(state, shown), *figure["layout"].get("images", [])]
    return figure


def slider_line(name: str, axes: str, colour: str, x: int, span: int, shown: bool) -> dict:
    """A dotted line across one chart at x, where a slider's value falls (hidden when the chart
    does not follow that slider): a layout image 1 % of the axis's span (0 … span) wide, which
    the page moves without Plotly redrawing the traces (plotkit/markers.py)."""
    source = theme.line_source(colour, (50, 0, 50, 100), 2, "4 3")
    return layout_image(source, (f"x{axes}", f"y{axes} domain"), name, x=x, y=0.5,
                        sizex=max(span, 1) / 100, sizey=1, xanchor="center", yanchor="middle",
                        visible=shown)  # fmt: skip


def near_of(state: ExplorerState, shown) -> derived.MistakeNear:
    """The mistake at every value of the pos and k sliders (derived.mistake_near)."""
    return derived.mistake_near_of(state, shown.score_row)


def lines(state: ExplorerState, shown) -> list[dict]:
    """The two slider lines, the figure's first images (LINE_IMAGES): position pos on the angle
    chart, and the key Δ = |k| before the query on the score chart."""
    near, palette = near_of(state, shown), theme.colours(state.theme)
    found = shown.simulation
    return [
        slider_line("pos", "", palette["pos"], state.pos, int(found.positions[-1])
                    if found.positions is not None else 1, near.worst_angle is not None),
        slider_line("Δ = |k|", "2", palette["second"], abs(state.offset),
                    int(found.distances.max()), near.score_error is not None),
    ]  # fmt: skip


@dataclass(frozen=True)
class SliderWords:
    """The words the sliders pick, per value: at each position the worst angle error and its
    pair (None when the mistake turns no angles), at each Δ the drawn sample's right and mistaken
    score and the worst error (None when the mistake is not scored by Δ); the query's position
    and what a score is."""

    angle: tuple[str, ...] | None
    right: tuple[str, ...] | None
    wrong: tuple[str, ...] | None
    worst: tuple[str, ...] | None
    query: int
    what: str


def angle_words(worst: float, pair: int) -> str:
    return f"{worst:.3g} rad (pair {pair})" if np.isfinite(worst) else "past the format (inf)"


@lru_cache(maxsize=4)
def slider_words(key: tuple) -> SliderWords:
    """SliderWords of derived.mistake_near(*key), printed once for every value."""
    near = derived.mistake_near(*key)
    angle = right = wrong = worst = None
    if near.worst_angle is not None:
        angle = tuple(map(angle_words, near.worst_angle.tolist(), near.worst_pair.tolist()))
    if near.score_error is not None:
        right, wrong = numbers_of(near.score_right), numbers_of(near.score_wrong)
        worst = tuple(f"{value:.3g}" for value in near.score_error.tolist())
    return SliderWords(angle, right, wrong, worst, 0, "")


def words_of(state: ExplorerState, shown) -> SliderWords:
    """The state's SliderWords: the query's position and what its score is filled in."""
    key = derived.mistake_near_key(state, shown.score_row)
    found = shown.simulation
    what = f"head {shown.score_row + 1}'s bias" if found.mistake == "alibi_slopes" else "q·k"
    return dataclasses.replace(slider_words(key), query=found.settings.get("at", 0), what=what)


def sentence_pieces(words: SliderWords, firsts, deltas) -> list:
    """The sliders' sentence as joined's pieces: fixed words, and a string per value of pos and
    of Δ = |k| (firsts, deltas: one each per value)."""
    pieces = []
    if words.angle is not None:
        angles = [words.angle[p] for p in firsts]
        pieces += ["At position pos = ", whole(firsts), ", the worst angle error is ", angles, "."]
    if words.worst is not None:
        pieces += [" " if pieces else "", "The key Δ = |k| = ", whole(deltas),
                   f" before the query at {words.query:,}: {words.what} ",
                   [words.right[d] for d in deltas], " right, ",
                   [words.wrong[d] for d in deltas], " mistaken; the worst error is ",
                   [words.worst[d] for d in deltas], "."]  # fmt: skip
    return pieces


def texts_at(state: ExplorerState, shown, firsts, deltas) -> tuple[Text, Text]:
    """The chart's name and the readout's HTML at each value (firsts, deltas)."""
    note = f" {shown.note}." if shown.note else ""
    count, summary = len(firsts), f"{named(state)}.{note} {shown.simulation.summary}"
    pieces = sentence_pieces(words_of(state, shown), firsts, deltas)
    label = joined(count, summary, " " if pieces else "", *pieces)
    escaped = [_escaped(piece) for piece in pieces]
    opening = f'<p class="pe-mistakes-readout">{html.escape(summary)}</p>'
    at = ['<p class="pe-mistakes-at">', *escaped, "</p>"] if pieces else []
    readout_html = joined(count, opening, *at)
    return label, readout_html


def _escaped(piece):
    """A piece of joined's, escaped for HTML: a fixed string, or each value's."""
    return html.escape(piece) if isinstance(piece, str) else [html.escape(p) for p in piece]


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the mistake's sentence, with its numbers at this setting,
    and the sliders' sentence."""
    shown = derived.mistake_of(state)
    note = f" {shown.note}." if shown.note else ""
    if shown.simulation is None:
        return f"{named(state)}:{note} {hint(state, shown.problem)}"
    return texts_at(state, shown, [state.pos], [abs(state.offset)])[0].at(0)


def readout(state: ExplorerState) -> str:
    """The sentences as text under the chart: the mistake's, and the sliders'."""
    shown = derived.mistake_of(state)
    if shown.simulation is None:
        return f'<p class="pe-mistakes-readout">{html.escape(describe(state))}</p>'
    return texts_at(state, shown, [state.pos], [abs(state.offset)])[1].at(0)


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


def axis_updates(state: ExplorerState, shown, moved: picks_kit.Moved, images) -> list:
    """What one axis's values change: the two slider lines (layout images), the chart's name and
    the readout."""
    firsts, deltas = moved.firsts, np.abs(moved.offsets)
    label, readout_html = texts_at(state, shown, firsts, deltas)
    pos_line, delta_line = images
    return [
        picks_kit.Update("layout", f"images[{pos_line}].x", each=firsts),
        picks_kit.Update("layout", f"images[{delta_line}].x", each=deltas),
        picks_kit.Update("label", text=label),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_html),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks | None:
    """What a drag of pos or k moves: the lines at pos and at Δ = |k|, the chart's name and the
    readout; nothing when the mistake cannot run here, its own numbering decides, or the query is
    nearer than the sequence is long (|k| could name no key)."""
    shown = derived.mistake_of(state)
    if shown.simulation is None:
        return None
    near = near_of(state, shown)
    if near.worst_angle is None and near.score_error is None:
        return None  # the sliders move nothing here (the mistake's own numbering decides)
    if near.score_error is not None and near.score_error.size < state.n_positions:
        return None
    moved = picks_kit.moved_positions(state)
    updates = [m.picks(axis_updates(state, shown, m, LINE_IMAGES)) for m in moved]
    return picks_kit.Picks({}, tuple(updates))

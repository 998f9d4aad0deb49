"""RoPE: q and k rotated pair by pair by m·θ_i and n·θ_i, so their score depends on n − m alone."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np

from .. import derived, encoding
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import (
    curve_trace,
    point_hovertemplate,
    point_name,
    point_trace,
    reduced_note,
    toeplitz_layout,
    toeplitz_trace,
)
from ..plotkit.frame import ChartData, toeplitz_table
from ..plotkit.markers import marker_updates, offset_markers
from ..plotkit.numbers import DATA_DIGITS, READOUT_DIGITS, readout_number
from ..plotkit.picked_texts import filled, printed, whole
from ..plotkit.subplots import (
    Subplot,
    compose,
    offset_curve_subplot,
    offset_mark_text,
    toeplitz_subplot,
)
from ..state import ExplorerState

LAYOUT_NAMES = {
    "interleaved": "interleaved, as in RoFormer and GPT-J",
    "concatenated": "half split, as in GPT-NeoX and LLaMA (rotate_half)",
}

READOUT_STYLE = theme.READOUT_TABLE_STYLE
# The score against the offset, top right; the decay bound below it.
SCORE_PLACE = ((0.62, 1.0), (0.6, 1.0))
# Where the figure keeps what pos and k move: the markers of the matrix (layout images 0 and 1),
# the score's point at k and the bound's at |k| (traces), and the score's label (annotation).
SCORE_POINT, DECAY_POINT, SCORE_LABEL = 2, 4, 0
# The picks turn q, k and PE(0) by every pos and pos + k a slider offers, about 5 products of
# d_model numbers per value: beyond this many (values × d_model), Python draws each value alone.
MAX_PICKED_PRODUCTS = 1 << 21


def shown_pairs(d_model: int, layout: str) -> tuple[tuple[int, int, int], ...]:
    """Pairs 0, 1 and the last, each with the two dimensions it rotates in this layout."""
    pairs = sorted({0, 1, d_model // 2 - 1} & set(range(d_model // 2)))
    return tuple((i, *map(int, encoding.pair_columns(d_model, layout, i))) for i in pairs)


def _score_row(row_class: str, label: list, cell_class: str, score) -> list:
    """A row of the scores table: its label and its score (pieces: text, or text per value)."""
    return [
        f'<tr class="{row_class}"><td>',
        *label,
        f'</td><td class="{cell_class}">',
        score,
        "</td></tr>",
    ]


@dataclass(frozen=True)
class Positions:
    """pos, pos + k, k and |k| at each value, printed once for every text that shows them."""

    firsts: list[str]
    seconds: list[str]
    offsets: list[str]
    distances: list[str]

    @classmethod
    def of(cls, firsts, offsets) -> Positions:
        """The positions at each pos of firsts and k of offsets."""
        firsts, offsets = np.asarray(firsts), np.asarray(offsets)
        return cls(whole(firsts), whole(firsts + offsets), whole(offsets), whole(np.abs(offsets)))


def _pair(firsts: list[str], seconds: list[str]) -> list:
    """The label q_m·k_n at each value (m and n printed)."""
    return ["q<sub>", firsts, "</sub>·k<sub>", seconds, "</sub>"]


def _scores_table(shown: derived.RopeScoresAt, positions: Positions) -> list:
    """The scores at each offset k: the live one, at other starts, from k alone, and unrotated."""
    closed_form = (
        "from k alone: Σ Re(a<sub>i</sub>) cos(kθ<sub>i</sub>) + Im(a<sub>i</sub>) "
        "sin(kθ<sub>i</sub>), a<sub>i</sub> = q<sub>i</sub>·conj(k<sub>i</sub>)"
    )
    unrotated = "q·k without rotation (the score at k = 0, wherever m is)"
    current = printed(shown.scores, READOUT_DIGITS)
    others = []
    for starts, scores in zip(shown.other_firsts.T, shown.other_scores.T, strict=True):
        label = _pair(whole(starts), whole(starts + shown.offsets))
        others += _score_row("pe-other", label, "pe-rope-other", printed(scores, READOUT_DIGITS))
    offset_only = printed(shown.offset_only, READOUT_DIGITS)
    return [
        '<table class="pe-readouts"><caption class="pe-rope-positions">m = pos = ',
        positions.firsts,
        " · n = pos + k = ",
        positions.seconds,
        " · k = n − m = ",
        positions.offsets,
        "</caption><thead><tr><th>scores after RoPE</th><th>q<sub>m</sub>·k<sub>n</sub></th>"
        "</tr></thead><tbody>",
        *_score_row(
            "pe-current", _pair(positions.firsts, positions.seconds), "pe-rope-score", current
        ),
        *others,
        *_score_row("pe-closed-form", [closed_form], "pe-rope-offset-only", offset_only),
        *_score_row(
            "pe-unrotated", [unrotated], "pe-rope-unrotated", readout_number(shown.unrotated)
        ),
        "</tbody></table>",
    ]


def _pairs_note(d_model: int, layout: str) -> str:
    """Which dimensions each pair turns in the layout."""
    pairs = ", ".join(
        f'pair <span class="pe-rope-pair">{i}</span> = dimensions '
        f'(<span class="pe-rope-pair-first">{first}</span>, '
        f'<span class="pe-rope-pair-second">{second}</span>)'
        for i, first, second in shown_pairs(d_model, layout)
    )
    formula = "(2i, 2i + 1)" if layout == "interleaved" else f"(i, i + {d_model // 2})"
    return (
        f'<p class="pe-note pe-rope-layout">Pairs {LAYOUT_NAMES[layout]}: pair i turns '
        f"dimensions {formula} by m·θ<sub>i</sub>: {pairs}.</p>"
    )


def readout_text(
    shown: derived.RopeScoresAt, positions: Positions, d_model: int, layout: str
) -> picks_kit.Text:
    """The readout at each value of shown: scores at the same offset, the pair layout and the
    sinusoidal link."""
    firsts, seconds = positions.firsts, positions.seconds
    return picks_kit.joined(
        len(firsts),
        *_scores_table(shown, positions),
        _pairs_note(d_model, layout),
        '<p class="pe-note">Every pair k apart gives the same score: turning q by '
        "m·θ<sub>i</sub> and k by n·θ<sub>i</sub> leaves only the angle (n − m)·θ<sub>i</sub> "
        "between them.</p>"
        '<p class="pe-note">θ<sub>i</sub> = base<sup>−2i/d<sub>model</sub></sup> are the '
        "sinusoidal encoding's frequencies ω<sub>i</sub>, applied by rotating q and k instead of "
        "adding PE to the input. With PE(0), (0, 1) in every pair, as both query and key, "
        "RoPE's score at m = ",
        firsts,
        ", n = ",
        seconds,
        ' is <span class="pe-rope-link-score">',
        printed(shown.link_scores, READOUT_DIGITS),
        "</span>, the same as the sinusoidal PE(",
        firsts,
        ")·PE(",
        seconds,
        ') = D(k) = Σ cos(k·ω<sub>i</sub>) = <span class="pe-rope-link-dot">',
        printed(shown.link_dots, READOUT_DIGITS),
        '</span>.</p><p class="pe-note">RoFormer §3.4.3 long-term-decay bound at |k| = ',
        positions.distances,
        ': <span class="pe-rope-decay">',
        printed(shown.decays, READOUT_DIGITS),
        "</span> (it is (d<sub>model</sub>/2 + 1)/2 = "
        f"{readout_number((d_model / 2 + 1) / 2)} at 0).</p>",
    )


def scores(state: ExplorerState, firsts, offsets) -> derived.RopeScoresAt:
    """The scores at each (pos, k) of firsts and offsets, for the state's q, k and sizes."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    return derived.rope_scores_at(firsts, offsets, n, d, base, state.layout, state.seed)


def readout(state: ExplorerState) -> str:
    """The readout: scores at the same offset, the pair layout and the sinusoidal link."""
    shown = scores(state, [state.pos], [state.offset])
    positions = Positions.of([state.pos], [state.offset])
    return readout_text(shown, positions, state.d_model, state.layout).at(0)


def _curve(state: ExplorerState) -> tuple[np.ndarray, np.ndarray]:
    """The score of the seeded q and k at every offset n − m = −(n − 1) … n − 1."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    return derived.rope_offset_curve(n, d, base, state.layout, state.seed)


def decay_subplot(state: ExplorerState) -> Subplot:
    """RoFormer's long-term-decay bound against |k|, the current |k| marked (bottom right)."""
    offsets, decay = derived.rope_decay_curve(state.n_positions, state.d_model, float(state.base))
    distance = abs(state.offset)
    colour = theme.colours(state.theme)["second"]
    traces = [
        curve_trace(
            offsets, decay, theme.PAIR_COLOURS[2], "long-term-decay bound", ("|k|", "bound")
        ),
        point_trace(distance, decay[distance], (colour, 9), ("|k|", "bound"), 6),
    ]
    # The bound is largest at 0, where it is (d/2 + 1)/2.
    y_axis = {"range": [0.0, 1.05 * float(decay[0])], "title": {"text": "decay bound"}}
    x_axis = {"title": {"text": "relative distance |k|"}}
    return Subplot(traces, x_axis, y_axis, ((0.62, 1.0), (0.0, 0.38)))


def figure(state: ExplorerState) -> dict:
    """Heatmap of q_m·k_n with diagonal k marked; the score and the decay bound against k."""
    n, d = state.n_positions, state.d_model
    shown = derived.rope_score_cells(n, d, float(state.base), state.layout, state.seed)
    # One colour scale for every seed: symmetric about 0, out to the largest score drawn.
    scale = float(np.abs(_curve(state)[1]).max()) or 1.0
    title = f"RoPE scores q<sub>m</sub>·k<sub>n</sub> of {n} position{'' if n == 1 else 's'}"
    if shown.stride > 1:
        title += f"<br><sub>{reduced_note(shown.stride, shown.rows.size, n)}</sub>"
    trace = toeplitz_trace(
        shown.rows, shown.scores, scale, "score", ("m", "n", "q_m·k_n"), "q_m·k_n"
    )
    matrix = toeplitz_subplot(state, trace, ("key position n", "query position m"), shown.stride)
    # Its marks are the layout's images, not toeplitz_subplot's shapes: a moved shape would
    # redraw the whole matrix.
    matrix = dataclasses.replace(matrix, shapes=[])
    layout = toeplitz_layout(state, f"rope-{n}-{d}", title)
    layout["images"] = offset_markers(state, shown.stride)
    names, titles = ("score at offset k", "q_m·k_(m+k)", "score"), ("offset k = n − m", "score")
    curve = offset_curve_subplot(state, _curve(state), names, titles, SCORE_PLACE, scale)
    return compose(state, layout, [matrix, curve, decay_subplot(state)])


def label_text(
    n_positions: int, shown: derived.RopeScoresAt, positions: Positions
) -> picks_kit.Text:
    """The chart's accessible name at each value of shown."""
    return picks_kit.joined(
        len(positions.firsts),
        f"RoPE scores q_m·k_n of {n_positions} positions, diagonal k = ",
        positions.offsets,
        " marked: q_",
        positions.firsts,
        "·k_",
        positions.seconds,
        " = ",
        printed(shown.scores, DATA_DIGITS),
        ", the same for every pair k apart; decay bound at |k| = ",
        positions.distances,
        ": ",
        printed(shown.decays, DATA_DIGITS),
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the score matrix, diagonal k and its score."""
    shown = scores(state, [state.pos], [state.offset])
    positions = Positions.of([state.pos], [state.offset])
    return label_text(state.n_positions, shown, positions).at(0)


def caption_text(seed: int, positions: Positions) -> picks_kit.Text:
    """The Show data table's caption at each pos and pos + k."""
    return picks_kit.joined(
        len(positions.firsts),
        "RoPE scores q_m·k_n, queries m near pos = ",
        positions.firsts,
        ", keys n near pos + k = ",
        positions.seconds,
        f" (seed {seed})",
    )


def data(state: ExplorerState) -> ChartData:
    """Scores q_m·k_n for queries m near pos and keys n near pos + k: the score at offset
    n − m, read off the curve the chart draws."""
    caption = caption_text(state.seed, Positions.of([state.pos], [state.offset])).at(0)
    return toeplitz_table(state, caption, "m \\ n", _curve(state)[1])


def score_labels(offsets: np.ndarray, curve: np.ndarray) -> list[str]:
    """The label over the score's point at each k of offsets (curve: the score at −(n − 1) …
    n − 1), written once per distinct k: along the pos slider k hardly changes."""
    distinct, where = np.unique(offsets, return_inverse=True)
    values = curve[distinct + (curve.size - 1) // 2].tolist()
    texts = [
        offset_mark_text(k, "score", v) for k, v in zip(distinct.tolist(), values, strict=True)
    ]
    return [texts[i] for i in where.ravel().tolist()]


def point_updates(state: ExplorerState, moved: picks_kit.Moved, positions: Positions) -> list:
    """The score's point at k and its label, the bound's point at |k|, at each value of one
    axis (rows of the tables: "offset" and "score" by k + n − 1, "distance" and "bound" by
    |k|)."""
    n, offsets, count = state.n_positions, moved.offsets, moved.count
    distances = np.abs(offsets)
    ks, sizes = positions.offsets, positions.distances
    label = f"annotations[{SCORE_LABEL}]"
    return [
        picks_kit.Update("trace", "x", SCORE_POINT, rows="offset", index=offsets + n - 1),
        picks_kit.Update("trace", "y", SCORE_POINT, rows="score", index=offsets + n - 1),
        picks_kit.Update(
            "trace", "name", SCORE_POINT, text=filled(count, partial(point_name, "k"), x=ks)
        ),
        picks_kit.Update(
            "trace",
            "hovertemplate",
            SCORE_POINT,
            text=filled(count, partial(point_hovertemplate, "k", y_label="score", digits=9), x=ks),
        ),
        # Whole texts: the label is short, and writing it per value is quicker than parsing it.
        picks_kit.Update(
            "layout",
            f"{label}.text",
            text=picks_kit.joined(count, score_labels(offsets, _curve(state)[1])),
        ),
        picks_kit.Update("layout", f"{label}.x", each=offsets),
        picks_kit.Update("trace", "x", DECAY_POINT, rows="distance", index=distances),
        picks_kit.Update("trace", "y", DECAY_POINT, rows="bound", index=distances),
        picks_kit.Update(
            "trace", "name", DECAY_POINT, text=filled(count, partial(point_name, "|k|"), x=sizes)
        ),
        picks_kit.Update(
            "trace",
            "hovertemplate",
            DECAY_POINT,
            text=filled(
                count, partial(point_hovertemplate, "|k|", y_label="bound", digits=6), x=sizes
            ),
        ),
    ]


def axis_updates(state: ExplorerState, moved: picks_kit.Moved, shown: derived.RopeScoresAt):
    """Everything pos and k move, at each value of one axis (shown: the scores there)."""
    n, stride = state.n_positions, derived.dot_product_stride(state.n_positions)
    positions = Positions.of(moved.firsts, moved.offsets)
    readout_now = readout_text(shown, positions, state.d_model, state.layout)
    return [
        *marker_updates(moved, n, stride),
        *point_updates(state, moved, positions),
        picks_kit.Update("label", text=label_text(n, shown, positions)),
        picks_kit.Update("caption", text=caption_text(state.seed, positions)),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_now),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks | None:
    """What a drag of pos or k moves: the diagonal and the cell marked, the score's and the
    bound's points, the chart's name, the caption and the readout; nothing when the scores of
    every value would take too long (MAX_PICKED_PRODUCTS)."""
    n, d = state.n_positions, state.d_model
    moved = picks_kit.moved_positions(state)
    if sum(m.count for m in moved) * d > MAX_PICKED_PRODUCTS:
        return None
    offsets, curve = _curve(state)
    distances, bound = derived.rope_decay_curve(n, d, float(state.base))
    tables = {
        "offset": offsets.astype(np.float64).reshape(-1, 1),
        "score": curve.reshape(-1, 1),
        "distance": distances.astype(np.float64).reshape(-1, 1),
        "bound": bound.reshape(-1, 1),
    }
    # Both axes' scores at once: the positions they share are turned once.
    firsts, ks = (
        np.concatenate([getattr(m, name) for m in moved]) for name in ("firsts", "offsets")
    )
    shown = scores(state, firsts, ks)
    axes, start = [], 0
    for m in moved:
        axes.append(m.picks(axis_updates(state, m, shown.part(slice(start, start + m.count)))))
        start += m.count
    return picks_kit.Picks(tables, tuple(axes))

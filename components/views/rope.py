"""RoPE: q and k rotated pair by pair by m·θ_i and n·θ_i, so their score depends on n − m alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import derived, encoding, methods
from ..plotkit import theme
from ..plotkit.charts import curve_trace, point_trace, reduced_note, toeplitz_layout, toeplitz_trace
from ..plotkit.frame import ChartData, offset_window, positions_table
from ..plotkit.numbers import number
from ..state import ExplorerState

# Where the other pairs at the same offset start, as in the compare view.
OTHER_STARTS = (0, 22, 100, 1000)
OTHER_PAIRS = 3

LAYOUT_NAMES = {
    "interleaved": "interleaved, as in RoFormer and GPT-J",
    "concatenated": "half split, as in GPT-NeoX and LLaMA (rotate_half)",
}

READOUT_STYLE = theme.READOUT_TABLE_STYLE


@dataclass(frozen=True)
class PairScore:
    """The RoPE score q_m·k_n of the query at position m and the key at position n."""

    m: int
    n: int
    score: float


@dataclass(frozen=True)
class RopeReadout:
    """The numbers the RoPE view prints."""

    offset: int
    current: PairScore  # m = pos, n = pos + k
    others: tuple[PairScore, ...]  # other starts m, the same k
    offset_only: float  # the score computed from k alone (methods.rope_offset_scores)
    unrotated: float  # q·k, no rotation
    layout: str
    pair_dimensions: tuple[tuple[int, int, int], ...]  # (i, first dimension, second dimension)
    link_score: float  # RoPE score of q = k = PE(0) at m = pos, n = pos + k
    link_dot: float  # D(k) = PE(pos)·PE(pos + k) = Σ cos(k·ω_i)
    decay: float  # RoFormer's long-term-decay bound at |k|


def other_starts(pos: int, offset: int) -> list[int]:
    """A few query positions other than pos whose key at the same offset is at a valid position."""
    # Shifted by −k when k < 0, so that the earlier of m and n is at each of OTHER_STARTS: the
    # shift keeps them distinct and n ≥ 0.
    starts = [start + max(0, -offset) for start in OTHER_STARTS]
    return [start for start in starts if start != pos][:OTHER_PAIRS]


def shown_pairs(d_model: int, layout: str) -> tuple[tuple[int, int, int], ...]:
    """Pairs 0, 1 and the last, each with the two dimensions it rotates in this layout."""
    pairs = sorted({0, 1, d_model // 2 - 1} & set(range(d_model // 2)))
    return tuple((i, *map(int, encoding.pair_columns(d_model, layout, i))) for i in pairs)


def unit_pairs(d_model: int, layout: str) -> np.ndarray:
    """The vector that is (0, 1) in every pair: PE(0), whose pair i is (sin 0, cos 0)."""
    vector = np.zeros(d_model)
    vector[encoding.pair_columns(d_model, layout)[1]] = 1.0
    return vector


def numbers(state: ExplorerState) -> RopeReadout:
    """The live scores, the offset-only score, q·k, the pair layout and the sinusoidal link."""
    d, base, layout, k = state.d_model, float(state.base), state.layout, state.offset
    q, key = derived.query_key(d, state.seed)

    def pair_score(m: int) -> PairScore:
        return PairScore(m, m + k, methods.rope_score(q, key, m, m + k, base, layout))

    unit = unit_pairs(d, layout)
    return RopeReadout(
        offset=k,
        current=pair_score(state.pos),
        others=tuple(pair_score(m) for m in other_starts(state.pos, k)),
        offset_only=methods.rope_offset_scores(q, key, k, base, layout),
        unrotated=float(q @ key),
        layout=layout,
        pair_dimensions=shown_pairs(d, layout),
        link_score=methods.rope_score(unit, unit, state.pos, state.second_pos, base, layout),
        link_dot=encoding.offset_dot(k, d, base),
        decay=methods.rope_decay(abs(k), d, base),
    )


def _number(value: float) -> str:
    # Adding 0.0 turns -0.0 into 0.0, so an exact zero never shows a sign.
    return f"{value + 0.0:.9f}"


def _score_row(row_class: str, label: str, cell_class: str, value: float) -> str:
    return (
        f'<tr class="{row_class}"><td>{label}</td>'
        f'<td class="{cell_class}">{_number(value)}</td></tr>'
    )


def readout(state: ExplorerState) -> str:
    """The readout: scores at the same offset, the pair layout and the sinusoidal link."""
    shown = numbers(state)
    k, current = shown.offset, shown.current
    lines = [
        '<table class="pe-readouts">',
        f'<caption class="pe-rope-positions">m = pos = {current.m} · n = pos + k = {current.n} '
        f"· k = n − m = {k}</caption>",
        "<thead><tr><th>scores after RoPE</th><th>q<sub>m</sub>·k<sub>n</sub></th></tr></thead>"
        "<tbody>",
        _score_row(
            "pe-current",
            f"q<sub>{current.m}</sub>·k<sub>{current.n}</sub>",
            "pe-rope-score",
            current.score,
        ),
    ]
    lines += [
        _score_row("pe-other", f"q<sub>{p.m}</sub>·k<sub>{p.n}</sub>", "pe-rope-other", p.score)
        for p in shown.others
    ]
    lines += [
        _score_row(
            "pe-closed-form",
            "from k alone: Σ Re(a<sub>i</sub>) cos(kθ<sub>i</sub>) + Im(a<sub>i</sub>) "
            "sin(kθ<sub>i</sub>), a<sub>i</sub> = q<sub>i</sub>·conj(k<sub>i</sub>)",
            "pe-rope-offset-only",
            shown.offset_only,
        ),
        _score_row(
            "pe-unrotated",
            "q·k without rotation (the score at k = 0, wherever m is)",
            "pe-rope-unrotated",
            shown.unrotated,
        ),
        "</tbody></table>",
    ]
    pairs = ", ".join(
        f'pair <span class="pe-rope-pair">{i}</span> = dimensions '
        f'(<span class="pe-rope-pair-first">{first}</span>, '
        f'<span class="pe-rope-pair-second">{second}</span>)'
        for i, first, second in shown.pair_dimensions
    )
    formula = "(2i, 2i + 1)" if shown.layout == "interleaved" else f"(i, i + {state.d_model // 2})"
    lines += [
        f'<p class="pe-note pe-rope-layout">Pairs {LAYOUT_NAMES[shown.layout]}: pair i turns '
        f"dimensions {formula} by m·θ<sub>i</sub>: {pairs}.</p>",
        '<p class="pe-note">Every pair k apart gives the same score: turning q by m·θ<sub>i</sub> '
        "and k by n·θ<sub>i</sub> leaves only the angle (n − m)·θ<sub>i</sub> between them.</p>",
        '<p class="pe-note">θ<sub>i</sub> = base<sup>−2i/d<sub>model</sub></sup> are the '
        "sinusoidal encoding's frequencies ω<sub>i</sub>, applied by rotating q and k instead of "
        "adding PE to the input. With PE(0), (0, 1) in every pair, as both query and key, "
        f"RoPE's score at m = {current.m}, n = {current.n} is "
        f'<span class="pe-rope-link-score">{_number(shown.link_score)}</span>, the same as the '
        f"sinusoidal PE({current.m})·PE({current.n}) = D(k) = Σ cos(k·ω<sub>i</sub>) = "
        f'<span class="pe-rope-link-dot">{_number(shown.link_dot)}</span>.</p>',
        '<p class="pe-note">RoFormer §3.4.3 long-term-decay bound at |k| = '
        f'{abs(k)}: <span class="pe-rope-decay">{_number(shown.decay)}</span> (it is '
        f"(d<sub>model</sub>/2 + 1)/2 = {_number((state.d_model / 2 + 1) / 2)} at 0).</p>",
    ]
    return "".join(lines)


def figure(state: ExplorerState) -> dict:
    """Heatmap of q_m·k_n with diagonal k marked; the score and the decay bound against k."""
    n, d, base, k = state.n_positions, state.d_model, float(state.base), state.offset
    pair_layout, seed = state.layout, state.seed
    palette = theme.colours(state.theme)
    shown = derived.rope_score_cells(n, d, base, pair_layout, seed)
    offsets, curve = derived.rope_offset_curve(n, d, base, pair_layout, seed)
    decay_offsets, decay = derived.rope_decay_curve(n, d, base)
    # offset lies in −(n − 1) … n − 1, so it is a point of the curve.
    current = float(curve[k + n - 1])
    # One colour scale for every seed: symmetric about 0, out to the largest score drawn.
    scale = float(np.abs(curve).max()) or 1.0
    title = f"RoPE scores q<sub>m</sub>·k<sub>n</sub> of {n} position{'' if n == 1 else 's'}"
    if shown.stride > 1:
        title += f"<br><sub>{reduced_note(shown.stride, shown.rows.size, n)}</sub>"
    traces = [
        toeplitz_trace(shown.rows, shown.scores, scale, "score", ("m", "n", "q_m·k_n"), "q_m·k_n"),
        curve_trace(
            offsets, curve, "2", theme.PAIR_COLOURS[0], "score at offset k", ("k", "q_m·k_(m+k)")
        ),
        point_trace(k, current, "2", (palette["second"], 10), ("k", "score"), 9),
        curve_trace(
            decay_offsets,
            decay,
            "3",
            theme.PAIR_COLOURS[2],
            "long-term-decay bound",
            ("|k|", "bound"),
        ),
        point_trace(abs(k), decay[abs(k)], "3", (palette["second"], 9), ("|k|", "bound"), 6),
    ]
    titles = ("key position n", "query position m", "offset k = n − m", "score")
    label = f"k = {k}: score = {current + 0.0:.4f}"
    layout = toeplitz_layout(
        state, f"rope-{n}-{d}", title, titles, 0.62, scale, shown.stride, label
    )
    layout["yaxis2"]["domain"] = [0.6, 1.0]
    layout.update(
        xaxis3=theme.axis(
            state.theme, domain=[0.62, 1.0], anchor="y3", title={"text": "relative distance |k|"}
        ),
        yaxis3=theme.axis(
            state.theme,
            domain=[0.0, 0.38],
            anchor="x3",
            # The bound is largest at 0, where it is (d/2 + 1)/2.
            range=[0.0, 1.05 * float(decay[0])],
            title={"text": "decay bound"},
        ),
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the score matrix, diagonal k and its score."""
    shown = numbers(state)
    current = shown.current
    return (
        f"RoPE scores q_m·k_n of {state.n_positions} positions, diagonal k = {shown.offset} "
        f"marked: q_{current.m}·k_{current.n} = {number(current.score)}, the same for every pair "
        f"k apart; decay bound at |k| = {abs(shown.offset)}: {number(shown.decay)}"
    )


def data(state: ExplorerState) -> ChartData:
    """Scores q_m·k_n for queries m near pos and keys n near pos + k."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    rows, columns, offsets = offset_window(state)
    # Entry (m, n) is the score at offset n − m, read off the curve the chart draws.
    _, curve = derived.rope_offset_curve(n, d, base, state.layout, state.seed)
    caption = (
        f"RoPE scores q_m·k_n, queries m near pos = {state.pos}, keys n near "
        f"pos + k = {state.second_pos} (seed {state.seed})"
    )
    return positions_table(caption, "m \\ n", rows, columns, curve[offsets + n - 1], n)

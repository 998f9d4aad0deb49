"""RoPE: q and k rotated pair by pair by m·θ_i and n·θ_i, so their score depends on n − m alone."""

from __future__ import annotations

import numpy as np

from .. import derived, encoding
from ..plotkit import theme
from ..plotkit.charts import curve_trace, point_trace, reduced_note, toeplitz_layout, toeplitz_trace
from ..plotkit.frame import ChartData, toeplitz_table
from ..plotkit.numbers import number, readout_number
from ..plotkit.subplots import Subplot, compose, offset_curve_subplot, toeplitz_subplot
from ..state import ExplorerState

LAYOUT_NAMES = {
    "interleaved": "interleaved, as in RoFormer and GPT-J",
    "concatenated": "half split, as in GPT-NeoX and LLaMA (rotate_half)",
}

READOUT_STYLE = theme.READOUT_TABLE_STYLE
# The score against the offset, top right; the decay bound below it.
SCORE_PLACE = ((0.62, 1.0), (0.6, 1.0))


def shown_pairs(d_model: int, layout: str) -> tuple[tuple[int, int, int], ...]:
    """Pairs 0, 1 and the last, each with the two dimensions it rotates in this layout."""
    pairs = sorted({0, 1, d_model // 2 - 1} & set(range(d_model // 2)))
    return tuple((i, *map(int, encoding.pair_columns(d_model, layout, i))) for i in pairs)


def _score_row(row_class: str, label: str, cell_class: str, value: float) -> str:
    return (
        f'<tr class="{row_class}"><td>{label}</td>'
        f'<td class="{cell_class}">{readout_number(value)}</td></tr>'
    )


def _scores_table(shown: derived.RopeOffsetScores, k: int) -> str:
    """The scores at offset k: the live one, at other starts, from k alone, and unrotated."""
    current = shown.current
    pair = "q<sub>{}</sub>·k<sub>{}</sub>".format
    closed_form = (
        "from k alone: Σ Re(a<sub>i</sub>) cos(kθ<sub>i</sub>) + Im(a<sub>i</sub>) "
        "sin(kθ<sub>i</sub>), a<sub>i</sub> = q<sub>i</sub>·conj(k<sub>i</sub>)"
    )
    unrotated = "q·k without rotation (the score at k = 0, wherever m is)"
    rows = [
        _score_row("pe-current", pair(current.m, current.n), "pe-rope-score", current.score),
        *(_score_row("pe-other", pair(p.m, p.n), "pe-rope-other", p.score) for p in shown.others),
        _score_row("pe-closed-form", closed_form, "pe-rope-offset-only", shown.offset_only),
        _score_row("pe-unrotated", unrotated, "pe-rope-unrotated", shown.unrotated),
    ]
    return (
        '<table class="pe-readouts">'
        f'<caption class="pe-rope-positions">m = pos = {current.m} · n = pos + k = {current.n} '
        f"· k = n − m = {k}</caption>"
        "<thead><tr><th>scores after RoPE</th><th>q<sub>m</sub>·k<sub>n</sub></th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _pairs_note(state: ExplorerState) -> str:
    """Which dimensions each pair turns in the state's layout."""
    pairs = ", ".join(
        f'pair <span class="pe-rope-pair">{i}</span> = dimensions '
        f'(<span class="pe-rope-pair-first">{first}</span>, '
        f'<span class="pe-rope-pair-second">{second}</span>)'
        for i, first, second in shown_pairs(state.d_model, state.layout)
    )
    interleaved = state.layout == "interleaved"
    formula = "(2i, 2i + 1)" if interleaved else f"(i, i + {state.d_model // 2})"
    return (
        f'<p class="pe-note pe-rope-layout">Pairs {LAYOUT_NAMES[state.layout]}: pair i turns '
        f"dimensions {formula} by m·θ<sub>i</sub>: {pairs}.</p>"
    )


def readout(state: ExplorerState) -> str:
    """The readout: scores at the same offset, the pair layout and the sinusoidal link."""
    shown = derived.rope_offset_scores(state)
    k, current = state.offset, shown.current
    return (
        _scores_table(shown, k)
        + _pairs_note(state)
        + '<p class="pe-note">Every pair k apart gives the same score: turning q by '
        "m·θ<sub>i</sub> and k by n·θ<sub>i</sub> leaves only the angle (n − m)·θ<sub>i</sub> "
        "between them.</p>"
        '<p class="pe-note">θ<sub>i</sub> = base<sup>−2i/d<sub>model</sub></sup> are the '
        "sinusoidal encoding's frequencies ω<sub>i</sub>, applied by rotating q and k instead of "
        "adding PE to the input. With PE(0), (0, 1) in every pair, as both query and key, "
        f"RoPE's score at m = {current.m}, n = {current.n} is "
        f'<span class="pe-rope-link-score">{readout_number(shown.link_score)}</span>, the same '
        f"as the sinusoidal PE({current.m})·PE({current.n}) = D(k) = Σ cos(k·ω<sub>i</sub>) = "
        f'<span class="pe-rope-link-dot">{readout_number(shown.link_dot)}</span>.</p>'
        '<p class="pe-note">RoFormer §3.4.3 long-term-decay bound at |k| = '
        f'{abs(k)}: <span class="pe-rope-decay">{readout_number(shown.decay)}</span> (it is '
        f"(d<sub>model</sub>/2 + 1)/2 = {readout_number((state.d_model / 2 + 1) / 2)} at 0).</p>"
    )


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
    layout = toeplitz_layout(state, f"rope-{n}-{d}", title)
    names, titles = ("score at offset k", "q_m·k_(m+k)", "score"), ("offset k = n − m", "score")
    scores = offset_curve_subplot(state, _curve(state), names, titles, SCORE_PLACE, scale)
    return compose(state, layout, [matrix, scores, decay_subplot(state)])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the score matrix, diagonal k and its score."""
    shown = derived.rope_offset_scores(state)
    current, k = shown.current, state.offset
    return (
        f"RoPE scores q_m·k_n of {state.n_positions} positions, diagonal k = {k} "
        f"marked: q_{current.m}·k_{current.n} = {number(current.score)}, the same for every pair "
        f"k apart; decay bound at |k| = {abs(k)}: {number(shown.decay)}"
    )


def data(state: ExplorerState) -> ChartData:
    """Scores q_m·k_n for queries m near pos and keys n near pos + k: the score at offset
    n − m, read off the curve the chart draws."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    _, curve = derived.rope_offset_curve(n, d, base, state.layout, state.seed)
    caption = (
        f"RoPE scores q_m·k_n, queries m near pos = {state.pos}, keys n near "
        f"pos + k = {state.second_pos} (seed {state.seed})"
    )
    return toeplitz_table(state, caption, "m \\ n", curve)

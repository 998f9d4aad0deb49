"""RoPE: q and k rotated pair by pair by m·θ_i and n·θ_i, so their score depends on n − m alone."""

from __future__ import annotations

import numpy as np

from .. import derived, encoding
from ..plotkit import theme
from ..plotkit.charts import curve_trace, point_trace, reduced_note, toeplitz_layout, toeplitz_trace
from ..plotkit.frame import ChartData, toeplitz_table
from ..plotkit.numbers import number, readout_number
from ..state import ExplorerState

LAYOUT_NAMES = {
    "interleaved": "interleaved, as in RoFormer and GPT-J",
    "concatenated": "half split, as in GPT-NeoX and LLaMA (rotate_half)",
}

READOUT_STYLE = theme.READOUT_TABLE_STYLE


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

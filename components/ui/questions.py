"""Guided questions: short cards that set the page to the state answering a learner's question.

Each card is a question, the state values that show its answer, the view to look at, and two
to four sentences saying what to see there. The sentences are a template of our own HTML whose
``{name:format}`` fields are filled from ``numbers(state)``: every number a card quotes is
computed from components/encoding.py and components/methods.py at the state, never typed.
"""

from __future__ import annotations

import html
import math
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .. import derived, encoding, methods, scaling, urlstate
from ..rope_types import yarn_mscale
from ..state import DEFAULT_D_MODEL, ExplorerState

# The base the "why 10 000" card compares with: small enough that its longest wavelength is
# shorter than the card's text.
SMALL_BASE = 100.0
# The second start of the linear-shift card's check, as in the rotation view's readout.
FAR_START = 1000
# The pair whose columns the layout card names (pair 0 sits in column 0 in both layouts).
LAYOUT_PAIR = 1
# The layout card compares the products of at most this many positions: all 2048 would take
# seconds in the browser, and every diagonal already occurs in the first ones.
MAX_COMPARED_POSITIONS = 256
# Parameters a card never sets: they are the visitor's, and no answer depends on them.
VISITOR_KEYS = ("theme", "text")
NUMBER_CLASS = "pe-question-number"

_FIELDS = string.Formatter()


@dataclass(frozen=True)
class Question:
    """A learner's question, the state that shows its answer, and the words saying where to look."""

    name: str  # a slug: the card's id and its name in question(name)
    title: str  # the question itself, at most 60 characters of plain text
    values: Mapping[str, object]  # the ExplorerState values the card sets
    focus: str  # the view (a pe_explorer.views.VIEW_NAMES name) that shows the answer
    template: str  # trusted HTML; {name:format} fields are filled from numbers(state)
    numbers: Callable[[ExplorerState], dict[str, float]]  # every number the answer quotes

    def state(self) -> ExplorerState:
        """The card's own state: the defaults, with the card's values set."""
        return ExplorerState(**self.values)

    def page_values(self) -> dict:
        """Every parameter of the card's state but the visitor's own (theme and text).

        Applying these makes the page show what the card's link opens, so the numbers the
        answer quotes are the ones on the page whatever the visitor had set before.
        """
        state = self.state()
        return {
            key: getattr(state, key) for key in urlstate.state_keys() if key not in VISITOR_KEYS
        }

    def query(self) -> str:
        """The card's state as a query string (without '?'); it carries no view= key."""
        return urlstate.to_query(self.state())

    def answer(self, state: ExplorerState) -> str:
        """The answer's HTML with its numbers computed at state (written for the card's own)."""
        numbers = self.numbers(state)
        parts = []
        for literal, field_name, spec, _ in _FIELDS.parse(self.template):
            parts.append(literal)
            if field_name is not None:
                parts.append(number_html(field_name, numbers[field_name], spec or ""))
        return f'<p class="pe-question-answer">{"".join(parts)}</p>'


def number_html(name: str, value: float, spec: str) -> str:
    """One quoted number, marked with its name so a test can read it back."""
    # Adding 0.0 turns -0.0 into 0.0, so an exact zero never shows a sign.
    shown = format(value + 0.0 if isinstance(value, float) else value, spec)
    return f'<span class="{NUMBER_CLASS}" data-number="{name}">{shown}</span>'


# --- The numbers of each card ------------------------------------------------------------


def _slow_pairs(d_model: int, base: float, n_positions: int) -> int:
    """How many pairs have a wavelength longer than the text, i.e. turn less than once in it."""
    return int((encoding.wavelengths(d_model, base) > n_positions).sum())


def base_numbers(state: ExplorerState) -> dict[str, float]:
    """The wavelength range at the state's base and at SMALL_BASE, and the slow pairs of each."""
    d, base, n = state.d_model, float(state.base), state.n_positions
    lengths = encoding.wavelengths(d, base)
    return {
        "d_model": d,
        "pairs": int(lengths.size),
        "shortest": float(lengths[0]),
        "longest": float(lengths[-1]),
        "n_positions": n,
        "slow_pairs": _slow_pairs(d, base, n),
        "small_base": SMALL_BASE,
        "small_longest": float(encoding.wavelengths(d, SMALL_BASE)[-1]),
        "small_slow_pairs": _slow_pairs(d, SMALL_BASE, n),
    }


def exp_log_numbers(state: ExplorerState) -> dict[str, float]:
    """The ratio of neighbouring frequencies, and how far the tutorial's exp form is from ours."""
    d, base = state.d_model, float(state.base)
    omega = encoding.angular_frequencies(d, base)
    # The PyTorch tutorial's div_term: exp(arange(0, d, 2) * (-log(base) / d)).
    tutorial = np.exp(np.arange(0, d, 2) * (-math.log(base) / d))
    return {
        "ratio": float(omega[1] / omega[0]) if omega.size > 1 else float(base ** (-2 / d)),
        "difference": float(np.abs(tutorial - omega).max()),
        "pairs": int(omega.size),
    }


def sine_cosine_numbers(state: ExplorerState) -> dict[str, float]:
    """Pair i's sine and cosine at pos and pos + k, and the angle k·ω_i between them."""
    d, base, i = state.d_model, float(state.base), state.rotation_pair
    sin_column, cos_column = encoding.pair_columns(d, state.layout, i)
    first, second = encoding.encode_positions(
        [state.pos, state.second_pos], d, base, layout=state.layout
    )
    return {
        "pos": state.pos,
        "second": state.second_pos,
        "pair": i,
        "sin_first": float(first[sin_column]),
        "sin_second": float(second[sin_column]),
        "cos_first": float(first[cos_column]),
        "cos_second": float(second[cos_column]),
        "angle": state.offset * float(encoding.angular_frequencies(d, base)[i]),
    }


def linear_shift_numbers(state: ExplorerState) -> dict[str, float]:
    """‖PE(pos + k) − R(k)·PE(pos)‖, and how far pair i's rotation read at pos + FAR_START is."""
    d, base, k, i = state.d_model, float(state.base), state.offset, state.rotation_pair
    layout = state.layout
    pos, second, far = state.pos, state.second_pos, state.pos + FAR_START
    first, after = encoding.encode_positions([pos, second], d, base, layout=layout)
    rotated = encoding.rotate(first, k, base, layout=layout)
    near_block = encoding.measured_rotation_block(pos, second, i, d, base, layout)
    far_block = encoding.measured_rotation_block(far, far + k, i, d, base, layout)
    return {
        "pos": pos,
        "offset": k,
        "second": second,
        "d_model": d,
        "error": float(np.linalg.norm(after - rotated)),
        "far": far,
        "far_second": far + k,
        "pair": i,
        "far_difference": float(np.abs(near_block - far_block).max()),
    }


def not_periodic_numbers(state: ExplorerState) -> dict[str, float]:
    """D(0) = d/2, D(k) at the offset, and the largest D from there to the last shown offset."""
    d, base, n, k = state.d_model, float(state.base), state.n_positions, abs(state.offset)
    dots = encoding.offset_dots(n, d, base)
    highest = float(dots[k:].max())
    return {
        "half": float(dots[0]),
        "offset": k,
        "at_offset": encoding.offset_dot(k, d, base),
        "highest": highest,
        "highest_cosine": 2.0 * highest / d,
        "last": n - 1,
    }


def layout_numbers(state: ExplorerState) -> dict[str, float]:
    """Where LAYOUT_PAIR sits in each layout, and the largest difference of the dot products."""
    n, d, base = min(state.n_positions, MAX_COMPARED_POSITIONS), state.d_model, float(state.base)
    sin_interleaved, cos_interleaved = encoding.pair_columns(d, "interleaved", LAYOUT_PAIR)
    sin_concatenated, cos_concatenated = encoding.pair_columns(d, "concatenated", LAYOUT_PAIR)
    grams = [
        encoding.gram_matrix(encoding.positional_encoding(n, d, base, layout=layout))
        for layout in encoding.LAYOUTS
    ]
    return {
        "pair": LAYOUT_PAIR,
        "sin_concatenated": sin_concatenated,
        "cos_concatenated": cos_concatenated,
        "sin_interleaved": sin_interleaved,
        "cos_interleaved": cos_interleaved,
        "positions": n,
        "difference": float(np.abs(grams[0] - grams[1]).max()),
    }


def small_d_model_numbers(state: ExplorerState) -> dict[str, float]:
    """PE(pos)'s nearest position, the turns each pair makes to get there, and d = 128's."""
    d, base, pos = state.d_model, float(state.base), state.pos
    q, nearest = encoding.nearest_position(pos, d, base)
    omega = encoding.angular_frequencies(d, base)
    turns = abs(q - pos) * omega / (2 * math.pi)
    wide_q, wide_nearest = encoding.nearest_position(pos, DEFAULT_D_MODEL, base)
    return {
        "d_model": d,
        "pairs": int(omega.size),
        "apart": abs(q - pos),
        "turns_fast": float(turns[0]),
        "turns_slow": float(turns[-1]),
        "pos": pos,
        "nearest_pos": q,
        "nearest": nearest,
        "neighbour_pos": pos + 1,
        "neighbour": encoding.offset_distance(1, d, base),
        "wide_d_model": DEFAULT_D_MODEL,
        "horizon": encoding.NEAREST_HORIZON,
        "wide_nearest_pos": wide_q,
        "wide_nearest": wide_nearest,
    }


def beyond_training_numbers(state: ExplorerState) -> dict[str, float]:
    """D(k) at the offset, its range up to L and beyond, and ALiBi's steepest bias at k."""
    d, base, n, length = state.d_model, float(state.base), state.n_positions, state.train_length
    k = abs(state.offset)
    dots = encoding.offset_dots(n, d, base)
    slope = float(methods.alibi_slopes(state.heads).max())
    return {
        "offset": k,
        "train_length": length,
        "at_offset": encoding.offset_dot(k, d, base),
        "trained_low": float(dots[: length + 1].min()),
        "half": float(dots[0]),
        "beyond_low": float(dots[length + 1 :].min()),
        "last": n - 1,
        "slope": slope,
        "alibi": methods.alibi_offset_bias(k, slope),
    }


def _scaled(state: ExplorerState) -> np.ndarray:
    """The state's RoPE frequencies, scaled by its method, as the scaling view draws them."""
    return derived.scaled_rope(state).scaled


def _near_score(inv_freq: np.ndarray) -> float:
    """RoPE's score of a query with itself one position away, q = k: the mean of cos θ_i."""
    return float(np.cos(inv_freq).mean())


def interpolation_numbers(state: ExplorerState) -> dict[str, float]:
    """What Position Interpolation does to the fastest pair and to the score of neighbours."""
    original = scaling.default_frequencies(state.d_model, state.base)
    scaled = original / state.factor
    return {
        "factor": state.factor,
        "fast": float(original[0]),
        "fast_scaled": float(scaled[0]),
        "near": _near_score(original),
        "near_scaled": _near_score(scaled),
        "top": 1.0,
    }


def yarn_numbers(state: ExplorerState) -> dict[str, float]:
    """Which pairs YaRN leaves alone (divisor 1) and interpolates (divisor s), and why."""
    original = scaling.default_frequencies(state.d_model, state.base)
    divisor = original / _scaled(state)
    kept = np.flatnonzero(np.isclose(divisor, 1.0, rtol=1e-12, atol=0))
    wavelength = 2 * math.pi / float(original[kept[-1]]) if kept.size else 0.0
    attention = yarn_mscale(state.factor)
    return {
        "beta_fast": state.beta_fast,
        "beta_slow": state.beta_slow,
        "context": state.original_context,
        "factor": state.factor,
        "kept": int(kept.size),
        "kept_wavelength": wavelength,
        "kept_turns": state.original_context / wavelength if wavelength else 0.0,
        "interpolated": int(np.isclose(divisor, state.factor, rtol=1e-12, atol=0).sum()),
        "attention": attention,
        "attention_squared": attention**2,
    }


# --- The cards, in the order a tour steps through them -----------------------------------

QUESTIONS: tuple[Question, ...] = (
    Question(
        name="why-base",
        title=f"Why is the base {encoding.DEFAULT_BASE:,.0f}?".replace(",", "\u2009"),
        values=MappingProxyType(
            {"base": encoding.DEFAULT_BASE, "d_model": DEFAULT_D_MODEL, "n_positions": 1024}
        ),
        focus="frequency",
        template="In the lower chart the wavelengths λ<sub>i</sub> of d<sub>model</sub> = "
        "{d_model:d} grow from 2π = {shortest:.6f} to {longest:.1f} positions, a straight line "
        "on the log axis whose slope the base sets. In a text of {n_positions:d} positions, "
        "{slow_pairs:d} of the {pairs:d} pairs turn less than once, so they still tell near "
        "from far. With base {small_base:g} the longest wavelength is only {small_longest:.1f} "
        "positions and {small_slow_pairs:d} of the {pairs:d} pairs are that slow, so distant "
        "positions start to look alike. The base only has to be large enough for the texts "
        "a model reads.",
        numbers=base_numbers,
    ),
    Question(
        name="exp-and-log",
        title="Why does the code use exp and log?",
        values=MappingProxyType({"base": encoding.DEFAULT_BASE, "d_model": DEFAULT_D_MODEL}),
        focus="frequency",
        template="In the upper chart ω<sub>i</sub> = base<sup>−2i/d</sup> falls on a straight "
        "line because each frequency is the one before times base<sup>−2/d</sup> = "
        "{ratio:.6f}. The PyTorch tutorial writes the same numbers as exp(2i·(−ln base)/d): "
        "one constant, one multiplication and one exp over a whole tensor, which is "
        "convenient rather than more accurate. Over the {pairs:d} frequencies here the two "
        "forms differ by at most {difference:.1e}, which is rounding.",
        numbers=exp_log_numbers,
    ),
    Question(
        name="sine-and-cosine",
        title="Why both a sine and a cosine?",
        values=MappingProxyType({"pos": 10, "offset": 2, "rotation_pair": 0}),
        focus="rotation",
        template="On the circle, pair {pair:d} of PE({pos:d}) and of PE({second:d}) have almost "
        "the same sine (left to right), {sin_first:.6f} and {sin_second:.6f}, but cosines (up "
        "and down) of opposite sign, {cos_first:.6f} and {cos_second:.6f}: the sine alone "
        "cannot tell a position on its way down from one on its way up. Moving k positions "
        "needs both, because sin((pos + k)·ω) = sin(pos·ω)·cos(k·ω) + cos(pos·ω)·sin(k·ω). "
        "With both, the move is a turn by k·ω<sub>{pair:d}</sub> = {angle:.6f} rad wherever "
        "the point starts: a rotation that depends on k alone.",
        numbers=sine_cosine_numbers,
    ),
    Question(
        name="linear-shift",
        title="Why is PE(pos + k) a linear function of PE(pos)?",
        values=MappingProxyType({"pos": 20, "offset": 5, "rotation_pair": 2}),
        focus="rotation",
        template="Pair i of PE(pos + k) is sin((pos + k)·ω<sub>i</sub>) and "
        "cos((pos + k)·ω<sub>i</sub>), and the angle-addition formulas write it as pair i of "
        "PE(pos) turned by k·ω<sub>i</sub>: a rotation whose entries contain k but not pos. "
        "Stacking these rotations gives one matrix R(k), and under the circle "
        "‖PE({second:d}) − R({offset:d})·PE({pos:d})‖ = {error:.1e} over all {d_model:d} "
        "dimensions, which is rounding. Read off PE({far:d}) → PE({far_second:d}) instead, "
        "the rotation of pair {pair:d} differs by at most {far_difference:.1e}: one R(k) "
        "serves every pos, which is why the paper expected a model to learn to attend by "
        "relative position.",
        numbers=linear_shift_numbers,
    ),
    Question(
        name="not-periodic",
        title="Why does the similarity never come back?",
        values=MappingProxyType(
            {"n_positions": 1024, "offset": 100, "d_model": DEFAULT_D_MODEL, "similarity": "dot"}
        ),
        focus="dotproduct",
        template="In the curve beside the matrix, D(k) = Σ cos(k·ω<sub>i</sub>) starts at "
        "d<sub>model</sub>/2 = {half:g} and falls: on the dotted diagonal k = {offset:d} it is "
        "{at_offset:.3f}, and from there to k = {last:d} it stays at or below {highest:.3f} "
        "(cosine similarity {highest_cosine:.3f}). It could climb back to d<sub>model</sub>/2 "
        "only where every pair completes whole turns together, and the fastest pair, whose "
        "wavelength is 2π, never does at a whole number of positions. So the pairs' waves "
        "drift out of step instead of lining up again, and the similarity decays without "
        "repeating.",
        numbers=not_periodic_numbers,
    ),
    Question(
        name="small-d-model",
        title="What happens with a small d_model?",
        values=MappingProxyType({"d_model": 4, "pos": 0, "n_positions": 2048}),
        focus="properties",
        template="With d<sub>model</sub> = {d_model:d} there are only {pairs:d} pairs, and "
        "{apart:d} positions make almost whole turns of both: {turns_fast:.3f} turns of the "
        "fast one and {turns_slow:.4f} of the slow one. So the curve dips to {nearest:.6f} at "
        "PE({nearest_pos:d}), far closer to PE({pos:d}) than its neighbour "
        "PE({neighbour_pos:d}) at {neighbour:.6f}: a model could barely tell these two "
        "positions apart. With d<sub>model</sub> = {wide_d_model:d}, the nearest of the "
        "{horizon:d} positions searched is PE({wide_nearest_pos:d}), {wide_nearest:.6f} "
        "away: more pairs make such near-repeats rare.",
        numbers=small_d_model_numbers,
    ),
    Question(
        name="layout",
        title="Does interleaved or concatenated matter?",
        values=MappingProxyType({"layout": "concatenated", "d_model": DEFAULT_D_MODEL}),
        focus="heatmap",
        template="The heatmap now holds all the sines on the left and all the cosines on the "
        "right: pair {pair:d} sits in columns {sin_concatenated:d} and {cos_concatenated:d} "
        "instead of {sin_interleaved:d} and {cos_interleaved:d}. That only reorders the "
        "columns, so no dot product PE(i)·PE(j) changes: over the first {positions:d} "
        "positions the two layouts' products differ by at most {difference:.1e}, rounding "
        "from adding the same terms in another order. It matters only when a model "
        "meets a layout other than the one it was trained with, since its weights expect "
        "their own column order.",
        numbers=layout_numbers,
    ),
    Question(
        name="beyond-training",
        title="Can it go beyond the training length?",
        values=MappingProxyType(
            {"method": "sinusoidal", "n_positions": 128, "train_length": 32, "offset": 100}
        ),
        focus="methods",
        template="The formula gives PE(pos) for any position, so the encoding never runs out: "
        "at k = {offset:d}, beyond the training length L = {train_length:d} (shaded), the "
        "sinusoidal curve D(k) is {at_offset:.3f}. But training only met offsets up to L, "
        "where D(k) stayed between {trained_low:.3f} and {half:g}; beyond L it falls as low as "
        "{beyond_low:.3f} before k = {last:d}, values the model never learned to read. ALiBi's "
        "steepest head keeps the straight line it had in training instead, −m·k = "
        "{alibi:.1f} with m = {slope:g}, which is why its authors found it extrapolates to "
        "longer texts.",
        numbers=beyond_training_numbers,
    ),
    Question(
        name="interpolation-nearby",
        title="Why does PI hurt short-range attention?",
        values=MappingProxyType({"scaling": "pi", "factor": 4.0}),
        focus="scaling",
        template="Position Interpolation divides every frequency by s = {factor:g}, so the "
        "fastest pair, which turned {fast:.3f} radians from one position to the next, now "
        "turns only {fast_scaled:.3f}. Neighbours become harder to tell apart: the score of a "
        "query with itself one position away (q = k, the mean of cos θ'<sub>i</sub>) rises "
        "from {near:.4f} to {near_scaled:.4f}, nearer the {top:g} of the same position. "
        "Attention to nearby words, which needs neighbours to differ, loses resolution; NTK "
        "and YaRN keep the fast pairs as they were.",
        numbers=interpolation_numbers,
    ),
    Question(
        name="yarn-pairs",
        title="Which pairs does YaRN leave alone, and why?",
        values=MappingProxyType({"scaling": "yarn", "factor": 8.0}),
        focus="scaling",
        template="YaRN leaves alone every pair that turns more than β<sub>fast</sub> = "
        "{beta_fast:g} times within the trained length L = {context:d}: here the first "
        "{kept:d} pairs, the slowest of them with a wavelength of {kept_wavelength:.1f} "
        "positions, which it turns {kept_turns:.1f} times. Those pairs measure short "
        "distances, which stay the same in a longer text, so changing them would blur what "
        "the model learned about neighbours. The {interpolated:d} pairs that turn fewer than "
        "β<sub>slow</sub> = {beta_slow:g} times are divided by s = {factor:g} as in PI and the "
        "pairs between are ramped; the logits are multiplied by {attention_squared:.4f}, the "
        "square of YaRN's attention factor {attention:.4f}.",
        numbers=yarn_numbers,
    ),
)

QUESTION_NAMES = tuple(q.name for q in QUESTIONS)


_BY_NAME = {q.name: q for q in QUESTIONS}


def question(name: str) -> Question:
    """The card called name (ValueError naming the known ones otherwise)."""
    if name not in _BY_NAME:
        raise ValueError(f"question must be one of {', '.join(QUESTION_NAMES)}, got {name!r}")
    return _BY_NAME[name]


def card_html(q: Question) -> str:
    """A card: the question, its answer at the card's own state, and a link to that state and
    to the card of its view (#focus)."""
    return (
        f'<section class="pe-question" id="pe-question-{q.name}" data-question="{q.name}" '
        f'data-focus="{q.focus}">'
        f'<h3 class="pe-question-title">{html.escape(q.title)}</h3>'
        f"{q.answer(q.state())}"
        f'<a class="pe-question-link" href="?{html.escape(q.query())}#{q.focus}">'
        "Link to this state</a>"
        "</section>"
    )

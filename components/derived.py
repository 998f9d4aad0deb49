"""Derived data: every array the views draw, computed once per input and read-only.

Views only draw. What they draw from (the PE matrix, its reduced display copy, the dot-product
and cosine matrices, the offset curves) is computed here, from plain arguments, by the maths
in components/encoding.py, and cached: moving pos or k never recomputes any of it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, wraps

import numpy as np

from . import encoding, formula, learned, methods, relative, scaling
from .diagnosis import Diagnosis, diagonal_spreads
from .state import LENGTHS_SETTINGS, MISTAKE_SETTINGS, VisitorModel, lengths_of

# A screen shows at most about this many distinct cells; larger matrices are strided.
MAX_DISPLAY_CELLS = 250_000
# Up to this many multiply-adds the shown dot products are the product PE·PEᵀ itself; beyond,
# they are filled from D(i − j), which equals it (tests/unit/test_views_dotproduct.py), so the
# browser never waits seconds for a 2048 × 2048 × 2048 product.
MAX_DIRECT_PRODUCT = 1 << 23
# The NoPE view's contrast adds the paper's encoding (base 10 000, interleaved) whatever the
# state's base and layout: the view follows only the sentence, d_model and the length.
CONTRAST_BASE = encoding.DEFAULT_BASE
CONTRAST_LAYOUT = "interleaved"


def _freeze(value) -> None:
    """Mark every NumPy array in value (nested in tuples, lists and dataclasses) read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple | list):
        for item in value:
            _freeze(item)
    elif dataclasses.is_dataclass(value):
        for item in dataclasses.fields(value):
            _freeze(getattr(value, item.name))


def read_only_cache(maxsize: int = 4) -> Callable:
    """lru_cache whose results are read-only: a view cannot change what another view draws."""

    def decorate(function: Callable) -> Callable:
        @lru_cache(maxsize=maxsize)
        @wraps(function)
        def cached(*args):
            result = function(*args)
            _freeze(result)
            return result

        return cached

    return decorate


@read_only_cache()
def pe_matrix(n_positions: int, d_model: int, base: float, layout: str) -> np.ndarray:
    """The PE matrix of positions 0 … n_positions − 1, float64."""
    return encoding.positional_encoding(n_positions, d_model, base, layout=layout)


def shown_pe_matrix(state) -> np.ndarray:
    """The PE matrix of the state's positions, d_model, base and layout (moving pos or k
    never recomputes it)."""
    return pe_matrix(state.n_positions, state.d_model, float(state.base), state.layout)


def display_strides(n_positions: int, d_model: int, max_cells: int = MAX_DISPLAY_CELLS):
    """(row stride, pair stride) so that the shown cells fit in max_cells; (1, 1) when they do.

    Columns are strided by whole sin/cos pairs so both functions of a pair stay visible.
    """
    pairs = d_model // 2
    stride = max(1, math.ceil(math.sqrt(n_positions * d_model / max_cells)))
    while math.ceil(n_positions / stride) * 2 * math.ceil(pairs / stride) > max_cells:
        stride += 1
    return stride, stride


@dataclass(frozen=True)
class MatrixCells:
    """The PE matrix as the heatmap shows it: float32, every stride-th row and pair."""

    rows: np.ndarray  # the positions shown
    columns: np.ndarray  # the dimensions shown
    z: np.ndarray  # float32, rows × columns
    labels: list[str]  # hover label of each shown column: dimension, pair and function
    row_stride: int
    pair_stride: int

    @property
    def reduced(self) -> bool:
        return self.row_stride > 1 or self.pair_stride > 1

    def title_note(self, n_positions: int, d_model: int) -> str:
        """The line a figure's title adds when the matrix is strided ("" when it is whole)."""
        if not self.reduced:
            return ""
        return (
            f"<br><sub>Reduced for display: every {self.row_stride}th position and every "
            f"{self.pair_stride}th pair ({len(self.rows)} × {len(self.columns)} of "
            f"{n_positions} × {d_model} cells)</sub>"
        )


@read_only_cache()
def matrix_cells(n_positions: int, d_model: int, base: float, layout: str) -> MatrixCells:
    """The PE matrix as shown, strided by whole pairs when it has more cells than a screen."""
    matrix = pe_matrix(n_positions, d_model, base, layout)
    row_stride, pair_stride = display_strides(n_positions, d_model)
    rows = np.arange(0, n_positions, row_stride)
    pair_of, is_sine = encoding.column_roles(d_model, layout)
    columns = np.flatnonzero(pair_of % pair_stride == 0)
    z = np.ascontiguousarray(matrix[np.ix_(rows, columns)], dtype=np.float32)
    labels = [f"dim {c} · i = {pair_of[c]} · {'sin' if is_sine[c] else 'cos'}" for c in columns]
    return MatrixCells(rows, columns, z, labels, row_stride, pair_stride)


@dataclass(frozen=True)
class HoverCells:
    """What the heatmap's hover label of each shown cell says besides its colour."""

    labels: list[str]  # the x category of each shown column (formula.column_label)
    dimensions: dict[str, int]  # the dimension of each label: a click reports the label
    # float64, rows × columns × 2: the angle pos·ω_i and the value PE(pos, dimension), as the
    # formula under the plot has them. In float32, 6 angles and 2 values of the default 8192
    # cells would print another 4th decimal than their formula (beyond pos 1024, 1 angle in 200).
    customdata: np.ndarray


@read_only_cache()
def hover_cells(n_positions: int, d_model: int, base: float, layout: str) -> HoverCells:
    """The hover labels of the cells matrix_cells shows (cached: pos and k never recompute or
    resend them)."""
    cells = matrix_cells(n_positions, d_model, base, layout)
    pair_of, is_sine = encoding.column_roles(d_model, layout)
    pairs = pair_of[cells.columns]
    wavelengths = encoding.wavelengths(d_model, base)
    labels = [
        formula.column_label(int(c), int(i), bool(is_sine[c]), wavelengths[i], base, d_model)
        for c, i in zip(cells.columns, pairs, strict=True)
    ]
    # The products encode_positions takes the sine and cosine of, and the matrix's own values.
    angles = cells.rows[:, None] * encoding.angular_frequencies(d_model, base)[pairs]
    values = pe_matrix(n_positions, d_model, base, layout)[np.ix_(cells.rows, cells.columns)]
    customdata = np.stack([angles, values], axis=-1)
    return HoverCells(labels, dict(zip(labels, cells.columns.tolist(), strict=True)), customdata)


@dataclass(frozen=True)
class DotProductCells:
    """PE·PEᵀ as the dot-product view shows it: every stride-th position, float32."""

    rows: np.ndarray
    dots: np.ndarray
    cosines: np.ndarray
    stride: int
    direct: bool  # True when computed as PE·PEᵀ, False when filled from D(i − j)


def dot_product_stride(n_positions: int, max_cells: int = MAX_DISPLAY_CELLS) -> int:
    """Show every stride-th position so that at most max_cells cells are drawn."""
    return max(1, math.ceil(n_positions / math.isqrt(max_cells)))


@read_only_cache()
def dot_product_cells(n_positions: int, d_model: int, base: float) -> DotProductCells:
    """The shown dot products and cosine similarities of the shown positions.

    The layout only reorders PE's columns, so it is left out: the products are those of the
    interleaved matrix, the same bits whichever layout is shown.
    """
    stride = dot_product_stride(n_positions)
    rows = np.arange(0, n_positions, stride)
    direct = rows.size**2 * d_model <= MAX_DIRECT_PRODUCT
    if direct:
        dots = encoding.gram_matrix(pe_matrix(n_positions, d_model, base, "interleaved")[rows])
    else:
        curve = encoding.offset_dots(n_positions, d_model, base)
        dots = curve[np.abs(rows[:, None] - rows[None, :])]
    cosines = encoding.cosine_similarities(dots)
    shown = [np.ascontiguousarray(z, dtype=np.float32) for z in (dots, cosines)]
    return DotProductCells(rows, *shown, stride=stride, direct=direct)


@read_only_cache()
def offset_dot_curve(n_positions: int, d_model: int, base: float):
    """(offsets k = −(n−1) … n−1, D(k)): the dot product of encodings k apart, even in k."""
    dots = encoding.offset_dots(n_positions, d_model, base)
    offsets = np.arange(-(n_positions - 1), n_positions)
    return offsets, np.concatenate([dots[:0:-1], dots])


@read_only_cache()
def offset_distance_curve(
    d_model: int, base: float, horizon: int = encoding.NEAREST_HORIZON
) -> np.ndarray:
    """Distance of encodings k apart for k = 0 … horizon − 1."""
    return encoding.offset_distances(horizon, d_model, base)


@read_only_cache()
def value_range(n_positions: int, d_model: int, base: float, layout: str) -> tuple[float, float]:
    """Smallest and largest entry of the PE matrix (the same in either layout)."""
    matrix = pe_matrix(n_positions, d_model, base, layout)
    return float(matrix.min()), float(matrix.max())


@read_only_cache()
def query_key(d_model: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The seeded random query and key the RoPE views rotate (methods.random_qk)."""
    return methods.random_qk(d_model, seed)


@dataclass(frozen=True)
class RopeScoreCells:
    """RoPE scores q_m·k_n of the shown positions m (rows) and n (columns), float32."""

    rows: np.ndarray
    scores: np.ndarray
    stride: int


@read_only_cache()
def rope_score_cells(
    n_positions: int, d_model: int, base: float, layout: str, seed: int
) -> RopeScoreCells:
    """The RoPE score matrix of the seeded q and k, every stride-th position (Toeplitz)."""
    stride = dot_product_stride(n_positions)
    rows = np.arange(0, n_positions, stride)
    # Toeplitz: entry (m, n) is the score at offset n − m, read off the curve (no n × n work).
    _, curve = rope_offset_curve(n_positions, d_model, base, layout, seed)
    scores = curve[rows[None, :] - rows[:, None] + n_positions - 1]
    return RopeScoreCells(rows, np.ascontiguousarray(scores, dtype=np.float32), stride)


@read_only_cache()
def rope_offset_curve(n_positions: int, d_model: int, base: float, layout: str, seed: int):
    """(offsets n − m = −(n−1) … n−1, the RoPE score of the seeded q and k at each)."""
    q, k = query_key(d_model, seed)
    offsets = np.arange(-(n_positions - 1), n_positions)
    return offsets, methods.rope_offset_curve(q, k, n_positions, base, layout)


@read_only_cache()
def rope_decay_curve(n_offsets: int, d_model: int, base: float):
    """(offsets 0 … n_offsets − 1, RoFormer's long-term-decay bound at each)."""
    offsets = np.arange(n_offsets)
    return offsets, methods.rope_decay(offsets, d_model, base)


@read_only_cache()
def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi slopes m_1 … m_H of n_heads heads."""
    return methods.alibi_slopes(n_heads)


@read_only_cache()
def nope_scores(tokens: tuple[str, ...], d_model: int) -> np.ndarray:
    """Scores of the tokens' embeddings with no position information (methods.nope_scores)."""
    return methods.nope_scores(list(tokens), d_model)


@read_only_cache()
def encoded_nope_scores(words: tuple[str, ...], d_model: int) -> np.ndarray:
    """(E + PE)(E + PE)ᵀ/√d_model: the scores once PE(0 … n − 1) is added to the embeddings."""
    embeddings = np.stack([encoding.token_embedding(word, d_model) for word in words])
    # Not pe_matrix: its few cache slots hold the page's own matrices.
    pe = encoding.positional_encoding(len(words), d_model, CONTRAST_BASE, layout=CONTRAST_LAYOUT)
    inputs = embeddings + pe
    return inputs @ inputs.T / math.sqrt(d_model)


@read_only_cache(maxsize=8)
def causal_mask(n_positions: int) -> np.ndarray:
    """methods.causal_mask of the shown positions: True where query i sees key j (j ≤ i)."""
    return methods.causal_mask(n_positions)


# The masked cells are NaN; NaN ≠ NaN, so figures compare equal (an unchanged figure is not
# resent) only when they hold the same arrays: these caches return the same object each time.
@read_only_cache(maxsize=8)
def head_bias_band(n_positions: int, n_heads: int) -> np.ndarray:
    """Bias −m_h·|d| of a query for the key d = n − 1 … −(n − 1) positions before it, heads h
    (rows) × 2n − 1 columns, NaN where the causal mask hides the key (d < 0); float32.

    Drawn from x0 = pos − (n − 1), column j is the key j = pos − d, and the keys 0 … n − 1
    are the query pos's row: moving pos moves the band, and recomputes nothing.
    """
    distances = np.arange(n_positions - 1, -n_positions, -1)
    cells = np.stack([methods.alibi_offset_bias(distances, m) for m in alibi_slopes(n_heads)])
    cells[:, distances < 0] = np.nan
    # Adding 0.0 turns the −0.0 at d = 0 into 0.0, so hover never shows "−0".
    return (cells + 0.0).astype(np.float32)


@dataclass(frozen=True)
class MaskedBiasCells:
    """One head's bias over the shown queries i (rows) and keys j (columns), NaN for j > i."""

    rows: np.ndarray  # the positions shown: every stride-th
    bias: np.ndarray  # float32, rows × rows
    stride: int


@read_only_cache(maxsize=8)
def masked_bias_cells(n_positions: int, slope: float) -> MaskedBiasCells:
    """−slope·|i − j| where j ≤ i and NaN above the diagonal, strided like the dot products."""
    stride = dot_product_stride(n_positions)
    rows = np.arange(0, n_positions, stride)
    bias = methods.alibi_offset_bias(rows[None, :] - rows[:, None], slope)
    bias[~causal_mask(n_positions)[np.ix_(rows, rows)]] = np.nan
    return MaskedBiasCells(rows, (bias + 0.0).astype(np.float32), stride)


@dataclass(frozen=True)
class MethodCurves:
    """The position-only part of the score against the offset k = 0 … last, per method."""

    offsets: np.ndarray
    sinusoidal: np.ndarray  # D(k)
    rope: np.ndarray  # RoPE score of the seeded q with itself, k apart
    alibi: np.ndarray  # −m_h·k, one row per head h
    none: np.ndarray  # zeros


@read_only_cache()
def rope_self_curve(n_offsets: int, d_model: int, base: float, layout: str, seed: int):
    """RoPE's score of the seeded q with itself k = 0 … n_offsets − 1 apart."""
    q, _ = query_key(d_model, seed)
    return methods.position_scores("rope", np.arange(n_offsets), d_model, base, layout, q=q)


def method_curves(
    last_offset: int, d_model: int, base: float, layout: str, seed: int, n_heads: int
) -> MethodCurves:
    """Each method's position-only score for offsets 0 … last_offset (methods.position_scores).

    Each curve has its own cache, so a new seed or head count recomputes only its own.
    """
    offsets = np.arange(last_offset + 1)
    slopes = alibi_slopes(n_heads)
    curves = MethodCurves(
        offsets,
        # D(k) by the block method: the same numbers as methods.position_scores, much faster.
        offset_dot_curve_from_zero(last_offset + 1, d_model, base),
        rope_self_curve(last_offset + 1, d_model, base, layout, seed),
        -slopes[:, None] * offsets,
        np.zeros(offsets.shape),
    )
    _freeze(curves)
    return curves


@read_only_cache()
def offset_dot_curve_from_zero(n_offsets: int, d_model: int, base: float) -> np.ndarray:
    """D(k) for k = 0 … n_offsets − 1."""
    return encoding.offset_dots(n_offsets, d_model, base)


# The relative methods' learned numbers are drawn at random, seeded as the RoPE q and k are, but
# from a stream of their own, so that none of them is a copy of q.
RELATIVE_STREAM = 1


def relative_seed(seed: int) -> int:
    """The seed of the relative methods' stand-in learned numbers: RELATIVE_STREAM after seed."""
    return (seed + RELATIVE_STREAM) % (methods.MAX_SEED + 1)


@read_only_cache()
def t5_bias_curve(
    n_offsets: int, num_buckets: int, max_distance: int, bidirectional: bool, seed: int
) -> np.ndarray:
    """T5's position score of a key k = 0 … n_offsets − 1 before the query: the learned scalar
    bias of its bucket (key − query = −k), the biases N(0, 1) at random as if learned."""
    biases = np.random.default_rng(relative_seed(seed)).standard_normal(num_buckets)
    buckets = relative.t5_relative_bucket(
        -np.arange(n_offsets), bidirectional, num_buckets, max_distance
    )
    return biases[buckets]


def shaw_score_curve(n_offsets: int, clip: int, d_model: int, seed: int) -> np.ndarray:
    """Shaw et al.'s position score q·a_{clip(−k)} of a key k = 0 … n_offsets − 1 before the
    query, with the seeded RoPE q and the 2·clip + 1 vectors of shaw_vectors: each offset past
    the clip gets the very same number."""
    return shaw_vectors(clip, d_model, seed).scores[
        np.clip(-np.arange(n_offsets), -clip, clip) + clip
    ]


def xl_position_curve(n_offsets: int, d_model: int, base: float, seed: int) -> np.ndarray:
    """Transformer-XL's position terms q·W_R R_k + v·W_R R_k for k = 0 … n_offsets − 1."""
    terms = transformer_xl_curves(n_offsets, d_model, base, seed)
    return terms.content_position + terms.position_bias


def cached_functions() -> tuple:
    """Every cache of this module, for tests that count what was computed."""
    return (
        pe_matrix,
        matrix_cells,
        dot_product_cells,
        offset_spreads,
        offset_dot_curve,
        offset_distance_curve,
        value_range,
        angular_frequencies,
        wavelengths,
        reference_div_term,
        pair_wave,
        smallest_separation,
        query_key,
        rope_score_cells,
        rope_offset_curve,
        rope_decay_curve,
        alibi_slopes,
        nope_scores,
        encoded_nope_scores,
        causal_mask,
        head_bias_band,
        masked_bias_cells,
        hover_cells,
        rope_self_curve,
        offset_dot_curve_from_zero,
        t5_bias_curve,
        sinusoidal_table,
        sinusoidal_components,
        token_steps,
        reference_example,
        t5_bucket_cells,
        t5_runs,
        shaw_offset_cells,
        shaw_vectors,
        transformer_xl_curves,
        scaled_rope_of,
        scaling_score_curves,
        attention_logits,
    )


# ---- The learned view's sinusoidal side (a learned table is the view's own, not cached here) --


@read_only_cache(maxsize=2)
def sinusoidal_table(n_positions: int, d_model: int, base: float, layout: str) -> np.ndarray:
    """The sinusoidal table set beside a learned one of this size (not pe_matrix: its few
    cache slots hold the page's own matrices)."""
    return encoding.positional_encoding(n_positions, d_model, base, layout=layout)


@read_only_cache(maxsize=2)
def sinusoidal_components(n_positions: int, d_model: int, base: float):
    """The top principal components of that table's rows (learned.principal_components).

    The layout only reorders the columns, so the scores are those of either layout.
    """
    return learned.principal_components(sinusoidal_table(n_positions, d_model, base, "interleaved"))


# ---- The relative views' numbers (T5, Shaw, Transformer-XL), as they draw them ---------------


@dataclass(frozen=True)
class T5Buckets:
    """T5's bucket of each key − query of n positions, and the n × n matrix of them as shown."""

    offsets: np.ndarray  # key − query = −(n − 1) … n − 1
    buckets: np.ndarray  # the bucket of each offset
    rows: np.ndarray  # the positions shown: every stride-th
    cells: np.ndarray  # float32: bucket of (query row, key column)
    stride: int


@read_only_cache()
def t5_bucket_cells(
    n_positions: int, num_buckets: int, max_distance: int, bidirectional: bool
) -> T5Buckets:
    """The buckets of every offset of the sequence; the matrix is read off them (Toeplitz)."""
    offsets = np.arange(-(n_positions - 1), n_positions)
    buckets = relative.t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance)
    stride = dot_product_stride(n_positions)
    rows = np.arange(0, n_positions, stride)
    cells = buckets[rows[None, :] - rows[:, None] + n_positions - 1].astype(np.float32)
    return T5Buckets(offsets, buckets, rows, cells, stride)


@read_only_cache()
def t5_runs(num_buckets: int, max_distance: int, bidirectional: bool) -> tuple[tuple, tuple]:
    """The runs of distances that share a bucket (relative.BucketRun): of the keys at or before
    the query (from distance 0), and of the keys after it (from distance 1)."""
    before = relative.t5_bucket_runs(bidirectional, num_buckets, max_distance, side=-1)
    after = []
    # Distance 0 is the query itself, already the first run before it.
    for run in relative.t5_bucket_runs(bidirectional, num_buckets, max_distance, side=1):
        if run.last != 0:
            after.append(run if run.first else dataclasses.replace(run, first=1))
    return tuple(before), tuple(after)


@dataclass(frozen=True)
class ShawCells:
    """clip(j − i, −K, K), the vector a_{j−i} each (query i, key j) uses, of the shown cells."""

    rows: np.ndarray  # the positions shown: every stride-th
    clipped: np.ndarray  # float32, rows × rows
    stride: int


@read_only_cache()
def shaw_offset_cells(n_positions: int, clip: int) -> ShawCells:
    """Shaw et al.'s clipped distances of n positions, strided like the dot products."""
    stride = dot_product_stride(n_positions)
    rows = np.arange(0, n_positions, stride)
    index = relative.shaw_clipped_offsets(n_positions, clip)[np.ix_(rows, rows)]
    return ShawCells(rows, (index - clip).astype(np.float32), stride)


# The Show data table and the readout list a vector's first few numbers.
SHAW_LISTED_DIMENSIONS = 16
# The heatmap of the 2K + 1 vectors is a small picture beside the n × n matrix.
MAX_VECTOR_CELLS = MAX_DISPLAY_CELLS // 4


@dataclass(frozen=True)
class ShawVectors:
    """Shaw et al.'s 2K + 1 learned vectors a_{−K} … a_K (random stand-ins) as shown."""

    first_dimensions: np.ndarray  # (2K + 1) × at most SHAW_LISTED_DIMENSIONS, float64
    scores: np.ndarray  # q·a_c for c = −K … K, with the seeded RoPE query q
    largest: float  # max |a_c[d]|: the colour scale's end
    rows: np.ndarray  # the distances c shown: every stride-th of −K … K
    dimensions: np.ndarray  # the dimensions shown: every stride-th
    z: np.ndarray  # float32, rows × dimensions
    stride: int


@read_only_cache(maxsize=2)
def shaw_vectors(clip: int, d_model: int, seed: int) -> ShawVectors:
    """The vectors of relative.shaw_table, seeded as the methods chart's (relative_seed); only
    what is drawn is kept, so a large table is not held."""
    table = relative.shaw_table(clip, d_model, relative_seed(seed))
    query, _ = query_key(d_model, seed)
    count = 2 * clip + 1
    stride = max(1, math.ceil(math.sqrt(count * d_model / MAX_VECTOR_CELLS)))
    rows, dimensions = np.arange(0, count, stride), np.arange(0, d_model, stride)
    return ShawVectors(
        first_dimensions=table[:, :SHAW_LISTED_DIMENSIONS].copy(),
        scores=table @ query,
        largest=float(np.abs(table).max()),
        rows=rows - clip,
        dimensions=dimensions,
        z=np.ascontiguousarray(table[np.ix_(rows, dimensions)], dtype=np.float32),
        stride=stride,
    )


@read_only_cache()
def transformer_xl_curves(
    n_positions: int, d_model: int, base: float, seed: int
) -> relative.XLTerms:
    """Transformer-XL's four terms at the offsets i − j = 0 … n_positions − 1."""
    return relative.transformer_xl_terms(np.arange(n_positions), d_model, seed, base)


# ---- RoPE scaling: the scaling view's arrays, also the export's and the questions' ----------


@dataclass(frozen=True)
class ScalingSettings:
    """The state's RoPE model (d_model as d_head) and every scaling method's own parameters:
    what the scaling view's arrays depend on, a cache key."""

    d_head: int
    base: float
    factor: float  # s
    original_context: int  # L
    seq_len: int
    beta_fast: float
    beta_slow: float
    truncate: bool
    low_freq_factor: float
    high_freq_factor: float
    longrope_factors: str  # as typed: parsed (and checked) when LongRoPE is applied

    @classmethod
    def of(cls, state) -> ScalingSettings:
        return cls(
            state.d_model,
            float(state.base),
            float(state.factor),
            state.original_context,
            state.seq_len,
            float(state.beta_fast),
            float(state.beta_slow),
            bool(state.truncate),
            float(state.low_freq_factor),
            float(state.high_freq_factor),
            state.longrope_factors,
        )

    def parameters(self, method: str) -> dict[str, object]:
        """The method's own parameters (ValueError for LongRoPE factors that are not
        d_head / 2 numbers)."""
        values = {
            "seq_len": lambda: self.seq_len,
            "beta_fast": lambda: self.beta_fast,
            "beta_slow": lambda: self.beta_slow,
            "truncate": lambda: self.truncate,
            "low_freq_factor": lambda: self.low_freq_factor,
            "high_freq_factor": lambda: self.high_freq_factor,
            "factors": lambda: scaling.parse_factors(self.longrope_factors, self.d_head // 2),
        }
        return {name: values[name]() for name in scaling.PARAMETERS[method]}


def scaling_parameters(state, method: str) -> dict[str, object]:
    """A scaling method's own parameters, from the state (ValueError for LongRoPE factors that
    are not d_head / 2 numbers)."""
    return ScalingSettings.of(state).parameters(method)


@dataclass(frozen=True)
class ScaledRope:
    """The state's RoPE model before and after one scaling method, or why it cannot be scaled."""

    method: str
    original: np.ndarray  # inv_freq θ_i
    scaled: np.ndarray  # θ'_i (θ_i when the method's settings are not valid)
    attention_factor: float
    bands: np.ndarray  # 'kept' / 'ramped' / 'interpolated' per pair
    problem: str = ""  # why the settings are not valid (then drawn unscaled)

    @property
    def label(self) -> str:
        return scaling.SCALING_LABELS[self.method]

    @property
    def divisor(self) -> np.ndarray:
        """θ_i / θ'_i: how many times slower each pair turns."""
        return self.original / self.scaled

    @property
    def wavelength(self) -> np.ndarray:
        """λ_i = 2π / θ_i, in positions."""
        return 2 * np.pi / self.original

    @property
    def scaled_wavelength(self) -> np.ndarray:
        """λ'_i = 2π / θ'_i, in positions."""
        return 2 * np.pi / self.scaled

    def counts(self) -> dict[str, int]:
        """How many pairs fall in each band."""
        return {band: int((self.bands == band).sum()) for band in scaling.BANDS}

    def band_spans(self, original_context: int) -> list[tuple[str, float, float]]:
        """Runs of pairs in one band as (band, low, high) of λ_i / L, the edges halfway (in log)
        between neighbouring pairs, and a factor 1.2 beyond the first and the last pair."""
        ratio = self.wavelength / original_context
        spans = []
        start = 0
        for index in range(1, self.bands.size + 1):
            if index < self.bands.size and self.bands[index] == self.bands[start]:
                continue
            last = index - 1
            low = ratio[0] / 1.2 if start == 0 else math.sqrt(ratio[start - 1] * ratio[start])
            end = index == self.bands.size
            high = ratio[last] * 1.2 if end else math.sqrt(ratio[last] * ratio[index])
            spans.append((str(self.bands[start]), float(low), float(high)))
            start = index
        return spans


@read_only_cache(maxsize=16)
def scaled_rope_of(settings: ScalingSettings, method: str) -> ScaledRope:
    """The settings' model scaled by method; unscaled, with the reason, where it cannot be."""
    original = scaling.default_frequencies(settings.d_head, settings.base)
    args = (method, settings.d_head, settings.base, settings.factor, settings.original_context)
    try:
        params = settings.parameters(method)
        inv_freq, attention = scaling.rope_scaled_frequencies(*args, **params)
        bands = scaling.scaling_bands(*args, **params)
    except ValueError as error:
        kept = np.full(original.shape, "kept", dtype=object)
        return ScaledRope(method, original, original, 1.0, kept, str(error))
    return ScaledRope(method, original, inv_freq, attention, bands)


def scaled_rope(state, method: str | None = None) -> ScaledRope:
    """The state's d_model (as d_head), base, factor s and context L, scaled by method (the
    state's by default)."""
    method = scaling.check_scaling(state.scaling if method is None else method)
    return scaled_rope_of(ScalingSettings.of(state), method)


def every_scaled_rope(state) -> tuple[ScaledRope, ...]:
    """The state's model under each method of scaling.SCALINGS, in that order."""
    settings = ScalingSettings.of(state)
    return tuple(scaled_rope_of(settings, method) for method in scaling.SCALINGS)


# Offsets drawn on each score curve at most: 0, then whole offsets spaced evenly on a log scale
# up to s·L (every one near 0, where the curves part), with L and s·L among them. Fewer with
# many pairs: each curve costs offsets × pairs cosines (512 offsets at d_model 2048).
CURVE_POINTS = 2048
CURVE_CELLS = 1 << 19


def score_offsets(factor: float, original_context: int, d_head: int) -> np.ndarray:
    """Offsets 0 … s·L: 0, then whole offsets evenly spaced on a log scale (every one while they
    are closer than 1), L and s·L among them; at most CURVE_POINTS, and CURVE_CELLS / pairs."""
    end = int(math.ceil(factor * original_context))
    points = min(CURVE_POINTS, CURVE_CELLS // (d_head // 2))
    spaced = np.rint(np.geomspace(1, end, points - 3))
    return np.unique(np.concatenate(([0.0, float(original_context), float(end)], spaced)))


@dataclass(frozen=True)
class ScoreCurve:
    """One method's RoPE score of q = k = (1, …, 1) over the offsets (scaling.offset_scores)."""

    model: ScaledRope
    offsets: np.ndarray
    scores: np.ndarray


@read_only_cache()
def scaling_score_curves(settings: ScalingSettings) -> tuple[ScoreCurve, ...]:
    """The score curve of no scaling and of every method whose settings are valid, in
    scaling.SCALINGS's order; methods that give the same frequencies share one array."""
    offsets = score_offsets(settings.factor, settings.original_context, settings.d_head)
    shared: dict[bytes, np.ndarray] = {}
    curves = []
    for method in scaling.SCALINGS:
        model = scaled_rope_of(settings, method)
        if model.problem and method != "none":
            continue  # not drawn: the view says why
        key = model.scaled.tobytes()
        if key not in shared:
            shared[key] = scaling.offset_scores(model.scaled, offsets)
        curves.append(ScoreCurve(model, offsets, shared[key]))
    return tuple(curves)


# The fixed row of logits the attention factor is shown on: 16 keys, evenly from 2 down to −2.
ATTENTION_LOGITS = np.linspace(2.0, -2.0, 16)
ATTENTION_LOGITS.flags.writeable = False


@dataclass(frozen=True)
class AttentionLogits:
    """The softmax of ATTENTION_LOGITS before and after multiplying them by the attention
    factor squared (cos and sin are both multiplied by it)."""

    multiplier: float  # attention_factor²
    before: np.ndarray  # softmax weights
    after: np.ndarray
    entropy_before: float  # nats
    entropy_after: float


@read_only_cache(maxsize=8)
def attention_logits(attention_factor: float) -> AttentionLogits:
    """What the attention factor does to the softmax of the fixed row of logits."""
    multiplier = attention_factor**2
    before = scaling.softmax(ATTENTION_LOGITS)
    after = scaling.softmax(ATTENTION_LOGITS * multiplier)
    return AttentionLogits(
        multiplier, before, after, scaling.entropy(before), scaling.entropy(after)
    )


# ---- T5's bands, Shaw's pair, the tokens' pipeline, as those views draw them -----------------


@dataclass(frozen=True)
class T5Bands:
    """How T5's buckets of one side of the query spread over the distances."""

    side_buckets: int  # buckets per side: num_buckets / 2 bidirectional, num_buckets causal
    max_exact: int  # distances 0 … max_exact − 1 have a bucket each (on each side)
    last: relative.BucketRun  # the last bucket before the query: every distance from its first on
    log_runs: int  # how many log-spaced buckets come before the last one


def t5_bands(num_buckets: int, max_distance: int, bidirectional: bool) -> T5Bands:
    """The exact buckets, the log-spaced ones and the last one, read off t5_runs."""
    before, _ = t5_runs(num_buckets, max_distance, bidirectional)
    max_exact = relative.t5_max_exact(num_buckets, bidirectional)
    return T5Bands(
        side_buckets=relative.t5_side_buckets(num_buckets, bidirectional),
        max_exact=max_exact,
        last=before[-1],
        log_runs=sum(1 for run in before[:-1] if run.first >= max_exact),
    )


def t5_run_of(
    offset: int, num_buckets: int, max_distance: int, bidirectional: bool
) -> tuple[int, relative.BucketRun]:
    """(side, run): the side of the query key − query = offset is on (−1: at or before it, +1:
    after it) and the run of distances on that side holding it."""
    return t5_runs_of([offset], num_buckets, max_distance, bidirectional)[0]


def t5_runs_of(
    offsets, num_buckets: int, max_distance: int, bidirectional: bool
) -> list[tuple[int, relative.BucketRun]]:
    """t5_run_of at each key − query of offsets, at once (the T5 view's picks ask for
    thousands): the run on the key's side whose bucket is the key's (along a side the buckets
    only grow, so each bucket is one run)."""
    offsets = np.asarray(offsets)
    before, after = t5_runs(num_buckets, max_distance, bidirectional)
    run_of = {(-1, run.bucket): run for run in before} | {(1, run.bucket): run for run in after}
    buckets = relative.t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance)
    sides = np.where(offsets > 0, 1, -1)
    return [
        (side, run_of[side, b]) for side, b in zip(sides.tolist(), buckets.tolist(), strict=True)
    ]


@dataclass(frozen=True)
class TokenStep:
    """One token on its way into the model: its embedding, PE(position) and their sum."""

    position: int
    token: str | None  # None when the sentence has no word at this position
    embedding: np.ndarray | None
    pe: np.ndarray  # PE(position)
    total: np.ndarray | None


@read_only_cache()
def token_steps(
    words: tuple[str, ...], d_model: int, base: float, layout: str
) -> tuple[TokenStep, ...]:
    """TokenEmbedding(word) + PE(position) for every word of the sentence."""
    if not words:
        return ()
    pe = encoding.encode_positions(np.arange(len(words)), d_model, base, layout=layout)
    steps = []
    for position, word in enumerate(words):
        embedding = encoding.token_embedding(word, d_model)
        steps.append(TokenStep(position, word, embedding, pe[position], embedding + pe[position]))
    return tuple(steps)


def token_step(
    words: tuple[str, ...], position: int, d_model: int, base: float, layout: str
) -> TokenStep:
    """The step of the word at position, or PE(position) alone past the sentence's end."""
    if position < len(words):
        return token_steps(words, d_model, base, layout)[position]
    pe = encoding.encode_positions([position], d_model, base, layout=layout)[0]
    return TokenStep(position, None, None, pe, None)


@dataclass(frozen=True)
class CopiesCompared:
    """The copies of one word side by side: one embedding, sums made different by PE."""

    same_embedding: bool  # every copy's embedding is the first's, bit for bit
    closest: float  # the smallest distance between the sums of two copies


def compare_copies(copies: tuple[TokenStep, ...] | list[TokenStep]) -> CopiesCompared:
    """How the steps of a word's copies (two or more) compare."""
    return CopiesCompared(
        same_embedding=all(np.array_equal(c.embedding, copies[0].embedding) for c in copies),
        closest=min(
            encoding.compare(a.total, b.total).distance
            for index, a in enumerate(copies)
            for b in copies[index + 1 :]
        ),
    )


# ---- Panels of a visitor's table (the learned view and the checker) -------------------------

# At most this many cells per table panel, and positions per T·Tᵀ panel, are drawn.
PANEL_CELLS = 60_000
GRAM_POSITIONS = 160


def panel_stride(n_positions: int, d_model: int) -> int:
    """Every how many rows and columns a table panel draws, to hold at most PANEL_CELLS."""
    row_stride, _ = display_strides(n_positions, d_model, PANEL_CELLS)
    return row_stride


def panel_rows_columns(
    shape: tuple[int, int], stride: int, layout: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """The rows and columns a panel draws of a table of shape: every stride-th row and column,
    or for a sinusoidal table in layout (not None), every stride-th sin/cos pair whole."""
    n_positions, d_model = shape
    rows = np.arange(0, n_positions, stride)
    if layout is None:
        return rows, np.arange(0, d_model, stride)
    pair_of, _ = encoding.column_roles(d_model, layout)
    return rows, np.flatnonzero(pair_of % stride == 0)


@dataclass(frozen=True)
class PanelCells:
    """A table as its panel draws it."""

    rows: np.ndarray  # the positions drawn
    columns: np.ndarray  # the dimensions drawn
    z: np.ndarray  # float32, rows × columns


def panel_cells(values: np.ndarray, stride: int, layout: str | None) -> PanelCells:
    """The cells of values a panel draws (panel_rows_columns), float32."""
    rows, columns = panel_rows_columns(values.shape, stride, layout)
    z = np.ascontiguousarray(values[np.ix_(rows, columns)], dtype=np.float32)
    return PanelCells(rows, columns, z)


def panel_gram(values: np.ndarray, similarity: str = "dot") -> tuple[np.ndarray, np.ndarray]:
    """(rows, T·Tᵀ or the cosine similarities of those rows), float64: at most GRAM_POSITIONS
    positions, evenly strided. The cosines of an all-zero row are NaN."""
    rows = np.arange(0, len(values), dot_product_stride(len(values), GRAM_POSITIONS**2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return rows, encoding.gram_matrix(values[rows], similarity)


def largest_finite(values: np.ndarray) -> float:
    """The largest |value| of the finite entries (0 when there are none)."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


def saturation_limit(z: np.ndarray, quantile: float) -> float:
    """The |value| at which a diverging colour scale of z saturates: the quantile of |z| (its
    largest |value| when that is 0, and 1 for an all-zero z)."""
    limit = float(np.quantile(np.abs(z), quantile))
    return limit if limit > 0 else float(np.abs(z).max()) or 1.0


@dataclass(frozen=True)
class EvidenceCells:
    """What the checker's evidence figure draws of a diagnosis: strided cells, float32."""

    rows: np.ndarray  # positions shown in the matrix panels
    columns: np.ndarray  # dimensions shown
    theirs: np.ndarray
    ours: np.ndarray
    difference: np.ndarray
    gram_rows: np.ndarray  # positions shown in the PE·PEᵀ panels
    their_gram: np.ndarray
    our_gram: np.ndarray
    offsets: np.ndarray  # k × the gram stride
    their_spread: np.ndarray  # max − min along diagonal k of their shown PE·PEᵀ
    our_spread: np.ndarray
    reduced: bool  # fewer cells or positions shown than the matrix has


def evidence_cells(diagnosis: Diagnosis) -> EvidenceCells:
    """The cells the checker's evidence figure shows, strided by whole pairs when the matrix is
    large."""
    theirs, ours = diagnosis.theirs, diagnosis.reference
    n_positions, d_model = theirs.shape
    stride = panel_stride(n_positions, d_model)
    rows, columns = panel_rows_columns(theirs.shape, stride, diagnosis.layout)
    cells = np.ix_(rows, columns)
    gram_rows, their_gram = panel_gram(theirs)
    _, our_gram = panel_gram(ours)
    return EvidenceCells(
        rows=rows,
        columns=columns,
        theirs=theirs[cells].astype(np.float32),
        ours=ours[cells].astype(np.float32),
        difference=(theirs[cells] - ours[cells]).astype(np.float32),
        gram_rows=gram_rows,
        their_gram=their_gram.astype(np.float32),
        our_gram=our_gram.astype(np.float32),
        offsets=gram_rows - gram_rows[0],
        their_spread=diagonal_spreads(their_gram),
        our_spread=diagonal_spreads(our_gram),
        reduced=rows.size * columns.size < n_positions * d_model or gram_rows.size < n_positions,
    )


@read_only_cache(maxsize=2)
def reference_example(n_positions: int, d_model: int, base: float) -> np.ndarray:
    """The interleaved PE matrix the checker draws before a matrix is given (not pe_matrix: its
    few cache slots hold the page's own matrices)."""
    return encoding.positional_encoding(n_positions, d_model, base)


# ---- ALiBi's heads, and every method's position score against the offset ---------------------

# The slopes are 2^(−8h/c) (c ≤ 64) and 2^(−4(2h − 1)/c) (c ≤ 32): their exponents are
# multiples of 1/8, so rounding log2 to 1/1024 recovers them exactly from the floats.
EXPONENT_DENOMINATOR = 1024


def slope_exponent(slope: float) -> Fraction:
    """e with slope = 2^(−e): a multiple of 1/8 for every ALiBi slope."""
    return Fraction(round(-math.log2(slope) * EXPONENT_DENOMINATOR), EXPONENT_DENOMINATOR)


def alibi_biases(n_heads: int, offsets) -> np.ndarray:
    """−m_h·|k| of each head h (rows) at each offset k (columns), float64, never −0."""
    offsets = np.asarray(offsets)
    return np.stack([methods.alibi_offset_bias(offsets, m) for m in alibi_slopes(n_heads)]) + 0.0


def extreme_alibi_heads(n_heads: int) -> tuple[int, ...]:
    """The steepest and the gentlest head (from 0), once when they are one head (H = 1).

    For H a power of two these are heads 1 and H; otherwise the reference code's order is not
    sorted (H = 3: 1/16, 1/256, 1/4), so the extremes are looked up.
    """
    slopes = alibi_slopes(n_heads)
    return tuple(dict.fromkeys([int(np.argmax(slopes)), int(np.argmin(slopes))]))


def last_scored_offset(state) -> int:
    """The largest k the methods view scores: the shown sequence's, and at least twice the
    training length."""
    return max(state.n_positions - 1, 2 * state.train_length)


@dataclass(frozen=True)
class PositionScoreCurve:
    """One method's position-only score at k = 0 … last_scored_offset (one ALiBi head's)."""

    method: str
    name: str  # the method's name, or "alibi-gentlest" for ALiBi's gentlest head
    scores: np.ndarray
    head: int | None = None  # the ALiBi head, from 0


def position_score_curves(state) -> tuple[PositionScoreCurve, ...]:
    """The methods view's lines: sinusoidal, RoPE, ALiBi's steepest and gentlest heads, none,
    and the relative methods T5, Shaw et al. and Transformer-XL with their seeded stand-ins."""
    last, d_model, base, seed = last_scored_offset(state), state.d_model, state.base, state.seed
    shown = method_curves(last, d_model, float(base), state.layout, seed, state.heads)
    alibi = [
        PositionScoreCurve("alibi", "alibi-gentlest" if index else "alibi", shown.alibi[head], head)
        for index, head in enumerate(extreme_alibi_heads(state.heads))
    ]
    t5 = (state.t5_buckets, state.t5_max_distance, state.t5_bidirectional)
    # Where T5's buckets are undefined there is no T5 line (the T5 view says why).
    t5_scores = {} if relative.t5_problem(*t5) else {"t5": t5_bias_curve(last + 1, *t5, seed)}
    relative_scores = {
        **t5_scores,
        "shaw": shaw_score_curve(last + 1, state.shaw_clip, d_model, seed),
        "xl": xl_position_curve(last + 1, d_model, float(base), seed),
    }
    return (
        PositionScoreCurve("sinusoidal", "sinusoidal", shown.sinusoidal),
        PositionScoreCurve("rope", "rope", shown.rope),
        *alibi,
        PositionScoreCurve("none", "none", shown.none),
        *(PositionScoreCurve(name, name, scores) for name, scores in relative_scores.items()),
    )


# ---- The sinusoidal views' numbers: frequencies, waves, pairs k apart, rotation, distances ----


@read_only_cache()
def angular_frequencies(d_model: int, base: float) -> np.ndarray:
    """ω_i = base^(−2i/d_model) of the pairs i = 0 … d_model/2 − 1, in radians per position."""
    return encoding.angular_frequencies(d_model, base)


@read_only_cache()
def wavelengths(d_model: int, base: float) -> np.ndarray:
    """λ_i = 2π/ω_i of the pairs i, in positions."""
    return encoding.wavelengths(d_model, base)


@read_only_cache()
def reference_div_term(d_model: int, base: float) -> np.ndarray:
    """div_term as the reference code computes it, exp(2i · (−ln base / d_model))."""
    return encoding.reference_div_term(d_model, base)


# Points per wavelength of a wave's smooth curve, and bounds on its points.
SAMPLES_PER_WAVELENGTH = 24
MIN_CURVE_POINTS, MAX_CURVE_POINTS = 200, 8000
# Whole positions beyond this many are drawn as lines only (dots would merge anyway).
MAX_SAMPLE_DOTS = 512


def curve_points(span: float, wavelength: float) -> int:
    """How many points draw a smooth curve of this wavelength over [0, span]."""
    wanted = math.ceil(SAMPLES_PER_WAVELENGTH * span / wavelength) + 1
    return int(min(max(wanted, MIN_CURVE_POINTS), MAX_CURVE_POINTS))


@dataclass(frozen=True)
class PairWave:
    """sin(x·ω_i) and cos(x·ω_i) of pair i over 0 … span: smooth, and at the whole positions."""

    x: np.ndarray
    sin: np.ndarray
    cos: np.ndarray
    positions: np.ndarray  # the whole positions 0 … span; none beyond MAX_SAMPLE_DOTS of them
    sampled_sin: np.ndarray
    sampled_cos: np.ndarray


@read_only_cache(maxsize=16)
def pair_wave(span: int, d_model: int, base: float, pair: int) -> PairWave:
    """Pair i's sine and cosine over positions 0 … span, with curve_points points."""
    omega = angular_frequencies(d_model, base)[pair]
    x = np.linspace(0.0, float(span), curve_points(float(span), wavelengths(d_model, base)[pair]))
    positions = np.arange(0, span + 1, dtype=np.float64)
    if positions.size > MAX_SAMPLE_DOTS:
        positions = positions[:0]
    sampled = positions * omega
    return PairWave(
        x, np.sin(x * omega), np.cos(x * omega), positions, np.sin(sampled), np.cos(sampled)
    )


def pair_samples(positions, d_model: int, base: float, layout: str, pairs) -> np.ndarray:
    """PE's (sin, cos) of each pair i at each position: shape (positions, pairs, 2), read off
    the pairs' columns in this layout."""
    rows = encoding.encode_positions(np.asarray(positions), d_model, base, layout=layout)
    columns = np.array([encoding.pair_columns(d_model, layout, i) for i in pairs], dtype=int)
    return rows[:, columns.reshape(-1, 2)]


def pe_pair(state) -> np.ndarray:
    """PE(pos) and PE(pos + k), shape (2, d_model); pos + k may lie beyond the shown positions."""
    positions = [state.pos, state.second_pos]
    return encoding.encode_positions(positions, state.d_model, state.base, layout=state.layout)


# The other pairs k apart start at these positions (the text's 7 → 8 and 22 → 23), shifted by
# −k when k < 0, so that the earlier of the two is at each and both are positions.
OTHER_STARTS = (0, 22, 100, 1000)
OTHER_PAIRS = 3


def other_starts(pos: int, offset: int) -> list[int]:
    """A few first positions m other than pos whose partner m + k is a position too."""
    starts = [start + max(0, -offset) for start in OTHER_STARTS]
    return [start for start in starts if start != pos][:OTHER_PAIRS]


@dataclass(frozen=True)
class PairComparison:
    """How PE(first) and PE(second), second = first + k, relate."""

    first: int
    second: int
    comparison: encoding.Comparison  # dot product, cosine similarity, Euclidean distance


@dataclass(frozen=True)
class OffsetComparisons:
    """Pairs of positions k apart, each compared, and the same three numbers from k alone."""

    pairs: tuple[PairComparison, ...]  # PE(pos) against PE(pos + k) first, then other starts
    from_offset: encoding.Comparison  # D(k), 2D(k)/d_model and √(d_model − 2D(k))


def offset_comparisons(state) -> OffsetComparisons:
    """PE(pos) against PE(pos + k), the pairs k apart from other_starts, and the closed form."""
    return offset_comparisons_at(state.pos, state.offset, state.d_model, state.base, state.layout)


def offset_comparisons_at(
    pos: int, offset: int, d_model: int, base: float, layout: str
) -> OffsetComparisons:
    """offset_comparisons of these numbers (the compare view's picks ask it for every pos)."""
    starts = [pos, *other_starts(pos, offset)]
    positions = [p for m in starts for p in (m, m + offset)]
    rows = encoding.encode_positions(positions, d_model, base, layout=layout)
    pairs = tuple(
        PairComparison(m, m + offset, encoding.compare(rows[2 * j], rows[2 * j + 1]))
        for j, m in enumerate(starts)
    )
    return OffsetComparisons(pairs, offset_comparison(offset, d_model, float(base)))


@lru_cache(maxsize=4096)
def offset_comparison(offset: int, d_model: int, base: float) -> encoding.Comparison:
    """D(k), 2D(k)/d_model and √(d_model − 2D(k)), from k alone."""
    return encoding.offset_comparison(offset, d_model, base)


@read_only_cache()
def pe_rows(count: int, d_model: int, base: float, layout: str) -> np.ndarray:
    """PE(0) … PE(count − 1), float64, beyond the shown positions as pos + k may be (the rows
    the compare view's picks take)."""
    return encoding.encode_positions(np.arange(count), d_model, base, layout=layout)


@dataclass(frozen=True)
class OffsetDiagonal:
    """Diagonal k of PE·PEᵀ: D(k) and what follows from it, and how far its entries spread."""

    offset: int
    dot: float  # D(k) = Σ cos(k·ω_i)
    cosine: float  # 2D(k)/d_model
    distance: float  # √(d_model − 2D(k))
    entries: int
    spread: float  # max − min of the entries PE(i)·PE(i + k) on diagonal k


def offset_diagonal(n_positions: int, d_model: int, base: float, offset: int) -> OffsetDiagonal:
    """D(k), 2D(k)/d_model and √(d_model − 2D(k)), and the spread of diagonal k of PE·PEᵀ (the
    products of the interleaved matrix: the layout changes none of them)."""
    exact = encoding.offset_comparison(offset, d_model, base)
    matrix = pe_matrix(n_positions, d_model, base, "interleaved")
    spread = diagonal_spread(matrix, offset)
    entries = n_positions - abs(offset)
    return OffsetDiagonal(offset, exact.dot, exact.cosine, exact.distance, entries, spread)


def diagonal_spread(matrix: np.ndarray, offset: int) -> float:
    """max − min of the entries PE(i)·PE(i + k) on diagonal k = offset of PE·PEᵀ."""
    diagonal = encoding.diagonal_products(matrix, offset)
    return float(diagonal.max() - diagonal.min())


@read_only_cache()
def offset_spreads(n_positions: int, d_model: int, base: float) -> np.ndarray:
    """The spread of diagonal k of PE·PEᵀ for k = 0 … n_positions − 1 (offset_diagonal's, and
    diagonal −k's too: the same products, each factor's order swapped)."""
    matrix = pe_matrix(n_positions, d_model, base, "interleaved")
    return np.array([diagonal_spread(matrix, k) for k in range(n_positions)])


def offset_similarity_curve(n_positions: int, d_model: int, base: float, similarity: str):
    """(offsets k = −(n−1) … n−1, D(k)), or 2D(k)/d_model for the cosine similarity."""
    offsets, dots = offset_dot_curve(n_positions, d_model, base)
    return offsets, 2.0 * dots / d_model if similarity == "cosine" else dots


# The rotation view also reads R_i(k) off the encodings this far after pos: the same matrix.
FAR_START = 1000


@dataclass(frozen=True)
class PairRotation:
    """Pair i of PE(pos) and PE(pos + k), and R_i(k) between them: from its formula, read off
    the encodings at pos and at far_start, and the whole vector's check."""

    pair: int
    dimensions: tuple[int, int]  # the dimensions of pair i's sine and cosine
    omega: float  # ω_i
    angle: float  # k·ω_i in radians
    points: np.ndarray  # (sin, cos) of pair i at pos (row 0) and pos + k (row 1)
    formula: np.ndarray
    measured: np.ndarray  # from PE(pos) and PE(pos + k)
    far_start: int
    measured_far: np.ndarray  # from PE(far_start) and PE(far_start + k)
    error: float  # ‖PE(pos + k) − R(k)·PE(pos)‖ over all d_model dimensions


def pair_rotation(state) -> PairRotation:
    """The rotation of the state's pair (rotation_pair) by its offset k."""
    k, i, pos = state.offset, state.rotation_pair, state.pos
    shown = pair_rotations([pos], [k], state.d_model, float(state.base), state.layout, i)
    return PairRotation(
        pair=i,
        dimensions=shown.dimensions,
        omega=shown.omega,
        angle=float(shown.angles[0]),
        points=shown.points[0],
        formula=shown.formula[0],
        measured=shown.measured[0],
        far_start=pos + FAR_START,
        measured_far=shown.measured_far[0],
        error=float(shown.errors[0]),
    )


@dataclass(frozen=True)
class PairRotations:
    """PairRotation's numbers at many (pos, k) at once (the rotation view's picks take one per
    value of a slider): an entry of each array per pos and k."""

    pair: int
    dimensions: tuple[int, int]
    omega: float
    angles: np.ndarray  # k·ω_i
    points: np.ndarray  # (entries, 2, 2): pair i's (sin, cos) at pos and at pos + k
    formula: np.ndarray  # (entries, 2, 2): R_i(k)
    measured: np.ndarray  # (entries, 2, 2): read off PE(pos) and PE(pos + k)
    measured_far: np.ndarray  # read off PE(pos + FAR_START) and PE(pos + FAR_START + k)
    errors: np.ndarray  # ‖PE(pos + k) − R(k)·PE(pos)‖ over all d_model dimensions


def pair_rotations(
    positions, offsets, d_model: int, base: float, layout: str, pair: int, reach: int = 0
) -> PairRotations:
    """Pair i's rotation by each k of offsets from each pos of positions (pos + k ≥ 0).

    cos(k·ω_i) and sin(k·ω_i), R(k)'s, are PE(k)'s own for k ≥ 0: only a negative k's are
    computed as rotation_blocks computes them. The encodings are those of the positions used,
    or, with a reach, rows of PE(0 … reach − 1) (pe_rows), one table for many calls.
    """
    positions = np.asarray(positions, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    seconds = positions + offsets
    omega_all = angular_frequencies(d_model, base)
    omega = float(omega_all[pair])
    ahead = offsets >= 0
    used = np.concatenate([positions, seconds, offsets[ahead]])
    if reach:
        rows = pe_rows(reach, d_model, base, layout)[used]
    else:
        encoded, where = np.unique(used, return_inverse=True)
        rows = encoding.encode_positions(encoded, d_model, base, layout=layout)[where]
    first, after, at_offsets = np.split(rows, [positions.size, 2 * positions.size])
    sin_cols, cos_cols = encoding.pair_columns(d_model, layout)
    cos, sin = np.empty((offsets.size, omega_all.size)), np.empty((offsets.size, omega_all.size))
    cos[ahead], sin[ahead] = at_offsets[:, cos_cols], at_offsets[:, sin_cols]
    behind, where = np.unique(offsets[~ahead], return_inverse=True)
    angle = behind.astype(np.float64)[:, None] * omega_all
    cos[~ahead], sin[~ahead] = np.cos(angle)[where], np.sin(angle)[where]
    residuals = after - encoding.turn_pairs(first, cos, sin, layout)
    # The sum over the dimensions as np.linalg.norm takes it, x.dot(x): numpy's matmul of a row
    # by a column is that same dot, one per entry.
    errors = np.sqrt((residuals[:, None, :] @ residuals[:, :, None])[:, 0, 0])
    dimensions = tuple(int(c) for c in encoding.pair_columns(d_model, layout, pair))
    points = np.stack([first[:, list(dimensions)], after[:, list(dimensions)]], axis=1)
    # Pair i's columns of encode_positions at pos + FAR_START and pos + FAR_START + k, alone.
    far = (np.stack([positions, seconds], axis=1) + FAR_START) * omega
    far_points = np.stack([np.sin(far), np.cos(far)], axis=-1)
    angles = offsets * omega
    return PairRotations(
        pair=pair,
        dimensions=dimensions,
        omega=omega,
        angles=angles,
        points=points,
        formula=_rotation_block(cos[:, pair], sin[:, pair]),
        measured=_rotation_block(*_turn(points)),
        measured_far=_rotation_block(*_turn(far_points)),
        errors=errors,
    )


def _turn(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of the turn from each entry's first point to its second."""
    return encoding.turn_between(points[:, 0, 0], points[:, 0, 1], points[:, 1, 0], points[:, 1, 1])


def _rotation_block(cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """The 2 × 2 rotations [[cos, sin], [−sin, cos]], one per entry."""
    return np.stack([np.stack([cos, sin], axis=-1), np.stack([-sin, cos], axis=-1)], axis=-2)


@read_only_cache()
def smallest_separation(n_positions: int, d_model: int, base: float) -> tuple[int, float] | None:
    """(k, distance) of the closest two of the shown positions (encoding.smallest_separation)."""
    return encoding.smallest_separation(n_positions, d_model, base)


@dataclass(frozen=True)
class PositionProperties:
    """Unique, bounded, smooth: the numbers behind them for the state's d_model, base and pos."""

    distances: np.ndarray  # ‖PE(q) − PE(pos)‖ for q = 0 … NEAREST_HORIZON − 1
    closest_pair: tuple[int, float] | None  # (k, distance) over the shown positions
    nearest: tuple[int, float]  # (q, distance) of the position nearest pos in the horizon
    smallest: float
    largest: float
    row_norm: float  # every row has norm √(d_model / 2)
    neighbour: float  # distance of PE(pos) and PE(pos + 1)
    mean_distance: float  # mean distance from pos over the horizon


def position_properties(state) -> PositionProperties:
    """Uniqueness, the nearest position, boundedness and smoothness for the state."""
    d, base, pos, horizon = state.d_model, float(state.base), state.pos, encoding.NEAREST_HORIZON
    curve = offset_distance_curve(d, base)
    distances = encoding.position_distances(pos, curve)
    return PositionProperties(
        distances,
        smallest_separation(state.n_positions, d, base),
        encoding.nearest_position(pos, d, base, horizon, offset_curve=curve),
        *value_range(state.n_positions, d, base, state.layout),
        row_norm=math.sqrt(d / 2),
        neighbour=float(curve[1]),
        mean_distance=float(encoding.mean_distances(pos, curve)),
    )


@dataclass(frozen=True)
class ReversedScores:
    """max |S_reversed − P·S·Pᵀ| of a sentence (P reverses the order): how far the reversed
    sentence's scores are from the sentence's, reordered."""

    without_position: float  # exactly 0: no position information
    with_encoding: float  # with PE(0 … n − 1) added to the embeddings


def reversed_scores(words: tuple[str, ...], d_model: int) -> ReversedScores:
    """The two differences of a sentence of at least one word."""
    backward = words[::-1]

    def difference(forward: np.ndarray, reversed_: np.ndarray) -> float:
        return float(np.abs(reversed_ - forward[::-1, ::-1]).max())

    return ReversedScores(
        difference(nope_scores(words, d_model), nope_scores(backward, d_model)),
        difference(encoded_nope_scores(words, d_model), encoded_nope_scores(backward, d_model)),
    )


def unit_pairs(d_model: int, layout: str) -> np.ndarray:
    """The vector that is (0, 1) in every pair: PE(0), whose pair i is (sin 0, cos 0)."""
    vector = np.zeros(d_model)
    vector[encoding.pair_columns(d_model, layout)[1]] = 1.0
    return vector


@dataclass(frozen=True)
class RopeScore:
    """The RoPE score q_m·k_n of the seeded query at position m and key at position n."""

    m: int
    n: int
    score: float


@dataclass(frozen=True)
class RopeOffsetScores:
    """RoPE's scores of the seeded q and k at the state's offset k = n − m, and its link to the
    sinusoidal D(k)."""

    current: RopeScore  # m = pos, n = pos + k
    others: tuple[RopeScore, ...]  # from other_starts, the same k
    offset_only: float  # the score from k alone: the curve's (rope_offset_curve) at k
    unrotated: float  # q·k, no rotation
    link_score: float  # RoPE score of q = k = PE(0) at m = pos, n = pos + k
    link_dot: float  # D(k) = PE(pos)·PE(pos + k) = Σ cos(k·ω_i)
    decay: float  # RoFormer's long-term-decay bound at |k|: the curve's (rope_decay_curve)


@dataclass(frozen=True)
class RopeScoresAt:
    """RopeOffsetScores at each of several (pos, k), as arrays with one entry (or row) per
    value: the RoPE view's picks take thousands at once, its readout one."""

    firsts: np.ndarray  # m = pos
    offsets: np.ndarray  # k
    scores: np.ndarray  # q_m·k_(m+k)
    other_firsts: np.ndarray  # (values, OTHER_PAIRS): the other starts m, at the same k
    other_scores: np.ndarray  # (values, OTHER_PAIRS)
    offset_only: np.ndarray
    unrotated: float
    link_scores: np.ndarray
    link_dots: np.ndarray
    decays: np.ndarray

    def part(self, values: slice) -> RopeScoresAt:
        """The scores of some of the values."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return RopeScoresAt(
            **{name: f[values] if isinstance(f, np.ndarray) else f for name, f in fields.items()}
        )

    def at(self, index: int) -> RopeOffsetScores:
        """The scores of one value."""
        m, k = int(self.firsts[index]), int(self.offsets[index])
        others = zip(
            self.other_firsts[index].tolist(), self.other_scores[index].tolist(), strict=True
        )
        return RopeOffsetScores(
            current=RopeScore(m, m + k, float(self.scores[index])),
            others=tuple(RopeScore(start, start + k, score) for start, score in others),
            offset_only=float(self.offset_only[index]),
            unrotated=self.unrotated,
            link_score=float(self.link_scores[index]),
            link_dot=float(self.link_dots[index]),
            decay=float(self.decays[index]),
        )


def other_starts_at(firsts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """other_starts at each pos of firsts and k of offsets, one row each, at once (the RoPE
    view's picks ask for thousands): the first OTHER_PAIRS of OTHER_STARTS shifted by
    max(0, −k), pos left out."""
    starts = np.asarray(OTHER_STARTS) + np.maximum(0, -offsets)[:, None]
    # Stable: the kept starts stay in order, pos (at most one of them) goes last.
    order = np.argsort(starts == firsts[:, None], axis=1, kind="stable")[:, :OTHER_PAIRS]
    return np.take_along_axis(starts, order, axis=1)


def rope_scores_at(
    firsts, offsets, n_positions: int, d_model: int, base: float, layout: str, seed: int
) -> RopeScoresAt:
    """The live score q_m·k_(m+k) for each m = pos of firsts and k of offsets (|k| < n), the
    same at other starts, from k alone and unrotated, and the score of PE(0) with itself, which
    is D(k); the bound and the score from k alone are the curves' the view draws.

    A score turns q by m·θ_i and k by n·θ_i (methods.rope_rotate's turn) and sums their
    products along its own row: each position's angles are taken once for all the pairs, and
    a score does not depend on the others asked with it.
    """
    firsts, offsets = np.asarray(firsts, dtype=np.int64), np.asarray(offsets, dtype=np.int64)
    q, key = query_key(d_model, seed)
    unit = unit_pairs(d_model, layout)
    starts = np.concatenate([firsts[:, None], other_starts_at(firsts, offsets)], axis=1)
    positions, where = np.unique(np.stack([starts, starts + offsets[:, None]]), return_inverse=True)
    cos, sin = methods.rope_angles(positions, d_model, base)
    where = where.reshape(2, *starts.shape)

    def turned(vector: np.ndarray) -> np.ndarray:
        every = np.broadcast_to(vector, (positions.size, d_model))
        return methods.rope_turn(every, cos, sin, layout)

    # Each distinct pair once: along the pos slider the other starts hardly change.
    pairs, pair_of = np.unique(where[0] * positions.size + where[1], return_inverse=True)
    scores = _row_products(turned(q), turned(key), *np.divmod(pairs, positions.size))
    scores = scores[pair_of.reshape(starts.shape)]
    unit_turned = turned(unit)
    links = _row_products(unit_turned, unit_turned, where[0][:, 0], where[1][:, 0])
    distinct, at = np.unique(offsets, return_inverse=True)
    _, curve = rope_offset_curve(n_positions, d_model, base, layout, seed)
    _, decay = rope_decay_curve(n_positions, d_model, base)
    return RopeScoresAt(
        firsts=firsts,
        offsets=offsets,
        scores=scores[:, 0],
        other_firsts=starts[:, 1:],
        other_scores=scores[:, 1:],
        offset_only=curve[offsets + n_positions - 1],
        unrotated=float(q @ key),
        link_scores=links,
        link_dots=encoding.offset_dot(distinct, d_model, base)[at.ravel()],
        decays=decay[np.abs(offsets)],
    )


# The rows _row_products multiplies at a time: a few MB, which the cache holds.
PRODUCT_ROWS = 1024


def _row_products(x: np.ndarray, y: np.ndarray, x_rows: np.ndarray, y_rows: np.ndarray):
    """The dot product of row x_rows[i] of x with row y_rows[i] of y, for each i: each summed
    along its own row, so it does not depend on the other rows asked with it."""
    products = np.empty(len(x_rows))
    for start in range(0, len(x_rows), PRODUCT_ROWS):
        rows = slice(start, start + PRODUCT_ROWS)
        both = x[x_rows[rows]]
        both *= y[y_rows[rows]]
        products[rows] = both.sum(axis=-1)
    return products


def rope_offset_scores(state) -> RopeOffsetScores:
    """The live score q_pos·k_(pos+k), the same at other starts and from k alone, q·k, and the
    score of PE(0) with itself, which is D(k)."""
    shown = rope_scores_at(
        [state.pos],
        [state.offset],
        state.n_positions,
        state.d_model,
        float(state.base),
        state.layout,
        state.seed,
    )
    return shown.at(0)


# ---- A model's positions (views/model.py) ------------------------------------------------------


@read_only_cache(maxsize=8)
def preset_model(name: str):
    """The ModelPositions of a published preset (model/presets.py), read once."""
    from .model.reader import read_model

    return read_model(name)


@read_only_cache(maxsize=8)
def preset_both(name: str):
    """A preset as transformers runs it, with the engines-differ or engines-agree findings of the
    GGUF llama.cpp's converter writes for it (model/converter.py); the preset alone when the
    converter does not convert it."""
    from .model.converter import has_gguf_form
    from .model.reader import read_model

    return read_model(name, engine="both") if has_gguf_form(name) else preset_model(name)


@read_only_cache(maxsize=16)
def model_scores(inv_freq: bytes, offsets: bytes) -> np.ndarray:
    """scaling.offset_scores of a layer type's inv_freq (float64 bytes) at offsets (float64 bytes):
    bytes, so that the arrays can be cache keys."""
    return scaling.offset_scores(np.frombuffer(inv_freq), np.frombuffer(offsets))


@dataclass(frozen=True)
class MistakeShown:
    """One mistake as the mistakes view draws it: the simulation (None, with the problem in
    words, when it cannot run on this layer), the pairs whose angle errors are drawn, the score
    row drawn (the (q, k) sample or ALiBi head the mistake moves most) and the worst angle error
    over the pairs at each position."""

    simulation: object
    problem: str = ""
    pairs: tuple[int, ...] = ()
    score_row: int = 0
    worst_angle: np.ndarray | None = None
    pair_errors: np.ndarray | None = None  # |angle error| of the pairs drawn, 0 as NaN (log axis)
    note: str = ""  # why the layer is not the one asked for (mistake_on=upload, no model given)


def mistake_settings(mistake: str, precision: str, place: str, how: str, own=()) -> dict:
    """The settings simulate takes for a mistake, from the state's choices; own holds the other
    mistakes' as (keyword, value) pairs (mistake_own: hashable, a cache key)."""
    if mistake == "low_precision":
        return {"precision": precision, "place": place}
    return {"how": how} if mistake == "scaling" else dict(own)


def mistake_own(state) -> tuple:
    """The chosen mistake's own settings in the state, as simulate's (keyword, value) pairs:
    lengths as a tuple of whole numbers; a setting left empty (None) takes simulate's default."""
    own = []
    for keyword, name in MISTAKE_SETTINGS.get(state.mistake, {}).items():
        value = getattr(state, name)
        if value is not None:
            own.append((keyword, lengths_of(value) if name in LENGTHS_SETTINGS else value))
    return tuple(own)


@read_only_cache(maxsize=8)
def mistake_shown(mistake, on, model, precision, place, how, at, own=()) -> MistakeShown:
    """simulate(mistake) on the model's first rotating layer (or plain RoPE) at `at` ("4k" …, or
    "context": the layer's maximum), with what the view picks out of it."""
    from .mistakes.scores import worst_per_column
    from .mistakes.simulate import simulate

    layer, note = mistake_layer(on, model)
    settings = mistake_settings(mistake, precision, place, how, own)
    try:
        # bf16 and fp16 round to 0 and overflow to inf by design: those are the mistake's numbers.
        with np.errstate(under="ignore", over="ignore", invalid="ignore"):
            found = simulate(mistake, layer, at=None if at == "context" else at, **settings)
            moved = np.abs(np.asarray(found.score_wrong) - found.score_right)
    except ValueError as error:
        return MistakeShown(None, str(error), note=note)
    row = int(np.argmax(np.where(np.isfinite(moved), moved, -1.0).max(axis=1)))
    if found.angle_error is None:
        return MistakeShown(found, score_row=row, note=note)
    count = found.angle_error.shape[1]
    pairs = tuple(sorted({0, count // 4, count // 2, count - 1}))
    worst = worst_per_column(found.angle_error.T)
    drawn = np.abs(found.angle_error[:, list(pairs)])
    drawn[drawn == 0] = np.nan
    return MistakeShown(found, pairs=pairs, score_row=row, worst_angle=worst, pair_errors=drawn,
                        note=note)  # fmt: skip


# mistake_on=upload with no model given (a link opened elsewhere: the visitor's file is never in
# it): the preset runs instead, and the view says so.
NO_VISITOR_MODEL = (
    "No model of yours is open here (a file you give the model view stays in this page and is "
    "never in its link), so this runs on the preset {name}; give the model view your file, then "
    "its “What if” button"
)


def mistake_layer(on: str, model) -> tuple[object, str]:
    """What simulate runs on, and a note when it is not what `on` asks for: the preset named
    `model` ("model"), plain RoPE ("rope"), the visitor's reading ("upload", `model` a
    state.VisitorModel), or for "upload" without one, the preset and why."""
    if on == "rope":
        return None, ""
    if isinstance(model, VisitorModel):
        return model.reading, ""
    preset = preset_model(model)
    return preset, NO_VISITOR_MODEL.format(name=preset.name) if on == "upload" else ""


def mistake_model(state):
    """What the state's mistake runs on: the visitor's model for upload (when there is one),
    else the preset's name."""
    upload = state.mistake_on == "upload" and state.visitor_model
    return state.visitor_model if upload else state.model


def mistake_of(state) -> MistakeShown:
    """The state's mistake, as the mistakes view draws it (on the visitor's model, for upload)."""
    return mistake_shown(state.mistake, state.mistake_on, mistake_model(state), state.precision,
                         state.precision_place, state.scaling_mistake, state.query_at,
                         mistake_own(state))  # fmt: skip


@dataclass(frozen=True)
class MistakeNear:
    """A mistake at every value the pos and k sliders offer (issue 59): at each whole position
    0 … count − 1 the worst |angle error| over the pairs and its pair (None when the mistake
    turns no angles), and at each distance Δ 0 … count − 1 from the query the drawn sample's
    right and mistaken score and the worst error over every sample (None when the mistake
    scores the distances its own numbering makes)."""

    worst_angle: np.ndarray | None = None
    worst_pair: np.ndarray | None = None
    score_right: np.ndarray | None = None
    score_wrong: np.ndarray | None = None
    score_error: np.ndarray | None = None


@read_only_cache(maxsize=8)
def mistake_near(mistake, on, model, precision, place, how, at, own, count, row) -> MistakeNear:
    """simulate(mistake) as mistake_shown runs it, at positions and distances 0 … count − 1
    (the distances up to the query's position); `row` is the score sample drawn."""
    from .mistakes.simulate import BY_DISTANCE, TURNED, context, rotary_of, simulate

    if mistake not in BY_DISTANCE + TURNED:
        return MistakeNear()
    layer, _ = mistake_layer(on, model)
    settings = mistake_settings(mistake, precision, place, how, own)
    top = None if at == "context" else at
    if mistake in BY_DISTANCE:
        query = context(top, rotary_of(layer))
        settings["distances"] = np.arange(min(count, query + 1))
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        found = simulate(mistake, layer, np.arange(count), at=top, **settings)
    near = MistakeNear()
    if found.angle_error is not None:
        errors = np.abs(found.angle_error)
        finite = np.where(np.isnan(errors), np.inf, errors)  # NaN: overflowed, as far off as can be
        near = dataclasses.replace(
            near, worst_angle=finite.max(axis=1), worst_pair=finite.argmax(axis=1)
        )
    if mistake in BY_DISTANCE:
        rows = {"score_right": found.score_right[row], "score_wrong": found.score_wrong[row]}
        near = dataclasses.replace(near, **rows, score_error=found.score_error)
    return near


def mistake_near_key(state, row: int) -> tuple:
    """mistake_near's arguments for the state (and the score sample drawn, row)."""
    return (state.mistake, state.mistake_on, mistake_model(state), state.precision,
            state.precision_place, state.scaling_mistake, state.query_at, mistake_own(state),
            state.n_positions, row)  # fmt: skip


def mistake_near_of(state, row: int) -> MistakeNear:
    """The state's mistake at every value of the pos and k sliders."""
    return mistake_near(*mistake_near_key(state, row))

"""Other ways to give attention a sense of position (RoPE, ALiBi, none), in plain NumPy.

    RoPE   (Su et al., RoFormer):    pair i of q and k turned by pos * theta_i,
                                     theta_i = base ** (-2i / d_model), as in encoding.py
    ALiBi  (Press et al., "Train Short, Test Long"):  score bias -m_h * |i - j| for head h
    NoPE   (no position method):     the score of two tokens ignores where they stand

Arguments are validated as in ``pe_explorer.encoding``: a bad one raises ``ValueError``
naming the argument, the rule and the value received.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from . import encoding
from .encoding import (
    DEFAULT_BASE,
    MAX_ENCODE_CELLS,
    MAX_N_POSITIONS,
    MAX_POSITION,
    angular_frequencies,
    check_base,
    check_d_model,
    check_integer,
    check_layout,
    check_n_positions,
    number_array,
)

METHODS = ("sinusoidal", "rope", "alibi", "none")
METHOD_LABELS = {"sinusoidal": "Sinusoidal", "rope": "RoPE", "alibi": "ALiBi", "none": "None"}
MAX_HEADS = 64
MAX_SEED = 2**31 - 1


def check_method(method: object) -> str:
    """Return method, or raise ValueError unless it is one of METHODS."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    return str(method)


def check_heads(n_heads: object) -> int:
    """Return n_heads as an int, or raise ValueError unless it is in 1 … MAX_HEADS."""
    return check_integer("n_heads", n_heads, 1, MAX_HEADS)


def check_seed(seed: object) -> int:
    """Return seed as an int, or raise ValueError unless it is in 0 … MAX_SEED."""
    return check_integer("seed", seed, 0, MAX_SEED)


def check_slope(slope: object) -> float:
    """Return slope as a float, or raise ValueError unless it is finite and not negative."""
    if (
        isinstance(slope, bool)
        or not isinstance(slope, Real)
        or not math.isfinite(slope)
        or slope < 0
    ):
        raise ValueError(f"slope must be a finite number of at least 0, got {slope!r}")
    return float(slope)


def _check_position(name: str, value: object) -> float:
    """One position (a query's or a key's): a number between 0 and MAX_POSITION."""
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not math.isfinite(value)
        or not 0 <= value <= MAX_POSITION
    ):
        raise ValueError(f"{name} must be a number between 0 and {MAX_POSITION}, got {value!r}")
    return float(value)


def _check_offsets(offsets: object) -> np.ndarray:
    """Offsets k as a float64 array of their own shape, each finite and |k| <= MAX_POSITION."""
    array = number_array(offsets)
    if array is None or not np.isfinite(array).all() or (np.abs(array) > MAX_POSITION).any():
        raise ValueError(
            f"offsets must be finite and between -{MAX_POSITION} and {MAX_POSITION}, "
            f"got {offsets!r}"
        )
    return array


def _check_cells(name: str, rows: int, d_model: int) -> None:
    if rows * d_model > MAX_ENCODE_CELLS:
        raise ValueError(
            f"{name} times d_model must be at most {MAX_ENCODE_CELLS} cells, got {rows} x {d_model}"
        )


def _check_vector(name: str, vector: object) -> np.ndarray:
    """A query or key vector: 1-D, finite float64 of an even length allowed for d_model."""
    array = number_array(vector)
    if array is None:
        raise ValueError(f"{name} must be a 1-D vector of numbers, got {vector!r}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got an array of shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must contain only finite numbers")
    check_d_model(array.shape[0])
    return array


def _check_query_key(q: object, k: object) -> tuple[np.ndarray, np.ndarray]:
    q, k = _check_vector("q", q), _check_vector("k", k)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same length, got {q.size} and {k.size}")
    return q, k


def _shaped(values: np.ndarray):
    """A float for a scalar argument, else the array (the convention of encoding.offset_dot)."""
    return float(values) if values.ndim == 0 else values


# --- RoPE -------------------------------------------------------------------------------


def rope_rotate(
    x, positions, base: float = DEFAULT_BASE, layout: str = "interleaved"
) -> np.ndarray:
    """Rotate each pair (x0, x1) of x by the angle pos * theta_i, as RoPE does to q and k.

        (x0, x1) -> (x0 cos(pos theta_i) - x1 sin(pos theta_i),
                     x0 sin(pos theta_i) + x1 cos(pos theta_i))

    The pairs are (2i, 2i + 1) with ``layout="interleaved"`` (RoFormer, GPT-J) and
    (i, i + d_model/2) with ``layout="concatenated"`` (GPT-NeoX, LLaMA: x cos + rotate_half(x)
    sin). ``x`` is one vector (d_model,) or rows (n, d_model); ``positions`` is one position
    or one per row. A vector with n positions gives n rows.
    """
    vectors = np.asarray(x, dtype=np.float64)
    if vectors.ndim not in (1, 2):
        raise ValueError(f"x must be a vector or a 2-D array, got shape {vectors.shape}")
    if not np.isfinite(vectors).all():
        raise ValueError("x must contain only finite numbers")
    d_model = check_d_model(vectors.shape[-1])
    layout = check_layout(layout)
    if np.ndim(positions) == 0:
        angle_positions = np.float64(_check_position("positions", positions))
    else:
        angle_positions = encoding.check_positions(positions)
        rows = vectors.shape[0] if vectors.ndim == 2 else angle_positions.size
        if angle_positions.size != rows:
            raise ValueError(
                f"positions must give one position per row of x, got {angle_positions.size} "
                f"positions for {rows} rows"
            )
    rows = max(angle_positions.size, vectors.shape[0] if vectors.ndim == 2 else 1)
    _check_cells("rows", rows, d_model)
    cos, sin = rope_angles(angle_positions, d_model, base)
    if vectors.ndim == 1 and cos.ndim == 2:
        vectors = np.broadcast_to(vectors, (cos.shape[0], d_model))
    return rope_turn(vectors, cos, sin, layout)


def rope_angles(positions, d_model: int, base: float = DEFAULT_BASE):
    """cos and sin of pos * theta_i for each pair i: of one position, or rows of them for an
    array of positions (checked by the caller)."""
    angle = np.asarray(positions, dtype=np.float64)[..., None] * angular_frequencies(d_model, base)
    return np.cos(angle), np.sin(angle)


def rope_turn(vectors: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str) -> np.ndarray:
    """rope_rotate's turn of each pair of vectors, by angles already taken (rope_angles: one row
    of cos and sin per row of vectors): several vectors turned by the same positions share them."""
    first, second = encoding.pair_columns(vectors.shape[-1], layout)
    x0, x1 = vectors[..., first], vectors[..., second]
    rotated = np.empty(vectors.shape)
    rotated[..., first] = x0 * cos - x1 * sin
    rotated[..., second] = x0 * sin + x1 * cos
    return rotated


def random_qk(d_model: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A query and a key of N(0, 1) numbers, the same on every machine for the same seed.

    They are drawn as ``rng = np.random.default_rng(seed)``, then
    ``q = rng.standard_normal(d_model)`` first and ``k = rng.standard_normal(d_model)`` second.
    """
    d_model = check_d_model(d_model)
    rng = np.random.default_rng(check_seed(seed))
    q = rng.standard_normal(d_model)
    k = rng.standard_normal(d_model)
    return q, k


def rope_score(
    q, k, m: float, n: float, base: float = DEFAULT_BASE, layout: str = "interleaved"
) -> float:
    """The attention score of query q at position m and key k at position n, after RoPE."""
    q, k = _check_query_key(q, k)
    m, n = _check_position("m", m), _check_position("n", n)
    return float(rope_rotate(q, m, base, layout) @ rope_rotate(k, n, base, layout))


def rope_offset_scores(q, k, offsets, base: float = DEFAULT_BASE, layout: str = "interleaved"):
    """RoPE scores of query q at any position m and key k at m + offset, from the offset alone.

    With pair i written z = x0 + i x1, a rotation multiplies z by exp(i pos theta_i), so
    q_m . k_n = Re sum_i q_i conj(k_i) exp(i (m - n) theta_i) and n - m = offset:

        score(offset) = sum_i Re(a_i) cos(offset theta_i) + Im(a_i) sin(offset theta_i),
        a_i = q_i conj(k_i).

    ``offsets`` may be a number or an array; the result has its shape.
    """
    q, k = _check_query_key(q, k)
    layout = check_layout(layout)
    offsets = _check_offsets(offsets)
    d_model = q.size
    theta = angular_frequencies(d_model, base)
    _check_cells("offsets", offsets.size, d_model // 2)
    first, second = encoding.pair_columns(d_model, layout)
    real = q[first] * k[first] + q[second] * k[second]
    imag = q[second] * k[first] - q[first] * k[second]
    angle = offsets[..., None] * theta
    return _shaped(np.cos(angle) @ real + np.sin(angle) @ imag)


def rope_offset_curve(
    q, k, n_positions: int, base: float = DEFAULT_BASE, layout: str = "interleaved"
) -> np.ndarray:
    """rope_offset_scores at every offset -(n_positions - 1) … n_positions - 1, in that order.

    With A(k) = sum_i Re(a_i) cos(k theta_i) and B(k) = sum_i Im(a_i) sin(k theta_i), the score
    is A(k) + B(k) at k and A(k) - B(k) at -k. A and B for k = k0 + j (k0 a multiple of a block
    length b, 0 <= j < b) come from the angle-addition formulas as matrix products, so only
    about 2 sqrt(n) x d/2 sines and cosines are taken (as in encoding.offset_dots).
    """
    q, k = _check_query_key(q, k)
    layout = check_layout(layout)
    n_positions = check_n_positions(n_positions)
    theta = angular_frequencies(q.size, base)
    first, second = encoding.pair_columns(q.size, layout)
    real = q[first] * k[first] + q[second] * k[second]
    imag = q[second] * k[first] - q[first] * k[second]
    block = math.isqrt(n_positions - 1) + 1
    n_blocks = -(-n_positions // block)
    within = np.arange(block, dtype=np.float64)[:, None] * theta
    starts = (block * np.arange(n_blocks, dtype=np.float64))[:, None] * theta
    cos_within, sin_within = np.cos(within).T, np.sin(within).T
    cos_start, sin_start = np.cos(starts), np.sin(starts)
    cosines = (cos_start * real) @ cos_within - (sin_start * real) @ sin_within
    sines = (sin_start * imag) @ cos_within + (cos_start * imag) @ sin_within
    cosines, sines = cosines.reshape(-1)[:n_positions], sines.reshape(-1)[:n_positions]
    return np.concatenate([(cosines - sines)[:0:-1], cosines + sines])


def rope_scores(
    q, k, n_positions: int, base: float = DEFAULT_BASE, layout: str = "interleaved"
) -> np.ndarray:
    """S[m, n] = rope_score(q, k, m, n) for m, n = 0 … n_positions - 1, shape (n, n).

    S depends only on n - m (it is Toeplitz), so the 2 n_positions - 1 distinct values are
    computed once with rope_offset_scores (O(n d_model)) and laid out along the diagonals.
    """
    n_positions = check_n_positions(n_positions)
    last = n_positions - 1
    # curve[s] is the score at offset n - m = s - last.
    curve = rope_offset_scores(q, k, np.arange(-last, last + 1, dtype=np.float64), base, layout)
    # Row m is curve[last - m : last - m + n_positions].
    windows = np.lib.stride_tricks.sliding_window_view(curve, n_positions)
    return windows[::-1].copy()


def rope_decay(offsets, d_model: int, base: float = DEFAULT_BASE):
    """RoFormer's long-term-decay bound (section 3.4.3, Figure 2) at relative distance r.

        (1 / (d/2)) sum_{j=1}^{d/2} |S_j|,   S_j = sum_{l=0}^{j-1} exp(i r theta_l)

    It is (d/2 + 1) / 2 at r = 0 and trends down as |r| grows. ``offsets`` may be a number
    or an array; the result has its shape.
    """
    d_model = check_d_model(d_model)
    offsets = _check_offsets(offsets)
    theta = angular_frequencies(d_model, base)
    _check_cells("offsets", offsets.size, d_model // 2)
    partial_sums = np.cumsum(np.exp(1j * offsets[..., None] * theta), axis=-1)
    return _shaped(np.abs(partial_sums).mean(axis=-1))


# --- ALiBi ------------------------------------------------------------------------------


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The head slopes m_h of ALiBi, as get_slopes in Press et al.'s reference code.

    For H a power of two, m_h = 2 ** (-8h / H) for h = 1 … H (H = 8: 1/2, 1/4, … 1/256).
    Otherwise the slopes of the closest lower power of two c come first, then every other
    slope of 2c (its odd h) until there are H. This is the reference's geometric sequence
    start * ratio ** i written in closed form.
    """
    n_heads = check_heads(n_heads)
    closest = 1 << (n_heads.bit_length() - 1)
    heads = np.arange(1, closest + 1, dtype=np.float64)
    slopes = np.power(2.0, -8.0 * heads / closest)
    extra = np.arange(1, 2 * (n_heads - closest), 2, dtype=np.float64)
    return np.concatenate([slopes, np.power(2.0, -8.0 * extra / (2 * closest))])


def alibi_bias(n_positions: int, slope: float) -> np.ndarray:
    """The bias -slope * |i - j| added to the score of query i and key j, shape (n, n)."""
    n_positions = check_n_positions(n_positions)
    slope = check_slope(slope)
    positions = np.arange(n_positions, dtype=np.float64)
    return -slope * np.abs(positions[:, None] - positions[None, :])


def causal_mask(n_positions: int) -> np.ndarray:
    """True where query i may attend to key j, i.e. j <= i (a decoder's mask), shape (n, n)."""
    n_positions = check_n_positions(n_positions)
    return np.tril(np.ones((n_positions, n_positions), dtype=bool))


def alibi_offset_bias(offsets, slope: float):
    """The ALiBi bias -slope * |k| of a key k positions from the query; shape of offsets."""
    slope = check_slope(slope)
    return _shaped(-slope * np.abs(_check_offsets(offsets)))


# --- NoPE -------------------------------------------------------------------------------


def nope_scores(tokens, d_model: int) -> np.ndarray:
    """Scores E E^T / sqrt(d_model) of the tokens' stand-in embeddings, with no position at all.

    Each distinct token's row is computed once, in sorted order, and the matrix is read
    from their scores: two tokens get the same score bit for bit wherever they stand.
    """
    if (
        not isinstance(tokens, list | tuple)
        or not tokens
        or not all(isinstance(token, str) for token in tokens)
    ):
        raise ValueError(f"tokens must be a non-empty list of strings, got {tokens!r}")
    if len(tokens) > MAX_N_POSITIONS:
        raise ValueError(f"tokens must hold at most {MAX_N_POSITIONS} strings, got {len(tokens)}")
    d_model = check_d_model(d_model)
    distinct = sorted(set(tokens))
    embeddings = np.stack([encoding.token_embedding(token, d_model) for token in distinct])
    scores = embeddings @ embeddings.T / math.sqrt(d_model)
    index = {token: i for i, token in enumerate(distinct)}
    rows = np.array([index[token] for token in tokens])
    return scores[np.ix_(rows, rows)]


# --- Comparison -------------------------------------------------------------------------


def position_scores(
    method: str,
    offsets,
    d_model: int,
    base: float = DEFAULT_BASE,
    layout: str = "interleaved",
    slope: float | None = None,
    q=None,
):
    """The part of the score of a query and a key k positions later that comes from position.

    sinusoidal: D(k) = PE(pos) . PE(pos + k) = sum_i cos(k omega_i); rope: the RoPE score of
    q with itself k positions apart (q given); alibi: the bias -slope |k| (slope given);
    none: zeros. ``offsets`` may be a number or an array; the result has its shape.
    """
    method = check_method(method)
    d_model = check_d_model(d_model)
    base = check_base(base)
    layout = check_layout(layout)
    offsets = _check_offsets(offsets)
    if method == "sinusoidal":
        return encoding.offset_dot(offsets, d_model, base)
    if method == "rope":
        if q is None:
            raise ValueError("q must be given for method 'rope', got None")
        q = _check_vector("q", q)
        if q.size != d_model:
            raise ValueError(f"q must have d_model = {d_model} entries, got {q.size}")
        return rope_offset_scores(q, q, offsets, base, layout)
    if method == "alibi":
        if slope is None:
            raise ValueError("slope must be given for method 'alibi', got None")
        return alibi_offset_bias(offsets, slope)
    return _shaped(np.zeros(offsets.shape))

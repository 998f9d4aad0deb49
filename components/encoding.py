"""The sinusoidal positional encoding of "Attention Is All You Need", in plain NumPy.

    PE(pos, 2i)   = sin(pos * omega_i)        omega_i = base ** (-2i / d_model)
    PE(pos, 2i+1) = cos(pos * omega_i)        lambda_i = 2 * pi / omega_i

Every number the explorer shows comes from a function in this module. Arguments
are validated here, and a bad one raises ``ValueError`` naming the argument, the
rule and the value received, so the page can show that message as it is.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

DEFAULT_BASE = 10000.0
BASE_RANGE = (10.0, 1_000_000.0)  # the explorer's base control
MAX_D_MODEL = 2048
MAX_N_POSITIONS = 2048
# Upper bound on any position index: pos * omega stays exact to ~1e-9 rad in float64.
MAX_POSITION = 10_000_000
# Upper bound on rows x columns of one encode_positions call (128 MiB of float64).
MAX_ENCODE_CELLS = 1 << 24
LAYOUTS = ("interleaved", "concatenated")


@dataclass(frozen=True)
class Comparison:
    """How two encoding vectors relate: dot product, cosine similarity, Euclidean distance."""

    dot: float
    cosine: float
    distance: float


def check_d_model(d_model: object) -> int:
    """Return d_model as an int, or raise ValueError if it is not an even integer in range."""
    if isinstance(d_model, bool) or not isinstance(d_model, Integral):
        raise ValueError(
            f"d_model must be an even integer between 2 and {MAX_D_MODEL}, got {d_model!r}"
        )
    d_model = int(d_model)
    if d_model < 2 or d_model > MAX_D_MODEL or d_model % 2:
        raise ValueError(
            f"d_model must be an even integer between 2 and {MAX_D_MODEL}, got {d_model}"
        )
    return d_model


def check_base(base: object) -> float:
    """Return base as a float, or raise ValueError unless it is finite and greater than 1."""
    if isinstance(base, bool) or not isinstance(base, Real) or not math.isfinite(base):
        raise ValueError(f"base must be a finite number greater than 1, got {base!r}")
    if base <= 1:
        raise ValueError(f"base must be a finite number greater than 1, got {base!r}")
    return float(base)


def check_n_positions(n_positions: object) -> int:
    """Return n_positions as an int, or raise ValueError unless it is in 1 … MAX_N_POSITIONS."""
    if isinstance(n_positions, bool) or not isinstance(n_positions, Integral):
        raise ValueError(
            f"n_positions must be an integer between 1 and {MAX_N_POSITIONS}, got {n_positions!r}"
        )
    if not 1 <= n_positions <= MAX_N_POSITIONS:
        raise ValueError(
            f"n_positions must be an integer between 1 and {MAX_N_POSITIONS}, got {n_positions}"
        )
    return int(n_positions)


def check_layout(layout: object) -> str:
    """Return layout, or raise ValueError unless it is 'interleaved' or 'concatenated'."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    return str(layout)


def number_array(value: object) -> np.ndarray | None:
    """value as a float64 array, or None when it is not numbers (the checks then say why)."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def check_positions(positions: object) -> np.ndarray:
    """Return positions as a 1-D float64 array, or raise ValueError for bad values."""
    array = number_array(positions)
    if array is None:
        raise ValueError(
            f"positions must be numbers between 0 and {MAX_POSITION}, got {positions!r}"
        )
    array = np.atleast_1d(array)
    if array.ndim != 1:
        raise ValueError(f"positions must be a 1-D sequence, got an array of shape {array.shape}")
    bad = ~np.isfinite(array) | (array < 0) | (array > MAX_POSITION)
    if bad.any():
        raise ValueError(
            f"positions must be numbers between 0 and {MAX_POSITION}, got {array[bad][0]!r}"
        )
    return array


def angular_frequencies(d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """omega_i = base ** (-2i / d_model) for the pairs i = 0 … d_model/2 - 1."""
    d_model = check_d_model(d_model)
    base = check_base(base)
    return np.power(base, -np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def wavelengths(d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """lambda_i = 2 * pi / omega_i = 2 * pi * base ** (2i / d_model), in positions."""
    return 2.0 * np.pi / angular_frequencies(d_model, base)


def pair_columns(d_model: int, layout: str = "interleaved", pair=None):
    """The columns (sin, cos) of pair i: (2i, 2i + 1) interleaved, (i, i + d_model/2) concatenated.

    ``pair`` is an index or an array of indices; None gives every pair in order, as slices
    (they index a matrix without copying it).
    """
    half = check_d_model(d_model) // 2
    if check_layout(layout) == "interleaved":
        if pair is None:
            return slice(0, None, 2), slice(1, None, 2)
        return 2 * pair, 2 * pair + 1
    if pair is None:
        return slice(0, half), slice(half, None)
    return pair, pair + half


def column_roles(d_model: int, layout: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """For each column: the pair i it belongs to, and whether it holds the sine (True)."""
    pairs = np.arange(check_d_model(d_model) // 2)
    sin_cols, cos_cols = pair_columns(d_model, layout, pairs)
    pair_of = np.empty(d_model, dtype=np.int64)
    is_sine = np.zeros(d_model, dtype=bool)
    pair_of[sin_cols] = pair_of[cos_cols] = pairs
    is_sine[sin_cols] = True
    return pair_of, is_sine


def _lay_out(angles: np.ndarray, layout: str, dtype: np.dtype) -> np.ndarray:
    """sin(angles) and cos(angles) as encoding columns in the given layout."""
    rows, pairs = angles.shape
    encoding = np.empty((rows, 2 * pairs), dtype=dtype)
    sin_cols, cos_cols = pair_columns(2 * pairs, layout)
    encoding[:, sin_cols] = np.sin(angles)
    encoding[:, cos_cols] = np.cos(angles)
    return encoding


def encode_positions(
    positions,
    d_model: int,
    base: float = DEFAULT_BASE,
    layout: str = "interleaved",
    dtype=np.float64,
) -> np.ndarray:
    """Encoding rows for arbitrary positions (integers or not), shape (len(positions), d_model)."""
    positions = check_positions(positions)
    d_model = check_d_model(d_model)
    layout = check_layout(layout)
    if positions.size * d_model > MAX_ENCODE_CELLS:
        raise ValueError(
            f"positions times d_model must be at most {MAX_ENCODE_CELLS} cells, "
            f"got {positions.size} x {d_model}"
        )
    angles = positions[:, None] * angular_frequencies(d_model, base)[None, :]
    return _lay_out(angles, layout, np.dtype(dtype))


def positional_encoding(
    n_positions: int,
    d_model: int,
    base: float = DEFAULT_BASE,
    dtype=np.float64,
    layout: str = "interleaved",
) -> np.ndarray:
    """The PE matrix for positions 0 … n_positions-1, shape (n_positions, d_model).

    With ``layout="interleaved"`` (the paper, the PyTorch tutorial) column 2i is
    sin(pos * omega_i) and column 2i+1 is cos(pos * omega_i); with
    ``layout="concatenated"`` (tensor2tensor, the TensorFlow tutorial) the first
    d_model/2 columns are the sines and the last d_model/2 the cosines.
    """
    n_positions = check_n_positions(n_positions)
    return encode_positions(np.arange(n_positions), d_model, base, layout=layout, dtype=dtype)


def rotation_blocks(offset: float, d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """The 2x2 blocks R_i(k) = [[cos k.omega_i, sin k.omega_i], [-sin k.omega_i, cos k.omega_i]].

    Each block maps (sin(pos.omega_i), cos(pos.omega_i)) to the same pair at pos + k,
    whatever pos is. Shape (d_model/2, 2, 2).
    """
    if isinstance(offset, bool) or not isinstance(offset, Real) or not math.isfinite(offset):
        raise ValueError(f"offset must be a finite number, got {offset!r}")
    if abs(offset) > MAX_POSITION:
        raise ValueError(f"offset must be between -{MAX_POSITION} and {MAX_POSITION}, got {offset}")
    angle = float(offset) * angular_frequencies(d_model, base)
    cos, sin = np.cos(angle), np.sin(angle)
    return np.stack([np.stack([cos, sin], axis=-1), np.stack([-sin, cos], axis=-1)], axis=-2)


def rotation_matrix(
    offset: float, d_model: int, base: float = DEFAULT_BASE, layout: str = "interleaved"
) -> np.ndarray:
    """The block-diagonal matrix R(k) with PE(pos + k) = R(k) @ PE(pos) for every pos."""
    blocks = rotation_blocks(offset, d_model, base)
    matrix = np.zeros((d_model, d_model))
    sin_col, cos_col = pair_columns(d_model, layout, np.arange(d_model // 2))
    matrix[sin_col, sin_col] = blocks[:, 0, 0]
    matrix[sin_col, cos_col] = blocks[:, 0, 1]
    matrix[cos_col, sin_col] = blocks[:, 1, 0]
    matrix[cos_col, cos_col] = blocks[:, 1, 1]
    return matrix


def compare(u, v) -> Comparison:
    """Dot product, cosine similarity and Euclidean distance of two vectors of equal length."""
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if u.ndim != 1 or u.shape != v.shape or u.size == 0:
        raise ValueError(
            f"u and v must be non-empty 1-D vectors of the same length, got shapes {u.shape} "
            f"and {v.shape}"
        )
    if not (np.isfinite(u).all() and np.isfinite(v).all()):
        raise ValueError("u and v must contain only finite numbers")
    norms = float(np.linalg.norm(u)) * float(np.linalg.norm(v))
    if norms == 0.0:
        raise ValueError("u and v must both be non-zero to have a cosine similarity")
    dot = float(u @ v)
    return Comparison(dot=dot, cosine=dot / norms, distance=float(np.linalg.norm(u - v)))


def offset_dot(offset, d_model: int, base: float = DEFAULT_BASE):
    """D(k) = sum_i cos(k * omega_i): the dot product of any two encodings k positions apart.

    ``offset`` may be a number or an array of offsets; the result has its shape.
    """
    offsets = np.asarray(offset, dtype=np.float64)
    if not np.isfinite(offsets).all() or (np.abs(offsets) > MAX_POSITION).any():
        raise ValueError(
            f"offset must be finite and between -{MAX_POSITION} and {MAX_POSITION}, got {offset!r}"
        )
    omega = angular_frequencies(d_model, base)
    if offsets.size * omega.size > MAX_ENCODE_CELLS:
        raise ValueError(
            f"offsets times d_model/2 must be at most {MAX_ENCODE_CELLS}, "
            f"got {offsets.size} x {omega.size}"
        )
    dots = np.cos(offsets[..., None] * omega).sum(axis=-1)
    return float(dots) if dots.ndim == 0 else dots


def offset_cosine(offset, d_model: int, base: float = DEFAULT_BASE):
    """Cosine similarity of two encodings k apart: 2 D(k) / d_model (every row has norm^2 d/2)."""
    return 2.0 * offset_dot(offset, d_model, base) / d_model


def offset_distance(offset, d_model: int, base: float = DEFAULT_BASE):
    """Euclidean distance of two encodings k apart: sqrt(d_model - 2 D(k))."""
    squared = d_model - 2.0 * np.asarray(offset_dot(offset, d_model, base))
    # Rounding can push d - 2D a hair below zero when k = 0.
    distance = np.sqrt(np.maximum(squared, 0.0))
    return float(distance) if distance.ndim == 0 else distance


def offset_comparison(offset: float, d_model: int, base: float = DEFAULT_BASE) -> Comparison:
    """The (dot, cosine, distance) of any two encodings k apart, from k alone."""
    return Comparison(
        dot=offset_dot(offset, d_model, base),
        cosine=offset_cosine(offset, d_model, base),
        distance=offset_distance(offset, d_model, base),
    )


# How far the nearest-position search looks by default, and at most (positions).
NEAREST_HORIZON = 10_000
MAX_HORIZON = 100_000


def check_pair(pair: object, d_model: int) -> int:
    """Return pair as an int, or raise ValueError unless it is in 0 … d_model/2 - 1."""
    return check_integer("pair", pair, 0, check_d_model(d_model) // 2 - 1)


def check_integer(name: str, value: object, low: int, high: int) -> int:
    """Return value as an int, or raise ValueError naming it unless it is in low … high."""
    if isinstance(value, bool) or not isinstance(value, Integral) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer between {low} and {high}, got {value!r}")
    return int(value)


def offset_dots(n_offsets: int, d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """D(k) = sum_i cos(k * omega_i) for k = 0 … n_offsets - 1, in O(sqrt(n_offsets)) memory.

    Writing k = k0 + j with k0 a multiple of a block length b and 0 <= j < b, the angle
    addition cos((k0 + j) w) = cos(k0 w) cos(j w) - sin(k0 w) sin(j w) turns the sum into
    two (n/b x pairs) @ (pairs x b) matrix products: about 2 sqrt(n) x pairs cosines
    instead of n x pairs, which keeps a 10 000-offset curve fast in the browser too.
    """
    n_offsets = check_integer("n_offsets", n_offsets, 1, MAX_HORIZON)
    omega = angular_frequencies(d_model, base)
    block = math.isqrt(n_offsets - 1) + 1
    n_blocks = -(-n_offsets // block)
    within = np.arange(block, dtype=np.float64)[:, None] * omega
    starts = (block * np.arange(n_blocks, dtype=np.float64))[:, None] * omega
    dots = np.cos(starts) @ np.cos(within).T - np.sin(starts) @ np.sin(within).T
    return dots.reshape(-1)[:n_offsets]


def offset_distances(n_offsets: int, d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """Distances sqrt(d_model - 2 D(k)) of encodings k apart, for k = 0 … n_offsets - 1."""
    squared = check_d_model(d_model) - 2.0 * offset_dots(n_offsets, d_model, base)
    return np.sqrt(np.maximum(squared, 0.0))


def smallest_separation(
    n_positions: int, d_model: int, base: float = DEFAULT_BASE
) -> tuple[int, float] | None:
    """(k, distance) of the closest two of positions 0 … n_positions - 1; None for one position.

    The distance of PE(i) and PE(j) depends only on |i - j|, so the minimum over all
    pairs is the minimum of the distance over the offsets k = 1 … n_positions - 1.
    """
    n_positions = check_n_positions(n_positions)
    if n_positions < 2:
        return None
    distances = offset_distances(n_positions, d_model, base)[1:]
    nearest = int(np.argmin(distances))
    return nearest + 1, float(distances[nearest])


def position_distances(pos: int, offset_curve: np.ndarray) -> np.ndarray:
    """Distance from PE(pos) to PE(q) for q = 0 … len(offset_curve) - 1.

    ``offset_curve`` is ``offset_distances(horizon, d_model, base)``: the distance of
    PE(pos) and PE(q) is the curve at |q - pos|, so no encoding is computed here.
    """
    curve = np.asarray(offset_curve, dtype=np.float64)
    pos = check_integer("pos", pos, 0, curve.size - 1)
    return curve[np.abs(np.arange(curve.size) - pos)]


def nearest_position(
    pos: int,
    d_model: int,
    base: float = DEFAULT_BASE,
    horizon: int = NEAREST_HORIZON,
    offset_curve: np.ndarray | None = None,
) -> tuple[int, float]:
    """(q, distance) of the position q != pos in 0 … horizon - 1 whose encoding is nearest PE(pos).

    Pass ``offset_curve = offset_distances(horizon, d_model, base)`` to reuse one already
    computed; it is computed otherwise (time and memory bounded by the chunked sum).
    """
    horizon = check_integer("horizon", horizon, 2, MAX_HORIZON)
    if offset_curve is None:
        offset_curve = offset_distances(horizon, d_model, base)
    elif len(offset_curve) != horizon:
        raise ValueError(
            f"offset_curve must hold horizon = {horizon} distances, got {len(offset_curve)}"
        )
    pos = check_integer("pos", pos, 0, horizon - 1)
    nearest, distance = nearest_positions(np.array([pos]), offset_curve)
    return int(nearest[0]), float(distance[0])


def nearest_positions(positions, offset_curve: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """nearest_position for each pos of positions (in 0 … len(offset_curve) - 1), at once.

    The q nearest pos is pos - j or pos + j for the j ≥ 1 of smallest curve[j] on either side:
    running minima of the curve give both sides for every pos. Ties go to the smallest q, as
    argmin over the distances from pos gives it: the left side, its largest j; the right side,
    its smallest j.
    """
    curve = np.asarray(offset_curve, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.int64)
    steps = np.arange(1, curve.size)
    lowest = np.minimum.accumulate(curve[1:])
    before = np.concatenate([[np.inf], lowest[:-1]])
    # The largest and the smallest j ≤ j' at which curve[j] is the minimum of curve[1 … j'].
    last = np.maximum.accumulate(np.where(curve[1:] <= before, steps, 0))
    first = np.maximum.accumulate(np.where(curve[1:] < before, steps, 0))
    left, right = np.maximum(positions - 1, 0), np.maximum(curve.size - 2 - positions, 0)
    left_distance = np.where(positions >= 1, lowest[left], np.inf)
    right_distance = np.where(positions <= curve.size - 2, lowest[right], np.inf)
    to_left = left_distance <= right_distance
    nearest = np.where(to_left, positions - last[left], positions + first[right])
    return nearest, np.where(to_left, left_distance, right_distance)


def mean_distances(positions, offset_curve: np.ndarray) -> np.ndarray:
    """The mean distance from PE(pos) to PE(q) over q = 0 … len(offset_curve) - 1, for each pos,
    from one running sum of the curve for every pos: its sum up to pos (q = pos … 0) and up to
    the last q less pos (q = pos … the last); curve[0], q = pos's own, is in both and taken out
    once."""
    curve = np.asarray(offset_curve, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.int64)
    total = np.cumsum(curve)
    return (total[positions] + (total[curve.size - 1 - positions] - curve[0])) / curve.size


def rotate(encodings, offset: float, base: float = DEFAULT_BASE, layout: str = "interleaved"):
    """R(k) @ v for each encoding row v, pair by pair (no d_model x d_model matrix is built)."""
    vectors = np.asarray(encodings, dtype=np.float64)
    if vectors.ndim not in (1, 2):
        raise ValueError(f"encodings must be a vector or a 2-D array, got shape {vectors.shape}")
    blocks = rotation_blocks(offset, check_d_model(vectors.shape[-1]), base)
    return turn_pairs(vectors, blocks[:, 0, 0], blocks[:, 0, 1], layout)


def turn_pairs(vectors: np.ndarray, cos, sin, layout: str = "interleaved") -> np.ndarray:
    """Each pair (s, c) of each row of vectors turned as R_i turns it: (cos·s + sin·c,
    −sin·s + cos·c). cos and sin hold one number per pair, or (2-D vectors) one per row and
    pair: rows turned by different angles, as the rotation view's picks turn theirs."""
    sin_cols, cos_cols = pair_columns(vectors.shape[-1], layout)
    sines, cosines = vectors[..., sin_cols], vectors[..., cos_cols]
    rotated = np.empty_like(vectors)
    rotated[..., sin_cols] = cos * sines + sin * cosines
    rotated[..., cos_cols] = -sin * sines + cos * cosines
    return rotated


def measured_rotation_block(
    first: int,
    second: int,
    pair: int,
    d_model: int,
    base: float = DEFAULT_BASE,
    layout: str = "interleaved",
) -> np.ndarray:
    """The 2x2 rotation taking pair i of PE(first) to pair i of PE(second), read off the encodings.

    With u = (sin a, cos a) and v = (sin b, cos b): cos(b - a) = u . v and
    sin(b - a) = u_1 v_0 - u_0 v_1. It equals rotation_blocks(second - first)[i] for every first.
    """
    pair = check_pair(pair, d_model)
    rows = encode_positions([first, second], d_model, base, layout=layout)
    (u_sin, u_cos), (v_sin, v_cos) = rows[:, list(pair_columns(d_model, layout, pair))]
    cos, sin = turn_between(u_sin, u_cos, v_sin, v_cos)
    return np.array([[float(cos), float(sin)], [-float(sin), float(cos)]])


def turn_between(first_sin, first_cos, second_sin, second_cos):
    """cos and sin of the turn from the point (sin a, cos a) to (sin b, cos b) of the unit
    circle: u·v and u_1 v_0 − u_0 v_1, element by element (numbers, or arrays of points)."""
    return first_sin * second_sin + first_cos * second_cos, (
        first_cos * second_sin - first_sin * second_cos
    )


def gram_matrix(encodings, similarity: str = "dot") -> np.ndarray:
    """Dot products PE(i) . PE(j) of the rows (similarity="dot"), or their cosine similarities."""
    rows = np.asarray(encodings, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError(f"encodings must be a 2-D array, got shape {rows.shape}")
    if similarity not in ("dot", "cosine"):
        raise ValueError(f"similarity must be one of dot, cosine, got {similarity!r}")
    gram = rows @ rows.T
    return cosine_similarities(gram) if similarity == "cosine" else gram


def cosine_similarities(gram: np.ndarray) -> np.ndarray:
    """Cosine similarities from a Gram matrix of dot products: G_ij / sqrt(G_ii G_jj)."""
    norms = np.sqrt(np.diagonal(gram))
    return gram / np.outer(norms, norms)


def diagonal_products(encodings, offset: int) -> np.ndarray:
    """PE(i) . PE(i + k) for every i with both rows in encodings: diagonal k of the Gram matrix."""
    rows = np.asarray(encodings, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError(f"encodings must be a 2-D array, got shape {rows.shape}")
    last = rows.shape[0] - 1
    offset = check_integer("offset", offset, -last, last)
    start = max(0, -offset)
    stop = rows.shape[0] - max(0, offset)
    return np.einsum("ij,ij->i", rows[start:stop], rows[start + offset : stop + offset])


def token_embedding(token: str, d_model: int) -> np.ndarray:
    """A stand-in for a learned embedding: N(0, 1/d_model) numbers seeded by the token's text.

    The same token gets the same vector wherever it stands, on every machine: the seed is
    the first 8 bytes of the SHA-256 of its UTF-8 text.
    """
    if not isinstance(token, str):
        raise ValueError(f"token must be a string, got {token!r}")
    d_model = check_d_model(d_model)
    digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return rng.normal(0.0, 1.0 / math.sqrt(d_model), d_model)


def reference_div_term(d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """ω_i as the PyTorch tutorial's code computes it: div_term = exp(2i · (−ln base / d_model)),
    equal to base^(−2i/d_model) up to rounding."""
    d_model = check_d_model(d_model)
    base = check_base(base)
    return np.exp(np.arange(0, d_model, 2) * (-math.log(base) / d_model))

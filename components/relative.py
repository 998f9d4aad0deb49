"""Relative positions: T5's buckets, Shaw et al.'s clipped distances, Transformer-XL's score.

    T5 (Raffel et al. 2020)       one learned scalar bias per bucket of relative position
                                  key - query: exact buckets for short distances, log-spaced
                                  ones up to max_distance, one bucket beyond
    Shaw et al. 2018              learned vectors a_{j-i} for j - i clipped to [-k, k]: 2k + 1
    Transformer-XL (Dai et al.)   score(i, j) = q_i.W_k x_j + q_i.W_R R_{i-j} + u.W_k x_j
                                  + v.W_R R_{i-j}, with R the sinusoid of the offset i - j

T5's function follows `transformers`' `T5Attention._relative_position_bucket` (itself Mesh
TensorFlow's), including its float32 logarithm and truncation toward zero, so that every bucket
is the one the models were trained with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .encoding import DEFAULT_BASE, check_d_model, check_integer, encode_positions

MAX_BUCKETS = 1024
MAX_DISTANCE = 1 << 20
MAX_CLIP = 4096
MAX_OFFSET = 1 << 30


def check_offsets(offsets: object) -> np.ndarray:
    """Relative positions as an int64 array (any shape), or ValueError unless whole numbers."""
    try:
        array = np.asarray(offsets, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"relative positions must be integers, got {offsets!r:.80}") from None
    if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        raise ValueError(f"relative positions must be integers, got {offsets!r:.80}")
    if np.any(np.abs(array) > MAX_OFFSET):
        raise ValueError(f"relative positions must be within ±{MAX_OFFSET}")
    return array.astype(np.int64)


def t5_relative_bucket(
    relative_position: object,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """T5's bucket of each relative position (key - query), as `_relative_position_bucket`.

    Bidirectional: half the buckets for keys before the query, half (offset by num_buckets/2)
    for keys after it. Causal: only keys at or before the query, all buckets for them. Of each
    half, the first max_exact = n/2 distances have a bucket each; the rest share log-spaced
    buckets up to max_distance, and every distance beyond falls in the last one.
    """
    relative_position = check_offsets(relative_position)
    if not isinstance(bidirectional, bool):
        raise ValueError(f"bidirectional must be true or false, got {bidirectional!r}")
    num_buckets = check_integer("num_buckets", num_buckets, 4 if bidirectional else 2, MAX_BUCKETS)
    if bidirectional and num_buckets % 2:
        raise ValueError(f"num_buckets must be even when bidirectional, got {num_buckets}")
    buckets = np.zeros(relative_position.shape, dtype=np.int64)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).astype(np.int64) * num_buckets
        distance = np.abs(relative_position)
    else:
        distance = -np.minimum(relative_position, 0)
    max_exact = num_buckets // 2
    max_distance = check_integer("max_distance", max_distance, max_exact + 1, MAX_DISTANCE)
    # float32 and truncation toward zero, as the reference (torch's .float() and .to(long)).
    with np.errstate(divide="ignore"):
        scaled = np.log(distance.astype(np.float32) / np.float32(max_exact))
    scaled = scaled / np.float32(math.log(max_distance / max_exact))
    scaled = scaled * np.float32(num_buckets - max_exact)
    large = max_exact + np.where(distance < max_exact, 0, scaled).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return buckets + np.where(distance < max_exact, distance, large)


@dataclass(frozen=True)
class BucketRun:
    """Distances that share one bucket: first … last (last is None: every distance beyond)."""

    bucket: int
    first: int
    last: int | None


def t5_bucket_runs(
    bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128, side: int = -1
) -> list[BucketRun]:
    """The buckets of keys on one side of the query (-1: before it, +1: after), each with the
    distances it holds, in order of distance."""
    if side not in (-1, 1):
        raise ValueError(f"side must be -1 (keys before the query) or 1, got {side!r}")
    limit = 2 * max_distance + 2
    distances = np.arange(0, limit)
    buckets = t5_relative_bucket(side * distances, bidirectional, num_buckets, max_distance)
    runs: list[BucketRun] = []
    start = 0
    for index in range(1, limit + 1):
        if index == limit or buckets[index] != buckets[start]:
            last = None if index == limit else int(distances[index - 1])
            runs.append(BucketRun(int(buckets[start]), int(distances[start]), last))
            start = index
    return runs


def shaw_clipped_offsets(n_positions: int, clip: int) -> np.ndarray:
    """Shaw et al.'s index of the learned vector each (query i, key j) uses: clip(j - i, -k, k)
    + k, in 0 … 2k."""
    n_positions = check_integer("n_positions", n_positions, 1, 4096)
    clip = check_integer("clip distance k", clip, 0, MAX_CLIP)
    offsets = np.arange(n_positions)[None, :] - np.arange(n_positions)[:, None]
    return np.clip(offsets, -clip, clip) + clip


def shaw_table(clip: int, d_head: int, seed: int) -> np.ndarray:
    """The 2k + 1 learned vectors a_{-k} … a_k, drawn at random (seeded) as if learned."""
    clip = check_integer("clip distance k", clip, 0, MAX_CLIP)
    d_head = check_d_model(d_head)
    seed = check_integer("seed", seed, 0, 2**31 - 1)
    return np.random.default_rng(seed).standard_normal((2 * clip + 1, d_head)) / math.sqrt(d_head)


@dataclass(frozen=True)
class XLTerms:
    """Transformer-XL's relative score for one query against keys at each offset i - j."""

    offsets: np.ndarray
    content: np.ndarray  # (a) q . W_k x_j: the same for every offset of one key
    content_position: np.ndarray  # (b) q . W_R R_{i-j}
    content_bias: np.ndarray  # (c) u . W_k x_j: a global bias on the key's content
    position_bias: np.ndarray  # (d) v . W_R R_{i-j}: a global bias on the distance alone

    @property
    def total(self) -> np.ndarray:
        return self.content + self.content_position + self.content_bias + self.position_bias


def transformer_xl_terms(
    offsets: object, d_model: int, seed: int, base: float = DEFAULT_BASE
) -> XLTerms:
    """The four terms for one query (seeded random q, u, v, W_R and one key x) over offsets
    i - j >= 0, with R the sinusoid in the concatenated layout (sin then cos), as in the paper's
    code."""
    offsets = check_offsets(offsets).ravel()
    if np.any(offsets < 0):
        raise ValueError("Transformer-XL attends to earlier positions: offsets i - j must be >= 0")
    d_model = check_d_model(d_model)
    seed = check_integer("seed", seed, 0, 2**31 - 1)
    rng = np.random.default_rng(seed)
    query, key, u, v = (rng.standard_normal(d_model) / math.sqrt(d_model) for _ in range(4))
    w_r = rng.standard_normal((d_model, d_model)) / math.sqrt(d_model)
    sinusoid = encode_positions(offsets.astype(np.float64), d_model, base, "concatenated")
    projected = sinusoid @ w_r.T
    ones = np.ones(offsets.shape)
    return XLTerms(
        offsets=offsets,
        content=ones * float(query @ key),
        content_position=projected @ query,
        content_bias=ones * float(u @ key),
        position_bias=projected @ v,
    )


def t5_side_buckets(num_buckets: int, bidirectional: bool) -> int:
    """T5's buckets for the keys on one side of the query: half of them bidirectional, all of
    them causal (every key after the query then shares bucket 0)."""
    return num_buckets // 2 if bidirectional else num_buckets


def t5_max_exact(num_buckets: int, bidirectional: bool) -> int:
    """Distances 0 … max_exact − 1 have a bucket each on each side: half of a side's buckets."""
    return t5_side_buckets(num_buckets, bidirectional) // 2


def t5_problem(num_buckets: int, max_distance: int, bidirectional: bool) -> str:
    """Why T5's buckets are undefined for these settings ("" when they are defined)."""
    max_exact = t5_max_exact(num_buckets, bidirectional)
    if max_distance <= max_exact:
        kind = "bidirectional" if bidirectional else "causal"
        return (
            f"with {num_buckets} buckets ({kind}) the first {max_exact} distances have a bucket "
            f"each, so max_distance must be at least {max_exact + 1}, not {max_distance}; raise "
            "max_distance or lower the number of buckets"
        )
    try:
        t5_relative_bucket(0, bidirectional, num_buckets, max_distance)
    except ValueError as error:
        return str(error)
    return ""


def run_holding(runs: list[BucketRun] | tuple[BucketRun, ...], distance: int) -> BucketRun:
    """The run of runs (t5_bucket_runs, in order of distance) that holds distance."""
    return next(r for r in runs if r.first <= distance and (r.last is None or distance <= r.last))


def shaw_vector(offset, clip: int):
    """c = clip(j − i, −K, K): the vector a_c Shaw et al.'s pair k = j − i apart uses (an int,
    or an array of them for an array of offsets)."""
    vector = np.clip(offset, -clip, clip)
    return int(vector) if np.ndim(vector) == 0 else vector


def shaw_sharing_pairs(vector: int, clip: int, n_positions: int) -> int:
    """How many pairs (query i, key j) of n positions use a_vector: those with
    clip(j − i, −K, K) = vector."""
    distance = abs(vector)
    if distance > min(clip, n_positions - 1):
        return 0
    if clip == 0:
        return n_positions * n_positions
    if distance < clip:
        return n_positions - distance
    # Every distance K … n − 1 on that side: n − K + … + 1 pairs.
    return (n_positions - clip) * (n_positions - clip + 1) // 2


def shaw_distance_span(vector: int, clip: int, n_positions: int) -> tuple[int, int] | None:
    """The distances j − i of n positions that use a_vector, lowest and highest (None: none)."""
    last = n_positions - 1
    if abs(vector) > min(clip, last):
        return None
    if abs(vector) < clip:
        return vector, vector
    return (clip, last) if vector > 0 else (-last, -clip)


def shaw_used_vectors(clip: int, n_positions: int) -> int:
    """How many of the 2K + 1 vectors some pair of n positions uses: min(2K + 1, 2n − 1)."""
    return min(2 * clip + 1, 2 * n_positions - 1)

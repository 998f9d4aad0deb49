"""Low precision, emulated in NumPy bit for bit: bfloat16 and float16 rounding (to nearest, ties
to even), and the three places a RoPE computed in them loses its angles.

    product    position × inv_freq computed in the low format (both rounded, the product too):
               transformers before PR #29285 under bf16 autocast, gpt-neox #1003 in fp16
    positions  the positions held in the low format, the rest exact: a bf16 holds every integer
               up to 256 only, then one in 2, 4 … (512 apart at 65 536)
    cache      cos and sin computed exactly, then cached in the low format

Every angle is compared with the exact one, pos × inv_freq in float64.
"""

from __future__ import annotations

import numpy as np

from .scores import scores_from_angles, scores_from_cos_sin, worst_per_column, wrapped

FORMATS = ("bf16", "fp16")
PLACES = ("product", "positions", "cache")
# The significand bits each format stores after the leading one.
FRACTION_BITS = {"bf16": 7, "fp16": 10, "fp32": 23}
QUIET_NAN_BF16 = np.uint32(0x7FC00000)  # what torch (c10::BFloat16) makes of any NaN


def bfloat16_bits(values) -> np.ndarray:
    """The bfloat16 bit patterns (uint16) of values, rounded from float32 to nearest, ties to
    even: the upper 16 bits of the float32 after adding 0x7FFF plus the kept part's lowest bit.
    A carry past the largest finite value gives infinity; every NaN becomes 0x7FC0."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    rounded = np.where(nan, QUIET_NAN_BF16, rounded)
    return (rounded >> np.uint32(16)).astype(np.uint16)


def to_bfloat16(values) -> np.ndarray:
    """Values rounded to bfloat16 (via float32, as torch's .to(torch.bfloat16)), held in float32."""
    return (bfloat16_bits(values).astype(np.uint32) << np.uint32(16)).view(np.float32)


def to_float16(values) -> np.ndarray:
    """Values rounded to float16 (via float32; overflow to ±inf), held in float32."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float32).astype(np.float16).astype(np.float32)


def round_to(fmt: str, values) -> np.ndarray:
    """Values rounded to the format ("bf16", "fp16" or "fp32"), held in float32."""
    if fmt == "bf16":
        return to_bfloat16(values)
    if fmt == "fp16":
        return to_float16(values)
    if fmt == "fp32":
        return np.asarray(values, dtype=np.float32)
    raise ValueError(f"precision must be one of bf16, fp16, fp32, got {fmt!r}")


def multiply(fmt: str, a, b) -> np.ndarray:
    """a × b as the format's arithmetic does it: each rounded, the product rounded once (exact
    in float32 first: two 8- or 11-bit significands multiply into at most 22 bits)."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf × 0 is NaN, as in torch
        return round_to(fmt, round_to(fmt, a) * round_to(fmt, b))


def spacing(fmt: str, value: float) -> float:
    """The gap between neighbouring numbers of the format at |value| (normal numbers):
    2 ** (floor(log2 |value|) - fraction bits). A bf16 at 65 536: 2 ** (16 - 7) = 512."""
    exponent = np.floor(np.log2(abs(float(value))))
    return float(2.0 ** (exponent - FRACTION_BITS[fmt]))


def exact_angles(positions, inv_freq) -> np.ndarray:
    """pos × inv_freq in float64: (positions, pairs)."""
    return np.outer(np.asarray(positions, dtype=np.float64), inv_freq)


def mistaken_angles(positions, inv_freq, fmt: str, place: str) -> np.ndarray:
    """The angles a RoPE in the format turns each position's pairs by: (positions, pairs),
    float64, ±inf or NaN where the format overflows (fp16 above 65 504)."""
    positions = np.asarray(positions, dtype=np.float64)
    if place == "product":
        stored = np.asarray(inv_freq, dtype=np.float32)  # the buffer, as a model holds it
        return multiply(fmt, positions[:, None], stored[None, :]).astype(np.float64)
    if place == "positions":
        return np.outer(round_to(fmt, positions).astype(np.float64), inv_freq)
    if place == "cache":
        cos, sin = cached_cos_sin(positions, inv_freq, fmt)
        return np.arctan2(sin, cos)
    raise ValueError(f"place must be one of {', '.join(PLACES)}, got {place!r}")


def cached_cos_sin(positions, inv_freq, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of the exact angles, rounded to the format (as a cache in it holds them)."""
    angles = exact_angles(positions, inv_freq)
    return (round_to(fmt, np.cos(angles)).astype(np.float64),
            round_to(fmt, np.sin(angles)).astype(np.float64))  # fmt: skip


def angle_errors(positions, inv_freq, fmt: str, place: str) -> np.ndarray:
    """The mistaken angle minus the exact one, in (-π, π] radians: (positions, pairs); NaN where
    the format overflowed."""
    with np.errstate(invalid="ignore"):
        difference = mistaken_angles(positions, inv_freq, fmt, place) - exact_angles(
            positions, inv_freq
        )
    return wrapped(difference)


def low_precision_scores(q, k, inv_freq, at: int, distances, fmt: str, place: str):
    """q·k of the random unit (q, k) pairs, the query at position `at`, the key at at - Δ, each
    turned exactly and as the format turns them: (right, wrong, worst error per Δ)."""
    distances = np.asarray(distances, dtype=np.float64)
    query = np.full(distances.shape, float(at))
    keys = query - distances
    right = scores_from_angles(q, k, exact_angles(query, inv_freq), exact_angles(keys, inv_freq))
    with np.errstate(invalid="ignore"):
        if place == "cache":
            wrong = scores_from_cos_sin(q, k, *cached_cos_sin(query, inv_freq, fmt),
                                        *cached_cos_sin(keys, inv_freq, fmt))  # fmt: skip
        else:
            wrong = scores_from_angles(q, k, mistaken_angles(query, inv_freq, fmt, place),
                                       mistaken_angles(keys, inv_freq, fmt, place))  # fmt: skip
    return right, wrong, worst_per_column(wrong - right)

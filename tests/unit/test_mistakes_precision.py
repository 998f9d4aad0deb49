"""bfloat16 and float16 emulated in NumPy, bit for bit against torch's own arithmetic on the same
inputs, and the angles RoPE loses in them against closed forms and published numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pe_explorer.mistakes import precision
from pe_explorer.mistakes.scores import unit_pairs

FLOAT32 = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)
EDGES = [0.0, -0.0, 1.0, 1.00390625, 1.005859375, 1.01171875, 255.0, 256.0, 257.0, 259.0,
         65504.0, 65519.0, 65520.0, 3.3895314e38, 3.4028235e38, -3.4028235e38, 1e-40, -1e-45,
         6.1e-5, 5.96e-8, float("inf"), float("-inf"), float("nan")]  # fmt: skip


def torch_bits(values: np.ndarray, dtype) -> np.ndarray:
    """What torch makes of float32 values in dtype: its 16-bit patterns."""
    return torch.from_numpy(values).to(dtype).view(torch.int16).numpy().view(np.uint16)


def same_values(ours: np.ndarray, theirs_bits: np.ndarray, dtype) -> None:
    """Equal bit for bit, NaN compared as NaN (torch writes 0x7FC0 or 0xFFFF by code path)."""
    theirs = torch.from_numpy(theirs_bits.view(np.int16)).view(dtype).float().numpy()
    nan = np.isnan(theirs)
    np.testing.assert_array_equal(np.isnan(ours), nan)
    np.testing.assert_array_equal(ours[~nan].view(np.uint32), theirs[~nan].view(np.uint32))


@settings(max_examples=300, deadline=None)
@given(arrays(np.float32, st.integers(1, 64), elements=FLOAT32))
@example(np.array(EDGES, dtype=np.float32))
def test_bfloat16_rounding_is_torch_s_bit_for_bit(values):
    same_values(precision.to_bfloat16(values), torch_bits(values, torch.bfloat16), torch.bfloat16)


@settings(max_examples=300, deadline=None)
@given(arrays(np.float32, st.integers(1, 64), elements=FLOAT32))
@example(np.array(EDGES, dtype=np.float32))
def test_float16_rounding_is_torch_s_bit_for_bit(values):
    same_values(precision.to_float16(values), torch_bits(values, torch.float16), torch.float16)


@pytest.mark.parametrize(("fmt", "dtype"), [("bf16", torch.bfloat16), ("fp16", torch.float16)])
@settings(max_examples=200, deadline=None)
@given(
    a=arrays(np.float32, 16, elements=st.floats(-1e6, 1e6, width=32)),
    b=arrays(np.float32, 16, elements=st.floats(-1e3, 1e3, width=32)),
)
def test_a_product_in_the_format_is_torch_s(fmt, dtype, a, b):
    theirs = (torch.from_numpy(a).to(dtype) * torch.from_numpy(b).to(dtype)).float().numpy()
    ours = precision.multiply(fmt, a, b)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    finite = ~np.isnan(theirs)
    np.testing.assert_array_equal(ours[finite], theirs[finite])


@pytest.mark.parametrize(("fmt", "dtype"), [("bf16", torch.bfloat16), ("fp16", torch.float16)])
@pytest.mark.parametrize("theta", [10000.0, 500000.0])
def test_the_angle_product_is_torch_s_in_the_format(fmt, dtype, theta):
    """pos × inv_freq as a RoPE cast to the format computes it (transformers before PR #29285)."""
    inv_freq = 1.0 / theta ** (torch.arange(0, 128, 2, dtype=torch.float32) / 128)
    positions = torch.arange(0, 131072, 37, dtype=torch.float32)
    theirs = torch.outer(positions.to(dtype), inv_freq.to(dtype)).float().numpy()
    ours = precision.mistaken_angles(positions.numpy(), inv_freq.numpy(), fmt, "product")
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs))
    np.testing.assert_array_equal(ours[np.isfinite(ours)], theirs[np.isfinite(theirs)])


@pytest.mark.parametrize(
    ("fmt", "value", "gap"),
    [
        ("bf16", 65536, 512),
        ("bf16", 256, 2),
        ("bf16", 255, 1),
        ("fp16", 2048, 2),
        ("fp16", 1857, 1),
    ],
)
def test_the_spacing_of_the_format(fmt, value, gap):
    assert precision.spacing(fmt, value) == gap
    assert precision.round_to(fmt, value + gap / 2) in (value, value + gap)  # a tie, to even
    assert precision.round_to(fmt, value + gap) == value + gap


def test_a_bfloat16_holds_every_integer_to_256_only():
    integers = np.arange(0, 1025, dtype=np.float32)
    held = precision.to_bfloat16(integers) == integers
    assert held[:257].all() and not held[257] and held[258]
    assert held[256:].sum() == 129 + 128  # 256 … 512 every 2nd, then to 1024 every 4th


def test_gpt_neox_1003_fp16_angle_at_position_1857():
    """EleutherAI/gpt-neox#1003: head 32, base 10 000, pair 1 at position 1857 is 1044.2678 in
    float32 and 1045 in fp16; cos of the fp16 angles is off by up to 0.78 over 2048 positions."""
    inv_freq = (1.0 / 10000 ** (torch.arange(0, 32, 2).float() / 32)).numpy()
    angles = precision.mistaken_angles(np.arange(2048), inv_freq, "fp16", "product")
    assert float(np.float32(1857) * inv_freq[1]) == pytest.approx(1044.2678, abs=1e-4)
    assert angles[1857, 1] == 1045.0
    exact = np.outer(np.arange(2048, dtype=np.float32), inv_freq)
    assert np.abs(np.cos(angles) - np.cos(exact)).max() == pytest.approx(0.7819, abs=5e-3)


@pytest.mark.parametrize("place", precision.PLACES)
@pytest.mark.parametrize("fmt", precision.FORMATS)
def test_scores_against_a_direct_float64_product_of_rotated_vectors(place, fmt):
    """Right: q and k rotated in float64 one pair at a time (2×2 matrices), then q·k. Wrong: the
    same with the rounded angles (or rounded cos and sin) from the format."""
    inv_freq = 1.0 / 500000.0 ** (np.arange(0, 16, 2) / 16)
    q, k = unit_pairs(8, samples=3)
    at, distances = 40000, np.array([0, 1, 700, 39999])
    right, wrong, _ = precision.low_precision_scores(q, k, inv_freq, at, distances, fmt, place)

    def rotated(vector, cos, sin):
        return np.concatenate(
            [np.array([[c, -s], [s, c]]) @ v for v, c, s in zip(vector, cos, sin, strict=True)]
        )

    for j, distance in enumerate(distances):
        pos = np.array([at, at - distance])
        angles = np.outer(pos, inv_freq)
        if place == "cache":
            cos, sin = (
                precision.round_to(fmt, f(angles)).astype(np.float64) for f in (np.cos, np.sin)
            )
        else:
            mistaken = precision.mistaken_angles(pos, inv_freq, fmt, place)
            cos, sin = np.cos(mistaken), np.sin(mistaken)
        for s in range(3):
            exact = rotated(q[s], np.cos(angles[0]), np.sin(angles[0])) @ rotated(
                k[s], np.cos(angles[1]), np.sin(angles[1]))  # fmt: skip
            low = rotated(q[s], cos[0], sin[0]) @ rotated(k[s], cos[1], sin[1])
            assert right[s, j] == pytest.approx(exact, abs=1e-12)
            assert wrong[s, j] == pytest.approx(low, abs=1e-12)


def test_fp16_positions_above_65504_overflow():
    errors = precision.angle_errors(
        [65504, 65520, 100000], np.array([1.0, 1e-3]), "fp16", "positions"
    )
    assert np.isfinite(errors[0]).all() and np.isnan(errors[1:]).all()


def test_angle_errors_are_wrapped_and_vanish_where_the_format_is_exact():
    inv_freq = np.array([1.0, 0.5, 2.0**-10])
    errors = precision.angle_errors(np.arange(257), inv_freq, "bf16", "positions")
    assert np.abs(errors).max() < 1e-12  # every position to 256 is a bf16
    errors = precision.angle_errors(np.arange(0, 2**20, 1001), inv_freq, "bf16", "product")
    assert np.abs(errors).max() <= math.pi

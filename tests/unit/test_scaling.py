"""RoPE scaling (pe_explorer.scaling) against the published formulas, recomputed pair by pair.

Each expected value is written out here from the reference code, one pair at a time in plain
Python floats, never by calling the function under test:
- transformers, src/transformers/modeling_rope_utils.py (`_compute_default_rope_parameters`,
  `_compute_linear_scaling_rope_parameters`, `_compute_dynamic_ntk_parameters`,
  `_compute_yarn_parameters`, `_compute_longrope_parameters`, `_compute_llama3_parameters`);
- Meta's llama-models, models/llama3/reference_impl/model.py (`apply_scaling`);
- the YaRN authors' jquesnelle/yarn, scaled_rope/LlamaYaRNScaledRotaryEmbedding.py.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pe_explorer import scaling
from pe_explorer.rope_types import yarn_correction_range
from pe_explorer.scaling import rope_config_frequencies, rope_scaled_frequencies, scaling_bands

TOLERANCE = 1e-9


def theta(i: int, d: int, base: float) -> float:
    """Pair i's inverse frequency, 1 / base ** (2i / d)."""
    return 1.0 / base ** ((2 * i) / d)


def close(actual, expected) -> None:
    np.testing.assert_allclose(actual, expected, rtol=TOLERANCE, atol=0)


def test_none_is_the_papers_inv_freq():
    inv_freq, attention = rope_scaled_frequencies("none", 128, 10000, 8, 4096)
    close(inv_freq, [theta(i, 128, 10000) for i in range(64)])
    assert inv_freq[0] == 1.0 and attention == 1.0


@pytest.mark.parametrize("name", ["pi", "linear"])
def test_position_interpolation_divides_every_frequency(name):
    inv_freq, attention = rope_scaled_frequencies(name, 128, 10000, 4, 4096)
    close(inv_freq, [theta(i, 128, 10000) / 4 for i in range(64)])
    assert attention == 1.0


def test_ntk_aware_raises_the_base_by_s_to_the_d_over_d_minus_2():
    d, base, s = 128, 10000.0, 8.0
    new_base = base * s ** (d / (d - 2))
    inv_freq, _ = rope_scaled_frequencies("ntk", d, base, s, 4096)
    close(inv_freq, [theta(i, d, new_base) for i in range(d // 2)])
    # Pair 0 is never touched; the slowest pair is divided by exactly s.
    assert inv_freq[0] == 1.0
    assert theta(d // 2 - 1, d, base) / inv_freq[-1] == pytest.approx(s, rel=1e-12)


@pytest.mark.parametrize(("seq_len", "effective"), [(2048, 1.0), (4096, 1.0), (8192, 3.0)])
def test_dynamic_ntk_grows_the_base_with_the_sequence(seq_len, effective):
    """transformers: base * (factor * seq_len / L - (factor - 1)) ** (d / (d - 2)), with
    seq_len = max(seq_len, L): at or below L it is the unscaled model."""
    d, base, s, context = 64, 10000.0, 2.0, 4096
    grown = base * (s * max(seq_len, context) / context - (s - 1)) ** (d / (d - 2))
    assert s * max(seq_len, context) / context - (s - 1) == effective
    inv_freq, attention = rope_scaled_frequencies("dynamic", d, base, s, context, seq_len=seq_len)
    close(inv_freq, [theta(i, d, grown) for i in range(d // 2)])
    assert attention == 1.0


def reference_yarn(d, base, s, context, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """The YaRN authors' code (and transformers' copy of it), one pair at a time."""

    def correction_dim(rotations):
        return (d * math.log(context / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(d // 2):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        extrapolation = 1 - ramp
        pos_freq = base ** ((2 * i) / d)
        out.append((1 / (s * pos_freq)) * (1 - extrapolation) + (1 / pos_freq) * extrapolation)
    return out, (0.1 * math.log(s) + 1.0 if s > 1 else 1.0)


@pytest.mark.parametrize("truncate", [True, False])
def test_yarn_matches_the_authors_code(truncate):
    """The published config of NousResearch/Yarn-Llama-2-7b-128k: factor 32 over 4096."""
    expected, attention = reference_yarn(128, 10000.0, 32.0, 4096, truncate=truncate)
    inv_freq, factor = rope_scaled_frequencies("yarn", 128, 10000, 32, 4096, truncate=truncate)
    close(inv_freq, expected)
    assert factor == pytest.approx(attention, rel=1e-15)
    assert factor == pytest.approx(1.3465735902799727, rel=1e-12)  # 0.1 ln 32 + 1


def test_yarn_bands_for_llama_2_at_factor_32():
    """With beta_fast 32 and beta_slow 1 over 4096 positions: pairs 0-19 turn more than 32
    times and are kept; pairs from 41 turn less than once and are interpolated."""
    low, high = yarn_correction_range(32, 1, 128, 10000, 4096)
    assert (low, high) == (20, 46)
    bands = scaling_bands("yarn", 128, 10000, 32, 4096)
    assert set(bands[:21]) == {"kept"} and set(bands[46:]) == {"interpolated"}
    assert set(bands[21:46]) == {"ramped"}


def test_yarns_high_bound_is_clamped_at_d_minus_1_not_d_over_2_minus_1():
    """A long context with a tiny beta_slow pushes the bound past the last pair: the reference
    clamps at d - 1, so the ramp never reaches the end and the last pair is not fully divided."""
    low, high = yarn_correction_range(32, 1e-6, 16, 10000, 4096)
    assert high == 15
    inv_freq, _ = rope_scaled_frequencies("yarn", 16, 10000, 4, 4096, beta_slow=1e-6)
    close(inv_freq, reference_yarn(16, 10000.0, 4.0, 4096, beta_slow=1e-6)[0])


def reference_llama3(d, base, s, context, low_freq_factor=1.0, high_freq_factor=4.0):
    """Meta's apply_scaling, one frequency at a time."""
    low_freq_wavelen = context / low_freq_factor
    high_freq_wavelen = context / high_freq_factor
    out = []
    for i in range(d // 2):
        freq = theta(i, d, base)
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            out.append(freq)
        elif wavelen > low_freq_wavelen:
            out.append(freq / s)
        else:
            smooth = (context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / s + smooth * freq)
    return out


def test_llama3_matches_metas_apply_scaling_for_llama_3_1_8b():
    """Llama 3.1 8B: d_head 128, rope_theta 500000, factor 8, low 1, high 4, L = 8192."""
    inv_freq, attention = rope_scaled_frequencies(
        "llama3", 128, 500000, 8, 8192, low_freq_factor=1, high_freq_factor=4
    )
    close(inv_freq, reference_llama3(128, 500000.0, 8.0, 8192))
    assert attention == 1.0
    bands = scaling_bands("llama3", 128, 500000, 8, 8192)
    # Kept: 2 pi 500000^(i/64) < 8192 / 4, i < 64 ln(2048 / 2 pi) / ln 500000 = 28.2: pairs 0-28.
    # Interpolated: over 8192, i > 64 ln(8192 / 2 pi) / ln 500000 = 34.98: pairs 35-63.
    counts = {band: int((bands == band).sum()) for band in ("kept", "ramped", "interpolated")}
    assert counts == {"kept": 29, "ramped": 6, "interpolated": 29}


def test_longrope_divides_each_pair_by_its_own_factor():
    """transformers: inv_freq = 1 / (ext_factors * base ** (2i / d)); attention factor
    sqrt(1 + ln s / ln L)."""
    factors = [1.0 + 0.25 * i for i in range(8)]
    inv_freq, attention = rope_scaled_frequencies("longrope", 16, 10000, 32, 4096, factors=factors)
    close(inv_freq, [1.0 / (factors[i] * 10000.0 ** ((2 * i) / 16)) for i in range(8)])
    assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


def test_a_published_rope_scaling_dict_reads_as_transformers_reads_it():
    """Llama 3.1 8B's config.json rope_scaling, and the older `type` key of Yarn-Llama-2."""
    llama = {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    }
    inv_freq, _ = rope_config_frequencies(128, 500000.0, 131072, llama)
    close(inv_freq, reference_llama3(128, 500000.0, 8.0, 8192))
    yarn = {"factor": 32.0, "original_max_position_embeddings": 4096, "type": "yarn"}
    inv_freq, attention = rope_config_frequencies(128, 10000.0, 131072, yarn)
    close(inv_freq, reference_yarn(128, 10000.0, 32.0, 4096)[0])
    assert attention == pytest.approx(0.1 * math.log(32) + 1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rope_scaled_frequencies("rope", 64, 10000, 2, 4096), "must be one of"),
        (lambda: rope_scaled_frequencies("pi", 63, 10000, 2, 4096), "even integer"),
        (lambda: rope_scaled_frequencies("pi", 64, 1, 2, 4096), "greater than 1"),
        (lambda: rope_scaled_frequencies("pi", 64, 10000, 0.5, 4096), "factor must be"),
        (lambda: rope_scaled_frequencies("pi", 64, 10000, float("nan"), 4096), "finite"),
        (lambda: rope_scaled_frequencies("pi", 64, 10000, 2, -4096), "original_context"),
        (lambda: rope_scaled_frequencies("pi", 64, 10000, 2, 4096, beta_fast=3), "unknown"),
        (lambda: rope_scaled_frequencies("dynamic", 64, 10000, 2, 4096), "needs seq_len"),
        (
            lambda: rope_scaled_frequencies("yarn", 64, 10000, 2, 4096, beta_fast=1, beta_slow=2),
            "greater than beta_slow",
        ),
        (
            lambda: rope_scaled_frequencies("yarn", 64, 10000, 2, 4096, truncate="yes"),
            "true or false",
        ),
        (
            lambda: rope_scaled_frequencies(
                "llama3", 64, 10000, 2, 4096, low_freq_factor=4, high_freq_factor=1
            ),
            "greater than low_freq_factor",
        ),
        (
            lambda: rope_scaled_frequencies("longrope", 64, 10000, 2, 4096, factors=[1.0] * 31),
            "32 numbers",
        ),
        (
            lambda: rope_scaled_frequencies(
                "longrope", 8, 10000, 2, 4096, factors=[1, 2, float("inf"), 1]
            ),
            "pair 2",
        ),
        (lambda: rope_scaled_frequencies("longrope", 8, 10000, 2, 4096), "needs factors"),
    ],
)
def test_bad_arguments_get_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@given(
    method=st.sampled_from(["pi", "ntk", "yarn", "llama3"]),
    d_head=st.sampled_from([16, 64, 128]),
    base=st.floats(100, 1e6),
    factor=st.floats(1, 64),
    context=st.integers(256, 1 << 17),
)
def test_scaling_never_speeds_a_pair_up_nor_slows_it_by_more_than_the_factor(
    method, d_head, base, factor, context
):
    """Every method divides each frequency by something between 1 and s (NTK's slowest pair
    by exactly s), so no wavelength shrinks and none grows past s times."""
    original, _ = rope_scaled_frequencies("none", d_head, base, 1, context)
    scaled, _ = rope_scaled_frequencies(method, d_head, base, factor, context)
    divisor = original / scaled
    assert np.all(divisor >= 1 - 1e-12) and np.all(divisor <= factor * (1 + 1e-12))


def test_a_factor_of_one_leaves_every_pair_alone():
    for method in ("pi", "ntk", "yarn", "llama3"):
        assert set(scaling_bands(method, 16, 10000, 1.0, 256)) == {"kept"}, method


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1, 2.5 3", [1, 2.5, 3]), ("[1.0, 2.0, 4e0]", [1, 2, 4]), ("(1;1;1)", [1, 1, 1])],
)
def test_pasted_factors_are_read_with_any_separator_or_brackets(text, expected):
    assert scaling.parse_factors(text, 3).tolist() == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "needs 3 per-pair factors"),
        ("1, x, 2", "factor 2 is not a number: 'x'"),
        ("1, 0, 2", "factor 2 is 0: each must be a finite number of at least 0.001"),
        ("1, inf, 2", "factor 2 is inf"),
        ("1, 2", "must be 3 numbers (one per pair: d_head / 2), got 2"),
    ],
)
def test_pasted_factors_that_are_wrong_say_which(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        scaling.parse_factors(text, 3)

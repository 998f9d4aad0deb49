"""One function per rope type, as transformers' `ROPE_INIT_FUNCTIONS`: the one definition of each
type's inv_freq and attention factor, in NumPy float64.

Each follows its function in transformers' src/transformers/modeling_rope_utils.py
(`_compute_*_parameters`), and takes the same arguments, where transformers reads a config:

    rope      the rope parameters as config.json gives them (factor, beta_fast, long_factor …)
    dim       how many of a head's dimensions rotate (head_dim × partial_rotary_factor)
    base      rope_theta
    original  the context it was trained on (original_max_position_embeddings); for dynamic
              NTK, the length it grows past: max_position_embeddings, as transformers reads it
    top       the length it runs at: max_position_embeddings, and dynamic NTK's and LongRoPE's
              seq_len (the longest sequence it is run on)

and returns (inv_freq, attention_factor): dim / 2 frequencies, pair 0 (the fastest) first, and the
factor that multiplies cos and sin (so the logits by its square). `proportional` also takes the
head's size, the length of what it returns.

The exported scripts show these functions' own text (rope_types_source.py, generated from this
file by scripts/rope_sources.py; tests/unit/test_rope_types.py says when it is stale), so each uses
only math, NumPy and the functions of this file. None checks its input: its callers
(scaling.rope_scaled_frequencies, model/frequencies.layer_frequencies) refuse what it cannot run.
"""

from __future__ import annotations

import math

import numpy as np


def default_frequencies(dim, base):
    """theta_i = base ** (-2i / dim) for i = 0 … dim/2 - 1."""
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def default(rope, dim, base, original, top):
    """RoPE as published (compute_default_rope_parameters)."""
    return default_frequencies(dim, base), 1.0


def linear(rope, dim, base, original, top):
    """Position Interpolation: every frequency divided by s (_compute_linear_scaling_...)."""
    return default_frequencies(dim, base) / rope["factor"], 1.0


def ntk(rope, dim, base, original, top):
    """NTK-aware (bloc97, 2023), not a transformers type: base raised to base * s ** (d / (d-2))."""
    exponent = dim / (dim - 2) if dim > 2 else 1.0
    return default_frequencies(dim, base * rope["factor"] ** exponent), 1.0


def dynamic(rope, dim, base, original, top):
    """Dynamic NTK (_compute_dynamic_ntk_parameters) at sequence length top (at least original)."""
    factor, seq_len = rope["factor"], max(top, original)
    exponent = dim / (dim - 2) if dim > 2 else 1.0
    grown = base * (factor * seq_len / original - (factor - 1)) ** exponent
    return default_frequencies(dim, grown), 1.0


def yarn_mscale(scale, mscale=1.0):
    """get_mscale of _compute_yarn_parameters: 0.1 · mscale · ln s + 1, 1 when s <= 1."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_range(beta_fast, beta_slow, dim, base, original, truncate=True):
    """The pairs (as fractional indices) where YaRN's ramp starts and ends: the pair that turns
    beta_fast times in the original context, and the one that turns beta_slow times."""

    def pair_turning(turns):
        return dim * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_turning(beta_fast), pair_turning(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn(rope, dim, base, original, top):
    """YaRN (_compute_yarn_parameters; Peng et al. 2023): theta_i / s where a pair turns fewer
    than beta_slow times in the original context, theta_i where it turns more than beta_fast
    times, a linear ramp between; attention factor 0.1 ln s + 1 unless the config gives one."""
    factor = rope.get("factor")
    if factor is None:
        factor = top / original
    attention = rope.get("attention_factor")
    mscale, mscale_all_dim = rope.get("mscale"), rope.get("mscale_all_dim")
    if attention is None and mscale and mscale_all_dim:
        attention = yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)
    elif attention is None:
        attention = yarn_mscale(factor)
    beta_fast, beta_slow = rope.get("beta_fast") or 32.0, rope.get("beta_slow") or 1.0
    truncate = rope.get("truncate", True)
    low, high = yarn_correction_range(beta_fast, beta_slow, dim, base, original, truncate)
    if low == high:
        high += 0.001  # as the reference code: no division by zero
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    kept = 1 - ramp  # 1: the pair turns fast enough to keep its frequency
    inv_freq = default_frequencies(dim, base)
    return inv_freq / factor * (1 - kept) + inv_freq * kept, float(attention)


def longrope(rope, dim, base, original, top):
    """LongRoPE (_compute_longrope_parameters; Ding et al. 2024): each pair divided by its own
    searched factor, long_factor past the original context, short_factor within it."""
    factor = rope.get("factor")
    if factor is None:
        factor = top / original  # Phi-3: max_position_embeddings / original
    attention = rope.get("attention_factor")
    if attention is None:
        attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
    factors = rope["long_factor"] if top > original else rope["short_factor"]
    return default_frequencies(dim, base) / np.asarray(factors, dtype=np.float64), float(attention)


def llama3(rope, dim, base, original, top):
    """Llama 3.1 (_compute_llama3_parameters; Meta's apply_scaling): short wavelengths kept, long
    ones divided by s, and between, a mix smoothed in original / wavelength."""
    factor = rope["factor"]
    low, high = rope.get("low_freq_factor", 1.0), rope.get("high_freq_factor", 4.0)
    inv_freq = default_frequencies(dim, base)
    wavelength = 2 * math.pi / inv_freq
    scaled = np.where(wavelength > original / low, inv_freq / factor, inv_freq)
    medium = ~(wavelength < original / high) & ~(wavelength > original / low)
    if medium.any():  # never when low == high (Llama 4): each pair kept or divided
        smooth = (original / wavelength - low) / (high - low)
        scaled = np.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)
    return scaled, 1.0


def proportional(rope, dim, base, original, top, head_dim):
    """_compute_proportional_rope_parameters (Gemma 4): the exponent over the whole head_dim,
    zeros for the pairs past the rotating dim, all divided by the factor."""
    inv_freq = np.zeros(head_dim // 2)
    angles = dim // 2
    inv_freq[:angles] = 1.0 / base ** (np.arange(0, 2 * angles, 2, dtype=np.float64) / head_dim)
    return inv_freq / rope.get("factor", 1.0), 1.0


def rope_freqs(rope, dim, base, original, top):
    """llama.cpp: each pair divided by the GGUF's rope_freqs tensor, its divisors."""
    return default_frequencies(dim, base) / np.asarray(rope["divisors"], dtype=np.float64), 1.0


# Each rope type's function, by the name config.json gives it (transformers' rope_type), and
# the two types of ours: ntk (NTK-aware, the scaling view's) and rope_freqs (a GGUF's divisors).
ROPE_INIT_FUNCTIONS = {
    "default": default,
    "mrope": default,  # Qwen2-VL's sections share the default frequencies
    "linear": linear,
    "ntk": ntk,
    "dynamic": dynamic,
    "yarn": yarn,
    "longrope": longrope,
    "llama3": llama3,
    "proportional": proportional,
    "rope_freqs": rope_freqs,
}

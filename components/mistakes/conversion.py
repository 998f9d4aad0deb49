"""Mistakes of conversion and configuration: the q/k pairing layout forgotten, the wrong θ,
scaling dropped or applied twice, ALiBi's slopes computed for the wrong number of heads."""

from __future__ import annotations

import numpy as np

from ..methods import alibi_slopes
from ..rope_types import default_frequencies

LAYOUTS = ("interleaved", "half-split")


def meta_to_hf(weights, n_heads: int) -> np.ndarray:
    """q or k projection rows from Meta's interleaved layout (pair i: rows 2i, 2i+1 of a head) to
    transformers' half-split one (pair i: rows i, i + head_dim/2), as the `permute` of
    transformers' models/llama/convert_llama_weights_to_hf.py:
    view(n_heads, head_dim / 2, 2, …).transpose(1, 2)."""
    weights = np.asarray(weights)
    half = weights.shape[0] // n_heads // 2
    grouped = weights.reshape(n_heads, half, 2, *weights.shape[1:])
    return grouped.swapaxes(1, 2).reshape(weights.shape)


def hf_to_meta(weights, n_heads: int) -> np.ndarray:
    """The inverse, as llama.cpp's converter writes a GGUF (conversion/llama.py, LlamaModel.permute
    at d32676d774: reshape(n_head, 2, head_dim / 2, …).swapaxes(1, 2))."""
    weights = np.asarray(weights)
    half = weights.shape[0] // n_heads // 2
    grouped = weights.reshape(n_heads, 2, half, *weights.shape[1:])
    return grouped.swapaxes(1, 2).reshape(weights.shape)


def component_frequencies(inv_freq, layout: str) -> np.ndarray:
    """The frequency each of a head's rotary components turns at under a layout: interleaved
    (θ0, θ0, θ1, θ1 …) or half-split (θ0, θ1 … θ0, θ1 …)."""
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    if layout == "interleaved":
        return np.repeat(inv_freq, 2)
    if layout == "half-split":
        return np.tile(inv_freq, 2)
    raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")


def as_pairs(vectors: np.ndarray, layout: str) -> np.ndarray:
    """Flat head vectors (samples, d) as the pairs a layout turns together: (samples, d/2, 2)."""
    samples, d = vectors.shape
    if layout == "interleaved":
        return vectors.reshape(samples, d // 2, 2)
    return vectors.reshape(samples, 2, d // 2).swapaxes(1, 2)


def theta_frequencies(inv_freq, theta: float, wrong_theta: float) -> np.ndarray:
    """The frequencies with θ replaced, any per-pair scaling kept: inv_freq × default(θ') /
    default(θ)."""
    dim = 2 * np.asarray(inv_freq).size
    return inv_freq * default_frequencies(dim, wrong_theta) / default_frequencies(dim, theta)


def scaling_frequencies(inv_freq, theta: float, attention_factor: float, how: str):
    """The frequencies and the attention factor with the scaling dropped (θ's own, factor 1) or
    applied twice (each pair's division twice, the factor squared, as sglang PR #33558 found
    YaRN's mscale squared)."""
    unscaled = default_frequencies(2 * np.asarray(inv_freq).size, theta)
    if how == "dropped":
        return unscaled, 1.0
    if how == "twice":
        return inv_freq * (inv_freq / unscaled), attention_factor**2
    raise ValueError(f"how must be 'dropped' or 'twice', got {how!r}")


def slopes_as_for(n_heads: int, as_heads: int) -> np.ndarray:
    """The mistake: the first n_heads slopes of the as_heads list (12 heads given 16's)."""
    return alibi_slopes(as_heads)[:n_heads]


def right_slopes(n_heads: int) -> np.ndarray:
    """ALiBi's slopes for n_heads (methods.alibi_slopes: Press et al.'s get_slopes, as
    transformers' models/bloom/modeling_bloom.py _get_alibi_slopes builds them)."""
    return alibi_slopes(n_heads)

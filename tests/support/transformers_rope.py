"""transformers' own rope functions (`ROPE_INIT_FUNCTIONS` of modeling_rope_utils.py, and the
default of LlamaRotaryEmbedding) run on a config built for them: the reference of the tests of
pe_explorer.rope_types and of the model reader's frequencies.

transformers computes inv_freq in float32: base ** (2i / d) with the exponent rounded to float32
is off by up to ln(base) × 6e-8 relative (under 2e-6 for bases up to 1e9), so FLOAT32 is 1e-5.
"""

from __future__ import annotations

import logging

import numpy as np
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

FLOAT32 = 1e-5
logging.getLogger("transformers").setLevel(logging.ERROR)  # their notes on unusual keys


def config(rope: dict, head_dim: int, base: float, top: int, **extra) -> LlamaConfig:
    """A config as transformers reads one: head_dim, max_position_embeddings, rope_parameters."""
    return LlamaConfig(
        hidden_size=4 * head_dim,
        num_attention_heads=4,
        head_dim=head_dim,
        max_position_embeddings=top,
        num_hidden_layers=1,
        rope_parameters={**rope, "rope_theta": base, **extra},
    )


def theirs(kind: str, given: LlamaConfig, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """transformers' (inv_freq, attention_factor) of a rope type on a config, in float64."""
    if kind in ("default", "mrope"):
        inv, attention = LlamaRotaryEmbedding.compute_default_rope_parameters(given)
    else:
        inv, attention = ROPE_INIT_FUNCTIONS[kind](given, "cpu", seq_len=seq_len)
    return inv.double().numpy(), attention


def layer_reference(layer, params: dict, original: int, top: int) -> tuple[np.ndarray, float]:
    """What transformers computes for a model's layer (pe_explorer's Layer) with its published
    rope parameters, run at its longest context `top` (dynamic NTK grows from `original`)."""
    kind = layer.scaling["type"]
    rope = {
        key: value
        for key, value in params.items()
        if key not in ("type", "rope_type", "rope_theta", "partial_rotary_factor")
    }
    rope["rope_type"] = kind
    if kind in ("llama3", "yarn", "longrope"):
        rope.setdefault("original_max_position_embeddings", original)
    if kind == "proportional":
        part = layer.rotary_dim / layer.head_dim
        given = config(rope, layer.head_dim, layer.theta, top, partial_rotary_factor=part)
        return theirs(kind, given)
    length = original if kind == "dynamic" else top
    return theirs(kind, config(rope, layer.rotary_dim, layer.theta, length), seq_len=top)

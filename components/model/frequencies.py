"""Each layer type's inv_freq and attention factor, from its rope type's function in
rope_types.py (as transformers' modeling_rope_utils.py computes them), its parameters checked first;
the head's size and its rotary part; the original and maximum context.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from ..rope_types import ROPE_INIT_FUNCTIONS, proportional
from ..scaling import MAX_CONTEXT
from .types import MAX_HEAD_DIM, ModelError, Reading
from .values import integer, number

# The rules that give a value no key of a file gives, with the line of the engine that applies
# them (tests/unit/test_model_sources.py reads each line): transformers' for a config.json (and the
# generic reading, which follows it), llama.cpp's generated KEYS for a GGUF.
RULES = {
    "whole head": "modeling_rope_utils.py:179-181 _compute_default_rope_parameters "
    "(partial_rotary_factor 1.0 when none)",
    "head size": "modeling_rope_utils.py:180 _compute_default_rope_parameters "
    "(hidden_size // num_attention_heads when no head_dim)",
    "default theta": "default 10000 of transformers 5.23.0 RotaryEmbeddingConfigMixin "
    "(modeling_rope_utils.py:760 default_theta)",
}
GGUF_RULES = {
    "whole head": "{arch}.rope.dimension_count",
    "head size": "{arch}.attention.key_length",
}


def _rule(reading: Reading, name: str) -> str:
    """A rule of RULES as the reading's engine applies it; llama.cpp's with its KEYS fallback."""
    if reading.gguf is None or name not in GGUF_RULES:
        return RULES[name]
    from . import llamacpp_data

    read = llamacpp_data.KEYS[GGUF_RULES[name]]["reads"][0]
    return f"llama.cpp {read['fallback_source']} ({read['target']} = {read['fallback']})"


def rotary_dim(reading: Reading, head_dim: int) -> int:
    """How many of a head's dimensions rotate, with its source noted."""
    config = reading.config
    nested = (
        config.get("rope_parameters") if isinstance(config.get("rope_parameters"), dict) else {}
    )
    width = reading.transformers_rule("rotary_width")  # the key the engine's rotary follows
    if width == "qk_rope_head_dim" and integer(config, width, high=head_dim):
        reading.note("rotary_dim", f"{reading.cite(width)} (what the rotary module reads)")
        return _even(config[width])
    for key in ("partial_rotary_factor", "rotary_pct"):
        inside = number(nested, key, high=1.0)
        fraction = inside or number(config, key, high=1.0)
        if fraction is not None:
            path = f"rope_parameters.{key}" if inside is not None else key
            reading.note("rotary_dim", f"{reading.cite(path)} × head_dim")
            return _even(int(head_dim * fraction))
    for key in ("rotary_dim", "qk_rope_head_dim"):
        if width == "head_dim":  # MiniMax-M3 keeps a rotary_dim its rotary never reads
            break
        value = integer(config, key, high=head_dim)
        if value is not None:
            reading.note("rotary_dim", reading.cite(key))
            if value % 2:
                raise ModelError(f"{key} must be even (the dimensions turn in pairs), got {value}")
            return value
    reading.note("rotary_dim", f"head_dim, every dimension: {_rule(reading, 'whole head')}")
    return head_dim


def _even(value: int) -> int:
    return max(2, value - value % 2)


def head_dims(reading: Reading) -> tuple[int, int]:
    """(head_dim, rotary_dim), each with its source noted."""
    config = reading.config
    heads = integer(config, "num_attention_heads", high=4096) or integer(
        config, "n_head", high=4096
    )
    hidden = integer(config, "hidden_size", high=1 << 20) or integer(
        config, "d_model", high=1 << 20
    )
    head_dim = integer(config, "head_dim", high=MAX_HEAD_DIM)
    nope = integer(config, "qk_nope_head_dim", high=MAX_HEAD_DIM)
    mla = reading.transformers_rule("rotary_width") != "head_dim"  # dots3: MLA keys, head_dim
    if mla and nope and integer(config, "qk_rope_head_dim", high=MAX_HEAD_DIM):  # DeepSeek's
        head_dim = nope + config["qk_rope_head_dim"]
        nope_rope = (reading.cite(k) for k in ("qk_nope_head_dim", "qk_rope_head_dim"))
        reading.note("head_dim", f"{' + '.join(nope_rope)} (MLA)")
    elif head_dim:
        reading.note("head_dim", reading.cite("head_dim"))
    elif heads and hidden:
        head_dim = hidden // heads
        width = next(k for k in ("hidden_size", "d_model") if integer(config, k, high=1 << 20))
        count = next(k for k in ("num_attention_heads", "n_head") if integer(config, k, high=4096))
        reading.note(
            "head_dim",
            f"{reading.cite(width)} / {reading.cite(count)}: {_rule(reading, 'head size')}",
        )
    else:
        raise ModelError(
            "the config names neither head_dim nor hidden_size and num_attention_heads"
        )
    if head_dim > MAX_HEAD_DIM or head_dim < 2:
        raise ModelError(f"head_dim must be between 2 and {MAX_HEAD_DIM}, got {head_dim}")
    return head_dim, rotary_dim(reading, head_dim)


def model_context(reading: Reading, params: dict) -> tuple[int | None, int | None]:
    """(original, maximum) context, with their sources."""
    config = reading.config
    top = integer(config, "max_position_embeddings", high=MAX_CONTEXT)
    top_key = "max_position_embeddings" if top else "n_positions"
    top = top or integer(config, "n_positions", high=MAX_CONTEXT)
    if top:
        reading.note("max_context", reading.cite(top_key))
    if params.get("rope_type") == "dynamic" and top:
        return _dynamic_context(reading, params, top, top_key)
    original = integer(params, "original_max_position_embeddings", high=MAX_CONTEXT)
    if original is None:
        original = integer(config, "original_max_position_embeddings", high=MAX_CONTEXT)
    if original:
        reading.note("original_context", reading.cite_param("original_max_position_embeddings"))
        return original, top or original
    if top:
        reading.note("original_context", f"{reading.cite(top_key)} (no original given)")
    return top, top


def _dynamic_context(reading: Reading, params: dict, top: int, top_key: str) -> tuple[int, int]:
    """Dynamic NTK grows θ from max_position_embeddings, never from an original context
    (_compute_dynamic_ntk_parameters, modeling_rope_utils.py:331-341; the rotary's
    original_max_seq_len): a stated original_max_position_embeddings is not read."""
    stated = params.get("original_max_position_embeddings")
    if stated is None:
        stated = reading.config.get("original_max_position_embeddings")
    if integer({"o": stated}, "o", high=MAX_CONTEXT) not in (None, top):
        reading.find(
            "engine-ignores-key",
            f"transformers grows dynamic NTK's θ from max_position_embeddings, "
            f"not from original_max_position_embeddings: past {top:,} positions, not {stated:,}. "
            "The layers below are what it runs.",
            f"original_max_position_embeddings = {stated:,}; modeling_rope_utils.py:341: "
            f"seq_len / config.max_position_embeddings ({top:,})",
        )
    reading.note("original_context", f"{reading.cite(top_key)} (dynamic NTK grows past it)")
    factor = params.get("factor")
    if isinstance(factor, Real) and factor > 1:
        reading.note("max_context", f"{reading.cite_param('factor')} × {reading.cite(top_key)}")
        return top, min(int(top * factor), MAX_CONTEXT)
    return top, top


def layer_frequencies(
    params: dict, head_dim: int, rotary_dim: int, original: int | None, top: int | None
) -> tuple[np.ndarray, float, np.ndarray | None]:
    """(inv_freq, attention_factor, LongRoPE's short inv_freq) of one rope parameter set, from
    its rope type's function in rope_types.ROPE_INIT_FUNCTIONS, its parameters checked first."""
    kind = params["rope_type"]
    base = params["rope_theta"]
    factor = _number("factor", params.get("factor", 1.0))
    if kind not in ROPE_INIT_FUNCTIONS or kind in ("ntk", "rope_freqs"):
        raise ModelError(f"unknown rope type {str(kind)[:40]!r}")
    if kind == "proportional":
        inv, att = proportional({"factor": factor}, rotary_dim, base, 0, 0, head_dim)
        return inv, att, None
    original = original or top or 1
    rope = _checked(kind, params, rotary_dim, factor, original, top)
    function = ROPE_INIT_FUNCTIONS[kind]
    if kind == "longrope":  # past the original context, and within it
        long, att = function(rope, rotary_dim, base, original, original + 1)
        return long, att, function(rope, rotary_dim, base, original, original)[0]
    inv, att = function(rope, rotary_dim, base, original, top or original)
    return inv, att, None


def _checked(kind: str, params: dict, rotary_dim: int, factor: float, original: int, top):
    """The rope parameters as the rope type's function reads them, each checked."""
    if kind in ("default", "mrope"):
        return {}
    if kind == "linear":
        return {"factor": _factor(factor)}
    if kind == "dynamic":  # a factor of 0 divides nothing: θ stays as published
        if rotary_dim < 4:
            raise ValueError("dynamic raises the base by s ** (d / (d - 2)): d_head must be >= 4")
        return {"factor": factor}
    if kind == "llama3":
        return _llama3(params, factor)
    if kind == "yarn":
        return _yarn(params, factor, original, top)
    return _longrope(params, rotary_dim, original, top)


def _number(key: str, value) -> float:
    """A rope parameter transformers multiplies or divides by: a finite number (None: 1)."""
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ModelError(f"the scaling {key} must be a number, got {str(value)[:20]}")
    return float(value)


def _factor(factor: float) -> float:
    """A factor transformers divides frequencies by: 0 makes them infinite (refused); any other
    runs, below 1 with a warning (modeling_rope_utils.py:981, 1085), and findings.py notes it."""
    if factor == 0:
        raise ModelError(
            "the scaling factor is 0: transformers divides every frequency by it, so they are "
            "infinite"
        )
    return factor


def _llama3(params: dict, factor: float) -> dict:
    """Llama 3's parameters: scaling.py refuses low >= high frequency factors, which transformers
    runs with a warning (modeling_rope_utils.py:1095); Llama 4 uses 1 and 1 (every pair either
    kept or divided, none smoothed). Only a zero divides by zero (transformers raises
    ZeroDivisionError: original_max_position_embeddings / low_freq_factor, :650-651)."""
    low = _number("low_freq_factor", params.get("low_freq_factor", 1.0))
    high = _number("high_freq_factor", params.get("high_freq_factor", 4.0))
    if low == 0 or high == 0:
        raise ModelError(
            f"llama3's low_freq_factor and high_freq_factor are {low:g} and {high:g}: "
            "transformers divides the original context by each, and raises on a 0"
        )
    return {"factor": _factor(factor), "low_freq_factor": low, "high_freq_factor": high}


def _betas(params: dict) -> tuple[float, float]:
    """YaRN's beta_fast and beta_slow, 32 and 1 when absent or 0 (modeling_rope_utils.py:444);
    transformers takes the log of each, so a number at or below 0 is refused."""
    betas = []
    for key, default in (("beta_fast", 32.0), ("beta_slow", 1.0)):
        value = params.get(key) or default
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < math.inf:
            raise ModelError(f"YaRN's {key} must be a positive number, got {str(value)[:20]}")
        betas.append(float(value))
    return betas[0], betas[1]


def _yarn(params: dict, factor: float, original: int, top: int | None) -> dict:
    """YaRN's parameters. scaling.py refuses beta_fast <= beta_slow, which transformers runs with
    a warning (modeling_rope_utils.py:995) and Kimi K2 publishes (1 and 1): the ramp's ends then
    meet, and the table (rope_types.yarn) widens it by 0.001 as transformers does (:463)."""
    if params.get("factor") is None and top:
        factor = top / original  # as transformers, when the config gives no factor
    factor = _factor(factor)
    beta_fast, beta_slow = _betas(params)
    rope = {"factor": factor, "beta_fast": beta_fast, "beta_slow": beta_slow}
    rope["truncate"] = bool(params.get("truncate", True))
    given = params.get("attention_factor")
    mscale, all_dim = params.get("mscale"), params.get("mscale_all_dim")
    if isinstance(given, Real) and not isinstance(given, bool):
        rope["attention_factor"] = float(given)
    elif mscale and all_dim:
        rope["mscale"], rope["mscale_all_dim"] = float(mscale), float(all_dim)
    return rope


def _factor_list(params: dict, key: str, pairs: int) -> np.ndarray:
    """LongRoPE's long_factor or short_factor as transformers divides the frequencies by it:
    one number a pair, or one for all (torch broadcasts it); other lengths raise in transformers
    (a size mismatch), and a 0 makes a frequency infinite. Values outside scaling.py's range
    (0.001 … 10 000) run and are noted (findings.py)."""
    try:
        array = np.asarray(params.get(key), dtype=np.float64)
    except (TypeError, ValueError):
        array = np.zeros(0)
    if array.ndim != 1 or array.size not in (1, pairs) or not np.isfinite(array).all():
        raise ModelError(
            f"LongRoPE's {key} must be {pairs} numbers (one per pair) or one for all: "
            f"transformers cannot divide {pairs} frequencies by {str(params.get(key))[:40]}"
        )
    if (array == 0).any():
        raise ModelError(f"LongRoPE's {key} holds a 0: transformers' frequency there is infinite")
    return np.broadcast_to(array, (pairs,)).copy()


def _longrope(params: dict, rotary_dim: int, original: int, top: int | None) -> dict:
    pairs = rotary_dim // 2
    rope = {
        "long_factor": _factor_list(params, "long_factor", pairs),
        "short_factor": _factor_list(params, "short_factor", pairs),
        "factor": params.get("factor"),
    }
    if rope["factor"] is None:
        rope["factor"] = (top or original) / original  # Phi-3: max_position_embeddings / original
    if params.get("attention_factor") is not None:
        rope["attention_factor"] = float(params["attention_factor"])
    return rope

"""A model's positions, normalised: what each layer does with positions, read from a Hugging Face
config.json (the `rope_scaling` schema with `type` or `rope_type`, or the newer `rope_parameters`,
also nested per layer type), a GGUF header or a safetensors header.

    read_model(source, *more) -> ModelPositions

Each layer's `inv_freq` is computed in float64 as `transformers`' modeling_rope_utils.py computes it
(`_compute_default_rope_parameters`, `_compute_linear_scaling_rope_parameters`,
`_compute_dynamic_ntk_parameters`, `_compute_yarn_parameters`, `_compute_longrope_parameters`,
`_compute_llama3_parameters`, `_compute_proportional_rope_parameters`), through `scaling.py`.
Which layers rotate, and with which base, follows each model's `modeling_*.py` (named where used).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path

import numpy as np

from . import model_arch as arch
from .scaling import (
    MAX_CONTEXT,
    MAX_FACTOR,
    check_factors,
    default_frequencies,
    rope_scaled_frequencies,
)

METHODS = ("rope", "none", "alibi", "learned", "sinusoidal", "t5")
# A config.json is a few kilobytes (Phi-3's 128k one, with its factor lists, about 12 KB).
MAX_JSON_CHARS = 4 << 20
MAX_THETA = 1e12
MAX_LAYERS = 1024
MAX_HEAD_DIM = 2048


class ModelError(ValueError):
    """A model description that cannot be read: one plain sentence for the visitor."""


@dataclass(frozen=True)
class Layer:
    """What one layer does with positions."""

    index: int
    kind: str  # the layer type: "full_attention", "sliding_attention", "chunked_attention" …
    method: str  # one of METHODS
    theta: float | None = None
    head_dim: int | None = None
    rotary_dim: int | None = None
    pairing: str | None = None  # "interleaved" or "half-split" where the architecture fixes it
    scaling: dict = field(default_factory=dict)  # {"type": …, and its parameters}
    inv_freq: np.ndarray | None = None  # float64, after scaling, at the maximum context
    attention_factor: float = 1.0
    window: int | None = None
    inv_freq_short: np.ndarray | None = None  # LongRoPE: the factors used up to the original

    @property
    def signature(self) -> tuple:
        """Layers with equal signatures do the same with positions."""
        return (
            self.method,
            self.kind,
            self.theta,
            self.rotary_dim,
            self.window,
            json.dumps(self.scaling, sort_keys=True, default=str),
        )


@dataclass(frozen=True)
class Finding:
    """Something that looks wrong, or worth knowing, with the numbers that show it."""

    code: str
    sentence: str
    evidence: str
    severity: str = "warning"  # "warning" or "note"


@dataclass
class ModelPositions:
    """A model's positions, one entry per layer, with findings and the source of every value."""

    name: str
    architecture: str
    layers: list[Layer]
    original_context: int | None
    max_context: int | None
    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    config: dict = field(default_factory=dict)

    def layer_types(self) -> list[tuple[Layer, list[int]]]:
        """Each distinct layer, with the indices of the layers that do the same."""
        groups: dict[tuple, tuple[Layer, list[int]]] = {}
        for layer in self.layers:
            groups.setdefault(layer.signature, (layer, []))[1].append(layer.index)
        return list(groups.values())

    def report(self) -> str:
        from .model_report import report

        return report(self)

    def to_json(self) -> dict:
        from .model_report import as_json

        return as_json(self)


def parse_json(text: str) -> dict:
    """A config.json's object, or ModelError: size-capped, no NaN or infinities."""
    if len(text) > MAX_JSON_CHARS:
        raise ModelError(f"this JSON is {len(text):,} characters; a config.json is far smaller")

    def refuse(word: str):
        raise ModelError(f"this JSON holds {word}, which is not a number a config can use")

    try:
        value = json.loads(text, parse_constant=refuse)
    except ModelError:
        raise
    except (ValueError, RecursionError) as error:
        raise ModelError(f"this is not valid JSON ({str(error)[:80]})") from None
    if not isinstance(value, dict):
        raise ModelError(f"a config.json is a JSON object {{…}}, this is a {type(value).__name__}")
    return value


def number(config: dict, key: str, *, low: float = 0.0, high: float = math.inf) -> float | None:
    """config[key] as a finite number in (low, high], None when absent, else ModelError."""
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ModelError(f"{key} must be a number, got {str(value)[:40]!r}")
    if not low < value <= high:
        raise ModelError(f"{key} must be greater than {low:g} and at most {high:g}, got {value!r}")
    return float(value)


def integer(config: dict, key: str, *, high: int) -> int | None:
    """config[key] as a whole number in 1 … high, None when absent, else ModelError."""
    value = number(config, key, high=high)
    if value is None:
        return None
    if value != int(value):
        raise ModelError(f"{key} must be a whole number, got {config[key]!r}")
    return int(value)


@dataclass
class Reading:
    """What a config says about positions, before the layers are built."""

    config: dict
    sources: dict[str, str]
    findings: list[Finding]
    model_type: str = ""

    def note(self, name: str, source: str) -> None:
        self.sources.setdefault(name, source)

    def find(self, code: str, sentence: str, evidence: str, severity: str = "warning") -> None:
        if all(f.code != code or f.evidence != evidence for f in self.findings):
            self.findings.append(Finding(code, sentence, evidence, severity))


def text_config(config: dict) -> dict:
    """The language model's part of a multimodal config (Llama 4, Gemma 3, Qwen2.5-VL …)."""
    inner = config.get("text_config")
    if isinstance(inner, dict):
        merged = {k: v for k, v in config.items() if k != "text_config"}
        return {**merged, **inner, "_outer_model_type": config.get("model_type")}
    return config


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
    if nope and integer(config, "qk_rope_head_dim", high=MAX_HEAD_DIM):  # DeepSeek's MLA
        head_dim = nope + config["qk_rope_head_dim"]
        reading.note("head_dim", "config.json: qk_nope_head_dim + qk_rope_head_dim (MLA)")
    elif head_dim:
        reading.note("head_dim", "config.json: head_dim")
    elif heads and hidden:
        head_dim = hidden // heads
        reading.note("head_dim", "hidden_size / num_attention_heads")
    else:
        raise ModelError(
            "the config names neither head_dim nor hidden_size and num_attention_heads"
        )
    if head_dim > MAX_HEAD_DIM or head_dim < 2:
        raise ModelError(f"head_dim must be between 2 and {MAX_HEAD_DIM}, got {head_dim}")
    return head_dim, arch.rotary_dim(reading, head_dim)


def model_context(reading: Reading, params: dict) -> tuple[int | None, int | None]:
    """(original, maximum) context, with their sources."""
    config = reading.config
    top = integer(config, "max_position_embeddings", high=MAX_CONTEXT) or integer(
        config, "n_positions", high=MAX_CONTEXT
    )
    if top:
        reading.note("max_context", "config.json: max_position_embeddings")
    original = integer(params, "original_max_position_embeddings", high=MAX_CONTEXT)
    if original is None:
        original = integer(config, "original_max_position_embeddings", high=MAX_CONTEXT)
    if original:
        reading.note("original_context", "original_max_position_embeddings")
        return original, top or original
    kind = params.get("rope_type")
    factor = params.get("factor")
    if kind == "dynamic" and top and isinstance(factor, Real) and factor > 1:
        reading.note("original_context", "max_position_embeddings (dynamic NTK grows past it)")
        reading.note("max_context", "factor × max_position_embeddings")
        return top, min(int(top * factor), MAX_CONTEXT)
    if top:
        reading.note("original_context", "max_position_embeddings (no original given)")
    return top, top


def layer_frequencies(
    params: dict, head_dim: int, rotary_dim: int, original: int | None, top: int | None
) -> tuple[np.ndarray, float, np.ndarray | None]:
    """(inv_freq, attention_factor, LongRoPE's short inv_freq) of one rope parameter set."""
    kind = params["rope_type"]
    base = params["rope_theta"]
    factor = float(params.get("factor") or 1.0)
    if kind == "default" or kind == "mrope":
        return default_frequencies(rotary_dim, base), 1.0, None
    if kind == "proportional":  # exponent over head_dim, zeros past the rotated part
        angles = rotary_dim // 2
        inv = np.zeros(head_dim // 2)
        inv[:angles] = 1.0 / base ** (np.arange(0, 2 * angles, 2, dtype=np.float64) / head_dim)
        return inv / factor, 1.0, None
    original = original or top or 1
    if kind == "linear":
        return default_frequencies(rotary_dim, base) / factor, 1.0, None
    if kind == "dynamic":
        inv, att = rope_scaled_frequencies(
            "dynamic", rotary_dim, base, _factor(factor), original, seq_len=top or original
        )
        return inv, att, None
    if kind == "llama3":
        return _llama3(params, rotary_dim, base, factor, original)
    if kind == "yarn":
        return _yarn(params, rotary_dim, base, factor, original, top)
    if kind == "longrope":
        return _longrope(params, rotary_dim, base, original, top)
    raise ModelError(f"unknown rope type {str(kind)[:40]!r}")


def _factor(factor: float) -> float:
    if not 1.0 <= factor <= MAX_FACTOR:
        raise ModelError(f"the scaling factor must be between 1 and {MAX_FACTOR:g}, got {factor:g}")
    return factor


def _llama3(params, rotary_dim, base, factor, original):
    """`_compute_llama3_parameters`, written out: scaling.py refuses low == high frequency
    factors, which Llama 4 uses (1 and 1: every pair either kept or divided, none smoothed)."""
    low = float(params.get("low_freq_factor", 1.0))
    high = float(params.get("high_freq_factor", 4.0))
    if not (0 < low <= high and math.isfinite(high)):
        raise ModelError(
            f"llama3 needs 0 < low_freq_factor <= high_freq_factor, got {low:g}, {high:g}"
        )
    inv = default_frequencies(rotary_dim, base)
    wavelength = 2 * math.pi / inv
    scaled = np.where(wavelength > original / low, inv / _factor(factor), inv)
    medium = ~(wavelength < original / high) & ~(wavelength > original / low)
    if medium.any():  # only when low < high
        smooth = (original / wavelength - low) / (high - low)
        scaled = np.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)
    return scaled, 1.0, None


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """`get_mscale` of `_compute_yarn_parameters`: 0.1 · mscale · ln s + 1, 1 when s <= 1."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _yarn(params, rotary_dim, base, factor, original, top):
    if params.get("factor") is None and top:
        factor = top / original  # as transformers, when the config gives no factor
    inv, att = rope_scaled_frequencies(
        "yarn",
        rotary_dim,
        base,
        _factor(factor),
        original,
        beta_fast=float(params.get("beta_fast") or 32.0),
        beta_slow=float(params.get("beta_slow") or 1.0),
        truncate=bool(params.get("truncate", True)),
    )
    given = params.get("attention_factor")
    mscale, all_dim = params.get("mscale"), params.get("mscale_all_dim")
    if isinstance(given, Real) and not isinstance(given, bool):
        att = float(given)
    elif mscale and all_dim:
        att = yarn_mscale(factor, float(mscale)) / yarn_mscale(factor, float(all_dim))
    return inv, att, None


def _factor_list(params: dict, key: str, pairs: int) -> np.ndarray:
    """LongRoPE's long_factor or short_factor, checked as scaling.check_factors checks them."""
    try:
        return check_factors(params.get(key), pairs)
    except ValueError as error:
        raise ModelError(f"LongRoPE's {key}: {error}") from None


def _longrope(params, rotary_dim, base, original, top):
    pairs = rotary_dim // 2
    long = _factor_list(params, "long_factor", pairs)
    short = _factor_list(params, "short_factor", pairs)
    factor = params.get("factor")
    if factor is None:
        factor = (top or original) / original  # Phi-3: max_position_embeddings / original
    att = params.get("attention_factor")
    if att is None:
        att = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
    plain = default_frequencies(rotary_dim, base)
    return plain / long, float(att), plain / short


def read_model(source: object, *more: object, name: str = "") -> ModelPositions:
    """A model's positions from a config dict, JSON text, a GGUF or safetensors header's bytes,
    or a path to any of these; more sources of the same model are compared with the first."""
    from .model_findings import compare_sources
    from .model_sources import load

    loaded = sorted((load(s) for s in (source, *more)), key=lambda x: x.kind == "safetensors")
    first = loaded[0]
    if first.kind == "safetensors":
        raise ModelError(
            "a safetensors file holds the weights, not the config: give its config.json too, "
            "and its stored inv_freq is checked against it"
        )
    model = build(first.config, first.sources, name=name or first.name)
    for other in loaded[1:]:
        compare_sources(model, other)
    return model


def build(config: dict, sources: dict[str, str] | None = None, *, name: str = "") -> ModelPositions:
    """ModelPositions of a config.json-shaped dict (see read_model)."""
    from .model_findings import find_all

    if not isinstance(config, dict):
        raise ModelError("a model's config is a JSON object")
    reading = Reading(text_config(config), dict(sources or {}), [])
    reading.model_type = str(reading.config.get("model_type") or "")
    layers, original, top = arch.layers(reading)
    model = ModelPositions(
        name=name or str(config.get("_name_or_path") or reading.model_type or "model"),
        architecture=reading.model_type,
        layers=layers,
        original_context=original,
        max_context=top,
        findings=reading.findings,
        sources=reading.sources,
        config=config,
    )
    find_all(model, reading)
    return model


def from_path(path: str | Path) -> Path:
    """A path that exists, as a Path, else ModelError."""
    resolved = Path(path)
    if not resolved.is_file():
        raise ModelError(f"no file at {str(path)[:80]}")
    return resolved


# The scaling controls' names for transformers' rope types (the RoPE checker's reference).
CONTROL_METHODS = {"default": "none", "mrope": "none", "linear": "pi", "dynamic": "dynamic",
                   "yarn": "yarn", "llama3": "llama3", "longrope": "longrope"}  # fmt: skip


def scaling_settings(layer: Layer, model: ModelPositions) -> tuple[dict, str]:
    """The explorer's scaling controls set to a layer type (d_model read as its rotary size),
    and "" ; or {} and why the controls cannot express it."""
    kind = layer.scaling.get("type", "default")
    method = CONTROL_METHODS.get(kind)
    if layer.method != "rope" or method is None:
        return {}, f"the controls have no {kind if layer.method == 'rope' else layer.method}"
    params = layer.scaling
    factor = float(params.get("factor") or 1.0)
    settings = {
        "scaling": method,
        "d_model": layer.rotary_dim,
        "base": layer.theta,
        "original_context": model.original_context or 4096,
        "factor": max(factor, 1.0),
    }
    if method == "none":
        settings["factor"] = 1.0
    elif method == "dynamic":
        settings["seq_len"] = model.max_context or settings["original_context"]
    elif method == "yarn":
        settings.update(beta_fast=float(params.get("beta_fast") or 32.0),
                        beta_slow=float(params.get("beta_slow") or 1.0),
                        truncate=bool(params.get("truncate", True)))  # fmt: skip
    elif method == "llama3":
        low, high = (
            float(params.get("low_freq_factor", 1)),
            float(params.get("high_freq_factor", 4)),
        )
        if high <= low:
            return (
                {},
                "the controls need high_freq_factor above low_freq_factor (Llama 4 has both 1)",
            )
        settings.update(low_freq_factor=low, high_freq_factor=high)
    elif method == "longrope":
        top, original = model.max_context or 1, settings["original_context"]
        settings["factor"] = float(params.get("factor") or max(top / original, 1.0))
        settings["longrope_factors"] = ", ".join(f"{v:.9g}" for v in params.get("long_factor", []))
    return settings, ""

"""A model's positions, normalised: what each layer does with positions, read from a Hugging Face
config.json (the `rope_scaling` schema with `type` or `rope_type`, or the newer `rope_parameters`,
also nested per layer type), a GGUF header or a safetensors header.

    read_model(source, *more) -> ModelPositions

Each layer's `inv_freq` is computed in float64 as `transformers`' modeling_rope_utils.py computes it
(`_compute_default_rope_parameters`, `_compute_linear_scaling_rope_parameters`,
`_compute_dynamic_ntk_parameters`, `_compute_yarn_parameters`, `_compute_longrope_parameters`,
`_compute_llama3_parameters`, `_compute_proportional_rope_parameters`), by its rope type's
function in `rope_types.py`.
Which layers rotate, and with which base, follows each model's `modeling_*.py` (named where used).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..encoding import BASE_RANGE
from ..scaling import check_factors
from . import arch, engines, llamacpp
from .findings import compare_sources, find_all
from .sources import gguf_origins, load
from .types import (
    Engine,
    GGUFFacts,
    Layer,
    ModelError,
    ModelPositions,
    Origin,
    Reading,
    origins_of,
)


def read_model(source: object, *more: object, name: str = "", engine: str = "") -> ModelPositions:
    """A model's positions from a config dict, JSON text, a GGUF or safetensors header's bytes,
    or a path to any of these; more sources of the same model are compared with the first.

    engine="both" with a preset's name alone: the preset as transformers runs its config.json and
    as llama.cpp runs the GGUF its converter writes for it, side by side."""
    if engine not in ("", "both"):
        raise ModelError(f"engine is 'both' or left out, not {str(engine)[:40]!r}")
    if engine == "both" and not more:
        from .converter import converted

        more = (converted(source),)
    loaded = sorted((load(s) for s in (source, *more)), key=lambda x: x.kind == "safetensors")
    first = loaded[0]
    if first.kind == "safetensors":
        raise ModelError(
            "a safetensors file holds the weights, not the config: give its config.json too, "
            "and its stored inv_freq is checked against it"
        )
    model = build(
        first.config, first.sources, name=name or first.name, gguf=first.gguf, origins=first.origins
    )
    for other in loaded[1:]:
        second = (
            None
            if other.kind == "safetensors"
            else build(
                other.config, other.sources, name=other.name, gguf=other.gguf, origins=other.origins
            )
        )
        compare_sources(model, other, second, both=engine == "both")
    return model


def build(
    config: dict,
    sources: dict[str, str] | None = None,
    *,
    name: str = "",
    gguf: GGUFFacts | None = None,
    origins: dict[str, Origin] | None = None,
) -> ModelPositions:
    """ModelPositions of a config.json-shaped dict, and of a GGUF's facts when it is one (see
    read_model); `origins`: where each key of a config not read as published comes from (a
    preset's defaults, a GGUF's keys), else every key is the config.json's own."""
    if not isinstance(config, dict):
        raise ModelError("a model's config is a JSON object")
    reading = engine_reading(config, sources, gguf, origins)
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
        engine=reading.engine_name,
        read_by=reading.engine,
        gguf=gguf,
    )
    find_all(model, reading)
    return model


def engine_reading(
    config: dict,
    sources: dict[str, str] | None,
    gguf: GGUFFacts | None,
    origins: dict[str, Origin] | None = None,
) -> Reading:
    """The one choice of engine: llama.cpp for a GGUF, transformers for a model type its tables
    hold (the config then as its class builds it), else the config's generic keys. Each key's
    origin is kept as the config is normalised (Reading.origins)."""
    reading = Reading({}, dict(sources or {}), [], gguf=gguf)
    if origins is None:
        origins = origins_of(config) if gguf is None else gguf_origins(gguf)
    reading.origins = dict(origins)
    if gguf is not None:  # llama.cpp's keys, not a class's
        reading.config = config
        reading.model_type = str(config.get("model_type") or "")
        reading.engine, reading.row = Engine.LLAMACPP, llamacpp.row_of(gguf.architecture)
        reading.engine_name = llamacpp.engine_name(gguf.architecture)
        return reading
    reading.given = engines.text_part(config, reading)
    reading.model_type = str(reading.given.get("model_type") or "")
    reading.row = engines.row_of(reading.model_type)
    if reading.row is not None:
        reading.engine, reading.engine_name = Engine.TRANSFORMERS, engines.engine_name(reading.row)
    reading.config = engines.standardise(reading.given, reading)
    return reading


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
    if not BASE_RANGE[0] <= layer.theta <= BASE_RANGE[1]:
        return {}, f"the controls' base runs {BASE_RANGE[0]:g} … {BASE_RANGE[1]:,.0f}"
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
        # the factors the layer runs at the maximum context: PhiMoE's forward keeps the short ones
        runs_short = layer.inv_freq_short is not None and np.array_equal(
            layer.inv_freq, layer.inv_freq_short
        )
        factors = params.get("short_factor" if runs_short else "long_factor", [])
        try:  # a factor outside the controls' range, or one for every pair, runs in transformers
            check_factors(factors, layer.rotary_dim // 2)
        except ValueError as error:
            return {}, f"the controls' LongRoPE {error}"
        settings["longrope_factors"] = ", ".join(f"{v:.9g}" for v in factors)
    return settings, ""

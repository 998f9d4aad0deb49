"""A model's positions as plain text for a forum post, and as JSON for export."""

from __future__ import annotations

import math

import numpy as np


def ranges(indices: list[int]) -> str:
    """'0-4, 6, 8-9' from sorted layer indices."""
    parts, start = [], None
    for i, index in enumerate(indices):
        if start is None:
            start = index
        if i + 1 == len(indices) or indices[i + 1] != index + 1:
            parts.append(str(start) if start == index else f"{start}–{index}")
            start = None
    return ", ".join(parts)


def layer_line(layer, indices: list[int]) -> str:
    """One line about a layer type."""
    head = f"layers {ranges(indices)} ({len(indices)}): {layer.label}, "
    if layer.method != "rope":
        return head + {
            "none": "no position encoding",
            "alibi": "ALiBi biases",
            "learned": "a learned position table",
            "t5": "T5 relative buckets",
            "sinusoidal": "sinusoidal table",
        }.get(layer.method, layer.method)
    words = [
        f"RoPE θ = {layer.theta:g}",
        f"rotary {layer.rotary_dim} of {layer.head_dim}",
        f"{layer.pairing} pairs",
        f"scaling {scaling_text(layer.scaling)}",
    ]
    if layer.window:
        words.append(f"window {layer.window:,}")
    if not math.isclose(layer.attention_factor, 1.0):
        words.append(f"attention factor {layer.attention_factor:.6g}")
    return head + ", ".join(words)


def scaling_text(scaling: dict) -> str:
    kind = scaling.get("type", "default")
    if kind == "default":
        return "none"
    shown = [
        f"{k} {v:g}" for k, v in scaling.items() if isinstance(v, (int, float)) and k != "type"
    ]
    return kind + (f" ({', '.join(shown)})" if shown else "")


def engine_line(model) -> str:
    """Which engine's rules the layers follow, in words."""
    if model.engine:
        return f"layers as {model.engine}"
    return "layers read from the generic keys: no engine's own rules are known for this model"


def report(model) -> str:
    """Plain text: the model, each layer type, the findings, the sources."""
    lines = [f"Positions of {model.name} ({model.architecture or 'unknown architecture'})"]
    lines.append(engine_line(model))
    if model.original_context:
        lines.append(f"context: trained on {model.original_context:,}, up to {model.max_context:,}")
    lines += [layer_line(layer, idx) for layer, idx in model.layer_types()]
    for layer, _ in model.layer_types():
        if layer.inv_freq is not None:
            inv = layer.inv_freq
            lines.append(f"  {layer.kind} inv_freq: {inv.size} pairs, {inv[0]:.9g} … {inv[-1]:.9g}")
    lines.append("findings:" if model.findings else "findings: none")
    for finding in model.findings:
        lines.append(f"  [{finding.code}] {finding.sentence}")
        lines.append(f"      evidence: {finding.evidence}")
    lines.append("sources:")
    lines += [f"  {name}: {where}" for name, where in model.sources.items()]
    return "\n".join(lines)


def as_json(model) -> dict:
    """Everything the view shows, JSON-ready (arrays as lists of floats)."""

    def layer_json(layer, indices: list[int]) -> dict:
        fields = {
            "layers": indices,
            "kind": layer.label,
            "method": layer.method,
            "theta": layer.theta,
            "head_dim": layer.head_dim,
            "rotary_dim": layer.rotary_dim,
            "pairing": layer.pairing,
            "scaling": {k: _plain(v) for k, v in layer.scaling.items()},
            "attention_factor": layer.attention_factor,
            "window": layer.window,
        }
        for key in ("inv_freq", "inv_freq_short"):
            value = getattr(layer, key)
            if value is not None:
                fields[key] = [float(v) for v in value]
        return fields

    return {
        "schema": "pe-explorer/model-positions",  # what the page downloads and the command prints
        "version": 1,
        "name": model.name,
        "architecture": model.architecture,
        "original_context": model.original_context,
        "max_context": model.max_context,
        "engine": model.engine,
        "layer_types": [layer_json(layer, idx) for layer, idx in model.layer_types()],
        "findings": [vars(f) for f in model.findings],
        "sources": dict(model.sources),
    }


def _plain(value):
    if isinstance(value, np.ndarray):
        return [float(v) for v in value]
    return value

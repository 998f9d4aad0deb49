"""pe_explorer: the sinusoidal positional encodings of "Attention Is All You Need", explored.

    from pe_explorer import show, positional_encoding, diagnose

The public API, imported when first used (the maths needs NumPy only; `show` needs Panel):
- `show` and `iframe` draw the explorer in a notebook;
- `positional_encoding`, `compare`, `offset_dots` and `wavelengths` are the maths;
- `rope_scores`, `alibi_slopes` and `alibi_bias` the other methods;
- `rope_scaled_frequencies` the long-context scalings of RoPE, `t5_relative_bucket` T5's buckets;
- `diagnose` and `diagnose_rope` check a matrix, or an inv_freq array, that other code made;
- `read_model` reads a model's config.json, GGUF or safetensors header: its positions, layer by
  layer, with findings;
- `simulate` runs a mistake (low precision, left padding, a cache, a conversion …) on a model's
  layer and says what goes wrong, and by how much.
"""

from __future__ import annotations

from importlib import import_module

# Each public name and the module it lives in.
_PUBLIC = {
    "show": "notebook",
    "iframe": "notebook",
    "positional_encoding": "encoding",
    "encode_positions": "encoding",
    "angular_frequencies": "encoding",
    "wavelengths": "encoding",
    "compare": "encoding",
    "offset_dots": "encoding",
    "rotation_matrix": "encoding",
    "rope_rotate": "methods",
    "rope_scores": "methods",
    "alibi_slopes": "methods",
    "alibi_bias": "methods",
    "rope_scaled_frequencies": "scaling",
    "t5_relative_bucket": "relative",
    "diagnose": "diagnosis",
    "diagnose_rope": "rope_diagnosis",
    "read_model": "model.reader",
    "simulate": "mistakes.simulate",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'pe_explorer' has no attribute {name!r}")
    value = getattr(import_module(f".{_PUBLIC[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names only (not _PUBLIC, import_module or annotations)."""
    return list(__all__)

"""Where a model's description comes from: a dict, JSON text, the bytes of a GGUF or safetensors
header, a path, or a preset; each read into one config.json-shaped dict with the source of every
value. GGUF and safetensors files are read by their headers only (files.py).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import files
from .presets import PRESETS
from .types import GGUFFacts, ModelError, Origin, fact_name, origins_of
from .values import parse_json


@dataclass
class Loaded:
    """One description of a model: its config, the source of each value, and what it was."""

    config: dict
    sources: dict[str, str] = field(default_factory=dict)
    name: str = ""
    kind: str = "config.json"  # "config.json", "gguf", "safetensors", "preset"
    gguf: GGUFFacts | None = None  # a GGUF's: llama.cpp reads it
    inv_freq: np.ndarray | None = None  # a safetensors header's stored inv_freq
    # where each key of `config` comes from, when it is not the config.json's own key (Reading)
    origins: dict[str, Origin] | None = None


def load(source: object) -> Loaded:
    """A Loaded from any of read_model's sources."""
    if isinstance(source, Loaded):
        return source
    if isinstance(source, dict):
        return Loaded(dict(source))
    if isinstance(source, (bytes, bytearray, memoryview)):
        return from_source(files.ByteSource.from_bytes(bytes(source)), "")
    if isinstance(source, str) and (
        source.lstrip()[:1] in ("{", "[") or len(source) > 4096 or "\n" in source
    ):
        return Loaded(parse_json(source))
    if isinstance(source, (str, Path)):
        if isinstance(source, str) and source in PRESETS:
            return preset(source)
        path = Path(source)
        if not path.is_file():
            raise ModelError(f"no preset or file named {str(source)[:80]!r}")
        return from_source(files.ByteSource.from_path(path), path.name)
    raise ModelError(
        f"a model is read from a dict, JSON text, bytes or a path, not {type(source).__name__}"
    )


def merged(low: dict, high: dict) -> dict:
    """high over low, nested objects merged key by key."""
    out = dict(low)
    for key, value in high.items():
        out[key] = (
            merged(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


def preset_config(name: str) -> dict:
    """A preset's config: its base preset's (for a documented edit of one), the defaults the
    published file leaves to the loading code, then the file's own values."""
    entry = PRESETS[name]
    config = json.loads(json.dumps(entry["config"]))
    config = merged(entry.get("defaults", {}), config)
    if entry.get("base"):
        config = merged(preset_config(entry["base"]), config)
    return normalised(config, entry.get("format", "config.json"))


def preset(name: str) -> Loaded:
    entry = PRESETS[name]
    sources = {"config": f"preset {name}: {entry['source']}"}
    if entry.get("defaults_source"):
        sources["defaults"] = entry["defaults_source"]
    if entry.get("base"):
        sources["base"] = f"the preset {entry['base']}, edited as its source documents"
    loaded = Loaded(preset_config(name), sources, entry["label"], "preset")
    loaded.origins = preset_origins(name)
    return loaded


def preset_origins(name: str) -> dict[str, Origin]:
    """Where each key of preset_config(name) comes from: the file's own keys as it writes them
    (over its base preset's, for a fragment), else the loading code's defaults."""
    entry = PRESETS[name]
    kind = entry.get("format", "config.json")
    out = preset_origins(entry["base"]) if entry.get("base") else {}
    said = f"default of {entry.get('defaults_source', '').split(' (')[0]} (see defaults)"
    defaults = {path: Origin(given_by=said) for path in origins_of(entry.get("defaults", {}))}
    own = origins_of(entry["config"], "config.json" if kind.startswith("config.json") else kind)
    return {**out, **format_origins({**defaults, **own}, kind)}


def format_origins(origins: dict[str, Origin], kind: str) -> dict[str, Origin]:
    """origins_of a config in another format, under the names normalised() gives its keys."""
    if kind not in FORMAT_KEYS:
        return origins
    renames = dict(FORMAT_KEYS[kind])
    if kind.startswith("DeepSeek"):
        renames.update(DEEPSEEK_YARN_KEYS)
    out = {renames.get(p.replace("-", "_"), p.replace("-", "_")): o for p, o in origins.items()}
    if kind.startswith("DeepSeek"):
        out["inference_max_seq_len"] = out.pop("max_position_embeddings", Origin())
        factor = out.get("rope_scaling.factor", Origin()).given_by
        out["max_position_embeddings"] = Origin(
            given_by=f"rope_factor × original_seq_len, both the {factor}"
        )
        out["rope_scaling.rope_type"] = Origin(given_by=f"YaRN, which rope_factor sets: {factor}")
    return out


# Other formats' names for config.json's: GPT-NeoX's yml (hyphens read as underscores) and
# DeepSeek-V3's own inference config (inference/model.py ModelArgs).
FORMAT_KEYS = {
    # megatron/neox_arguments/neox_args.py: num_layers, rotary_emb_base (hidden_size, heads,
    # max_position_embeddings and rotary_pct are config.json's names already).
    "gpt-neox yml": {"rotary_emb_base": "rope_theta", "num_layers": "num_hidden_layers"},
    "DeepSeek-V3 inference config": {
        "dim": "hidden_size",
        "n_layers": "num_hidden_layers",
        "n_heads": "num_attention_heads",
        "max_seq_len": "max_position_embeddings",
    },
}
# ModelArgs' YaRN settings, where config.json keeps them.
DEEPSEEK_YARN_KEYS = {
    "rope_factor": "rope_scaling.factor",
    "original_seq_len": "rope_scaling.original_max_position_embeddings",
    "beta_fast": "rope_scaling.beta_fast",
    "beta_slow": "rope_scaling.beta_slow",
    "mscale": "rope_scaling.mscale",
}
FORMAT_TYPES = {"gpt-neox yml": "gpt_neox", "DeepSeek-V3 inference config": "deepseek_v3"}


def normalised(config: dict, kind: str) -> dict:
    """A config in another format, renamed to config.json's keys."""
    if kind not in FORMAT_KEYS:
        return config
    renames = FORMAT_KEYS[kind]
    out = {renames.get(k.replace("-", "_"), k.replace("-", "_")): v for k, v in config.items()}
    out.setdefault("model_type", FORMAT_TYPES[kind])
    if kind.startswith("DeepSeek"):  # ModelArgs' YaRN, as the HF config's rope_scaling
        out["rope_scaling"] = {
            "rope_type": "yarn",
            **{new[13:]: out.pop(old) for old, new in DEEPSEEK_YARN_KEYS.items() if old in out},
        }
        # ModelArgs' max_seq_len is the inference script's cap, not the model's context: the
        # context YaRN reaches is factor × the original.
        out["inference_max_seq_len"] = out.pop("max_position_embeddings", None)
        scaling = out["rope_scaling"]
        if "factor" in scaling and "original_max_position_embeddings" in scaling:
            out["max_position_embeddings"] = int(
                scaling["factor"] * scaling["original_max_position_embeddings"]
            )
    return out


def sniff(head: bytes) -> str:
    """'gguf', 'safetensors' or 'json' from a file's first bytes."""
    if head[:4] == b"GGUF":
        return "gguf"
    if len(head) >= 9 and head[8:9] == b"{":
        return "safetensors"
    if head.lstrip()[:1] == b"{":
        return "json"
    raise ModelError("this is neither a config.json, a GGUF file nor a safetensors file")


def from_source(source: files.ByteSource, name: str = "") -> Loaded:
    """Read whatever the byte source holds (all its bytes present, or a path behind it)."""
    kind = sniff(source.read(0, min(source.size, 16)))
    if kind == "gguf":
        return from_gguf(source, name)
    if kind == "safetensors":
        return from_safetensors(source, name)
    if source.size > 4 << 20:
        raise ModelError("this JSON file is larger than 4 MiB; a config.json is far smaller")
    try:
        text = source.read(0, source.size).decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError("this file is not UTF-8 text, so not a config.json") from None
    return Loaded(parse_json(text), name=name)


# GGUF architecture names whose transformers model_type differs (defaults are read by model_type).
GGUF_MODEL_TYPES = {
    "gemma3": "gemma3_text",
    "llama4": "llama4_text",
    "gpt-oss": "gpt_oss",
    "qwen2vl": "qwen2_vl",
    "qwen3vl": "qwen3_vl",
    "gptneox": "gpt_neox",
    "deepseek2": "deepseek_v3",
}


def from_gguf(source: files.ByteSource, name: str) -> Loaded:
    """A GGUF header's positions as a config dict; its RoPE tensors ride along."""
    header = files.read_gguf(source)
    return from_gguf_header(header, files.read_gguf_rope_tensors(source, header), name)


def from_gguf_metadata(metadata: dict, name: str, tensors: dict | None = None) -> Loaded:
    """A GGUF's key/value pairs (and RoPE tensors, name -> values) as from_gguf reads a file's:
    what a converter writes, without a file."""
    arch = metadata.get("general.architecture")
    header = files.GGUFHeader(
        version=3,
        byte_order="<",
        metadata=dict(metadata),
        metadata_types={},
        tensors={},
        architecture=arch if isinstance(arch, str) else None,
        alignment=32,
        data_offset=0,
    )
    arrays = {key: np.asarray(value, dtype=np.float32) for key, value in (tensors or {}).items()}
    return from_gguf_header(header, arrays, name)


def from_gguf_header(header: files.GGUFHeader, tensors: dict, name: str) -> Loaded:
    """A read GGUF header's positions (see from_gguf)."""
    config, facts = files.gguf_positions(header, tensors)
    arch = facts.architecture
    config["model_type"] = GGUF_MODEL_TYPES.get(arch, arch)
    sources = {fact_name(key): f"GGUF: {gguf_key}" for key, gguf_key in facts.keys.items()}
    prefix = arch + "."
    mla = facts.metadata.get("attention.key_length_mla")
    if isinstance(mla, int) and mla > 0:  # DeepSeek's MLA, stored as MQA: key_length is 576
        config["head_dim"] = mla
        sources["head_dim"] = f"GGUF: {prefix}attention.key_length_mla"
        partial = files.partial_rotary_factor(config)
        if partial is not None:
            config["partial_rotary_factor"] = partial
    bias = facts.metadata.get("attention.max_alibi_bias")
    if isinstance(bias, (int, float)) and bias > 0:  # MPT, BLOOM …: llama.cpp's ALiBi
        config["alibi"] = True
        sources["method"] = f"GGUF: {prefix}attention.max_alibi_bias"
    for key in ("num_attention_heads", "num_key_value_heads"):
        if isinstance(config.get(key), list):  # per-layer counts (Nemotron-H, OpenELM …)
            counts = [c for c in config[key] if isinstance(c, int) and c > 0]
            config[key] = max(counts) if counts else 1
    label = header.metadata.get("general.name")
    label = (label if isinstance(label, str) and label else name)[:80]
    origins = gguf_origins(facts)
    if isinstance(mla, int) and mla > 0:
        origins["head_dim"] = Origin("GGUF", prefix + "attention.key_length_mla")
    return Loaded(config, sources, label, "gguf", gguf=facts, origins=origins)


def gguf_origins(facts: GGUFFacts) -> dict[str, Origin]:
    """Each config key a GGUF's header gives, with the GGUF key it was read from."""
    return {path: Origin("GGUF", key) for path, key in facts.keys.items()}


def from_safetensors(source: files.ByteSource, name: str) -> Loaded:
    """A safetensors header: the stored inv_freq, compared with a config given beside it."""
    header = files.read_safetensors(source)
    stored = files.safetensors_inv_freq(source, header)
    if not stored:
        raise ModelError(
            "this safetensors file stores no rotary_emb.inv_freq tensor: its positions are in "
            "the config.json beside it"
        )
    first_name, first = next(iter(stored.items()))
    sources = {"inv_freq": f"safetensors: {first_name}"}
    return Loaded({}, sources, name, "safetensors", inv_freq=np.asarray(first))


def u64(data: bytes) -> int:
    return struct.unpack("<Q", data[:8])[0]


def as_array(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)

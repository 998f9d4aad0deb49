"""The types of a model's positions: the error, one layer, a finding, the whole model and the
reading in progress. Every other module of the family imports these; this one imports none of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

METHODS = ("rope", "none", "alibi", "learned", "sinusoidal", "t5")
# A config.json is a few kilobytes (Phi-3's 128k one, with its factor lists, about 12 KB).
MAX_JSON_CHARS = 4 << 20
MAX_THETA = 1e12
MAX_LAYERS = 1024
MAX_HEAD_DIM = 2048


# The one name of each fact in a model's sources, for the config keys that state a fact the reader
# names otherwise: the first source noted for a fact is kept, whichever name noted it.
FACT_NAMES = {
    "max_position_embeddings": "max_context",
    "rope_scaling.rope_type": "scaling",
    "rope_scaling.original_max_position_embeddings": "original_context",
    "rope_local_base_freq": "rope_theta (local)",
    "partial_rotary_factor": "rotary_dim",
}


def fact_name(name: str) -> str:
    return FACT_NAMES.get(name, name)


# Layer types as transformers names them.
FULL, SLIDING, CHUNKED = "full_attention", "sliding_attention", "chunked_attention"


class ModelError(ValueError):
    """A model description that cannot be read: one plain sentence for the visitor."""


class Engine(StrEnum):
    """The engine whose rules a file is read by, chosen once, where the file is loaded."""

    TRANSFORMERS = "transformers"  # a config.json of a model type transformers' tables hold
    LLAMACPP = "llama.cpp"  # a GGUF
    GENERIC = "generic"  # a config.json of a model type no engine's table holds: generic keys


@dataclass(frozen=True)
class GGUFFacts:
    """What a GGUF says beyond its config.json-named keys: llama.cpp's architecture, that
    architecture's own keys (prefix removed) as llama.cpp's rules read them, the GGUF key each
    config value came from, and the per-pair divisors of its rope_freqs tensor."""

    architecture: str
    metadata: dict = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    rope_freqs: np.ndarray | None = None


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
    def rotates(self) -> bool:
        return self.method == "rope"

    @property
    def label(self) -> str:
        """The layer type as the page names it: "full_attention (no RoPE)" for a layer of a RoPE
        model that does not rotate."""
        return f"{self.kind} (no RoPE)" if self.method == "none" else self.kind

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


# Each finding code's one severity (docs/model-findings.md). A warning: an engine in scope
# (transformers at its pin, llama.cpp at its pin) runs the file otherwise than the file states,
# the two run it otherwise than each other, or one refuses it; its sentence names the engine, its
# version and the file:line. Everything else is a note: worth knowing, never failing a build.
WARNING, NOTE = "warning", "note"
SEVERITY = {
    "engine-refuses": WARNING,
    "engine-ignores-key": WARNING,
    "engine-forward-differs": WARNING,
    "engines-differ": WARNING,
    "gguf-config-mismatch": WARNING,
    "gguf-rope-tensor-mismatch": WARNING,
    "gguf-double-scaling": WARNING,
    "old-type-key": NOTE,
    "default-theta": NOTE,
    "factor-context-mismatch": NOTE,
    "missing-original-context": NOTE,
    "safetensors-inv-freq-mismatch": NOTE,
    "sources-disagree": NOTE,
    "unknown-rope-type": NOTE,
    "mrope-section-mismatch": NOTE,
    "partial-rotary": NOTE,
    "head-dim-not-hidden-over-heads": NOTE,
    "per-layer": NOTE,
    "pairs-never-turn": NOTE,
    "unknown-model-type": NOTE,
    "odd-scaling": NOTE,
    "no-rotary": NOTE,
    "softmax-mscale": NOTE,
    "rotary-mscale": NOTE,
    "llamacpp-rule": NOTE,
    "engines-agree": NOTE,
}


@dataclass(frozen=True)
class Finding:
    """Something that looks wrong, or worth knowing, with the numbers that show it; its severity is
    its code's (SEVERITY)."""

    code: str
    sentence: str
    evidence: str
    fact: str = ""  # the fact of a layer an engines-differ finding is about ("YaRN ramp" …)
    severity: str = field(init=False)  # "warning" or "note"

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", SEVERITY[self.code])


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
    engine: str = ""  # the engine and version the layers follow, in words
    read_by: Engine = Engine.GENERIC
    gguf: GGUFFacts | None = None

    def layer_types(self) -> list[tuple[Layer, list[int]]]:
        """Each distinct layer, with the indices of the layers that do the same."""
        groups: dict[tuple, tuple[Layer, list[int]]] = {}
        for layer in self.layers:
            groups.setdefault(layer.signature, (layer, []))[1].append(layer.index)
        return list(groups.values())

    def report(self) -> str:
        """Plain text: the model, each layer type, the findings, the sources."""
        from . import report

        return report.report(self)

    def to_json(self) -> dict:
        """Everything the view shows, JSON-ready (arrays as lists of floats)."""
        from . import report

        return report.as_json(self)


@dataclass
class Reading:
    """What a config says about positions, before the layers are built."""

    config: dict
    sources: dict[str, str]
    findings: list[Finding]
    model_type: str = ""
    given: dict = field(default_factory=dict)  # the text config as the file states it
    engine: Engine = Engine.GENERIC
    row: dict | None = None  # the engine's table row (transformers_data, llamacpp_data)
    engine_name: str = ""  # "transformers 5.23.0 runs …"
    gguf: GGUFFacts | None = None
    theta_from_default: bool = False  # no key of the file gives a θ the engine reads
    head_dim_by_type: dict[str, int] = field(default_factory=dict)  # Gemma 4's global layers
    head_dim_by_type_source: str = ""
    sliding: list[bool] = field(default_factory=list)  # per layer, as llama_hparams' is_swa(il)
    rotates: list[bool] = field(default_factory=list)  # per layer: its attention applies RoPE

    def __post_init__(self) -> None:
        given, self.sources = self.sources, {}
        for name, source in given.items():
            self.note(name, source)

    def is_swa(self, il: int) -> bool:
        return self.sliding[il]

    def transformers_rule(self, key: str):
        """A fact of the model type's transformers row; None when another engine reads the file."""
        return (self.row or {}).get(key) if self.engine is Engine.TRANSFORMERS else None

    def note(self, name: str, source: str) -> None:
        """Where a fact comes from: the first source noted for it stands."""
        self.sources.setdefault(fact_name(name), source)

    def find(self, code: str, sentence: str, evidence: str, *, fact: str = "") -> None:
        """A finding, once per code and evidence; its severity is its code's (SEVERITY)."""
        if all(f.code != code or f.evidence != evidence for f in self.findings):
            self.findings.append(Finding(code, sentence, evidence, fact=fact))

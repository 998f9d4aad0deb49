"""The types of a model's positions: the error, one layer, a finding, the whole model and the
reading in progress. Every other module of the family imports these; this one imports none of them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
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
class RotaryForward:
    """Where a model's rotary forward computes other than its rope type's function at the
    maximum context (PhiMoE's, modeling_phimoe.py:90): LongRoPE's function run with no sequence
    length (its short factors at every length), the rope parameter it puts on cos and sin in
    place of the attention factor (long_mscale), and the lines that show them."""

    short_factors: bool
    scale_key: str | None
    source: str


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
    forward: RotaryForward | None = None  # where the engine's forward departs from the function
    attends: bool = True  # False: a Mamba, MLP, MoE or conv layer, built with no attention

    @property
    def rotates(self) -> bool:
        return self.method == "rope"

    @property
    def label(self) -> str:
        """The layer type as the page names it: "full_attention (no RoPE)" for a layer of a RoPE
        model that does not rotate, "mlp (no attention)" for one the model builds without."""
        if not self.attends:
            return f"{self.kind} (no attention)"
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
    "odd-theta": NOTE,
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


@dataclass(frozen=True)
class Origin:
    """Where one key of a config as the reader holds it comes from: a key of the file, by its path
    as the file writes it, or the default or rule that gives a value the file does not."""

    file: str = ""  # "config.json", "GGUF", "converter conversion/llama.py:162"
    key: str = ""  # the path in the file as written: "text_config.rope_scaling.type"
    given_by: str = ""  # no key of the file: "default of transformers 5.23.0 Gemma3TextConfig"
    read_as: str = ""  # the path the engine reads the file's key as, where it moves it
    read_by: str = ""  # who moves it, where not the reading's engine (transformers' aliases)

    def text(self, path: str, reader: str) -> str:
        """The source in words, of the value the reader holds at `path`."""
        if not self.key:
            return f"{path}: {self.given_by}"
        moved = f" ({self.read_by or reader} reads it as {self.read_as})" if self.read_as else ""
        return f"{self.file}: {self.key}{moved}"


def origins_of(config: dict, file: str = "config.json", under: str = "") -> dict[str, Origin]:
    """Every key path of a file's dict (nested objects walked), each with its path as written."""
    out = {}
    for key, value in config.items():
        path = f"{under}{key}"
        out[path] = Origin(file, path)
        if isinstance(value, dict):
            out.update(origins_of(value, file, path + "."))
    return out


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
    # each key path of `config` (and of `given`) and where it comes from: the file's own key, as
    # written, or a default or rule; the one record every source of a fact is built from
    origins: dict[str, Origin] = field(default_factory=dict)

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

    def cite(self, path: str) -> str:
        """Where the value at a key path of the config as read comes from, in words."""
        origin = self.origins.get(path)
        if origin is None:  # a key no step recorded (test_model_sources.py finds them)
            return f"{path} (its origin unrecorded)"
        reader = self.engine_name.split(" runs ")[0] if self.engine_name else "the reader"
        return origin.text(path, reader)

    def cite_param(self, key: str) -> str:
        """cite() of a rope parameter, wherever the config as read holds it."""
        nested = [p for p in self.origins if re.fullmatch(rf"rope_parameters\.[^.]+\.{key}", p)]
        paths = [f"rope_parameters.{key}", *nested, f"rope_scaling.{key}", key]
        return self.cite(next((p for p in paths if p in self.origins), paths[0]))

    def move(self, old: str, new: str, by: str = "") -> None:
        """The engine reads the key at `old` as `new` (an alias; rope_theta in rope_parameters)."""
        origin = self.origins.get(old)
        if origin is not None and old != new:
            self.origins[new] = replace(origin, read_as=new, read_by=by) if origin.key else origin

    def lift(self, key: str, keep_outer: bool = False) -> None:
        """The sub-config at path `key` is read as the top level (over the outer keys, if kept)."""
        under = key + "."
        inner = {p[len(under) :]: o for p, o in self.origins.items() if p.startswith(under)}
        outer = {p: o for p, o in self.origins.items() if p != key and not p.startswith(under)}
        self.origins = {**(outer if keep_outer else {}), **inner}

    def given_by(self, path: str, said: str, value: object = None) -> None:
        """The value at `path` (and every key under it, for an object) is a default or a rule's."""
        self.origins[path] = Origin(given_by=said)
        for key, inner in (value or {}).items() if isinstance(value, dict) else ():
            self.given_by(f"{path}.{key}", said, inner)

    def find(self, code: str, sentence: str, evidence: str, *, fact: str = "") -> None:
        """A finding, once per code and evidence; its severity is its code's (SEVERITY)."""
        if all(f.code != code or f.evidence != evidence for f in self.findings):
            self.findings.append(Finding(code, sentence, evidence, fact=fact))

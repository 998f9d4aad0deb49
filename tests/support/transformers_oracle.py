"""What transformers itself does with a config's positions, layer by layer: its own rotary module
run at positions 0, 1 and L − 1 (each layer type's inv_freq and the scale on cos and sin), and its
own apply_rotary_pos_emb on a probe vector (the pairing). The oracle of test_model_oracle.py."""

from __future__ import annotations

import importlib
import inspect
import warnings
from dataclasses import dataclass

import numpy as np


@dataclass
class EngineLayerType:
    inv_freq: np.ndarray  # float64 of the module's float32 buffer, after its dynamic update at L
    attention_scaling: float  # cos at position 0


def quiet() -> None:
    warnings.filterwarnings("ignore")
    import transformers

    transformers.logging.set_verbosity_error()


def engine_config(config: dict):
    """The text config transformers builds from a config.json's dict."""
    from transformers import AutoConfig

    quiet()
    outer = AutoConfig.for_model(**config)
    inner = getattr(outer, "text_config", None)
    if inner is None and getattr(outer, "thinker_config", None) is not None:
        inner = outer.thinker_config.text_config
    from transformers import PreTrainedConfig

    if isinstance(inner, PreTrainedConfig) and inner.model_type != outer.model_type:
        return inner
    return outer


def rotary_class(model_type: str, row: dict):
    """The model's own rotary class, found by the name the generated table gives it."""
    folder = row["modeling"].removeprefix("modeling_").removesuffix(".py")
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    return module, getattr(module, row["rotary_class"])


def call_rotary(module, x, positions, **extra):
    """The rotary module's forward; M-RoPE modules take one row of positions per axis (text
    tokens have the same position on each)."""
    try:
        return module(x, positions, **extra)
    except RuntimeError:
        return module(x, positions[None].expand(3, *positions.shape), **extra)


def run_rotary(rotary_cls, config, layer_types: list[str], length: int) -> dict:
    """{layer type: EngineLayerType} from the module's forward at positions 0, 1, length − 1."""
    import torch

    module = rotary_cls(config=config)
    x = torch.zeros(1, 3, 8)
    positions = torch.tensor([[0, 1, max(length - 1, 2)]])
    takes_type = "layer_type" in inspect.signature(module.forward).parameters
    out = {}
    for kind in layer_types:
        if takes_type:
            out_ = call_rotary(module, x, positions, layer_type=kind)
            buffer = getattr(module, f"{kind}_inv_freq", None)
        else:
            out_ = call_rotary(module, x, positions)
            buffer = getattr(module, "inv_freq", None)
        if buffer is None:
            continue
        cos = out_[0] if isinstance(out_, tuple) else out_  # a complex freqs_cis: its modulus
        first = cos.reshape(-1, cos.shape[-1])[0, 0]
        scale = float(first.abs()) if first.is_complex() else float(first)
        out[kind] = EngineLayerType(buffer.detach().double().numpy().copy(), scale)
    return out


def attention_class(module, row: dict):
    """The text decoder's attention class of a modeling file (built with config and layer_idx)."""
    prefix = row["rotary_class"].removesuffix("RotaryEmbedding").replace("Text", "")
    found = [
        cls
        for name, cls in vars(module).items()
        if inspect.isclass(cls)
        and name.endswith("Attention")
        and cls.__module__ == module.__name__
        and "layer_idx" in inspect.signature(cls.__init__).parameters
    ]
    found.sort(
        key=lambda c: (not c.__name__.startswith(prefix), "Vision" in c.__name__, len(c.__name__))
    )
    return found[0] if found else None


@dataclass
class EngineLayer:
    rotates: bool  # its attention called an apply_rotary… function
    window: int | None  # its attention module's sliding_window
    pairing: str | None  # what the function it called does to a probe vector


def engine_layers(module, rotary_cls, config, row: dict, count: int) -> list[EngineLayer] | str:
    """Each layer as its own attention module runs it: its forward on the meta device with every
    apply_rotary… function of the modeling file watched (which one it calls, if any), that
    function then run on a probe vector with the rotary module's own cos and sin; or why the
    attention cannot be run."""
    import torch

    attention = attention_class(module, row)
    applies = {
        name: value
        for name, value in vars(module).items()
        if name.startswith("apply_rotary") and callable(value)
    }
    if attention is None or not applies:
        return "no attention class with layer_idx, or no module-level apply_rotary function"
    calls: list[str] = []

    def watch(name, apply):
        def watched(*args, **kwargs):
            calls.append(name)
            return apply(*args, **kwargs)

        return watched

    rotary = rotary_cls(config=config)
    takes_type = "layer_type" in inspect.signature(rotary.forward).parameters
    kinds = getattr(config, "layer_types", None)
    for name, apply in applies.items():
        setattr(module, name, watch(name, apply))
    try:
        out = []
        for index in range(count):
            with torch.device("meta"):
                layer = attention(config, index)
            extra = {"layer_type": kinds[index]} if takes_type and kinds else {}
            embedding = call_rotary(rotary, torch.zeros(1, 2, 8), torch.tensor([[0, 1]]), **extra)
            if isinstance(embedding, tuple):
                embedding = tuple(part.to("meta") for part in embedding)
            else:
                embedding = embedding.to("meta")
            hidden = torch.zeros(1, 2, config.hidden_size, device="meta")
            calls.clear()
            try:
                layer(hidden_states=hidden, position_embeddings=embedding, attention_mask=None)
            except Exception as error:
                return f"{attention.__name__}.forward on the meta device: {type(error).__name__}"
            called = applies.get(calls[0]) if calls else None
            out.append(
                EngineLayer(
                    bool(calls),
                    getattr(layer, "sliding_window", None),
                    _pairing(called, rotary, config, extra) if called else None,
                )
            )
        return out
    finally:
        for name, apply in applies.items():
            setattr(module, name, apply)


def _pairing(apply, rotary, config, extra: dict) -> str | None:
    """The pairing `apply` rotates, given the rotary module's cos and sin at position 1."""
    import torch

    from scripts.transformers_tables import probe_pairing

    embedding = call_rotary(rotary, torch.zeros(1, 1, 8), torch.tensor([[1]]), **extra)
    if not isinstance(embedding, tuple):
        return None
    try:
        head = getattr(config, "head_dim", None)
    except Exception:  # Gemma 4: head_dim differs per layer
        head = None
    return probe_pairing(apply, *embedding, head)

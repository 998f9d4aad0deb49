"""What transformers itself does with a config's positions, layer by layer: its own rotary module's
forward run at positions 0, 1 and L − 1, its cos and sin decoded (each layer type's frequencies and
the scale on cos and sin, as the forward computes them, not as its buffers hold them), and its own
apply_rotary_pos_emb on a probe vector (the pairing). The oracle of test_model_oracle.py."""

from __future__ import annotations

import importlib
import inspect
import warnings
from dataclasses import dataclass

import numpy as np


@dataclass
class EngineLayerType:
    inv_freq: np.ndarray  # each pair's angle at position 1, as the forward laid it out
    attention_scaling: float  # cos at position 0
    unlike: str = ""  # how the forward's cos and sin at 0, 1 and L − 1 are not pos × inv_freq


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
    """{layer type: EngineLayerType} decoded from what the module's forward returns at positions
    0, 1 and length − 1, in one call (so its length-dependent paths, LongRoPE's factors and dynamic
    NTK's growth, take the sequence as length long); never from its buffers."""
    import torch

    module = rotary_cls(config=config)
    x = torch.zeros(1, 3, 8)
    last = max(length - 1, 2)
    positions = torch.tensor([[0, 1, last]])
    takes_type = "layer_type" in inspect.signature(module.forward).parameters
    out = {}
    for kind in layer_types:
        extra = {"layer_type": kind} if takes_type else {}
        if takes_type and not hasattr(module, f"{kind}_inv_freq"):
            continue  # the module keeps no frequencies for this type (LFM3's conv layers)
        out[kind] = decoded(call_rotary(module, x, positions, **extra), last)
    return out


def decoded(embedding, last: int) -> EngineLayerType:
    """Each pair's frequency (its angle at position 1), the scale on cos and sin (their modulus
    at position 0), and how positions 0, 1 and `last` depart from pos × frequency at that scale.
    Complex freqs_cis (Llama 4) carries one entry per pair; cos and sin carry each pair's angle
    twice, in two halves or side by side."""
    if isinstance(embedding, tuple):
        cos, sin = (part.double().numpy() for part in embedding[:2])
        width = cos.shape[-1]
        angles = np.arctan2(sin.reshape(-1, width)[:3], cos.reshape(-1, width)[:3])
        modulus = np.hypot(sin.reshape(-1, width)[:3], cos.reshape(-1, width)[:3])
        scale = float(cos.reshape(-1, width)[0, 0])
        angles, modulus = _pairs(angles), _pairs(modulus)
    else:  # a complex freqs_cis: its modulus is the scale
        values = embedding.cdouble().numpy().reshape(-1, embedding.shape[-1])[:3]
        angles, modulus, scale = np.angle(values), np.abs(values), float(np.abs(values[0, 0]))
    inv_freq = np.where(angles[1] < 0, angles[1] + 2 * np.pi, angles[1])  # one turn at most
    unlike = []
    if not np.allclose(modulus, scale, rtol=1e-6):
        unlike.append(f"the modulus of cos and sin varies: {modulus.min():.7g}…{modulus.max():.7g}")
    turned = np.angle(np.exp(1j * (angles[2] - last * inv_freq)))  # wrapped to (−π, π]
    slack = 4e-7 * last * inv_freq + 1e-5  # float32: the product's rounding, the decoded angle's
    if np.any(np.abs(turned) > slack) or np.any(np.abs(angles[0]) > 1e-6):
        worst = int(np.argmax(np.abs(turned) - slack))
        unlike.append(f"pair {worst} at position {last} is {turned[worst]:+.3g} rad off pos × freq")
    return EngineLayerType(inv_freq, scale, "; ".join(unlike))


def _pairs(values: np.ndarray) -> np.ndarray:
    """One column per pair of a (positions, width) array whose pairs are laid out in two halves
    (rotate_half) or side by side (repeat_interleave); unchanged when neither."""
    half = values.shape[-1] // 2
    if np.allclose(values[:, :half], values[:, half:], rtol=1e-6, atol=1e-7):
        return values[:, :half]
    if np.allclose(values[:, 0::2], values[:, 1::2], rtol=1e-6, atol=1e-7):
        return values[:, 0::2]
    return values


@dataclass
class EngineLayer:
    rotates: bool  # its attention called an apply_rotary… function
    window: int | None  # its attention module's sliding_window
    pairing: str | None  # what the function it called does to a probe vector
    label: str | None = None  # the rotary entry its attention names (DeepSeek V4's "compress")


def engine_layers(module, rotary_cls, config, row: dict, count: int) -> list[EngineLayer] | str:
    """Each layer as its own attention module runs it: its forward on the meta device with every
    apply_rotary… function of the modeling file watched (which one it calls, if any), that
    function then run on a probe vector with the rotary module's own cos and sin; or why the
    attention cannot be run."""
    import torch

    from scripts.transformers_tables import attention_class, built_layers

    built = built_layers(module, row, config)  # the layers as the model's own class builds them
    attention = built[0] if built else attention_class(module, row)
    held = built[1] if built and len(built[1]) == count else None
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
    shared: dict = {}  # the K and V a storing layer leaves for the layers that reuse them (Gemma 4)
    try:
        out = []
        for index in range(count):
            if held and held[index] is None:  # a Mamba, conv or cross-attention layer
                out.append(EngineLayer(False, None, None))
                continue
            if held:
                layer = held[index]
            else:
                with torch.device("meta"):
                    layer = attention(config, index)
            label = getattr(layer, "rope_layer_type", None)  # DeepSeek V4 names its entry
            entry = label or (kinds[index] if kinds else None)
            extra = {"layer_type": entry} if takes_type and entry else {}
            if label:  # its model hands every entry over, and the attention picks its own
                embedding = {
                    name: _meta(call_rotary(rotary, torch.zeros(1, 2, 8),
                                            torch.tensor([[0, 1]]), layer_type=name))
                    for name in rotary.rope_type
                }  # fmt: skip
            elif extra and not hasattr(rotary, f"{entry}_inv_freq"):
                embedding = None  # the module keeps no frequencies for this type (Beam's full)
            else:
                embedding = _meta(
                    call_rotary(rotary, torch.zeros(1, 2, 8), torch.tensor([[0, 1]]), **extra)
                )
            widest = max(
                (m.in_features for m in layer.modules() if isinstance(m, torch.nn.Linear)),
                default=config.hidden_size,
            )  # Zamba2's shared attention reads the hidden state beside the embeddings: 2×
            try:
                try:
                    _run(layer, calls, config.hidden_size, embedding, index, shared)
                except Exception:
                    if widest == config.hidden_size:
                        raise
                    _run(layer, calls, widest, embedding, index, shared)
            except Exception as error:
                return (
                    f"{attention.__name__}.forward on the meta device: "
                    f"{type(error).__name__}: {str(error)[:150]}"
                )
            called = applies.get(calls[0]) if calls else None
            out.append(
                EngineLayer(
                    bool(calls),
                    getattr(layer, "sliding_window", None),
                    _pairing(called, rotary, config, extra) if called else None,
                    label,
                )
            )
        return out
    finally:
        for name, apply in applies.items():
            setattr(module, name, apply)


def _meta(embedding):
    """cos and sin (or a complex freqs_cis) moved to the meta device."""
    if isinstance(embedding, tuple):
        return tuple(part.to("meta") for part in embedding)
    return embedding.to("meta")


def _run(layer, calls: list, width: int, embedding, index: int, shared: dict) -> None:
    """The attention's forward given what it requires (the states, the rotary's cos and sin, no
    mask, the K and V earlier layers shared), else everything it accepts (a visible mask, the
    positions: DeepSeek V3.2's indexer reads them)."""
    import torch

    accepted = inspect.signature(layer.forward).parameters
    hidden = torch.zeros(1, 2, width, device="meta")
    given = {
        "hidden_states": hidden,
        "position_embeddings": embedding,
        "attention_mask": None,
        "position_ids": torch.tensor([[0, 1]], device="meta"),
        "cache_position": torch.arange(2, device="meta"),
        "layer_idx": index,
        "alibi": None,
        "shared_kv_states": shared,
        "context_hidden_states": hidden,
    }
    needed = {"hidden_states", "position_embeddings", "attention_mask"} | {
        name for name, p in accepted.items() if p.default is p.empty and name != "self"
    }
    calls.clear()
    try:
        layer(**{k: v for k, v in given.items() if k in accepted and k in needed})
    except Exception:
        calls.clear()
        given["attention_mask"] = torch.zeros(1, 1, 2, 2, device="meta")
        layer(**{k: v for k, v in given.items() if k in accepted})


def _pairing(apply, rotary, config, extra: dict) -> str | None:
    """The pairing `apply` rotates, given the rotary module's cos and sin at position 1."""
    import torch

    from scripts.transformers_tables import head_dim_of, probe_pairing

    embedding = call_rotary(rotary, torch.zeros(1, 1, 8), torch.tensor([[1]]), **extra)
    if not isinstance(embedding, tuple):
        return None
    return probe_pairing(apply, *embedding, head_dim_of(config))


def whole_model(config):
    """The whole model transformers builds from config, on the meta device (no weights made):
    its causal-LM class, else its base model class (an encoder such as ModernBERT)."""
    import torch
    from transformers import AutoModel, AutoModelForCausalLM

    quiet()
    with torch.device("meta"):
        try:
            return AutoModelForCausalLM.from_config(config)
        except ValueError:  # no causal-LM class for this config
            return AutoModel.from_config(config)


def rotary_modules(model) -> list[str]:
    """The rotary modules a built model holds and the apply_rotary… functions its modeling file
    calls (none: no layer's attention turns q and k; Nemotron-H's file defines
    apply_rotary_pos_emb and never calls it, GPT-J's calls it with no rotary module)."""
    import sys

    held = {type(m).__name__ for m in model.modules() if "Rotary" in type(m).__name__}
    modeling = sys.modules[type(model).__module__]
    source = inspect.getsource(modeling)
    called = {
        name
        for name, value in vars(modeling).items()
        if name.startswith("apply_rotary") and callable(value) and source.count(f"{name}(") > 1
    }
    return sorted(held | called)

"""Generate components/model/transformers_data.py from transformers' own classes, at the pinned
version: for every model type whose text attention rotates (a `…RotaryEmbedding` of its modeling
file built from its config), the defaults of the keys the model reader reads, the class's
`attribute_map` aliases, where the text sub-config lives, where each old key (rope_theta,
rotary_emb_base, rope_local_base_freq, rope_scaling …) lands in `rope_parameters`, the layer-type
pattern the class fills in, the pairing its own `apply_rotary_pos_emb` rotates, and where its
rotary's forward recomputes the frequencies without the sequence length.

    python -m scripts.transformers_tables          # write the module
    python -m scripts.transformers_tables --check  # exit 1 when the module is stale

Upgrading transformers: bump the pin in pyproject.toml, run this, and read what
tests/unit/test_model_oracle.py says.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import json
import pprint
import re
import sys
import warnings
from pathlib import Path

from scripts.generated import write_or_check

OUT = Path(__file__).resolve().parents[1] / "components" / "model" / "transformers_data.py"

# The keys of a config the reader reads (components/model/arch.py, frequencies.py).
READ_KEYS = (
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "num_hidden_layers",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "partial_rotary_factor",
    "rotary_dim",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "sliding_window",
    "use_sliding_window",
    "max_window_layers",
    "attention_chunk_size",
    "global_head_dim",
    "rope_interleave",
    "mlp_layer_types",
    "prefix_dense_sliding_window_pattern",
)
# Old keys a config class moves into rope_parameters (its convert_rope_params_to_dict).
THETA_KEYS = (
    "rope_theta",
    "rotary_emb_base",
    "rope_local_base_freq",
    "local_rope_theta",
    "global_rope_theta",
    "swa_rope_theta",
)
# Keys that set the period of a layer-type pattern the class fills in (its __post_init__).
PATTERN_KEYS = ("sliding_window_pattern", "full_attention_interval", "no_rope_layer_interval")
# Rotary classes of vision, audio and codec towers: not a text decoder's positions.
NOT_TEXT = re.compile(
    r"Vision|Audio|DiT|Visual|Patch|Encoder|Sam|Mask|Image|Codec|Token2|Speech|Depth|SaProt", re.I
)
PROBE_THETA = 12345.0


def quiet() -> None:
    warnings.filterwarnings("ignore")
    import transformers

    transformers.logging.set_verbosity_error()


def rotary_dirs() -> list[str]:
    """The model folders whose modeling file defines a rotary embedding class."""
    import transformers

    root = Path(transformers.__file__).parent / "models"
    return sorted(
        p.parent.name
        for p in root.glob("*/modeling_*.py")
        if re.search(r"class \w*RotaryEmbedding", p.read_text(encoding="utf-8"))
        and p.name == f"modeling_{p.parent.name}.py"
    )


def text_rotaries(folder: str) -> list[tuple[type, type]]:
    """(rotary class, config class) of a folder's text decoders."""
    from transformers import PreTrainedConfig

    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    config_module = importlib.import_module(f"transformers.models.{folder}.configuration_{folder}")
    found = []
    for name, cls in vars(module).items():
        if not (
            inspect.isclass(cls)
            and name.endswith("RotaryEmbedding")
            and cls.__module__ == module.__name__
            and (not NOT_TEXT.search(name) or "Text" in name)
        ):
            continue
        parameters = inspect.signature(cls.__init__).parameters
        if "config" not in parameters:
            continue
        wanted = parameters["config"].annotation
        wanted = wanted if isinstance(wanted, str) else getattr(wanted, "__name__", "")
        config_cls = getattr(config_module, wanted, None) or getattr(module, wanted, None)
        if inspect.isclass(config_cls) and issubclass(config_cls, PreTrainedConfig):
            found.append((cls, config_cls))
    return found


def text_config_of(config_cls: type):
    """The config a text rotary is built from: the class itself, or its text sub-config when the
    class is a composite (Qwen2-VL's rotary is annotated with the outer config)."""
    config = config_cls()
    if getattr(config, "max_position_embeddings", None) is None:
        inner = getattr(config, "text_config", None) or getattr(
            getattr(config, "thinker_config", None), "text_config", None
        )
        if inner is not None:
            return inner
    return config


def jsonable(value):
    try:
        return json.loads(json.dumps(value))
    except TypeError:
        return None


def field_defaults(config_cls: type) -> dict:
    """The class's own defaults of the keys the reader reads (before __post_init__ fills any)."""
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    aliases = dict(getattr(config_cls, "attribute_map", {}) or {})
    out = {}
    for key in READ_KEYS:
        name = key if key in fields else aliases.get(key)  # DBRX's n_layers is num_hidden_layers
        if name in fields and fields[name].default is not dataclasses.MISSING:
            out[key] = jsonable(fields[name].default)
    return out


def rope_targets(config_cls: type, **kwargs) -> list[str] | None:
    """Which rope_parameters entries a key given to the class lands in ("*" for a flat dict)."""
    try:
        config = config_cls(**kwargs)
    except Exception:
        return None
    params = getattr(config, "rope_parameters", None) or {}
    key, value = next(iter(kwargs.items()))
    entries = (
        {k: v for k, v in params.items() if isinstance(v, dict)}
        if any(isinstance(v, dict) for v in params.values())
        else {"*": params}
    )
    if key == "rope_scaling":
        return sorted(k for k, v in entries.items() if v and v.get("factor") == 3.0) or None
    if key in ("partial_rotary_factor", "rotary_pct"):
        found = [k for k, v in entries.items() if v and v.get("partial_rotary_factor") == value]
        return sorted(found) or None
    return sorted(k for k, v in entries.items() if v and v.get("rope_theta") == value) or None


def rotary_dim_conversion(config_cls: type, config) -> dict | None:
    """Where the class turns a legacy rotary_dim into partial_rotary_factor = rotary_dim / head_dim
    (MiniMax M2's convert_rope_params_to_dict): the entries it lands in and the line that does it;
    None for a class that keeps rotary_dim as its own field (GPT-J) or ignores it."""
    head = head_dim_of(config)
    if not isinstance(head, int) or head < 8:
        return None
    dims = head * 3 // 8
    try:
        params = getattr(config_cls(rotary_dim=dims), "rope_parameters", None) or {}
    except Exception:
        return None
    nested = any(isinstance(v, dict) for v in params.values())
    entries = {k: v for k, v in params.items() if isinstance(v, dict)} if nested else {"*": params}
    found = sorted(
        k for k, v in entries.items() if v and v.get("partial_rotary_factor") == dims / head
    )
    if not found:
        return None
    path = Path(inspect.getsourcefile(config_cls))
    text = path.read_text(encoding="utf-8")
    match = re.search(r'kwargs\.get\("rotary_dim"', text)
    if not match:  # converted somewhere this generator cannot point at: refuse, not guess
        raise ValueError(f"{config_cls.__name__} converts rotary_dim where no line says so")
    return {"targets": found, "source": _where(path, text, match)}


def period(values: list) -> list | None:
    """The shortest list P with values[i] == P[i % len(P)], if shorter than values."""
    for size in range(1, len(values) // 2 + 1):
        if all(values[i] == values[i % size] for i in range(len(values))):
            return values[:size]
    return None


def layer_pattern(config_cls: type, attribute: str) -> dict | None:
    """The pattern the class fills `attribute` (layer_types, no_rope_layers) with, and the key
    that sets its period; or, where it is no period, the list it makes for the default count."""
    try:
        default = config_cls()
    except Exception:
        return None
    try:
        values = getattr(config_cls(num_hidden_layers=24), attribute, None)
        check = getattr(config_cls(num_hidden_layers=13), attribute, None)
    except Exception:  # Zamba2: its list is fixed to its default layer count
        values = check = None
    found = period(values) if isinstance(values, list) and len(values) == 24 else None
    if found is None or check != [found[i % len(found)] for i in range(13)]:
        made = getattr(default, attribute, None)  # Zamba2's hybrid_layer_ids: not a period
        if isinstance(made, list) and len(made) == default.num_hidden_layers:
            return {"default": jsonable(made)}
        return None
    out = {"period": found}
    for key in PATTERN_KEYS:
        try:
            changed = getattr(config_cls(num_hidden_layers=24, **{key: 3}), attribute, None)
        except Exception:
            continue
        if changed != values and isinstance(changed, list) and period(changed):
            out["key"] = key
            out["keyed"] = _keyed_rule(changed, values, 3)
    return out


def index_layout(config_cls: type, attribute: str) -> dict | None:
    """A key that lists the layers of one type, every other layer being of another (LFM2's
    full_attn_idxs, Bamba's attn_layer_indices): each field the class leaves None is given
    layers 1 and 5 of 24, and the layer types read back."""
    skip = {attribute, *(getattr(config_cls, "attribute_map", {}) or {})}
    for f in dataclasses.fields(config_cls):
        if f.default is not None or f.name in skip:
            continue
        try:
            values = getattr(config_cls(num_hidden_layers=24, **{f.name: [1, 5]}), attribute, None)
        except Exception:
            continue
        if not isinstance(values, list) or len(values) != 24:
            continue
        listed = {values[1], values[5]}
        others = {v for i, v in enumerate(values) if i not in (1, 5)}
        if len(listed) == 1 and len(others) == 1 and listed != others:
            return {"key": f.name, "listed": listed.pop(), "others": others.pop()}
    return None


def _keyed_rule(changed: list, values: list, n: int) -> str:
    """How a pattern key's value p places the odd layer out: "last" (layer i is the odd one
    when (i + 1) % p == 0) or "first" (when i % p == 0)."""
    odd = [i for i, v in enumerate(changed) if changed.count(v) * 2 < len(changed)]
    return "last" if odd and odd[0] == n - 1 else "first"


def rotary_output(rotary: type, config, positions: list[int], layer_type: str | None = None):
    """cos and sin of the model's own rotary module at the given positions, float32."""
    import torch

    module = rotary(config=config)
    x = torch.zeros(1, len(positions), 8)
    position_ids = torch.tensor([positions])
    if "layer_type" in inspect.signature(module.forward).parameters and layer_type is not None:
        return module(x, position_ids, layer_type=layer_type)
    return module(x, position_ids)


def rotary_width(config_cls: type, rotary: type, layer_type: str | None) -> str | None:
    """The key the rotary module's width follows: each of qk_rope_head_dim (MLA), rotary_dim and
    head_dim (× the partial factor) in turn set to half its default; the first that changes the
    width of its cos is the one. MiniMax-M3 and dots3 keep a rotary_dim or qk_rope_head_dim their
    rotary never reads."""

    def width(config) -> int:
        return int(rotary_output(rotary, config, [1], layer_type)[0].shape[-1])

    try:
        default = config_cls()
        base = width(default)
    except Exception:
        return None
    for key in ("qk_rope_head_dim", "rotary_dim", "head_dim"):
        value = getattr(default, key, None) if key != "head_dim" else head_dim_of(default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 8:
            continue
        try:
            if width(config_cls(**{key: value // 2})) != base:
                return key
        except Exception:
            continue
    return None


def head_dim_of(config) -> int | None:
    try:
        return getattr(config, "head_dim", None)
    except Exception:  # Gemma 4: head_dim differs per layer
        return None


def pairing(module, folder: str, rotary: type, config, layer_type: str | None) -> dict | None:
    """Which dimension a unit vector on dimension 0 turns into, under the model's own
    apply_rotary_pos_emb fed its own rotary module's cos and sin at position 1: dimension 1 is
    interleaved pairs, the middle of the rotated part is half-split."""

    apply = getattr(module, "apply_rotary_pos_emb", None)
    if apply is None:
        return None
    head = head_dim_of(config)
    try:
        cos, sin = rotary_output(rotary, config, [1], layer_type)
    except Exception:  # its rotary cannot run on the defaults (GLM-4.1V's sections): one angle
        import torch

        try:
            width = head or config.hidden_size // config.num_attention_heads
        except Exception:
            return None
        cos, sin = torch.full((1, 1, width), 0.54), torch.full((1, 1, width), 0.84)
    found = probe_pairing(apply, cos, sin, head)
    if found is None:
        return None
    line = inspect.getsourcelines(apply)[1]
    return {"pairing": found, "source": f"modeling_{folder}.py:{line} apply_rotary_pos_emb"}


def probe_pairing(apply, cos, sin, head: int | None) -> str | None:
    """ "interleaved" when dimensions 0 and 1 of the input turn together under `apply` (an
    apply_rotary… function of a modeling file, given its own cos and sin at position 1),
    "half-split" when 0 turns with the first dimension of the rotated part's second half; None
    when it cannot say. Turning together: the two unit vectors land in the same plane, whatever
    layout the function returns them in (DeepSeek's _interleave returns them half-split)."""
    import torch

    width = cos.shape[-1]
    for dim in dict.fromkeys((head or width, width)):

        def plane(index: int, dim: int = dim) -> frozenset[int]:
            probe = torch.zeros(1, 1, 1, dim)
            probe[..., index] = 1.0
            params = inspect.signature(apply).parameters
            out = apply(probe, probe, cos, sin) if "k" in params else apply(probe, cos, sin)
            out = (out[0] if isinstance(out, tuple) else out).reshape(-1)
            return frozenset(i for i in range(dim) if abs(float(out[i])) > 1e-6)

        try:
            first = plane(0)
            if len(first) == 2 and plane(1) == first:
                return "interleaved"
            if len(first) == 2 and plane(max(first)) == first and max(first) > 1:
                return "half-split"
        except Exception:
            continue
    return None


# Rules that live in a modeling file's attention or rotary code, not in its config: the pattern
# that shows each, and what it means (components/model/arch.py applies them).
MODELING_RULES = {
    # Cohere2Attention.forward: `if self.sliding_window is not None:` before apply_rotary_pos_emb.
    "rotates": [
        (r"if self\.sliding_window is None or self\.is_sliding:", "sliding-or-no-window"),
        (
            r"if self\.sliding_window is not None:\n\s+query_states, key_states = apply_rotary",
            "sliding-only",
        ),
        (r"self\.use_rope = config\.no_rope_layers\[layer_idx\]", "no_rope_layers"),
        (r"if self\.is_local_attention:\n\s+cos, sin = position_embeddings", "sliding-only"),
        (
            r"if self\.sliding_window is not None:\n\s+cos, sin = position_embeddings",
            "sliding-only",
        ),
        (r"if self\.sliding_window is not None or self\.force_rope:", "sliding-or-dense-prefix"),
        # BeamModel.forward: a layer type whose rope_parameters entry is None gets no RoPE.
        (r"if self\.config\.rope_parameters\[layer_type\] is None:", "typed-parameters"),
        # Zamba2Attention.forward: RoPE only when the config's use_mem_rope is true.
        (r"if self\.config\.use_mem_rope:\n\s+cos, sin = position_embeddings", "flag:use_mem_rope"),
    ],
    # DeepSeek's attention: softmax scale × mscale(factor, mscale_all_dim)² under YaRN.
    "softmax_scale": [(r"self\.scaling = yarn_apply_mscale\(", "yarn-mscale-squared")],
    # PhiMoE's rotary forward: cos and sin × long_mscale or short_mscale.
    "rotary_scale": [(r'rope_parameters\["long_mscale"\]', "long/short_mscale")],
    # ModernBertModel.forward: its sliding layers' mask is |q - k| <= sliding_window, both sides.
    "window_mask": [
        (r'"sliding_attention": create_bidirectional_sliding_window_mask\(', "bidirectional")
    ],
}


def modeling_rules(folder: str) -> dict:
    """Each rule of MODELING_RULES a modeling file follows, with the line and function that show
    it."""
    import transformers

    path = Path(transformers.__file__).parent / "models" / folder / f"modeling_{folder}.py"
    text = path.read_text(encoding="utf-8")
    found = {}
    for name, patterns in MODELING_RULES.items():
        for pattern, rule in patterns:
            match = re.search(pattern, text)
            if match:
                found[name] = {
                    "rule": rule,
                    "source": _where(path, text, match),
                }
                break
    return found


def rope_labels(folder: str) -> dict | None:
    """The rotary entry each layer type reads where the two are named apart (DeepSeek V4: "main"
    for sliding layers, "compress" for the others), from the attention's own assignment."""
    import transformers

    path = Path(transformers.__file__).parent / "models" / folder / f"modeling_{folder}.py"
    text = path.read_text(encoding="utf-8")
    match = re.search(
        r'self\.rope_layer_type = "(\w+)" if self\.layer_type == "(\w+)" else "(\w+)"', text
    )
    if not match:
        return None
    return {
        "labels": {match.group(2): match.group(1), "*": match.group(3)},
        "source": _where(path, text, match),
    }


def interleave_rule(folder: str) -> dict | None:
    """Whether the attention rotates with apply_rotary_pos_emb_interleave (MLA models): always,
    or only when the config's rope_interleave is true (the line before the call tests it)."""
    import transformers

    path = Path(transformers.__file__).parent / "models" / folder / f"modeling_{folder}.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if "= apply_rotary_pos_emb_interleave(" in line:
            before = lines[number - 1] if number else ""
            rule = "rope_interleave" if "rope_interleave" in before else "always"
            where = _function_at("\n".join(lines), number + 1)
            return {"rule": rule, "source": f"{path.name}:{number + 1} {where}"}
    return None


def _where(path: Path, text: str, match: re.Match) -> str:
    """ "modeling_x.py:LINE function" of a match in a file's text."""
    line = text.count("\n", 0, match.start()) + 1
    return f"{path.name}:{line} {_function_at(text, line)}"


def _function_at(text: str, line: int) -> str:
    """Class.method around a line of a source text."""
    lines = text.splitlines()[:line]
    method = next(
        (m.group(1) for m in map(re.compile(r"^    def (\w+)").match, reversed(lines)) if m), ""
    )
    owner = next(
        (m.group(1) for m in map(re.compile(r"^class (\w+)").match, reversed(lines)) if m), ""
    )
    return f"{owner}.{method}" if owner and method else owner or method


def forward_frequencies(rotary: type) -> dict | None:
    """Where a rotary class's own forward recomputes its frequencies from the config alone, with
    no sequence length (PhimoeRotaryEmbedding.forward: LongRoPE's short factors at every length,
    whatever the buffer its dynamic_rope_update fills holds), with the line."""
    forward = inspect.unwrap(rotary.forward)
    lines, start = inspect.getsourcelines(forward)
    for offset, line in enumerate(lines):
        if re.search(r"rope_init_fn\(self\.config\)", line):
            path = Path(inspect.getsourcefile(forward)).name
            return {
                "rule": "no-seq-len",
                "source": f"{path}:{start + offset} {forward.__qualname__}",
            }
    return None


def per_type_head_dim(config_cls: type, config) -> dict | None:
    """A layer type's own head size (Gemma 4: global_head_dim through per_layer_config), and the
    key that sets it: probed by giving the key a new value."""
    overrides = config.to_dict().get("per_layer_config")
    kinds = getattr(config, "layer_types", None)
    if not isinstance(overrides, dict) or not kinds:
        return None
    by_type = {}
    for index, values in overrides.items():
        if isinstance(values, dict) and "head_dim" in values:
            by_type[kinds[int(index)]] = values["head_dim"]
    if not by_type:
        return None
    for key in ("global_head_dim",):
        try:
            probe = config_cls(**{key: 64}).to_dict().get("per_layer_config") or {}
        except Exception:
            continue
        if any(isinstance(v, dict) and v.get("head_dim") == 64 for v in probe.values()):
            return {"default": by_type, "key": key}
    return {"default": by_type}


def attention_classes(module, row: dict) -> list[type]:
    """A modeling file's attention classes built with config and layer_idx, the text decoder's
    likeliest first."""
    prefix = row["rotary_class"].removesuffix("RotaryEmbedding").replace("Text", "")
    found = [
        cls
        for name, cls in vars(module).items()
        if inspect.isclass(cls)
        and name.endswith("Attention")
        and cls.__module__ == module.__name__
        and "layer_idx" in inspect.signature(cls.__init__).parameters
    ]
    return sorted(
        found,
        key=lambda c: (not c.__name__.startswith(prefix), "Vision" in c.__name__, len(c.__name__)),
    )


def attention_class(module, row: dict):
    """The text decoder's attention class: the likeliest one the model's layers hold, else the
    likeliest of the file."""
    built = built_layers(module, row, None)
    if built:
        return built[0]
    found = attention_classes(module, row)
    return found[0] if found else None


def built_layers(module, row: dict, config) -> tuple[type, list] | None:
    """The decoder layers as the model's own class builds them (on the meta device) from config
    (None: the class's defaults): the attention class they hold, and each layer's attention
    module or None (a Mamba, linear-attention, conv or cross-attention layer). None when the model
    cannot be built."""
    import torch

    model_cls = getattr(module, row["architecture"], None)
    try:
        config = config if config is not None else getattr(module, row["config_class"])()
        count = config.num_hidden_layers
        with torch.device("meta"):
            model = model_cls(config)
    except Exception:
        return None
    stacks = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) == count]
    if not stacks:
        return None
    classes = attention_classes(module, row)
    held = [c for c in classes if any(isinstance(m, c) for m in stacks[0].modules())]
    if not classes:
        return None
    attention = (held or classes)[0]  # none held: no layer attends (Bamba's defaults)
    return attention, [
        next((m for m in layer.modules() if isinstance(m, attention)), None) for layer in stacks[0]
    ]


def mixed_layouts(config_cls: type, folder: str, row: dict) -> list:
    """Configs whose layers are not all of the default's one type, as published files lay them
    out: the layer the class's index key lists (LFM2's full_attn_idxs), or a layer of each type
    the modeling file tests layer_types against (LFM2-MoE's "conv") as the first layer."""
    import transformers

    out = []
    listed = (row.get("layer_types") or {}).get("indices")
    if listed:
        out.append(lambda: config_cls(**{listed["key"]: [1]}))
    path = Path(transformers.__file__).parent / "models" / folder / f"modeling_{folder}.py"
    named = re.findall(r'layer_types\[layer_idx\] [!=]= "(\w+)"', path.read_text(encoding="utf-8"))
    for kind in dict.fromkeys(named):
        count = config_cls().num_hidden_layers
        out.append(lambda k=kind, n=count: config_cls(layer_types=[k] + [FULL_ATTENTION] * (n - 1)))
    built = []
    for make in out:
        try:
            built.append(make())
        except Exception:
            continue
    return built


FULL_ATTENTION = "full_attention"


def without_attention(module, row: dict, config) -> dict | None:
    """Layers the model builds with no rotating attention, as a rule over the config: the layer
    types that never hold one, or the config key that lists those layers (Mllama's
    cross_attention_layers); with the decoder layer class that shows it."""
    built = built_layers(module, row, config)
    if not built or all(built[1]):
        return None
    attention, layers = built
    missing = [i for i, a in enumerate(layers) if a is None]
    model = getattr(module, row["architecture"])
    where = f"{row['modeling']}:{inspect.getsourcelines(model)[1]} {model.__name__}: "
    where += f"layers built without {attention.__name__}"
    kinds = getattr(config, "layer_types", None)
    if isinstance(kinds, list) and len(kinds) == len(layers):
        empty = {k for k, a in zip(kinds, layers, strict=True) if a is None}
        if not {k for k, a in zip(kinds, layers, strict=True) if a is not None} & empty:
            return {"rule": "layer_types", "types": sorted(empty), "source": where}
    for key, value in sorted(config.to_dict().items()):
        if isinstance(value, list) and sorted(value) == missing:
            return {"rule": "key", "key": key, "source": where}
    return {"rule": "layers", "layers": missing, "source": where}


def window_from(config_cls: type) -> dict | None:
    """Where the class makes sliding_window from another key when the file gives none
    (ModernBERT's local_attention // 2): the key, its default, the divisor and the line; a
    sliding_window the file gives is kept (checked, or refused)."""
    try:  # NeoMME's is per layer: reading it raises
        default = getattr(config_cls(), "sliding_window", None)
    except Exception:
        return None
    if not isinstance(default, int) or isinstance(default, bool) or default < 1:
        return None
    alias = (getattr(config_cls, "attribute_map", {}) or {}).get("sliding_window")
    for f in dataclasses.fields(config_cls):
        skip = f.name in ("sliding_window", alias)  # RecurrentGemma's attention_window_size
        if skip or not isinstance(f.default, int) or f.default < 2:
            continue
        divisor = f.default // default if f.default % default == 0 else 0
        try:
            moved = getattr(config_cls(**{f.name: 4 * f.default}), "sliding_window", None)
            kept = config_cls(**{f.name: 4 * f.default, "sliding_window": 5}).sliding_window
        except Exception:
            continue
        if divisor and moved == 4 * f.default // divisor and moved != default:
            if kept != 5:
                raise ValueError(f"{config_cls.__name__} overrides a given sliding_window")
            path = Path(inspect.getsourcefile(config_cls))
            text = path.read_text(encoding="utf-8")
            match = re.search(rf"self\.{f.name} // {divisor}\b", text)
            if not match:  # made somewhere this generator cannot point at: refuse, not guess
                raise ValueError(f"{config_cls.__name__} makes sliding_window where no line says")
            where = _where(path, text, match)
            return {"key": f.name, "default": f.default, "divisor": divisor, "source": where}
    return None


def layers_from(config_cls: type) -> dict | None:
    """Where num_hidden_layers comes from when the class computes it (LongCat-Flash's property:
    2 × num_layers): the field, the multiple, and the default count."""
    if not isinstance(inspect.getattr_static(config_cls, "num_hidden_layers", None), property):
        return None
    default = config_cls().num_hidden_layers
    for f in dataclasses.fields(config_cls):
        if f.name == "num_hidden_layers" or not isinstance(f.default, int) or f.default < 1:
            continue
        try:
            count = config_cls(**{f.name: f.default + 1}).num_hidden_layers
        except Exception:
            continue
        if count != default and count % (f.default + 1) == 0:
            times = count // (f.default + 1)
            return {"key": f.name, "times": times, "default": default}
    return None


def causal_lm(model_type: str, config_cls: type) -> str:
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_MAPPING_NAMES,
    )

    return (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(model_type)
        or MODEL_MAPPING_NAMES.get(model_type)
        or config_cls.__name__.removesuffix("Config") + "Model"
    )


def entry(folder: str, rotary: type, config_cls: type) -> tuple[str, dict]:
    """One text config class's row."""
    config = text_config_of(config_cls)
    config_cls = type(config)
    # The text class's own defaults, as a file naming its model type is read (an outer config's
    # default text part may differ: Voxtral Realtime's says θ 1e6, its class 10000).
    config = config_cls()
    model_type = config_cls.model_type
    module = importlib.import_module(rotary.__module__)
    params = copy.deepcopy(getattr(config, "rope_parameters", None) or {})
    row = {
        "config_class": config_cls.__name__,
        "modeling": f"modeling_{folder}.py",
        "rotary_class": rotary.__name__,
        "architecture": causal_lm(model_type, config_cls),
        "defaults": field_defaults(config_cls),
        "rope_parameters": jsonable(params),
        "aliases": dict(getattr(config_cls, "attribute_map", {}) or {}),
        "theta_keys": {},
    }
    for key in THETA_KEYS:
        targets = rope_targets(config_cls, **{key: PROBE_THETA})
        if targets:
            row["theta_keys"][key] = targets
    row["partial_keys"] = {}
    for key in ("partial_rotary_factor", "rotary_pct"):
        targets = rope_targets(config_cls, **{key: 0.375})
        if targets:
            row["partial_keys"][key] = targets
    converted = rotary_dim_conversion(config_cls, config)
    if converted:
        row["rotary_dim_key"] = converted
    scaling = rope_targets(config_cls, rope_scaling={"rope_type": "linear", "factor": 3.0})
    if scaling:
        row["scaling_targets"] = scaling
    for attribute in ("layer_types", "no_rope_layers"):
        pattern = layer_pattern(config_cls, attribute)
        listed = index_layout(config_cls, attribute) if attribute == "layer_types" else None
        if listed:
            pattern = {**(pattern or {}), "indices": listed}
        if pattern:
            row[attribute] = pattern
    kinds = sorted(k for k, v in (row["rope_parameters"] or {}).items() if isinstance(v, dict))
    resolved = head_dim_of(config)
    if isinstance(resolved, int):
        row["resolved_head_dim"] = resolved
    head_dims = per_type_head_dim(config_cls, config)
    if head_dims:
        row["head_dim_by_type"] = head_dims
    derived = layers_from(config_cls)
    if derived:
        row["layers_from"] = derived
    window = window_from(config_cls)
    if window:
        row["window_from"] = window
    width = rotary_width(config_cls, rotary, kinds[0] if kinds else None)
    if width:
        row["rotary_width"] = width
    found = pairing(module, folder, rotary, config, kinds[0] if kinds else None)
    if found:
        row.update(found)
    row.update(modeling_rules(folder))
    recomputed = forward_frequencies(rotary)
    if recomputed:
        row["forward_frequencies"] = recomputed
    labels = rope_labels(folder)
    if labels:
        row["rope_labels"] = labels
    interleave = interleave_rule(folder)
    if interleave:
        row["interleave"] = interleave
    empty = without_attention(module, row, config)
    for probe in [] if empty else mixed_layouts(config_cls, folder, row):
        empty = without_attention(module, row, probe)  # every default layer attends (LFM2)
        if empty:
            break
    if empty:
        row["without_attention"] = empty
        if empty["rule"] == "key":  # the layers it lists by default (Mllama's eight)
            row["defaults"][empty["key"]] = jsonable(getattr(config, empty["key"]))
    return model_type, row


def composites() -> dict[str, dict]:
    """Outer model types whose text decoder is a sub-config: where it lives and its type."""
    from transformers import PreTrainedConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    out = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            config = CONFIG_MAPPING[model_type]()
        except Exception:
            continue
        for key in ("text_config", "llm_config", "language_config", "thinker_config"):
            inner = getattr(config, key, None)
            if key == "thinker_config" and inner is not None:
                inner = getattr(inner, "text_config", None)
                key = "thinker_config.text_config"
            if isinstance(inner, PreTrainedConfig) and inner.model_type != model_type:
                out[model_type] = {"text_config": key, "model_type": inner.model_type}
                absent = absent_defaults(inner)
                if absent:
                    out[model_type]["absent"] = absent
                break
    return out


def absent_defaults(inner) -> dict:
    """What the outer class builds as its text config when a file gives none, where it differs from
    the text class's own defaults (Qwen3-ASR's SubConfigSpec init_kwargs: 28 layers of width
    2048): the reader's keys and rope_parameters."""
    try:
        built, own = jsonable(inner.to_dict()), jsonable(type(inner)().to_dict())
    except Exception:
        return {}
    keys = [*READ_KEYS, "rope_parameters"]
    return {key: built[key] for key in keys if key in built and built[key] != own.get(key)}


def known_types() -> list[str]:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return sorted(CONFIG_MAPPING_NAMES)


def without_rotary(rows: dict) -> list[str]:
    """Model types transformers knows with no row whose own modeling file neither defines a
    rotary class nor calls an apply_rotary… function (Nemotron-H defines apply_rotary_pos_emb and
    never calls it): their attention gets no rotary positions."""
    import transformers
    from transformers.models.auto.configuration_auto import model_type_to_module_name

    root = Path(transformers.__file__).parent / "models"
    out = []
    for model_type in known_types():
        folder = model_type_to_module_name(model_type)
        path = root / folder / f"modeling_{folder}.py"
        if model_type in rows or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        applies = set(re.findall(r"def (apply_rotary\w*)\(", text))
        called = any(text.count(f"{name}(") > 1 for name in applies)
        if not called and not re.search(r"class \w*RotaryEmbedding", text):
            out.append(model_type)
    return out


def plain_layouts(plain: list[str]) -> dict[str, dict]:
    """The layer types of each model type with no rotary whose class fills one per layer
    (Nemotron-H, Jamba, Mamba …): its pattern (layer_pattern), the string key it spells them
    with (Nemotron-H's hybrid_override_pattern: pattern_letters), whether its layer count is the
    list's length, and the layers it builds with no attention (without_attention)."""
    from transformers.models.auto.configuration_auto import (
        CONFIG_MAPPING,
        model_type_to_module_name,
    )

    out = {}
    for model_type in plain:
        try:
            config_cls = CONFIG_MAPPING[model_type]
            config = config_cls()
            kinds, count = config.layer_types, config.num_hidden_layers
        except Exception:
            continue
        if not isinstance(kinds, list) or len(kinds) != count or len(set(kinds)) < 2:
            continue  # one kind everywhere (Mamba): nothing to tell apart
        folder = model_type_to_module_name(model_type)
        row = {
            "config_class": config_cls.__name__,
            "architecture": causal_lm(model_type, config_cls),
            "modeling": f"modeling_{folder}.py",
            "rotary_class": config_cls.__name__.removesuffix("Config") + "RotaryEmbedding",
        }
        layout = {**row, "layer_types": layer_pattern(config_cls, "layer_types"), "layers": count}
        listed = index_layout(config_cls, "layer_types")
        if listed:
            layout["layer_types"] = {**(layout["layer_types"] or {}), "indices": listed}
        letters = pattern_letters(config_cls)
        if letters:
            layout["letters"] = letters
        if isinstance(inspect.getattr_static(config_cls, "num_hidden_layers", None), property):
            layout["count_from_layer_types"] = (
                len(config_cls(layer_types=kinds[:2]).layer_types) == 2
            )
        module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
        layout["without_attention"] = without_attention(module, row, config)
        out[model_type] = layout
    return out


def pattern_letters(config_cls: type) -> dict | None:
    """A string key the class spells its layer types with, one letter a layer (Nemotron-H's
    hybrid_override_pattern): the key, each letter's layer type (every printable letter tried),
    and the line that reads it."""
    import string

    path = Path(inspect.getsourcefile(config_cls))
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r'kwargs\.pop\("(\w+)"\)', text):
        key, letters = match.group(1), {}
        for letter in string.ascii_letters + string.punctuation:
            try:
                made = config_cls(**{key: letter}).layer_types
            except Exception:
                continue
            if isinstance(made, list) and len(made) == 1 and isinstance(made[0], str):
                letters[letter] = made[0]
        if letters:
            return {"key": key, "letters": letters, "source": _where(path, text, match)}
    return None


def all_aliases() -> dict[str, dict]:
    """attribute_map of every configuration class that has one."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    out = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            mapping = dict(getattr(CONFIG_MAPPING[model_type], "attribute_map", {}) or {})
        except Exception:
            continue
        if mapping:
            out[model_type] = mapping
    return out


# Lines of transformers that another engine's reading is compared with (engines-differ findings):
# name -> (file under transformers/, one regex per line it must find, in order).
ENGINE_LINES = {
    "yarn_betas": ("modeling_rope_utils.py", (
        r'^\s*beta_fast = rope_parameters_dict\.get\("beta_fast"\) or (\d+)$',
        r'^\s*beta_slow = rope_parameters_dict\.get\("beta_slow"\) or (\d+)$',
    )),
    "interleaved_mrope": ("models/qwen3_vl/modeling_qwen3_vl.py", (
        r"^\s*freqs_thw = freq\[0\]",
        r"^\s*length = self\.mrope_section\[dim\] \* 3$",
        r"^\s*idx = slice\(offset, length, 3\)$",
    )),
    # The lines a finding's severity rests on (docs/model-findings.md).
    "type_key": ("modeling_rope_utils.py", (
        r'^\s*rope_parameters\.setdefault\("rope_type", '
        r'rope_parameters\.get\("type", "default"\)\)$',
    )),
    "original_fallback": ("modeling_rope_utils.py", (
        r'^\s*if rope_parameters\["rope_type"\] in \["llama3", "yarn", "longrope"\]:$',
        r'^\s*self\.rope_parameters\.setdefault\("original_max_position_embeddings", '
        r'self\.max_position_embeddings\)$',
    )),
    "yarn_factor": ("modeling_rope_utils.py", (
        r"^def _compute_yarn_parameters\(",
        r'^\s*factor = rope_parameters_dict\["factor"\]$',
    )),
    "unvalidated_type": ("modeling_rope_utils.py", (
        r'^\s*validation_fn = getattr\(self, f"_validate_\{rope_type\}_rope_parameters", None\)$',
        r'^\s*f"Missing validation function in',
    )),
    "missing_keys": ("modeling_rope_utils.py", (
        r"^\s*raise KeyError\(f\"Missing required keys in `rope_parameters`",
    )),
    "su_renamed": ("models/phi3/configuration_phi3.py", (
        r'^\s*if rope_parameters_type is not None and rope_parameters_type in \["su", "yarn"\]:$',
    )),
    "absent_text_config": ("configuration_utils.py", (
        r"^\s*elif subconfig is None:$",
        r"^\s*subconfig = self\.init_kwargs$",
    )),
}  # fmt: skip

# Lines found in each modeling file (MODELING_LINES): the rotary's lookup of its rope type, which
# raises KeyError on one ROPE_INIT_FUNCTIONS lacks; M-RoPE's default sections and its split of the
# frequencies by them, which raises when they do not sum to the frequencies' count.
MODELING_PATTERNS = {
    "rope_init": r"^\s*rope_init_fn = ROPE_INIT_FUNCTIONS\[self\.rope_type\]$",
    "mrope_default": r"^\s*self\.mrope_section = config\.rope_parameters\.get\("
    r'"mrope_section", (\[[\d, ]+\])\)$',
    "mrope_split": r"^.*\bfreq\.split\(self\.mrope_section, dim=-1\)",
    "theta_read": r'^\s*base = config\.rope_parameters\["rope_theta"\]$',
}


def _enclosing(lines: list[str], line: int) -> str:
    """The module-level function, or Class.method, that line `line` (1-based) is in."""
    top = next((i for i in range(line - 1, -1, -1) if re.match(r"^(def|class) ", lines[i])), 0)
    if lines[top].startswith("def "):
        return re.match(r"^def (\w+)", lines[top]).group(1)
    return _function_at("\n".join(lines), line)


def engine_lines() -> dict:
    """Each ENGINE_LINES entry: its file:line range, the function, the lines and the numbers they
    hold (YaRN's default betas); stops when a pattern no longer matches."""
    import transformers

    root = Path(transformers.__file__).parent
    out = {}
    for name, (rel, patterns) in ENGINE_LINES.items():
        text = (root / rel).read_text(encoding="utf-8")
        lines, found, start = text.splitlines(), [], 0
        for pattern in patterns:
            at = next((i for i in range(start, len(lines)) if re.match(pattern, lines[i])), None)
            if at is None:
                raise SystemExit(f"transformers_tables: {rel} has no line {pattern!r}")
            found.append(at)
            start = at + 1
        values = [int(v) for i, p in zip(found, patterns, strict=True)
                  for v in re.match(p, lines[i]).groups()]  # fmt: skip
        first, last = found[0] + 1, found[-1] + 1
        out[name] = {
            "source": f"{Path(rel).name}:{first}{f'-{last}' if last != first else ''} "
            f"{_enclosing(lines, first)}",
            "file": rel,
            "lines": tuple(i + 1 for i in found),
            "code": tuple(lines[i].strip() for i in found),
            **({"values": tuple(values)} if values else {}),
        }
    return out


def modeling_lines(modeling_files: set[str]) -> dict:
    """{name: {modeling file: {"source": "modeling_x.py:N Class.method", "values": …}}} for each
    MODELING_PATTERNS line, found once in each modeling file of the rows."""
    import ast

    import transformers

    root = Path(transformers.__file__).parent / "models"
    out: dict[str, dict] = {name: {} for name in MODELING_PATTERNS}
    for modeling in sorted(modeling_files):
        path = root / modeling.removeprefix("modeling_").removesuffix(".py") / modeling
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for name, pattern in MODELING_PATTERNS.items():
            at = next((i for i, line in enumerate(lines) if re.match(pattern, line)), None)
            if at is None:
                continue
            found = re.match(pattern, lines[at]).groups()
            out[name][modeling] = {
                "source": f"{modeling}:{at + 1} {_enclosing(lines, at + 1)}",
                **({"values": tuple(ast.literal_eval(found[0]))} if found else {}),
            }
    return out


def generate() -> str:
    quiet()
    import transformers
    from transformers.models.auto.configuration_auto import model_type_to_module_name

    rows: dict[str, dict] = {}
    for folder in rotary_dirs():
        for rotary, config_cls in text_rotaries(folder):
            try:
                model_type, row = entry(folder, rotary, config_cls)
            except Exception as error:  # a class that cannot be built with its defaults
                print(f"skipped {folder} {rotary.__name__}: {error}"[:200], file=sys.stderr)
                continue
            own = model_type_to_module_name(model_type) == folder  # llama's row from llama/
            if own or model_type not in rows:
                rows[model_type] = row
    outer = {k: v for k, v in composites().items() if v["model_type"] in rows and k not in rows}
    aliases = all_aliases()
    plain = without_rotary(rows)
    modeling = modeling_lines({row["modeling"] for row in rows.values()})
    return HEADER.format(version=transformers.__version__) + (
        f"VERSION = {transformers.__version__!r}\n\n"
        f"# Each text model type: its config class, modeling file, rotary class and defaults.\n"
        f"MODEL_TYPES = {pprint.pformat(rows, width=99, sort_dicts=True)}\n\n"
        f"# Outer (multimodal) model types: where their text decoder's config lives.\n"
        f"COMPOSITES = {pprint.pformat(outer, width=99, sort_dicts=True)}\n\n"
        f"# Every model type's attribute_map (GPT-J's n_embd is hidden_size …).\n"
        f"ALIASES = {pprint.pformat(aliases, width=99, sort_dicts=True)}\n\n"
        f"# Model types whose modeling file applies no rotary (no default RoPE for them).\n"
        f"WITHOUT_ROTARY = frozenset({pprint.pformat(plain, width=99, compact=True)})\n\n"
        f"# Their layer types as the class fills them, and the layers built with no attention.\n"
        f"PLAIN_LAYOUTS = {pprint.pformat(plain_layouts(plain), width=99, sort_dicts=True)}\n\n"
        f"# Every model type the pinned transformers knows.\n"
        f"KNOWN = frozenset({pprint.pformat(known_types(), width=99, compact=True)})\n\n"
        f"# Lines another engine's reading is set against (ENGINE_LINES of the script).\n"
        f"LINES = {pprint.pformat(engine_lines(), width=99, sort_dicts=True)}\n\n"
        f"# Lines of each modeling file a finding cites (MODELING_PATTERNS of the script).\n"
        f"MODELING_LINES = {pprint.pformat(modeling, width=99, sort_dicts=True)}\n"
    )


HEADER = '''"""Generated by scripts/transformers_tables.py from transformers {version}'s own
configuration and modeling classes: do not edit (tests/unit/test_transformers_data.py says when
it is stale).
Read by components/model/engines.py when a model is first read, never at start-up.
"""

# fmt: off
'''


def main() -> int:
    return write_or_check(OUT, generate(), "transformers_tables", "--check" in sys.argv)


if __name__ == "__main__":
    sys.exit(main())

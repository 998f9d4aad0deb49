"""What each architecture does with positions, layer by layer, as its `transformers` modeling file
does: which layers rotate and with which base (Gemma's local and global layers, Llama 4's layers
without RoPE), the rotary part of a head, the pairing, the sliding window; and the families that do
not rotate at all (learned tables, ALiBi, T5's buckets).
"""

from __future__ import annotations

import math
from numbers import Real

from ..scaling import MAX_CONTEXT
from . import engines
from .frequencies import RULES, _even, head_dims, layer_frequencies, model_context
from .report import ranges
from .types import CHUNKED, FULL, SLIDING, Engine, Layer, ModelError, Reading, RotaryForward
from .values import integer

# Models whose modeling file rotates interleaved pairs (x0, x1), (x2, x3) …; every other RoPE model
# of transformers rotates half-split pairs (x_i, x_{i+d/2}) with `rotate_half`.
INTERLEAVED = {"gptj", "codegen", "llama4", "llama4_text", "chatglm", "glm"}
LEARNED = {"gpt2", "opt", "bert", "roberta", "gpt_bigcode", "biogpt", "xglm"}
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional", "mrope")


def rope_parameters(reading: Reading) -> dict[str, dict]:
    """Each layer type's RoPE parameters in the newer schema's shape: rope_type, rope_theta and the
    scaling's own keys. Old configs ({type|rope_type} in rope_scaling) are read as transformers'
    `standardize_rope_params` reads them."""
    config = reading.config
    given = config.get("rope_parameters")
    typed = isinstance(given, dict) and any(isinstance(v, dict) for v in given.values())
    if typed and all(isinstance(v, dict) or v is None for v in given.values()):
        first = FULL if isinstance(given.get(FULL), dict) else next(iter(given))
        reading.note("rope_theta", reading.cite(f"rope_parameters.{first}.rope_theta"))
        return {  # None: a layer type with no RoPE (Beam's full_attention)
            kind: _standard(reading, dict(v), f"rope_parameters.{kind}")
            for kind, v in given.items()
            if v is not None
        }
    if isinstance(given, dict) and given:
        return {"*": _standard(reading, dict(given), "rope_parameters")}
    scaling = config.get("rope_scaling")
    if scaling is not None and not isinstance(scaling, dict):
        raise ModelError(f"rope_scaling must be an object or null, got {str(scaling)[:40]!r}")
    params = dict(scaling or {})
    if "rope_theta" in config:
        params.setdefault("rope_theta", config["rope_theta"])
    global_params = _standard(reading, params, "rope_scaling")
    local = config.get("rope_local_base_freq")
    if local is not None:  # Gemma 3: local layers rotate with their own base, unscaled
        reading.note("rope_theta (local)", reading.cite("rope_local_base_freq"))
        return {FULL: global_params, SLIDING: {"rope_type": "default", "rope_theta": local}}
    return {"*": global_params}


def _standard(reading: Reading, params: dict, where: str) -> dict:
    """rope_type (engines.standard_rope_type) and rope_theta (or its default)."""
    kind = engines.standard_rope_type(params, reading, where).pop("rope_type", None) or "default"
    if kind == "mrope":
        reading.note("mrope_section", reading.cite(f"{where}.mrope_section"))
    if "rope_theta" not in params and reading.engine is Engine.LLAMACPP:
        from . import llamacpp

        theta = llamacpp.tables().THETA["defaults"]["freq_base"]  # the converters may omit it
        params["rope_theta"] = float(theta["value"])
        reading.note("rope_theta", f"llama.cpp's default, {theta['source']} (no rope.freq_base)")
    elif "rope_theta" not in params:  # a model type the pinned transformers does not know
        params["rope_theta"] = 10000.0
        reading.note("rope_theta", f"no rope_theta: {RULES['default theta']}")
        reading.find(
            "default-theta",
            "The config gives no rope_theta and its model type is unknown, so 10000 is used, "
            "the usual default; code with another default turns every pair at another speed.",
            "rope_theta absent → 10000",
        )
    else:
        path = "rope_theta" if where == "rope_scaling" else where + ".rope_theta"
        reading.note("rope_theta", reading.cite(path))
    if kind != "default":
        reading.note("scaling", reading.cite(f"{where}.rope_type"))
    params["rope_type"] = kind
    return params


def layer_kinds(reading: Reading, count: int) -> tuple[list[str], list[bool]]:
    """Each layer's type, config.layer_types if given, else as the model's modeling file decides;
    and whether each layer rotates by that rule (Llama 4's NoPE layers do not)."""

    config, model = reading.config, reading.model_type
    given = config.get("layer_types")
    everywhere = [True] * count
    if isinstance(given, list) and len(given) == count and all(isinstance(k, str) for k in given):
        reading.note("layer_types", reading.cite("layer_types"))
        return [k[:40] for k in given], everywhere
    if model == "gemma2":  # modeling_gemma2.py: every other layer slides, the first one too
        reading.note("layer_types", "modeling_gemma2.py: layers 0, 2, 4 … slide")
        return [SLIDING if (i + 1) % 2 else FULL for i in range(count)], everywhere
    pattern = integer(config, "sliding_window_pattern", high=1024)
    if pattern:  # Gemma 3: every pattern-th layer is global
        reading.note("layer_types", reading.cite("sliding_window_pattern"))
        return [SLIDING if (i + 1) % pattern else FULL for i in range(count)], everywhere
    if model in ("llama4", "llama4_text"):
        return _llama4_kinds(reading, count)
    if config.get("use_sliding_window") and config.get("sliding_window"):
        start = integer(config, "max_window_layers", high=MAX_CONTEXT) or 0
        keys = [k for k in ("use_sliding_window", "max_window_layers") if k in config]
        reading.note("layer_types", ", ".join(reading.cite(k) for k in keys))
        return [SLIDING if i >= start else FULL for i in range(count)], everywhere
    if config.get("sliding_window") and config.get("use_sliding_window") is None:
        reading.note("layer_types", f"{reading.cite('sliding_window')} (every layer)")
        return [SLIDING] * count, everywhere
    return [FULL] * count, everywhere


def _llama4_kinds(reading: Reading, count: int) -> tuple[list[str], list[bool]]:
    """modeling_llama4.py: layers with no_rope_layers[i] == 1 rotate and attend in chunks; the
    others (every nope_layer_interval-th, 4 by default) use no RoPE and see everything."""

    flags = reading.config.get("no_rope_layers")
    if isinstance(flags, list) and len(flags) == count:
        reading.note("layer_types", f"{reading.cite('no_rope_layers')} (1: RoPE)")
    else:
        interval = integer(reading.config, "nope_layer_interval", high=1024) or 4
        flags = [int((i + 1) % interval != 0) for i in range(count)]
        reading.note("layer_types", f"modeling_llama4.py: every {interval}th layer has no RoPE")
    return [CHUNKED if flag else FULL for flag in flags], [bool(flag) for flag in flags]


def method_of(reading: Reading) -> str:
    """The family: rope, learned, alibi, t5, sinusoidal. A model type whose transformers row
    has a rotary rotates, whatever BERT-era keys its file keeps (ModernBERT's
    position_embedding_type, which ModernBertConfig stores and its model never reads)."""
    config, model = reading.config, reading.model_type
    if reading.engine is Engine.TRANSFORMERS:
        return "rope"
    attn = config.get("attn_config") if isinstance(config.get("attn_config"), dict) else {}
    if model == "bloom" or config.get("alibi") is True or attn.get("alibi") is True:
        return "alibi"
    if model in ("t5", "mt5", "umt5", "longt5") or "relative_attention_num_buckets" in config:
        return "t5"
    if model in LEARNED or (not model and "n_positions" in config and "rope_theta" not in config):
        return "learned"
    if config.get("position_embedding_type") == "absolute" and "rope_theta" not in config:
        return "learned"
    if model == "mpt" and not attn.get("alibi"):
        return "learned"
    if reading.engine is Engine.GENERIC and model in engines.tables().WITHOUT_ROTARY:
        return _without_rotary(reading)
    return "rope"


def _without_rotary(reading: Reading) -> str:
    """A model type transformers builds with no rotary (Nemotron-H): no positions in attention,
    never a default RoPE."""
    version = engines.tables().VERSION
    reading.find(
        "no-rotary",
        f"transformers {version} builds {reading.model_type[:40]} with no rotary embedding: no "
        "layer's attention is given positions by RoPE, whatever θ the file states.",
        f"model_type = {reading.model_type[:40]!r}: its modeling file calls no apply_rotary… "
        "function (WITHOUT_ROTARY, generated)",
    )
    return "none"


def layers(reading: Reading) -> tuple[list[Layer], int | None, int | None]:
    """Every layer, the original and the maximum context."""

    count = (
        integer(reading.config, "num_hidden_layers", high=MAX_LAYERS_)
        or integer(reading.config, "n_layer", high=MAX_LAYERS_)
        or integer(reading.config, "num_layers", high=MAX_LAYERS_)
        or integer(reading.config, "n_layers", high=MAX_LAYERS_)
    )
    if not count:
        raise ModelError(
            "the config does not say how many layers the model has (num_hidden_layers)"
        )
    if reading.engine is Engine.LLAMACPP:  # its graph never runs the NextN (MTP) blocks
        count = _llamacpp_count(reading, count)
    method = method_of(reading)
    if method != "rope":
        top = _plain_context(reading)
        reading.sliding, reading.rotates = [False] * count, [False] * count
        kinds, empty = _plain_kinds(reading, count)
        window = _window(reading)
        built = [
            Layer(i, kinds[i], method, window=window, attends=not empty[i]) for i in range(count)
        ]
        return built, top, top
    return _rope_layers(reading, count)


def _plain_kinds(reading: Reading, count: int) -> tuple[list[str], list[bool]]:
    """Each layer's type in a model whose attention does not rotate: the class's layer_types
    (Nemotron-H's Mamba, MLP, MoE and attention layers, engines.PLAIN_LAYOUTS), else full
    attention; and which of them the model builds with no attention."""
    kinds = reading.config.get("layer_types")
    if not (isinstance(kinds, list) and len(kinds) == count):
        return [FULL] * count, [False] * count
    kinds = [str(kind)[:40] for kind in kinds]
    layout = engines.tables().PLAIN_LAYOUTS.get(reading.model_type) or {}
    rule = layout.get("without_attention") or {}
    if rule.get("rule") != "layer_types" or not set(rule["types"]) & set(kinds):
        return kinds, [False] * count
    reading.note("layers without attention", f"transformers: {rule['source']}")
    return kinds, [kind in rule["types"] for kind in kinds]


MAX_LAYERS_ = 1024


def _plain_context(reading: Reading) -> int | None:

    for key in ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length"):
        value = integer(reading.config, key, high=MAX_CONTEXT)
        if value:
            reading.note("max_context", reading.cite(key))
            return value
    attn = reading.config.get("max_seq_len")
    return attn if isinstance(attn, int) else None


def _window(reading: Reading) -> int | None:
    """The sliding window; 0 (Qwen2-MoE's saved default) means none, as transformers reads it.
    A class that makes it from another key (ModernBERT's local_attention // 2: window_from) is
    followed; a mask of both sides (|q - k| <= sliding_window: window_mask) spans twice it, as
    ModernBERT's local_attention and llama.cpp's symmetric n_swa count it."""
    if reading.config.get("sliding_window") == 0:
        return None
    window = integer(reading.config, "sliding_window", high=MAX_CONTEXT)
    made = reading.transformers_rule("window_from")
    if window is None and made:
        span = integer(reading.config, made["key"], high=MAX_CONTEXT) or made["default"]
        window = span // made["divisor"] or None
        reading.note("window", f"{made['key']} // {made['divisor']} ({made['source']})")
    mask = reading.transformers_rule("window_mask")
    if window and mask:
        reading.sources["window"] = (
            f"{reading.sources.get('window', 'config.json: sliding_window')}: "
            f"{window:,} each side, |q − k| ≤ {window:,} ({mask['source']})"
        )
        return 2 * window
    return window


def _unknown(reading: Reading, params: dict) -> dict:
    """An unknown rope type is named in a finding and drawn unscaled, never a crash."""
    name = str(params["rope_type"])[:40]
    evidence = f"rope_type = {name!r}; known: {', '.join(ROPE_TYPES)}"
    if reading.engine is Engine.TRANSFORMERS:
        data, modeling = engines.tables(), reading.row["modeling"]
        lookup = data.MODELING_LINES["rope_init"].get(modeling, {}).get("source", modeling)
        reading.find(
            "engine-refuses",
            f"transformers {data.VERSION} raises on the rope type {name!r}: validate_rope only "
            f"warns ({data.LINES['unvalidated_type']['source']}), then "
            f"{reading.row['rotary_class']} looks it up in ROPE_INIT_FUNCTIONS and raises "
            f"KeyError ({lookup}). Its layers are drawn unscaled.",
            evidence,
        )
    else:
        reading.find(
            "unknown-rope-type",
            f"The rope type {name!r} is not one transformers knows; its layers are drawn "
            "unscaled, which is what an engine that ignores it would do.",
            evidence,
        )
    return {
        "rope_type": "default",
        "rope_theta": params.get("rope_theta", 10000.0),
        "unknown": name,
    }


def _gguf_rope_freqs(reading: Reading, inv, scaling: dict):
    """llama.cpp divides each pair's frequency by the GGUF's rope_freqs tensor (how its converter
    stores Llama 3.1's scaling: llama-graph.cpp's freq_factors); a tensor of the wrong length
    disagrees with the file's own metadata."""
    import numpy as np

    freqs = reading.gguf.rope_freqs if reading.gguf else None
    if freqs is None:
        return inv, scaling
    freqs = np.asarray(freqs, dtype=np.float64).ravel()
    if freqs.size != inv.size or not np.all(np.isfinite(freqs)) or np.any(freqs <= 0):
        reading.find(
            "gguf-rope-tensor-mismatch",
            "The GGUF's rope_freqs tensor does not fit its own metadata: it must hold one positive "
            f"divisor per rotary pair ({engines.converter_line('rope_freqs_shape')}); llama.cpp "
            "refuses a tensor of another shape, and divides by nonsense otherwise.",
            f"rope_freqs holds {freqs.size} values; rope.dimension_count / 2 = {inv.size}",
        )
        return inv, scaling
    if scaling.get("type") not in ("default", None) and float(scaling.get("factor") or 1) > 1:
        reading.find(
            "gguf-double-scaling",
            "The GGUF both stores per-pair divisors (rope_freqs) and declares a scaling method: "
            f"{engines.converter_line('rope_freqs_shape')} loads the divisors and the graph "
            "applies both, so the slow pairs are divided twice.",
            f"rope.scaling.type {scaling.get('type')} × {scaling.get('factor')} and rope_freqs "
            f"{freqs.min():.4g} … {freqs.max():.4g}",
        )
    reading.note("scaling", "GGUF: rope_freqs.weight (divisors per pair)")
    return inv / freqs, {**scaling, "type": "rope_freqs", "divisors": freqs.tolist()}


def _size(kind: str, window: int | None) -> int | None:
    return window if kind.startswith(SLIDING) else None


def _rotating(reading: Reading, kinds: list[str], rotating: list[bool], window) -> list[bool]:
    """Which layers' attention applies RoPE, by the modeling file's rule (transformers_data's
    "rotates": no_rope_layers, sliding layers only, or sliding layers when there is a window),
    after the layers that have no such attention at all."""
    empty = _without_attention(reading, kinds)
    rotating = [turns and not no for turns, no in zip(rotating, empty, strict=True)]
    rule = reading.transformers_rule("rotates")
    turns = _rotates_by_rule(reading, rule, kinds, window) if rule else None
    if turns is None:
        return rotating
    reading.note("layers without RoPE", f"transformers: {rule['source']}")
    return [a and b for a, b in zip(rotating, turns, strict=True)]


def _rotates_by_rule(reading: Reading, rule: dict, kinds: list[str], window) -> list[bool] | None:
    """One "rotates" rule of transformers_data, layer by layer; None when it does not apply."""
    config = reading.config
    flags = config.get("no_rope_layers")
    if rule["rule"] == "no_rope_layers" and isinstance(flags, list) and len(flags) == len(kinds):
        return [bool(flag) for flag in flags]
    if rule["rule"] == "sliding-only":
        return [kind == SLIDING for kind in kinds]
    if rule["rule"] == "sliding-or-dense-prefix":  # Cohere2-MoE's force_rope
        dense = config.get("mlp_layer_types")
        forced = config.get("prefix_dense_sliding_window_pattern") == 1
        dense = dense if isinstance(dense, list) and len(dense) == len(kinds) else []
        return [
            kind == SLIDING or (forced and i < len(dense) and dense[i] == "dense")
            for i, kind in enumerate(kinds)
        ]
    if rule["rule"] == "sliding-or-no-window":
        return [window is None or kind == SLIDING for kind in kinds]
    if rule["rule"] == "typed-parameters":  # Beam: a type whose entry is None has no RoPE
        given = config.get("rope_parameters")
        given = given if isinstance(given, dict) else {}
        return [not (kind in given and given[kind] is None) for kind in kinds]
    if rule["rule"].startswith("flag:"):  # Zamba2: RoPE only when use_mem_rope is true
        return [config.get(rule["rule"][5:]) is True] * len(kinds)
    return None


def _without_attention(reading: Reading, kinds: list[str]) -> list[bool]:
    """Layers the model builds with no attention that rotates (transformers_data's
    "without_attention"): Mamba, linear-attention and conv layers by their type, Mllama's
    cross-attention layers by the key that lists them."""
    rule = reading.transformers_rule("without_attention") or {}
    if rule.get("rule") == "layer_types":
        empty = [kind in rule["types"] for kind in kinds]
    elif rule.get("rule") == "key" and isinstance(reading.config.get(rule["key"]), list):
        listed = set(reading.config[rule["key"]])
        empty = [index in listed for index in range(len(kinds))]
    else:
        return [False] * len(kinds)
    if any(empty):
        reading.note("layers without attention", f"transformers: {rule['source']}")
    return empty


def _rope_labels(reading: Reading) -> dict[str, str]:
    """The rotary entry each layer type reads where the two are named apart (transformers_data's
    "rope_labels": DeepSeek V4's compressed layers read "compress"); {} where they are one."""
    rule = reading.transformers_rule("rope_labels")
    if not rule:
        return {}
    reading.note("rotary entry per layer type", f"transformers: {rule['source']}")
    return rule["labels"]


def _llamacpp_count(reading: Reading, count: int) -> int:
    """block_count without the NextN blocks llama.cpp's graph never runs (llamacpp.main_layers)."""
    from . import llamacpp

    arch, meta = reading.gguf.architecture, reading.gguf.metadata
    main, source = llamacpp.main_layers(arch, meta, count)
    if source:
        reading.sources["layers"] = source
        reading.find(
            "llamacpp-rule",
            f"llama.cpp runs {main} of the file's {count} blocks: the last "
            f"{count - main} (nextn_predict_layers, the multi-token-prediction head) is never run "
            "by the model's graph, so it is not shown as a layer.",
            f"architecture {arch}: {source}",
        )
    return main


def _as_llamacpp(reading: Reading, per_kind: dict, count: int):
    """Layer kinds, which rotate, parameters per kind, pairing and window as llama.cpp runs a
    GGUF (llamacpp.plan), with what its graphs change per layer."""
    from . import llamacpp

    arch, meta = reading.gguf.architecture, reading.gguf.metadata
    plan = llamacpp.plan(arch, meta, count)
    for name, source in plan.sources.items():
        reading.sources[name] = source
    for note in plan.notes:
        reading.find("llamacpp-rule", f"{note[0].upper()}{note[1:]}.", f"architecture {arch}")
    kinds = [SLIDING if slides else FULL for slides in plan.sliding]
    # LLAMA_ROPE_TYPE_NONE (pairing None): no layer rotates
    rotating = [turns and plan.pairing is not None for turns in plan.rotates]
    base = per_kind.get("*") or per_kind.get(FULL) or next(iter(per_kind.values()))
    base = _llamacpp_params(reading, base)
    sliding = dict(base)
    if plan.swa_theta is not None:
        sliding["rope_theta"] = plan.swa_theta
        if plan.swa_unscaled:
            sliding = {"rope_type": "default", "rope_theta": plan.swa_theta}
    per_kind = {FULL: base, SLIDING: sliding}
    _unscaled_layers(reading, plan, per_kind)
    _graph_base(plan, per_kind)
    _text_stream(reading, plan)
    given = _window(reading)
    window = plan.window if plan.window_forced else (given or plan.window)
    return kinds, rotating, per_kind, plan.pairing or "half-split", window


def _llamacpp_params(reading: Reading, params: dict) -> dict:
    """The rope parameters llama.cpp runs: the base its loader computes (Hunyuan-VL's alpha),
    the YaRN betas of an architecture that reads none (Kimi K2's), its YaRN attention factor."""
    from . import llamacpp

    arch, meta = reading.gguf.architecture, reading.gguf.metadata
    params, source = llamacpp.base_at_load(arch, meta, params, head_dims(reading)[0])
    if source:
        reading.sources["rope_theta"] = source
    params, changed = llamacpp.unread_keys(arch, meta, params)
    if changed:
        _engines_differ_betas(reading, changed)
    return llamacpp.yarn_attention(arch, meta, params, reading)


def _transformers_engine(reading: Reading) -> str:
    """The transformers class that runs the GGUF's model type (a composite's text model)."""
    inner = engines.tables().COMPOSITES.get(reading.model_type, {}).get("model_type")
    row = engines.row_of(reading.model_type) or engines.row_of(inner or "")
    return engines.engine_name(row) if row else "transformers"


def _engines_differ_betas(reading: Reading, changed: list[tuple]) -> None:
    """One warning for YaRN betas llama.cpp does not read, naming both engines' lines."""
    from . import llamacpp

    arch = reading.gguf.architecture
    file = " and ".join(f"{name} {given:g}" for name, given, _, _ in changed)
    runs = " and ".join(f"{name} {value:g}" for name, _, value, _ in changed)
    lines = ", ".join(where for *_, where in changed)
    why = f"{lines}: llama_hparams' defaults, no read of the key for {arch}"
    reading.sources["YaRN ramp"] = f"llama.cpp {why}"
    reading.find(
        "engines-differ",
        f"llama.cpp reads no rope.scaling.yarn_beta_* for {arch}: it runs YaRN with its own "
        f"{runs}, where transformers runs the file's {file}; the YaRN ramp falls on other pairs.",
        f"{file} as {_transformers_engine(reading)} "
        f"({engines.tables().LINES['yarn_betas']['source']}); {runs} as "
        f"{llamacpp.engine_name(arch)} ({why})",
        fact="YaRN ramp",
    )


def _unscaled_layers(reading: Reading, plan, per_kind: dict) -> None:
    """Layers whose graph passes freq_scale 1 and ext_factor 0 (olmo2.cpp: Olmo 3's sliding
    layers) run plain RoPE at their base, whatever the file's scaling."""
    if not any(plan.unscaled):
        return
    every = all(plan.unscaled)
    if not every and plan.unscaled != plan.sliding:
        return
    for kind in (FULL, SLIDING) if every else (SLIDING,):
        per_kind[kind] = {"rope_type": "default", "rope_theta": per_kind[kind]["rope_theta"]}
    reading.sources["scaling (sliding layers)"] = plan.sources["scaling (per layer)"]


def _graph_base(plan, per_kind: dict) -> None:
    """A base every layer's RoPE call passes itself (cogvlm.cpp:115's ggml_rope runs ggml.c's
    10000, whatever rope.freq_base says)."""
    given = set(plan.graph_theta)
    if len(given) == 1 and None not in given:
        theta = given.pop()
        for kind in per_kind:
            per_kind[kind] = {**per_kind[kind], "rope_theta": theta}


def _text_stream(reading: Reading, plan) -> None:
    """Interleaved M-RoPE: the pairs llama.cpp turns with the fourth position stream, 0 for text
    tokens (llamacpp.text_stream_pairs), where transformers turns them with the text position."""
    from . import llamacpp

    kind = (llamacpp.row_of(reading.gguf.architecture) or {}).get("rope")
    if kind != "imrope":
        return
    head_dim, rot = head_dims(reading)
    pairs, lines = llamacpp.text_stream_pairs(reading.gguf.metadata, (rot or head_dim) // 2)
    if not pairs:
        return
    arch = reading.gguf.architecture
    reading.find(
        "engines-differ",
        f"For text, llama.cpp never turns {len(pairs)} pairs of the interleaved M-RoPE: they take "
        "the fourth position stream, which is 0 for every text token, where transformers turns "
        "them with the token's position.",
        f"pairs {ranges(pairs)}: the text position as {_transformers_engine(reading)} "
        f"({engines.tables().LINES['interleaved_mrope']['source']}); angle 0 as "
        f"{llamacpp.engine_name(arch)} ({lines})",
        fact="text positions",
    )


def _as_transformers(reading: Reading, count: int, window) -> tuple[list[str], list[bool], str]:
    """Layer kinds, which rotate, and the pairing as the model's modeling file runs them (or the
    generic rules for a model type no table holds)."""
    kinds, rotating = layer_kinds(reading, count)
    pairing = "interleaved" if reading.model_type in INTERLEAVED else "half-split"
    if reading.model_type.startswith("deepseek") and reading.config.get("rope_interleave", True):
        pairing = "interleaved"
    row = reading.row if reading.engine is Engine.TRANSFORMERS else None
    if row and row.get("pairing"):
        pairing = row["pairing"]
        reading.note("pairing", f"transformers: {row['source']}")
    interleave = (row or {}).get("interleave")  # MLA: apply_rotary_pos_emb_interleave
    if interleave and (
        interleave["rule"] == "always" or reading.config.get("rope_interleave") is True
    ):
        pairing = "interleaved"
        reading.sources["pairing"] = f"transformers: {interleave['source']}"
    return kinds, _rotating(reading, kinds, rotating, window), pairing


def _rotary_scale(reading: Reading, params: dict, att: float) -> float:
    """The scale the model's rotary forward puts on cos and sin at the maximum context: PhiMoE's
    long_mscale in place of LongRoPE's attention factor (transformers_data's "rotary_scale")."""
    return float(params["long_mscale"]) if _scale_key(reading, params) else att


def _scale_key(reading: Reading, params: dict) -> str | None:
    rule = reading.transformers_rule("rotary_scale")
    long = params.get("long_mscale")
    if rule and params.get("rope_type") != "default" and isinstance(long, (int, float)):
        return "long_mscale"
    return None


def _forward_frequencies(reading: Reading, params: dict, computed: tuple) -> tuple:
    """(inv_freq, attention factor, short inv_freq) as a rotary forward that recomputes them from
    the config alone, with no sequence length, runs them at every length (transformers_data's
    "forward_frequencies", PhiMoE): LongRoPE's short factors, past the original context too."""
    if reading.transformers_rule("forward_frequencies") and params["rope_type"] == "longrope":
        return computed[2], computed[1], computed[2]
    return computed


def _rotary_forward(reading: Reading, params: dict) -> RotaryForward | None:
    """What the exported script needs to compute as the forward does (_forward_frequencies and
    _rotary_scale), with the generated table's lines."""
    no_length = reading.transformers_rule("forward_frequencies")
    no_length = no_length if params["rope_type"] == "longrope" else None
    scale, key = reading.transformers_rule("rotary_scale"), _scale_key(reading, params)
    if not (no_length or key):
        return None
    sources = [rule["source"] for rule in (no_length, key and scale) if rule]
    return RotaryForward(bool(no_length), key, "; ".join(sources))


def _theta(value) -> float:
    """θ as transformers runs it: any number above 0 (at or below 1 noted: findings' odd-theta);
    at or below 0, 1 / θ^(2i/d) is infinite or NaN."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ModelError(f"rope_theta must be a number, got {str(value)[:40]!r}")
    if value <= 0:
        raise ModelError(
            f"rope_theta is {value:g}: transformers' frequencies 1 / θ^(2i/d) are then infinite or "
            "NaN, so there is nothing to draw"
        )
    return float(value)


def _head_dim_of(reading: Reading, kind: str, head_dim: int) -> int:
    """A layer type's own head size where the class gives it one (Gemma 4's global layers:
    global_head_dim, through per_layer_config)."""
    override = reading.head_dim_by_type.get(kind)
    if isinstance(override, int) and 2 <= override <= 4096:
        reading.note(f"head_dim ({kind})", reading.head_dim_by_type_source)
        return override
    return head_dim


def _rope_layers(reading: Reading, count: int) -> tuple[list[Layer], int | None, int | None]:
    head_dim, rot = head_dims(reading)
    per_kind = rope_parameters(reading)
    window = _window(reading)
    chunk = reading.config.get("attention_chunk_size")
    labels: dict[str, str] = {}
    if reading.engine is Engine.LLAMACPP:  # llama.cpp rotates by its own rules, whatever HF did
        kinds, rotating, per_kind, pairing, window = _as_llamacpp(reading, per_kind, count)
    else:
        kinds, rotating, pairing = _as_transformers(reading, count, window)
        labels = _rope_labels(reading)
    reading.sliding = [kind == SLIDING for kind in kinds]
    reading.rotates = rotating
    empty = _without_attention(reading, kinds)  # Bamba's Mamba layers, LFM2's conv ones
    original, top = model_context(reading, next(iter(per_kind.values())))
    cache: dict[str, tuple] = {}
    built = []
    for index, kind in enumerate(kinds):
        if not rotating[index]:
            built.append(Layer(index, kind, "none", head_dim=head_dim, window=_size(kind, window),
                               attends=not empty[index]))  # fmt: skip
            continue
        label = labels.get(kind, labels.get("*", kind))
        params = (
            per_kind.get(label)
            or per_kind.get("*")
            or per_kind.get(FULL)
            or next(iter(per_kind.values()))
        )
        size = (
            chunk
            if kind == CHUNKED and isinstance(chunk, int)
            else (window if reading.is_swa(index) else None)
        )
        place, head = (index, kind, size), (head_dim, rot, pairing)
        built.append(_rope_layer(reading, place, params, head, (original, top), cache))
    return built, original, top


def _rope_layer(reading: Reading, place: tuple, params: dict, head: tuple, context: tuple,
                cache: dict) -> Layer:  # fmt: skip
    """One rotating layer: (index, kind, window) with its rope parameters, its head (size, rotary
    part, pairing), the original and maximum context; frequencies cached per distinct setting."""
    (index, kind, size), (head_dim, rot, pairing), (original, top) = place, head, context
    if params["rope_type"] not in ROPE_TYPES:
        params = _unknown(reading, params)
    theta = _theta(params.get("rope_theta"))
    params = {**params, "rope_theta": theta}
    layer_head = _head_dim_of(reading, kind, head_dim)
    per_type = isinstance(params.get("partial_rotary_factor"), Real)
    width = reading.transformers_rule("rotary_width")
    if width == "qk_rope_head_dim" and isinstance(reading.config.get(width), int):
        per_type = False  # dots3: the rotary reads qk_rope_head_dim, not the factor
    layer_rot = (
        _even(int(layer_head * params["partial_rotary_factor"]))
        if per_type
        else (rot if layer_head == head_dim else layer_head)
    )
    key = kind + str(layer_head) + repr(sorted(params.items(), key=lambda kv: kv[0]))
    if key not in cache:
        try:
            cache[key] = layer_frequencies(params, layer_head, layer_rot, original, top)
        except ValueError as error:  # scaling.py's checks, in the visitor's words
            raise ModelError(f"{kind} layers: {error}") from None
    inv, att, short = _forward_frequencies(reading, params, cache[key])
    att = _rotary_scale(reading, params, att)
    forward = _rotary_forward(reading, params)
    scaling = {k: v for k, v in params.items() if k != "rope_theta"}
    scaling["type"] = scaling.pop("rope_type")
    inv, scaling = _gguf_rope_freqs(reading, inv, scaling)
    return Layer(index, kind, "rope", theta, layer_head, layer_rot, pairing, scaling,
                 inv, att, size, short, forward)  # fmt: skip

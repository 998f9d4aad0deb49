"""A config.json read as transformers builds its configuration class: the text decoder's part of a
multimodal config, the class's `attribute_map` aliases, its defaults for every key the file leaves
out, the old keys (rope_theta, rotary_emb_base, rope_local_base_freq, rope_scaling …) moved into
`rope_parameters` where the class moves them, and the layer-type patterns its `__post_init__`
fills in. Every fact comes from transformers_data.py, generated from the pinned transformers.
"""

from __future__ import annotations

import copy

from .types import FULL, ModelError, Reading

ENGINE = "transformers"


def tables():
    """The generated tables, imported when a model is first read (not at the page's start-up)."""
    from . import transformers_data

    return transformers_data


def row_of(model_type: str) -> dict | None:
    return tables().MODEL_TYPES.get(model_type)


def engine_name(row: dict) -> str:
    """ "transformers 5.23.0 runs Gemma3ForCausalLM, modeling_gemma3.py"."""
    return f"transformers {tables().VERSION} runs {row['architecture']}, {row['modeling']}"


def text_part(config: dict, reading: Reading) -> dict:
    """The text decoder's config of an outer (multimodal) one, else the config itself."""
    outer = tables().COMPOSITES.get(str(config.get("model_type") or ""))
    inner = config.get("text_config")
    if outer:
        path = outer["text_config"].split(".")
        inner = config
        for key in path:
            inner = inner.get(key) if isinstance(inner, dict) else None
        if not isinstance(inner, dict):
            return _absent_text_part(config, outer, reading)
        inner = dict(inner)
        inner["model_type"] = inner.get("model_type") or outer["model_type"]
        reading.note(
            "text config", f"{reading.cite(outer['text_config'])} ({config['model_type']})"
        )
        reading.lift(outer["text_config"])
        return inner
    if isinstance(inner, dict):  # an outer type newer than the pin: its text_config, as given
        reading.lift("text_config", keep_outer=True)
        merged = {k: v for k, v in config.items() if k != "text_config"}
        return {**merged, **inner}
    return _remote_decoder(config, reading)


# Where remote-code multimodal files keep their decoder's config (InternVL, DeepSeek-VL2, VILA).
DECODER_KEYS = ("llm_config", "language_config", "llm_cfg")


def _remote_decoder(config: dict, reading: Reading) -> dict:
    """An outer type transformers does not know: its decoder's sub-config, as given."""
    key = next((k for k in DECODER_KEYS if isinstance(config.get(k), dict)), None)
    if key is None or str(config.get("model_type") or "") in tables().KNOWN:
        return dict(config)
    reading.note("text config", f"{reading.cite(key)} ({config.get('model_type')})")
    reading.lift(key, keep_outer=True)
    return {**{k: v for k, v in config.items() if k != key}, **config[key]}


def _absent_text_part(config: dict, outer: dict, reading: Reading) -> dict:
    """A composite whose file gives no text config: the outer class builds its default one (its
    SubConfigSpec's init_kwargs: Qwen3-ASR's 28 layers of width 2048, whatever a thinker_config
    says), under the outer keys (Fuyu's are its text decoder's)."""
    absent = outer.get("absent", {})
    given = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    for key, value in given.items():  # Qwen3-ASR's thinker_config, as its own package reads it
        if isinstance(value, dict) and isinstance(value.get("text_config"), dict):
            reading.find(
                "engine-ignores-key",
                f"transformers {tables().VERSION} does not read {key}.text_config: it builds "
                f"{config['model_type']}'s default text decoder "
                f"({tables().LINES['absent_text_config']['source']}), and the layers below are "
                "that.",
                f"{key}.text_config given; {outer['text_config']} absent",
            )
    _default_sections_refused(config, outer, reading)
    said = (
        f"default of transformers {tables().VERSION} {config['model_type']}'s text config (its "
        "SubConfigSpec): none in config.json"
    )
    for key in absent:
        if key not in given:
            reading.given_by(key, said)
            reading.note(key, said)
    return {**absent, **given, "model_type": outer["model_type"]}


def _modeling_line(name: str, row: dict) -> str:
    """A line of the row's modeling file (transformers_data.MODELING_LINES), or the file."""
    return tables().MODELING_LINES[name].get(row["modeling"], {}).get("source", row["modeling"])


def _default_sections_refused(config: dict, outer: dict, reading: Reading) -> None:
    """GLM-4.1V: a file with no text_config gets the text class's defaults, whose M-RoPE sections
    do not split its rotary's frequencies, and the rotary raises."""
    row, lines = row_of(outer["model_type"]), tables().MODELING_LINES
    if not row or row["modeling"] not in lines["mrope_split"]:
        return
    built = {**row["defaults"], **outer.get("absent", {})}
    head = built.get("head_dim") or built["hidden_size"] // built["num_attention_heads"]
    params = row["rope_parameters"] or {}
    pairs = int(head * (params.get("partial_rotary_factor") or 1.0)) // 2
    default = lines["mrope_default"].get(row["modeling"], {})
    sections = params.get("mrope_section") or default.get("values")
    if not sections or sum(sections) == pairs:
        return
    reading.find(
        "engine-refuses",
        f"transformers {tables().VERSION} raises on this file: with no text_config it builds "
        f"{row['config_class']} from the class's defaults, not from the file's own keys "
        f"({tables().LINES['absent_text_config']['source']}), so its rotary has {pairs} "
        f"frequencies and the default sections {list(sections)} "
        f"({default.get('source', row['modeling'])}), which sum to {sum(sections)}; splitting by "
        f"them raises ({lines['mrope_split'][row['modeling']]['source']}). The layers show what "
        "the file states.",
        f"text_config absent; {row['config_class']}: {pairs} frequencies, sections "
        f"{list(sections)}",
    )


def standardise(config: dict, reading: Reading) -> dict:
    """The config as the pinned transformers builds it, for a model type it knows; else as given,
    with a finding that says so."""
    row = reading.row
    if row is None:
        return _without_row(config, reading)
    given = _aliased(config, row, reading)
    out = dict(given)
    where = f"default of transformers {tables().VERSION} {row['config_class']}"
    for key, value in row["defaults"].items():
        if value is not None and key not in out:
            out[key] = value
            reading.given_by(key, where, value)
            reading.note(key, where)
    derived = row.get("layers_from")  # LongCat-Flash: num_hidden_layers is 2 × num_layers
    if derived and "num_hidden_layers" not in given:
        stated = given.get(derived["key"])
        if isinstance(stated, int) and not isinstance(stated, bool) and 0 < stated <= 512:
            out["num_hidden_layers"] = stated * derived["times"]
            said = f"{derived['times']} × {reading.cite(derived['key'])}"
        else:
            out["num_hidden_layers"] = derived["default"]
            said = where
        reading.given_by("num_hidden_layers", said)
        reading.note("num_hidden_layers", said)
    widths = ("head_dim", "hidden_size", "num_attention_heads")
    if "resolved_head_dim" in row and not any(key in given for key in widths):
        out["head_dim"] = row["resolved_head_dim"]  # what __post_init__ made of the defaults
        said = f"{row['config_class']}.__post_init__ ({where})"
        reading.given_by("head_dim", said)
        reading.note("head_dim", said)
    out["rope_parameters"] = _rope_parameters(given, row, reading, where)
    _legacy_rotary_dim(given, out, row, reading)
    _unread_theta(given, out["rope_parameters"], row, reading)
    _head_dim_by_type(given, row, reading, where)
    count = out.get("num_hidden_layers")
    for attribute in ("layer_types", "no_rope_layers"):
        if not given.get(attribute) and isinstance(count, int) and 0 < count <= 1024:
            filled = _pattern(row.get(attribute), given, count)
            if filled is not None:
                out[attribute] = filled
                said = f"{row['config_class']}.__post_init__ ({where})"
                reading.given_by(attribute, said)
                reading.note(attribute, said)
    return out


def _legacy_rotary_dim(given: dict, out: dict, row: dict, reading: Reading) -> None:
    """A legacy rotary_dim the class turns into partial_rotary_factor = rotary_dim / head_dim in
    each entry that names none (transformers_data's "rotary_dim_key": MiniMax M2)."""
    rule, dims, head = row.get("rotary_dim_key"), given.get("rotary_dim"), out.get("head_dim")
    if not rule or not all(isinstance(v, int) and not isinstance(v, bool) for v in (dims, head)):
        return
    if dims <= 0 or head <= 0:
        return
    params = out["rope_parameters"]
    nested = any(isinstance(v, dict) for v in params.values())
    said = f"{reading.cite('rotary_dim')} / head_dim ({rule['source']})"
    for path, entry in _targets(params, rule["targets"], nested):
        if "partial_rotary_factor" not in entry:
            entry["partial_rotary_factor"] = dims / head
            reading.given_by(f"{path}.partial_rotary_factor", said)
    reading.note("rotary_dim", said)


def _head_dim_by_type(given: dict, row: dict, reading: Reading, where: str) -> None:
    """Gemma 4: the global layers' own head size, from per_layer_config, the class's key or the
    class's default."""
    by_type = row.get("head_dim_by_type")
    if not by_type:
        return
    value = given.get(by_type.get("key", ""))
    sizes = dict(by_type["default"])
    stated = _stated_head_dims(given)
    if stated:
        sizes, source = stated, reading.cite("per_layer_config")
    elif isinstance(value, int) and not isinstance(value, bool):
        sizes, source = dict.fromkeys(sizes, value), reading.cite(by_type["key"])
    else:
        source = f"{row['config_class']}.__post_init__ ({where})"
    reading.head_dim_by_type, reading.head_dim_by_type_source = sizes, source


def _unread_theta(given: dict, params: dict, row: dict, reading: Reading) -> None:
    """A θ in a sub-config the class never moves into rope_parameters (DBRX's
    attn_config.rope_theta): the engine turns at its own default, and the file's number is said."""
    theta = params.get("rope_theta") if isinstance(params, dict) else None
    for key, value in given.items():
        inner = value.get("rope_theta") if isinstance(value, dict) else None
        skip = key in ("rope_parameters", "rope_scaling", "text_config")
        if skip or not isinstance(inner, (int, float)) or isinstance(inner, bool):
            continue
        if isinstance(theta, (int, float)) and inner != theta:
            reading.find(
                "engine-ignores-key",
                f"transformers {tables().VERSION} does not read {key}.rope_theta: "
                f"{row['rotary_class']} turns at θ = {theta:g} "
                f"({_modeling_line('theta_read', row)}), not the file's {inner:g}. "
                "The layers below are what it runs.",
                f"{key}.rope_theta = {inner:g}; {row['modeling']}: "
                f"config.rope_parameters['rope_theta'] = {theta:g}",
            )


def _without_row(config: dict, reading: Reading) -> dict:
    """A model type with no rotary text decoder in the tables: its aliases if transformers knows
    it (GPT-J, GPT-2 …), else a finding that says it is read from the generic keys."""
    data = tables()
    if reading.model_type in data.KNOWN:
        aliases = {"aliases": data.ALIASES.get(reading.model_type, {})}
        return _plain_layout(_aliased(config, aliases, reading), reading)
    if reading.model_type:
        reading.find(
            "unknown-model-type",
            f"transformers {data.VERSION} knows no model type {reading.model_type[:40]!r} "
            "(newer than this page's pin, or misspelt): its positions are read from the generic "
            "keys (rope_theta, rope_scaling, head_dim …), not from that model's own code.",
            f"model_type = {reading.model_type[:40]!r}",
        )
    else:  # MiniCPM3-4B: only auto_map names its remote code
        reading.find(
            "unknown-model-type",
            "The config names no model_type (its remote code is found through auto_map): its "
            "positions are read from the generic keys (rope_theta, rope_scaling, head_dim …).",
            "no model_type key",
        )
    return config


def _plain_layout(config: dict, reading: Reading) -> dict:
    """The layer types a class with no rotary fills in (PLAIN_LAYOUTS): spelt one letter a layer
    (Nemotron-H's hybrid_override_pattern), else its pattern or its own list; the layer count
    the list's length where the class makes it so."""
    layout = tables().PLAIN_LAYOUTS.get(reading.model_type)
    given = config.get("layer_types")
    if not layout or (isinstance(given, list) and all(isinstance(k, str) for k in given)):
        return config
    out, spelt = dict(config), layout.get("letters") or {}
    where = f"{layout['config_class']}.__post_init__ (transformers {tables().VERSION})"
    pattern = config.get(spelt.get("key", ""))
    count = config.get("num_hidden_layers")
    if count is None:  # the class's default count
        count = out["num_hidden_layers"] = layout["layers"]
        reading.note("num_hidden_layers", f"default of {where}")
    if isinstance(pattern, str) and pattern:
        unknown = sorted(set(pattern) - set(spelt["letters"]))
        if unknown:  # the class raises a KeyError on them
            known = " ".join(spelt["letters"])
            raise ModelError(
                f"{spelt['key']} has letters {layout['config_class']} does not know: "
                f"{' '.join(unknown)[:40]} (it knows {known})"
            )
        kinds = [spelt["letters"][letter] for letter in pattern]
        reading.note("layer_types", f"{reading.cite(spelt['key'])} ({spelt['source']})")
    elif isinstance(count, int) and 0 < count <= 1024 and not layout.get("count_from_layer_types"):
        kinds = _pattern(layout.get("layer_types"), config, count)
        reading.note("layer_types", where)
    else:  # Nemotron-H: its own list, whatever num_hidden_layers says
        kinds = list((layout.get("layer_types") or {}).get("default") or []) or None
        reading.note("layer_types", where)
    if kinds:
        out["layer_types"] = kinds
        if layout.get("count_from_layer_types"):
            out["num_hidden_layers"] = len(kinds)
            reading.note("num_hidden_layers", f"the length of layer_types ({where})")
    return out


def _stated_head_dims(given: dict) -> dict:
    """{layer type: head_dim} from a saved per_layer_config ({"05": {"head_dim": 512}, …})."""
    overrides, kinds = given.get("per_layer_config"), given.get("layer_types")
    if not isinstance(overrides, dict) or not isinstance(kinds, list):
        return {}
    out = {}
    for index, values in overrides.items():
        inside = str(index).isdigit() and int(index) < len(kinds)
        if inside and isinstance(values, dict) and isinstance(values.get("head_dim"), int):
            out[str(kinds[int(index)])] = values["head_dim"]
    return out


def _aliased(config: dict, row: dict, reading: Reading) -> dict:
    """attribute_map: GPT-J's n_embd is hidden_size, and so on."""
    out = dict(config)
    for name, stored in row["aliases"].items():
        if stored in out and name not in out:
            out[name] = out[stored]
            reading.move(stored, name, f"transformers {tables().VERSION}")
    return out


def _rope_parameters(given: dict, row: dict, reading: Reading, where: str) -> dict:
    """rope_parameters as the class standardises them, each entry with rope_type and rope_theta."""
    default = copy.deepcopy(row["rope_parameters"] or {})
    nested = any(isinstance(v, dict) for v in default.values())
    stated = given.get("rope_parameters")
    if isinstance(stated, dict) and stated:
        params = copy.deepcopy(stated)
        nested = any(isinstance(v, dict) for v in params.values())
    else:
        params = default
        reading.given_by("rope_parameters", where, params)
        _moved_into(params, given, row, reading, nested)
    fallback = default if nested else {"*": default}
    for kind, entry in params.items() if nested else [("*", params)]:
        if not isinstance(entry, dict):
            continue
        path = f"rope_parameters{'' if kind == '*' else '.' + kind}"
        standard_rope_type(entry, reading, path)
        entry.setdefault("rope_type", "default")
        if "rope_theta" not in entry:
            theta = _fallback_entry(fallback, kind).get("rope_theta")
            if theta is not None:
                entry["rope_theta"] = theta
                reading.given_by(f"{path}.rope_theta", where)
                reading.note("rope_theta", where)
                _default_theta(reading, row, {kind: entry}, True)
    return params


def _moved_into(params: dict, given: dict, row: dict, reading: Reading, nested: bool) -> None:
    """The old keys the class moves into its default rope_parameters, in place: rope_scaling's,
    each θ key (rope_theta, rope_local_base_freq …) and each partial key (rotary_pct …)."""
    scaling = given.get("rope_scaling")
    if isinstance(scaling, dict) and scaling:
        scaling = standard_rope_type(dict(scaling), reading, "rope_scaling")
        for path, entry in _targets(params, row.get("scaling_targets", ["*"]), nested):
            entry.update({k: v for k, v in scaling.items() if k != "rope_theta"})
            for key in scaling.keys() - {"rope_theta"}:
                reading.move(f"rope_scaling.{key}", f"{path}.{key}")
    for key, targets in row["theta_keys"].items():
        if key in given:
            for path, entry in _targets(params, targets, nested):
                entry["rope_theta"] = given[key]
                reading.move(key, f"{path}.rope_theta")
            reading.note(f"rope_theta{'' if targets in (['*'], [FULL]) else ' (local)'}",
                         reading.cite(key))  # fmt: skip
    if not any(key in given for key in row["theta_keys"]):
        _default_theta(reading, row, params, nested)
    for key, targets in row.get("partial_keys", {}).items():
        if given.get(key) is not None:  # GPT-NeoX's rotary_pct lands here too
            for path, entry in _targets(params, targets, nested):
                entry["partial_rotary_factor"] = given[key]
                reading.move(key, f"{path}.partial_rotary_factor")
            reading.note("rotary_dim", f"{reading.cite(key)} × head_dim")


# Old names of rope types, as transformers still reads them.
RENAMED = {"su": "longrope"}
# Lines of llama.cpp (its converter and source at the pinned commit) a finding cites, with the code
# each holds: tests/unit/test_model_severity.py checks them against the mirror.
CONVERTER_COMMIT = "d32676d774"
CONVERTER_LINES = {
    "type_key": ("conversion/base.py", (1133, 1134), "TextModel.__init__",
                 'if "rope_type" not in self.rope_parameters and (rope_type := '
                 'self.rope_parameters.get("type")) is not None:'),
    "inv_freq_dropped": ("conversion/base.py", (867,), "ModelBase.prepare_tensors",
                         'if name.endswith((".attention.masked_bias", ".attention.bias", '
                         '".rotary_emb.inv_freq")):'),
    "rope_freqs_shape": ("src/models/llama.cpp", (66,), "load_tensors",
                         "layer.rope_freqs = create_tensor(tn(LLM_TENSOR_ROPE_FREQS, \"weight\", "
                         "i), {n_rot/2}"),
}  # fmt: skip


def converter_line(name: str) -> str:
    """ "llama.cpp d32676d774 conversion/base.py:1133-1134 TextModel.__init__"."""
    path, lines, where, _ = CONVERTER_LINES[name]
    span = "-".join(str(n) for n in (lines[0], lines[-1]) if n) if len(lines) > 1 else lines[0]
    return f"llama.cpp {CONVERTER_COMMIT} {path}:{span} {where}"


def standard_rope_type(entry: dict, reading: Reading, where: str) -> dict:
    """The one normaliser of a rope entry's method, in place: the old key `type` read as
    `rope_type` (as transformers' standardize_rope_params does) and named in a finding, an old
    name renamed; an entry that names no method is left without one."""
    if "type" in entry and "rope_type" not in entry:
        reading.find(
            "old-type-key",
            f"{where} names its method with the old key `type`: transformers "
            f"{tables().VERSION} reads it as rope_type ({tables().LINES['type_key']['source']}), "
            f"and so does the converter of {converter_line('type_key')}, so both run the scaling "
            "it names.",
            f"{where}.type = {str(entry['type'])[:30]!r}",
        )
    if "type" in entry and "rope_type" not in entry:
        reading.move(f"{where}.type", f"{where}.rope_type")
    kind = entry.pop("rope_type", None) or entry.pop("type", None)
    entry.pop("type", None)
    if kind == "su" and "original_max_position_embeddings" not in entry:
        _su_refused(reading, where)
    if kind:
        entry["rope_type"] = RENAMED.get(kind, kind) if isinstance(kind, str) else kind
    return entry


def _su_refused(reading: Reading, where: str) -> None:
    """Phi-3's old "su" with the original context outside rope_scaling: transformers moves it in
    only for the new names, renames "su" after, and LongRoPE's validation raises without it."""
    if reading.transformers_rule("modeling") != "modeling_phi3.py":
        return
    lines = tables().LINES
    reading.find(
        "engine-refuses",
        f"transformers {tables().VERSION} raises KeyError on this file: standardize_rope_params "
        "moves original_max_position_embeddings into rope_parameters only for llama3, yarn and "
        f"longrope ({lines['original_fallback']['source']}), Phi3Config renames 'su' to longrope "
        f"after it ({lines['su_renamed']['source']}), and LongRoPE's validation then lacks the "
        f"key ({lines['missing_keys']['source']}). The layers show LongRoPE as the file states it.",
        f"{where}.type = 'su'; original_max_position_embeddings outside {where}",
    )


def _fallback_entry(fallback: dict, kind: str) -> dict:
    """The class's default entry for a layer kind: its own, else (a file nested where the class
    is flat, e.g. rope_parameters {"": {}}) the flat default, else the first entry."""
    if isinstance(fallback.get(kind), dict):
        return fallback[kind]
    if "rope_theta" in fallback:
        return fallback
    return next((entry for entry in fallback.values() if isinstance(entry, dict)), {})


def _default_theta(reading: Reading, row: dict, params: dict, nested: bool) -> None:
    """The finding for a θ no key of the file gives: the class's default is used."""
    reading.theta_from_default = True
    reading.note("rope_theta", f"default of transformers {tables().VERSION} {row['config_class']}")
    thetas = {e.get("rope_theta") for e in _entries(params, ["*"], nested) if e.get("rope_theta")}
    shown = ", ".join(f"{t:g}" for t in sorted(thetas))
    reading.find(
        "default-theta",
        f"The config gives no key transformers reads θ from, so transformers "
        f"{tables().VERSION} runs {shown}, the default of {row['config_class']}. Code that "
        "fills another default turns every pair at another speed; where llama.cpp's converter "
        "fills another, the two engines differ (engines-differ, with the GGUF beside it).",
        f"rope_theta absent → {shown}",
    )


def _entries(params: dict, targets: list[str], nested: bool) -> list[dict]:
    return [entry for _, entry in _targets(params, targets, nested)]


def _targets(params: dict, targets: list[str], nested: bool) -> list[tuple[str, dict]]:
    """The rope_parameters entries a key lands in, each with its path."""
    if not nested:
        return [("rope_parameters", params)]
    kinds = [k for k in params if targets == ["*"] or k in targets]
    return [(f"rope_parameters.{k}", params[k]) for k in kinds if isinstance(params[k], dict)]


def _pattern(rule: dict | None, given: dict, count: int) -> list | None:
    """A layer-type list the class fills in: its period, or a period a key of the file sets."""
    if not rule:
        return None
    listed = rule.get("indices", {})  # LFM2's full_attn_idxs, Bamba's attn_layer_indices
    indices = given.get(listed.get("key", ""))
    if isinstance(indices, list) and all(isinstance(i, int) for i in indices):
        return [listed["listed"] if i in indices else listed["others"] for i in range(count)]
    if "default" in rule:  # no period: the class's own list, for its own layer count
        return list(rule["default"]) if len(rule["default"]) == count else None
    period = rule["period"]
    size = given.get(rule.get("key", ""))
    if isinstance(size, int) and not isinstance(size, bool) and 0 < size <= 1024:
        common = max(set(period), key=period.count)
        odd = next((v for v in period if v != common), common)
        if rule.get("keyed") == "first":
            return [odd if i % size == 0 else common for i in range(count)]
        return [odd if (i + 1) % size == 0 else common for i in range(count)]
    windowed = {"sliding_window", "use_sliding_window", "max_window_layers"} & set(given)
    if len(period) < 2 and windowed:  # one kind by default, but the file asks for windows: the
        return None  # generic rules read them (Qwen2's use_sliding_window, Mistral's window)
    return [period[i % len(period)] for i in range(count)]

"""A GGUF read as llama.cpp runs it: the pairing `llama_model_rope_type` gives its architecture,
which layers slide (`set_swa_pattern` and each architecture's default period), which layers skip
RoPE, and the base and scaling of the sliding layers, by the rules of llamacpp_data.py (generated
from llama.cpp's source at a pinned commit; every rule names its file:line).

The rules' conditions are small expressions over llama.cpp's own names (`is_swa(il)`,
`(il + 1) % n_no_rope_layer_step != 0`, `found_swa and n_swa > 0`): they are evaluated here by a
walker that knows those names and a handful of operators, never by eval.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field

# llama.cpp's rope type -> the pairs it rotates (norm: adjacent, neox: half-split; M-RoPE's
# sections rotate half-split pairs too).
PAIRING = {"norm": "interleaved", "neox": "half-split", "mrope": "half-split",
           "imrope": "half-split", "vision": "half-split"}  # fmt: skip


def tables():
    """The generated rules, imported when a GGUF is first read."""
    from . import llamacpp_data

    return llamacpp_data


def row_of(arch: str) -> dict | None:
    """The architecture's row of llama_model_rope_type (its pairing and the line that says so)."""
    return tables().ROPE_TYPES.get(arch)


def engine_name(arch: str) -> str:
    data = tables()
    return f"llama.cpp {data.COMMIT[:10]} ({data.MIRROR}) runs {arch}, src/llama-model.cpp"


@dataclass
class Plan:
    """What llama.cpp does with one GGUF's layers."""

    pairing: str | None  # None: the architecture has no RoPE (LLAMA_ROPE_TYPE_NONE)
    sliding: list[bool]
    rotates: list[bool]
    swa_theta: float | None  # the sliding layers' own base, None: the global one
    swa_unscaled: bool  # the sliding layers turn without the file's scaling
    sources: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    window: int | None = None  # the window llama.cpp uses when the file gives none (Llama 4's)
    window_forced: bool = False  # that window replaces the file's (SmallThinker's 4096)
    unscaled: list[bool] = field(default_factory=list)  # the graph turns YaRN off (Olmo 3's SWA)
    graph_theta: list[float | None] = field(default_factory=list)  # a call's own base (CogVLM)
    no_rope_step: int = 4  # n_no_rope_layer_step as the architecture sets it


class Unknown(ValueError):
    """A rule's condition names something this reader does not know."""


OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
             ast.Mod: operator.mod, ast.Div: operator.truediv, ast.Eq: operator.eq,
             ast.NotEq: operator.ne,
             ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
             ast.GtE: operator.ge}  # fmt: skip


def evaluate(expression: str, names: dict):
    """The value of a rule's condition, from `names` only (no builtins, no attributes)."""
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        raise Unknown(expression) from None
    return _value(tree, names)


def _value(node, names: dict):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise Unknown(node.id)
        return names[node.id]
    if isinstance(node, ast.BoolOp):
        values = [_value(v, names) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.IfExp):  # a graph's `c ? a : b` (laguna.cpp:182)
        return _value(node.body if _value(node.test, names) else node.orelse, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _value(node.operand, names)
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        right = _value(node.right, names)
        if isinstance(node.op, (ast.Mod, ast.Div)) and not right:
            raise Unknown("% 0")
        return OPERATORS[type(node.op)](_value(node.left, names), right)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in OPERATORS:
        left, right = _value(node.left, names), _value(node.comparators[0], names)
        return OPERATORS[type(node.ops[0])](left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        function = names.get(node.func.id)
        if not callable(function):
            raise Unknown(node.func.id)
        return function(*(_value(a, names) for a in node.args))
    raise Unknown(ast.dump(node)[:60])


def pairing(arch: str, meta: dict) -> tuple[str | None, str]:
    """The pairs llama.cpp rotates for an architecture, and the line that says so."""
    row = tables().ROPE_TYPES.get(arch)
    if row is None:
        return "half-split", ""
    kind = row["rope"]
    conditional = row.get("conditional")
    if conditional and conditional.get("when") == "use_mrope()":
        sections = meta.get("rope.dimension_sections")
        mrope = isinstance(sections, list) and len(sections) > 1 and sections[0] and sections[1]
        kind = conditional["then"] if mrope else conditional["else"]
    return PAIRING.get(kind), f"llama.cpp {row['source']} ({kind})"


def plan(arch: str, meta: dict, count: int) -> Plan:
    """What llama.cpp does with each of `count` layers of a GGUF of this architecture."""
    found, source = pairing(arch, meta)
    result = Plan(found, [False] * count, [True] * count, None, False, {"pairing": source})
    result.unscaled = [False] * count
    result.graph_theta = [None] * count
    _sliding(arch, meta, result)
    _without_rope(arch, meta, result)
    _swa_base(arch, meta, result)
    _graph_rope_args(arch, meta, result)
    return result


def main_layers(arch: str, meta: dict, count: int) -> tuple[int, str]:
    """The layers llama.cpp's graph runs: n_layer() = block_count - nextn_predict_layers, for the
    architectures that read that key (GLM-4.5's and EXAONE-MoE's NextN block is never run); with
    the lines that say so, or "" when every block runs."""
    data = tables()
    nextn = meta.get("nextn_predict_layers")
    reads = [r for r in data.KEYS["{arch}.nextn_predict_layers"]["reads"] if arch in r["arch"]]
    if not reads or not isinstance(nextn, int) or isinstance(nextn, bool) or not 0 < nextn < count:
        return count, ""
    rule = data.N_LAYER
    return count - nextn, (
        f"llama.cpp {rule['source']} ({rule['n_layer']}; nextn_predict_layers read at "
        f"{reads[0]['source']}), {rule['graph_source']}"
    )


def _graph_rope_args(arch: str, meta: dict, result: Plan) -> None:
    """Layers whose RoPE call passes its own settings for the file's (GRAPH_ROPE_ARGS): freq_scale
    1 (olmo2.cpp: Olmo 3's sliding layers run plain RoPE), a base of its own (cogvlm.cpp's
    ggml_rope: ggml.c's 10000). A call over names the reader lacks is in GRAPH_ROPE_SKIPPED."""
    row = tables().GRAPH_ROPE_ARGS.get(arch)
    count = len(result.unscaled)
    names = _graph_names(arch, meta, result, count)
    for call in (row or {}).get("calls", ()):
        try:
            runs = [_call_settings(call, {**names, "il": il}) for il in range(count)]
        except (Unknown, ArithmeticError, TypeError):
            continue
        for il, settings in enumerate(runs):
            if settings is None:
                continue
            if settings["freq_scale"] == 1 and names["freq_scale"] != 1:
                result.unscaled[il] = True
            if settings["freq_base"] != names["rope_freq_base"](il):
                result.graph_theta[il] = float(settings["freq_base"])
        if any(s is not None and s["freq_scale"] == 1 for s in runs) and any(result.unscaled):
            result.sources["scaling (per layer)"] = (
                f"llama.cpp {call['source']} (freq_scale 1, ext_factor "
                f"{call['set'].get('ext_factor', 'as the file')}, attn_factor "
                f"{call['set'].get('attn_factor', 'as the file')})"
            )
        if any(x is not None for x in result.graph_theta):
            where = (
                f"{call['source']}, {call['defaults']}" if "defaults" in call else call["source"]
            )
            result.sources["rope_theta"] = f"llama.cpp {where} (the graph's own base)"


def _call_settings(call: dict, names: dict) -> dict | None:
    """One call's freq_base, freq_scale, ext_factor, attn_factor and betas at layer names["il"],
    or None when its condition does not hold there."""
    if call["when"] and not evaluate(call["when"], names):
        return None
    settings = {k: names[k] for k in ("freq_base", "freq_scale", "ext_factor", "attn_factor")}
    settings.update(call["set"])
    settings.update({k: evaluate(v, names) for k, v in call["expr"].items()})
    return settings


def _graph_names(arch: str, meta: dict, result: Plan, count: int) -> dict:
    """GRAPH_ROPE_NAMES for one file: the shared settings as llama_context sets them (freq_scale
    1/factor for linear and YaRN, ext_factor 1 for YaRN), the per-layer getters of
    llama-model.cpp (the sliding layers' base and scale, THETA)."""
    kind, factor = meta.get("rope.scaling.type"), meta.get("rope.scaling.factor")
    scaled = kind in ("linear", "yarn") and isinstance(factor, (int, float)) and factor > 0
    base = meta.get("rope.freq_base")
    base = float(base) if isinstance(base, (int, float)) else 10000.0
    scale = 1.0 / float(factor) if scaled else 1.0
    row = tables().THETA["arch"].get(arch, {})
    swa_base = result.swa_theta if result.swa_theta is not None else base
    swa_scale = 1.0 if result.swa_unscaled else scale

    def per_layer(swa, shared):
        return lambda il: swa if result.sliding[il] and row.get("graph_per_layer_base") else shared

    return {
        **_names(meta, result, count),
        "arch": arch,
        "iswa": any(result.sliding),
        "n_no_rope_layer_step": result.no_rope_step,
        "freq_base": base,
        "freq_scale": scale,
        "ext_factor": 1.0 if kind == "yarn" else 0.0,
        "attn_factor": 1.0,
        "beta_fast": float(meta.get("rope.scaling.yarn_beta_fast") or 32.0),
        "beta_slow": float(meta.get("rope.scaling.yarn_beta_slow") or 1.0),
        "rope_freq_base_train_swa": swa_base,
        "rope_freq_scale_train_swa": swa_scale,
        "rope_freq_base": per_layer(swa_base, base),
        "rope_freq_scale": per_layer(swa_scale, scale),
    }


def _names(meta: dict, result: Plan, count: int) -> dict:
    window = meta.get("attention.sliding_window")
    heads_kv = meta.get("attention.head_count_kv")

    def n_head_kv(il: int) -> int:
        if isinstance(heads_kv, list):
            return int(heads_kv[il]) if il < len(heads_kv) else 0
        return int(heads_kv) if isinstance(heads_kv, (int, float)) else 1

    return {
        "found_swa": window is not None,
        "n_swa": int(window) if isinstance(window, (int, float)) else 0,
        "n_layer": lambda: count,
        "is_swa": lambda il: result.sliding[il],
        "n_head_kv": n_head_kv,
    }


def _sliding(arch: str, meta: dict, result: Plan) -> None:
    """set_swa_pattern: which layers slide (the default period when the file gives none)."""
    row = tables().SWA.get(arch)
    count = len(result.sliding)
    if not row or row.get("swa_type") == "none":
        if meta.get("attention.sliding_window") is not None:
            result.notes.append(
                f"llama.cpp reads no sliding window for {arch}: every layer attends to the "
                "whole context, whatever attention.sliding_window says"
            )
        return
    names = _names(meta, result, count)
    _default_window(row, meta, names, result)
    for rule in row.get("layers", []):
        try:
            if rule.get("when") and not evaluate(rule["when"], names):
                continue
        except Unknown:
            continue
        if rule["rule"] == "all_dense":
            result.sources["sliding layers"] = f"llama.cpp {rule['source']} (SWA off)"
            return
        if rule["rule"] in ("dense_last_of_period", "dense_first_of_period"):
            period = meta.get("attention.sliding_window_pattern")
            if not isinstance(period, int) or isinstance(period, bool) or period < 1:
                period = row.get("n_pattern_default") or 1
            if isinstance(rule.get("n_pattern"), int):
                period = rule["n_pattern"]
            first = rule.get("dense_first")
            result.sliding = [
                (il % period != 0) if first else ((il + 1) % period != 0) for il in range(count)
            ]
            result.sources["sliding layers"] = (
                f"llama.cpp {rule['source']} (every {period}th layer dense)"
            )
            return


def _default_window(row: dict, meta: dict, names: dict, result: Plan) -> None:
    """The window an architecture sets when the GGUF has no attention.sliding_window (Llama 4's
    8192-token chunks), or sets whatever the file says (SmallThinker's 4096: `forced`)."""
    given = meta.get("attention.sliding_window") is not None
    for rule in row.get("window_default", ()):
        if given and not rule.get("forced"):
            continue
        try:
            if rule.get("when") and not evaluate(rule["when"], names):
                continue
        except Unknown:
            continue
        if isinstance(rule.get("value"), int) and rule["value"] > 0:
            result.window, result.window_forced = rule["value"], given
            why = "set after the file's is read" if given else "the default"
            result.sources["window"] = f"llama.cpp {rule['source']} ({why})"
            return


def _without_rope(arch: str, meta: dict, result: Plan) -> None:
    """Layers the graph builds without RoPE: recurrent ones, every n-th, or only sliding ones."""
    row = tables().NO_ROPE_LAYERS.get(arch)
    if not row:
        return
    count = len(result.rotates)
    names = _names(meta, result, count)
    step = row.get("n_no_rope_layer_step", {})
    value = step.get("default", {}).get("value", 4)
    for setting in step.get("set", []):
        if isinstance(setting.get("value"), int) and not setting.get("when"):
            value = setting["value"]
    swa = tables().SWA.get(arch, {})
    result.no_rope_step = value
    names.update(n_no_rope_layer_step=value, swa_type=swa.get("swa_type", "none"), il=0)
    names["rope_finetuned"] = _finetuned(row, meta)
    rules = row.get("rope_if", [])
    recurrent = _recurrent_rules(row, meta, names)
    for il in range(count):
        names["il"] = il
        try:
            turns = all(evaluate(rule["rope_if"], names) for rule in rules)
            if any(_recurrent(rule, meta, names) for rule in recurrent):
                turns = False
        except Unknown:
            return
        result.rotates[il] = bool(turns)
    where = [rule["source"] for rule in rules] + [r["source"] for r in recurrent]
    result.sources["layers without RoPE"] = f"llama.cpp {', '.join(where)}"


def _recurrent_rules(row: dict, meta: dict, names: dict) -> list[dict]:
    """The is_recr rules that apply to this file: the per-layer array when the file has it, else
    the rule computed from its locals (qwen3next.cpp: full_attention_interval, 4 by default)."""
    rules = []
    for rule in row.get("recurrent_layers", {}).get("is_recr", []):
        if rule.get("unless_key") and meta.get(rule["unless_key"]) is not None:
            continue
        for name, local in rule.get("locals", {}).items():
            value = meta.get(local.get("key", ""))
            names[name] = value if isinstance(value, int) and value > 0 else local["default"]
        rules.append({**rule, "when": None} if rule.get("unless_key") else rule)
    return rules


def _recurrent(rule: dict, meta: dict, names: dict) -> bool:
    """Whether layer names["il"] is recurrent by one rule (a per-layer array: the file's)."""
    if rule["is_recr"] == "per_layer_array":
        given = meta.get("attention.recurrent_layers")
        if not isinstance(given, list):
            return False
        return bool(given[names["il"]]) if names["il"] < len(given) else False
    try:
        if rule.get("when") and not evaluate(rule["when"], names):
            return False
    except Unknown:  # a condition on the loader's calls: the rule as written
        pass
    return bool(evaluate(rule["is_recr"], names))


def _finetuned(row: dict, meta: dict) -> bool:
    """rope.scaling.finetuned, or what the architecture sets when the file lacks it (Granite:
    true; elsewhere false)."""
    given = meta.get("rope.scaling.finetuned")
    if isinstance(given, bool):
        return given
    setting = row.get("rope_finetuned", {})
    if any(s.get("value") == "true" and not s.get("when") for s in setting.get("set", [])):
        return True
    return bool(setting.get("default", {}).get("value", False))


def _swa_base(arch: str, meta: dict, result: Plan) -> None:
    """The sliding layers' own base: rope.freq_base_swa, else llama.cpp's fallback; unscaled
    unless the architecture copies the scale."""
    row = tables().THETA.get("arch", {}).get(arch)
    if not row or not any(result.sliding):
        return
    if not row.get("graph_per_layer_base"):
        _swa_base_unused(row, meta, result)
        return
    given = meta.get("rope.freq_base_swa")
    fallback = row.get("swa_base_fallback")
    if isinstance(given, (int, float)):
        result.swa_theta = float(given)
        result.sources["rope_theta (sliding)"] = f"GGUF: {arch}.rope.freq_base_swa"
    elif isinstance(fallback, (int, float)):
        result.swa_theta = float(fallback)
        result.sources["rope_theta (sliding)"] = (
            f"llama.cpp {row['swa_base_fallback_source']}: no rope.freq_base_swa in the file"
        )
        result.notes.append(
            f"written before rope.freq_base_swa: llama.cpp uses {fallback:g} on sliding layers"
        )
    result.swa_unscaled = row.get("swa_scale") == 1.0


def _swa_base_unused(row: dict, meta: dict, result: Plan) -> None:
    """A base read into rope_freq_base_train_swa that the graph never passes (olmo2.cpp:15 reads
    it, olmo2.cpp:124 turns every layer at the shared freq_base): said when it differs."""
    given, base = meta.get("rope.freq_base_swa"), meta.get("rope.freq_base")
    if not isinstance(given, (int, float)) or not row.get("swa_base_key_source"):
        return
    if isinstance(base, (int, float)) and float(given) == float(base):
        return
    result.notes.append(
        f"llama.cpp reads rope.freq_base_swa {given:g} ({row['swa_base_key_source']}) but its "
        f"graph turns the sliding layers at the shared freq_base ({row['graph_source']})"
    )


def base_at_load(arch: str, meta: dict, params: dict, head_dim: int) -> tuple[dict, str]:
    """The base an architecture's load_arch_hparams computes from the file's (hunyuan-vl.cpp:
    rope.freq_base × rope.scaling.alpha^(d/(d-2)), XD-RoPE's NTK alpha); with its line, or ""."""
    rule = tables().THETA["arch"].get(arch, {}).get("base_override")
    theta = params.get("rope_theta")
    if not rule or not isinstance(theta, (int, float)):
        return params, ""
    alpha = meta.get("rope.scaling.alpha")
    names = {
        "rope_freq_base_train": float(theta),
        "rope_scaling_alpha": float(alpha) if isinstance(alpha, (int, float)) else 0.0,
        "n_embd_head_k": lambda: head_dim,
        "powf": lambda x, y: float(x) ** float(y),
    }
    try:
        if rule["when"] and not evaluate(rule["when"], names):
            return params, ""
        value = float(evaluate(rule["code"], names))
    except (Unknown, ArithmeticError):
        return params, ""
    return {**params, "rope_theta": value}, f"llama.cpp {rule['source']} ({rule['code']})"


def unread_keys(arch: str, meta: dict, params: dict) -> tuple[dict, list[tuple]]:
    """YaRN's beta_fast and beta_slow as llama.cpp runs them: an architecture that never reads
    rope.scaling.yarn_beta_* (deepseek2: Kimi K2's 1 and 1) runs llama_hparams' 32 and 1. The
    params with those values, and (name, file's value, llama.cpp's value, its line) per key
    that changed."""
    keys = tables().KEYS
    changed = []
    for name in ("beta_fast", "beta_slow"):
        entry = keys.get(f"{{arch}}.rope.scaling.yarn_{name}", {})
        default = entry.get("unread_default")
        if not default or any(arch in r["arch"] or r["arch"] == "*" for r in entry["reads"]):
            continue
        given = params.get(name)
        if isinstance(given, (int, float)):
            changed.append((name, given, default["value"], default["source"]))
            params = {**params, name: float(default["value"])}
    if all(float(given) == float(value) for _, given, value, _ in changed):
        return params, []
    return params, changed


def text_stream_pairs(meta: dict, pairs: int) -> tuple[list[int], str]:
    """Interleaved M-RoPE (Qwen3-VL): the pairs ggml turns with the fourth position stream, which
    is 0 for every text token, so in llama.cpp they never turn on text; with the lines."""
    data = tables().IMROPE
    sections = meta.get("rope.dimension_sections")
    if not isinstance(sections, list) or len(sections) < 3:
        return [], ""
    sections = [int(x) for x in list(sections) + [0] * (4 - len(sections))][:4]
    total = sum(sections)
    if total <= 0:
        return [], ""
    streams = data["streams"]
    found = []
    for pair in range(pairs):
        sector = pair % total
        stream = next(
            (b["stream"] for b in streams if not b.get("otherwise")
             and sector % 3 == b["remainder"] and sector < 3 * sections[b["section"]]),
            streams[-1]["stream"],
        )  # fmt: skip
        if stream == "e":
            found.append(pair)
    where = f"{data['sector']['source']}, {streams[-1]['source']}, "
    return found, where + data["text_positions"]["source"]


def yarn_attention(arch: str, meta: dict, params: dict, reading) -> dict:
    """The YaRN attention factor llama.cpp computes (llama-context.cpp): with a
    rope.scaling.yarn_log_multiplier m (DeepSeek-V2/V3's GGUFs store 0.1 × mscale_all_dim, and
    llama.cpp divides it back), get_mscale(s, 1) / get_mscale(s, m), or 1 for DeepSeek, whose
    mscale and mscale_all_dim cancel; times rope.scaling.attn_factor."""
    from ..rope_types import yarn_mscale

    stored = meta.get("rope.scaling.yarn_log_multiplier")
    factor = params.get("factor")
    if params.get("rope_type") != "yarn" or not isinstance(stored, (int, float)) or not stored:
        return params
    if not isinstance(factor, (int, float)):
        return params
    multiplier = stored / 0.1 if arch == "deepseek2" else float(stored)
    top = multiplier if arch == "deepseek2" and multiplier != 1 else 1.0
    ratio = yarn_mscale(float(factor), top) / yarn_mscale(float(factor), multiplier)
    given = params.get("attention_factor")
    attention = ratio * (float(given) if isinstance(given, (int, float)) else 1.0)
    steps = tables().ATTENTION_FACTOR["steps"]
    reading.note("attention factor", "llama.cpp " + ", ".join(
        steps[k]["source"] for k in sorted(steps) if "deepseek" in k or "log_mul" in k
    ))  # fmt: skip
    return {**params, "attention_factor": attention}


def rule_source(arch: str, fact: str) -> str:
    """The llama.cpp line that decides one fact of a layer of this architecture ("window", "θ",
    "scaling", "rotary dimensions", "attention factor", "rotation"), for side-by-side evidence."""
    data = tables()
    keys = data.KEYS
    if fact == "window":
        rules = (data.SWA.get(arch) or {}).get("layers") or ()
        if rules:
            off = rules[0].get("rule") == "all_dense"
            return f"{rules[0]['source']} ({'SWA turned off' if off else 'which layers slide'})"
        default = data.SWA_SEMANTICS["default_swa_type"]["source"]
        return f"{default} (swa_type none: {arch} sets no sliding window)"
    if fact == "θ":
        row = data.THETA["arch"].get(arch) or {}
        if row.get("graph_per_layer_base"):
            return row["graph_source"]
        return keys["{arch}.rope.freq_base"]["reads"][0]["source"]
    if fact == "rotation":
        row = data.NO_ROPE_LAYERS.get(arch) or {}
        rules = row.get("rope_if") or row.get("recurrent_layers", {}).get("is_recr") or ()
        return rules[0]["source"] if rules else (data.ROPE_TYPES.get(arch) or {}).get("source", "")
    if fact == "YaRN ramp":
        entry = keys["{arch}.rope.scaling.yarn_beta_fast"]
        reads = [r for r in entry["reads"] if arch in r["arch"] or r["arch"] == "*"]
        return reads[0]["source"] if reads else entry["unread_default"]["source"]
    key = {"scaling": "{arch}.rope.scaling.type",
           "rotary dimensions": "{arch}.rope.dimension_count",
           "attention factor": "{arch}.rope.scaling.attn_factor"}.get(fact)  # fmt: skip
    return keys[key]["reads"][0]["source"] if key in keys else ""

"""Findings about a model's positions, like a linter's: each has a stable code, one plain sentence
and the numbers that show it. docs/model-findings.md cites the real reports each one reproduces.
"""

from __future__ import annotations

import math

import numpy as np

from ..rope_types import yarn_mscale
from ..scaling import MAX_PAIR_FACTOR, MIN_FACTOR
from . import engines
from .report import ranges
from .types import Engine, Finding, Layer, ModelPositions, Reading

# How close two inv_freq arrays must be to be the same (float16 tensors hold about 3 digits).
RTOL = 2e-3


def find_all(model: ModelPositions, reading: Reading) -> None:
    """Every finding the config alone shows, appended to model.findings."""
    rope = [layer for layer in model.layers if layer.method == "rope"]
    _context(model, reading)
    if rope:
        _partial(reading, rope[0])
        _head_dim(reading)
        _mrope(reading, rope)
        _per_layer(model, reading)
        _odd_scaling(model, reading)
        _odd_theta(model, reading)
        _never_turn(model, reading)
        _engine_scales(model, reading)
        _engine_forward(model, reading)
    model.findings = reading.findings


def _context(model: ModelPositions, reading: Reading) -> None:
    """factor × original ≠ maximum; YaRN or LongRoPE without an original context."""
    for layer, _ in model.layer_types():
        kind, factor = layer.scaling.get("type"), layer.scaling.get("factor")
        if kind in ("yarn", "longrope") and "original_max_position_embeddings" not in _given(
            reading
        ):
            reading.find(
                "missing-original-context",
                f"{kind} scales from the context the model was trained on, but the config gives no "
                "original_max_position_embeddings; transformers "
                f"{engines.tables().VERSION} uses max_position_embeddings in its place "
                f"({engines.tables().LINES['original_fallback']['source']}), so the ramp and the "
                "attention factor are computed for that length, as the layers show.",
                f"{kind}: original_max_position_embeddings absent, used {model.original_context}",
            )
        stated = "original_max_position_embeddings" in _given(reading)
        if stated and kind in ("linear", "yarn", "llama3") and isinstance(factor, (int, float)):
            original, top = model.original_context, model.max_context
            if original and top and factor > 1 and not math.isclose(factor * original, top):
                # Llama 3.1's own config has 8 × 8192 ≠ 131072: for llama3 the factor is only
                # the divisor of the slow pairs. Either way the engines run the factor given.
                reading.find(
                    "factor-context-mismatch",
                    "The scaling factor times the original context is not the maximum context. "
                    f"transformers {engines.tables().VERSION} runs the factor the file gives "
                    f"({engines.tables().LINES['yarn_factor']['source']}), as the layers show; "
                    + (
                        "under llama3 the factor only divides the slow pairs (Llama 3.1's own "
                        "config has it), but code that derives the context from it stops short."
                        if kind == "llama3"
                        else "either the factor or max_position_embeddings is not what the model "
                        "was extended to."
                    ),
                    f"factor {factor:g} × original {original:,} = {factor * original:,.0f} ≠ "
                    f"max_position_embeddings {top:,}",
                )


def _given(reading: Reading) -> dict:
    """The scaling keys the config wrote (either schema), for 'was it given' questions."""
    config = reading.given or reading.config  # as the file states it, before defaults
    found: dict = {}
    for key in ("rope_scaling", "rope_parameters"):
        value = config.get(key)
        if isinstance(value, dict):
            found.update(value)
            for inner in value.values():
                if isinstance(inner, dict):
                    found.update(inner)
    if "original_max_position_embeddings" in config:
        found["original_max_position_embeddings"] = config["original_max_position_embeddings"]
    return found


def _partial(reading: Reading, layer: Layer) -> None:
    if layer.rotary_dim and layer.head_dim and layer.rotary_dim < layer.head_dim:
        reading.find(
            "partial-rotary",
            f"Only {layer.rotary_dim} of each head's {layer.head_dim} dimensions rotate; the other "
            f"{layer.head_dim - layer.rotary_dim} carry no position. Code that rotates the whole "
            "head, or takes d in θ_i = base^(−2i/d) as the head size, gets every frequency wrong.",
            f"rotary_dim {layer.rotary_dim} of head_dim {layer.head_dim} "
            f"({reading.sources.get('rotary_dim', '')})",
        )


def _head_dim(reading: Reading) -> None:
    config = reading.config
    head, hidden, heads = (
        config.get("head_dim"),
        config.get("hidden_size"),
        config.get("num_attention_heads"),
    )
    if all(isinstance(v, int) and v > 0 for v in (head, hidden, heads)) and head * heads != hidden:
        reading.find(
            "head-dim-not-hidden-over-heads",
            "head_dim is not hidden_size / num_attention_heads; code that derives it from the two "
            "rotates with the wrong d.",
            f"head_dim {head} ≠ {hidden} / {heads} = {hidden / heads:g}",
        )


def _mrope(reading: Reading, rope: list[Layer]) -> None:
    section = rope[0].scaling.get("mrope_section")
    if isinstance(section, list) and rope[0].rotary_dim:
        total = sum(v for v in section if isinstance(v, int))
        if total == rope[0].rotary_dim // 2:
            return
        evidence = f"sum{tuple(section)} = {total} ≠ rotary_dim / 2 = {rope[0].rotary_dim // 2}"
        modeling = (reading.transformers_rule("modeling") or "")[:80]
        split = engines.tables().MODELING_LINES["mrope_split"].get(modeling)
        if split:
            reading.find(
                "engine-refuses",
                f"transformers {engines.tables().VERSION} raises on this file: its rotary splits "
                f"the frequencies by mrope_section ({split['source']}), and the sections do not "
                "sum to their count.",
                evidence,
            )
        else:
            reading.find(
                "mrope-section-mismatch",
                "mrope_section must split the pairs of a head exactly into time, height and width.",
                evidence,
            )


def _per_layer(model: ModelPositions, reading: Reading) -> None:
    types = model.layer_types()
    if len(types) < 2:
        return
    parts = [f"{len(idx)} × {_describe(layer)}" for layer, idx in types]
    reading.find(
        "per-layer",
        "Layers differ in what they do with positions: an engine that applies one setting to "
        "every layer is wrong for the others.",
        "; ".join(parts),
    )


# Values transformers 5.23.0 warns about and runs (modeling_rope_utils.py's rope validation):
# read as it runs them, and named.
ODD_SCALING = (
    ("yarn", lambda p: (p.get("beta_fast") or 32) <= (p.get("beta_slow") or 1),
     "beta_fast is not above beta_slow, so YaRN's ramp from kept to interpolated pairs is at most "
     "one pair wide", "modeling_rope_utils.py:995"),
    ("llama3", lambda p: p.get("high_freq_factor", 4) < p.get("low_freq_factor", 1),
     "high_freq_factor is below low_freq_factor, so no pair is smoothed: each is kept or divided",
     "modeling_rope_utils.py:1095"),
    ("llama3", lambda p: min(p.get("low_freq_factor", 1), p.get("high_freq_factor", 4)) < 0,
     "a frequency factor is negative, so its wavelength bound (original context / factor) is "
     "negative and passes every pair", "modeling_rope_utils.py:650-651"),
    ("*", lambda p: isinstance(p.get("factor"), (int, float)) and p["factor"] < 1,
     "the factor is below 1, so the slow pairs turn faster than trained, not slower",
     "modeling_rope_utils.py:981"),
    ("longrope", lambda p: any(len(p.get(k) or []) == 1 for k in ("long_factor", "short_factor")),
     "a factor list holds one number, which divides every pair (torch broadcasts it)",
     "modeling_rope_utils.py:1032, 1040"),
    ("longrope", lambda p: any(not MIN_FACTOR <= v <= MAX_PAIR_FACTOR
                               for k in ("long_factor", "short_factor") for v in p.get(k) or []),
     f"a per-pair factor is outside {MIN_FACTOR:g} … {MAX_PAIR_FACTOR:g} (negative: that pair "
     "turns backwards), beyond what the explorer's controls take", "modeling_rope_utils.py:576"),
)  # fmt: skip


def _odd_scaling(model: ModelPositions, reading: Reading) -> None:
    """Scaling values an engine might refuse that transformers runs with a warning."""
    for layer, _ in model.layer_types():
        kind = layer.scaling.get("type")
        for method, odd, why, line in ODD_SCALING:
            if (
                layer.method == "rope"
                and method in (kind, "*")
                and kind != "default"
                and odd(layer.scaling)
            ):
                keys = ("factor", "beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor")
                shown = ", ".join(f"{k} {layer.scaling[k]:g}" for k in keys if k in layer.scaling)
                reading.find(
                    "odd-scaling",
                    f"In {kind} scaling, {why}. transformers warns and runs it; an engine that "
                    "checks these values may refuse the file.",
                    f"{shown} ({line})",
                )


def _odd_theta(model: ModelPositions, reading: Reading) -> None:
    """θ at or below 1, which transformers runs without a word: every pair turns at least a
    radian a position (θ = 1: all at one frequency)."""
    odd = sorted({layer.theta for layer in model.layers if layer.rotates and layer.theta <= 1})
    if odd:
        reading.find(
            "odd-theta",
            "θ is at most 1, so no pair turns slower than a radian a position (at 1, every pair "
            "turns at the same speed): positions are told apart only over a few tokens. "
            "transformers runs it without a warning.",
            f"rope_theta {', '.join(f'{t:g}' for t in odd)}: inv_freq = 1 / θ^(2i/d), which "
            "validate_rope never checks (modeling_rope_utils.py:868)",
        )


def _describe(layer: Layer) -> str:
    if layer.method != "rope":
        return layer.label
    text = f"{layer.kind}, θ {layer.theta:g}, {layer.scaling.get('type', 'default')}"
    return text + (f", window {layer.window:,}" if layer.window else "")


def never_turning(inv_freq: np.ndarray, context: int) -> np.ndarray:
    """Pairs whose wavelength 2π/θ is longer than the context: they never complete one turn."""
    with np.errstate(divide="ignore"):
        wavelength = np.where(inv_freq > 0, 2 * np.pi / np.where(inv_freq > 0, inv_freq, 1), np.inf)
    return wavelength > context


def _never_turn(model: ModelPositions, reading: Reading) -> None:
    context = model.original_context
    if not context:
        return
    for layer, _ in model.layer_types():
        if layer.method != "rope" or layer.inv_freq is None:
            continue
        slow = never_turning(layer.inv_freq, context)
        if slow.any():
            reading.find(
                "pairs-never-turn",
                f"In {layer.kind} layers, {int(slow.sum())} of {slow.size} pairs never complete "
                f"one "
                f"turn within the original context of {context:,}: they hold position only as an "
                "angle below 2π, and are the pairs scaling methods interpolate.",
                f"{layer.kind}: pairs {int(np.flatnonzero(slow)[0])}…{slow.size - 1}",
            )


def _engine_scales(model: ModelPositions, reading: Reading) -> None:
    """Scales the engine applies outside the rotary buffer's inv_freq, with their numbers."""
    # The class's row, for a GGUF too: llama.cpp's graphs apply the same scales (deepseek2's kq).
    row = engines.row_of(reading.model_type) if reading.engine is not Engine.GENERIC else None
    if not row:
        return
    for layer, _ in model.layer_types():
        params = layer.scaling
        if "softmax_scale" in row and params.get("type", "default") != "default":
            all_dim, factor = params.get("mscale_all_dim"), params.get("factor")
            if all_dim and isinstance(factor, (int, float)):
                mscale = yarn_mscale(float(factor), float(all_dim))
                reading.find(
                    "softmax-mscale",
                    "Besides the rotation, the attention multiplies its softmax scale by "
                    f"mscale(factor, mscale_all_dim)² = {mscale * mscale:.6g}: an engine that "
                    "scales only cos and sin attends less sharply at every length.",
                    f"0.1 × {all_dim:g} × ln {factor:g} + 1 = {mscale:.6g}, squared "
                    f"({row['softmax_scale']['source']})",
                )
        if "rotary_scale" in row and isinstance(params.get("long_mscale"), (int, float)):
            reading.find(
                "rotary-mscale",
                "The rotary module multiplies cos and sin by long_mscale past the original "
                "context and short_mscale within it, in place of LongRoPE's attention factor.",
                f"long_mscale {params['long_mscale']:g}, short_mscale "
                f"{params.get('short_mscale', 1.0):g} ({row['rotary_scale']['source']})",
            )


def _engine_forward(model: ModelPositions, reading: Reading) -> None:
    """Where the engine's rotary forward runs other frequencies than the file states past the
    original context: PhiMoE's recomputes them from the config alone, with no sequence length, so
    the long factors its buffer holds there never reach cos and sin."""
    rule = reading.transformers_rule("forward_frequencies")
    original, top = model.original_context, model.max_context
    if not rule or not original or not top or top <= original:
        return
    for layer, _ in model.layer_types():
        long, short = layer.scaling.get("long_factor"), layer.scaling.get("short_factor")
        if layer.scaling.get("type") != "longrope" or long == short:
            continue
        reading.find(
            "engine-forward-differs",
            f"transformers {engines.tables().VERSION}'s rotary forward recomputes the "
            "frequencies from the config alone, "
            f"without the sequence length: past the original context of {original:,} it runs "
            f"LongRoPE's short factors with cos and sin × {layer.attention_factor:g}, not the long "
            "factors the file states there (its inv_freq buffer holds those). The layers show "
            "what the engine runs.",
            f"{layer.kind}: long_factor {_first(long)}, short_factor {_first(short)}; "
            f"{rule['source']}: rope_init_fn(self.config)",
        )


def _first(values: list) -> str:
    """The first three numbers of a factor list."""
    return ", ".join(f"{v:.4g}" for v in values[:3]) + (" …" if len(values) > 3 else "")


def compare_sources(
    model: ModelPositions, other, second: ModelPositions | None, both: bool = False
) -> None:
    """Findings where a second description of the same model (a GGUF, a safetensors header, a
    config; `second` when it was read as a model) disagrees with the first; `both`: set the two
    side by side as engines, whatever engine each follows."""
    kind = other.kind
    rope_a = [layer for layer in model.layers if layer.method == "rope"]
    stored = other.inv_freq
    if stored is not None:  # a safetensors header: its stored inv_freq alone
        if rope_a:
            _compare_inv_freq(model, rope_a, np.asarray(stored, dtype=np.float64), kind)
        return
    engines_of = {model.read_by, second.read_by}
    if both or (len(engines_of) == 2 and Engine.GENERIC not in engines_of):
        engines_side_by_side(model, second)
        return
    rope_b = [layer for layer in second.layers if layer.method == "rope"]
    if rope_a and rope_b:
        _compare_layers(model, rope_a[0], rope_b[0], kind)


# What two engines may do differently with one layer, and how to print it. Not the pairing: a
# GGUF's converter permutes q and k to the pairs llama.cpp rotates (NORM's adjacent ones), so a
# different pairing there is the weights' layout, not another model.
LAYER_FACTS = {
    "rotation": lambda x: "RoPE" if x.method == "rope" else x.method,
    "θ": lambda x: f"{x.theta:g}" if x.theta else None,
    "scaling": lambda x: None if x.method != "rope" else _scaling_words(x.scaling),
    "window": lambda x: f"{x.window:,}" if x.window else "none (the whole context)",
    "rotary dimensions": lambda x: x.rotary_dim if x.method == "rope" else None,
    "attention factor": lambda x: round(x.attention_factor, 6) if x.method == "rope" else None,
    "YaRN ramp": lambda x: _betas_words(x.scaling) if x.method == "rope" else None,
}
# The sources (ModelPositions.sources) that say where each fact of a layer comes from.
FACT_SOURCES = {
    "rotation": ("layers without RoPE", "method"),
    "θ": ("rope_theta (sliding)", "rope_theta"),
    "scaling": ("scaling",),
    "window": ("sliding layers", "layer_types", "sliding_window"),
    "rotary dimensions": ("rotary_dim",),
    "attention factor": ("attention factor", "scaling"),
    "YaRN ramp": ("YaRN ramp",),
}
# Where transformers reads a fact no config key names (transformers_data.LINES, generated).
TRANSFORMERS_LINES = {"YaRN ramp": "yarn_betas"}


def _betas_words(scaling: dict) -> str | None:
    """YaRN's betas as run: 32 and 1 when absent or 0, in transformers (modeling_rope_utils.py
    _compute_yarn_parameters) as in llama.cpp (llama_hparams' defaults)."""
    if scaling.get("type") != "yarn":
        return None
    fast, slow = scaling.get("beta_fast") or 32, scaling.get("beta_slow") or 1
    return f"beta_fast {float(fast):g}, beta_slow {float(slow):g}"


def _scaling_words(scaling: dict) -> str:
    kind = scaling.get("type", "default")
    # transformers' "mrope" computes the default inv_freq (its sections only split positions).
    kind = "default" if kind == "mrope" else kind
    factor = scaling.get("factor")
    return kind if kind in ("default", "rope_freqs") or factor is None else f"{kind} ×{factor:g}"


def _same(fact: str, a: Layer, b: Layer, x, y) -> bool:
    """Whether two engines' values of a fact are the same: numbers within rounding, a scaling
    by the frequencies it gives (a GGUF stores Llama 3's as rope_freqs divisors), a window as
    long as the context as none."""
    if x == y or (isinstance(x, float) and isinstance(y, float) and math.isclose(x, y)):
        return True
    if fact == "scaling" and "rope_freqs" in (x, y):
        return (
            a.inv_freq is not None
            and b.inv_freq is not None
            and a.inv_freq.shape == b.inv_freq.shape
            and _worst(a.inv_freq, b.inv_freq) is None
        )
    return False


def _window_words(layer: Layer, context: int | None) -> str:
    if layer.window and context and layer.window >= context:  # it never masks a position
        return "none (the whole context)"
    return LAYER_FACTS["window"](layer)


def _fact_source(model: ModelPositions, fact: str) -> str:
    """Where one engine's value of a fact comes from: its own source, or llama.cpp's line."""
    given = next((model.sources[k] for k in FACT_SOURCES[fact] if model.sources.get(k)), "")
    if model.read_by is Engine.TRANSFORMERS and not given and fact in TRANSFORMERS_LINES:
        from .transformers_data import LINES

        given = f"transformers {LINES[TRANSFORMERS_LINES[fact]]['source']}"
    if model.read_by is Engine.LLAMACPP:
        from .llamacpp import rule_source

        if not given.startswith("llama.cpp src/"):
            line = rule_source(model.gguf.architecture, fact)
            given = f"{given}; llama.cpp {line}" if given else f"llama.cpp {line}"
    return given


def _engine(model: ModelPositions) -> str:
    """The engine a reading follows, or what it was read from when it follows none."""
    if model.engine:
        return model.engine
    return f"the config's generic keys (transformers has no class for {model.architecture!r})"


def engines_side_by_side(model: ModelPositions, second: ModelPositions) -> None:
    """Every layer where two engines (transformers on the config, llama.cpp on the GGUF) run the
    same model differently: one finding per fact, with both values, the layers, both engines and
    the source of each value; or one note that they agree."""
    engine_a, engine_b = _engine(model), _engine(second)
    _own_engine_facts(model)
    if len(model.layers) != len(second.layers):
        _add(model, "engines-differ", "The two files disagree on the number of layers.",
             f"{len(model.layers)} layers ({engine_a}) vs {len(second.layers)} "
             f"({engine_b})")  # fmt: skip
        return
    differ = False
    context = min(model.max_context or 0, second.max_context or 0) or None
    for fact, read in LAYER_FACTS.items():
        pairs: dict[tuple, list[int]] = {}
        for a, b in zip(model.layers, second.layers, strict=True):
            if fact == "window":
                x, y = _window_words(a, context), _window_words(b, context)
            else:
                x, y = read(a), read(b)
            if not _same(fact, a, b, x, y):
                pairs.setdefault((x, y), []).append(a.index)
        for (x, y), indices in pairs.items():
            differ = True
            _add(
                model,
                "engines-differ",
                f"The two engines run these layers with a different {fact}.",
                f"layers {_ranges(indices)}: {x} as {engine_a} "
                f"({_fact_source(model, fact)}); {y} as {engine_b} "
                f"({_fact_source(second, fact)})",
                fact,
            )
    differ = _carry_engine_facts(model, second) or differ
    if not differ:
        model.findings.append(Finding(
            "engines-agree",
            "Both engines run every layer the same way: rotation, θ, scaling, window, rotary "
            "dimensions, attention factor and YaRN ramp.",
            f"{len(model.layers)} layers: {engine_a}; {engine_b}",
        ))  # fmt: skip


def _own_engine_facts(model: ModelPositions) -> None:
    """Drop what a reading said alone about a fact of its layers against the other engine (Kimi
    K2's betas from a GGUF): set side by side, the layers' comparison says it with both values."""
    model.findings[:] = [
        f for f in model.findings if not (f.code == "engines-differ" and f.fact in LAYER_FACTS)
    ]


def _carry_engine_facts(model: ModelPositions, second: ModelPositions) -> bool:
    """The differences a reading found against the other engine by itself, for a fact the layers
    do not show (Qwen3-VL's pairs llama.cpp never turns on text), with both engines' lines: the
    second reading's added to the first's. Whether there are any."""
    found = [f for f in second.findings if f.code == "engines-differ" and f.fact]
    model.findings.extend(f for f in found if f.fact not in LAYER_FACTS and f not in model.findings)
    return any(
        f.code == "engines-differ" and f.fact and f.fact not in LAYER_FACTS for f in model.findings
    )


def _ranges(indices: list[int]) -> str:
    return ranges(indices)


def _compare_layers(model: ModelPositions, a: Layer, b: Layer, kind: str) -> None:
    code = "gguf-config-mismatch" if kind == "gguf" else "sources-disagree"
    # The scaling's name may differ where the numbers agree (a GGUF stores Llama 3.1's as
    # rope_freqs divisors): the frequencies below are what must match.
    checks = [("rope_theta", a.theta, b.theta), ("rotary_dim", a.rotary_dim, b.rotary_dim)]
    for name, x, y in checks:
        if x != y and not (isinstance(x, float) and isinstance(y, float) and math.isclose(x, y)):
            _add(model, code, f"The {kind} and the config disagree on {name}.{_runs(kind)}",
                 f"{name}: {x} vs {y}")  # fmt: skip
    if a.inv_freq is not None and b.inv_freq is not None and a.inv_freq.shape == b.inv_freq.shape:
        worst = _worst(a.inv_freq, b.inv_freq)
        if worst is not None:
            _add(model, code, f"The {kind}'s frequencies differ from the config's.{_runs(kind)}",
                 worst)  # fmt: skip


def _compare_inv_freq(
    model: ModelPositions, rope: list[Layer], stored: np.ndarray, kind: str
) -> None:
    candidates = [layer.inv_freq for layer in rope if layer.inv_freq is not None]
    candidates += [layer.inv_freq_short for layer in rope if layer.inv_freq_short is not None]
    if any(c.shape == stored.shape and _worst(c, stored) is None for c in candidates):
        return
    same = [c for c in candidates if c.shape == stored.shape]
    evidence = (
        _worst(same[0], stored) if same else f"{stored.size} values vs {candidates[0].size} pairs"
    )
    code = "safetensors-inv-freq-mismatch" if kind == "safetensors" else f"{kind}-inv-freq-mismatch"
    _add(
        model,
        code,
        f"The inv_freq stored in the {kind} is not what the config computes. Neither engine in "
        f"scope runs it: transformers {engines.tables().VERSION} recomputes inv_freq from the "
        f"config (a buffer it never loads), and {engines.converter_line('inv_freq_dropped')} "
        "drops the tensor; code that loads it runs other frequencies.",
        evidence,
    )


def _runs(kind: str) -> str:
    """What runs a GGUF, for a sentence that sets one against a config."""
    if kind != "gguf":
        return ""
    from .llamacpp import tables

    read = tables().KEYS["{arch}.rope.freq_base"]["reads"][0]["source"]
    return (
        f" llama.cpp {tables().COMMIT[:10]} runs the GGUF's values (rope.freq_base read at "
        f"{read}), transformers the config's."
    )


def _worst(a: np.ndarray, b: np.ndarray) -> str | None:
    """The pair that differs most, or None when every pair agrees within RTOL."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(a - b) / np.maximum(np.abs(a), 1e-300)
    if np.all(rel <= RTOL):
        return None
    i = int(np.nanargmax(rel))
    return f"pair {i}: {a[i]:.6g} vs {b[i]:.6g} (×{b[i] / a[i]:.4g})" if a[i] else f"pair {i}"


def _add(model: ModelPositions, code: str, sentence: str, evidence: str, fact: str = "") -> None:
    model.findings.append(Finding(code, sentence, evidence, fact=fact))

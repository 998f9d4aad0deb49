"""read_model against transformers itself, for every text model type whose attention rotates:
each layer's inv_freq and the scale on cos and sin (the model's own rotary module run at
positions 0, 1 and L − 1), which layers rotate and their window (each layer's own attention
module run on the meta device), and the pairing (the model's own apply_rotary_pos_emb on a probe
vector). Three forms of each default config: the model type alone (every default left out), as
`save_pretrained` writes it, and in full (`to_dict`). Tolerance: float32 rounding."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
from pathlib import Path

import numpy as np
import pytest
from pe_explorer.model import transformers_data
from pe_explorer.model.code import model_program
from pe_explorer.model.reader import read_model, scaling_settings

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
transformers_oracle = pytest.importorskip("transformers_oracle")

RTOL = 2e-6
FORMS = ("bare", "saved", "full")
# Model types left out, and why (docs/model-engines.md lists them).
NOT_TEXT_DECODERS = {
    "blt": "byte-latent transformer: a patcher, a local encoder and decoder, no one text decoder",
    "dia": "text-to-speech encoder-decoder",
    "efficientloftr": "image matching, rotary over image positions",
    "eomt_dinov3": "vision segmentation, rotary over patches",
    "esm": "protein language model (encoder)",
    "mlcd_vision_model": "vision encoder",
    "musicflamingo": "audio model, rotary over audio frames",
    "nemotron3_diarization": "speaker diarization (audio)",
    "t5gemma": "encoder-decoder whose config holds an encoder and a decoder",
    "idefics": "its rotary is built from a vision-language config with no text width",
    "moonshine": "speech encoder-decoder (attention built with other arguments)",
    "moonshine_streaming": "speech encoder-decoder (attention built with other arguments)",
}
# Read wrong today, in exactly these forms: the test fails the day one is fixed, so the list
# shrinks. None at transformers 5.23.0.
KNOWN_WRONG: dict[tuple[str, str], str] = {}
LEFT_OUT = NOT_TEXT_DECODERS
# Model types whose frequencies are checked but not their layers (which rotate, the pairing):
# their attention cannot run on the meta device as the oracle calls it.
LAYERS_UNCHECKED = {
    "gte": "an encoder: no attention class built with a layer index",
    "hy_v4": "its shared sparse-attention layers need a previous layer's top-k indices",
    "jetmoe": "its mixture-of-attention-heads copies out of meta tensors",
    "jina_embeddings_v3": "an encoder: no attention class built with a layer index",
    "longcat_flash": "two attentions per layer: no attention class built with a layer index",
    "muse_glimmer_assistant": "its attention reads a context state of another length",
    "nomic_bert": "an encoder: no attention class built with a layer index",
    "openai_privacy_filter": "an encoder: no attention class built with a layer index",
    "qwen3_omni_moe_text": "the modeling file's text attention is not the one its layers hold",
    "qwen4_exp_text": "its indexed attention does not run on the meta device as called",
}
# The keys a class leaves unset that its own attention module cannot run without: the least a
# published file gives. The three forms are then of the defaults plus these.
SUPPLEMENT = {
    "hunyuan_v1_dense": {"head_dim": 128},  # HunYuanDenseV1Attention: head_dim**-0.5
    "hunyuan_v1_moe": {"head_dim": 128},
    "ministral": {"head_dim": 128},  # MinistralAttention: head_dim**-0.5
    "hunyuan_vl_text": {"head_dim": 128, "rope_parameters": {"rope_type": "default",
        "rope_theta": 10000.0, "mrope_section": [16, 24, 24]}},  # the rotary's xdrope sections
    "nemotron": {"num_key_value_heads": 48},  # NemotronAttention: heads // kv heads
    "qwen4_exp_text": {"indexer_n_heads": 4, "indexer_kv_heads": 1, "indexer_head_dim": 256,
        "indexer_budget": 2048, "indexer_compress_ratio": 4},  # its QSA indexer's sizes
    # Its default head, 4096 / 96, is no integer (the engine rotates an odd 21 dimensions);
    # every published GLM-4.5 and 4.6 file gives head_dim 128.
    "glm4_moe": {"head_dim": 128},
    # Their rotary splits its frequencies by mrope_section, [8, 12, 12] unless given: 32, where
    # the class's own defaults make 64 (no partial factor) or an odd head (4096 / 96). As
    # GLM-4.1V, GLM-4.5V and GLM-Image publish them: half the head rotates, in those sections.
    **{t: {"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
           "partial_rotary_factor": 0.5, "mrope_section": [8, 12, 12]}, "head_dim": 128}
       for t in ("glm4v_text", "glm4v_moe_text", "glm_image_text")},
    # DbrxAttention reads attn_config.rope_theta, which its default attn_config lacks; as
    # DBRX publishes it (its rotary, though, turns at rope_parameters' θ: engine-ignores-key).
    "dbrx": {"attn_config": {"rope_theta": 500000, "kv_n_heads": 8, "clip_qkv": 8}},
    "cohere_compass_text": {"rope_parameters": {"full_attention": {"rope_type": "default",
        "rope_theta": 10000.0}}},  # its class has no RoPE parameters: its rotary raises
}  # fmt: skip


def form_of(model_type: str, form: str) -> dict:
    """A default config as a config.json holds it (with SUPPLEMENT's keys)."""
    given = {"model_type": model_type, **SUPPLEMENT.get(model_type, {})}
    if form == "bare":
        return given
    config = transformers_oracle.engine_config(given)
    return config.to_diff_dict() if form == "saved" else config.to_dict()


def compare(model_type: str, form: str) -> list[str]:
    """Every difference between read_model and the engine on a default config, in words."""
    return compare_config(form_of(model_type, form))


ENGINE_LAYERS: dict[tuple, object] = {}


def compare_config(given: dict) -> list[str]:
    """Every difference between read_model and the engine on a config.json's dict, in words."""
    config = transformers_oracle.engine_config(given)
    if config.model_type not in transformers_data.MODEL_TYPES:
        return compare_without_rotary(given, config)
    row = transformers_data.MODEL_TYPES[config.model_type]
    module, rotary_cls = transformers_oracle.rotary_class(config.model_type, row)
    try:
        model = read_model(given)
    except ValueError as error:  # the reader's ModelError: a plain sentence, but a disagreement
        return [f"read_model refuses it: {error}"]
    key = (json.dumps(config.to_dict(), sort_keys=True, default=str), len(model.layers))
    if key not in ENGINE_LAYERS:  # the three forms of one default config: one engine run
        ENGINE_LAYERS[key] = transformers_oracle.engine_layers(
            module, rotary_cls, config, row, len(model.layers)
        )
    layers = ENGINE_LAYERS[key]
    problems = compare_frequencies(model, config, rotary_cls, layers)
    if isinstance(layers, list):
        problems += compare_layers(model, layers)
        if config.model_type in LAYERS_UNCHECKED:
            problems.append("its layers are checked now: take it off LAYERS_UNCHECKED")
    elif config.model_type not in LAYERS_UNCHECKED:
        problems.append(f"its layers cannot be checked: {layers}")
    return problems


def compare_without_rotary(given: dict, config) -> list[str]:
    """A model type the generated table has no rotary for: the whole model transformers builds from
    the file (meta device) must hold no rotary module, and then no layer read may rotate."""
    built = transformers_oracle.whole_model(config)
    held = transformers_oracle.rotary_modules(built)
    if held:
        return [f"{type(built).__name__} runs {held}, with no row in the generated table"]
    try:
        model = read_model(given)
    except ValueError as error:  # a refusal in one sentence is what the issue allows here
        return [] if str(error) else ["read_model refuses it without a sentence"]
    rotating = [layer.index for layer in model.layers if layer.method == "rope"]
    if rotating:
        return [
            f"{len(rotating)} of {len(model.layers)} layers read as rotating; "
            f"{type(built).__name__} builds no rotary"
        ]
    return []


def compare_frequencies(model, config, rotary_cls, engine_layers) -> list[str]:
    """Each rotating layer's inv_freq and cos/sin scale against the rotary module's entry that
    layer's attention reads: its layer type, or the entry its attention names (DeepSeek V4's
    "compress" for its compressed layers)."""
    kinds = getattr(config, "layer_types", None)
    rotary = rotary_cls(config=config)
    built = engine_layers if isinstance(engine_layers, list) else []
    names = {
        i: (built[i].label if i < len(built) else None) or (kinds[i] if kinds else "*")
        for i in range(len(model.layers))
    }
    # the entries the module keeps frequencies for (LFM3's conv layers have none)
    kept = sorted({n for n in names.values() if hasattr(rotary, f"{n}_inv_freq")})
    if not kept:
        names = dict.fromkeys(names, "*")
    ran = transformers_oracle.run_rotary(rotary_cls, config, kept or ["*"], model.max_context or 2)
    problems = []
    for layer in model.layers:
        kind = names[layer.index]
        if layer.method != "rope" or kind not in ran:
            continue
        want = ran[kind]
        if want.unlike:
            problems.append(f"layer {layer.index} ({kind}): the forward's {want.unlike}")
        if layer.inv_freq.size != want.inv_freq.size:  # the rotated width (partial rotary)
            problems.append(
                f"layer {layer.index} rotates {2 * layer.inv_freq.size} dimensions "
                f"vs {2 * want.inv_freq.size}"
            )
        ours = layer.inv_freq[: want.inv_freq.size]
        if ours.size != want.inv_freq.size or not np.allclose(
            ours, want.inv_freq, rtol=RTOL, atol=1e-30
        ):
            problems.append(
                f"layer {layer.index} ({kind}) inv_freq {ours[:3]} vs {want.inv_freq[:3]}"
            )
        if not np.isclose(layer.attention_factor, want.attention_scaling, rtol=RTOL):
            problems.append(
                f"layer {layer.index} attention factor {layer.attention_factor:.7g} "
                f"vs {want.attention_scaling:.7g}"
            )
        if len(problems) > 4:
            break
    return problems


def compare_layers(model, engine_layers) -> list[str]:
    """Which layers rotate and their pairing, against each attention module. (Not the window:
    in transformers 5.23.0 the mask, not the attention module, carries it for Mistral, Llama 4 and
    others, and bidirectional models add one; where a module holds one, ten model types' defaults
    disagree with it by the module's own conventions: a window one longer, or one set on
    full-attention layers too.)"""
    ours = [layer.method == "rope" for layer in model.layers]
    theirs = [layer.rotates for layer in engine_layers]
    if ours != theirs:
        return [f"rotating layers {ours} vs {theirs}"]
    problems = []
    for layer, engine_layer in zip(model.layers, engine_layers, strict=True):
        if engine_layer.pairing and layer.pairing != engine_layer.pairing:
            problems.append(f"layer {layer.index} {layer.pairing} vs {engine_layer.pairing}")
        if len(problems) > 2:
            break
    return problems


COVERED = sorted(t for t in transformers_data.MODEL_TYPES if t not in LEFT_OUT)


@pytest.mark.parametrize("model_type", COVERED)
def test_read_model_agrees_with_transformers(model_type: str) -> None:
    """In every form, unless KNOWN_WRONG names it (then exactly those forms disagree)."""
    problems = {form: compare(model_type, form) for form in FORMS}
    disagreeing = {form for form, found in problems.items() if found}
    assert disagreeing == {f for t, f in KNOWN_WRONG if t == model_type}, problems


def test_every_rotary_text_model_type_is_tested_or_left_out_with_a_reason() -> None:
    covered = {t for t in transformers_data.MODEL_TYPES if t not in LEFT_OUT}
    assert covered | set(LEFT_OUT) == set(transformers_data.MODEL_TYPES)
    assert len(covered) >= 160  # every text decoder of the 193 rotary modeling files


# Every model type's defaults with its rope parameters (each layer type's) made LongRoPE or dynamic
# NTK, read at a maximum context past the original: the forward's length-dependent paths (which
# factors, how far θ grows), where a forward can compute other than its buffers hold (PhiMoE's).
ORIGINAL = 4096
# Read wrong past the original context today: the test fails the day one is fixed.
KNOWN_WRONG_PAST_ORIGINAL: dict[tuple[str, str], str] = {}


def past_the_original(model_type: str, kind: str) -> dict | None:
    """The saved default config with `kind` in place of each layer type's rope type, its maximum
    context 4× (LongRoPE) or its factor 2× (dynamic) the original; None where no layer rotates or
    a head is odd (a default no published file has: Qwen3-Omni's 2048 / 28)."""
    given = form_of(model_type, "saved")
    pairs = {}  # each layer type's rotating pairs, as LongRoPE's factor lists must give them
    for layer in read_model(dict(given)).layers:
        if layer.method == "rope":
            pairs.setdefault(layer.kind, layer.rotary_dim / 2)
    if not pairs or any(n % 1 for n in pairs.values()):
        return None
    params = transformers_oracle.engine_config(dict(given)).rope_parameters
    nested = any(isinstance(v, dict) for v in params.values())
    entries = params if nested else {"*": params}
    kept = ("rope_theta", "partial_rotary_factor", "mrope_section", "mrope_interleaved")
    scaled = {
        name: {**{k: v for k, v in entry.items() if k in kept},
               **_scaled(kind, int(pairs.get(name, next(iter(pairs.values())))))}
        for name, entry in entries.items() if isinstance(entry, dict)
    }  # fmt: skip
    top = transformers_data.MODEL_TYPES[model_type]["aliases"].get(
        "max_position_embeddings", "max_position_embeddings"
    )
    given.pop("rope_scaling", None)
    return {
        **given,
        "rope_parameters": {**entries, **scaled} if nested else scaled["*"],
        top: 4 * ORIGINAL if kind == "longrope" else ORIGINAL,
    }


def _scaled(kind: str, pairs: int) -> dict:
    """LongRoPE's keys (long factors above short ones, PhiMoE's mscales), or dynamic NTK's."""
    if kind == "dynamic":
        return {"rope_type": "dynamic", "factor": 2.0}
    return {"rope_type": "longrope", "original_max_position_embeddings": ORIGINAL,
            "long_factor": [1.0 + i / pairs for i in range(pairs)],
            "short_factor": [1.0 + i / (4 * pairs) for i in range(pairs)],
            "long_mscale": 1.2, "short_mscale": 1.0}  # fmt: skip


@pytest.mark.parametrize("model_type", COVERED)
def test_the_forward_past_the_original_context_agrees_with_transformers(model_type: str) -> None:
    """Frequencies and scale only (the layers are the default forms' test's); a config the class
    or its rotary refuses (Ernie 4.5 VL's rotary takes only `default`) has nothing to compare."""
    problems = {}
    for kind in ("longrope", "dynamic"):
        given = past_the_original(model_type, kind)
        try:
            config = given and transformers_oracle.engine_config(given)
            row = transformers_data.MODEL_TYPES[config.model_type] if config else None
            rotary_cls = row and transformers_oracle.rotary_class(config.model_type, row)[1]
            rotary_cls and rotary_cls(config=config)
        except Exception:  # the engine refuses this rope type
            continue
        if rotary_cls:
            problems[kind] = compare_forward(given, config, rotary_cls)
    disagreeing = {kind for kind, found in problems.items() if found}
    assert disagreeing == {k for t, k in KNOWN_WRONG_PAST_ORIGINAL if t == model_type}, problems


def compare_forward(given: dict, config, rotary_cls) -> list[str]:
    """compare_frequencies on a config the engine builds, or the reader's refusal."""
    try:
        model = read_model(given)
    except ValueError as error:
        return [f"read_model refuses it: {error}"]
    return compare_frequencies(model, config, rotary_cls, [])


# Scaled configs, each on a model type's defaults: the engine runs its rotary module at the
# maximum context the reader reports (LongRoPE's switch to long factors, dynamic NTK's growth).
PHI_FACTORS = {"long_factor": [1.0 + i / 16 for i in range(48)], "short_factor": [1.0] * 48}
SCALED = {
    "llama-llama3": ("llama", {"rope_scaling": {"rope_type": "llama3", "factor": 8.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
        "rope_theta": 500000.0, "max_position_embeddings": 131072}),
    "qwen2-yarn": ("qwen2", {"rope_scaling": {"type": "yarn", "factor": 4.0,
        "original_max_position_embeddings": 32768}, "max_position_embeddings": 131072}),
    "qwen2-dynamic": ("qwen2", {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}),
    # dynamic NTK grows from max_position_embeddings (modeling_rope_utils.py:341), whatever
    # original_max_position_embeddings says, in rope_scaling or at the top level
    "qwen2-dynamic-original": ("qwen2", {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0,
        "original_max_position_embeddings": 2048}, "max_position_embeddings": 4096}),
    "llama-dynamic-original-top": ("llama", {"rope_scaling": {"rope_type": "dynamic",
        "factor": 4.0}, "original_max_position_embeddings": 1024, "max_position_embeddings": 4096}),
    "phi3-longrope": ("phi3", {"rope_scaling": {"type": "longrope", **PHI_FACTORS},
        "original_max_position_embeddings": 4096, "max_position_embeddings": 131072}),
    "phimoe-longrope-mscale": ("phimoe", {"rope_scaling": {"rope_type": "longrope",
        "long_mscale": 1.243, "short_mscale": 1.0, **{k: v[:64] + [1.0] * (64 - len(v))
        for k, v in PHI_FACTORS.items()}, "original_max_position_embeddings": 4096},
        "max_position_embeddings": 131072}),
    "deepseek_v3-yarn": ("deepseek_v3", {"rope_scaling": {"rope_type": "yarn", "factor": 40.0,
        "mscale": 1.0, "mscale_all_dim": 1.0, "beta_fast": 32, "beta_slow": 1,
        "original_max_position_embeddings": 4096}, "max_position_embeddings": 163840}),
    "gemma3-linear": ("gemma3_text", {"rope_scaling": {"rope_type": "linear", "factor": 8.0}}),
    "zamba2-mem-rope": ("zamba2", {"use_mem_rope": True}),  # its 9 hybrid layers rotate
    "mllama-cross-attention": ("mllama_text_model", {"num_hidden_layers": 8,
        "cross_attention_layers": [1, 6]}),  # two cross-attention layers, no RoPE
}  # fmt: skip


# Published-shaped configs: the keys a model type's published config.json lays its layers out
# with, and the legacy keys its config class converts, given as the files give them (issue 57;
# these are not the files: tests/fixtures/published_configs holds files as published). The engine
# builds the whole model from each on the meta device and runs its own rotary module's forward.
NEMOTRON_H_8B = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"
LFM2_1_2B = ["conv", "conv", "full_attention"] * 3 + ["conv", "full_attention"] * 3 + ["conv"]
LAYOUTS = {
    # Kimi K2 (model_type kimi_k2, run as DeepSeek V3) publishes YaRN with beta_fast = beta_slow.
    "deepseek_v3-yarn-beta-1-1": ("deepseek_v3", {"rope_theta": 50000.0,
        "rope_scaling": {"beta_fast": 1.0, "beta_slow": 1.0, "factor": 64.0, "mscale": 1.0,
        "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096, "type": "yarn"},
        "max_position_embeddings": 262144}),
    # MiniMax M2's legacy rotary_dim, which MiniMaxM2Config turns into partial_rotary_factor.
    "minimax_m2-rotary_dim": ("minimax_m2", {"head_dim": 128, "rotary_dim": 64}),
    # LFM2-1.2B's 16 layers: 10 short-convolution layers, 6 attention layers.
    "lfm2-conv-layer_types": ("lfm2", {"num_hidden_layers": 16, "layer_types": LFM2_1_2B}),
    # Bamba-9B: attention (rotating attn_rotary_emb dimensions) at three of 32 layers, Mamba 2
    # elsewhere.
    "bamba-attn_layer_indices": ("bamba", {"num_hidden_layers": 32,
        "attn_layer_indices": [9, 18, 27], "attn_rotary_emb": 64}),
    # Nemotron-H-8B: Mamba (M), MLP (-) and attention (*) layers; its classes build no rotary.
    "nemotron_h-hybrid_override_pattern": ("nemotron_h", {"hidden_size": 4096,
        "num_attention_heads": 32, "head_dim": 128, "num_hidden_layers": 52,
        "hybrid_override_pattern": NEMOTRON_H_8B}),
    # ModernBERT-base: global θ every third layer, local θ between; its file also carries BERT's
    # position_embedding_type, which ModernBertConfig keeps and its model never reads.
    "modernbert-position_embedding_type": ("modernbert", {"global_rope_theta": 160000.0,
        "local_rope_theta": 10000.0, "global_attn_every_n_layers": 3, "local_attention": 128,
        "position_embedding_type": "absolute"}),
}  # fmt: skip
# Read wrong today: the test fails the day one is read as the engine builds it, so the list
# shrinks. None at transformers 5.23.0.
KNOWN_WRONG_LAYOUTS: dict[str, str] = {}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_a_published_layout_agrees_with_transformers(name: str) -> None:
    model_type, keys = LAYOUTS[name]
    problems = compare_config({"model_type": model_type, **keys})
    assert bool(problems) == (name in KNOWN_WRONG_LAYOUTS), problems


# Models whose classes build no rotary, laid out by kind: Nemotron-H's hybrid_override_pattern
# ("M" Mamba, "-" MLP, "E" MoE, "*" attention), its default list, and Jamba's period.
PLAIN = {
    "nemotron_h-8b": LAYOUTS["nemotron_h-hybrid_override_pattern"],
    "nemotron_h-moe": ("nemotron_h", {"hybrid_override_pattern": "MEMEM*EMEMEM*E"}),
    "nemotron_h-defaults": ("nemotron_h", {}),
    "jamba-defaults": ("jamba", {}),
}


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_layers_without_rotary_are_of_the_kinds_the_model_builds(name: str) -> None:
    """Each layer's kind is the built config's layer_types; a layer is said to have no
    attention exactly where the model, built on the meta device, holds no attention module."""
    model_type, keys = PLAIN[name]
    given = {"model_type": model_type, **keys}
    config = transformers_oracle.engine_config(given)
    model = transformers_oracle.whole_model(config)
    stack = next(
        m for m in model.modules()
        if isinstance(m, torch.nn.ModuleList) and len(m) == config.num_hidden_layers
    )  # fmt: skip
    attends = [
        any(type(m).__name__.endswith("Attention") for m in layer.modules()) for layer in stack
    ]
    layers = read_model(given).layers
    assert [layer.kind for layer in layers] == list(config.layer_types)
    assert [layer.attends for layer in layers] == attends
    assert not any(layer.rotates for layer in layers) and any(attends) and not all(attends)


def test_a_pattern_letter_nemotron_h_does_not_know_is_refused_as_transformers_does() -> None:
    given = {"model_type": "nemotron_h", "hybrid_override_pattern": "M*X"}
    with pytest.raises(KeyError):
        transformers_oracle.engine_config(given)
    with pytest.raises(ValueError, match="hybrid_override_pattern has letters"):
        read_model(given)


# Values modeling_rope_utils.py only warns about, or never checks, on Llama's defaults: the reader
# reads what transformers runs to finite numbers (with a note), and refuses, in one sentence, what
# it runs to infinities or NaN or raises on.
LONG = {"original_max_position_embeddings": 2048, "short_factor": [1.0] * 64}
ODD = {
    "dynamic-factor-0.5": {"rope_scaling": {"rope_type": "dynamic", "factor": 0.5}},
    "dynamic-factor-0": {"rope_scaling": {"rope_type": "dynamic", "factor": 0.0}},
    "linear-factor-0.5": {"rope_scaling": {"rope_type": "linear", "factor": 0.5}},
    "linear-factor-0": {"rope_scaling": {"rope_type": "linear", "factor": 0.0}},
    "yarn-factor-5000": {"rope_scaling": {"rope_type": "yarn", "factor": 5000.0,
        "original_max_position_embeddings": 4096}},
    "llama3-low-negative": {"rope_scaling": {"rope_type": "llama3", "factor": 8.0,
        "low_freq_factor": -1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 2048}},
    "llama3-low-0": {"rope_scaling": {"rope_type": "llama3", "factor": 8.0,
        "low_freq_factor": 0, "high_freq_factor": 4.0, "original_max_position_embeddings": 2048}},
    "theta-1": {"rope_theta": 1.0},
    "theta-0.5": {"rope_theta": 0.5},
    "theta-1e13": {"rope_theta": 1e13},
    "theta-0": {"rope_theta": 0.0},
    "theta-negative": {"rope_theta": -10.0},
    "longrope-one-factor": {"rope_scaling": {"rope_type": "longrope", **LONG,
        "long_factor": [2.0]}},
    "longrope-negative": {"rope_scaling": {"rope_type": "longrope", **LONG,
        "long_factor": [-1.0] * 64}},
    "longrope-20000": {"rope_scaling": {"rope_type": "longrope", **LONG,
        "long_factor": [20000.0] * 64}},
    "longrope-0": {"rope_scaling": {"rope_type": "longrope", **LONG, "long_factor": [0.0] * 64}},
    "longrope-10-of-64": {"rope_scaling": {"rope_type": "longrope", **LONG,
        "long_factor": [1.0] * 10}},
}  # fmt: skip


def engine_cos_sin(given: dict, positions: list[int]):
    """Llama's own rotary module built on given and run at positions: (cos, sin) as float64
    arrays, or None when it raises."""
    try:
        config = transformers_oracle.engine_config(given)
        row = transformers_data.MODEL_TYPES["llama"]
        _, rotary_cls = transformers_oracle.rotary_class("llama", row)
        cos, sin = rotary_cls(config=config)(torch.zeros(1, 3, 8), torch.tensor([positions]))
    except Exception:
        return None
    return cos[0].double().numpy(), sin[0].double().numpy()


@pytest.mark.parametrize("name", sorted(ODD))
def test_a_value_transformers_runs_is_read_and_one_it_cannot_is_refused(name: str) -> None:
    """What the engine's cos and sin are at 0, 1 and the reader's maximum context: the reader's
    (float32 rounding of angles up to 8191 radians: 2e-3); a refusal where they are not finite
    at twice the context, or the module raises."""
    given = {"model_type": "llama", "max_position_embeddings": 8192, **ODD[name]}
    try:
        model = read_model(given)
    except ValueError as error:
        ran = engine_cos_sin(given, [0, 1, 2 * 8192 - 1])
        assert ran is None or not all(np.isfinite(a).all() for a in ran), error
        assert str(error).count(". ") == 0 and len(str(error)) < 200  # one sentence
        return
    positions = np.array([0, 1, model.max_context - 1], dtype=np.float64)
    cos, sin = engine_cos_sin(given, positions.astype(int).tolist())
    layer = model.layers[0]
    angles = positions[:, None] * layer.inv_freq[None, :]
    half = layer.inv_freq.size
    assert np.allclose(cos[:, :half], layer.attention_factor * np.cos(angles), atol=2e-3)
    assert np.allclose(sin[:, :half], layer.attention_factor * np.sin(angles), atol=2e-3)
    noted = {"odd-scaling", "odd-theta"} & {f.code for f in model.findings}
    assert bool(noted) == (name not in ("theta-1e13", "yarn-factor-5000"))  # nothing odd


@pytest.mark.parametrize("name", sorted(SCALED))
def test_a_scaled_config_agrees_with_transformers(name: str) -> None:
    model_type, keys = SCALED[name]
    assert compare_config({"model_type": model_type, **keys}) == []


def test_phimoe_past_the_original_context_runs_the_short_factors() -> None:
    """PhimoeRotaryEmbedding.forward recomputes inv_freq from the config with no sequence length:
    past the original context its cos and sin turn at the short factors, × long_mscale, while its
    buffer holds the long factors. The reader shows the forward's, with a warning naming the
    line."""
    model_type, keys = SCALED["phimoe-longrope-mscale"]
    given = {"model_type": model_type, **keys}
    config = transformers_oracle.engine_config(given)
    _, rotary_cls = transformers_oracle.rotary_class(
        model_type, transformers_data.MODEL_TYPES[model_type]
    )
    rotary = rotary_cls(config=config)
    cos, sin = rotary(torch.zeros(1, 3, 8), torch.tensor([[0, 1, 131071]]))
    ran = transformers_oracle.decoded((cos, sin), 131071)
    layer = read_model(given).layers[0]
    assert np.allclose(layer.inv_freq, ran.inv_freq, rtol=RTOL)
    assert np.allclose(layer.inv_freq, layer.inv_freq_short)  # the short factors
    assert not np.allclose(rotary.inv_freq.double().numpy(), ran.inv_freq, rtol=1e-3)  # buffer
    assert layer.attention_factor == pytest.approx(ran.attention_scaling, rel=RTOL) == 1.243
    settings, _ = scaling_settings(layer, read_model(given))  # the explorer's controls: the same
    assert settings["longrope_factors"].startswith("1, 1, 1,")  # short_factor, not 1, 1.0625 …
    warning = next(f for f in read_model(given).findings if f.code == "engine-forward-differs")
    source = transformers_data.MODEL_TYPES[model_type]["forward_frequencies"]["source"]
    assert warning.severity == "warning" and source in warning.evidence
    path, line = source.split()[0].split(":")
    text = Path(inspect.getsourcefile(rotary_cls)).read_text().splitlines()[int(line) - 1]
    assert "self.rope_init_fn(self.config)" in text and path == "modeling_phimoe.py"


# Sliding windows the config class makes from another key (ModernBERT's local_attention // 2),
# masked on both sides (ModernBERT) or before the query (ModernBERT-decoder).
WINDOWS = {
    "modernbert": ("modernbert", {}),
    "modernbert-local_attention-64": ("modernbert", {"local_attention": 64}),
    "modernbert-sliding_window": ("modernbert", {"local_attention": 128, "sliding_window": 40}),
    "modernbert-decoder": ("modernbert-decoder", {}),
    "modernbert-decoder-local_attention-256": ("modernbert-decoder", {"local_attention": 256}),
    "modernbert-decoder-saved": ("modernbert-decoder", {"sliding_window": 48}),
    "embedding_gemma2-radius": (
        "embedding_gemma2_text",
        {"sliding_window": 40, "head_dim": 16, "num_hidden_layers": 24},
    ),  # the class's count: its last layer is forced global
}
TINY = {"hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64,
        "num_hidden_layers": 3, "vocab_size": 51200}  # fmt: skip


def masked_reach(model_type: str, keys: dict, length: int) -> list[tuple[int, int]]:
    """(farthest key before, farthest after) the middle query attends to in each layer, from the
    masks the model's own forward hands its attention modules (eager attention, on the CPU)."""
    config = transformers_oracle.engine_config({"model_type": model_type, **TINY, **keys})
    config._attn_implementation = "eager"
    row = transformers_data.MODEL_TYPES[model_type]
    model = getattr(transformers, row["architecture"])(config).eval()
    masks = []
    for module in model.modules():
        if type(module).__name__.endswith("Attention") and hasattr(module, "layer_idx"):
            module.register_forward_pre_hook(
                lambda _, args, kwargs: masks.append(kwargs["attention_mask"]), with_kwargs=True
            )
    with torch.no_grad():
        model(input_ids=torch.zeros(1, length, dtype=torch.long))
    middle, reach = length // 2, []
    for mask in masks:
        seen = torch.arange(length)[(mask[0, 0, middle] == 0) if mask is not None else ...]
        reach.append((middle - int(seen.min()), int(seen.max()) - middle))
    return reach


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_the_sliding_window_is_what_the_models_mask_lets_through(name: str) -> None:
    """A window w reaches w - 1 keys back from the query (a causal mask), or w / 2 each side (a
    mask of both sides: ModernBERT's local_attention, llama.cpp's symmetric n_swa); no window,
    every key the mask lets through."""
    model_type, keys = WINDOWS[name]
    length = 601
    layers = read_model({"model_type": model_type, **TINY, **keys}).layers
    reach = masked_reach(model_type, keys, length)
    assert len(reach) == len(layers)
    for layer, (back, ahead) in zip(layers, reach, strict=True):
        if layer.window is None:
            assert back == length // 2 and ahead in (0, length // 2), (layer.index, back, ahead)
        elif ahead:
            assert (back, ahead) == (layer.window / 2, layer.window / 2), (layer.index, back)
        else:
            assert back == layer.window - 1, (layer.index, layer.window, back)
    assert any(layer.window for layer in layers)


def test_phimoe_exported_script_computes_what_its_forward_runs() -> None:
    """The model view's script (Export / Code) recomputes PhiMoE's layers as its rotary forward
    runs them past the original context (short factors, × long_mscale), and says so."""
    model_type, keys = SCALED["phimoe-longrope-mscale"]
    given = {"model_type": model_type, **keys}
    config = transformers_oracle.engine_config(given)
    _, rotary_cls = transformers_oracle.rotary_class(
        model_type, transformers_data.MODEL_TYPES[model_type]
    )
    cos, sin = rotary_cls(config=config)(torch.zeros(1, 3, 8), torch.tensor([[0, 1, 131071]]))
    ran = transformers_oracle.decoded((cos, sin), 131071)
    script, out, names = model_program(read_model(given)), io.StringIO(), {}
    with contextlib.redirect_stdout(out):
        exec(script, names)
    assert np.allclose(names["inv"], ran.inv_freq, rtol=RTOL)
    assert names["attention"] == pytest.approx(ran.attention_scaling, rel=RTOL)
    assert "same as the page: True" in out.getvalue() and "modeling_phimoe.py:90" in script


@pytest.mark.parametrize("name", ["qwen2-dynamic-original", "llama-dynamic-original-top"])
def test_dynamic_ntk_grows_from_where_the_rotary_does(name: str) -> None:
    """The rotary's original_max_seq_len is max_position_embeddings: the reader's original
    context is that, and a stated original_max_position_embeddings is said to be unread."""
    model_type, keys = SCALED[name]
    given = {"model_type": model_type, **keys}
    config = transformers_oracle.engine_config(given)
    _, rotary_cls = transformers_oracle.rotary_class(
        model_type, transformers_data.MODEL_TYPES[model_type]
    )
    model = read_model(given)
    assert model.original_context == rotary_cls(config=config).original_max_seq_len == 4096
    ignored = [f for f in model.findings if f.code == "engine-ignores-key"]
    assert len(ignored) == 1 and "original_max_position_embeddings" in ignored[0].evidence


def test_deepseek_softmax_scale_is_the_attention_modules() -> None:
    """The softmax-mscale note's number is what DeepseekV3Attention multiplies its scale by."""
    model_type, keys = SCALED["deepseek_v3-yarn"]
    config = transformers_oracle.engine_config({"model_type": model_type, **keys})
    module, _ = transformers_oracle.rotary_class(
        model_type, transformers_data.MODEL_TYPES[model_type]
    )
    with torch.device("meta"):
        attention = module.DeepseekV3Attention(config, 0)
    note = next(f for f in read_model({"model_type": model_type, **keys}).findings
                if f.code == "softmax-mscale")  # fmt: skip
    squared = float(note.sentence.split("= ")[1].split(":")[0])
    assert attention.scaling / config.qk_head_dim**-0.5 == pytest.approx(squared, rel=1e-5)


def test_the_docs_list_every_model_type_left_out_or_read_wrong() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "model-engines.md").read_text()
    wrong = [*KNOWN_WRONG, *KNOWN_WRONG_PAST_ORIGINAL]
    for model_type in [*LEFT_OUT, *(m for m, _ in wrong)]:
        assert f"| `{model_type}` |" in text, model_type
    for model_type in [*LAYERS_UNCHECKED, *SUPPLEMENT]:
        assert f"`{model_type}`" in text, model_type

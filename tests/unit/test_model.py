"""pe_explorer.read_model: a model's positions layer by layer, each inv_freq against transformers'
own rope functions (modeling_rope_utils.py's ROPE_INIT_FUNCTIONS, run on the same parameters) or a
closed form, findings from fixtures built on real cases, and hostile input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from pe_explorer.model import arch
from pe_explorer.model.converter import converted, has_gguf_form
from pe_explorer.model.presets import PRESETS
from pe_explorer.model.reader import engine_reading, read_model
from pe_explorer.model.sources import load, preset_config
from pe_explorer.model.types import Engine, ModelError, fact_name
from transformers_rope import FLOAT32, layer_reference

LLAMA31 = preset_config("llama-3.1-8b")


def plain(dim: int, base: float) -> np.ndarray:
    return 1.0 / base ** (np.arange(0, dim, 2) / dim)


def codes(model) -> set[str]:
    return {finding.code for finding in model.findings}


def test_llama31_every_pair_is_the_published_formula():
    model = read_model(LLAMA31)
    assert len(model.layers) == 32 and model.original_context == 8192
    assert model.max_context == 131072
    layer = model.layers[0]
    assert (layer.method, layer.head_dim, layer.rotary_dim, layer.theta) == ("rope", 128, 128, 5e5)
    expected, attention = layer_reference(layer, LLAMA31["rope_scaling"], 8192, 131072)
    np.testing.assert_allclose(layer.inv_freq, expected, rtol=FLOAT32)
    assert layer.attention_factor == attention == 1.0
    assert "old-type-key" not in codes(model)
    # Llama 3.1's own config: 8 × 8192 = 65536, not 131072; under llama3 a note, not a warning.
    mismatch = next(f for f in model.findings if f.code == "factor-context-mismatch")
    assert mismatch.severity == "note" and "65,536" in mismatch.evidence


def test_the_config_can_be_json_text_or_a_path(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA31))
    for source in (json.dumps(LLAMA31), str(path), path):
        np.testing.assert_array_equal(
            read_model(source).layers[5].inv_freq, read_model(LLAMA31).layers[5].inv_freq
        )


def test_old_type_key_is_read_and_named():
    config = {**LLAMA31, "rope_scaling": {**LLAMA31["rope_scaling"]}}
    config["rope_scaling"]["type"] = config["rope_scaling"].pop("rope_type")
    model = read_model(config)
    assert "old-type-key" in codes(model)
    np.testing.assert_array_equal(model.layers[0].inv_freq, read_model(LLAMA31).layers[0].inv_freq)


def test_factor_times_original_not_the_maximum_is_found():
    config = {**LLAMA31, "max_position_embeddings": 100000}
    config["rope_scaling"] = {
        "rope_type": "yarn",
        "factor": 8.0,
        "original_max_position_embeddings": 8192,
    }
    finding = next(f for f in read_model(config).findings if f.code == "factor-context-mismatch")
    assert "65,536" in finding.evidence and "100,000" in finding.evidence
    assert finding.severity == "note"  # both engines run the factor the file gives


def test_yarn_without_original_context_is_found_and_uses_the_maximum():
    config = {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_hidden_layers": 28,
        "max_position_embeddings": 32768,
        "rope_theta": 1e6,
        "rope_scaling": {"type": "yarn", "factor": 4.0},
    }
    model = read_model(config)
    assert {"missing-original-context", "old-type-key"} <= codes(model)
    assert model.original_context == 32768


def test_absent_rope_theta_uses_the_default_and_says_so():
    config = {k: v for k, v in LLAMA31.items() if k not in ("rope_theta", "rope_scaling")}
    model = read_model(config)
    assert model.layers[0].theta == 10000.0 and "default-theta" in codes(model)
    assert "default" in model.sources["rope_theta"]
    np.testing.assert_allclose(model.layers[0].inv_freq, plain(128, 10000.0), rtol=1e-15)


def test_partial_rotary_phi2_rotates_32_of_80():
    config = {
        "model_type": "phi",
        "hidden_size": 2560,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "max_position_embeddings": 2048,
        "partial_rotary_factor": 0.4,
        "rope_theta": 10000.0,
    }
    model = read_model(config)
    layer = model.layers[0]
    assert (layer.head_dim, layer.rotary_dim) == (80, 32) and "partial-rotary" in codes(model)
    np.testing.assert_allclose(layer.inv_freq, plain(32, 10000.0), rtol=1e-15)


def test_gpt_neox_rotary_pct():
    config = {
        "model_type": "gpt_neox",
        "hidden_size": 6144,
        "num_attention_heads": 64,
        "num_hidden_layers": 44,
        "max_position_embeddings": 2048,
        "rotary_pct": 0.25,
        "rotary_emb_base": 10000,
    }
    layer = read_model(config).layers[0]
    assert (layer.head_dim, layer.rotary_dim, layer.pairing) == (96, 24, "half-split")


def test_gemma3_local_and_global_layers():
    config = preset_config("gemma-3-4b-it")  # the file, with Gemma3TextConfig's defaults
    model = read_model(config)
    types = {layer.kind: (layer, idx) for layer, idx in model.layer_types()}
    full, full_idx = types["full_attention"]
    local, local_idx = types["sliding_attention"]
    assert full_idx == [5, 11, 17, 23, 29] and len(local_idx) == 29
    np.testing.assert_allclose(full.inv_freq, plain(256, 1e6) / 8, rtol=1e-15)
    np.testing.assert_allclose(local.inv_freq, plain(256, 1e4), rtol=1e-15)
    assert local.window == 1024 and full.window is None
    assert {"per-layer", "head-dim-not-hidden-over-heads"} <= codes(model)


def test_llama4_every_fourth_layer_has_no_rope():
    config = preset_config("llama-4-scout-17b-16e")
    model = read_model(config)
    none = [layer.index for layer in model.layers if layer.method == "none"]
    assert none == list(range(3, 48, 4))
    rope = model.layers[0]
    assert rope.pairing == "interleaved" and rope.window == 8192
    inv = plain(128, 5e5)
    # low == high: no pair is smoothed; each is kept or divided by 16.
    expected = np.where(2 * math.pi / inv > 8192, inv / 16, inv)
    np.testing.assert_allclose(rope.inv_freq, expected, rtol=1e-15)


def test_deepseek_yarn_mscale_attention_factor():
    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "head_dim": 64,
        "num_hidden_layers": 61,
        "max_position_embeddings": 163840,
        "rope_theta": 10000,
        "rope_scaling": {
            "beta_fast": 32,
            "beta_slow": 1,
            "factor": 40,
            "mscale": 0.707,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
            "type": "yarn",
        },
    }
    layer = read_model(config).layers[0]
    expected = (0.1 * 0.707 * math.log(40) + 1) / (0.1 * 1.0 * math.log(40) + 1)
    assert layer.attention_factor == pytest.approx(expected, rel=1e-15)
    assert layer.rotary_dim == 64 and layer.pairing == "interleaved"


def test_yarn_is_the_published_ramp():
    model = read_model("gpt-oss-20b")  # YaRN, s = 32, L = 4096, truncate false
    layer = model.layers[0]
    scaling = preset_config("gpt-oss-20b")["rope_scaling"]
    expected, attention = layer_reference(layer, scaling, 4096, 131072)
    np.testing.assert_allclose(layer.inv_freq, expected, rtol=FLOAT32)
    assert layer.attention_factor == pytest.approx(attention, rel=1e-12)
    assert layer.attention_factor == pytest.approx(0.1 * math.log(32) + 1)


KIMI_K2_YARN = {
    "beta_fast": 1.0,
    "beta_slow": 1.0,
    "factor": 32.0,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096,
    "type": "yarn",
}


def test_yarn_with_equal_betas_is_read_as_transformers_runs_it():
    """Kimi K2 publishes beta_fast = beta_slow = 1: transformers warns and runs it
    (modeling_rope_utils.py:995), so the reader reads it, with a note, never a refusal."""
    config = {**LLAMA31, "rope_scaling": KIMI_K2_YARN, "max_position_embeddings": 131072}
    model = read_model(config)
    layer = model.layers[0]
    expected, attention = layer_reference(layer, KIMI_K2_YARN, 4096, 131072)
    np.testing.assert_allclose(layer.inv_freq, expected, rtol=FLOAT32)
    assert layer.attention_factor == pytest.approx(attention, rel=FLOAT32)
    assert "odd-scaling" in {f.code for f in model.findings}


def test_a_yarn_beta_transformers_cannot_run_is_refused():
    config = {**LLAMA31, "rope_scaling": {**KIMI_K2_YARN, "beta_slow": -1.0}}
    with pytest.raises(ModelError, match="beta_slow must be a positive number"):
        read_model(config)


def test_longrope_switches_from_short_to_long_factors():
    short, long = [1.0 + i / 100 for i in range(48)], [2.0 + i / 10 for i in range(48)]
    config = {
        "model_type": "phi3",
        "hidden_size": 3072,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": long, "short_factor": short, "type": "longrope"},
    }
    layer = read_model(config).layers[0]
    np.testing.assert_allclose(layer.inv_freq, plain(96, 1e4) / np.array(long), rtol=1e-15)
    np.testing.assert_allclose(layer.inv_freq_short, plain(96, 1e4) / np.array(short), rtol=1e-15)
    assert layer.attention_factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


def test_proportional_rope_pads_with_zero_frequencies():
    config = {
        "model_type": "x",
        "hidden_size": 1024,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
        "max_position_embeddings": 4096,
        "rope_parameters": {
            "rope_type": "proportional",
            "rope_theta": 10000.0,
            "partial_rotary_factor": 0.5,
            "factor": 2.0,
        },
    }
    layer = read_model(config).layers[0]
    rotated = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 128)
    np.testing.assert_allclose(
        layer.inv_freq, np.concatenate([rotated, np.zeros(32)]) / 2, rtol=1e-15
    )


def test_rope_parameters_nested_per_layer_type():
    config = {
        "model_type": "gemma3_text",
        "hidden_size": 2560,
        "num_attention_heads": 8,
        "head_dim": 256,
        "num_hidden_layers": 12,
        "max_position_embeddings": 131072,
        "sliding_window": 1024,
        "layer_types": ["sliding_attention"] * 5
        + ["full_attention"]
        + ["sliding_attention"] * 5
        + ["full_attention"],
        "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        },
    }
    model = read_model(config)
    assert [layer.index for layer in model.layers if layer.theta == 1e6] == [5, 11]
    np.testing.assert_allclose(model.layers[5].inv_freq, plain(256, 1e6) / 8, rtol=1e-15)


def test_mrope_section_must_split_the_pairs():
    config = {
        "model_type": "qwen2_vl",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_hidden_layers": 28,
        "max_position_embeddings": 32768,
        "rope_theta": 1e6,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    }
    model = read_model(config)
    assert "mrope-section-mismatch" not in codes(model)
    np.testing.assert_allclose(model.layers[0].inv_freq, plain(128, 1e6), rtol=1e-15)
    config["rope_scaling"]["mrope_section"] = [16, 24, 16]
    (refused,) = [f for f in read_model(config).findings if f.code == "engine-refuses"]
    assert "transformers 5.23.0" in refused.sentence and "modeling_qwen2_vl.py:" in refused.sentence
    generic = {**config, "model_type": "qwen2_vl_next"}  # no engine in scope: a note
    assert "mrope-section-mismatch" in codes(read_model(generic))


def test_an_unknown_rope_type_is_named_not_a_crash():
    config = {**LLAMA31, "rope_scaling": {"rope_type": "warp9", "factor": 2.0}}
    model = read_model(config)
    finding = next(f for f in model.findings if f.code == "engine-refuses")
    assert "warp9" in finding.sentence and "modeling_llama.py:83" in finding.sentence
    np.testing.assert_allclose(model.layers[0].inv_freq, plain(128, 5e5), rtol=1e-15)
    generic = read_model({**config, "model_type": "llama_next"})
    assert [f.severity for f in generic.findings if f.code == "unknown-rope-type"] == ["note"]


@pytest.mark.parametrize(
    "config, method",
    [
        ({"model_type": "gpt2", "n_positions": 1024, "n_layer": 12, "n_embd": 768}, "learned"),
        ({"model_type": "bloom", "n_layer": 24, "hidden_size": 1024}, "alibi"),
        (
            {
                "model_type": "mpt",
                "n_layers": 32,
                "max_seq_len": 2048,
                "num_hidden_layers": 32,
                "attn_config": {"alibi": True},
            },
            "alibi",
        ),
        ({"model_type": "t5", "num_layers": 12, "relative_attention_num_buckets": 32}, "t5"),
    ],
)
def test_families_without_rope(config, method):
    model = read_model(config)
    assert {layer.method for layer in model.layers} == {method}
    assert model.report()


@pytest.mark.parametrize(
    "text",
    [
        "[1, 2]",
        '{"rope_theta": NaN, "num_hidden_layers": 2}',
        '{"rope_theta": Infinity, "num_hidden_layers": 2}',
        "{" * 100000,
        '{"num_hidden_layers": "32"}',
        '{"num_hidden_layers": 1e300, "hidden_size": 64, "num_attention_heads": 1}',
        '{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 1, '
        '"rope_theta": "big"}',
        '{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 1, "rope_scaling": 5}',
        '{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 1, '
        '"rope_scaling": {"rope_type": "yarn", "factor": 0}}',  # transformers: inv_freq / 0
        '{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 1, '
        '"rope_scaling": {"rope_type": "longrope", "long_factor": [1, 2], "short_factor": [1]}}',
        '{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 1, "head_dim": 999999}',
        '{"num_hidden_layers": 2}',
        " " * (5 << 20),
        "not json",
    ],
)
def test_hostile_configs_get_one_plain_message(text):
    with pytest.raises(ModelError) as error:
        read_model(text if text.lstrip().startswith("{") or text.startswith("[") else text)
    message = str(error.value)
    assert message and "\n" not in message and len(message) < 200 and "Traceback" not in message


def test_report_is_plain_text_with_every_finding_and_source():
    model = read_model(LLAMA31)
    text = model.report()
    assert "llama3" in text and "8,192" in text and "sources:" in text
    assert json.loads(json.dumps(model.to_json()))["layer_types"][0]["inv_freq"][0] == 1.0


# ---- Every preset, against transformers' own rope functions ------------------------------------


def raw_scaling(config: dict) -> dict:
    inner = config.get("text_config", config)
    return (
        inner.get("rope_scaling")
        or config.get("rope_scaling")
        or inner.get("rope_parameters")
        or {}
    )


PRESET_NAMES = sorted(__import__("pe_explorer.model.presets", fromlist=["PRESETS"]).PRESETS)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_is_the_published_formula_layer_by_layer(name):
    from pe_explorer.model.sources import preset_config

    model = read_model(name)
    scaling = raw_scaling(preset_config(name))
    for layer, _ in model.layer_types():
        if layer.method != "rope":
            continue
        params = scaling if layer.scaling["type"] != "default" else {}
        expected, attention = layer_reference(
            layer, params, model.original_context, model.max_context
        )
        np.testing.assert_allclose(
            layer.inv_freq, expected, rtol=FLOAT32, err_msg=f"{name} {layer.kind}"
        )
        assert layer.attention_factor == pytest.approx(attention, rel=1e-12)
        assert np.all(np.isfinite(layer.inv_freq)) and layer.attention_factor >= 1.0


@pytest.mark.parametrize(
    "name, head_dim, rotary_dim, kinds",
    [
        ("phi-2", 80, 32, 1),
        ("gpt-neox-20b", 96, 24, 1),
        ("pythia-1.4b", 128, 32, 1),
        ("deepseek-v3", 192, 64, 1),
        ("gemma-3-4b-it", 256, 256, 2),
        ("gemma-2-9b-it", 256, 256, 2),
        ("llama-4-scout-17b-16e", 128, 128, 2),
        ("gpt-oss-20b", 64, 64, 2),
        ("llama-3.1-8b", 128, 128, 1),
    ],
)
def test_presets_head_and_rotary_sizes(name, head_dim, rotary_dim, kinds):
    model = read_model(name)
    rope = [layer for layer in model.layers if layer.method == "rope"][0]
    assert (rope.head_dim, rope.rotary_dim, len(model.layer_types())) == (
        head_dim,
        rotary_dim,
        kinds,
    )


def test_every_preset_reports_and_exports():
    for name in PRESET_NAMES:
        model = read_model(name)
        assert model.report() and json.dumps(model.to_json())
        assert model.sources and model.name


# One source per fact ----------------------------------------------------------------------------

PUBLISHED = sorted(
    path
    for path in (Path(__file__).resolve().parents[1] / "fixtures" / "published_configs").glob(
        "*.json"
    )
    if path.name != "INDEX.json"
)


def fact(name: str) -> str:
    """A source's name reduced to its fact: "layer types" and "layer_types" are one."""
    return " ".join(fact_name(name).lower().replace("_", " ").split())


def sources_of_every_reading():
    for name in PRESETS:
        yield f"preset {name}", lambda name=name: read_model(name)
        if has_gguf_form(name):
            yield f"GGUF of {name}", lambda name=name: read_model(converted(name))
    for path in PUBLISHED:
        yield path.name, lambda path=path: read_model(path)


@pytest.mark.parametrize("label, read", list(sources_of_every_reading()), ids=lambda x: x)
def test_no_fact_has_two_sources(label, read):
    names = list(read().sources)
    facts = [fact(name) for name in names]
    assert len(set(facts)) == len(facts), [n for n in names if facts.count(fact(n)) > 1]


def test_gemma_2_layer_types_have_the_one_source_that_filled_them():
    sources = read_model("gemma-2-9b-it").sources
    assert sources["layer_types"].startswith("Gemma2Config.__post_init__")
    assert "layer types" not in sources


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_reading_carries_each_layers_sliding_and_rotating(name):
    loaded = load(name)
    reading = engine_reading(loaded.config, loaded.sources, loaded.gguf)
    layers, _, _ = arch.layers(reading)
    assert reading.rotates == [layer.rotates for layer in layers]
    assert reading.sliding == [layer.kind == "sliding_attention" for layer in layers]
    assert (reading.engine is Engine.TRANSFORMERS) == (reading.row is not None)
    assert all(layer.label == layer.kind for layer in layers if layer.rotates)


def test_every_finding_code_is_in_the_findings_doc():
    """Each code the model reader writes (find("…") or Finding("…")) is named in
    docs/model-findings.md."""
    import re

    root = Path(__file__).resolve().parents[2]
    source = "".join(p.read_text() for p in (root / "components" / "model").glob("*.py"))
    codes = set(re.findall(r'(?:find|Finding)\(\s*"([a-z0-9-]+)"', source))
    assert {"engine-forward-differs", "rotary-mscale", "engines-agree"} <= codes
    doc = (root / "docs" / "model-findings.md").read_text()
    assert {c for c in codes if f"`{c}`" not in doc and f"## {c}\n" not in doc} == set()


def test_a_legacy_rotary_dim_the_class_converts_is_the_partial_factor():
    """MiniMax M2 publishes rotary_dim 64 of head_dim 128; MiniMaxM2Config turns it into
    partial_rotary_factor 0.5 (the generated table's rotary_dim_key)."""
    model = read_model({"model_type": "minimax_m2", "head_dim": 128, "rotary_dim": 64})
    assert {layer.rotary_dim for layer in model.layers} == {64}
    assert "convert_rope_params_to_dict" in model.sources["rotary_dim"]


@pytest.mark.parametrize(
    ("config", "rotating"),
    [
        # Bamba: attention (with RoPE) at the listed layers, Mamba 2 elsewhere
        ({"model_type": "bamba", "num_hidden_layers": 8, "attn_layer_indices": [2, 5]}, [2, 5]),
        # LFM2: the listed layers attend, the others are short convolutions
        ({"model_type": "lfm2", "num_hidden_layers": 6, "full_attn_idxs": [1, 4]}, [1, 4]),
        (
            {
                "model_type": "lfm2",
                "num_hidden_layers": 4,
                "layer_types": ["conv", "full_attention"] * 2,
            },
            [1, 3],
        ),
        (
            {
                "model_type": "lfm2_moe",
                "num_hidden_layers": 3,
                "layer_types": ["conv", "conv", "full_attention"],
            },
            [2],
        ),
    ],
)
def test_only_a_hybrids_attention_layers_rotate(config, rotating):
    """The key a hybrid's published file lays its layers out with (the generated table's
    layer_types "indices", and its layers built without attention)."""
    model = read_model(config)
    assert [layer.index for layer in model.layers if layer.rotates] == rotating


def test_a_model_type_transformers_builds_without_a_rotary_gets_no_default_rope():
    """Nemotron-H: its modeling file never calls apply_rotary_pos_emb (WITHOUT_ROTARY)."""
    model = read_model({"model_type": "nemotron_h", "num_hidden_layers": 4, "rope_theta": 1e4})
    assert not any(layer.rotates for layer in model.layers)
    assert "no-rotary" in {f.code for f in model.findings}


def test_an_encoder_with_a_rotary_is_never_read_as_learned():
    """ModernBERT keeps BERT's position_embedding_type, which its model never reads: global θ
    every global_attn_every_n_layers-th layer, local θ between."""
    config = {"model_type": "modernbert", "num_hidden_layers": 6, "global_attn_every_n_layers": 3,
              "global_rope_theta": 160000.0, "local_rope_theta": 10000.0,
              "position_embedding_type": "absolute"}  # fmt: skip
    model = read_model(config)
    assert [layer.theta for layer in model.layers] == [160000.0, 1e4, 1e4] * 2


@pytest.mark.parametrize(("name", "layers"), [("pythia-1.4b", 24), ("gpt-neox-20b", 44)])
def test_a_gpt_neox_yml_gives_its_own_layer_count(name, layers):
    """The yml's num-layers (neox_args.py's num_layers), not GPTNeoXConfig's default of 44."""
    assert len(read_model(name).layers) == layers

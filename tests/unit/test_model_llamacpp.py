"""GGUF headers read as llama.cpp runs them, against llama.cpp's rules at the pinned commit
(components/model/llamacpp_data.py, generated from its source): every architecture of
`llama_model_rope_type`, written with llama.cpp's own `gguf` writer as its converter writes the
keys, and the sliding, no-RoPE and base rules layer by layer."""

from __future__ import annotations

import json
from pathlib import Path

import gguf
import numpy as np
import pytest
from pe_explorer.model import llamacpp, llamacpp_data, transformers_data
from pe_explorer.model.reader import read_model


def write(path, arch: str, layers: int = 12, **keys) -> str:
    """A GGUF header as convert_hf_to_gguf.py writes the position keys (no tensors)."""
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_context_length(keys.pop("context", 8192))
    writer.add_embedding_length(keys.pop("embedding", 2048))
    writer.add_block_count(layers)
    writer.add_head_count(keys.pop("heads", 16))
    if "heads_kv" in keys:
        writer.add_head_count_kv(keys.pop("heads_kv"))
    base = keys.pop("base", 10000.0)
    if base is not None:  # None: as converters that omit it (GPT-NeoX, StableLM …)
        writer.add_rope_freq_base(base)
    if "alibi" in keys:
        writer.add_max_alibi_bias(keys.pop("alibi"))
    if "key_length" in keys:
        writer.add_key_length(keys.pop("key_length"))
    if "window" in keys:
        writer.add_sliding_window(keys.pop("window"))
    if "pattern" in keys:
        writer.add_uint32(f"{arch}.attention.sliding_window_pattern", keys.pop("pattern"))
    if "swa_base" in keys:
        writer.add_float32(f"{arch}.rope.freq_base_swa", keys.pop("swa_base"))
    if "linear" in keys:
        writer.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        writer.add_rope_scaling_factor(keys.pop("linear"))
    assert not keys, keys
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    return str(path)


ROPE = {arch: row["rope"] for arch, row in llamacpp_data.ROPE_TYPES.items()}


def test_the_table_is_pinned_and_covers_llama_model_rope_type() -> None:
    assert len(llamacpp_data.COMMIT) == 40 and llamacpp_data.MIRROR == "unslothai/llama.cpp"
    assert len(ROPE) >= 130 and {"norm", "neox", "none"} <= set(ROPE.values())


@pytest.mark.parametrize("arch", sorted(ROPE))
def test_every_architecture_rotates_the_pairs_llama_cpp_gives_it(arch, tmp_path) -> None:
    model = read_model(write(tmp_path / "m.gguf", arch))
    rotating = [layer for layer in model.layers if layer.method == "rope"]
    if ROPE[arch] == "none":
        assert rotating == []
    else:
        assert {layer.pairing for layer in rotating} <= {llamacpp.PAIRING[ROPE[arch]]}
    assert model.engine.startswith("llama.cpp d32676d774") or model.layers[0].method != "rope"


def kinds(model) -> list[str]:
    return [layer.kind for layer in model.layers]


def test_gemma3_every_sixth_layer_is_global_and_old_files_run_local_layers_at_10000(tmp_path):
    old = read_model(write(tmp_path / "old.gguf", "gemma3", 12, base=1e6, window=1024, linear=8.0))
    assert [i for i, k in enumerate(kinds(old)) if k == "full_attention"] == [5, 11]
    local, glob = old.layers[0], old.layers[5]
    assert (local.theta, local.scaling["type"], local.window) == (10000.0, "default", 1024)
    assert (glob.theta, glob.scaling["type"]) == (1e6, "linear")
    assert (
        "rope.freq_base_swa" in next(f for f in old.findings if f.code == "llamacpp-rule").sentence
    )
    new = read_model(
        write(tmp_path / "new.gguf", "gemma3", 12, base=1e6, window=1024, swa_base=5e4, linear=8.0)
    )
    assert new.layers[0].theta == 5e4 and new.layers[0].scaling["type"] == "default"


@pytest.mark.parametrize(("arch", "period"), [("cohere2", 4), ("gpt-oss", 2), ("exaone4", 4)])
def test_the_default_period_of_sliding_layers(arch, period, tmp_path) -> None:
    layers = 64 if arch == "exaone4" else 12  # exaone4: SWA only for its 64-layer model
    model = read_model(write(tmp_path / "m.gguf", arch, layers, window=4096))
    dense = [i for i, k in enumerate(kinds(model)) if k.startswith("full_attention")]
    assert dense == list(range(period - 1, layers, period))


def test_a_file_pattern_overrides_the_default_period(tmp_path) -> None:
    model = read_model(write(tmp_path / "m.gguf", "gemma3", 12, window=512, pattern=3))
    dense = [i for i, k in enumerate(kinds(model)) if k == "full_attention"]
    assert dense == [2, 5, 8, 11]


@pytest.mark.parametrize("arch", ["cohere2", "exaone4"])
def test_only_sliding_layers_rotate(arch, tmp_path) -> None:
    layers = 64 if arch == "exaone4" else 8
    model = read_model(write(tmp_path / "m.gguf", arch, layers, window=4096))
    for layer in model.layers:
        assert (layer.method == "rope") == layer.kind.startswith("sliding_attention")


def test_smollm3_skips_rope_on_every_fourth_layer(tmp_path) -> None:
    model = read_model(write(tmp_path / "m.gguf", "smollm3", 12))
    assert [layer.index for layer in model.layers if layer.method == "none"] == [3, 7, 11]


def test_granite_hybrid_mamba_layers_have_no_rope(tmp_path) -> None:
    heads_kv = [0, 0, 8, 0, 0, 8]
    model = read_model(write(tmp_path / "m.gguf", "granitehybrid", 6, heads_kv=heads_kv))
    assert [layer.method == "rope" for layer in model.layers] == [c > 0 for c in heads_kv]


def test_phi3_reads_the_window_and_turns_sliding_off(tmp_path) -> None:
    model = read_model(write(tmp_path / "m.gguf", "phi3", 8, window=2047))
    assert set(kinds(model)) == {"full_attention"}


def test_an_architecture_without_sliding_windows_in_llama_cpp_says_so(tmp_path) -> None:
    model = read_model(write(tmp_path / "m.gguf", "llama", 4, window=4096))
    assert set(kinds(model)) == {"full_attention"}
    assert any("reads no sliding window" in f.sentence for f in model.findings)


def test_rules_are_evaluated_without_eval() -> None:
    names = {"il": 7, "n_no_rope_layer_step": 4, "is_swa": lambda il: il % 2 == 0}
    assert llamacpp.evaluate("(il + 1) % n_no_rope_layer_step != 0", names) is False
    assert llamacpp.evaluate("is_swa(il) or il == 7", names) is True
    for hostile in ("__import__('os')", "il.__class__", "[x for x in ()]", "open('x')"):
        with pytest.raises(llamacpp.Unknown):
            llamacpp.evaluate(hostile, names)


def test_per_layer_head_counts_are_read_not_refused(tmp_path) -> None:
    model = read_model(
        write(tmp_path / "m.gguf", "deci", 4, heads=np.array([32, 0, 32, 32]).tolist())
    )
    assert len(model.layers) == 4


def deepseek(path, log_multiplier: float | None, mla: int | None = 192) -> str:
    writer = gguf.GGUFWriter(str(path), "deepseek2")
    writer.add_context_length(163840)
    writer.add_embedding_length(7168)
    writer.add_block_count(4)
    writer.add_head_count(128)
    writer.add_head_count_kv(1)
    writer.add_rope_freq_base(10000.0)
    writer.add_rope_dimension_count(64)
    writer.add_key_length(576)
    if mla:
        writer.add_uint32("deepseek2.attention.key_length_mla", mla)
    writer.add_rope_scaling_type(gguf.RopeScalingType.YARN)
    writer.add_rope_scaling_factor(40.0)
    writer.add_rope_scaling_orig_ctx_len(4096)
    if log_multiplier is not None:  # the converter writes 0.1 × mscale_all_dim
        writer.add_float32("deepseek2.rope.scaling.yarn_log_multiplier", log_multiplier)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    return str(path)


def test_deepseek_yarn_attention_factor_is_1_where_mscale_and_mscale_all_cancel(tmp_path):
    layer = read_model(deepseek(tmp_path / "m.gguf", 0.1)).layers[0]
    assert layer.attention_factor == pytest.approx(1.0)
    assert layer.pairing == "interleaved"
    plain = read_model(deepseek(tmp_path / "old.gguf", None)).layers[0]
    assert plain.attention_factor == pytest.approx(0.1 * np.log(40.0) + 1)


def test_deepseek_mla_head_is_key_length_mla_not_the_mqa_576(tmp_path):
    model = read_model(deepseek(tmp_path / "m.gguf", 0.1))
    assert model.layers[0].head_dim == 192 and model.layers[0].rotary_dim == 64


def test_mpt_with_max_alibi_bias_is_alibi(tmp_path):
    path = write(tmp_path / "mpt.gguf", "mpt", 4, context=2048, embedding=4096, heads=32,
                 base=None, alibi=8.0)  # fmt: skip
    assert {layer.method for layer in read_model(path).layers} == {"alibi"}


def test_no_default_theta_finding_for_a_gguf_whose_converter_omits_it(tmp_path):
    path = write(tmp_path / "neox.gguf", "gptneox", 4, context=2048, heads=16, base=None)
    model = read_model(path)
    assert model.layers[0].theta == 10000.0
    assert "default-theta" not in {f.code for f in model.findings}
    assert "llama.cpp" in model.sources["rope_theta"]


# Engines side by side: a config.json (as transformers runs it) and a GGUF of the same model (as
# llama.cpp runs it), given together.
def engine_findings(config: dict, gguf_path: str) -> list:
    model = read_model(config, gguf_path)
    return [f for f in model.findings if f.code.startswith("engines-")]


def test_mistral_v01_window_is_run_by_transformers_and_not_by_llama_cpp(tmp_path):
    """The converter writes Mistral 7B v0.1 as a `llama` GGUF with no sliding window."""
    from pe_explorer.model.presets import PRESETS

    path = write(tmp_path / "m.gguf", "llama", 32, context=32768, embedding=4096, heads=32)
    found = engine_findings(PRESETS["mistral-7b-v0.1"]["config"], path)
    assert [f.code for f in found] == ["engines-differ"]
    evidence = found[0].evidence
    assert "layers 0–31: 4,096 as transformers 5.23.0 runs MistralForCausalLM" in evidence
    assert "none (the whole context) as llama.cpp d32676d774" in evidence


def test_gemma3_27b_and_its_gguf_agree_layer_by_layer(tmp_path):
    """An old Gemma 3 GGUF (no rope.freq_base_swa): llama.cpp's fallback is the class default."""
    from pe_explorer.model.presets import PRESETS

    path = write(tmp_path / "g.gguf", "gemma3", 62, context=131072, embedding=5376, heads=32,
                 base=1e6, window=1024, linear=8.0, key_length=128)  # fmt: skip
    config = PRESETS["gemma-3-27b-it"]["config"]
    found = engine_findings(config, path)
    assert [f.code for f in found] == ["engines-agree"], [f.evidence for f in found]


def test_a_gguf_with_another_swa_base_differs_on_the_local_layers(tmp_path):
    from pe_explorer.model.presets import PRESETS

    path = write(tmp_path / "g.gguf", "gemma3", 62, context=131072, embedding=5376, heads=32,
                 base=1e6, window=1024, linear=8.0, swa_base=5e4, key_length=128)  # fmt: skip
    found = engine_findings(PRESETS["gemma-3-27b-it"]["config"], path)
    theta = [f for f in found if "θ" in f.sentence]
    assert len(theta) == 1 and "(52)" not in theta[0].evidence
    assert theta[0].evidence.startswith("layers 0–4, 6–10") and "10000 as transformers" in (
        theta[0].evidence
    )


def write_kv(path, arch: str, kv: dict) -> str:
    """A GGUF header with exactly these keys (after "{arch}."), typed as the converter types them:
    float32 for floats, uint32 for integers."""
    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in kv.items():
        name = f"{arch}.{key}"
        if isinstance(value, list):
            writer.add_array(name, value)
        elif isinstance(value, str):
            writer.add_string(name, value)
        elif isinstance(value, float):
            writer.add_float32(name, value)
        else:
            writer.add_uint32(name, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    return str(path)


# Kimi K2's config.json (DeepseekV3ForCausalLM, cut to 4 layers), and the keys the converter at the
# pin writes from it (DeepseekV2Model, conversion/deepseek.py:231, run on this config).
KIMI_K2 = {
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
    "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
    "num_hidden_layers": 4, "first_k_dense_replace": 1, "num_attention_heads": 64,
    "num_key_value_heads": 64, "n_routed_experts": 384, "n_shared_experts": 1,
    "num_experts_per_tok": 8, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 262144,
    "rope_theta": 50000.0, "rms_norm_eps": 1e-6, "vocab_size": 163840,
    "rope_scaling": {"beta_fast": 1.0, "beta_slow": 1.0, "factor": 64.0, "mscale": 1.0,
                     "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
                     "type": "yarn"},
}  # fmt: skip
KIMI_K2_GGUF = {
    "block_count": 4, "context_length": 262144, "embedding_length": 7168,
    "attention.head_count": 64, "attention.head_count_kv": 1, "rope.scaling.type": "yarn",
    "rope.scaling.factor": 64.0, "rope.scaling.original_context_length": 4096,
    "rope.scaling.yarn_beta_fast": 1.0, "rope.scaling.yarn_beta_slow": 1.0,
    "rope.freq_base": 50000.0, "attention.key_length": 576, "leading_dense_block_count": 1,
    "attention.key_length_mla": 192, "rope.dimension_count": 64,
    "rope.scaling.yarn_log_multiplier": 0.1,
}  # fmt: skip
# Qwen3-VL 4B's keys as Qwen3VLTextModel (conversion/qwen3vl.py:249) writes them from its
# published config.json (tests/fixtures/published_configs/qwen3-vl-4b-instruct.json).
QWEN3_VL_GGUF = {
    "block_count": 36, "context_length": 262144, "embedding_length": 2560,
    "attention.head_count": 32, "attention.head_count_kv": 8,
    "rope.dimension_sections": [24, 20, 20, 0], "rope.freq_base": 5000000.0,
    "attention.key_length": 128,
}  # fmt: skip


@pytest.mark.parametrize("gguf_first", [False, True])
def test_kimi_k2_betas_differ_side_by_side_once_with_both_lines(tmp_path, gguf_first):
    """deepseek2 reads no rope.scaling.yarn_beta_*: llama.cpp runs llama_hparams' 32 and 1
    (src/llama-hparams.h:137-138), transformers the config's 1 and 1
    (modeling_rope_utils.py:444); one finding, whichever file comes first."""
    path = write_kv(tmp_path / "kimi.gguf", "deepseek2", KIMI_K2_GGUF)
    model = read_model(path, KIMI_K2) if gguf_first else read_model(KIMI_K2, path)
    found = [f for f in model.findings if f.code.startswith("engines-")]
    (ramp,) = [f for f in found if f.fact == "YaRN ramp"]
    assert [f.code for f in found] == ["engines-differ"]
    tf = "beta_fast 1, beta_slow 1 as transformers 5.23.0 runs DeepseekV3ForCausalLM"
    cpp = "beta_fast 32, beta_slow 1 as llama.cpp d32676d774"
    assert tf in ramp.evidence and cpp in ramp.evidence
    assert "modeling_rope_utils.py:444-445 _compute_yarn_parameters" in ramp.evidence
    assert "src/llama-hparams.h:137, src/llama-hparams.h:138" in ramp.evidence


def test_qwen3_vl_text_pairs_differ_side_by_side(tmp_path):
    """The published config and its GGUF: llama.cpp turns pairs 61-62 with the fourth stream, 0
    for text (ops.cpp:5905, llama-graph.cpp:138); transformers keeps the text position there
    (modeling_qwen3_vl.py:410: freqs_thw = freq[0], then H and W up to 3 × their section)."""
    fixture = Path(__file__).parents[1] / "fixtures/published_configs/qwen3-vl-4b-instruct.json"
    config = json.loads(fixture.read_text(encoding="utf-8"))
    path = write_kv(tmp_path / "vl.gguf", "qwen3vl", QWEN3_VL_GGUF)
    found = [f for f in read_model(config, path).findings if f.code.startswith("engines-")]
    (note,) = found
    assert note.code == "engines-differ" and "pairs 61–62" in note.evidence
    assert "Qwen3VLTextModel, modeling_qwen3_vl.py (modeling_qwen3_vl.py:410-413" in note.evidence
    assert "ggml/src/ggml-cpu/ops.cpp:5905" in note.evidence


@pytest.mark.parametrize("name", ["yarn_betas", "interleaved_mrope"])
def test_transformers_lines_cited_say_what_is_claimed(name):
    """transformers_data.LINES, generated: each cited line of the installed transformers holds the
    code the table says; YaRN's defaults are the 32 and 1 both readers fill in."""
    import transformers

    entry = transformers_data.LINES[name]
    text = (Path(transformers.__file__).parent / entry["file"]).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert [lines[i - 1].strip() for i in entry["lines"]] == list(entry["code"])
    first, last = entry["lines"][0], entry["lines"][-1]
    assert entry["source"].startswith(f"{Path(entry['file']).name}:{first}-{last} ")
    if name == "yarn_betas":
        assert entry["values"] == (32, 1)
        assert "def _compute_yarn_parameters(" in "\n".join(lines[:first])
        assert "or 32" in entry["code"][0] and "or 1" in entry["code"][1]
    else:
        assert "mrope_section[dim] * 3" in entry["code"][1]

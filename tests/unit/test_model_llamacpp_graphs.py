"""llama.cpp's graphs, layer by layer: the rules of src/models/*.cpp that change what a layer does
with positions (llamacpp_data's GRAPH_ROPE_ARGS, N_LAYER, IMROPE, forced windows, unread keys,
load-time bases), on GGUF headers written with llama.cpp's `gguf` writer with the keys its
converter writes for each architecture (conversion/base.py:1230: YaRN's keys; the architecture's
own class for the rest)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import gguf
import pytest
from pe_explorer.model import llamacpp, llamacpp_data
from pe_explorer.model.reader import read_model

ENGINE = "llama.cpp d32676d774"


def write(path, arch: str, layers: int, *, head_dim: int = 128, **keys) -> str:
    """A GGUF header as convert_hf_to_gguf.py writes it (no tensors): `keys` after "{arch}."."""
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_context_length(keys.pop("context", 65536))
    writer.add_embedding_length(16 * head_dim)
    writer.add_block_count(layers)
    writer.add_head_count(16)
    writer.add_head_count_kv(4)
    writer.add_rope_freq_base(keys.pop("base", 10000.0))
    yarn = keys.pop("yarn", None)
    if yarn:  # conversion/base.py:1232-1243
        writer.add_rope_scaling_type(gguf.RopeScalingType.YARN)
        writer.add_rope_scaling_factor(yarn["factor"])
        writer.add_rope_scaling_orig_ctx_len(yarn["original"])
        for name in ("beta_fast", "beta_slow"):
            if name in yarn:
                writer.add_float32(f"{arch}.rope.scaling.yarn_{name}", yarn[name])
    for key, value in keys.items():
        if isinstance(value, list):
            writer.add_array(f"{arch}.{key}", value)
        elif isinstance(value, float):
            writer.add_float32(f"{arch}.{key}", value)
        else:
            writer.add_uint32(f"{arch}.{key}", value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    return str(path)


def codes(model, code: str) -> list:
    return [f for f in model.findings if f.code == code]


def test_olmo3_runs_yarn_only_on_its_full_attention_layers(tmp_path):
    """conversion/olmo.py:55 writes the window; olmo2.cpp:124 passes freq_scale 1, ext_factor 0
    and attn_factor 1 on the sliding layers (every 4th layer is global, olmo2.cpp:9-11)."""
    call = llamacpp_data.GRAPH_ROPE_ARGS["olmo2"]["calls"][0]
    assert call["source"] == "src/models/olmo2.cpp:124" and call["when"] == "is_swa(il)"
    assert call["set"] == {"freq_scale": 1.0, "ext_factor": 0.0, "attn_factor": 1.0}
    yarn = {"factor": 8.0, "original": 8192}
    window = {"attention.sliding_window": 4096}
    path = write(tmp_path / "olmo3.gguf", "olmo2", 32, base=500000.0, yarn=yarn, **window)
    model = read_model(path)
    full = [x.index for x in model.layers if x.kind == "full_attention"]
    assert full == [3, 7, 11, 15, 19, 23, 27, 31]
    for layer in model.layers:
        if layer.index in full:
            assert (layer.scaling["type"], layer.scaling["factor"]) == ("yarn", 8.0)
            assert layer.window is None
        else:
            assert layer.scaling == {"type": "default"} and layer.attention_factor == 1.0
            assert (layer.theta, layer.window) == (500000.0, 4096)
    assert "src/models/olmo2.cpp:124" in model.sources["scaling (sliding layers)"]


# An Olmo 3 GGUF as the converter at the pin writes it (run on an Olmo-3-7B-shaped config.json):
# conversion/olmo.py:55 the window, :66 the pattern as one bool per layer, conversion/base.py:1232
# YaRN's keys, :1270 rope.freq_base_swa (AutoConfig gives rope_parameters["sliding_attention"]).
OLMO3 = {
    "base": 500000.0,
    "yarn": {"factor": 8.0, "original": 8192, "beta_fast": 32.0, "beta_slow": 1.0},
    "rope.scaling.yarn_attn_factor": 1.2079441541679836,
    "attention.sliding_window": 4096,
    "attention.sliding_window_pattern": [True, True, True, False] * 4,
}


def test_olmo3_graph_turns_sliding_layers_at_the_shared_base():
    """olmo2.cpp:15 reads rope.freq_base_swa, but the graph passes the shared freq_base
    (olmo2.cpp:124-146): the generator no longer takes the loader's line for the graph's."""
    row = llamacpp_data.THETA["arch"]["olmo2"]
    assert row["swa_base_key_source"] == "src/models/olmo2.cpp:15"
    assert row["graph_per_layer_base"] is False
    assert row["graph_source"] == "src/models/olmo2.cpp:124"


@pytest.mark.parametrize("swa_base", [500000.0, 10000.0])
def test_olmo3_as_converted_runs_the_shared_base_on_sliding_layers(tmp_path, swa_base):
    """The pattern array is skipped by get_key_or_arr into a scalar (llama-model-loader.cpp:503),
    so olmo2.cpp:9's period 4 holds; rope.freq_base_swa is never passed to ggml_rope_ext."""
    keys = {**OLMO3, "rope.freq_base_swa": swa_base}
    model = read_model(write(tmp_path / "olmo3.gguf", "olmo2", 16, **keys))
    sliding = [x for x in model.layers if x.kind == "sliding_attention"]
    assert [x.index for x in sliding] == [i for i in range(16) if (i + 1) % 4]
    assert {(x.theta, x.scaling["type"], x.attention_factor) for x in sliding} == {
        (500000.0, "default", 1.0)
    }
    full = [x for x in model.layers if x.kind == "full_attention"]
    # llama-context.cpp:220 replaces the file's yarn_attn_factor by 1 + 0.1 ln 8 (as Olmo 3's own)
    assert {(x.theta, x.scaling["type"], round(x.attention_factor, 4)) for x in full} == {
        (500000.0, "yarn", 1.2079)
    }
    notes = [f for f in model.findings if "rope.freq_base_swa" in f.sentence]
    if swa_base == 500000.0:
        assert notes == []
    else:
        (note,) = notes
        assert "src/models/olmo2.cpp:15" in note.sentence
        assert "src/models/olmo2.cpp:124" in note.sentence


def test_olmo2_without_a_window_keeps_yarn_everywhere(tmp_path):
    path = write(tmp_path / "olmo2.gguf", "olmo2", 16, yarn={"factor": 4.0, "original": 4096})
    model = read_model(path)
    assert {x.scaling["type"] for x in model.layers} == {"yarn"}


def test_qwen3_next_rotates_only_its_full_attention_layers(tmp_path):
    """conversion/qwen.py:375 writes full_attention_interval; qwen3next.cpp:25 marks the others
    recurrent (gated delta net, no RoPE)."""
    path = write(tmp_path / "next.gguf", "qwen3next", 48, base=1e7, full_attention_interval=4)
    model = read_model(path)
    turning = [x.index for x in model.layers if x.method == "rope"]
    assert turning == list(range(3, 48, 4)) and len(turning) == 12
    assert "src/models/qwen3next.cpp:25" in model.sources["layers without RoPE"]


def test_qwen3_next_per_layer_array_wins_over_the_interval(tmp_path):
    flags = [1, 0] * 4
    path = write(tmp_path / "next.gguf", "qwen3next", 8, **{"attention.recurrent_layers": flags})
    model = read_model(path)
    assert [x.method == "rope" for x in model.layers] == [not f for f in flags]


def test_hunyuan_vl_runs_the_base_its_alpha_gives(tmp_path):
    """conversion/hunyuan.py:355-356 writes rope_theta and alpha; hunyuan-vl.cpp:10 multiplies
    the base by alpha^(d/(d-2)) at load."""
    path = write(tmp_path / "hy.gguf", "hunyuan_vl", 8, base=10000.0,
                 **{"rope.scaling.alpha": 1000.0})  # fmt: skip
    model = read_model(path)
    expected = 10000.0 * 1000.0 ** (128 / 126)
    assert {round(x.theta) for x in model.layers} == {round(expected)}
    assert 1.1e7 < expected < 1.12e7
    assert model.sources["rope_theta"].startswith("llama.cpp src/models/hunyuan-vl.cpp:10")


def test_smallthinker_sliding_layers_run_the_4096_window_its_graph_forces(tmp_path):
    """smallthinker.cpp:8 sets n_swa 4096 after reading the file's window (line 4); every 4th
    layer, the first of each period, is dense (set_swa_pattern(4, true), line 11)."""
    rule = llamacpp_data.SWA["smallthinker"]["window_default"][0]
    assert rule["source"] == "src/models/smallthinker.cpp:8"
    assert (rule["value"], rule["forced"]) == (4096, True)
    path = write(tmp_path / "st.gguf", "smallthinker", 8, **{"attention.sliding_window": 32768})
    model = read_model(path)
    assert [x.window for x in model.layers] == [None, 4096, 4096, 4096] * 2
    assert "smallthinker.cpp:8" in model.sources["window"]


def test_kimi_k2_is_read_with_llama_cpps_betas_and_a_warning_naming_both(tmp_path):
    """A DeepSeek-V3-architecture GGUF with beta_fast = beta_slow = 1 (as Kimi K2 publishes it,
    written by conversion/base.py:1240-1243): deepseek2 reads no yarn_beta key, so llama.cpp
    runs llama_hparams' 32 and 1 (llama-hparams.h:137-138)."""
    path = write(tmp_path / "kimi.gguf", "deepseek2", 4, head_dim=64, base=50000.0,
                 yarn={"factor": 32.0, "original": 4096, "beta_fast": 1.0, "beta_slow": 1.0},
                 **{"rope.dimension_count": 64})  # fmt: skip
    model = read_model(path)
    assert {(x.scaling["beta_fast"], x.scaling["beta_slow"]) for x in model.layers} == {(32, 1)}
    (finding,) = codes(model, "engines-differ")
    assert finding.severity == "warning"
    assert "beta_fast 1 and beta_slow 1 as transformers 5.23.0" in finding.evidence
    assert f"beta_fast 32 and beta_slow 1 as {ENGINE}" in finding.evidence
    assert "src/llama-hparams.h:137, src/llama-hparams.h:138" in finding.evidence


def test_an_architecture_that_reads_the_betas_runs_the_files(tmp_path):
    """mistral3.cpp:7 reads rope.scaling.yarn_beta_fast."""
    yarn = {"factor": 16.0, "original": 16384, "beta_fast": 4.0, "beta_slow": 1.0}
    path = write(tmp_path / "m.gguf", "mistral3", 4, yarn=yarn)
    model = read_model(path)
    assert {x.scaling["beta_fast"] for x in model.layers} == {4.0}
    assert codes(model, "engines-differ") == []


@pytest.mark.parametrize(("arch", "blocks", "nextn"), [("glm4moe", 47, 1), ("exaone-moe", 49, 1)])
def test_the_nextn_block_is_not_a_layer_llama_cpp_runs(tmp_path, arch, blocks, nextn):
    """conversion/glm.py:155 and conversion/exaone.py:233 write block_count with the NextN block
    and nextn_predict_layers; llama-hparams.cpp:281 n_layer() leaves it out of every graph."""
    extra = {"attention.sliding_window": 128} if arch == "exaone-moe" else {}
    path = write(tmp_path / "m.gguf", arch, blocks, nextn_predict_layers=nextn, **extra)
    model = read_model(path)
    assert len(model.layers) == blocks - nextn
    assert "src/llama-hparams.cpp:281" in model.sources["layers"]
    (note,) = [f for f in model.findings if "nextn_predict_layers" in f.sentence]
    assert f"runs {blocks - nextn} of the file's {blocks} blocks" in note.sentence


def test_exaone_moe_without_its_nextn_block_keeps_its_sliding_pattern(tmp_path):
    path = write(tmp_path / "m.gguf", "exaone-moe", 9, nextn_predict_layers=1,
                 **{"attention.sliding_window": 128})  # fmt: skip
    model = read_model(path)
    assert [x.kind for x in model.layers].count("full_attention") == 2


def test_qwen3_vl_two_pairs_never_turn_on_text_in_llama_cpp(tmp_path):
    """conversion/base.py:1263 pads mrope_section [24, 20, 20] to four; ggml's interleaved
    M-RoPE gives pairs 61 and 62 the fourth stream (ops.cpp:5905), 0 for text tokens
    (llama-graph.cpp:138)."""
    path = write(tmp_path / "vl.gguf", "qwen3vl", 4, base=5e6,
                 **{"rope.dimension_sections": [24, 20, 20, 0]})  # fmt: skip
    model = read_model(path)
    (note,) = codes(model, "engines-differ")
    assert note.severity == "warning" and "pairs 61–62" in note.evidence
    assert "modeling_qwen3_vl.py" in note.evidence.split(f" as {ENGINE}")[0]
    assert "ggml/src/ggml-cpu/ops.cpp:5905" in note.evidence
    assert "src/llama-graph.cpp:138" in note.evidence


MIRROR = Path("/work/.mirror/unslothai+llama.cpp/repo")
SHARED = ("freq_base", "freq_scale", "ext_factor", "attn_factor", "beta_fast", "beta_slow")


def test_every_rope_override_is_read_or_listed_as_skipped():
    """An `expr` or `when` over a name the reader does not give is in GRAPH_ROPE_SKIPPED, with its
    file:line and why (DeepSeek V4's compressed layers, dflash's ubatch.embd, Gemma 3n's has_kv)."""
    skipped = {s["source"]: s for s in llamacpp_data.GRAPH_ROPE_SKIPPED}
    known = set(llamacpp_data.GRAPH_ROPE_NAMES)
    for row in llamacpp_data.GRAPH_ROPE_ARGS.values():
        for call in row["calls"]:
            used = set().union(*(_names_in(x) for x in (*call["expr"].values(), call["when"])))
            assert used <= known or call["source"] in skipped, call["source"]
    assert "dsv4_compress_ratios" in skipped["src/models/deepseek4.cpp:956"]["why"]
    assert all(s["why"] and s["source"].startswith("src/models/") for s in skipped.values())


def test_the_reader_gives_every_name_an_override_may_use(tmp_path):
    plan = llamacpp.plan("gemma3", {"attention.sliding_window": 512}, 6)
    names = llamacpp._graph_names("gemma3", {}, plan, 6)
    assert set(llamacpp_data.GRAPH_ROPE_NAMES) - {"il"} <= set(names)


@pytest.mark.skipif(not MIRROR.is_dir(), reason="llama.cpp's mirror is not on this machine")
def test_no_rope_call_of_the_graphs_is_dropped():
    """Every ggml_rope* call in src/models/*.cpp at the pin that passes anything but the graph's
    shared settings (found here by a plain scan, not the generator's) is in GRAPH_ROPE_ARGS or
    GRAPH_ROPE_SKIPPED, with the same overridden arguments, from the same file."""
    listed = [(c["source"].split(":")[0], set(c["set"]) | set(c["expr"]))
              for r in llamacpp_data.GRAPH_ROPE_ARGS.values() for c in r["calls"]]  # fmt: skip
    listed += [(s["source"].split(":")[0], set(s["set"]) | set(s["expr"]))
               for s in llamacpp_data.GRAPH_ROPE_SKIPPED]  # fmt: skip
    found = 0
    for rel, overridden in _scan_rope_calls(llamacpp_data.COMMIT):
        found += 1
        assert (rel, overridden) in listed, (rel, overridden)
    assert found > 40


def _scan_rope_calls(commit: str):
    def git(*args: str) -> str:
        done = subprocess.run(["git", f"--git-dir={MIRROR}", *args], capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout

    starts = {"ggml_rope_ext": 7, "ggml_rope_multi": 8, "ggml_rope_ext_back": 7}
    for name in git("ls-tree", "--name-only", commit, "src/models/").split():
        if not name.endswith(".cpp"):
            continue
        text = re.sub(r"//[^\n]*", "", git("show", f"{commit}:{name}"))
        for m in re.finditer(r"\b(ggml_rope(?:_ext|_multi|_ext_back)?)\s*\(([^;]*)\)\s*;", text):
            if m.group(1) == "ggml_rope":
                yield name, set(SHARED)
                continue
            args = [a.strip() for a in re.split(r",(?![^(]*\))", m.group(2))]
            given = dict(zip(SHARED, args[starts[m.group(1)] :], strict=False))
            overridden = {k for k, v in given.items() if v != k}
            if overridden:
                yield name, overridden


def _names_in(expr: str | None) -> set[str]:
    text = re.sub(r"'[^']*'", "", expr or "")
    return set(re.findall(r"\b([A-Za-z_][\w.]*)\b", text)) - {"and", "or", "not", "if", "else"}


def test_cogvlm_turns_at_ggml_ropes_own_base_whatever_the_file_says(tmp_path):
    """cogvlm.cpp:115 calls ggml_rope, which passes freq_base 10000 and no scaling
    (ggml/src/ggml.c:4232): rope.freq_base is never read by its graph."""
    path = write(tmp_path / "cogvlm.gguf", "cogvlm", 4, base=500000.0)
    model = read_model(path)
    assert {x.theta for x in model.layers} == {10000.0}
    assert "src/models/cogvlm.cpp:115, ggml/src/ggml.c:4232" in model.sources["rope_theta"]


def test_laguna_sliding_layers_run_plain_rope_by_its_per_layer_expressions(tmp_path):
    """laguna.cpp:182-192: on sliding layers freq_scale is rope_freq_scale_train_swa (1.0,
    laguna.cpp:48) and ext_factor 0; the full layers (il % 4 == 0, laguna.cpp:41) keep YaRN."""
    call = llamacpp_data.GRAPH_ROPE_ARGS["laguna"]["calls"][0]
    assert call["expr"]["ext_factor"] == "0.0 if (is_swa(il)) else ext_factor"
    path = write(tmp_path / "laguna.gguf", "laguna", 8, base=500000.0,
                 yarn={"factor": 4.0, "original": 4096},
                 **{"attention.sliding_window": 512, "rope.freq_base_swa": 10000.0})  # fmt: skip
    model = read_model(path)
    full = [x.index for x in model.layers if x.scaling.get("type") == "yarn"]
    assert full == [0, 4]
    assert {x.theta for x in model.layers if x.index not in full} == {10000.0}
    assert "src/models/laguna.cpp:220" in model.sources["scaling (sliding layers)"]

"""The model view in the real Pyodide build, offline: a preset from a link, a config.json pasted,
a sparse GGUF of 5 GiB read by its header only, a safetensors header beside its config, and
hostile files; each answered with its closed-form numbers, and the page still answers keys."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from pe_explorer import read_model
from pe_explorer.model_sources import preset_config
from pyodide_support import page_holds, test_console_has_no_errors  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

LABEL_JS = """() => (__offline.deep('.js-plotly-plot[aria-label]')[0] || {})
  .getAttribute?.('aria-label') || ''"""
STATUS_JS = "() => __offline.deep('.pe-model-status').map((p) => p.textContent).join(' ')"
ALERT_JS = (
    "() => __offline.deep('.pe-model-status[role=alert]').map((p) => p.textContent).join(' ')"
)
# Gemma 3: local and global layers, as its config.json and transformers' defaults give them.
GEMMA3 = preset_config("gemma-3-4b-it")
LLAMA = {
    "model_type": "llama",
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_hidden_layers": 4,
    "max_position_embeddings": 4096,
    "rope_theta": 10000.0,
}


def write_gguf(path, size: int) -> None:
    """A GGUF written by llama.cpp's own writer, then made `size` bytes long (sparse)."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_name("Sparse Qwen")
    writer.add_context_length(32768)
    writer.add_embedding_length(3584)
    writer.add_block_count(28)
    writer.add_head_count(28)
    writer.add_rope_freq_base(1000000.0)
    writer.add_tensor("rope_freqs.weight", np.ones(64, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with open(path, "r+b") as file:
        file.truncate(size)


def write_safetensors(path, inv_freq: np.ndarray) -> None:
    data = inv_freq.astype("<f4").tobytes()
    name = "model.layers.0.self_attn.rotary_emb.inv_freq"
    header = json.dumps(
        {name: {"dtype": "F32", "shape": [inv_freq.size], "data_offsets": [0, len(data)]}}
    )
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode() + data)


def label_changed(site, before: str) -> str:
    page_holds(site.page, f"() => ({LABEL_JS})() !== {before!r} && ({LABEL_JS})() !== ''")
    return site.page.evaluate(LABEL_JS)


def choose(site, path) -> None:
    site.page.locator(".pe-model-file input[type=file]").set_input_files(str(path))


def steps(site, tmp) -> dict:
    seen = {"load": site.goto("?view=model&model=qwen2.5-3b-instruct")}
    page_holds(site.page, f"() => ({LABEL_JS})().includes('Qwen')")
    seen["preset"] = site.page.evaluate(LABEL_JS)
    box = site.page.locator(".pe-model-paste textarea")
    box.fill(json.dumps(GEMMA3))
    box.blur()
    seen["pasted"] = label_changed(site, seen["preset"])
    # Back to the preset, then a file alone (beside a pasted config it would be compared).
    site.page.locator(".pe-model-clear button").click()
    label_changed(site, seen["pasted"])
    big = tmp / "sparse.gguf"
    write_gguf(big, 5 << 30)
    choose(site, big)
    page_holds(site.page, f"() => ({STATUS_JS})().includes('gguf')")
    seen["gguf_status"] = site.page.evaluate(STATUS_JS)
    seen["gguf"] = site.page.evaluate(LABEL_JS)
    bad = tmp / "bad.gguf"
    bad.write_bytes(b"GGUF" + struct.pack("<I", 99) + bytes(64))
    choose(site, bad)
    page_holds(site.page, f"() => ({ALERT_JS})().length > 0")
    seen["alert"] = site.page.evaluate(ALERT_JS)
    box.fill(json.dumps(LLAMA))
    box.blur()
    page_holds(site.page, f"() => ({LABEL_JS})().includes('llama, 4 layers')")
    stored = tmp / "model.safetensors"
    write_safetensors(stored, 1.0 / 500000.0 ** (np.arange(0, 128, 2) / 128))
    choose(site, stored)
    page_holds(
        site.page,
        "() => __offline.deep('.pe-model-code').some((c) => "
        "c.textContent === 'safetensors-inv-freq-mismatch')",
    )
    seen["mismatch"] = site.page.evaluate(LABEL_JS)
    seen["after_files"] = site.page.evaluate(STATUS_JS)
    # The page still answers keys: the preset chooser, by keyboard, after the hostile file.
    site.page.locator(".pe-model-clear button").click()
    before = label_changed(site, seen["mismatch"])
    site.page.locator(".pe-control-model select").focus()
    site.page.keyboard.press("ArrowDown")
    seen["key_before"], seen["key_after"] = before, label_changed(site, before)
    return seen


@pytest.fixture(scope="module")
def visit(request, tmp_path_factory):
    from pyodide_support import on_the_site, visit_offline

    tmp = tmp_path_factory.mktemp("model")
    return visit_offline(
        request, lambda site_dir: on_the_site(site_dir, lambda site: steps(site, tmp))
    )


def test_a_preset_from_a_link_names_its_numbers(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    model = read_model("qwen2.5-3b-instruct")
    layer = model.layers[0]
    assert f"θ = {layer.theta:g}" in visit["preset"]
    assert f"{len(model.layers)} layers" in visit["preset"]


def test_a_pasted_config_is_read_layer_by_layer(visit):
    label = visit["pasted"]
    assert "sliding_attention" in label and "full_attention" in label
    assert "layers 5, 11, 17, 23, 29 (5)" in label


def test_a_5_gib_gguf_is_read_by_its_header(visit):
    assert "gguf" in visit["gguf_status"]
    assert "Sparse Qwen" in visit["gguf"] and "θ = 1e+06" in visit["gguf"]
    # Read by slices: a few MiB of the 5 GiB file at most.
    read = float(visit["gguf_status"].split("read ")[1].split(" MiB")[0])
    assert read <= 8


def test_a_hostile_file_gets_one_plain_message(visit):
    assert "version" in visit["alert"].lower()
    assert "Traceback" not in visit["alert"]


def test_the_page_answers_keys_after_the_files(visit):
    assert visit["key_after"] != visit["key_before"]


def test_a_safetensors_inv_freq_is_checked_against_the_config(visit):
    assert "safetensors-inv-freq-mismatch" in visit["mismatch"]

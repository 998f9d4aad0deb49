"""The model view in the real Pyodide build, offline: a preset from a link, a config.json pasted,
a sparse GGUF of 5 GiB read by its header only, a safetensors header beside its config, a model
fetched from the Hugging Face Hub (answered here from a fixture: no test reaches the network),
and hostile files; each answered with its closed-form numbers, and the page still answers keys."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from pe_explorer import read_model
from pe_explorer.model.sources import preset_config
from pyodide_support import page_holds
from visits_support import SCREENSHOTS, photograph

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = "?view=model&model=qwen2.5-3b-instruct"

LABEL_JS = """() => (__offline.deep('.js-plotly-plot[aria-label]')[0] || {})
  .getAttribute?.('aria-label') || ''"""
STATUS_JS = "() => __offline.deep('.pe-model-status').map((p) => p.textContent).join(' ')"
ALERT_JS = (
    "() => __offline.deep('.pe-model-status[role=alert]').map((p) => p.textContent).join(' ')"
)
# Gemma 3: local and global layers, as its config.json and transformers' defaults give them.
GEMMA3 = preset_config("gemma-3-4b-it")
# Gemma 3 27B as published: no rope_theta, no local base, no pattern (the class's defaults).
GEMMA3_27B = preset_config("gemma-3-27b-it")
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


# The Hub, as the page's fetch meets it: Qwen3-8B's config.json, and a gated model's refusal.
QWEN3 = preset_config("qwen3-8b")
HUB_ANSWERS = {
    "https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json": (200, json.dumps(QWEN3)),
    "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json": (401, "{}"),
}


def answer_as_the_hub(asked: list):
    """A route handler: the fixture's answer (else 404), with the CORS header the Hub sends."""

    def answer(route):
        asked.append(route.request.url)
        status, body = HUB_ANSWERS.get(route.request.url, (404, "{}"))
        route.fulfill(
            status=status,
            body=body,
            headers={"Access-Control-Allow-Origin": "*", "Content-Type": "application/json"},
        )

    return answer


def fetch_from_the_hub(site, model_id: str) -> None:
    box = site.page.locator(".pe-hub-id")
    box.fill(model_id)
    site.page.locator(".pe-hub-fetch").click()


def hub_steps(site, seen: dict) -> None:
    """A model from the Hub, then a gated one; what the page asked the Hub for."""
    # Nothing went to the Hub before the button is pressed (the harness sees every request).
    seen["hub_asked_before"] = [
        entry["path"] for entry in site.metrics()["requests"] if "huggingface" in entry["host"]
    ]
    asked = seen["hub_asked"] = []
    site.page.route("https://huggingface.co/**", answer_as_the_hub(asked))
    before = site.page.evaluate(LABEL_JS)
    fetch_from_the_hub(site, "Qwen/Qwen3-8B")
    seen["hub"] = label_changed(site, before)
    page_holds(site.page, f"() => ({STATUS_JS})().includes('Qwen/Qwen3-8B')")
    seen["hub_status"] = site.page.evaluate(STATUS_JS)
    fetch_from_the_hub(site, "meta-llama/Llama-3.1-8B")
    page_holds(site.page, f"() => ({ALERT_JS})().includes('login')")
    seen["hub_gated"] = site.page.evaluate(ALERT_JS)


def label_changed(site, before: str) -> str:
    page_holds(site.page, f"() => ({LABEL_JS})() !== {before!r} && ({LABEL_JS})() !== ''")
    return site.page.evaluate(LABEL_JS)


def choose(site, path) -> None:
    site.page.locator(".pe-model-file input[type=file]").set_input_files(str(path))


def steps(site, tmp) -> dict:
    seen = {}
    page_holds(site.page, f"() => ({LABEL_JS})().includes('Qwen')")
    seen["preset"] = site.page.evaluate(LABEL_JS)
    box = site.page.locator(".pe-model-paste textarea")
    box.fill(json.dumps(GEMMA3))
    box.blur()
    seen["pasted"] = label_changed(site, seen["preset"])
    box.fill(json.dumps(GEMMA3_27B))
    box.blur()
    seen["gemma27"] = label_changed(site, seen["pasted"])
    page_holds(site.page, f"() => ({STATUS_JS})().includes('Gemma3ForCausalLM')")
    seen["gemma27_status"] = site.page.evaluate(STATUS_JS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen["gemma27_overlaps"] = photograph(
        site.page, "model", SCREENSHOTS / "model-gemma-3-27b-it-1280.png"
    )
    # Back to the preset, then a file alone (beside a pasted config it would be compared).
    site.page.locator(".pe-model-clear button").click()
    label_changed(site, seen["gemma27"])
    big = tmp / "sparse.gguf"
    write_gguf(big, 5 << 30)
    choose(site, big)
    # (the preset's own status names convert_hf_to_gguf.py: wait for the file's)
    page_holds(site.page, f"() => ({LABEL_JS})().includes('Sparse Qwen')")
    page_holds(site.page, f"() => ({STATUS_JS})().includes(' MiB')")
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
    hub_steps(site, seen)
    what_if_steps(site, seen)
    return seen


def what_if_steps(site, seen: dict) -> None:
    """The visitor's own config, then "What if" on it: the mistakes view runs on its layers,
    in the same page, and the address never holds the file."""
    box = site.page.locator(".pe-model-paste textarea")
    box.fill(json.dumps(LLAMA))
    box.blur()
    page_holds(site.page, f"() => ({LABEL_JS})().includes('llama, 4 layers')")
    site.page.locator(".pe-model-what-if-upload button").click()
    page_holds(site.page, f"() => ({LABEL_JS})().startsWith('Angles in bf16 or fp16.')")
    seen["what_if"] = site.page.evaluate(LABEL_JS)
    seen["what_if_query"] = site.page.evaluate("() => location.search")


@pytest.fixture(scope="module")
def visit(request, shared_site, tmp_path_factory):
    from pyodide_support import on_the_shared_site

    tmp = tmp_path_factory.mktemp("model")
    return shared_site.run(
        lambda site: on_the_shared_site(site, lambda site: steps(site, tmp), START)
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


def test_gemma_3_27b_as_published_shows_its_local_and_global_layers(visit):
    """52 local layers at θ 10000 unscaled, 10 global ones at 1e6 with linear ×8, as transformers
    5.23.0 runs the file; the picture: tests/pyodide/screenshots/model-gemma-3-27b-it-1280.png."""
    label, status = visit["gemma27"], visit["gemma27_status"]
    assert "62 layers" in label
    assert "layers 5, 11, 17, 23, 29, 35, 41, 47, 53, 59 (10): full_attention, RoPE θ = 1e+06" in (
        label
    )
    assert "(52): sliding_attention, RoPE θ = 10000" in label
    assert "scaling linear (factor 8)" in label
    assert "transformers 5.23.0 runs Gemma3ForCausalLM, modeling_gemma3.py" in status
    assert visit["gemma27_overlaps"] == []


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


def test_a_model_from_the_hub_is_fetched_on_the_press_only_and_read(visit):
    assert visit["hub_asked_before"] == []
    assert visit["hub_asked"] == list(HUB_ANSWERS)
    model = read_model(QWEN3)
    assert f"θ = {model.layers[0].theta:g}" in visit["hub"]
    assert f"{len(model.layers)} layers" in visit["hub"]
    assert "Showing your config.json of Qwen/Qwen3-8B" in visit["hub_status"]


def test_a_gated_model_gets_a_plain_message(visit):
    assert "meta-llama/Llama-3.1-8B" in visit["hub_gated"] and "login" in visit["hub_gated"]


def test_what_if_runs_a_mistake_on_the_visitors_own_model_never_put_in_the_address(visit):
    from pe_explorer.mistakes.simulate import simulate
    from pe_explorer.model.sources import load

    found = simulate("low_precision", read_model(load(json.dumps(LLAMA))), at="32k")
    assert found.summary in visit["what_if"]
    query = visit["what_if_query"]
    assert "view=mistakes" in query and "mistake_on=upload" in query
    assert "llama" not in query and "4096" not in query


def test_console_has_no_errors_but_the_gated_models_refusal(visit):
    # Chromium logs every 4xx answer to a fetch ("Failed to load resource"); the gated model's 401
    # is the answer this module asks the Hub for.
    gated = next(url for url, (status, _) in HUB_ANSWERS.items() if status == 401)
    assert [e for e in visit["console_errors"] if e["url"] != gated] == []
    assert len(visit["console_errors"]) <= 1

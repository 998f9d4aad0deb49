"""The model view without a browser: a preset, a pasted config.json, a file read by the slices it
asks for (as the browser's File.slice would send them), hostile input, and what it exports."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import numpy as np
import pytest
from pe_explorer import read_model
from pe_explorer.model.sources import preset_config
from pe_explorer.plotkit.slice_file import MAX_READ
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS

SPEC = next(spec for spec in VIEWS if spec.name == "model")
# Gemma 3: local and global layers, as its config.json and transformers' defaults give them.
GEMMA3 = preset_config("gemma-3-4b-it")


def make_view(**state):
    return SPEC.make(ExplorerState(**state))


def serve_slices(view, data: bytes, name: str = "file") -> int:
    """Answer the view's slice requests from data, as the browser would; the bytes sent."""
    reader, sent = view._reader, 0
    reader.chosen = {"name": name, "size": len(data), "serial": 1}
    while (
        reader.request and reader.request.get("id") is not None and view._slices._source is not None
    ):
        wanted = reader.request
        chunk = data[wanted["offset"] : wanted["offset"] + wanted["length"]]
        sent += len(chunk)
        reader.chunk = {
            "serial": 1,
            "id": wanted["id"],
            "offset": wanted["offset"],
            "data": base64.b64encode(chunk).decode(),
        }
    return sent


def test_a_preset_from_the_state():
    view = make_view(model="phi-2")
    assert "rotary 32 of 80" in view.description()
    assert "partial-rotary" in view._findings.object


def test_a_pasted_config_replaces_the_preset_and_back():
    view = make_view()
    view._paste.value = json.dumps(GEMMA3)
    assert "layers 5, 11, 17, 23, 29 (5): full_attention" in view.description()
    assert "Showing your config.json" in view._status.object
    view._back_to_preset()
    assert "Llama" in view.description() or "llama" in view.description()


def test_hostile_paste_is_one_escaped_message_and_the_preset_stays():
    view = make_view()
    view._paste.value = '{"num_hidden_layers": "<img src=x onerror=alert(1)>"}'
    status = view._status.object
    assert 'role="alert"' in status and "<img" not in status and "&lt;img" in status
    assert "llama" in view.description().lower()


def test_a_file_is_read_by_slices_only(tmp_path):
    import gguf

    path = tmp_path / "m.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("Sliced")
    for add, value in (
        (writer.add_context_length, 4096),
        (writer.add_embedding_length, 2048),
        (writer.add_block_count, 4),
        (writer.add_head_count, 16),
        (writer.add_rope_freq_base, 10000.0),
    ):
        add(value)
    writer.add_tensor("token_embd.weight", np.zeros((256, 2048), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    data = path.read_bytes()
    view = make_view()
    sent = serve_slices(view, data, "m.gguf")
    assert "Sliced" in view.description() and "interleaved" in view.description()
    assert sent < len(data)  # the 2 MiB tensor is never asked for
    np.testing.assert_allclose(
        view.model().layers[0].inv_freq, read_model(str(path)).layers[0].inv_freq
    )


@pytest.mark.parametrize(
    "data",
    [
        b"GGUF" + bytes(4) + bytes(100),
        b"\x00" * 64,
        b"GGUF\x03\x00\x00\x00" + b"\xff" * 16,
        (10**12).to_bytes(8, "little") + b"{}",
    ],
    ids=["gguf-version-0", "zeros", "gguf-counts-beyond-the-file", "safetensors-header-1-tb"],
)
def test_hostile_files_get_one_message(data):
    view = make_view()
    serve_slices(view, data, "bad.bin")
    status = view._status.object
    assert 'role="alert"' in status and "Traceback" not in status
    assert "llama" in view.description().lower()


def test_a_file_claiming_a_huge_header_is_refused_within_the_cap():
    view = make_view()
    data = b"GGUF\x03\x00\x00\x00" + (0).to_bytes(8, "little") + (3).to_bytes(8, "little")
    data += (2**20 * 200).to_bytes(8, "little") + b"a"  # a key claiming 200 MiB
    sent = serve_slices(view, data + bytes(64), "huge.gguf")
    assert sent <= MAX_READ and 'role="alert"' in view._status.object


def test_the_exported_script_recomputes_every_layer_type():
    view = make_view(model="gemma-3-4b-it")
    result = subprocess.run(
        [sys.executable, "-c", view.code()], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("same as the page: True") == 2


def test_no_rope_models_say_so():
    view = make_view(model="gpt-2")
    figure = view.figure()
    assert "No rotary pairs" in json.dumps(figure) and "learned" in view.description()


def test_a_config_fetched_from_the_hub_is_shown_under_its_model_id():
    view = make_view()
    view._hub.answer = {"id": "google/gemma-3-4b-it", "status": 200, "text": json.dumps(GEMMA3)}
    assert "layers 5, 11, 17, 23, 29 (5): full_attention" in view.description()
    assert "Showing your config.json of google/gemma-3-4b-it" in view._status.object
    view._back_to_preset()
    assert "llama" in view.description().lower()


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (401, "the Hub asks for a login"),
        (403, "a gated model"),
        (404, "the Hub has no such model"),
        ("unreachable", "could not reach huggingface.co"),
        ("bad-id", "not a model id"),
        ("too-large", "over 1 MiB"),
        (500, "the Hub answered 500"),
    ],
)
def test_no_config_from_the_hub_is_one_message_and_the_preset_stays(status, said):
    view = make_view()
    view._hub.answer = {"id": "meta-llama/<b>Llama</b>", "status": status}
    shown = view._status.object
    assert 'role="alert"' in shown and said in shown
    assert "<b>" not in shown and "&lt;b&gt;" in shown
    assert "llama" in view.description().lower()


def test_a_hub_answer_that_is_not_json_is_one_message():
    view = make_view()
    view._hub.answer = {"id": "acme/model", "status": 200, "text": "<html>login</html>"}
    assert 'role="alert"' in view._status.object and "acme/model" in view._status.object


def test_the_hub_id_pattern_takes_owner_and_name_only():
    import re

    from pe_explorer.plotkit.hub_fetch import ID_PATTERN

    ids = ["Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B", "a/b", "../x", "a/b/c", "a", "a/b?c", "/x"]
    assert [bool(re.match(ID_PATTERN, i)) for i in ids] == [True] * 3 + [False] * 5


def test_the_model_shown_downloads_as_json_the_visitors_too():
    view = make_view(model="phi-2")  # a preset is shown beside the GGUF its converter writes
    shown = json.loads(view._json.callback().getvalue())
    assert shown == read_model("phi-2", engine="both").to_json()
    view._paste.value = json.dumps(GEMMA3)
    shown = json.loads(view._json.callback().getvalue())
    assert shown == json.loads(json.dumps(read_model(GEMMA3).to_json()))


def test_the_what_if_of_a_visitors_file_shows_the_mistakes_view_in_place():
    """No link holds the file, and a load would lose it: the page shows the mistakes view itself,
    and the address it writes has the view and mistake_on=upload, never the model."""
    from pe_explorer.ui.page import ExplorerPage
    from pe_explorer.ui.page_options import PageOptions

    page = ExplorerPage(options=PageOptions(view="model"))
    page.url.writer.active = True
    view = page.view("model")
    assert not view._what_if.visible
    view._paste.value = json.dumps(GEMMA3)
    assert view._what_if.visible and page.state.visitor_model.reading.name == "gemma3_text"
    view.what_if()
    assert (page.options.view, page.state.mistake_on) == ("mistakes", "upload")
    assert (
        page.url.writer.query
        == "d_model=128&n_positions=64&mistake_on=upload&pos=7&offset=1&view=mistakes"
    )
    assert "gemma3_text sliding_attention" in page.view("mistakes").description()


def test_a_file_that_cannot_be_read_gives_the_mistakes_view_no_model():
    view = make_view()
    view._paste.value = json.dumps(GEMMA3)
    assert view.state.visitor_model is not None
    view._paste.value = '{"num_hidden_layers": "<img src=x onerror=alert(1)>"}'
    assert view.state.visitor_model is None and not view._what_if.visible
    view.what_if()
    assert view.state.mistake_on == "model" and view.asks_for == ""

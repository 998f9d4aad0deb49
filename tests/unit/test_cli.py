"""`pe-explorer` in a terminal: the model table, JSON, engines, exit codes, the other checks, and
bad input answered with one sentence and status 2, never a traceback. Run as a person runs it,
through the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest
from pe_explorer.encoding import positional_encoding
from pe_explorer.model.presets import PRESETS
from pe_explorer.model.reader import read_model

COMMAND = Path(sys.executable).with_name("pe-explorer")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    command = [str(COMMAND)] if COMMAND.exists() else [sys.executable, "-m", "pe_explorer.cli"]
    return subprocess.run([*command, *args], input=stdin, capture_output=True, timeout=120)


def config_file(tmp_path: Path, config: dict, name: str = "config.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(config), encoding="utf-8")
    return str(path)


def test_the_command_is_installed_with_the_package() -> None:
    assert COMMAND.exists()


def test_a_model_prints_its_layer_groups_in_100_columns_and_fails_on_a_warning() -> None:
    result = run("model", "gemma-3-27b-it")
    out = result.stdout.decode()
    assert result.returncode == 1, result.stderr  # default-theta is a warning
    assert "52 layers  rope     10000" in out and "10 layers  rope     1e+06" in out
    assert "layers as transformers 5.23.0 runs Gemma3ForCausalLM" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert run("model", "gemma-3-27b-it", "--fail-on", "never").returncode == 0


def test_a_clean_model_exits_0(tmp_path) -> None:
    result = run("model", "llama-3.1-8b")
    assert result.returncode == 0, result.stdout.decode()


def test_every_layer_is_listed_on_request() -> None:
    out = run("model", "gemma-3-27b-it", "--layers").stdout.decode()
    assert sum(line.startswith("layer ") for line in out.splitlines()) == 62


def test_json_is_the_schema_the_page_downloads(tmp_path) -> None:
    result = run("model", "qwen3-8b", "--json", "--fail-on", "never")
    document = json.loads(result.stdout)
    assert document["schema"] == "pe-explorer/model-positions" and document["version"] == 1
    assert document == json.loads(json.dumps(read_model("qwen3-8b").to_json()))


def gguf_file(tmp_path: Path, arch: str = "llama", size: int | None = None) -> str:
    path = tmp_path / "model.gguf"
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_context_length(32768)
    writer.add_embedding_length(4096)
    writer.add_block_count(32)
    writer.add_head_count(32)
    writer.add_rope_freq_base(10000.0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    if size:
        with open(path, "r+b") as file:
            file.truncate(size)  # sparse: only the header is real
    return str(path)


def test_engines_side_by_side_with_a_config_and_its_gguf(tmp_path) -> None:
    config = config_file(tmp_path, PRESETS["mistral-7b-v0.1"]["config"])
    result = run("model", config, gguf_file(tmp_path), "--together", "--engine", "both")
    out = result.stdout.decode()
    assert result.returncode == 1 and "engines-differ" in out and "llama.cpp d32676d774" in out


def test_an_engine_the_model_is_not_read_as_is_refused(tmp_path) -> None:
    result = run("model", "qwen3-8b", "--engine", "llama.cpp")
    assert result.returncode == 2 and b"not llama.cpp" in result.stderr


def test_a_sparse_50_gib_gguf_is_read_by_its_header(tmp_path) -> None:
    result = run("model", gguf_file(tmp_path, size=50 << 30), "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert b"llama.cpp d32676d774" in result.stdout


def one_sentence(result: subprocess.CompletedProcess) -> str:
    err = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: str(tmp / "missing.json"), "no file"),
        (lambda tmp: str(tmp), "folder"),
        (lambda tmp: _write(tmp / "x.json", b"\x00\xff" * 64), "neither"),
        (lambda tmp: _sparse(tmp / "big.json", 2 << 30), "4 MiB"),
        (lambda tmp: _write(tmp / "list.json", b"[1, 2]"), "neither a config.json"),
        (lambda tmp: _write(tmp / "bad.gguf", b"GGUF" + (99).to_bytes(4, "little") + bytes(64)),
         "version"),
    ],
    ids=["missing", "directory", "binary-json", "2-gib-json", "json-list", "bad-gguf"],
)  # fmt: skip
def test_bad_input_gets_one_sentence_and_status_2(tmp_path, make, says) -> None:
    assert says in one_sentence(run("model", make(tmp_path)))


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _sparse(path: Path, size: int) -> str:
    with open(path, "wb") as file:
        file.write(b"{")
        file.truncate(size)
    return str(path)


def test_a_config_on_stdin_and_garbage_on_stdin(tmp_path) -> None:
    config = json.dumps(PRESETS["qwen3-8b"]["config"]).encode()
    assert run("model", "-", "--fail-on", "never", stdin=config).returncode == 0
    assert "not UTF-8" in one_sentence(run("model", "-", stdin=b"\xff\xfe" * 10))
    assert "4 MiB" in one_sentence(run("model", "-", stdin=b" " * (5 << 20)))


def test_a_pe_matrix_is_checked(tmp_path) -> None:
    path = tmp_path / "pe.npy"
    np.save(path, positional_encoding(32, 64))
    good = run("check", str(path))
    assert good.returncode == 0, good.stdout
    np.save(path, positional_encoding(32, 64, base=500.0))
    assert run("check", str(path)).returncode == 1


def test_an_inv_freq_is_checked_against_a_model(tmp_path) -> None:
    layer = read_model("llama-3.1-8b").layers[0]
    path = tmp_path / "inv_freq.npy"
    np.save(path, layer.inv_freq.astype(np.float32))
    result = run("ropecheck", str(path), "--model", "llama-3.1-8b")
    assert result.returncode == 0, result.stdout.decode()
    np.save(path, (layer.inv_freq * 8).astype(np.float32))
    assert run("ropecheck", str(path), "--model", "llama-3.1-8b").returncode == 1


def test_the_command_starts_without_panel_bokeh_or_plotly() -> None:
    code = (
        "import sys; from pe_explorer import cli; cli.main(['model', 'qwen3-8b', '--json']);"
        "print(sorted(m for m in ('panel', 'bokeh', 'plotly') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert out.stdout.decode().strip().splitlines()[-1] == "[]"


# The Hub, answered from a fixture server on localhost ($HF_ENDPOINT): no test reaches the network.
@pytest.fixture
def hub(tmp_path):
    from hub_fixture import HubFixture

    config = Path(config_file(tmp_path, PRESETS["qwen3-8b"]["config"]))
    big = Path(gguf_file(tmp_path, "gemma3", size=20 * 10**9))  # 20 GB, sparse
    files = {"Qwen/Qwen3-8B/config.json": config, "someone/big-GGUF/model-Q4.gguf": big,
             "someone/cut-GGUF/model-Q4.gguf": big}  # fmt: skip
    with HubFixture(files, gated={"meta-llama/Llama-3.1-8B"},
                    cut={"someone/cut-GGUF/model-Q4.gguf"}) as server:  # fmt: skip
        yield server


def run_with_hub(hub, *args: str) -> subprocess.CompletedProcess:
    import os

    command = [str(COMMAND), *args]
    env = {**os.environ, "HF_ENDPOINT": hub.url}
    env.pop("HF_TOKEN", None)
    return subprocess.run(command, capture_output=True, timeout=120, env=env)


def test_a_hub_id_reads_its_config_json(hub) -> None:
    result = run_with_hub(hub, "model", "Qwen/Qwen3-8B", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert b"transformers 5.23.0 runs Qwen3ForCausalLM" in result.stdout
    assert hub.requests == ["/Qwen/Qwen3-8B/resolve/main/config.json"]


def test_a_20_gb_gguf_on_the_hub_costs_a_few_mb(hub) -> None:
    result = run_with_hub(hub, "model", "hf://someone/big-GGUF/model-Q4.gguf", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert b"llama.cpp d32676d774" in result.stdout and b"runs gemma3" in result.stdout
    assert hub.sent <= 4 << 20


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("meta-llama/Llama-3.1-8B", "gated"),
        ("nobody/no-such-model", "does not exist on the Hub"),
        ("hf://someone/cut-GGUF/model-Q4.gguf", "stopped sending"),
    ],
)
def test_the_hub_s_refusals_get_one_sentence(hub, source, says) -> None:
    result = run_with_hub(hub, "model", source)
    assert says in one_sentence(result)

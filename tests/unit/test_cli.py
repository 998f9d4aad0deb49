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
# A published file transformers 5.23.0 raises on (rope_scaling {"type": "su"}): engine-refuses.
PHI3_SU = str(
    Path(__file__).resolve().parents[1] / "fixtures/published_configs/phi-3-mini-128k-instruct.json"
)


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    command = [str(COMMAND)] if COMMAND.exists() else [sys.executable, "-m", "pe_explorer.cli"]
    return subprocess.run([*command, *args], input=stdin, capture_output=True, timeout=120)


def line_is_title(line: str) -> bool:
    """A model's first line: its source, a colon, its name and (architecture)."""
    return line[:1] != " " and "(" in line and ": " in line


def config_file(tmp_path: Path, config: dict, name: str = "config.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(config), encoding="utf-8")
    return str(path)


def test_the_command_is_installed_with_the_package() -> None:
    assert COMMAND.exists()


def test_a_model_prints_its_layer_groups_in_100_columns_and_fails_on_a_warning() -> None:
    result = run("model", "gemma-3-27b-it")
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr  # default-theta is a note
    assert "52 layers  rope     10000" in out and "10 layers  rope     1e+06" in out
    assert "layers as transformers 5.23.0 runs Gemma3ForCausalLM" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert run("model", "gemma-3-27b-it", "--fail-on", "note").returncode == 1
    refused = run("model", PHI3_SU)  # transformers raises on its "su"
    assert refused.returncode == 1 and "warning engine-refuses" in refused.stdout.decode()
    assert run("model", PHI3_SU, "--fail-on", "never").returncode == 0


def test_a_clean_model_exits_0(tmp_path) -> None:
    result = run("model", "llama-3.1-8b")
    assert result.returncode == 0, result.stdout.decode()


def test_every_layer_is_listed_on_request() -> None:
    out = run("model", "gemma-3-27b-it", "--layers").stdout.decode()
    assert sum(line.startswith("layer ") for line in out.splitlines()) == 62


def test_json_holds_the_document_the_page_downloads(tmp_path) -> None:
    result = run("model", "qwen3-8b", "--json", "--fail-on", "never")
    document = json.loads(result.stdout)
    assert document["schema"] == "pe-explorer/model/2" and document["status"] == 0
    (model,) = document["models"]
    assert model["input"] == ["qwen3-8b"] and model["verdicts"] == []
    assert model["positions"]["schema"] == "pe-explorer/model-positions"
    assert model["positions"] == json.loads(json.dumps(read_model("qwen3-8b").to_json()))


@pytest.mark.parametrize("sources", [["qwen3-8b"], ["qwen3-8b", "gemma-3-27b-it"]])
def test_json_has_one_shape_for_one_model_or_several(sources) -> None:
    document = json.loads(run("model", *sources, "--json").stdout)
    assert set(document) == {"schema", "status", "models", "unreadable"}
    assert [m["input"] for m in document["models"]] == [[s] for s in sources]
    assert document["status"] == max(m["status"] for m in document["models"])


def test_json_lists_what_cannot_be_read_beside_what_can(tmp_path) -> None:
    missing = str(tmp_path / "nosuch.json")
    result = run("model", "llama-3.1-8b", missing, "--json")
    document = json.loads(result.stdout)
    assert result.returncode == document["status"] == 2
    assert [m["input"] for m in document["models"]] == [["llama-3.1-8b"]]
    assert document["unreadable"] == [{"input": missing, "sentence": f"there is no file {missing}"}]
    assert result.stderr.decode() == f"pe-explorer: there is no file {missing}\n"


@pytest.mark.parametrize("fmt", ["bf16", "fp16"])
def test_precision_goes_into_the_json_envelope_as_simulate_finds_it(capsys, fmt) -> None:
    from pe_explorer import cli
    from pe_explorer.mistakes.simulate import simulate

    status = cli.main(["model", "llama-3.1-8b", "--precision", fmt, "--json"])
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "pe-explorer/model/2" and status == document["status"] == 0
    (model,) = document["models"]
    reading = read_model("llama-3.1-8b")
    places = ["product", "positions", "cache"]
    assert [(row["layers"], row["place"]) for row in model["precision"]] == [
        (list(range(32)), place) for place in places
    ]
    for row in model["precision"]:
        found = simulate("low_precision", reading, at=reading.max_context, layer=0,
                         precision=fmt, place=row["place"])  # fmt: skip
        assert (row["format"], row["context"], row["label"]) == (fmt, 131072, "full_attention")
        assert row["worst_angle"] == found.worst_angle
        at = list(found.positions).index(row["worst_angle_position"])
        assert abs(found.angle_error[at, row["worst_angle_pair"]]) == found.worst_angle
        if np.isnan(found.worst_score):  # every score overflowed: "overflow" in the text
            assert row["worst_score"] is row["worst_score_distance"] is None
        else:
            assert row["worst_score"] == found.worst_score
            at = list(found.distances).index(row["worst_score_distance"])
            assert abs(found.score_error[at]) == found.worst_score


def test_precision_is_left_out_of_the_json_unless_asked(capsys) -> None:
    from pe_explorer import cli

    cli.main(["model", "llama-3.1-8b", "--json"])
    (model,) = json.loads(capsys.readouterr().out)["models"]
    assert "precision" not in model


def test_precision_of_a_source_that_cannot_be_read_is_one_envelope_and_status_2(
    tmp_path, capsys
) -> None:
    from pe_explorer import cli

    missing = str(tmp_path / "nosuch.json")
    status = cli.main(["model", missing, "--precision", "bf16", "--json"])
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert status == document["status"] == 2 and document["models"] == []
    assert document["unreadable"] == [{"input": missing, "sentence": f"there is no file {missing}"}]
    assert err == f"pe-explorer: there is no file {missing}\n"


def test_the_version_falls_back_to_the_project_s_without_the_package(monkeypatch) -> None:
    import tomllib
    from importlib import metadata

    from pe_explorer import cli

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    pyproject = Path(cli.__file__).resolve().parents[1] / "pyproject.toml"
    assert cli.package_version() == tomllib.loads(pyproject.read_text())["project"]["version"]


def test_the_version_is_the_package_s() -> None:
    from importlib.metadata import version

    result = run("--version")
    assert (
        result.returncode == 0
        and result.stdout.decode() == f"pe-explorer {version('pe-explorer')}\n"
    )


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


@pytest.mark.parametrize("engine", ["llama.cpp", "both"])
def test_an_engine_the_model_does_not_follow_is_a_verdict(engine) -> None:
    result = run("model", "qwen3-8b", "--engine", engine, "--fail-on", "never")
    assert result.returncode == 1 and result.stderr == b""
    out = result.stdout.decode()
    assert out.index("Qwen3 8B") < out.index("findings:") < out.index("\nverdict: ")
    document = json.loads(run("model", "qwen3-8b", "--engine", engine, "--json").stdout)
    assert document["status"] == 1 and "--engine" in document["models"][0]["verdicts"][0]


def test_the_engine_the_model_follows_passes() -> None:
    result = run("model", "qwen3-8b", "--engine", "transformers", "--fail-on", "never")
    assert result.returncode == 0 and "verdict" not in result.stdout.decode()


@pytest.mark.parametrize(
    ("sources", "status"),
    [
        (["llama-3.1-8b", "nosuch.json"], 2),
        (["nosuch.json", "gemma-3-27b-it", "llama-3.1-8b"], 2),
        ([PHI3_SU, "llama-3.1-8b"], 1),
        (["llama-3.1-8b", "qwen3-8b"], 0),
    ],
    ids=["clean-then-unreadable", "unreadable-first", "warning", "clean"],
)
def test_every_source_is_reported_and_the_worst_status_wins(tmp_path, sources, status) -> None:
    result = subprocess.run([str(COMMAND), "model", *sources], capture_output=True, cwd=tmp_path,
                            timeout=120)  # fmt: skip
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == status, err
    titles = [line for line in out.splitlines() if line[:1] in "/abcdefghijklmnopqrstuvwxyz"]
    titles = [title.split(": ")[0] for title in titles if line_is_title(title)]
    assert titles == [s for s in sources if s != "nosuch.json"]
    assert err == ("pe-explorer: there is no file nosuch.json\n" if status == 2 else "")


@pytest.mark.parametrize("flag", ["--json", "--layers"])
def test_a_reader_that_leaves_early_ends_the_run_quietly(flag) -> None:
    """`pe-explorer model … | head`: more than a pipe holds, and the reader closes after 100
    bytes. No traceback: stopped as a Unix tool is by SIGPIPE (141)."""
    command = [str(COMMAND), "model", *["gemma-3-27b-it"] * 40, flag, "--fail-on", "never"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert len(process.stdout.read(100)) == 100
        process.stdout.close()
        err = process.stderr.read()
        process.wait(timeout=120)
    assert err == b"" and process.returncode == 141


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


def test_a_pe_check_prints_its_envelope_as_json(tmp_path) -> None:
    path = tmp_path / "pe.npy"
    np.save(path, positional_encoding(32, 64, base=500.0))
    result = run("check", str(path), "--json")
    document = json.loads(result.stdout)
    assert result.returncode == document["status"] == 1
    assert document["schema"] == "pe-explorer/check/1" and document["unreadable"] == []
    (check,) = document["checks"]
    assert check["input"] == str(path) and check["matches"] is False
    assert check["kind"] == "base" and check["fitted_base"] == pytest.approx(500.0)


@pytest.mark.parametrize("command", ["check", "ropecheck"])
def test_a_check_s_unreadable_input_is_in_its_envelope_too(tmp_path, command) -> None:
    missing = str(tmp_path / "missing.npy")
    extra = ["--model", "llama-3.1-8b"] if command == "ropecheck" else []
    result = run(command, missing, *extra, "--json")
    document = json.loads(result.stdout)
    assert document == {"schema": f"pe-explorer/{command}/1", "status": 2, "checks": [],
                        "unreadable": [{"input": missing,
                                        "sentence": f"there is no file {missing}"}]}  # fmt: skip
    assert "no file" in one_sentence(result)


def test_an_inv_freq_check_prints_its_envelope_as_json(tmp_path) -> None:
    layer = read_model("llama-3.1-8b").layers[0]
    path = tmp_path / "inv_freq.npy"
    np.save(path, (layer.inv_freq * 8).astype(np.float32))
    result = run("ropecheck", str(path), "--model", "llama-3.1-8b", "--json")
    document = json.loads(result.stdout)
    assert result.returncode == document["status"] == 1
    (check,) = document["checks"]
    assert document["schema"] == "pe-explorer/ropecheck/1" and check["ok"] is False
    assert check["model"] == "llama-3.1-8b" and len(check["expected"]) == len(layer.inv_freq)


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


@pytest.fixture
def no_network(monkeypatch, tmp_path) -> list[str]:
    """The Hub transport replaced: each URL asked for is listed and refused; a socket connection
    fails the test. Run in tmp_path, which holds a folder models/ and a file here/config.json."""
    import socket

    from pe_explorer import hub

    asked: list[str] = []

    def fetch(url: str, *args) -> None:
        asked.append(url)
        raise hub.HubError("the network was asked")

    monkeypatch.setattr(hub, "fetch", fetch)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: pytest.fail("a socket"))
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.invalid")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    config_file(tmp_path / "models", PRESETS["qwen3-8b"]["config"])
    return asked


@pytest.mark.parametrize(
    ("source", "read_as"),
    [
        ("models/llama/config.json", "no file"),  # a path, mistyped: never a Hub id with a path
        ("llama/config.jsn", "no file"),  # two parts, but the name has a file extension
        ("llama/config.json", "no file"),
        ("x/gpt2.xl", "no file"),  # .xl reads as an extension: hf://x/gpt2.xl for the Hub
        ("owner/name/model.gguf", "no file"),  # three parts: the Hub needs hf://
        ("/owner/name", "no file"),
        ("./owner/name", "no file"),
        ("models/llama", "no file"),  # owner is a folder here
        ("models", "folder"),
        ("models/config.json", "clean"),  # a file here, though it could be a Hub id
        ("llama-3.1-8b", "clean"),  # a preset
        ("Qwen/Qwen3-0.6B", "https://hub.invalid/Qwen/Qwen3-0.6B/resolve/main/config.json"),
        ("meta-llama/Llama-3.1-8B@v1.0",
         "https://hub.invalid/meta-llama/Llama-3.1-8B/resolve/v1.0/config.json"),
        ("hf://llama/config.jsn", "https://hub.invalid/llama/config.jsn/resolve/main/config.json"),
        ("hf://o/n/sub/model.gguf", "https://hub.invalid/o/n/resolve/main/sub/model.gguf"),
    ],
)  # fmt: skip
def test_a_path_never_leaves_the_machine_and_a_hub_id_does(no_network, capsys, source, read_as):
    from pe_explorer import cli

    status = cli.main(["model", source, "--fail-on", "never"])
    err = capsys.readouterr().err
    if read_as.startswith("https://"):
        assert (status, no_network) == (2, [read_as]) and "the network was asked" in err
    elif read_as == "clean":
        assert (status, no_network, err) == (0, [], "")
    else:
        assert (status, no_network) == (2, []) and read_as in err


# The Hub, answered from a fixture server on localhost ($HF_ENDPOINT): no test reaches the network.
@pytest.fixture
def hub(tmp_path):
    from hub_fixture import HubFixture

    config = Path(config_file(tmp_path, PRESETS["qwen3-8b"]["config"]))
    big = Path(gguf_file(tmp_path, "gemma3", size=20 * 10**9))  # 20 GB, sparse
    files = {
        "Qwen/Qwen3-8B/config.json": config,
        "someone/big-GGUF/model-Q4.gguf": big,
        "someone/cut-GGUF/model-Q4.gguf": big,
        "someone/cdn-GGUF/model-Q4.gguf": big,
    }
    with HubFixture(files, gated={"meta-llama/Llama-3.1-8B"},
                    cut={"someone/cut-GGUF/model-Q4.gguf"},
                    redirected={"someone/cdn-GGUF/model-Q4.gguf"}) as server:  # fmt: skip
        yield server


def run_with_hub(hub, *args: str, token: str = "") -> subprocess.CompletedProcess:
    import os

    command = [str(COMMAND), *args]
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": token}
    if not token:
        env.pop("HF_TOKEN")
    return subprocess.run(command, capture_output=True, timeout=120, env=env)


def test_a_gguf_the_hub_redirects_to_its_cdn_is_read_without_the_token_there(hub) -> None:
    source = "hf://someone/cdn-GGUF/model-Q4.gguf"
    result = run_with_hub(hub, "model", source, "--fail-on", "never", token="hf_secret")
    assert result.returncode == 0, result.stderr
    assert len(hub.cdn_requests) == len(hub.requests) >= 1  # each range: the Hub, then its CDN
    assert all(h.get("Range", "").startswith("bytes=") for h in hub.cdn_headers)
    assert {h.get("Authorization") for h in hub.headers} == {"Bearer hf_secret"}
    assert not any("Authorization" in h for h in hub.cdn_headers)


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

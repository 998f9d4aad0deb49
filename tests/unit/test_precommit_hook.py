"""The pre-commit hook (.pre-commit-hooks.yaml), as a model repository uses it: pre-commit runs it
on a temporary git repository, its environment built from this checkout (try-repo)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pe_explorer.model.presets import PRESETS

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
BAD = {  # a misspelt rope type (transformers raises on it), with the old key and no rope_theta
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "max_position_embeddings": 131072,
    "rope_scaling": {"type": "yarm", "factor": 4.0},
}


@pytest.fixture(scope="module")
def model_repository(tmp_path_factory) -> Path:
    if not PRE_COMMIT.exists() or shutil.which("git") is None:
        pytest.fail("pre-commit and git are test dependencies (./build.sh setup installs them)")
    repo = tmp_path_factory.mktemp("model-repo")
    (repo / "bad").mkdir()
    (repo / "bad" / "config.json").write_text(json.dumps(BAD), encoding="utf-8")
    (repo / "good").mkdir()
    good = PRESETS["llama-3.1-8b"]["config"]
    (repo / "good" / "config.json").write_text(json.dumps(good), encoding="utf-8")
    (repo / "broken").mkdir()
    (repo / "broken" / "config.json").write_text("{not json", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    return repo


def hook(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess:
    # No bytecode for the hook's own environment: pip compiling Panel and Bokeh took most of it.
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_NO_COMPILE": "1",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}  # fmt: skip
    command = [str(PRE_COMMIT), "try-repo", str(ROOT), "pe-explorer-model", "--files", *files]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """pre-commit's cache: the hook's environment, built once for the module."""
    return tmp_path_factory.mktemp("pre-commit-home")


def test_the_hook_fails_a_bad_config_and_passes_a_good_one(model_repository, home) -> None:
    bad = hook(model_repository, home, "bad/config.json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "warning engine-refuses" in bad.stdout and "note    old-type-key" in bad.stdout
    good = hook(model_repository, home, "good/config.json")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def test_the_hook_reports_every_file_when_one_cannot_be_read(model_repository, home) -> None:
    files = ("broken/config.json", "bad/config.json", "good/config.json")
    result = hook(model_repository, home, *files)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "- exit code: 2" in result.stdout and "Traceback" not in result.stdout
    assert "pe-explorer: broken/config.json: " in result.stdout
    assert "bad/config.json: " in result.stdout and "good/config.json: " in result.stdout

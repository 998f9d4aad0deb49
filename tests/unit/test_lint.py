"""The linters find nothing: ruff on the Python, Biome on the JavaScript (the files biome.json
names), as `./build.sh lint` runs them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pyodide_support import unavailable

REPO_ROOT = Path(__file__).resolve().parents[2]
# Installed by ./build.sh setup, at the version biome.json's $schema names.
BIOME = REPO_ROOT / ".cache" / "npm" / "node_modules" / ".bin" / "biome"
SCHEMA_VERSION = re.compile(r"https://biomejs\.dev/schemas/([0-9.]+)/schema\.json")


def findings(command: list[str]) -> str:
    """What the linter reported, or '' when it found nothing."""
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    return "" if result.returncode == 0 else result.stdout + result.stderr


@pytest.mark.parametrize("check", [["check"], ["format", "--check"]])
def test_ruff_finds_nothing(check):
    assert findings([sys.executable, "-m", "ruff", *check, "."]) == ""


def test_biome_finds_nothing():
    schema = json.loads((REPO_ROOT / "biome.json").read_text(encoding="utf-8"))["$schema"]
    pinned = SCHEMA_VERSION.fullmatch(schema).group(1)
    if not BIOME.is_file():
        unavailable(f"Biome is not in {BIOME.parent}: run ./build.sh setup (npm install)")
    version = subprocess.run([BIOME, "--version"], capture_output=True, text=True).stdout
    if pinned not in version.split():
        unavailable(f"{version.strip()} in {BIOME.parent}, not {pinned}: run ./build.sh setup")
    assert findings([BIOME, "ci", "--error-on-warnings", "--colors=off", "."]) == ""

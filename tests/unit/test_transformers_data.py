"""components/model/transformers_data.py is what scripts/transformers_tables.py generates from the
pinned transformers today: a stale table fails here, and the fix is to run the script."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest
from pe_explorer.model import transformers_data

pytest.importorskip("transformers")

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_table_is_from_the_pinned_version() -> None:
    pin = re.search(r'"transformers==([0-9.]+)"', PYPROJECT.read_text(encoding="utf-8")).group(1)
    assert transformers_data.VERSION == pin == importlib.metadata.version("transformers")


def test_the_table_is_not_stale() -> None:
    from scripts.transformers_tables import OUT, generate

    assert OUT.read_text(encoding="utf-8") == generate(), (
        "run: python -m scripts.transformers_tables"
    )


def test_the_page_does_not_load_the_table_at_start_up() -> None:
    """The reader imports it when a model is first read (engines.tables)."""
    import subprocess
    import sys

    code = (
        "import sys, pe_explorer.state, pe_explorer.model.presets;"
        "print('pe_explorer.model.transformers_data' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

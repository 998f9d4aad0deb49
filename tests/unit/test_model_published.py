"""Published config.json files, as published (tests/fixtures/published_configs, each with its Hub
path and the stored copy it came from in INDEX.json), read by read_model and compared layer by
layer with transformers itself, as test_model_oracle.py compares the default configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pe_explorer.model import transformers_data
from pe_explorer.model.reader import read_model

pytest.importorskip("transformers")
test_model_oracle = pytest.importorskip("test_model_oracle")

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "published_configs"
INDEX = json.loads((FOLDER / "INDEX.json").read_text(encoding="utf-8"))


def published(name: str) -> dict:
    return json.loads((FOLDER / name).read_text(encoding="utf-8"))


def text_type(config: dict) -> str:
    outer = transformers_data.COMPOSITES.get(config.get("model_type", ""))
    return outer["model_type"] if outer else config.get("model_type", "")


KNOWN = sorted(n for n in INDEX if text_type(published(n)) in transformers_data.MODEL_TYPES)
REMOTE_CODE = sorted(
    n for n in INDEX if published(n).get("model_type") not in transformers_data.KNOWN
)


def test_every_fixture_names_its_hub_file_and_copy() -> None:
    assert len(INDEX) >= 25
    for name, entry in INDEX.items():
        assert (FOLDER / name).is_file()
        assert entry["hub"].endswith("config.json") and "@" in entry["copied_from"]


@pytest.mark.parametrize("name", KNOWN)
def test_a_published_config_agrees_with_transformers(name: str) -> None:
    assert test_model_oracle.compare_config(published(name)) == []


@pytest.mark.parametrize("name", REMOTE_CODE)
def test_a_remote_code_model_is_read_from_the_generic_keys_and_says_so(name: str) -> None:
    model = read_model(published(name))
    assert "unknown-model-type" in {f.code for f in model.findings}
    assert model.engine == ""

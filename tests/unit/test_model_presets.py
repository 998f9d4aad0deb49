"""The model presets (components/model/presets.py): plain data, each with its source, and between
them every family of position handling the model view shows."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
MODULE = REPO_ROOT / "components" / "model" / "presets.py"
DOC = REPO_ROOT / "docs" / "model-presets.md"

ENTRY_KEYS = {"label", "source", "format", "config", "defaults", "defaults_source", "base"}
SLUG = re.compile(r"[a-z0-9][a-z0-9.-]*")
# A repository (owner/name) followed by a path in it, or by a pull request.
REPOSITORY_PATH = re.compile(r"\b[\w.-]+/[\w.-]+ (?:[\w./-]+\.(?:py|json|md|yml)\b|pull/\d+)")
PINNED = re.compile(r"commit [0-9a-f]{40}\b|pull/\d+")


def load_presets() -> dict[str, dict]:
    """The module loaded from its file alone: no package, nothing but the standard library."""
    spec = importlib.util.spec_from_file_location("model_presets_under_test", MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PRESETS


PRESETS = load_presets()


def dicts(value):
    """Every dict inside a value, the value itself included."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from dicts(item)
    elif isinstance(value, list):
        for item in value:
            yield from dicts(item)


def rope_blocks(config: dict):
    """The rope_scaling and rope_parameters blocks of a config, at any depth."""
    for d in dicts(config):
        for key in ("rope_scaling", "rope_parameters"):
            if isinstance(d.get(key), dict):
                yield d[key]


def rope_kind(block: dict) -> str | None:
    return block.get("rope_type", block.get("type"))


def test_there_are_enough_presets():
    assert len(PRESETS) >= 28


def test_the_module_imports_nothing():
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


@pytest.mark.parametrize("slug", PRESETS)
def test_a_preset_has_its_label_source_and_config(slug):
    entry = PRESETS[slug]
    assert SLUG.fullmatch(slug), slug
    assert set(entry) <= ENTRY_KEYS, set(entry) - ENTRY_KEYS
    assert isinstance(entry["label"], str) and entry["label"]
    assert isinstance(entry["format"], str) and entry["format"]
    assert isinstance(entry["config"], dict) and entry["config"]
    assert ("defaults" in entry) == ("defaults_source" in entry)
    if "base" in entry:
        assert entry["base"] in PRESETS and entry["format"] == "config.json fragment"


@pytest.mark.parametrize("slug", PRESETS)
def test_a_source_names_a_repository_path_at_a_version(slug):
    entry = PRESETS[slug]
    for text in (entry["source"], entry.get("defaults_source", entry["source"])):
        assert REPOSITORY_PATH.search(text), text
        assert PINNED.search(text) or "tag v" in text, text


@pytest.mark.parametrize("slug", PRESETS)
def test_a_config_round_trips_through_json(slug):
    entry = PRESETS[slug]
    for part in ("config", "defaults"):
        if part in entry:
            text = json.dumps(entry[part], allow_nan=False)
            assert json.loads(text) == entry[part]


def presets_where(test) -> list[str]:
    return [slug for slug, entry in PRESETS.items() if test(entry["config"])]


def has_rope_kind(kind):
    return lambda config: any(rope_kind(b) == kind for b in rope_blocks(config))


def head_dim(config: dict) -> int:
    return config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]


def longrope_matches_head(config: dict) -> bool:
    for block in rope_blocks(config):
        if rope_kind(block) in ("longrope", "su"):
            half = int(head_dim(config) * config.get("partial_rotary_factor", 1.0)) // 2
            return len(block["long_factor"]) == len(block["short_factor"]) == half
    return False


def partial_rotary(config: dict) -> bool:
    return any(
        0 < d.get(key, 1) < 1
        for d in dicts(config)
        for key in ("partial_rotary_factor", "rotary_pct", "rotary-pct")
    )


def sliding_window(config: dict) -> bool:
    return any(
        isinstance(d.get("sliding_window"), int) and d.get("use_sliding_window", True)
        for d in dicts(config)
    )


def mrope(config: dict) -> bool:
    return any("mrope_section" in block for block in rope_blocks(config))


def alibi(config: dict) -> bool:
    return any(d.get("alibi") is True for d in dicts(config))


def learned(config: dict) -> bool:
    return config.get("model_type") == "gpt2" and "n_positions" in config


def t5_buckets(config: dict) -> bool:
    return "relative_attention_num_buckets" in config


def no_rope_layers(config: dict) -> bool:
    return any("no_rope_layers" in d or "nope_layer_interval" in d for d in dicts(config))


def rope_parameters(config: dict) -> bool:
    return any("rope_parameters" in d for d in dicts(config))


@pytest.mark.parametrize(
    "family",
    [
        has_rope_kind("llama3"),
        has_rope_kind("yarn"),
        longrope_matches_head,
        partial_rotary,
        sliding_window,
        mrope,
        alibi,
        learned,
        t5_buckets,
        no_rope_layers,
        rope_parameters,
    ],
    ids=[
        "llama3",
        "yarn",
        "longrope",
        "partial-rotary",
        "sliding-window",
        "mrope",
        "alibi",
        "learned",
        "t5-buckets",
        "no-rope-layers",
        "rope-parameters",
    ],
)
def test_every_position_family_is_represented(family):
    assert presets_where(family)


def test_the_family_checks_tell_presets_apart():
    """A check that every preset passed would prove nothing."""
    assert presets_where(learned) == ["gpt-2"]
    assert "llama-2-7b" not in presets_where(sliding_window)
    assert "qwen2.5-3b-instruct" not in presets_where(sliding_window)  # use_sliding_window: false
    assert "phi-2" in presets_where(partial_rotary)
    assert "llama-3.1-8b" not in presets_where(partial_rotary)


def test_the_document_lists_every_preset():
    text = DOC.read_text(encoding="utf-8")
    missing = [slug for slug in PRESETS if f"`{slug}`" not in text]
    assert not missing

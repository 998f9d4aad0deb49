"""A read model's sources name what the file holds: each source that cites the file names a key path
the file has as published (a GGUF key its header has), and every other source names the default
and the class or code that gives it, or a rule with its file:line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pe_explorer.model import converter_data
from pe_explorer.model.converter import converted
from pe_explorer.model.frequencies import RULES
from pe_explorer.model.presets import PRESETS
from pe_explorer.model.reader import read_model

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "published_configs"
FIXTURES = sorted(p.name for p in FOLDER.glob("*.json") if p.name != "INDEX.json")
# Sources of the whole file, not of one fact.
ABOUT_THE_FILE = {"config", "defaults", "base", "converter"}
# "<file>: <key path>", the file as the reader names it.
CITED = re.compile(
    r"(config\.json|gpt-neox yml|DeepSeek-V3 inference config|GGUF|converter [\w/.]+:\d+): "
    r"([^\s;,():]+)"
)
# A value no key of the file gives: a default and its class or code, or a rule at file:line.
GIVEN = re.compile(r"default (\d+ )?of (transformers \S+ \w+|\S+/\S+)|\w\.(py|cpp|h|c):\d+")


def published(name: str) -> dict:
    return json.loads((FOLDER / name).read_text(encoding="utf-8"))


def has_path(config: dict, path: str) -> bool:
    for key in path.split("."):
        if not isinstance(config, dict) or key not in config:
            return False
        config = config[key]
    return True


def preset_as_published(name: str) -> dict:
    """A preset's file: its own keys, over its base preset's for a fragment."""
    entry = PRESETS[name]
    base = preset_as_published(entry["base"]) if entry.get("base") else {}
    return {**base, **entry["config"]}


def absent_keys(sources: dict[str, str], has) -> list[str]:
    """Each source that cites a key the file lacks, or names neither a key nor a default or rule."""
    wrong = []
    for fact, source in sources.items():
        cited = CITED.findall(source)
        if fact in ABOUT_THE_FILE or fact == "inv_freq":
            continue
        if not cited and not GIVEN.search(source):
            wrong.append(f"{fact}: {source} (neither a key of the file nor a default or rule)")
        wrong += [f"{fact}: {source}" for _, path in cited if not has(path)]
    return wrong


@pytest.mark.parametrize("name", FIXTURES)
def test_a_published_files_sources_name_its_own_keys(name: str) -> None:
    config = published(name)
    model = read_model(config)
    assert absent_keys(model.sources, lambda path: has_path(config, path)) == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_presets_sources_name_its_own_keys(name: str) -> None:
    config = preset_as_published(name)
    model = read_model(name)
    assert absent_keys(model.sources, lambda path: has_path(config, path)) == []


@pytest.mark.parametrize("name", sorted(converter_data.GGUF))
def test_a_converted_ggufs_sources_name_its_own_keys(name: str) -> None:
    row = converter_data.GGUF[name]
    written = set(row["kv"]) | set(row.get("tensors", {}))
    model = read_model(converted(name))
    assert absent_keys(model.sources, written.__contains__) == []


def test_a_class_default_is_said_as_the_classs() -> None:
    """Gemma 3 27B's text_config gives no max_position_embeddings and no layer_types: the class's
    default, and what its __post_init__ builds."""
    model = read_model("gemma-3-27b-it")
    assert model.sources["max_context"] == "default of transformers 5.23.0 Gemma3TextConfig"
    assert model.sources["layer_types"] == (
        "Gemma3TextConfig.__post_init__ (default of transformers 5.23.0 Gemma3TextConfig)"
    )


def test_rope_scaling_is_said_as_written_and_as_read() -> None:
    """Qwen2.5 with YaRN writes rope_scaling.type; transformers reads it as rope_parameters."""
    model = read_model("qwen2.5-yarn-4x")
    assert model.sources["scaling"] == (
        "config.json: rope_scaling.type (transformers 5.23.0 reads it as rope_parameters.rope_type)"
    )
    assert model.sources["original_context"] == (
        "config.json: rope_scaling.original_max_position_embeddings (transformers 5.23.0 reads "
        "it as rope_parameters.original_max_position_embeddings)"
    )


def test_a_nested_text_config_is_said_with_its_path() -> None:
    model = read_model(published("medgemma-27b-it.json"))
    assert model.sources["rope_theta (local)"] == "config.json: text_config.rope_local_base_freq"


def test_a_partial_rotary_factor_the_file_lacks_is_the_classs() -> None:
    """Phi-3 mini 4k has no partial_rotary_factor: Phi3Config's default 1.0, not the file's."""
    config = published("phi-3-mini-4k-instruct.json")
    assert "partial_rotary_factor" not in json.dumps(config)
    source = read_model(config).sources["rotary_dim"]
    assert "config.json" not in source
    assert "default of transformers 5.23.0 Phi3Config" in source


def test_a_gguf_key_is_said_as_written() -> None:
    model = read_model(converted("gemma-3-27b-it"))
    assert model.sources["rope_theta (sliding)"] == "GGUF: gemma3.rope.freq_base_swa"


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_rule_names_a_line_that_says_it(rule: str) -> None:
    """The line a rule names holds the code it describes, in the pinned transformers."""
    transformers = pytest.importorskip("transformers")
    text = RULES[rule]
    file, first, last = re.search(r"(\w+\.py):(\d+)(?:-(\d+))?", text).groups()
    lines = (Path(transformers.__file__).parent / file).read_text().splitlines()
    said = "\n".join(lines[int(first) - 1 : int(last or first)])
    expected = {
        "whole head": "partial_rotary_factor",
        "head size": "hidden_size // config.num_attention_heads",
        "default theta": "default_theta = 10_000.0",
    }
    assert expected[rule] in said

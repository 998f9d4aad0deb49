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
# Files of a model type transformers knows and builds without a rotary (learned or no positions).
WITHOUT_ROTARY = sorted(
    n
    for n in INDEX
    if n not in KNOWN and published(n).get("model_type") in transformers_data.WITHOUT_ROTARY
)
REMOTE_CODE = sorted(
    n for n in INDEX if published(n).get("model_type") not in transformers_data.KNOWN
)


def test_every_fixture_names_its_hub_file_and_copy() -> None:
    assert len(INDEX) >= 25
    for name, entry in INDEX.items():
        assert (FOLDER / name).is_file()
        assert entry["hub"].endswith("config.json") and "@" in entry["copied_from"]


# Published files transformers 5.23.0 itself refuses to load, with its words: the reader reads them
# as the transformers of their day did, and names the old key that trips the new one.
ENGINE_REFUSES = {
    # rope_scaling {"type": "su"}: standardize_rope_params moves original_max_position_embeddings
    # into rope_parameters only for "longrope", before "su" is renamed to it.
    "phi-3-mini-128k-instruct.json": "original_max_position_embeddings",
}


# Files of a model type the oracle cannot run (test_model_oracle.LEFT_OUT), and files whose
# engine run raises: transformers 5.23.0 builds GLM-4.1V's text config without the file's
# partial_rotary_factor and mrope_section (its rope_scaling has the old "type" key), so its
# rotary meets 64 frequencies with sections summing to 32 and raises.
ENGINE_RAISES = {"glm-4.1v-9b-thinking.json": "split_with_sizes"}
UNRUNNABLE = [n for n in KNOWN if text_type(published(n)) in test_model_oracle.LEFT_OUT] + sorted(
    ENGINE_RAISES
)


@pytest.mark.parametrize("name", sorted(ENGINE_RAISES))
def test_a_file_whose_engine_run_raises_raises_there(name: str) -> None:
    with pytest.raises(RuntimeError, match=ENGINE_RAISES[name]):
        test_model_oracle.compare_config(published(name))


@pytest.mark.parametrize(
    "name", [n for n in KNOWN if n not in ENGINE_REFUSES and n not in UNRUNNABLE]
)
def test_a_published_config_agrees_with_transformers(name: str) -> None:
    assert test_model_oracle.compare_config(published(name)) == []


@pytest.mark.parametrize("name", WITHOUT_ROTARY)
def test_a_file_transformers_builds_without_a_rotary_is_read_without_rope(name: str) -> None:
    """The whole model transformers builds from the file holds no rotary, and no layer rotates."""
    assert test_model_oracle.compare_config(published(name)) == []
    assert all(layer.method != "rope" for layer in read_model(published(name)).layers)


@pytest.mark.parametrize("name", UNRUNNABLE)
def test_a_file_the_oracle_cannot_run_is_read_with_its_engine_named(name: str) -> None:
    model = read_model(published(name))
    assert model.layers and model.engine.startswith("transformers 5.23.0 runs")


@pytest.mark.parametrize("name", sorted(ENGINE_REFUSES))
def test_a_file_transformers_refuses_is_still_read_and_its_old_key_named(name: str) -> None:
    from pe_explorer.model.reader import read_model

    transformers_oracle = pytest.importorskip("transformers_oracle")
    with pytest.raises(KeyError, match=ENGINE_REFUSES[name]):
        transformers_oracle.engine_config(published(name))
    assert "old-type-key" in {f.code for f in read_model(published(name)).findings}


@pytest.mark.parametrize("name", REMOTE_CODE)
def test_a_remote_code_model_is_read_from_the_generic_keys_and_says_so(name: str) -> None:
    model = read_model(published(name))
    assert "unknown-model-type" in {f.code for f in model.findings}
    assert model.engine == ""


def preset_configs() -> list[str]:
    """The model view's presets that are config.json files of a model type transformers runs."""
    from pe_explorer.model.presets import PRESETS

    return sorted(
        name
        for name, entry in PRESETS.items()
        if entry.get("format", "config.json") == "config.json"
        and not entry.get("base")
        and text_type(entry["config"]) in transformers_data.MODEL_TYPES
    )


@pytest.mark.parametrize("name", preset_configs())
def test_a_preset_agrees_with_transformers(name: str) -> None:
    from pe_explorer.model.presets import PRESETS

    assert test_model_oracle.compare_config(PRESETS[name]["config"]) == []


def test_gemma_3_27b_as_published_has_52_local_and_10_global_layers() -> None:
    """The issue's case: the file leaves θ, the local base and the pattern to the class."""
    model = read_model("gemma-3-27b-it")
    local = [layer for layer in model.layers if layer.kind == "sliding_attention"]
    glob = [layer for layer in model.layers if layer.kind == "full_attention"]
    assert (len(local), len(glob)) == (52, 10)
    assert {(x.theta, x.scaling["type"], x.window) for x in local} == {(1e4, "default", 1024)}
    assert {(x.theta, x.scaling["type"], x.scaling["factor"]) for x in glob} == {
        (1e6, "linear", 8.0)
    }
    assert model.engine.startswith("transformers 5.23.0 runs Gemma3ForCausalLM")


def test_qwen3_asr_as_published_is_read_as_the_text_decoder_transformers_builds() -> None:
    """Its file nests the decoder in thinker_config, which Qwen3ASRConfig never reads: transformers
    builds its default text config (28 layers of width 2048), and the reader says so."""
    model = read_model(published("qwen3-asr-0.6b.json"))
    assert len(model.layers) == 28 and model.engine.endswith("modeling_qwen3.py")
    assert "engine-ignores-key" in {f.code for f in model.findings}


def test_a_remote_code_composite_is_read_from_its_decoders_sub_config() -> None:
    """InternVL2-2B keeps its InternLM2 decoder in llm_config: 24 layers at θ 1e6, dynamic ×2."""
    model = read_model(published("internvl2-2b.json"))
    assert len(model.layers) == 24
    assert {(x.theta, x.scaling["type"]) for x in model.layers} == {(1e6, "dynamic")}

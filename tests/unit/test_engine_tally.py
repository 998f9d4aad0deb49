"""The README's count of what agrees with each engine, taken from the tests that ask the engines:
the oracle's model types and published files (transformers 5.23.0), llama.cpp's architectures and
in-graph rules at the pin, and the presets read both ways. A count that drifts fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pe_explorer import read_model
from pe_explorer.model import converter_data, llamacpp_data, transformers_data

test_model_oracle = pytest.importorskip("test_model_oracle")
test_model_published = pytest.importorskip("test_model_published")

README = Path(__file__).resolve().parents[2] / "README.md"


def _names(files: list[str]) -> str:
    return ", ".join(f"`{name.removesuffix('.json')}`" for name in files)


def transformers_tally() -> dict:
    oracle, published = test_model_oracle, test_model_published
    wrong = {model_type for model_type, _form in oracle.KNOWN_WRONG}
    runs = [n for n in published.KNOWN if n not in published.ENGINE_REFUSES]
    return {
        "types": len(oracle.COVERED) - len(wrong),
        "left_out": len(oracle.LEFT_OUT),
        "layouts": len(oracle.LAYOUTS) - len(oracle.KNOWN_WRONG_LAYOUTS),
        "files": len(published.KNOWN),
        "agree": len([n for n in runs if n not in published.UNRUNNABLE]),
        "not": "; ".join(
            f"{verb} {_names(sorted(files))}"
            for verb, files in (
                ("it refuses", published.ENGINE_REFUSES),
                ("raises on", published.ENGINE_RAISES),
            )
            if files
        ),
    }


def both_ways_tally() -> dict:
    differ = sorted(
        name
        for name in converter_data.GGUF
        if any(f.code == "engines-differ" for f in read_model(name, engine="both").findings)
    )
    return {
        "converted": len(converter_data.GGUF),
        "same": len(converter_data.GGUF) - len(differ),
        "differ": _names(differ),
    }


def expected_sentence() -> str:
    t, b = transformers_tally(), both_ways_tally()
    graphs = len(llamacpp_data.GRAPH_ROPE_ARGS)
    return (
        f"transformers 5.23.0 agrees on all {t['types']} of its rotary text-decoder model types "
        f"({t['left_out']} more rotary types are not text decoders), on {t['layouts']} published "
        f"layouts, and on {t['agree']} of the {t['files']} published config.json fixtures of "
        f"those types ({t['not']}); llama.cpp "
        f"{llamacpp_data.COMMIT[:10]} on the rope type of all {len(llamacpp_data.ROPE_TYPES)} "
        f"architectures, with the rules in the graphs of {graphs}; both "
        f"ways, {b['same']} of the {b['converted']} presets its converter converts agree, and "
        f"these run differently: {b['differ']}"
    )


def test_the_readme_states_what_agrees_with_each_engine() -> None:
    assert transformers_data.VERSION == "5.23.0"
    readme = " ".join(README.read_text(encoding="utf-8").split())
    assert expected_sentence() in readme, expected_sentence()

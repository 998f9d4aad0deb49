"""Each finding code's one severity, and the rule behind it: a warning is an engine in scope
(transformers 5.23.0, llama.cpp at its pin) running a file otherwise than it states, the two running
it otherwise than each other, or one refusing it, with the engine, its version and the line named.
Every official file passes the pre-commit hook at the default --fail-on but those an engine runs
otherwise (ENGINE_RUNS_OTHERWISE), through the real command."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from pe_explorer import cli
from pe_explorer.model import engines
from pe_explorer.model.presets import PRESETS
from pe_explorer.model.reader import read_model
from pe_explorer.model.types import SEVERITY

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "fixtures" / "published_configs"
MIRROR = Path("/work/.mirror/unslothai+llama.cpp/repo")
LINE = re.compile(r"\w+\.(py|cpp|h):\d+")
ENGINES = ("transformers 5.23.0", "llama.cpp d32676d774")

# The official files an engine in scope runs otherwise than they state, or refuses: each exits 1 at
# the default --fail-on, with the code and the engine's line that does it.
ENGINE_RUNS_OTHERWISE = {
    # rope_scaling {"type": "su"} beside a top-level original context: standardize_rope_params
    # moves it in only for the new names, Phi3Config renames "su" after, and LongRoPE's validation
    # raises KeyError (modeling_rope_utils.py:836-843, configuration_phi3.py:103, :1153). The
    # preset of the same name is Microsoft's later file, `longrope`, which transformers runs.
    "phi-3-mini-128k-instruct.json": ("engine-refuses", "modeling_rope_utils.py:1153"),
    # No text_config: Glm4vTextConfig is built from its defaults (configuration_utils.py:262-263),
    # 64 frequencies split by the default sections [8, 12, 12]: the rotary raises (:485).
    "glm-4.1v-9b-thinking.json": ("engine-refuses", "modeling_glm4v.py:485"),
    # Its decoder nested in thinker_config.text_config, which Qwen3ASRConfig never reads: the class
    # builds its default text decoder (configuration_utils.py:262-263), not the file's.
    "qwen3-asr-0.6b.json": ("engine-ignores-key", "configuration_utils.py:262-263"),
}


def official() -> list[str]:
    """Every published config.json fixture and every config-format preset (fragments too)."""
    files = sorted(p.name for p in FOLDER.glob("*.json") if p.name != "INDEX.json")
    return files + sorted(PRESETS)


def source(name: str) -> str:
    return str(FOLDER / name) if name.endswith(".json") else name


def hook(name: str) -> tuple[int, str]:
    """The command the pre-commit hook runs, at its default --fail-on, and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["model", source(name)])
    return status, out.getvalue()


@pytest.mark.parametrize("name", official())
def test_an_official_file_passes_the_hook_unless_an_engine_runs_it_otherwise(name: str) -> None:
    status, out = hook(name)
    if name in ENGINE_RUNS_OTHERWISE:
        code, line = ENGINE_RUNS_OTHERWISE[name]
        assert status == 1 and f"warning {code}" in out, out
        assert line in " ".join(out.split()), out
    else:
        assert status == 0, out


@pytest.mark.parametrize("name", official())
def test_every_warning_names_its_engine_version_and_line(name: str) -> None:
    model = read_model(source(name))
    for finding in model.findings:
        if finding.severity == "warning":
            text = f"{finding.sentence} {finding.evidence}"
            assert LINE.search(text) and any(e in text for e in ENGINES), finding


def test_the_hook_list_is_of_official_files() -> None:
    assert set(ENGINE_RUNS_OTHERWISE) <= set(official())


def test_every_code_the_reader_writes_has_one_severity() -> None:
    text = "".join(p.read_text() for p in (ROOT / "components" / "model").glob("*.py"))
    written = set(re.findall(r'(?:find|Finding|_add)\(\s*(?:model,\s*)?"([a-z0-9-]+)"', text))
    assert written and written <= set(SEVERITY)
    assert set(SEVERITY.values()) == {"warning", "note"}


def test_the_findings_doc_states_each_codes_severity() -> None:
    doc = (ROOT / "docs" / "model-findings.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## ([a-z0-9-]+)\n(.*?)(?=^## |\Z)", doc, re.M | re.S))
    for code, severity in SEVERITY.items():
        section = sections.get(code) or next(
            (text for text in sections.values() if f"`{code}`" in text), ""
        )
        assert f"**Severity:** {severity}" in section, code


@pytest.mark.parametrize(
    ("config", "code"),
    [
        ({"model_type": "llama", "rope_scaling": {"type": "linear", "factor": 2.0}},
         "old-type-key"),
        ({"model_type": "llama"}, "default-theta"),
        ({"model_type": "llama", "rope_scaling": {"rope_type": "yarn", "factor": 4.0}},
         "missing-original-context"),
    ],
)  # fmt: skip
def test_what_both_engines_run_as_stated_is_a_note_naming_the_line(config, code) -> None:
    (finding,) = [f for f in read_model(config).findings if f.code == code]
    assert finding.severity == "note" and "transformers 5.23.0" in finding.sentence
    assert LINE.search(finding.sentence) or code == "default-theta"  # a class default: no line


@pytest.mark.parametrize("name", sorted(engines.CONVERTER_LINES))
def test_a_cited_llama_cpp_line_holds_its_code(name: str) -> None:
    if not (MIRROR / "HEAD").exists() and not (MIRROR / "objects").exists():
        pytest.skip("no llama.cpp mirror")
    path, lines, _, code = engines.CONVERTER_LINES[name]
    text = subprocess.run(["git", "-C", str(MIRROR), "show", f"{engines.CONVERTER_COMMIT}:{path}"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    held = " ".join(text.splitlines()[lines[0] - 1 : lines[-1]][:2])
    assert " ".join(code.split()) in " ".join(held.split())


def hook_sentence() -> str:
    names = sorted({n.removesuffix(".json") for n in ENGINE_RUNS_OTHERWISE})
    failing = sum(1 for n in official() if n in ENGINE_RUNS_OTHERWISE)
    return (
        f"Of the {len(official())} official files (published configs and presets), "
        f"{len(official()) - failing} pass the hook; an engine runs these otherwise than they "
        f"state: {', '.join(f'`{n}`' for n in names)}"
    )


def test_the_readme_states_how_many_official_files_pass_the_hook() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert hook_sentence() in readme, hook_sentence()


def test_json_status_follows_the_codes_severity() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["model", "gemma-3-27b-it", "--json"])
    document = json.loads(out.getvalue())
    assert document["status"] == 0

"""components/fixes/bokeh_signatures.py: the site's worker creates Bokeh's models without their
IDE signatures, and nothing else about them changes. Each case runs in a fresh interpreter, as
the worker does (the patch must come before `bokeh.models` is imported)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# The explorer's page built and serialised as the worker builds it, after the patch or without it.
BUILD = """
import inspect, json, sys
if sys.argv[1] == "skip":
    from pe_explorer.fixes import bokeh_signatures
    bokeh_signatures.skip()
import panel as pn
from bokeh.document import Document
from bokeh.models import Slider
from pe_explorer.ui.page import ExplorerPage
pn.extension("plotly", sizing_mode="stretch_width")
doc = Document()
root = pn.panel(ExplorerPage()).get_root(doc)
doc.add_root(root)
models = sorted(type(m).__qualname__ for m in doc.models)
print(json.dumps({
    "signature": str(inspect.signature(Slider.__init__)),
    "slider": Slider(start=0, end=4, value=3, title="pos").value,
    "models": models,
    "properties": sum(len(m.properties_with_values(include_defaults=True)) for m in doc.models),
}))
"""


def build(mode: str) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", BUILD, mode], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_the_page_has_the_same_models_and_properties_without_the_signatures():
    kept, skipped = build("keep"), build("skip")
    assert "start" in kept["signature"] and "start" not in skipped["signature"]
    assert kept["slider"] == skipped["slider"] == 3
    assert skipped["models"] == kept["models"] and len(kept["models"]) > 100
    assert skipped["properties"] == kept["properties"]


def test_too_late_once_bokeh_models_is_imported():
    code = (
        "import bokeh.models\n"
        "from pe_explorer.fixes import bokeh_signatures\n"
        "try:\n    bokeh_signatures.skip()\nexcept RuntimeError as e:\n    print(e)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert "already imported" in run.stdout, run.stderr

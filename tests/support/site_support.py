"""What the built site's tests read: its lock file, its worker and the worker's configuration;
and a script that uses the whole app, for the tests of what the build leaves out."""

from __future__ import annotations

import json
import re
from pathlib import Path


def worker_script(site: Path) -> Path:
    """The script index.html starts as its Web Worker."""
    match = re.search(r'new Worker\("([^"]+)"\)', (site / "index.html").read_text(encoding="utf-8"))
    assert match, "index.html starts no Web Worker"
    return site / match[1]


def site_lock(site: Path) -> dict:
    """The Pyodide lock file the worker loads its packages with (scripts/site_lock.py)."""
    return json.loads((site / "runtime" / "pe-lock.json").read_text(encoding="utf-8"))


def worker_config(site: Path) -> dict:
    """What the build tells the site's worker (worker-config.js, scripts/build_site.py)."""
    text = (site / "worker-config.js").read_text(encoding="utf-8")
    (config,) = re.findall(r"^self\.PE_WORKER_CONFIG = (\{.*\});$", text, re.M)
    return json.loads(config)


# Builds the page, shows every view and panel, and moves every control the views follow.
EVERY_VIEW_AND_CONTROL = """
import sys
import panel as pn
from bokeh.document import Document
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.views import VIEW_NAMES

pn.extension("plotly")
page = ExplorerPage()
pn.panel(page).get_root(Document())
for name in VIEW_NAMES:
    page.probe(name).on_screen = True
page._share_toggle.value = page._export_toggle.value = True
page.state.param.update(d_model=64, pos=3, offset=5, n_positions=300, text="a b a")
page.state.param.update(layout="concatenated", theme="dark", base=500.0, pairs=[0, 2])
print(sorted(name for name in sys.modules if name.split(".")[0] == "plotly"))
"""

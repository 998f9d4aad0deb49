"""Write the site's shared worker, app-shared.js, and each page's relay to it, app-relay.js:
one Python runtime for every frame and tab of the site (issue 21).

Called by scripts/runtime.py once the site is self-contained. The shared worker is
scripts/shared-worker.js with three parts filled in: the line that loads pyodide.js and the
loader of the site's worker (both as scripts/runtime.py wrote them), and the app's code as
Panel's worker runs it (its document for each frame: components/worker.py). The page
says where it is with a meta tag; static/startup.js connects to it where the browser has
shared workers, and otherwise starts Panel's own worker, app.js.
"""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATE = Path(__file__).with_name("shared-worker.js")
RELAY = Path(__file__).with_name("relay.js")
NAME = "app-shared.js"
# Beside app.js: the relay loads it if the shared worker cannot start.
RELAY_NAME = "app-relay.js"
META = f'<meta name="pe-shared-runtime" content="{NAME}" data-relay="{RELAY_NAME}">\n'
# Panel's worker (panel/_templates/pyodide_worker.js): the app's code is the first
# runPythonAsync after the 'Executing code' status, a JS template literal.
EXECUTING = "self.postMessage({type: 'status', msg: 'Executing code'})"
APP_CODE = re.compile(r"await self\.pyodide\.runPythonAsync\((`(?:\\.|[^`\\])*`)\)")
IMPORT_PYODIDE = re.compile(r'^importScripts\("[^"]+"\);$', re.MULTILINE)
SEND_PATCH = '  self.pyodide.globals.set("sendPatch", sendPatch);\n'


def write(site: Path, loader: str) -> Path:
    """Write SITE/app-shared.js from SITE/app.js and `loader`, and name it in SITE/index.html."""
    worker = (site / "app.js").read_text(encoding="utf-8")
    imports = IMPORT_PYODIDE.findall(worker)
    start = worker.find(EXECUTING)
    code = APP_CODE.search(worker, start) if start >= 0 else None
    if len(imports) != 1 or code is None or SEND_PATCH not in loader:
        raise RuntimeError(f"{site / 'app.js'}: not the worker this build writes; no shared worker")
    # Each frame has its own sendPatch; statuses go to every frame.
    load = loader.replace(SEND_PATCH, "").replace("self.postMessage(", "broadcast(")
    source = TEMPLATE.read_text(encoding="utf-8")
    for key, value in (
        ("__IMPORT_PYODIDE__", imports[0]),
        ("__APP_CODE__", code[1]),
        ("__LOAD_RUNTIME__", load.rstrip("\n")),
    ):
        if source.count(key) != 1:
            raise RuntimeError(f"{TEMPLATE}: expected one {key}")
        source = source.replace(key, value)
    target = site / NAME
    target.write_text(source, encoding="utf-8")
    (site / RELAY_NAME).write_text(RELAY.read_text(encoding="utf-8"), encoding="utf-8")
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    startup = '<script src="static/startup.js"></script>'
    if html.count(startup) != 1:
        raise RuntimeError(f"{page}: expected one {startup}")
    page.write_text(html.replace(startup, META + startup), encoding="utf-8")
    return target

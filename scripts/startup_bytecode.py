"""Bytecode for what the site's start-up imports (scripts/compile_wheels.py), where node runs.

Only those modules: the rest (views built later, the share and export panels, most of Bokeh) is
compiled in the browser when first used, and costs no download until then. The compiled ones
go as bytecode alone: tracebacks through them name the file and line without quoting it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .compile_wheels import compile_site, compile_stdlib

# Builds the page as the worker does, and prints the modules that took: as wheel members, and as
# paths in the standard library.
STARTUP_IMPORTS = """
import json, sys, sysconfig
import panel as pn
from bokeh.document import Document
pn.extension("plotly", sizing_mode="stretch_width")
from pe_explorer.ui.page import ExplorerPage
pn.panel(ExplorerPage()).get_root(Document())
files = [getattr(module, "__file__", None) or "" for module in list(sys.modules.values())]
def under(*roots):
    return sorted(f[len(root) + 1:] for f in files for root in roots if f.startswith(root + "/"))
paths = sysconfig.get_paths()
wheels, stdlib = under(paths["purelib"], sys.argv[1]), under(paths["stdlib"])
print(json.dumps({"wheels": wheels, "stdlib": stdlib}))
"""


def startup_modules() -> tuple[frozenset[str], frozenset[str]]:
    """The modules the app imports to build its page (CPython's list; Pyodide's is alike): as
    wheel members ("panel/io/state.py"), and as paths in the stdlib ("json/decoder.py")."""
    repo = Path(__file__).resolve().parents[1]
    run = subprocess.run(
        [sys.executable, "-c", STARTUP_IMPORTS, str(repo)],
        cwd=repo, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    found = json.loads(run.stdout.strip().splitlines()[-1])
    # The project's modules, found in its source folder, are the wheel's package pe_explorer.
    found["wheels"] = [re.sub(r"^components/", "pe_explorer/", path) for path in found["wheels"]]
    stdlib = (path for path in found["stdlib"] if path.endswith(".py"))
    return frozenset(found["wheels"]), frozenset(p for p in stdlib if "-packages/" not in p)


def compile_startup(site: Path, sourceless: bool = True, strip: bool = True) -> str:
    """Precompile the start-up's modules of the site's wheels and stdlib, as bytecode alone (or
    beside the source), leaving out what never runs (or not); says what it did."""
    if shutil.which("node") is None:
        return "no node: the wheels stay uncompiled (the browser compiles them at each start)"
    wheels, stdlib = startup_modules()
    # Bytecode instead of the source: beside it, the wheels would send 2.2 MB more.
    result = compile_site(site, wheels, keep_sources=not sourceless, strip=strip)
    modules = sum(wheel["pyc"] for wheel in result["wheels"].values())
    # Bytecode instead of the source for those: beside it, the zip would grow by 1.9 MiB, not
    # 0.9 MiB (tracebacks through the stdlib then give file and line, without the line's text).
    stdlib_result = compile_stdlib(site, stdlib, keep_sources=False, strip=strip)
    return (
        f"{modules} modules of {len(result['wheels'])} wheels and "
        f"{stdlib_result['pyc']} of the standard library precompiled"
    )

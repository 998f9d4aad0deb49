"""The site's service worker, sw.js (from scripts/sw.js): one cache per build, named by a hash
of every file of the site, holding the page, the worker and the runtime for return visits."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path, PurePosixPath

from .vendor_runtime import PYODIDE_CORE, PYODIDE_DIR, sha256

TEMPLATE = Path(__file__).with_name("sw.js")
NAME = "sw.js"
# The site's own files the page and its worker start from.
SITE_FILES = [
    "index.html",
    "app.js",
    "worker-config.js",
    "static/protocol.js",
    "static/startup.js",
    "static/file-protocol.js",
    "static/frame-size.js",
    "static/plotly-on-demand.js",
]


def build_id(site: Path) -> str:
    """A hash of every file of the site, by path and content."""
    build = hashlib.sha256()
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        build.update(path.relative_to(site).as_posix().encode() + b"\0" + sha256(path).encode())
    return build.hexdigest()[:16]


def write_service_worker(site: Path, lock: dict) -> str:
    """Write SITE/sw.js for the site as it now is; returns the build's id."""
    files = list(SITE_FILES)
    # What the page's head loads (Bokeh's and Panel's JS and CSS): the page starts from them.
    page = (site / "index.html").read_text(encoding="utf-8")
    files += sorted(set(re.findall(r'(?:src|href)="(runtime/[^"?#]+)"', page)))
    files += [f"runtime/{PYODIDE_DIR}{name}" for name in PYODIDE_CORE] + ["runtime/pe-lock.json"]
    files += [
        str(PurePosixPath("runtime", entry["file_name"])).replace("runtime/../", "")
        for entry in lock["packages"].values()
    ]
    build = build_id(site)
    source = TEMPLATE.read_text(encoding="utf-8")
    source = source.replace("__BUILD__", build)
    source = source.replace("__SITE_FILES__", json.dumps(files, indent=2))
    (site / NAME).write_text(source, encoding="utf-8")
    return build

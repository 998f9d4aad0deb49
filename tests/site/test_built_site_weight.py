"""What makes the built site lighter (issue 34): plotly.js's cartesian bundle on the page and the
full one on demand (scripts/plotly_bundle.py, static/plotly-on-demand.js), wheels whose start-up
modules are bytecode alone, and nothing in the wheels or the standard library that never runs in
a browser (scripts/compile_wheels.py). Read from the site `./build.sh test` has built.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from site_support import site_lock

from scripts import compile_wheels, panel_output

PLOTLY_DIR = "runtime/cdn.holoviz.org/panel/1.9.4/dist/bundled/plotlyplot/"
STDLIB = "runtime/cdn.jsdelivr.net/pyodide/v0.29.3/full/python_stdlib.zip"


def wheel_of(site: Path, package: str) -> Path:
    return site / "runtime" / site_lock(site)["packages"][package]["file_name"]


def test_the_page_loads_the_cartesian_bundle_then_the_loader_of_the_full_one(site_dir):
    html = (site_dir / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script[^>]*\bsrc=\"([^\"]+)\"[^>]*>", html)
    partial = f"{PLOTLY_DIR}plotly-cartesian-3.1.0.min.js"
    assert partial in scripts and f"{PLOTLY_DIR}plotly-3.1.0.min.js" not in scripts
    # Right after it, before BokehJS and Panel run: Panel's pane finds the wrapped Plotly.
    assert scripts[scripts.index(partial) + 1] == "static/plotly-on-demand.js"
    (full,) = re.findall(r'src="static/plotly-on-demand.js" data-full="([^"]+)"', html)
    heads = {name: (site_dir / name).read_text(encoding="utf-8")[:200] for name in (partial, full)}
    assert "plotly.js (cartesian - minified) v3.1.0" in heads[partial]
    assert "plotly.js v3.1.0" in heads[full]


def test_the_service_worker_keeps_the_loader_but_not_the_full_bundle(site_dir):
    text = (site_dir / "sw.js").read_text(encoding="utf-8")
    assert '"static/plotly-on-demand.js"' in text
    assert "plotly-cartesian-3.1.0.min.js" in text and "/plotly-3.1.0.min.js" not in text


def record_rows(archive: zipfile.ZipFile) -> dict[str, list[str]]:
    (record,) = [name for name in archive.namelist() if name.endswith(".dist-info/RECORD")]
    rows = csv.reader(io.StringIO(archive.read(record).decode("utf-8")))
    return {row[0]: row[1:] for row in rows if row}


@pytest.mark.parametrize("package", ["panel", "bokeh", "numpy", "param", "pe-explorer"])
def test_start_up_modules_are_bytecode_alone_and_the_record_lists_every_member(site_dir, package):
    with zipfile.ZipFile(wheel_of(site_dir, package)) as archive:
        names = set(archive.namelist())
        compiled = {name for name in names if name.endswith(".pyc")}
        assert compiled, f"{package}: no bytecode"
        # Where Python imports bytecode without a source: beside, not in __pycache__.
        assert not any("__pycache__/" in name for name in names)
        assert not {name[:-1] for name in compiled} & names
        assert any(name.endswith(".py") for name in names), "modules start-up skips stay sources"
        rows = record_rows(archive)
        assert set(rows) == names
        for name in names - {n for n in names if n.endswith("RECORD")}:
            data = archive.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert rows[name] == [f"sha256={digest.decode()}", str(len(data))], name


def test_the_bytecode_is_pyodides_python(site_dir):
    with zipfile.ZipFile(wheel_of(site_dir, "panel")) as archive:
        magic = archive.read("panel/__init__.pyc")[:4]
    assert magic == (3571).to_bytes(2, "little") + b"\r\n"  # CPython 3.13's magic number


def test_nothing_that_never_runs_is_in_the_wheels_or_the_standard_library(site_dir):
    for package in site_lock(site_dir)["packages"]:
        with zipfile.ZipFile(wheel_of(site_dir, package)) as archive:
            left = [name for name in archive.namelist() if compile_wheels.never_runs(name)]
        assert left == [], package
    with zipfile.ZipFile(site_dir / STDLIB) as stdlib:
        names = stdlib.namelist()
    assert [name for name in names if compile_wheels.stdlib_never_runs(name)] == []
    for kept in ("encodings/utf_8.pyc", "encodings/idna.pyc", "encodings/cp437.py", "json/"):
        assert any(name.startswith(kept) for name in names), kept
    assert not any(name.startswith(("encodings/cp1252", "_pyrepl/", "pdb.")) for name in names)


def test_the_prerendered_page_leaves_the_views_picks_out(site_dir):
    """The picks serve a drag; Python's first drawing sends them (scripts/panel_output.py)."""
    page = (site_dir / "index.html").read_text(encoding="utf-8")
    (raw,) = panel_output.DOCS_JSON.findall(page)
    docs = json.loads(html.unescape(raw[1]))
    views = []

    def walk(node):
        if isinstance(node, dict):
            if str(node.get("name", "")).startswith("ViewPicks"):
                views.append(sorted(node.get("attributes", {})))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(docs)
    assert len(views) >= 2
    assert all(not set(panel_output.PICKS) & set(names) for names in views), views

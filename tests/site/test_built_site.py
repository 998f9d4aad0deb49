"""The static site that `./build.sh build` writes: entry page, worker requirements, assets.

Read from the site `./build.sh test` has built (PE_SITE_DIR); how the build is made to fail is
in tests/unit/test_build.py, which builds nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import tempfile
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from pe_explorer.plotkit.icon import icon_data_uri
from site_support import site_lock, worker_config, worker_script

REPO_ROOT = Path(__file__).resolve().parents[2]
TITLE = "Positional Encoding Explorer"
PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
WHEEL_NAME = re.compile(rf"^\./wheels/{PROJECT['name'].replace('-', '_')}-[^/]+-py3-none-any\.whl$")
BINARY_SUFFIXES = {".whl", ".zip", ".png", ".ico", ".wasm"}
STATIC_FILES = sorted(
    p.relative_to(REPO_ROOT) for p in (REPO_ROOT / "static").rglob("*") if p.is_file()
)


def text_files(site: Path) -> dict[str, str]:
    """Every text file the build wrote, and every text member of its wheels, by name (not the
    third-party runtime files, which are copied as pinned: tests below check their hashes)."""
    texts = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        name = str(path.relative_to(site))
        if name.startswith("runtime/") and name != "runtime/pe-lock.json":
            continue
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as wheel:
                for member in wheel.namelist():
                    texts[f"{name}!{member}"] = wheel.read(member).decode("utf-8", "replace")
        elif path.suffix not in BINARY_SUFFIXES:
            texts[name] = path.read_text(encoding="utf-8", errors="replace")
    return texts


def test_index_page_is_the_app_with_its_title(site_dir):
    html = (site_dir / "index.html").read_text(encoding="utf-8")
    assert f"<title>{TITLE}</title>" in html
    assert worker_script(site_dir).is_file()


def test_worker_loads_numpy_and_not_what_the_app_never_imports(site_dir):
    # plotly.js draws; plotly.py (a 9.7 MB wheel) is never imported, so never downloaded, and
    # nor are pandas, pillow and the rest of Panel's and Bokeh's metadata the app never uses.
    packages = worker_config(site_dir)["packages"]
    assert {"numpy", "bokeh", "panel", "pe-explorer"} <= set(packages)
    assert not {"plotly", "pandas", "pillow", "micropip"} & set(packages)
    assert sorted(packages) == sorted(site_lock(site_dir)["packages"])


def test_worker_loads_the_project_wheel_from_the_site(site_dir):
    entry = site_lock(site_dir)["packages"]["pe-explorer"]
    # Relative to runtime/, the folder of the lock file: the site works under any path.
    assert WHEEL_NAME.match("./" + entry["file_name"].removeprefix("../")), entry["file_name"]
    wheel = site_dir / "runtime" / entry["file_name"]
    with zipfile.ZipFile(wheel) as archive:
        # Bytecode alone when start-up imports it (scripts/startup_bytecode.py), else the source.
        assert {"pe_explorer/__init__.py", "pe_explorer/__init__.pyc"} & set(archive.namelist())


def test_every_package_file_is_in_the_site_with_the_hash_the_lock_names(site_dir):
    for name, entry in site_lock(site_dir)["packages"].items():
        path = site_dir / "runtime" / entry["file_name"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], name


def test_the_page_and_the_worker_load_nothing_from_another_host(site_dir):
    page = (site_dir / "index.html").read_text(encoding="utf-8")
    worker = worker_script(site_dir).read_text(encoding="utf-8")
    config = (site_dir / "worker-config.js").read_text(encoding="utf-8")
    assert (
        re.findall(
            r"https?://[^\s\"'<>]*(?:cdn|pypi|pythonhosted)[^\s\"'<>]*", page + worker + config
        )
        == []
    )
    for name in ("pyodide", "lockFile"):
        assert (site_dir / worker_config(site_dir)[name]).is_file(), name
    for url in re.findall(r'(?:src|href)="(runtime/[^"]+)"', page):
        assert (site_dir / url).is_file(), url


def test_the_service_worker_is_named_after_the_build_and_caches_what_the_worker_loads(site_dir):
    script = (site_dir / "sw.js").read_text(encoding="utf-8")
    (build,) = re.findall(r"const BUILD = '([0-9a-f]{16})';", script)
    files = json.loads(re.search(r"const SITE_FILES = (\[.*?\]);", script, re.S)[1])
    assert all((site_dir / name).is_file() for name in files)
    lock_files = {
        str(PurePosixPath("runtime", e["file_name"])).replace("runtime/../", "")
        for e in site_lock(site_dir)["packages"].values()
    }
    assert lock_files <= set(files)
    assert {"app.js", "worker-config.js", "static/protocol.js"} <= set(files)
    # The build's name also names the shared runtime (a page never joins another build's).
    meta = f'<meta name="pe-service-worker" content="sw.js" data-build="{build}">'
    assert meta in (site_dir / "index.html").read_text()


def test_the_sites_worker_is_ours_whole_and_serves_as_the_shared_worker_too(site_dir):
    """Panel's worker is replaced, never edited: the page's Web Worker and the shared worker
    (static/startup.js starts it from the same URL) run static/worker.js as it is."""
    page = (site_dir / "index.html").read_text(encoding="utf-8")
    assert worker_script(site_dir).read_bytes() == (REPO_ROOT / "static/worker.js").read_bytes()
    assert "pe-shared-runtime" not in page and not list(site_dir.glob("app-*.js"))
    assert worker_config(site_dir)["env"] == {
        "PANEL_CDN_ROOT": "cdn.holoviz.org/panel/",
        "PANEL_NPM_CDN": "cdn.jsdelivr.net/npm",
    }


def test_no_text_file_names_a_path_of_the_build_machine(site_dir):
    forbidden = {
        str(REPO_ROOT),
        str(site_dir),
        f"{Path.home()}/",
        f"{Path(tempfile.gettempdir()).resolve()}/",
    }
    leaks = {
        name: sorted(f for f in forbidden if f in text) + re.findall(r"\bfile:/+\w\S{0,40}", text)
        for name, text in text_files(site_dir).items()
    }
    assert {name: found for name, found in leaks.items() if found} == {}


@pytest.mark.parametrize("asset", STATIC_FILES, ids=str)
def test_static_asset_is_copied(site_dir, asset):
    assert (site_dir / asset).read_bytes() == (REPO_ROOT / asset).read_bytes()


def test_index_page_loads_the_file_protocol_notice(site_dir):
    assert '"static/file-protocol.js"' in (site_dir / "index.html").read_text(encoding="utf-8")


def test_index_page_holds_the_icon_inline(site_dir):
    """A linked icon was fetched again after every step (the page rewrites its URL)."""
    page = (site_dir / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<link rel="icon" href="([^"]+)"', page) == [icon_data_uri()]


def test_panels_scripts_are_deferred_so_the_page_paints_first(site_dir):
    page = (site_dir / "index.html").read_text(encoding="utf-8")
    head = page.split("</head>")[0]
    scripts = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"[^>]*>", head)
    deferred = re.findall(r"<script\b[^>]*\bdefer\b[^>]*\bsrc=\"([^\"]+)\"[^>]*>", head)
    # Only the site's own small scripts run before the body is parsed.
    assert sorted(set(scripts) - set(deferred)) == [
        "static/file-protocol.js",
        "static/frame-size.js",
        "static/protocol.js",
        "static/startup.js",
    ]
    assert {Path(url).name for url in deferred} >= {"bokeh-3.9.2.min.js", "panel.min.js"}
    assert "Bokeh.set_log_level" not in re.sub(r"addEventListener\('DOMContentLoaded'.*", "", head)


def test_the_first_root_holds_the_first_paint(site_dir):
    """Shown before any script runs (tests/unit/test_first_paint.py checks what it draws)."""
    from scripts.first_paint import first_paint_html

    page = (site_dir / "index.html").read_text(encoding="utf-8")
    first_root = re.search(r'<div id="[^"]+" data-root-id="[^"]+" style="[^"]*">', page)
    assert page[first_root.end() :].startswith(first_paint_html())


def test_every_script_the_build_writes_parses(site_dir):
    """A stray newline in a string of what the build writes would stop the site before Python
    starts."""
    node = shutil.which("node")
    assert node, "node is needed by the build (scripts/compile_wheels.py)"
    for script in sorted(site_dir.glob("*.js")):
        run = subprocess.run([node, "--check", str(script)], capture_output=True, text=True)
        assert run.returncode == 0, f"{script.name}: {run.stderr[-800:]}"


def test_index_page_lays_out_at_the_device_width(site_dir):
    head = (site_dir / "index.html").read_text(encoding="utf-8").split("</head>")[0]
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in head


def test_index_page_has_both_themes_colours_before_any_script(site_dir):
    from pe_explorer.plotkit.theme import document_css

    head = (site_dir / "index.html").read_text(encoding="utf-8").split("</head>")[0]
    style = head.index('<style id="pe-theme-style">')
    assert document_css() in head
    # Before static/startup.js, which picks the theme as the head is read.
    assert style < head.index('<script src="static/startup.js">')

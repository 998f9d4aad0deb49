"""The static site that `./build.sh build` writes: entry page, worker requirements, assets."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from components.icon import icon_data_uri

REPO_ROOT = Path(__file__).resolve().parents[1]
TITLE = "Positional Encoding Explorer"
PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
WHEEL_NAME = re.compile(rf"^\./wheels/{PROJECT['name'].replace('-', '_')}-[^/]+-py3-none-any\.whl$")
BINARY_SUFFIXES = {".whl", ".zip", ".png", ".ico", ".wasm"}
STATIC_FILES = sorted(
    p.relative_to(REPO_ROOT) for p in (REPO_ROOT / "static").rglob("*") if p.is_file()
)


def worker_script(site: Path) -> Path:
    """The script index.html starts as its Web Worker."""
    match = re.search(r'new Worker\("([^"]+)"\)', (site / "index.html").read_text(encoding="utf-8"))
    assert match, "index.html starts no Web Worker"
    return site / match[1]


def micropip_requirements(worker: Path) -> list[str]:
    """The list the worker passes to micropip.install([...])."""
    calls = re.findall(r"micropip\.install\(\[(.*?)\]\)", worker.read_text(encoding="utf-8"), re.S)
    assert len(calls) == 1, f"expected one micropip.install call in {worker.name}, found {calls}"
    return list(ast.literal_eval(f"[{calls[0]}]"))


def text_files(site: Path) -> dict[str, str]:
    """Every text file of the site, and every text member of its wheels, by name."""
    texts = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        name = str(path.relative_to(site))
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


def test_worker_installs_numpy_and_not_plotly_py(site_dir):
    # plotly.js draws; plotly.py (a 9.7 MB wheel) is never imported, so never downloaded.
    requirements = micropip_requirements(worker_script(site_dir))
    assert "numpy" in requirements
    assert not [r for r in requirements if r.startswith("plotly")]


# Builds the page, shows every view and panel, and moves every control the views follow.
EVERY_VIEW_AND_CONTROL = """
import sys
import panel as pn
from bokeh.document import Document
from components.page import ExplorerPage
from components.views import VIEW_NAMES

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


def test_the_app_never_imports_plotly_py():
    """What lets the site skip plotly.py's wheel: the app, all of it in use, never imports it."""
    result = subprocess.run(
        [sys.executable, "-c", EVERY_VIEW_AND_CONTROL],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "[]"


def test_worker_installs_the_project_wheel_from_a_relative_url(site_dir):
    worker = worker_script(site_dir)
    # Its own call without dependencies: they are all in the list above, and resolving them
    # twice at once made micropip download plotly twice.
    wheel_urls = re.findall(
        r"micropip\.install\('([^']+)', deps=False\)", worker.read_text(encoding="utf-8")
    )
    assert len(wheel_urls) == 1 and WHEEL_NAME.match(wheel_urls[0]), wheel_urls
    # micropip fetches a relative URL from the worker, i.e. relative to the worker script.
    wheel = worker.parent / PurePosixPath(wheel_urls[0])
    with zipfile.ZipFile(wheel) as archive:
        assert "components/__init__.py" in archive.namelist()


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


@pytest.mark.browser
def test_page_opened_from_disk_says_to_serve_the_folder(site_dir, browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        # As offline: the CDN scripts fail at once instead of waiting on the network.
        page.route(re.compile(r"^https?://"), lambda route: route.abort())
        page.goto((site_dir / "index.html").as_uri(), wait_until="domcontentloaded")
        message = page.locator(".pe-file-protocol-message")
        message.wait_for(state="visible", timeout=10_000)
        assert "./build.sh serve" in message.inner_text()
        assert "pn-loading" not in page.evaluate("document.body.className")
    finally:
        context.close()

"""Shared fixtures: the repository root, the built static site and Debian's Chromium.

A missing Chromium fails the run under CI=true and skips it elsewhere (`unavailable`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from pyodide_support import QuietHandler, unavailable

REPO_ROOT = Path(__file__).resolve().parents[1]

# Fixtures for the served-app browser tests (panel serve + Debian Chromium).
pytest_plugins = ["browser_support"]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The static site: $PE_SITE_DIR when set (`./build.sh test` points it at the dist/ it has
    just built), else a fresh `./build.sh build` into a temporary folder."""
    if os.environ.get("PE_SITE_DIR"):
        site = Path(os.environ["PE_SITE_DIR"]).resolve()
        if not (site / "index.html").is_file():
            pytest.fail(f"PE_SITE_DIR={site} holds no built site (no index.html)")
        return site
    site = tmp_path_factory.mktemp("site") / "dist"
    subprocess.run([str(REPO_ROOT / "build.sh"), "build", str(site)], cwd=REPO_ROOT, check=True)
    return site


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """$CHROMIUM, else Debian's chromium (Playwright's own browsers are never installed)."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not path:
        unavailable("no chromium: run ./build.sh setup (apt-get install chromium) or set $CHROMIUM")
    return path


@pytest.fixture(scope="session")
def site_origin(site_dir):
    """The built site served from its own folder (its runtime is vendored in it): the origin."""
    handler = functools.partial(QuietHandler, directory=str(site_dir))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{server.server_address[1]}"
        server.shutdown()

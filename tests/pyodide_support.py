"""Running one offline visit of the built Pyodide site for a test module (skips when it can't)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

SHARED_OFFLINE = Path(__file__).resolve().parents[2] / "shared" / "pyodide-offline"
if SHARED_OFFLINE.is_dir() and str(SHARED_OFFLINE) not in sys.path:
    sys.path.insert(0, str(SHARED_OFFLINE))

offline_site = pytest.importorskip(
    "offline_site", reason=f"no offline Pyodide harness (offline_site.py) at {SHARED_OFFLINE}"
)


def visit_offline(request: pytest.FixtureRequest, visit: Callable[[Path], dict]) -> dict:
    """visit(site_dir) once, offline; skip with the reason when the mirror or a tool is missing."""
    if not os.environ.get("PYODIDE_MIRROR"):
        pytest.skip("PYODIDE_MIRROR is not set (see ../shared/pyodide-offline/README.md)")
    missing = offline_site.missing_prerequisites()
    if missing:
        pytest.skip("; ".join(missing))
    site_dir = request.getfixturevalue("site_dir")
    # offline_site starts its own Playwright, which refuses to start in a thread where another
    # one runs (the session's `browser` fixture), so the visit gets a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(visit, site_dir).result()

"""The site's build, without building it: what it refuses (a runtime file that is not the
pinned one, no runtime files, another Panel), the icon it puts inline, and the app it packs never
importing plotly.py. What the build writes is read from a built site in tests/site/.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pe_explorer.plotkit import icon
from site_support import EVERY_VIEW_AND_CONTROL

REPO_ROOT = Path(__file__).resolve().parents[2]


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


def mirror_with_one_file_changed(mirror: Path, folder: Path, changed: str) -> Path:
    """A runtime folder of links to the mirror's files, one of them replaced by altered bytes."""
    for path in mirror.rglob("*"):
        if path.is_file() and ".compressed" not in path.parts:
            link = folder / path.relative_to(mirror)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    target = folder / "www" / changed
    data = target.read_bytes()
    target.unlink()
    target.write_bytes(data + b"\n// altered\n")
    return folder


def test_the_build_refuses_a_runtime_file_whose_hash_does_not_match(tmp_path):
    # The runtime the build was given ($PE_RUNTIME_DIR or $PYODIDE_MIRROR), else the shared one.
    named = os.environ.get("PE_RUNTIME_DIR") or os.environ.get("PYODIDE_MIRROR")
    mirror = Path(named) if named else REPO_ROOT.parent / "shared" / "pyodide-mirror"
    if not mirror.is_dir():
        pytest.skip(f"no runtime folder at {mirror}")
    changed = "cdn.jsdelivr.net/pyodide/v0.29.3/full/pyodide.js"
    runtime = mirror_with_one_file_changed(mirror, tmp_path / "runtime", changed)
    site = tmp_path / "site"
    site.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "scripts.vendor_runtime", str(site), "--runtime", str(runtime)],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 2
    assert f"refusing {runtime / 'www' / changed}: its sha256 is" in result.stderr
    assert not (site / "runtime").exists()


def test_without_runtime_files_the_build_stops_and_says_how_to_get_them(tmp_path, monkeypatch):
    """No $PE_RUNTIME_DIR, no mirror beside the checkout, no download: no site (never one that
    loads its runtime from the CDNs)."""
    from scripts import build_site, vendor_runtime

    def offline(*args, **kwargs):
        raise OSError("no network")

    monkeypatch.delenv("PE_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(build_site, "SHARED_MIRROR", tmp_path / "no-mirror")
    monkeypatch.setattr(vendor_runtime, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(vendor_runtime.urllib.request, "urlopen", offline)
    site = tmp_path / "site"
    site.mkdir()
    with pytest.raises(build_site.BuildFailed, match="Set PE_RUNTIME_DIR") as failed:
        build_site.vendor(site)
    assert "cannot download" in str(failed.value)
    assert not (site / "runtime").exists()


def test_the_build_stops_on_a_panel_it_was_not_written_for(monkeypatch):
    """scripts/panel_output.py rewrites Panel 1.9.4's page; another Panel must be checked first."""
    monkeypatch.delitem(sys.modules, "scripts.panel_output", raising=False)
    monkeypatch.setattr("importlib.metadata.version", lambda name: "1.10.0")
    with pytest.raises(SystemExit, match="not of Panel 1.10.0"):
        import scripts.panel_output  # noqa: F401
    monkeypatch.delitem(sys.modules, "scripts.panel_output", raising=False)


def test_the_icon_goes_inline_as_the_sites_own_file(tmp_path):
    uri = icon.icon_data_uri()
    assert uri.startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(uri.split(",", 1)[1]) == icon.ICON.read_bytes()
    # Where the file is not shipped (the Pyodide wheel), Panel's default stays.
    assert icon.icon_data_uri(tmp_path / "missing.svg") is None


def test_the_wheel_lists_every_subpackage():
    """A folder of components/ with an __init__.py left out of pyproject's packages is missing
    from the wheel, so from the site (mistakes/ was, until its view imported it)."""
    import tomllib

    listed = set(
        tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        "pe_explorer." + ".".join(init.parent.relative_to(REPO_ROOT / "components").parts)
        for init in (REPO_ROOT / "components").rglob("__init__.py")
        if init.parent != REPO_ROOT / "components"
    }
    assert folders | {"pe_explorer"} == listed

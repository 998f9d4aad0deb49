"""Copy the runtime files the site loads (Pyodide, every wheel, Bokeh's and Panel's files) into
SITE/runtime/, each checked against its sha256 pinned in scripts/runtime-files.json.

    python -m scripts.vendor_runtime SITE [--runtime DIR]
    python -m scripts.vendor_runtime --pin --runtime DIR

Files go to SITE/runtime/<host>/<path>, PyPI wheels to SITE/runtime/pypi/. DIR is a folder laid
out by host (`www/<host>/<path>` and `pypi/<wheel>`, as ../shared/pyodide-mirror is); without
one, the files are downloaded once into ~/.cache/pe-explorer/runtime. A file that can be neither
read nor downloaded, or whose sha256 differs from its pin, stops the build.

`--pin` records the sha256 of every file the site needs from a trusted DIR, after checking each
Pyodide wheel against Pyodide's own lock file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path, PurePosixPath

PINS = Path(__file__).with_name("runtime-files.json")
CACHE = Path.home() / ".cache" / "pe-explorer" / "runtime"
PYODIDE_VERSION = "0.29.3"
PYODIDE_DIR = f"cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
PYODIDE_CORE = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
PYODIDE_LOCK = PYODIDE_DIR + "pyodide-lock.json"
# Files of the CDNs the page loads at run time besides what index.html names: Panel's CSS,
# themes, images and bundles (stylesheets of widgets appear as views are built), the
# stylesheet Panel's Plotly model links, and Bokeh's release bundles.
CDN_TREES = (
    "cdn.holoviz.org/panel/1.9.4/dist/",
    "cdn.jsdelivr.net/npm/maplibre-gl@4.4.1/",
    "cdn.bokeh.org/bokeh/release/",
)
# Wheels of the CDNs (not in any lock file): bokeh and panel as cdn.holoviz.org serves them.
CDN_WHEELS = (
    "cdn.holoviz.org/panel/wheels/bokeh-3.9.2-py3-none-any.whl",
    "cdn.holoviz.org/panel/1.9.4/dist/wheels/panel-1.9.4-py3-none-any.whl",
)
# From PyPI, pinned.
PYPI_WHEELS = (
    "param-2.4.2-py3-none-any.whl",
    "pyviz_comms-3.0.6-py3-none-any.whl",
    "markdown_it_py-4.3.0-py3-none-any.whl",
    "mdurl-0.1.2-py3-none-any.whl",
    "mdit_py_plugins-0.7.0-py3-none-any.whl",
    "linkify_it_py-2.2.0-py3-none-any.whl",
)
# From Pyodide's lock: what the app imports, with what those import. Not what Panel's and
# Bokeh's metadata ask for in full: pandas, pillow, contourpy, narwhals, xyzservices, requests
# and panel-material-ui are never imported by this app (tests/site/test_built_site.py checks
# it), and leaving them out saves 9 MB. pyodide-http must be there: without it Panel imports
# pandas.
PYODIDE_PACKAGES = (
    "numpy",
    "jinja2",
    "markupsafe",
    "pyyaml",
    "packaging",
    "typing-extensions",
    "tqdm",
    "nh3",
    "pyodide-http",
)


class RuntimeUnavailable(RuntimeError):
    """The runtime files could be neither read from a folder nor downloaded."""


class RuntimeMismatch(RuntimeError):
    """A runtime file differs from the one pinned: the build refuses it."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def source_path(runtime: Path, name: str) -> Path:
    """Where a pinned file lies in a runtime folder laid out by host."""
    return runtime / name if name.startswith("pypi/") else runtime / "www" / name


def wanted_files(runtime: Path) -> list[str]:
    """Every file the site needs, as pinned names (host/path, or pypi/wheel)."""
    names = [PYODIDE_DIR + name for name in (*PYODIDE_CORE, "pyodide-lock.json")]
    lock = json.loads(source_path(runtime, PYODIDE_LOCK).read_text())["packages"]
    names += [PYODIDE_DIR + lock[package]["file_name"] for package in PYODIDE_PACKAGES]
    for tree in CDN_TREES:
        root = source_path(runtime, tree)
        names += sorted(
            f"{tree}{path.relative_to(root).as_posix()}"
            for path in root.rglob("*")
            if path.is_file() and "/wheels/" not in f"/{path.relative_to(root).as_posix()}"
        )
    return [*names, *CDN_WHEELS, *(f"pypi/{wheel}" for wheel in PYPI_WHEELS)]


def pin(runtime: Path) -> dict:
    """Pins of every wanted file of a trusted folder; Pyodide wheels checked against its lock."""
    lock = json.loads(source_path(runtime, PYODIDE_LOCK).read_text())["packages"]
    by_file = {entry["file_name"]: entry["sha256"] for entry in lock.values()}
    pins = {}
    for name in wanted_files(runtime):
        digest = sha256(source_path(runtime, name))
        file_name = PurePosixPath(name).name
        if name.startswith(PYODIDE_DIR) and file_name in by_file and by_file[file_name] != digest:
            raise RuntimeMismatch(f"{name}: sha256 {digest} differs from Pyodide's lock")
        pins[name] = digest
    return {"pyodide": PYODIDE_VERSION, "files": pins}


def download(name: str) -> Path:
    """Fetch one pinned file into the cache (PyPI wheels with pip, the rest from its host)."""
    target = source_path(CACHE, name)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if name.startswith("pypi/"):
            project, version = PurePosixPath(name).name.split("-")[:2]
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--dest", str(target.parent), f"{project}=={version}"],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
        else:
            with urllib.request.urlopen(f"https://{name}", timeout=20) as response:
                target.write_bytes(response.read())
    except (OSError, subprocess.SubprocessError) as error:
        target.unlink(missing_ok=True)
        raise RuntimeUnavailable(f"cannot download {name}: {error}") from None
    if not target.is_file():
        raise RuntimeUnavailable(f"cannot download {name}")
    return target


def fetch_verified(name: str, expected: str, runtime: Path | None) -> Path:
    """The file for a pin, from the folder or the download cache, after checking its sha256."""
    path = source_path(runtime, name) if runtime is not None else download(name)
    if not path.is_file():
        raise RuntimeUnavailable(f"{path} is missing from the runtime folder {runtime}")
    digest = sha256(path)
    if digest != expected:
        raise RuntimeMismatch(
            f"refusing {path}: its sha256 is {digest}, but {PINS.name} pins {name} at "
            f"{expected}. The runtime folder holds another version or a damaged file; "
            "rebuild it from the official files (never mix versions)."
        )
    return path


def vendor(site: Path, runtime: Path | None) -> int:
    """Copy and check every pinned file into site/runtime/; nothing stays if one fails."""
    pins = json.loads(PINS.read_text())
    if pins["pyodide"] != PYODIDE_VERSION:
        raise RuntimeMismatch(f"{PINS} pins Pyodide {pins['pyodide']}, not {PYODIDE_VERSION}")
    runtime_dir = site / "runtime"
    try:
        for name, expected in pins["files"].items():
            target = runtime_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fetch_verified(name, expected, runtime), target)
    except (RuntimeUnavailable, RuntimeMismatch):
        shutil.rmtree(runtime_dir, ignore_errors=True)
        raise
    return len(pins["files"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?", help="the site to copy the files into")
    parser.add_argument("--runtime", type=Path, help="folder laid out by host")
    parser.add_argument("--pin", action="store_true", help=f"write {PINS.name} from --runtime")
    args = parser.parse_args(argv)
    runtime = args.runtime.resolve() if args.runtime else None
    if args.pin:
        if runtime is None:
            parser.error("--pin needs --runtime")
        PINS.write_text(json.dumps(pin(runtime), indent=1) + "\n")
        print(f"pinned {len(json.loads(PINS.read_text())['files'])} files in {PINS}")
        return 0
    if args.site is None:
        parser.error("no SITE")
    try:
        count = vendor(args.site, runtime)
    except RuntimeMismatch as error:
        print(f"runtime: {error}", file=sys.stderr)
        return 2
    except RuntimeUnavailable as error:
        print(f"runtime: {error}", file=sys.stderr)
        return 3
    print(f"runtime: {count} files checked and copied into {args.site / 'runtime'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

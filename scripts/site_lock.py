"""The site's Pyodide lock file, runtime/pe-lock.json: exactly the packages the app imports.

The worker hands it to loadPyodide with every package in it, so the runtime and all packages
load at once, in parallel, with no micropip and no package index. Written once the runtime is in
SITE/runtime/ (scripts/vendor_runtime.py); it replaces Pyodide's own lock file there.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from .vendor_runtime import (
    CDN_WHEELS,
    PYODIDE_DIR,
    PYODIDE_LOCK,
    PYODIDE_PACKAGES,
    PYPI_WHEELS,
    sha256,
)

LOCK = Path("runtime/pe-lock.json")


def wheel_metadata(path: Path) -> tuple[str, str, list[str], list[str]]:
    """(name, version, requirement names, top-level import names) of a wheel."""
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = wheel.read(info).decode()
        top_level = next((n for n in names if n.endswith(".dist-info/top_level.txt")), None)
        imports = (
            wheel.read(top_level).decode().split()
            if top_level
            else sorted({n.split("/")[0] for n in names if "/" in n and ".dist-info" not in n})
        )
    field = dict(re.findall(r"^(Name|Version): (.+)$", metadata, re.MULTILINE))
    requires = [
        re.split(r"[\s;<>=!~\[(]", line, maxsplit=1)[0]
        for line in re.findall(r"^Requires-Dist: (.+)$", metadata, re.MULTILINE)
        if "extra ==" not in line
    ]
    return field["Name"], field["Version"], requires, imports


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def site_lock(runtime_dir: Path, own_wheel: str) -> dict:
    """A Pyodide lock file for exactly the packages the site loads, relative to runtime/."""
    pyodide_lock = json.loads((runtime_dir / PYODIDE_LOCK).read_text())
    packages = {}
    for package in PYODIDE_PACKAGES:
        entry = dict(pyodide_lock["packages"][package])
        entry["file_name"] = PYODIDE_DIR + entry["file_name"]
        packages[package] = entry
    wheels = [*CDN_WHEELS, *(f"pypi/{wheel}" for wheel in PYPI_WHEELS), f"../{own_wheel}"]
    for file_name in wheels:
        path = (runtime_dir / file_name).resolve()
        name, version, requires, imports = wheel_metadata(path)
        packages[canonical(name)] = {
            "name": canonical(name),
            "version": version,
            "file_name": file_name,
            "install_dir": "site",
            "sha256": sha256(path),
            "package_type": "package",
            "imports": imports,
            "depends": sorted(canonical(r) for r in requires),
            "unvendored_tests": False,
        }
    for entry in packages.values():
        # Only what is loaded: a dependency left out on purpose (pandas, ...) is not asked for.
        entry["depends"] = sorted(d for d in map(canonical, entry["depends"]) if d in packages)
    return {"info": pyodide_lock["info"], "packages": packages}


def write_lock(site: Path, own_wheel: str) -> dict:
    """Write SITE/runtime/pe-lock.json (`own_wheel` is the project's, relative to SITE) in
    place of Pyodide's lock file, and return it."""
    runtime_dir = site / "runtime"
    lock = site_lock(runtime_dir, own_wheel)
    (site / LOCK).write_text(json.dumps(lock, indent=1))
    (runtime_dir / PYODIDE_LOCK).unlink()
    return lock

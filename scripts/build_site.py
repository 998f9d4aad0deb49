"""Build the static site into OUT, self-contained: python -m scripts.build_site OUT.

The steps, in order: the project's wheel; `panel convert` (for the page: its worker is replaced);
the runtime's files copied in and checked (scripts/vendor_runtime.py); Panel's page made the
site's index.html, with its first paint, and the site's worker put in place
(scripts/panel_output.py); the site's lock file (scripts/site_lock.py) and the worker's
configuration; bytecode for what start-up imports (scripts/startup_bytecode.py); the service
worker (scripts/service_worker.py). The runtime's files come from $PE_RUNTIME_DIR, a folder laid
out by host, else ../shared/pyodide-mirror beside this checkout, else a download into
~/.cache/pe-explorer/runtime; when none works the build stops. $PE_BYTECODE=0 leaves the
modules uncompiled, and $PE_WITHOUT (a comma-separated list of CUTS) leaves out the cuts of
issue 34 it names, to measure what each gains (benchmarks/RESULTS.md): partial-plotly (the full
plotly.js bundle on the page), strip (what never runs stays in the wheels and stdlib), sourceless
(the sources stay beside the bytecode).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import (
    panel_output,
    plotly_bundle,
    service_worker,
    site_lock,
    startup_bytecode,
    vendor_runtime,
)

REPO = Path(__file__).resolve().parents[1]
SHARED_MIRROR = REPO.parent / "shared" / "pyodide-mirror"
WORKER_CONFIG = "worker-config.js"
# Where Panel's Python finds its own files (pn.extension's resources), under runtime/.
PANEL_ENV = {"PANEL_CDN_ROOT": "cdn.holoviz.org/panel/", "PANEL_NPM_CDN": "cdn.jsdelivr.net/npm"}
# A file URL naming a path (`file:/work/...`, `file:///tmp/...`, Panel's form for local wheels);
# neither `location.protocol === 'file:'` nor prose about "file://" pages is one.
FILE_URL = re.compile(r"\bfile:/+\w")
BINARY_SUFFIXES = {".whl", ".zip", ".png", ".ico", ".wasm"}


class BuildFailed(RuntimeError):
    """A step of the build failed; the message says which and why."""


def log(message: str) -> None:
    print(f"==> {message}", file=sys.stderr)


def clear(out: Path) -> None:
    """Delete OUT, refusing to if it holds anything this build would not have written."""
    if out.is_dir() and any(out.iterdir()) and not (out / "app.js").is_file():
        raise BuildFailed(f"{out} exists and does not look like a site built here; not deleting it")
    shutil.rmtree(out, ignore_errors=True)
    (out / "wheels").mkdir(parents=True)


def project_wheel(out: Path) -> str:
    """Build the project's wheel into OUT/wheels/; its path relative to OUT."""
    log("building the project wheel")
    # In a temporary folder: stale files in ./build/ can never end up in the wheel.
    with tempfile.TemporaryDirectory() as folder:
        run = subprocess.run(
            [sys.executable, "-m", "build", "--outdir", folder, str(REPO)],
            capture_output=True, text=True,
        )  # fmt: skip
        wheels = sorted(Path(folder).glob("*.whl"))
        if run.returncode != 0 or len(wheels) != 1:
            raise BuildFailed(f"the wheel build failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
        shutil.copy2(wheels[0], out / "wheels")
    return f"wheels/{wheels[0].name}"


def convert(out: Path) -> None:
    """Panel's page for app.py (app.html), and Panel's worker (app.js), which is replaced."""
    log(f"panel convert app.py --to pyodide-worker --out {out}")
    panel = Path(sys.executable).with_name("panel")
    subprocess.run(
        [str(panel), "convert", "app.py", "--to", "pyodide-worker", "--out", str(out)],
        cwd=REPO, check=True,
    )  # fmt: skip
    # panel convert reports a failed conversion but still exits 0.
    if not (out / "app.html").is_file():
        raise BuildFailed(f"panel convert did not write {out / 'app.html'}")


def runtime_folder() -> Path | None:
    """$PE_RUNTIME_DIR, else the shared mirror beside this checkout, else None (download)."""
    if os.environ.get("PE_RUNTIME_DIR"):
        return Path(os.environ["PE_RUNTIME_DIR"]).resolve()
    return SHARED_MIRROR if SHARED_MIRROR.is_dir() else None


def vendor(out: Path) -> None:
    runtime = runtime_folder()
    log(f"runtime files from {runtime or f'a download, kept in {vendor_runtime.CACHE}'}")
    try:
        count = vendor_runtime.vendor(out, runtime)
    except vendor_runtime.RuntimeUnavailable as error:
        raise BuildFailed(
            f"the runtime files are unavailable ({error}). Set PE_RUNTIME_DIR to a folder laid "
            f"out by host, put the mirror at {SHARED_MIRROR}, or build once with internet access "
            f"(the files are then kept in {vendor_runtime.CACHE})."
        ) from None
    except vendor_runtime.RuntimeMismatch as error:
        raise BuildFailed(str(error)) from None
    log(f"{count} runtime files checked and copied into {out / 'runtime'}")


def partial_plotly(out: Path) -> None:
    try:
        full, partial = plotly_bundle.vendor_partial(out)
    except (vendor_runtime.RuntimeUnavailable, vendor_runtime.RuntimeMismatch) as error:
        raise BuildFailed(str(error)) from None
    panel_output.use_partial_plotly(out, full, partial, plotly_bundle.ON_DEMAND)
    log(f"plotly.js: {partial} on the page, {full} on demand")


def page_and_worker(out: Path) -> None:
    from pe_explorer.plotkit.icon import ICON, icon_data_uri
    from pe_explorer.plotkit.theme import document_css
    from pe_explorer.ui.page import before_python_facts

    from .first_paint import first_paint_html

    icon = icon_data_uri()
    if icon is None:
        raise BuildFailed(f"no icon at {ICON}")
    panel_output.make_index_page(
        out, icon, before_python_facts(), first_paint_html(), document_css()
    )
    panel_output.replace_worker(out)
    log(
        f"prerendered page: the picks of {panel_output.prerender_without_picks(out)} views left out"
    )


def write_worker_config(out: Path, lock: dict) -> None:
    """What static/worker.js loads, as only the build knows it; paths relative to the site."""
    runtime = "runtime/"
    config = {
        "pyodide": f"{runtime}{vendor_runtime.PYODIDE_DIR}pyodide.js",
        "runtime": runtime,
        "lockFile": site_lock.LOCK.as_posix(),
        "packages": sorted(lock["packages"]),
        "env": PANEL_ENV,
    }
    (out / WORKER_CONFIG).write_text(
        "// What only the build knows, for static/worker.js (scripts/build_site.py writes it).\n"
        f"self.PE_WORKER_CONFIG = {json.dumps(config)};\n",
        encoding="utf-8",
    )


def leaked_paths(site: Path, forbidden: list[str]) -> list[str]:
    """`file: reason` for every text file of the site that names a forbidden path or a file URL."""
    problems = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        if path.suffix in BINARY_SUFFIXES:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found = [f for f in forbidden if f in text]
        if FILE_URL.search(text):
            found.append("a file: URL")
        if found:
            problems.append(f"{path.relative_to(site)}: {', '.join(found)}")
    return problems


CUTS = ("partial-plotly", "strip", "sourceless")


def build(out: Path, compile_bytecode: bool = True, without: frozenset[str] = frozenset()) -> None:
    clear(out)
    wheel = project_wheel(out)
    convert(out)
    shutil.copytree(REPO / "static", out / "static")
    vendor(out)
    page_and_worker(out)
    if "partial-plotly" not in without:
        partial_plotly(out)
    lock = site_lock.write_lock(out, wheel)
    write_worker_config(out, lock)
    if compile_bytecode:
        cuts = {"sourceless": "sourceless" not in without, "strip": "strip" not in without}
        log(f"bytecode: {startup_bytecode.compile_startup(out, **cuts)}")
    build_id = service_worker.write_service_worker(out, lock)
    panel_output.name_build(out, build_id, service_worker.NAME)
    problems = leaked_paths(out, sorted({str(REPO), str(out.resolve())}))
    if problems:
        raise BuildFailed("the site names paths of this machine:\n  " + "\n  ".join(problems))
    log(f"site written to {out}/ (open it through a web server: ./build.sh serve)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=REPO / "dist")
    args = parser.parse_args(argv)
    try:
        without = frozenset(filter(None, os.environ.get("PE_WITHOUT", "").split(",")))
        if without - set(CUTS):
            raise BuildFailed(f"PE_WITHOUT names no cut {sorted(without - set(CUTS))}: {CUTS}")
        compile_bytecode = os.environ.get("PE_BYTECODE", "1") != "0"
        build(args.out.resolve(), compile_bytecode, without)
    except (BuildFailed, panel_output.PanelOutputChanged) as error:
        print(f"build_site: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Make the converted site self-contained: Pyodide, every wheel, and Bokeh's and Panel's files.

    python scripts/runtime.py vendor SITE --wheel wheels/NAME.whl [--runtime DIR]
    python scripts/runtime.py pin --runtime DIR

`vendor` copies every runtime file the site loads into SITE/runtime/<host>/<path> (PyPI wheels
into SITE/runtime/pypi/), checks each against its sha256 pinned in scripts/runtime-files.json
and refuses a mismatch, writes SITE/runtime/pe-lock.json (a Pyodide lock file for exactly the
packages the app imports, the project's wheel included), and points the page and the worker at
these files: the worker then loads the runtime and all packages at once, in parallel, with no
micropip and no package index. DIR is a folder laid out by host (`www/<host>/<path>` and
`pypi/<wheel>`, as ../shared/pyodide-mirror is); without one, the files are downloaded once
into ~/.cache/pe-explorer/runtime. When neither works, it exits 3 and the site stays as Panel
wrote it, loading from the CDNs.

`pin` records the sha256 of every file the site needs from a trusted DIR, after checking each
Pyodide wheel against Pyodide's own lock file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

import shared_runtime

PINS = Path(__file__).with_name("runtime-files.json")
CACHE = Path.home() / ".cache" / "pe-explorer" / "runtime"
PYODIDE_VERSION = "0.29.3"
PYODIDE_DIR = f"cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
PYODIDE_CORE = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
PYODIDE_LOCK = PYODIDE_DIR + "pyodide-lock.json"
PANEL_DIST = "cdn.holoviz.org/panel/1.9.4/dist/"
HOSTS = ("cdn.jsdelivr.net", "cdn.holoviz.org", "cdn.bokeh.org")
# Files of the CDNs the page loads at run time besides what index.html names: Panel's CSS,
# themes, images and bundles (stylesheets of widgets appear as views are built), the
# stylesheet Panel's Plotly model links, and Bokeh's release bundles.
CDN_TREES = (PANEL_DIST, "cdn.jsdelivr.net/npm/maplibre-gl@4.4.1/", "cdn.bokeh.org/bokeh/release/")
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
# and panel-material-ui are never imported by this app (tests/unit/test_build.py checks it), and
# leaving them out saves 9 MB. pyodide-http must be there: without it Panel imports pandas.
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
# Chunks of Panel's generated worker (panel/_templates/pyodide_worker.js, Panel 1.9.4).
IMPORT_PYODIDE = f'importScripts("https://{PYODIDE_DIR}pyodide.js");'
LOAD_AND_INSTALL = re.compile(
    r"  self\.pyodide = await loadPyodide\(\);\n.*?  console\.log\(\"Environment loaded!\"\);\n",
    re.DOTALL,
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


def site_lock(site: Path, runtime_dir: Path, own_wheel: str) -> dict:
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


WORKER_LOAD = """  // Everything from this site: the runtime and every package, fetched at once.
  const runtime = new URL('runtime/', self.location).href
  self.pyodide = await loadPyodide({
    lockFileURL: runtime + 'pe-lock.json',
    packages: %(packages)s,
    env: {
      PANEL_CDN_ROOT: runtime + 'cdn.holoviz.org/panel/',
      PANEL_NPM_CDN: runtime + 'cdn.jsdelivr.net/npm',
    },
  });
  self.pyodide.globals.set("sendPatch", sendPatch);
  console.log("Loaded pyodide and packages!");
  // Imports on their own, so that the page (and the benchmark) can tell the phases apart.
  self.postMessage({type: 'status', msg: 'Importing Panel and the app'})
  // Bokeh's models without their IDE signatures (components/fixes/bokeh_signatures.py).
  await self.pyodide.runPythonAsync('from pe_explorer.fixes import bokeh_signatures; ' +
    'bokeh_signatures.skip(); import numpy, panel, pe_explorer.ui.page')
"""


def point_worker(worker: Path, packages: list[str]) -> str:
    """Load Pyodide from runtime/ with every package in one go, instead of micropip; returns
    the loader (the shared worker loads the same way)."""
    source = worker.read_text(encoding="utf-8")
    if IMPORT_PYODIDE not in source or len(LOAD_AND_INSTALL.findall(source)) != 1:
        raise RuntimeError(f"{worker}: not the worker Panel 1.9.4 writes; cannot point it")
    source = source.replace(IMPORT_PYODIDE, f'importScripts("runtime/{PYODIDE_DIR}pyodide.js");')
    loader = WORKER_LOAD % {"packages": json.dumps(packages)}
    # The status line the page shows first says what now happens at once.
    source = LOAD_AND_INSTALL.sub(lambda match: loader, source)
    source = source.replace("msg: 'Loading pyodide'", "msg: 'Loading Python and packages'")
    worker.write_text(source, encoding="utf-8")
    return loader


def point_page(page: Path, site: Path) -> None:
    """Every CDN URL of the page becomes the site's copy, which must exist."""
    source = page.read_text(encoding="utf-8")
    for host in HOSTS:
        source = source.replace(f"https://{host}/", f"runtime/{host}/")
    missing = [
        url
        for url in sorted(set(re.findall(r'(?:src|href)="(runtime/[^"]+)"', source)))
        if not (site / url).is_file()
    ]
    if missing:
        raise RuntimeError(f"{page} names runtime files that were not copied: {missing}")
    hosts = "|".join(map(re.escape, HOSTS))
    left = re.findall(rf"https://(?:{hosts})/[^\"' ]+", source)
    if left:
        raise RuntimeError(f"{page} still loads from a CDN: {left[:3]}")
    page.write_text(source, encoding="utf-8")


SERVICE_WORKER = Path(__file__).with_name("sw.js")


# Builds the page as the worker does, and prints the modules that took: as wheel members, and as
# paths in the standard library.
STARTUP_IMPORTS = """
import json, sys, sysconfig
import panel as pn
from bokeh.document import Document
pn.extension("plotly", sizing_mode="stretch_width")
from pe_explorer.ui.page import ExplorerPage
pn.panel(ExplorerPage()).get_root(Document())
files = [getattr(module, "__file__", None) or "" for module in list(sys.modules.values())]
def under(*roots):
    return sorted(f[len(root) + 1:] for f in files for root in roots if f.startswith(root + "/"))
paths = sysconfig.get_paths()
wheels, stdlib = under(paths["purelib"], sys.argv[1]), under(paths["stdlib"])
print(json.dumps({"wheels": wheels, "stdlib": stdlib}))
"""


def startup_modules() -> tuple[frozenset[str], frozenset[str]]:
    """The modules the app imports to build its page (CPython's list; Pyodide's is alike): as
    wheel members ("panel/io/state.py"), and as paths in the stdlib ("json/decoder.py")."""
    repo = Path(__file__).resolve().parents[1]
    run = subprocess.run(
        [sys.executable, "-c", STARTUP_IMPORTS, str(repo)],
        cwd=repo, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    found = json.loads(run.stdout.strip().splitlines()[-1])
    # The project's modules, found in its source folder, are the wheel's package pe_explorer.
    found["wheels"] = [re.sub(r"^components/", "pe_explorer/", path) for path in found["wheels"]]
    stdlib = (path for path in found["stdlib"] if path.endswith(".py"))
    return frozenset(found["wheels"]), frozenset(p for p in stdlib if "-packages/" not in p)


def compile_bytecode(site: Path) -> str:
    """Bytecode for what start-up imports (scripts/compile_wheels.py), where node can run it.

    Only those modules: the rest (views built later, the share and export panels, most of
    Bokeh) is compiled in the browser when first used, and costs no download until then.
    """
    if shutil.which("node") is None:
        return "no node: the wheels stay uncompiled (the browser compiles them at each start)"
    from compile_wheels import compile_site, compile_stdlib

    wheels, stdlib = startup_modules()
    result = compile_site(site, wheels)
    modules = sum(wheel["pyc"] for wheel in result["wheels"].values())
    # Bytecode instead of the source for those: beside it, the zip would grow by 1.9 MiB, not
    # 0.9 MiB (tracebacks through the stdlib then give file and line, without the line's text).
    stdlib_result = compile_stdlib(site, stdlib, keep_sources=False)
    return (
        f"{modules} modules of {len(result['wheels'])} wheels and "
        f"{stdlib_result['pyc']} of the standard library precompiled"
    )


def write_service_worker(site: Path, lock: dict) -> None:
    """The site's sw.js: one cache per build (named by a hash of every file of the site)."""
    build = hashlib.sha256()
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        build.update(path.relative_to(site).as_posix().encode() + b"\0" + sha256(path).encode())
    files = ["index.html", "app.js", "static/startup.js", "static/file-protocol.js"]
    files += ["static/frame-size.js", shared_runtime.NAME, shared_runtime.RELAY_NAME]
    # What the page's head loads (Bokeh's and Panel's JS and CSS): the page starts from them.
    page = (site / "index.html").read_text(encoding="utf-8")
    files += sorted(set(re.findall(r'(?:src|href)="(runtime/[^"?#]+)"', page)))
    files += [f"runtime/{PYODIDE_DIR}{name}" for name in PYODIDE_CORE] + ["runtime/pe-lock.json"]
    files += [
        str(PurePosixPath("runtime", entry["file_name"])).replace("runtime/../", "")
        for entry in lock["packages"].values()
    ]
    source = SERVICE_WORKER.read_text(encoding="utf-8")
    build_id = build.hexdigest()[:16]
    source = source.replace("__BUILD__", build_id)
    source = source.replace("__SITE_FILES__", json.dumps(files, indent=2))
    (site / "sw.js").write_text(source, encoding="utf-8")
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    # Before static/startup.js, which registers it as soon as it runs.
    startup = '<script src="static/startup.js"></script>'
    if html.count(startup) != 1:
        raise RuntimeError(f"{page}: expected one {startup}")
    # The build names the shared runtime too (static/startup.js): a page never talks to the
    # shared worker of another build that an open tab still runs.
    meta = f'<meta name="pe-service-worker" content="sw.js" data-build="{build_id}">\n'
    page.write_text(html.replace(startup, meta + startup), encoding="utf-8")


def vendor(site: Path, own_wheel: str, runtime: Path | None, bytecode: bool = True) -> int:
    """Copy and check every runtime file into site/runtime/, then point page and worker at it."""
    pins = json.loads(PINS.read_text())
    if pins["pyodide"] != PYODIDE_VERSION:
        raise RuntimeMismatch(f"{PINS} pins Pyodide {pins['pyodide']}, not {PYODIDE_VERSION}")
    runtime_dir = site / "runtime"
    for name, expected in pins["files"].items():
        target = runtime_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fetch_verified(name, expected, runtime), target)
    lock = site_lock(site, runtime_dir, own_wheel)
    (runtime_dir / "pe-lock.json").write_text(json.dumps(lock, indent=1))
    (runtime_dir / PYODIDE_LOCK).unlink()  # the site's lock replaces Pyodide's
    if bytecode:
        print(f"runtime: {compile_bytecode(site)}")
    loader = point_worker(site / "app.js", sorted(lock["packages"]))
    point_page(site / "index.html", site)
    shared_runtime.write(site, loader)
    write_service_worker(site, lock)
    return len(pins["files"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    vendor_args = commands.add_parser("vendor", help="make SITE self-contained")
    vendor_args.add_argument("site", type=Path)
    vendor_args.add_argument("--wheel", required=True, help="the project wheel, relative to SITE")
    vendor_args.add_argument("--runtime", type=Path, help="folder laid out by host")
    vendor_args.add_argument(
        "--no-bytecode", action="store_true", help="leave the modules uncompiled (to compare)"
    )
    pin_args = commands.add_parser("pin", help=f"write {PINS.name} from a trusted folder")
    pin_args.add_argument("--runtime", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "pin":
        PINS.write_text(json.dumps(pin(args.runtime.resolve()), indent=1) + "\n")
        print(f"pinned {len(json.loads(PINS.read_text())['files'])} files in {PINS}")
        return 0
    runtime = args.runtime.resolve() if args.runtime else None
    try:
        count = vendor(args.site, args.wheel, runtime, bytecode=not args.no_bytecode)
    except (RuntimeUnavailable, RuntimeMismatch) as error:
        # Nothing half-done stays behind: the page and worker are pointed only at the end.
        shutil.rmtree(args.site / "runtime", ignore_errors=True)
        print(f"runtime: {error}", file=sys.stderr)
        return 3 if isinstance(error, RuntimeUnavailable) else 2
    print(f"runtime: {count} files checked and copied into {args.site / 'runtime'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Precompile the Python modules of the site's wheels, so the browser skips compiling them.

    python -m scripts.compile_wheels SITE

Pyodide runs with `sys.dont_write_bytecode`, so without .pyc files every start of the page
compiles every module it imports (Panel, Bokeh, NumPy, param, ...) from source again. This
script takes every wheel named in SITE/runtime/pe-lock.json, compiles each .py
file with Pyodide's own CPython 3.13 (the site's runtime, run under node, so the bytecode's magic
number is exactly the browser's), and writes the wheel again with `__pycache__/*.cpython-313.pyc`
beside the sources, which stay for tracebacks and `inspect`. The .pyc files are unchecked
hash-based (PEP 552): they stay valid whatever mtime the files get when Pyodide unpacks the wheel,
and importing never reads the source to check them. Each wheel keeps its file name; its RECORD
lists the added files, and pe-lock.json gets its new sha256 (Pyodide checks it). The build runs it
(scripts/startup_bytecode.py) before the service worker is written, whose build id then covers
the new wheels. Running it again recompiles from the sources and gives the same wheels.

compile_stdlib() does the same for the standard library, which Pyodide zipimports from
python_stdlib.zip (written to /lib/python313.zip, on sys.path) and which holds only sources: it
adds an unchecked-hash `x.pyc` beside each `x.py` that start-up imports (zipimport tries `x.pyc`
first), or puts it instead of the source when asked to: the bytecode of 3.13 is about twice
the size of the source, zipped. Without the source, tracebacks still name the file and line
(the code keeps the .py path) but do not quote it, and `inspect.getsource` fails.

The same goes for the wheels with `keep_sources=False`: a compiled module's bytecode is `x.pyc`
in its own folder (where Python imports it from without a source) and `x.py` leaves the wheel;
the rest stay sources. Both steps also leave out what never runs in a browser (NEVER_RUN:
C headers, static libraries, type stubs, tests, NumPy's f2py, Bokeh's Sphinx extension and
subcommands, Panel's command line and the pictures of its server's pages; STDLIB_NEVER_RUN:
the REPL, debugger, mail and network clients, and every codec but the Unicode ones and
Latin-1). tests/unit/test_site_weight.py checks that the app, every view shown, imports none.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath

from . import vendor_runtime
from .site_lock import LOCK

PYODIDE_DIR = Path("runtime") / vendor_runtime.PYODIDE_DIR
# zlib's smallest output: a first visit downloads every rewritten wheel and the standard library.
LEVEL = 9

# Wheel members that never run in a browser (regular expressions on the member's path).
NEVER_RUN = re.compile(
    r"""(
        .*\.(h|a|c|pxd|pyx|pyi|cpp)$           # C sources, headers and libraries, type stubs
      | .*/tests?/.*                          # test suites
      | numpy/(f2py|_pyinstaller|_core/include|_core/lib|random/lib|doc)/.*
      | bokeh/(sphinxext|sampledata)/.* | bokeh/command/subcommands/.*
      | panel/(command)/.* | panel/__main__\.py
      | panel/dist/images/.*                  # the pictures of the server's index page
    )""",
    re.VERBOSE,
)
# The standard library's modules and packages (top-level names) that never run in this app, and
# the codecs it keeps (UTF-8/16/32, ASCII, Latin-1, IDNA and the escapes; CSV uploads are UTF-8).
STDLIB_NEVER_RUN = frozenset(
    [
        "_pyrepl",
        "pydoc",
        "doctest",
        "pdb",
        "bdb",
        "cmd",
        "xmlrpc",
        "wsgiref",
        "mailbox",
        "imaplib",
        "smtplib",
        "ftplib",
        "poplib",
        "nntplib",
        "telnetlib",
        "trace",
        "tabnanny",
        "pyclbr",
        "zipapp",
        "compileall",
        "modulefinder",
        "wave",
        "pty",
        "tty",
        "antigravity",
        "this",
        "__phello__",
        "__hello__",
        "timeit",
        "turtle",
        "idlelib",
        "tkinter",
        "turtledemo",
        "ensurepip",
        "venv",
        "lib2to3",
        "sqlite3",
        "dbm",
    ]
)
KEPT_CODECS = frozenset(
    [
        "__init__",
        "aliases",
        "ascii",
        "latin_1",
        "utf_8",
        "utf_8_sig",
        "utf_16",
        "utf_16_be",
        "utf_16_le",
        "utf_32",
        "utf_32_be",
        "utf_32_le",
        "idna",
        "punycode",
        "unicode_escape",
        "raw_unicode_escape",
        "charmap",
        "cp437",
        "base64_codec",
        "hex_codec",
    ]
)


def never_runs(member: str) -> bool:
    """Whether a wheel member never runs in the browser (so leaves the site's wheel)."""
    return NEVER_RUN.fullmatch(member) is not None


def stdlib_never_runs(member: str) -> bool:
    """Whether a member of the standard library zip never runs in this app."""
    top = member.split("/", 1)[0].removesuffix(".pyc").removesuffix(".py")
    if top == "encodings" and member.count("/") == 1:
        codec = member.split("/")[1].removesuffix(".pyc").removesuffix(".py")
        return codec not in KEPT_CODECS
    return top in STDLIB_NEVER_RUN


# Runs in node: starts the site's Pyodide, copies the tree of sources into its in-memory file
# system, runs a compile script there (COMPILE_PY, COMPILE_STDLIB_PY) and copies every .pyc it
# wrote back to the same host paths.
NODE_DRIVER = r"""
const fs = require("fs");
const path = require("path");
const [indexURL, lockPath, root, compilePy] = process.argv.slice(2);
const { loadPyodide } = require(path.join(indexURL, "pyodide.js"));

function walk(dir, found = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, found);
    else found.push(full);
  }
  return found;
}

(async () => {
  const info = JSON.parse(fs.readFileSync(lockPath, "utf8")).info;
  const pyodide = await loadPyodide({
    indexURL: indexURL + "/",
    lockFileContents: JSON.stringify({ info, packages: {} }),
    stdout: (line) => process.stderr.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  for (const file of walk(root)) {
    pyodide.FS.mkdirTree(path.dirname(file));
    pyodide.FS.writeFile(file, fs.readFileSync(file));
  }
  pyodide.globals.set("ROOT", root);
  const result = JSON.parse(pyodide.runPython(fs.readFileSync(compilePy, "utf8")));
  for (const pyc of result.written) {
    fs.mkdirSync(path.dirname(pyc), { recursive: true });
    fs.writeFileSync(pyc, pyodide.FS.readFile(pyc));
  }
  fs.writeFileSync(path.join(root, "result.json"), JSON.stringify(result));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
"""

# Runs inside Pyodide: ROOT/<n>/ holds the sources of wheel n, laid out as in site-packages.
COMPILE_PY = """
import importlib.util, json, os, py_compile, sys, sysconfig

site_packages = sysconfig.get_path("purelib")
written, failed = [], []
for wheel in sorted(os.listdir(ROOT)):
    top = os.path.join(ROOT, wheel)
    # The project's own modules read no docstring and hold no assert (a test in
    # tests/unit/test_site_weight.py): their bytecode leaves both out (optimize=2), under the
    # name of plain bytecode.
    optimize = 2 if os.path.isdir(os.path.join(top, "pe_explorer")) else -1
    for folder, _, files in os.walk(top):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            source = os.path.join(folder, name)
            shown = os.path.join(site_packages, os.path.relpath(source, top))
            try:
                written.append(py_compile.compile(
                    source, cfile=importlib.util.cache_from_source(source, optimization=""),
                    dfile=shown, doraise=True, optimize=optimize,
                    invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
                ))
            except py_compile.PyCompileError as error:
                failed.append([source, error.msg.strip().splitlines()[-1]])
json.dumps({
    "written": written, "failed": failed, "version": sys.version.split()[0],
    "cache_tag": sys.implementation.cache_tag, "site_packages": site_packages,
})
"""


def sha256_of(data: bytes) -> str:
    """Hex sha256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def record_hash(data: bytes) -> str:
    """The hash field of a RECORD row (PEP 376/427: urlsafe base64, no padding)."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def is_pycache(name: str) -> bool:
    """Whether a wheel member is compiled bytecode (so is replaced on every run)."""
    return "__pycache__/" in name or name.endswith((".pyc", ".pyo"))


def is_module(name: str) -> bool:
    """Whether a wheel member is a module that is imported from site-packages."""
    top = name.split("/", 1)[0]
    return name.endswith(".py") and not top.endswith((".dist-info", ".data"))


def site_wheels(site: Path) -> dict[str, Path]:
    """Every wheel of the site's lock file, by package name (NumPy's modules are Python too)."""
    lock = json.loads((site / LOCK).read_text(encoding="utf-8"))
    return {
        name: (site / LOCK.parent / entry["file_name"]).resolve()
        for name, entry in lock["packages"].items()
        if entry["file_name"].endswith(".whl")
    }


def extract_sources(
    wheels: dict[str, Path], root: Path, only: frozenset[str] | None = None
) -> dict[str, Path]:
    """Write the modules of each wheel (those in `only`, when given) to root/<n>/; returns the
    folder of each package."""
    folders = {}
    for number, (name, wheel) in enumerate(sorted(wheels.items())):
        folder = root / f"{number:02d}"
        folder.mkdir(parents=True)
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if is_module(member) and (only is None or member in only):
                    target = folder / PurePosixPath(member)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(member))
        folders[name] = folder
    return folders


# Runs inside Pyodide: ROOT/ holds every source of the standard library zip, laid out as in it,
# and ROOT/startup.txt the modules (paths such as "json/decoder.py") that start-up imports.
COMPILE_STDLIB_PY = """
import sys

# Import them first, with nothing else imported yet: sys.modules then holds what Pyodide's own
# start imported, and what start-up imports under this Python (the list comes from another).
with open(ROOT + "/startup.txt", encoding="utf-8") as listing:
    for path in listing.read().split():
        try:
            __import__(path.removesuffix(".py").replace("/", ".").removesuffix(".__init__"))
        except Exception:
            pass
archive = next(entry for entry in sys.path if entry.endswith(".zip")) + "/"
origins = [getattr(getattr(module, "__spec__", None), "origin", None) or ""
           for module in list(sys.modules.values())]
# (A .pyc when the zip has them already: its source is beside.)
imported = sorted({origin[len(archive):].removesuffix("c") for origin in origins
                   if origin.startswith(archive) and origin.endswith((".py", ".pyc"))})

import json, os, py_compile

written, failed = [], []
for path in imported:
    source = os.path.join(ROOT, path)
    if not os.path.isfile(source):
        continue
    try:
        written.append(py_compile.compile(
            source, cfile=source + "c", dfile=archive + path, doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        ))
    except py_compile.PyCompileError as error:
        failed.append([path, error.msg.strip().splitlines()[-1]])
json.dumps({
    "written": written, "failed": failed, "version": sys.version.split()[0],
    "archive": archive[:-1], "imported": len(imported),
})
"""


def compile_in_pyodide(site: Path, root: Path, script: str = COMPILE_PY) -> dict:
    """Run script (COMPILE_PY by default) over root with the site's Pyodide under node; the .pyc
    it writes land beside their sources."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is needed to run Pyodide's Python and was not found on PATH")
    driver, compile_py = root.parent / "driver.cjs", root.parent / "compile.py"
    driver.write_text(NODE_DRIVER, encoding="utf-8")
    compile_py.write_text(script, encoding="utf-8")
    args = [str((site / PYODIDE_DIR).resolve()), str(site / LOCK), str(root), str(compile_py)]
    run = subprocess.run([node, str(driver), *args], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"Pyodide under node failed:\n{run.stderr[-3000:]}")
    return json.loads((root / "result.json").read_text(encoding="utf-8"))


def rewrite_wheel(
    wheel: Path, folder: Path, cache_tag: str, keep_sources: bool = True, strip: bool = True
) -> int:
    """Write the wheel again with the .pyc found under folder, in `__pycache__` beside their
    sources, or instead of them without keep_sources, and (with strip) without what never runs;
    returns how many were added. Bytecode a wheel held before goes, unless it has no source."""
    with zipfile.ZipFile(wheel) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    names = {info.filename for info, _ in members}
    records = [name for name in names if name.endswith("dist-info/RECORD")]
    if len(records) != 1:
        raise RuntimeError(f"{wheel}: expected one .dist-info/RECORD, found {len(records)}")
    record = records[0]
    dates = {info.filename: info.date_time for info, _ in members}

    def stays(name: str) -> bool:
        sourceless = name.endswith(".pyc") and "__pycache__/" not in name and name[:-1] not in names
        left_out = strip and never_runs(name)
        return name != record and not left_out and (sourceless or not is_pycache(name))

    added, replaced = {}, set()
    for pyc in sorted(folder.rglob(f"*.{cache_tag}.pyc")):
        name = pyc.relative_to(folder).as_posix()
        source = re.sub(rf"__pycache__/(.+)\.{cache_tag}\.pyc$", r"\1.py", name)
        if not keep_sources:
            name = source + "c"
            replaced.add(source)
        added[name] = (pyc.read_bytes(), dates[source])
    kept = [
        (info, data)
        for info, data in members
        if stays(info.filename) and info.filename not in replaced and info.filename not in added
    ]
    rows = [[info.filename, record_hash(data), str(len(data))] for info, data in kept]
    rows += [[name, record_hash(data), str(len(data))] for name, (data, _) in added.items()]
    rows.append([record, "", ""])
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    partial = wheel.with_name(wheel.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in kept:
            out.writestr(info, data, compresslevel=LEVEL)
        for name, (data, date_time) in added.items():
            entry = zipfile.ZipInfo(name, date_time)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            out.writestr(entry, data, compresslevel=LEVEL)
        entry = zipfile.ZipInfo(record, dates[record])
        entry.compress_type = zipfile.ZIP_DEFLATED
        entry.external_attr = 0o644 << 16
        out.writestr(entry, text.getvalue(), compresslevel=LEVEL)
    os.replace(partial, wheel)
    return len(added)


def update_lock(site: Path, wheels: dict[str, Path]) -> None:
    """Put the new sha256 of each rewritten wheel into pe-lock.json."""
    path = site / LOCK
    lock = json.loads(path.read_text(encoding="utf-8"))
    for name, wheel in wheels.items():
        lock["packages"][name]["sha256"] = sha256_of(wheel.read_bytes())
    path.write_text(json.dumps(lock, indent=1), encoding="utf-8")


def compile_site(
    site: Path, only: frozenset[str] | None = None, keep_sources: bool = True, strip: bool = True
) -> dict:
    """Precompile the modules (all, or those named in `only` as wheel members such as
    "panel/io/state.py") of the site's wheels in place, their sources kept beside or not, what
    never runs left out or not; returns what was done."""
    started = time.monotonic()
    site = site.resolve()
    wheels = site_wheels(site)
    sizes = {name: wheel.stat().st_size for name, wheel in wheels.items()}
    with tempfile.TemporaryDirectory(prefix="compile-wheels-") as scratch:
        root = Path(scratch) / "src"
        folders = extract_sources(wheels, root, only)
        result = compile_in_pyodide(site, root)
        counts = {
            name: rewrite_wheel(
                wheels[name], folders[name], result["cache_tag"], keep_sources, strip
            )
            for name in sorted(wheels)
        }
    update_lock(site, wheels)
    owners = {folder: name for name, folder in folders.items()}
    failed = []
    for source, error in result["failed"]:
        folder = root / Path(source).relative_to(root).parts[0]
        failed.append([f"{owners[folder]}: {Path(source).relative_to(folder)}", error])
    return {
        "python": result["version"],
        "cache_tag": result["cache_tag"],
        "wheels": {
            name: {
                "file": wheels[name].name,
                "pyc": counts[name],
                "bytes_before": sizes[name],
                "bytes_after": wheels[name].stat().st_size,
            }
            for name in sorted(wheels)
        },
        "not_compiled": failed,
        "seconds": round(time.monotonic() - started, 1),
    }


def rewrite_stdlib(archive: Path, root: Path, keep_sources: bool = True, strip: bool = True) -> int:
    """Write the stdlib zip again with an `x.pyc` beside each `x.py` compiled under root (or
    instead of it, without keep_sources), and without what never runs; returns how many were
    added. The .pyc it held before
    go, but for those without a source (a zip written without keep_sources): they stay."""
    with zipfile.ZipFile(archive) as old:
        names = set(old.namelist())
        infos = [
            info
            for info in old.infolist()
            if not (info.filename.endswith(".pyc") and info.filename[:-1] in names)
            and not (strip and stdlib_never_runs(info.filename))
        ]
        members = [(info, old.read(info)) for info in infos]
    added = 0
    partial = archive.with_name(archive.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            pyc = root / PurePosixPath(info.filename + "c")
            compiled = info.filename.endswith(".py") and pyc.is_file()
            if keep_sources or not compiled:
                out.writestr(info, data, compresslevel=LEVEL)
            if compiled:
                entry = zipfile.ZipInfo(info.filename + "c", info.date_time)
                entry.compress_type = zipfile.ZIP_DEFLATED
                entry.external_attr = info.external_attr
                out.writestr(entry, pyc.read_bytes(), compresslevel=LEVEL)
                added += 1
    os.replace(partial, archive)
    return added


def compile_stdlib(
    site: Path, only: frozenset[str], keep_sources: bool = True, strip: bool = True
) -> dict:
    """Precompile, in the site's python_stdlib.zip, the standard library modules that start-up
    imports: those named in `only` (paths in the stdlib such as "json/decoder.py", as another
    Python imported them), what they import under Pyodide's Python, and what Pyodide itself
    imports to start. Their sources stay beside, unless keep_sources is false. Returns what was
    done."""
    started = time.monotonic()
    site = site.resolve()
    archive = site / PYODIDE_DIR / "python_stdlib.zip"
    size = archive.stat().st_size
    with tempfile.TemporaryDirectory(prefix="compile-stdlib-") as scratch:
        root = Path(scratch) / "src"
        root.mkdir()
        with zipfile.ZipFile(archive) as stdlib:
            for member in stdlib.namelist():
                if member.endswith(".py"):
                    target = root / PurePosixPath(member)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(stdlib.read(member))
        (root / "startup.txt").write_text("\n".join(sorted(only)) + "\n", encoding="utf-8")
        result = compile_in_pyodide(site, root, COMPILE_STDLIB_PY)
        count = rewrite_stdlib(archive, root, keep_sources, strip)
    return {
        "python": result["version"],
        "archive": result["archive"],
        "named": len(only),
        "imported": result["imported"],
        "pyc": count,
        "bytes_before": size,
        "bytes_after": archive.stat().st_size,
        "not_compiled": result["failed"],
        "seconds": round(time.monotonic() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: compile the wheels of SITE and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (holds runtime/pe-lock.json)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = parser.parse_args(argv)
    if not (args.site / LOCK).is_file():
        print(f"compile_wheels: {args.site / LOCK} not found", file=sys.stderr)
        return 2
    try:
        result = compile_site(args.site)
    except RuntimeError as error:
        print(f"compile_wheels: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    wheels = result["wheels"].values()
    before = sum(w["bytes_before"] for w in wheels) / 2**20
    after = sum(w["bytes_after"] for w in wheels) / 2**20
    print(
        f"compile_wheels: {sum(w['pyc'] for w in wheels)} modules of {len(wheels)} wheels "
        f"compiled with Pyodide's Python {result['python']} in {result['seconds']} s "
        f"({before:.2f} -> {after:.2f} MiB)"
    )
    for source, error in result["not_compiled"]:
        print(f"  left as source (does not compile): {source}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

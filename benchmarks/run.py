"""Run the benchmarks: served-app latency, the Pyodide site against a baseline, and compute.

    python -m benchmarks.run [--quick] [--skip-served] [--skip-pyodide] [--skip-compute]
                             [--before RESULTS.json ...] [--site DIR] [--variant NAME=DIR ...]
                             [--label TEXT]
    python -m benchmarks.run --from-json RESULTS.json [--before RESULTS.json ...]

Writes benchmarks/results/<time>.json (and latest.json; both git-ignored), prints the markdown
tables with PASS/FAIL per budget and writes them to benchmarks/RESULTS.md (committed). With
--before (repeatable), the tables of earlier results files are kept in RESULTS.md for comparison;
--from-json measures nothing and only renders a results file.
Nothing here fails on a missed budget: benchmarks report, tests assert.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

from . import compute, latency, report

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
RESULTS_DIR = HERE / "results"
RESULTS_MD = HERE / "RESULTS.md"

SIZES = {"S": (128, 128), "M": (512, 512), "L": (2048, 2048)}
PYODIDE_SIZES = ("S", "M")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def environment() -> dict:
    """What the numbers were measured on."""

    def git(*args):
        try:
            return subprocess.run(
                ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    import numpy
    import panel

    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": git("rev-parse", "--short", "HEAD"),
        "uncommitted_files": len((git("status", "--porcelain") or "").splitlines()),
        "python": platform.python_version(),
        "panel": panel.__version__,
        "numpy": numpy.__version__,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        # Other work on the machine skews every timing: the load average says how busy it was.
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def describe(results: dict) -> str:
    """One line: when, on what, and how busy the machine was."""
    env = results["environment"]
    load = env.get("load_average_at_start", ["?"])[0], env.get("load_average_at_end", ["?"])[0]
    return (
        f"{env['date']}, commit {env['commit']} (+{env['uncommitted_files']} uncommitted files), "
        f"{env['cpus']} CPUs (load average {load[0]} at start, {load[1]} at end), "
        f"Python {env['python']}, Panel {env['panel']}, NumPy {env['numpy']}"
        f"{', quick' if results['quick'] else ''}."
    )


# RESULTS.md's hand-written part starts at this heading; a run rewrites only what is above it.
NOTES_HEADING = "## Notes"


def kept_notes() -> str:
    """The hand-written notes at the end of RESULTS.md (how the figures came about), or ''."""
    text = RESULTS_MD.read_text() if RESULTS_MD.is_file() else ""
    start = text.find(f"\n{NOTES_HEADING}")
    return text[start + 1 :] if start >= 0 else ""


def markdown(results: dict, befores: list[dict]) -> str:
    """RESULTS.md: the latest tables, then each earlier run's, then the kept notes."""
    parts = [
        "# Benchmark results",
        "",
        "Made by `python -m benchmarks.run` (or `./build.sh bench`); the tables are rewritten on "
        f"every run, the notes under '{NOTES_HEADING}' are kept. These are measurements, not "
        "tests: see benchmarks/run.py for what each number means.",
        "",
        "- Sizes: S = d_model 128 × 128 positions, M = 512 × 512, L = 2048 × 2048.",
        "- Latency: one arrow key on a slider (Chromium via Playwright) until every view that "
        "shows the value has repainted, timed in the page with performance.now(); the served app "
        "runs benchmarks/sized_app.py (the explorer at that size) under `panel serve`.",
        "- Pyodide: the static site from `./build.sh build`, opened offline through "
        "../shared/pyodide-offline in a fresh profile each time, against "
        "benchmarks/baseline_app.py (one slider, one Plotly line) converted the same way.",
        "- Timings depend on how busy the machine is (2 CPUs shared with other work): compare runs "
        "made under a similar load average.",
        "",
        f"## Latest run{': ' + results['label'] if results.get('label') else ''}",
        "",
        describe(results),
        "",
        report.render(results)[0],
    ]
    for before in befores:
        tables = report.render(before)[0]
        parts += [
            "",
            f"## Before: {before.get('label') or 'earlier run'}",
            "",
            describe(before),
            "",
            tables.replace("\n### ", "\n#### ").replace("### ", "#### ", 1),
        ]
    notes = kept_notes()
    if notes:
        parts += ["", notes.rstrip()]
    return "\n".join(parts).rstrip() + "\n"


def site_page(site_dir: Path) -> str:
    """The page of a built explorer site."""
    return "index.html" if (site_dir / "index.html").is_file() else "app.html"


def variant(text: str) -> tuple[str, Path]:
    """--variant NAME=DIR: another build of the explorer, reported as its own column."""
    name, sep, folder = text.partition("=")
    name = name.strip()
    if not sep or not name or not folder:
        raise argparse.ArgumentTypeError(f"expected NAME=DIR, got {text!r}")
    if name in ("explorer", "baseline"):
        raise argparse.ArgumentTypeError(f"{name!r} is taken (use --site for the explorer)")
    site_dir = Path(folder).expanduser()
    if not (site_dir / site_page(site_dir)).is_file():
        raise argparse.ArgumentTypeError(f"no index.html or app.html in {site_dir}")
    return name, site_dir


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and cold starts")
    parser.add_argument("--skip-served", action="store_true")
    parser.add_argument("--skip-pyodide", action="store_true")
    parser.add_argument("--skip-compute", action="store_true")
    parser.add_argument("--steps", type=int, help="steps per control, served app (default 50)")
    parser.add_argument("--pyodide-steps", type=int, help="steps per control, Pyodide (20)")
    parser.add_argument("--pyodide-runs", type=int, help="cold + return visits of each site (3)")
    parser.add_argument("--site", type=Path, help="use this explorer site instead of building")
    parser.add_argument(
        "--variant",
        type=variant,
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="also measure this built site like the explorer, as column NAME (repeatable)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        action="append",
        default=[],
        help="earlier results JSON to keep in RESULTS.md (repeatable)",
    )
    parser.add_argument("--from-json", type=Path, help="render this results JSON; measure nothing")
    parser.add_argument("--label", default="", help="a name for this run, e.g. 'after'")
    parser.add_argument("--no-results-md", action="store_true", help="do not rewrite RESULTS.md")
    args = parser.parse_args(argv)

    befores = [json.loads(path.read_text()) for path in args.before]
    if args.from_json:
        results = json.loads(args.from_json.read_text())
        print(report.render(results)[0])
        if not args.no_results_md:
            RESULTS_MD.write_text(markdown(results, befores))
            log(f"tables written to {RESULTS_MD}")
        return 0

    steps = args.steps or (10 if args.quick else 50)
    pyodide_steps = args.pyodide_steps or (5 if args.quick else 20)
    pyodide_runs = args.pyodide_runs or (1 if args.quick else 3)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    results = {
        "label": args.label,
        "quick": args.quick,
        "quiet_ms": latency.QUIET_MS,
        "environment": environment(),
    }
    started = time.monotonic()

    if not args.skip_compute:
        log("compute: PE matrix and in-process page steps")
        results["compute"] = {
            "matrix": compute.matrix_timings(SIZES, repeats=3 if args.quick else 7),
            "page_steps": compute.page_step_timings(SIZES, steps=5 if args.quick else 20),
        }
    if not args.skip_served:
        from . import served

        try:
            results["served"] = served.run(SIZES, steps, log=log)
        except RuntimeError as error:
            results["served"] = {"skipped": str(error)}
    if not args.skip_pyodide:
        from . import pyodide_site

        sites = {}
        if args.site:
            sites["explorer"] = (args.site.resolve(), site_page(args.site))
        for name, site_dir in args.variant:
            sites[name] = (site_dir.resolve(), site_page(site_dir))
        results["pyodide"] = pyodide_site.run(
            RESULTS_DIR,
            {name: SIZES[name] for name in PYODIDE_SIZES},
            pyodide_steps,
            pyodide_runs,
            sites=sites,
            log=log,
        )
        if "skipped" in results["pyodide"]:
            log(f"Pyodide site skipped: {results['pyodide']['skipped']}")
    results["duration_s"] = round(time.monotonic() - started)
    results["environment"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]

    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", args.label).strip("-")[:40]
    path = RESULTS_DIR / f"{stamp}{'-' + slug if slug else ''}.json"
    text = json.dumps(results, indent=1)
    path.write_text(text)
    (RESULTS_DIR / "latest.json").write_text(text)
    tables, checks = report.render(results)
    print(tables)
    failed = [label for label, ok in checks if not ok]
    log(f"results: {path}; {len(checks) - len(failed)} of {len(checks)} budgets met")
    if not args.no_results_md:
        RESULTS_MD.write_text(markdown(results, befores))
        log(f"tables written to {RESULTS_MD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

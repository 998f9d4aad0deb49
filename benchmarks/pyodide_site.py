"""The static Pyodide site, offline: cold start, bytes and interaction latency, and a baseline.

Both sites are converted in the run: the explorer with ./build.sh build, the baseline
(benchmarks/baseline_app.py) with the same `panel convert --to pyodide-worker` call and
requirements. They are opened alternately through ../shared/pyodide-offline, each in a fresh
browser profile (a cold start every time), and the medians are compared.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

from . import latency

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_OFFLINE = REPO_ROOT.parent / "shared" / "pyodide-offline"
BASELINE_APP = "benchmarks/baseline_app.py"
# What a Panel + NumPy + Plotly app needs: Panel's Plotly pane turns a figure dict into a
# plotly.py Figure, so plotly.py is installed. (The explorer passes its figures to plotly.js
# as they are and does without it: build.sh's SITE_REQUIREMENTS.)
BASELINE_REQUIREMENTS = ("numpy", "plotly==7.1.0")

# Set a slider's value on its Bokeh model, as a drag would: the change goes to the worker.
# The live document is the last one; the first holds the prerendered page.
SET_SLIDER_JS = """({cssClass, value}) => {
  for (const doc of [...window.Bokeh.documents].reverse()) {
    const models = doc.all_models;
    for (const model of (models.values ? models.values() : models)) {
      if ((model.css_classes || []).includes(cssClass) && 'value' in model.properties) {
        model.value = value;
        return true;
      }
    }
  }
  return false;
}"""


def offline_harness():
    """The offline_site module, or the reason it cannot be used."""
    if SHARED_OFFLINE.is_dir() and str(SHARED_OFFLINE) not in sys.path:
        sys.path.insert(0, str(SHARED_OFFLINE))
    try:
        import offline_site
    except ImportError as error:
        return None, f"the offline Pyodide harness is not importable from {SHARED_OFFLINE}: {error}"
    mirror = os.environ.get("PYODIDE_MIRROR") or str(Path.home() / ".cache/pyodide-mirror")
    missing = offline_site.missing_prerequisites(mirror)
    if missing:
        return None, "; ".join(missing)
    return offline_site, None


def build_explorer(out: Path, log=print) -> tuple[Path, str]:
    """./build.sh build into out/site-explorer; (site folder, page)."""
    site = out / "site-explorer"
    log(f"building the explorer site into {site}")
    subprocess.run([str(REPO_ROOT / "build.sh"), "build", str(site)], cwd=REPO_ROOT, check=True)
    return site, "index.html" if (site / "index.html").is_file() else "app.html"


def build_baseline(out: Path, log=print) -> tuple[Path, str]:
    """panel convert the baseline app into out/site-baseline; (site folder, page)."""
    site = out / "site-baseline"
    log(f"converting {BASELINE_APP} into {site}")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "panel",
            "convert",
            BASELINE_APP,
            "--to",
            "pyodide-worker",
            "--out",
            str(site),
            "--requirements",
            *BASELINE_REQUIREMENTS,
        ],
        cwd=REPO_ROOT,
        check=True,
    )
    return site, "baseline_app.html"


def status_time(load: dict, prefix: str) -> int | None:
    """When the worker first reported a status starting with prefix (ms from navigation)."""
    for t, message in load["worker_status_ms"]:
        if message.startswith(prefix):
            return t
    return None


def cold_start(load: dict) -> dict:
    """The milestones and bytes of one page load."""
    milestones = load["milestones_ms"]
    hosts = load["hosts"].values()
    return {
        "interactive": load["interactive"],
        "error": load["error"],
        "prerendered_visible_ms": milestones["prerendered_content_painted"],
        "first_contentful_paint_ms": milestones["first_contentful_paint"],
        # loadPyodide() and loadPackage("micropip") have returned.
        "pyodide_loaded_ms": status_time(load, "Installing environment"),
        # micropip.install() has returned; the app's code starts.
        "packages_installed_ms": status_time(load, "Executing code"),
        "interactive_ms": milestones["interactive"],
        "interactive_painted_ms": milestones["interactive_painted"],
        "requests": load["requests"],
        "wire_bytes": sum(h["wire_bytes"] for h in hosts),
        "raw_bytes": sum(h["raw_bytes"] for h in hosts),
    }


def set_size(site, d_model: int, n_positions: int) -> None:
    """Move the d_model and n_positions sliders' models and wait until every view caught up."""
    page = site.page
    for css_class, value in (
        ("pe-control-n-positions", n_positions),
        ("pe-control-d-model", d_model),
    ):
        if not page.evaluate(SET_SLIDER_JS, {"cssClass": css_class, "value": value}):
            raise RuntimeError(f"no slider model with css class {css_class}")
    conditions = [
        latency.condition(latency.D_MODEL_VALUE, "^" + latency.literal(str(d_model)) + "$"),
        latency.condition(
            latency.PLOT_TITLE, latency.literal(f"{n_positions} positions × {d_model} dimensions")
        ),
    ]
    page.wait_for_function(
        "(conditions) => conditions.every((c) => window.__bench.holds(c))",
        arg=conditions,
        polling=250,
        timeout=180_000,
    )
    latency.wait_quiet(page, quiet_ms=1500)


def measure_latency(site, sizes: dict[str, tuple[int, int]], steps: int, log=print) -> dict:
    """Step pos, offset and d_model at each size in the open site."""
    site.page.evaluate(latency.PROBE_JS)
    results = {}
    for name, (d_model, n_positions) in sizes.items():
        log(f"  Pyodide latency at {name} (d_model {d_model}, {n_positions} positions)")
        set_size(site, d_model, n_positions)
        controls = {}
        for control in ("pos", "offset", "d_model"):
            result = latency.measure_control(site.page, control, steps, n_positions)
            controls[control] = result.summary()
            summary = controls[control]
            log(
                f"    {control}: p50 {summary['p50_ms'] or 0:.0f} ms, "
                f"p95 {summary['p95_ms'] or 0:.0f} ms over {summary['steps']} steps"
                + (f" — {summary['error']}" if summary["error"] else "")
            )
            latency.wait_quiet(site.page, quiet_ms=1000)
        results[name] = {"d_model": d_model, "n_positions": n_positions, "controls": controls}
    return results


def median_of(runs: list[dict], key: str):
    values = [run[key] for run in runs if run.get(key) is not None]
    return statistics.median(values) if values else None


def run(
    out: Path,
    sizes: dict[str, tuple[int, int]],
    steps: int,
    runs: int,
    sites: dict[str, tuple[Path, str]] | None = None,
    log=print,
) -> dict:
    """Cold starts of both sites (alternating), then latency in the explorer's last load."""
    offline_site, reason = offline_harness()
    if offline_site is None:
        return {"skipped": reason}
    sites = dict(sites or {})
    if "explorer" not in sites:
        sites["explorer"] = build_explorer(out, log)
    sites["baseline"] = build_baseline(out, log)
    loads: dict[str, list[dict]] = {"baseline": [], "explorer": []}
    interaction: dict = {}
    console_errors: list = []
    not_found: list = []
    for attempt in range(runs):
        for name in ("baseline", "explorer"):
            site_dir, page = sites[name]
            log(f"cold start {attempt + 1}/{runs}: {name} ({site_dir.name}/{page})")
            with offline_site.open_offline_site(site_dir, page) as site:
                load = cold_start(site.load)
                # Every request so far, to explain a difference in bytes between runs.
                load["requests_log"] = [
                    [entry["host"], entry["path"][:160], entry["status"], entry["wire_bytes"]]
                    for entry in site.server.log.snapshot()
                ]
                loads[name].append(load)
                log(
                    f"  prerendered {load['prerendered_visible_ms']} ms, Pyodide "
                    f"{load['pyodide_loaded_ms']} ms, packages {load['packages_installed_ms']} ms, "
                    f"interactive {load['interactive_ms']} ms, "
                    f"{load['wire_bytes'] / 2**20:.1f} MiB sent"
                )
                if name == "explorer" and attempt == runs - 1 and site.interactive:
                    interaction = measure_latency(site, sizes, steps, log)
                if name == "explorer":
                    console_errors = [
                        error
                        for error in site.console_errors()
                        if "favicon.ico" not in error["url"] + error["text"]
                    ]
                    # Chromium's own background requests are not the site's.
                    not_found = [url for url in site.not_found() if "googleapis.com" not in url]
    medians = {
        name: {
            key: median_of(runs_, key)
            for key in (
                "prerendered_visible_ms",
                "first_contentful_paint_ms",
                "pyodide_loaded_ms",
                "packages_installed_ms",
                "interactive_ms",
                "interactive_painted_ms",
                "requests",
                "wire_bytes",
                "raw_bytes",
            )
        }
        for name, runs_ in loads.items()
    }
    return {
        "runs": runs,
        "steps": steps,
        "loads": loads,
        "medians": medians,
        "latency": interaction,
        "explorer_console_errors": console_errors,
        "explorer_not_found": not_found,
    }

"""The static Pyodide site, offline: start-up (cold and return visit), bytes and interaction
latency, against a baseline.

Both sites are converted in the run: the explorer with ./build.sh build, the baseline
(benchmarks/baseline_app.py) with the default `panel convert --to pyodide-worker` call. Each
attempt opens every site in turn (baseline, explorer, then any extra variants of the explorer)
through ../shared/pyodide-offline in a fresh browser profile: a cold visit; then, once the
service worker (if any) has filled its cache, a return visit in the same profile (HTTP cache and
service worker kept). The medians per site are compared.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import latency

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_OFFLINE = REPO_ROOT.parent / "shared" / "pyodide-offline"
SHARED_MIRROR = REPO_ROOT.parent / "shared" / "pyodide-mirror"
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


def mirror_dir() -> Path:
    """The mirror the sites load Pyodide and the CDNs' files from: $PYODIDE_MIRROR, else the
    runtime copy shared beside this checkout (../shared/pyodide-mirror)."""
    return Path(os.environ.get("PYODIDE_MIRROR") or SHARED_MIRROR).expanduser()


def offline_harness():
    """The offline_site module, or the reason it cannot be used."""
    if SHARED_OFFLINE.is_dir() and str(SHARED_OFFLINE) not in sys.path:
        sys.path.insert(0, str(SHARED_OFFLINE))
    try:
        import offline_site
    except ImportError as error:
        return None, f"the offline Pyodide harness is not importable from {SHARED_OFFLINE}: {error}"
    missing = offline_site.missing_prerequisites(mirror_dir())
    if missing:
        return None, "; ".join(missing)
    return offline_site, None


def harness_or_exit():
    """offline_site with $PYODIDE_MIRROR set, or exit saying why it cannot be used."""
    offline_site, problem = offline_harness()
    if offline_site is None:
        raise SystemExit(problem)
    os.environ.setdefault("PYODIDE_MIRROR", str(mirror_dir()))
    return offline_site


def site_main(doc: str, run, argv, option: tuple[str, type, object]) -> int:
    """A benchmark's command line: --site (else a fresh build), one option of its own passed to
    run(site, value), and --json FILE for the result, which is also printed."""
    import argparse
    import json
    import tempfile

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    name, kind, default = option
    parser.add_argument(name, type=kind, default=default)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_explorer(Path(tmp))[0]
        result = run(site.resolve(), getattr(args, name.lstrip("-")))
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


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
    for t, message in load.get("worker_status_ms") or []:
        if message.startswith(prefix):
            return t
    return None


# The worker's status messages, in order. The explorer's (static/protocol.js): 'Loading Python
# and packages' (start), 'Importing Panel and the app' (loadPyodide has returned with every
# package of the lock file), 'Executing code' (imports done; the page is being built). The
# default Panel conversion (the baseline): 'Loading pyodide', 'Installing environment'
# (Pyodide loaded), 'Executing code' (micropip has installed the packages; the imports and the
# page build follow as one step, so 'imports done' cannot be told apart).
OURS_PACKAGES_READY = "Importing Panel and the app"
PANEL_RUNTIME_LOADED = "Installing environment"
EXECUTING = "Executing code"

# The start-up phases reported per load, in order (keys of load_record, ms from navigation).
PHASES = (
    "prerendered_visible_ms",
    "runtime_loaded_ms",
    "packages_ready_ms",
    "imports_done_ms",
    "page_built_ms",
    "interactive_ms",
)


def phase_times(load: dict) -> dict:
    """Runtime loaded, packages ready and imports done, from whichever status messages the site
    posts (the explorer's or the default conversion's, see above)."""
    ours = status_time(load, OURS_PACKAGES_READY)
    runtime = status_time(load, PANEL_RUNTIME_LOADED)
    executing = status_time(load, EXECUTING)
    if ours is not None:
        return {
            "runtime_loaded_ms": runtime if runtime is not None else ours,
            "packages_ready_ms": ours,
            "imports_done_ms": executing,
        }
    return {"runtime_loaded_ms": runtime, "packages_ready_ms": executing, "imports_done_ms": None}


# Chromium's own background requests (e.g. content-autofill.googleapis.com) are not the site's.
BROWSER_HOSTS = ("googleapis.com",)


def site_hosts(hosts: dict) -> dict:
    """Requests and bytes per host, without Chromium's own background requests."""
    return {
        host: {key: row[key] for key in ("requests", "wire_bytes", "raw_bytes")}
        for host, row in hosts.items()
        if not host.endswith(BROWSER_HOSTS)
    }


def load_record(load: dict) -> dict:
    """The phases, bytes and requests (per host and in all) of one page load."""
    milestones = load.get("milestones_ms") or {}
    hosts = site_hosts(load.get("hosts") or {})
    phases = phase_times(load)
    requests = sum(h["requests"] for h in hosts.values())
    return {
        "interactive": load["interactive"],
        "error": load["error"],
        "first_contentful_paint_ms": milestones.get("first_contentful_paint"),
        "prerendered_visible_ms": milestones.get("prerendered_content_painted"),
        **phases,
        "page_built_ms": milestones.get("worker_render_message"),
        "interactive_ms": milestones.get("interactive"),
        "interactive_painted_ms": milestones.get("interactive_painted"),
        # The keys of earlier results: Pyodide loaded, packages installed.
        "pyodide_loaded_ms": phases["runtime_loaded_ms"],
        "packages_installed_ms": phases["packages_ready_ms"],
        "requests": requests,
        "browser_requests": (load.get("requests") or 0) - requests,
        "wire_bytes": sum(h["wire_bytes"] for h in hosts.values()),
        "raw_bytes": sum(h["raw_bytes"] for h in hosts.values()),
        "hosts": hosts,
        "worker_status_ms": load.get("worker_status_ms"),
    }


def cold_start(load: dict) -> dict:
    """The milestones and bytes of one page load (kept for callers of earlier versions)."""
    return load_record(load)


# Entries in every Cache Storage cache of the page's origin, and whether a service worker is
# registered for it.
CACHE_STATE_JS = """async () => {
  let entries = 0;
  const names = self.caches ? await caches.keys() : [];
  for (const name of names) entries += (await (await caches.open(name)).keys()).length;
  const registrations = navigator.serviceWorker
    ? await navigator.serviceWorker.getRegistrations() : [];
  return {entries, caches: names.length, workers: registrations.length};
}"""


def wait_for_service_worker_cache(
    page, stable_s: float = 2.0, timeout_s: float = 60.0, poll_s: float = 0.25
) -> dict:
    """Wait until the service worker's caches stop growing: the total number of entries is
    unchanged for stable_s (and not zero while a worker is registered), at most timeout_s.
    A site without a service worker returns at once."""
    started = time.monotonic()

    def result(state: dict, stable: bool) -> dict:
        return {**state, "waited_ms": round((time.monotonic() - started) * 1000), "stable": stable}

    state = page.evaluate(CACHE_STATE_JS)
    if not state["workers"] and not state["entries"]:
        return result(state, True)
    last, since = state["entries"], time.monotonic()
    while time.monotonic() - started < timeout_s:
        time.sleep(poll_s)
        state = page.evaluate(CACHE_STATE_JS)
        if state["entries"] != last:
            last, since = state["entries"], time.monotonic()
        elif last and time.monotonic() - since >= stable_s:
            return result(state, True)
    return result(state, False)


def worker_targets(page) -> list[tuple[str, str]]:
    """(type, file) of every worker the browser runs, from Chromium's DevTools targets:
    ("shared_worker", "app.js"), ("worker", "app.js"), ("service_worker", "sw.js")."""
    cdp = page.context.new_cdp_session(page)
    try:
        targets = cdp.send("Target.getTargets")["targetInfos"]
    finally:
        cdp.detach()
    return sorted(
        (t["type"], t["url"].rsplit("/", 1)[-1]) for t in targets if t["type"].endswith("worker")
    )


def leave(site, timeout_s: float = 60) -> None:
    """Leave the page, and wait until its shared Python runtime (app.js, a shared worker) has
    ended: a return visit then starts Python again, as after closing the tab, instead of joining
    the runtime the first visit left running (which a second tab would do). A runtime still
    there after timeout_s fails here, not as a page that never starts later."""
    site.page.goto("about:blank")
    deadline = time.monotonic() + timeout_s
    while any(kind == "shared_worker" for kind, _ in worker_targets(site.page)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the shared Python runtime was still running {timeout_s:g} s after")
        time.sleep(0.1)


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


MEDIAN_KEYS = (
    "first_contentful_paint_ms",
    *PHASES,
    "interactive_painted_ms",
    "pyodide_loaded_ms",
    "packages_installed_ms",
    "requests",
    "wire_bytes",
    "raw_bytes",
)


def medians(loads: list[dict]) -> dict:
    """The median of every measure over loads, and of requests and bytes per host."""
    result = {key: median_of(loads, key) for key in MEDIAN_KEYS}
    hosts = sorted({host for load in loads for host in load["hosts"]})
    result["hosts"] = {  # a host a load did not ask counts 0
        host: {
            key: statistics.median([load["hosts"].get(host, {}).get(key, 0) for load in loads])
            for key in ("requests", "wire_bytes", "raw_bytes")
        }
        for host in hosts
    }
    return result


def request_log(site) -> list:
    """Every request so far, to explain a difference in bytes between runs."""
    return [
        [entry["host"], entry["path"][:160], entry["status"], entry["wire_bytes"]]
        for entry in site.metrics()["requests"]
    ]


def describe(record: dict) -> str:
    def ms(key):
        return "–" if record[key] is None else f"{record[key]:,}"

    return (
        f"prerendered {ms('prerendered_visible_ms')}, runtime {ms('runtime_loaded_ms')}, "
        f"packages {ms('packages_ready_ms')}, imports {ms('imports_done_ms')}, "
        f"built {ms('page_built_ms')}, interactive {ms('interactive_ms')} ms; "
        f"{record['requests']} requests, {record['wire_bytes'] / 2**20:.1f} MiB sent"
        + (f" — {record['error']}" if record["error"] else "")
    )


def run(
    out: Path,
    sizes: dict[str, tuple[int, int]],
    steps: int,
    runs: int,
    sites: dict[str, tuple[Path, str]] | None = None,
    log=print,
) -> dict:
    """Cold and return visits of every site (alternating), latency in the explorer's last one.

    sites: name -> (site folder, page). "explorer" is built if missing, "baseline" too; any
    other name is a variant of the explorer, measured the same way (cold and return visit).
    """
    offline_site, reason = offline_harness()
    if offline_site is None:
        return {"skipped": reason}
    sites = dict(sites or {})
    if "explorer" not in sites:
        sites["explorer"] = build_explorer(out, log)
    if "baseline" not in sites:
        sites["baseline"] = build_baseline(out, log)
    variants = [name for name in sites if name not in ("baseline", "explorer")]
    order = ["baseline", "explorer", *variants]
    mirror = mirror_dir()
    loads: dict[str, list[dict]] = {name: [] for name in order}
    returns: dict[str, list[dict]] = {name: [] for name in order}
    interaction: dict = {}
    console_errors: list = []
    not_found: list = []
    for attempt in range(runs):
        for name in order:
            site_dir, page = sites[name]
            log(f"attempt {attempt + 1}/{runs}: {name} ({site_dir}/{page})")
            with offline_site.open_offline_site(site_dir, page, mirror) as site:
                cold = load_record(site.load)
                cold["requests_log"] = request_log(site)
                log(f"  cold:   {describe(cold)}")
                if site.interactive:
                    cold["service_worker_cache"] = wait_for_service_worker_cache(site.page)
                    cache = cold["service_worker_cache"]
                    growing = "" if cache["stable"] else " (still growing)"
                    if cache["workers"] or cache["entries"]:
                        log(
                            f"  service worker cache: {cache['entries']} entries after "
                            f"{cache['waited_ms']} ms{growing}"
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
                loads[name].append(cold)
                leave(site)
                back = load_record(site.revisit())
                back["requests_log"] = request_log(site)
                returns[name].append(back)
                log(f"  return: {describe(back)}")
    return {
        "runs": runs,
        "steps": steps,
        "order": order,
        "sites": {name: {"dir": str(path), "page": page} for name, (path, page) in sites.items()},
        "loads": loads,
        "returns": returns,
        "medians": {name: medians(runs_) for name, runs_ in loads.items()},
        "return_medians": {name: medians(runs_) for name, runs_ in returns.items()},
        "latency": interaction,
        "explorer_console_errors": console_errors,
        "explorer_not_found": not_found,
    }

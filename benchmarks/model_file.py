"""From a dropped model file to the drawn model view (issue 41), in the built Pyodide site, offline:
the time from choosing a file in the view's file chooser to its chart naming the new model, for a
config.json, a sparse 5 GiB GGUF (read by its header only) and a safetensors header beside a
pasted config. Percentiles over runs; the hello app has no such step, so the figures are absolute.

    python -m benchmarks.model_file [--site DIR] [--runs 10] [--json FILE]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .pyodide_site import harness_or_exit, site_main

LABEL_JS = """() => (__offline.deep('.js-plotly-plot[aria-label]')[0] || {})
  .getAttribute?.('aria-label') || ''"""


def files(folder: Path) -> dict[str, Path]:
    """The three files, written once: two configs and a GGUF (5 GiB, sparse)."""
    tests = Path(__file__).resolve().parents[1] / "tests"
    sys.path[:0] = [str(tests / "pyodide"), str(tests / "support")]
    from test_pyodide_model import GEMMA3, LLAMA, write_gguf

    made = {"config.json": folder / "config.json", "gguf 5 GiB": folder / "big.gguf",
            "config 2": folder / "llama.json"}  # fmt: skip
    made["config.json"].write_text(json.dumps(GEMMA3))
    made["config 2"].write_text(json.dumps(LLAMA))
    write_gguf(made["gguf 5 GiB"], 5 << 30)
    return made


def time_choice(site, path: Path) -> float:
    """ms from choosing the file to the chart's new name."""
    before = site.page.evaluate(LABEL_JS)
    started = time.perf_counter()
    site.page.locator(".pe-model-file input[type=file]").set_input_files(str(path))
    site.page.wait_for_function(
        f"(before) => ({LABEL_JS})() !== before", arg=before, timeout=120_000, polling="raf"
    )
    return (time.perf_counter() - started) * 1000


def percentiles(values: list[float]) -> dict:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered)), "p95": round(p95), "n": len(ordered)}


def run(site: Path, runs: int, log=print) -> dict:
    offline_site = harness_or_exit()
    with tempfile.TemporaryDirectory() as tmp:
        made = files(Path(tmp))
        timings: dict[str, list[float]] = {name: [] for name in made}
        with offline_site.open_offline_site(site, "index.html") as page:
            page.goto("?view=model")
            page.page.wait_for_function(f"() => ({LABEL_JS})() !== ''", timeout=120_000)
            for _ in range(runs):
                for name, path in made.items():
                    timings[name].append(time_choice(page, path))
        result = {name: percentiles(values) for name, values in timings.items()}
    for name, row in result.items():
        log(f"{name}: p50 {row['p50']} ms, p95 {row['p95']} ms ({row['n']} runs)")
    return result


def main(argv=None) -> int:
    return site_main(__doc__, run, argv, ("--runs", int, 10))


if __name__ == "__main__":
    raise SystemExit(main())

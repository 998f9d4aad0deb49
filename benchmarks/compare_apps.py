"""Side-by-side latency of app variants: the way a change is judged before it is kept.

    python -m benchmarks.compare_apps APP [APP ...] [--rounds 3] [--steps 40]
                                      [--control d_model] [--size S]

Each APP is an app file for `panel serve` (benchmarks/sized_app.py, or a copy with one change).
Rounds alternate the apps, each under its own `panel serve`, in one Chromium, so a machine that
gets busier or quieter during the run weighs on every variant alike; a benchmark run one day
against one the next cannot tell 3 ms apart on this machine, this can. For every keyboard step
it records the latency exactly as `./build.sh bench` does (benchmarks/latency.py), and the time
of each Plotly.react in the page, which shows how much of a step is the plots' own redraw.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from . import latency, served
from .run import SIZES

# Times every Plotly.react of the page (Panel's Plotly pane draws each new figure with it).
TIME_REACT_JS = """() => {
  if (window.__reactTimes) return;
  window.__reactTimes = [];
  const react = window.Plotly.react;
  window.Plotly.react = function (...args) {
    const started = performance.now();
    const done = () => window.__reactTimes.push(performance.now() - started);
    const result = react.apply(this, args);
    if (result && typeof result.then === 'function') result.then(done, done); else done();
    return result;
  };
}"""
WARM_UP_STEPS = 3


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_app(browser, app: str, size: str, control: str, steps: int) -> dict:
    """Latencies and Plotly.react times of `steps` keyboard steps of one app, freshly served."""
    d_model, n_positions = SIZES[size]
    with served.panel_serve(app) as url:
        context = browser.new_context(viewport=served.VIEWPORT)
        context.add_init_script(latency.PROBE_JS)
        try:
            page = context.new_page()
            served.open_at_size(page, url, d_model, n_positions)
            page.evaluate(TIME_REACT_JS)
            latency.measure_control(page, control, WARM_UP_STEPS, n_positions)
            page.evaluate("() => { window.__reactTimes.length = 0; }")
            result = latency.measure_control(page, control, steps, n_positions)
            if result.error:
                raise RuntimeError(f"{app}: {result.error}")
            reacts = page.evaluate("window.__reactTimes")
            return {"latencies": result.latencies_ms, "reacts": reacts}
        finally:
            context.close()


def summary(latencies: list[float], reacts: list[float]) -> str:
    per_step = sum(reacts) / len(latencies) if latencies else 0.0
    return (
        f"p50 {statistics.median(latencies):5.1f} ms  p95 {percentile(latencies, 0.95):5.1f} ms  "
        f"react p50 {statistics.median(reacts) if reacts else 0:5.1f} ms  "
        f"react per step {per_step:5.1f} ms"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("apps", nargs="+", help="app files for panel serve")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40, help="measured steps per app and round")
    parser.add_argument("--control", choices=("pos", "offset", "d_model"), default="d_model")
    parser.add_argument("--size", choices=tuple(SIZES), default="S")
    args = parser.parse_args(argv)
    for app in args.apps:
        if not Path(app).is_file():
            parser.error(f"no app file {app}")

    from playwright.sync_api import sync_playwright

    totals = {app: {"latencies": [], "reacts": []} for app in args.apps}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=served.chromium_path(), args=served.CHROMIUM_ARGS
        )
        try:
            for round_ in range(1, args.rounds + 1):
                for app in args.apps:
                    measured = measure_app(browser, app, args.size, args.control, args.steps)
                    for key in totals[app]:
                        totals[app][key] += measured[key]
                    print(f"round {round_}  {app}: {summary(**measured)}", flush=True)
        finally:
            browser.close()
    print(f"all rounds, {args.control} steps at {args.size}:")
    for app, measured in totals.items():
        print(f"  {app}: {summary(**measured)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

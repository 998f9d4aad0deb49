"""Catch-up after a storm, served (issue 22): how long a view off screen takes to show the state.

Views off screen wait while the sliders move. After a storm of key steps on pos and offset, each
view is scrolled to in turn and timed until its figure shows the final state (catch-up), then,
still on screen, until it shows one more step of pos (step). The hello-world app
(benchmarks/baseline_app.py, one slider and one Plotly line) gets one key step at a time in the
same run, timed until its title shows the new value: the reference. Reported as percentiles and
as ratios of the explorer's p95 to the hello-world app's. Usage:

    python -m benchmarks.catch_up [--rounds 3] [--hello-steps 40]

Writes benchmarks/results/catch-up-<time>.json and prints a table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import sys
import time

import numpy as np
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS

from .run import RESULTS_DIR, environment, log
from .served import CHROMIUM_ARGS, VIEWPORT, chromium_path, panel_serve

START = {"pos": 0, "offset": 0, "d_model": 64, "n_positions": 128}
STORM_BURSTS = 10
HELLO_APP = "benchmarks/baseline_app.py"


def percentiles(seconds: list[float]) -> dict:
    values = np.asarray(seconds) * 1000
    return {
        "n": int(values.size),
        "p50_ms": round(float(np.percentile(values, 50)), 1) if values.size else None,
        "p95_ms": round(float(np.percentile(values, 95)), 1) if values.size else None,
        "max_ms": round(float(values.max()), 1) if values.size else None,
    }


def explorer_round(browser, url: str, seed: int) -> dict:
    """One storm from pos = 0 and k = 0, then every view's catch-up and step, in seconds."""
    # The tests' own helpers (tests/support, put on sys.path by served.py): the storm and the
    # catch-up are driven exactly as in tests/browser/test_controls_browser.py.
    from browser_support import look_at
    from controls_support import catch_up_and_step_times, storm

    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(url + "?" + "&".join(f"{key}={value}" for key, value in START.items()))
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        for spec in VIEWS:  # draw every view once, then leave them off screen
            look_at(page, spec.name)
            page.wait_for_timeout(300)
        look_at(page, VIEWS[0].name)
        page.wait_for_timeout(1000)
        rng = random.Random(f"catch-up-{seed}")
        weights = {"pos": 1, "offset": 1}
        state, _ = storm(page, rng, ExplorerState(**START), STORM_BURSTS, weights=weights)
        return catch_up_and_step_times(page, state)
    finally:
        context.close()


def until_titled(page, title: str, timeout_s: float = 30) -> float:
    """Seconds until the hello-world app's plot is titled `title`."""
    from browser_support import plots

    started = time.monotonic()
    while plots(page)[0]["title"] != title:
        if time.monotonic() - started > timeout_s:
            raise RuntimeError(f"the hello-world app never showed {title}")
        page.wait_for_timeout(5)
    return time.monotonic() - started


def hello_steps(browser, url: str, steps: int) -> list[float]:
    """Seconds from each ArrowRight on the hello-world app's slider until its title shows it."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(url)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        handle = page.locator(".noUi-handle").first
        times, frequency = [], 1
        while len(times) < steps:
            handle.focus()
            if frequency == 20:  # the slider's end: back to 1, untimed
                page.keyboard.press("Home")
                until_titled(page, "sin(1x)")
                frequency = 1
            frequency += 1
            page.keyboard.press("ArrowRight")
            times.append(until_titled(page, f"sin({frequency}x)"))
        return times
    finally:
        context.close()


def run(rounds: int, steps: int) -> dict:
    """The hello-world app's steps, then `rounds` storms of the explorer, in one browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            with panel_serve(HELLO_APP) as url:
                hello = hello_steps(browser, url, steps)
            log(f"hello-world app: {percentiles(hello)}")
            catch_ups, on_screen, failures = [], [], []
            with panel_serve("app.py") as url:
                for seed in range(rounds):
                    try:
                        times = explorer_round(browser, url, seed)
                    except AssertionError as error:  # a view never showed it: counted, not timed
                        failures.append(f"round {seed}: {error}")
                        log(failures[-1])
                        continue
                    catch_ups += [catch_up for catch_up, _ in times.values()]
                    on_screen += [step for _, step in times.values()]
                    log(f"round {seed}: {len(times)} views")
            version = browser.version
        finally:
            browser.close()
    result = {
        "browser": version,
        "rounds": rounds,
        "hello_step": percentiles(hello),
        "catch_up": percentiles(catch_ups),
        "step_on_screen": percentiles(on_screen),
        "failures": failures,
    }
    reference = result["hello_step"]["p95_ms"]
    for name in ("catch_up", "step_on_screen"):
        mine = result[name]["p95_ms"]
        ratio = round(mine / reference, 2) if reference and mine else None
        result[name]["p95_over_hello_p95"] = ratio
    return result


def table(result: dict) -> str:
    """The markdown table RESULTS.md quotes: ms, and the p95 as a ratio of the hello-world app's."""
    rows = [
        ("explorer: a view off screen, scrolled to, shows the storm's end", "catch_up"),
        ("explorer: a view on screen shows one step of pos", "step_on_screen"),
        ("hello-world app: its title shows one step", "hello_step"),
    ]
    lines = ["| what | n | p50 ms | p95 ms | p95 ÷ hello p95 |", "| --- | --- | --- | --- | --- |"]
    for label, name in rows:
        row = result[name]
        ratio = row.get("p95_over_hello_p95", 1.0)
        lines.append(f"| {label} | {row['n']} | {row['p50_ms']} | {row['p95_ms']} | {ratio}× |")
    failed = f"\n\n{len(result['failures'])} of {result['rounds']} rounds had a view that never "
    failed += "showed the state within 30 s."
    return "\n".join(lines) + (failed if result["failures"] else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="storms, each from pos = k = 0")
    parser.add_argument("--hello-steps", type=int, default=40, help="timed steps of the hello app")
    args = parser.parse_args(argv)
    results = {"environment": environment(), **run(args.rounds, args.hello_steps)}
    results["environment"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"catch-up-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(results, indent=1))
    print(table(results))
    log(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

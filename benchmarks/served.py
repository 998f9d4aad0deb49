"""Interaction latency of the served app (`panel serve`) in Debian Chromium, at three sizes."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

from . import latency

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests" / "support"))
from browser_support import CHROMIUM_ARGS, panel_serve  # noqa: E402

APP = "benchmarks/sized_app.py"
VIEWPORT = {"width": 1400, "height": 900}


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not path:
        raise RuntimeError("no chromium: apt-get install chromium, or set $CHROMIUM")
    return path


def open_at_size(page, url: str, d_model: int, n_positions: int) -> None:
    """Open the app at one size and wait until its first row of views is drawn and still."""
    page.goto(f"{url}?d_model={d_model}&n_positions={n_positions}")
    # The compare view's readout: the first row of views is drawn.
    page.locator(latency.POS_READOUT).first.wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    latency.wait_quiet(page, quiet_ms=1000)


def measure_size(browser, url: str, d_model: int, n_positions: int, steps: int) -> dict:
    """Open the app at one size and step pos, offset and d_model."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(latency.PROBE_JS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        started = time.monotonic()
        open_at_size(page, url, d_model, n_positions)
        load_s = time.monotonic() - started
        controls = {}
        for control in ("pos", "offset", "d_model"):
            result = latency.measure_control(page, control, steps, n_positions)
            controls[control] = result.summary()
            latency.wait_quiet(page, quiet_ms=500)
        return {
            "d_model": d_model,
            "n_positions": n_positions,
            "load_to_quiet_s": round(load_s, 2),
            "controls": controls,
            "console_errors": [e for e in errors if "favicon" not in e],
        }
    finally:
        context.close()


def run(sizes: dict[str, tuple[int, int]], steps: int, log=print) -> dict:
    """Latency of pos, offset and d_model steps at each size, in one served app."""
    from playwright.sync_api import sync_playwright

    results = {}
    # Started the way the browser tests start the app (tests/support/browser_support.py).
    with panel_serve(APP) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            for name, (d_model, n_positions) in sizes.items():
                log(f"served app, size {name} (d_model {d_model}, {n_positions} positions)")
                results[name] = measure_size(browser, url, d_model, n_positions, steps)
                for control, summary in results[name]["controls"].items():
                    log(
                        f"  {control}: p50 {summary['p50_ms'] or 0:.0f} ms, "
                        f"p95 {summary['p95_ms'] or 0:.0f} ms over {summary['steps']} steps"
                        + (f" — {summary['error']}" if summary["error"] else "")
                    )
            version = browser.version
        finally:
            browser.close()
    return {"browser": version, "steps": steps, "sizes": results}

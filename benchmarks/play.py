"""Play (issue 17) in the Pyodide build, offline: the frame rate it holds and whether views lag.

At sizes S and M, Play sweeps pos at its top speed (30 steps a second) for a while. Every
animation frame the page records the position the slider, the heatmap's row marker and the
compare view's bars show. From that: positions drawn per second, the intervals between them
(percentiles), how often a view showed another position than the slider (lag), and how long
the views took to agree after Pause. The baseline (benchmarks/baseline_app.py, converted the
default way) gets the same 30 steps a second from the keyboard on its slider; its titles drawn
per second are the reference rate. Usage:

    python -m benchmarks.play [--site DIR] [--seconds 10] [--json FILE]
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from .pyodide_site import build_baseline, build_explorer, harness_or_exit, site_main
from .run import PYODIDE_SIZES, SIZES

SPEED = 30
# Each animation frame: what the slider, the heatmap's marker and the bars show for pos.
SAMPLER_JS = """() => {
  window.__playSamples = [];
  const deep = (selector) => window.__offline.deep(selector);
  const sample = () => {
    if (!window.__playSampling) return;
    const plots = deep('.js-plotly-plot');
    const title = (p) => (p.layout && p.layout.title && p.layout.title.text) || '';
    const heat = plots.find((p) => title(p).startsWith('PE matrix'));
    const bars = plots.find((p) => title(p).startsWith('PE(pos)'));
    const marker = heat && (heat.layout.images || []).find((i) => i.name === 'pos');
    const slider = deep('.pe-control-pos')[0];
    const value = slider && (slider.shadowRoot || slider).querySelector('.bk-slider-value');
    const barsPos = bars && /PE\\((\\d+)\\)/.exec(bars.data[0].name);
    window.__playSamples.push([
      performance.now(),
      value ? Number(value.textContent.trim()) : null,
      marker ? marker.y : null,
      barsPos ? Number(barsPos[1]) : null,
    ]);
    requestAnimationFrame(sample);
  };
  window.__playSampling = true;
  requestAnimationFrame(sample);
}"""
# The baseline's plot title, every animation frame.
BASELINE_SAMPLER_JS = """() => {
  window.__playSamples = [];
  const sample = () => {
    if (!window.__playSampling) return;
    const plot = window.__offline.deep('.js-plotly-plot')[0];
    window.__playSamples.push([performance.now(), plot ? plot.layout.title.text : null]);
    requestAnimationFrame(sample);
  };
  window.__playSampling = true;
  requestAnimationFrame(sample);
}"""
PLAYING_JS = """() => window.__offline.deep('.pe-play').some((host) =>
  ((host.shadowRoot || host).querySelector('button') || {}).textContent.includes('Pause'))"""


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def changes(samples: list[list], column: int) -> list[float]:
    """The times at which the value in column changed (its first value is not a change)."""
    times, last = [], None
    for row in samples:
        value = row[column]
        if value is None:
            continue
        if last is not None and value != last:
            times.append(row[0])
        last = value
    return times


def rate(times: list[float]) -> dict:
    """Changes per second over the window, and the intervals between them."""
    intervals = [b - a for a, b in zip(times, times[1:], strict=False)]
    span_s = (times[-1] - times[0]) / 1000 if len(times) > 1 else 0
    return {
        "per_second": round((len(times) - 1) / span_s, 1) if span_s else 0.0,
        "interval_p50_ms": round(percentile(intervals, 0.5) or 0),
        "interval_p95_ms": round(percentile(intervals, 0.95) or 0),
    }


def explorer_play(offline_site, site: Path, d_model: int, n_positions: int, seconds: float):
    query = f"d_model={d_model}&n_positions={n_positions}&pos=0&offset=0"
    with offline_site.open_offline_site(site, "index.html", timeout_s=300) as page_site:
        page_site.goto(f"?{query}")
        page = page_site.page
        page.locator(".pe-play-speed .noUi-handle").first.focus()
        page.keyboard.press("End")
        page.wait_for_timeout(1000)
        page.evaluate(SAMPLER_JS)
        page.locator(".pe-play button").first.click()
        page.wait_for_function(PLAYING_JS, timeout=30_000)
        time.sleep(seconds)
        page.locator(".pe-play button").first.click()
        paused_at = page.evaluate("performance.now()")
        time.sleep(3)
        page.evaluate("window.__playSampling = false")
        samples = page.evaluate("window.__playSamples")
        errors = page_site.console_errors()
    playing = [row for row in samples if row[0] < paused_at]
    after = [row for row in samples if row[0] >= paused_at]
    final = after[-1] if after else None
    agreed = next(
        (row[0] for row in after if row[1] is not None and row[1] == row[2] == row[3] == final[1]),
        None,
    )
    lagging = [row for row in playing if row[1] is not None and not (row[1] == row[2] == row[3])]
    behind = [
        (row[1] - row[2]) % n_positions
        for row in lagging
        if row[1] is not None and row[2] is not None
    ]
    return {
        "heatmap": rate(changes(playing, 2)),
        "bars": rate(changes(playing, 3)),
        "slider": rate(changes(playing, 1)),
        "frames_sampled": len(playing),
        "frames_views_differ": len(lagging),
        "max_positions_behind": max(behind, default=0),
        "agree_after_pause_ms": round(agreed - paused_at) if agreed is not None else None,
        "console_errors": len(errors),
    }


def baseline_keys(offline_site, site: Path, page_name: str, seconds: float) -> dict:
    with offline_site.open_offline_site(site, page_name, timeout_s=300) as page_site:
        page = page_site.page
        page.evaluate(BASELINE_SAMPLER_JS)
        handle = page.locator(".noUi-handle").first
        handle.focus()
        begun = time.monotonic()
        presses = 0
        while time.monotonic() - begun < seconds:
            page.keyboard.press("Home" if presses % 20 == 19 else "ArrowRight")
            presses += 1
            time.sleep(max(0.0, begun + presses / SPEED - time.monotonic()))
        page.evaluate("window.__playSampling = false")
        samples = page.evaluate("window.__playSamples")
    return {"titles": rate(changes(samples, 1)), "presses": presses}


def run(site: Path | None, seconds: float, log=print) -> dict:
    offline_site = harness_or_exit()
    with tempfile.TemporaryDirectory() as tmp:
        site = site or build_explorer(Path(tmp), log)[0]
        baseline_site, baseline_page = build_baseline(Path(tmp), log)
        result = {"speed": SPEED, "seconds": seconds}
        result["baseline"] = baseline_keys(offline_site, baseline_site, baseline_page, seconds)
        log(f"baseline: {result['baseline']}")
        reference = result["baseline"]["titles"]["per_second"]
        for name in PYODIDE_SIZES:
            d_model, n_positions = SIZES[name]
            record = explorer_play(offline_site, site, d_model, n_positions, seconds)
            held = record["heatmap"]["per_second"]
            record["ratio_to_baseline"] = round(held / reference, 2) if reference else None
            log(f"{name} (d_model {d_model}, {n_positions} positions): {record}")
            result[name] = record
    return result


def main(argv=None) -> int:
    return site_main(__doc__, run, argv, ("--seconds", float, 10.0))


if __name__ == "__main__":
    raise SystemExit(main())

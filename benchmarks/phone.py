"""Time to interactive on a phone: the explorer against the hello-world baseline
(benchmarks/baseline_app.py), cold and on return, on a 390 × 844 touch screen at 3 device pixels
per CSS pixel with the CPU at full speed and slowed (4× by default), offline.

    python -m benchmarks.phone [--runs 5] [--rates 1 4] [--cpu cgroup|cdp] [--desktop]
                               [--site DIR] [--baseline DIR]

What slows the CPU. Pyodide runs in a worker, and CDP's Emulation.setCPUThrottlingRate slows
a page's main thread only: Chromium 156 refuses it on a worker's target ("Operation is only
supported for pages, not workers"), even when the worker is attached paused
(Target.setAutoAttach with waitForDebuggerOnStart) and throttled before it runs. With the
hello app's page at 4× through CDP, a CPU-bound loop took 382 ms in the page and 94 ms in the
worker, as at full speed (64 / 77 ms). So `--cpu cgroup` (the default; root and cgroup v1)
moves every Chromium process, once the browser has started, under a Linux CFS quota
(benchmarks/cpu_limit.py): every thread, the workers too, shares a fraction of one core, and
processes Chromium starts later inherit it. The offline server stays at full speed: it stands
for the network. The fraction is calibrated before the runs, in a worker the start page starts,
until the loop there is `rate` times slower than at full speed (1/4 of a core gave 3.4× to
4.1×). Once the apps were interactive the loop ran 3.9–4.7× slower in the page and in every
worker, against about 1× in the workers through CDP. The whole browser shares that fraction,
so threads that ran in parallel at full speed take turns, and each hand-off between them waits
for the quota: time to interactive grows about 7–8× (both apps), more than the loop's 4×; a
phone with several slow cores would be kinder. `--cpu cdp` keeps CDP's page-only throttle, for
comparison (its return visits open a new tab the throttle does not reach, so none are
measured). Pinning Chromium to one core (taskset) would only take away parallelism, not slow a
thread.

Every cold visit is in a fresh profile, through the offline kit's public API: the profile first
opens START_PAGE, a page written beside the site's own that does nothing by itself; the CPU is
slowed; then `goto("?open")` makes it replace itself with the app, and the kit waits for the
app as for any load (its milestones count from the app's navigation; its bytes include the
start page's few hundred). The return visit (`revisit()`) opens the start page again in the
same profile once the first visit's tab and its shared worker are gone. A loop is timed in the
page and in each worker once the app is interactive, so each row shows what was slowed.
Prints a table (median and p90 of each site, the explorer's ratio to the baseline in the same
run) and writes the measurements to benchmarks/results/phone-<time>.json. No thresholds.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from . import cpu_limit
from .compare_apps import percentile
from .pyodide_site import (
    build_baseline,
    build_explorer,
    leave,
    load_record,
    mirror_dir,
    offline_harness,
)
from .run import RESULTS_DIR, environment, log, site_page

PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 3}
DESKTOP_VIEWPORT = (1280, 900)
PHONE_VIEWPORT = (390, 844)
START_PAGE = "phone-start.html"  # beside the site's pages, so the app keeps its origin
OPEN_QUERY = "?open"  # the start page opens the app only when asked
# A bare file name of the site's folder: no scheme, host, folder or "..".
SITE_PAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\.html")
# A CPU-bound loop (ms), timed where it runs: in the page, or in a worker through CDP.
LOOP_JS = """(() => {
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 1.5e8; i++) x += i % 7;
  return x > 0 ? performance.now() - started : -1;
})()"""
LOOP_REPEATS = 3
# The same loop in a worker of its own, started by the page: to calibrate the CPU quota before
# any app runs.
CALIBRATION_JS = """async ({loop, repeats}) => {
  const source = `onmessage = () => { postMessage(${loop}); };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source])));
  const times = [];
  for (let i = 0; i < repeats; i++) {
    times.push(await new Promise((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.postMessage(null);
    }));
  }
  worker.terminate();
  return times;
}"""
CALIBRATION_REPEATS = 5
CALIBRATION_ROUNDS = 3


def start_page(page: str) -> str:
    """START_PAGE's HTML: with OPEN_QUERY it replaces itself with `page`, the site's own page
    named at build time (the query cannot send it anywhere else); without, it does nothing."""
    if not SITE_PAGE.fullmatch(page) or page == START_PAGE:
        raise ValueError(f"not a page of the site's folder: {page!r}")
    return (
        '<!DOCTYPE html><html lang="en"><title>start</title>\n'
        f"<script>if (location.search === {json.dumps(OPEN_QUERY)}) "
        f"location.replace({json.dumps(page)});</script>\n</html>\n"
    )


def screens(rates: list[float], desktop: bool) -> dict[str, dict]:
    """The screens measured: the desktop at full speed (if asked), then the phone at each rate."""
    result = {}
    if desktop:
        result["desktop"] = {"viewport": DESKTOP_VIEWPORT, "context_options": {}, "rate": 1}
    for rate in rates:
        result[f"phone {rate:g}×"] = {
            "viewport": PHONE_VIEWPORT,
            "context_options": PHONE,
            "rate": rate,
        }
    return result


def link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


def with_start_page(site: Path, page: str, out: Path) -> Path:
    """A copy of the site (hard links where it can) with START_PAGE beside its pages: the
    offline server serves no file from outside the folder, so symbolic links will not do."""
    if not (site / page).is_file():
        raise FileNotFoundError(site / page)
    copy = out / site.name
    shutil.copytree(site, copy, symlinks=True, copy_function=link_or_copy)
    (copy / START_PAGE).write_text(start_page(page))
    return copy


class WorkerTargets:
    """The browser's dedicated and shared workers as CDP targets. Playwright reaches only pages
    and frames, so messages go through a browser session (Target.sendMessageToTarget)."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.browser.new_browser_cdp_session()
        self.replies: dict[str, list[dict]] = {}
        self.cdp.on("Target.receivedMessageFromTarget", self._received)
        self.sessions: dict[str, str] = {}  # "worker app.js" -> CDP session id
        self.next_id = 0
        for target in self.cdp.send("Target.getTargets")["targetInfos"]:
            if target["type"] in ("worker", "shared_worker"):
                name = f"{target['type']} {target['url'].rsplit('/', 1)[-1]}"
                attached = self.cdp.send(
                    "Target.attachToTarget", {"targetId": target["targetId"], "flatten": False}
                )
                self.sessions[name] = attached["sessionId"]

    def _received(self, event: dict) -> None:
        self.replies.setdefault(event["sessionId"], []).append(json.loads(event["message"]))

    def call(self, name: str, method: str, params: dict, timeout_s: float = 120) -> dict:
        """A CDP command in the worker called name: its result, or {"error": message}."""
        session = self.sessions[name]
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        self.cdp.send(
            "Target.sendMessageToTarget", {"sessionId": session, "message": json.dumps(message)}
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for reply in self.replies.get(session, []):
                if reply.get("id") == message["id"]:
                    if "error" in reply:
                        return {"error": reply["error"].get("message")}
                    return reply["result"]
            self.page.wait_for_timeout(20)
        return {"error": f"no answer after {timeout_s:g} s"}

    def loop_ms(self, name: str) -> float | None:
        result = self.call(name, "Runtime.evaluate", {"expression": LOOP_JS, "returnByValue": True})
        return result.get("result", {}).get("value")

    def close(self) -> None:
        self.cdp.detach()


def loop_times(site, cdp_rate: float | None = None) -> dict:
    """The loop's median time (ms) in the page and in each worker; with cdp_rate, also what
    Chromium said when CDP's throttle was asked of each worker."""
    workers = WorkerTargets(site.page)
    result = {}
    try:
        if cdp_rate is not None:
            result["worker_throttle_refused"] = {
                name: workers.call(name, "Emulation.setCPUThrottlingRate", {"rate": cdp_rate}).get(
                    "error"
                )
                for name in workers.sessions
            }
        times = {where: [] for where in ("page", *workers.sessions)}
        for _ in range(LOOP_REPEATS):  # in turn, so a busier moment weighs on each alike
            times["page"].append(site.page.evaluate(LOOP_JS))
            for name in workers.sessions:
                times[name].append(workers.loop_ms(name))
    finally:
        workers.close()
    result["loop_ms"] = {
        where: statistics.median([t for t in values if t is not None] or [0])
        for where, values in times.items()
    }
    return result


def open_start_page(offline_site, site_dir: Path, screen: dict):
    """The site's START_PAGE in a fresh profile, on this screen: nothing to wait for."""
    return offline_site.open_offline_site(
        site_dir,
        START_PAGE,
        mirror_dir(),
        timeout_s=1,
        viewport=screen["viewport"],
        context_options=screen["context_options"],
    )


def worker_loop(page) -> float:
    """The loop's median time (ms) in a new worker of the page."""
    times = page.evaluate(CALIBRATION_JS, {"loop": LOOP_JS, "repeats": CALIBRATION_REPEATS})
    return statistics.median(times)


def calibrate(offline_site, site_dir: Path, limit: cpu_limit.CpuLimit, log=log) -> dict:
    """Set the limit's quota so that the loop, in a worker, runs `limit.rate` times slower than
    at full speed: measure at full speed, then under the quota, and correct it, a few rounds.
    Returns the loop's times and the factor each round measured."""
    wanted = limit.rate
    with open_start_page(
        offline_site, site_dir, {"viewport": PHONE_VIEWPORT, "context_options": PHONE}
    ) as site:
        full_speed = worker_loop(site.page)
        limit.add(cpu_limit.browser_processes())
        rounds = []
        for round_ in range(1, CALIBRATION_ROUNDS + 1):
            slowed = worker_loop(site.page)
            factor = slowed / full_speed
            rounds.append({"quota_rate": limit.rate, "loop_ms": slowed, "factor": factor})
            log(
                f"calibration: quota for {limit.rate:.2f}× gave {factor:.2f}× in a worker "
                f"({full_speed:.0f} → {slowed:.0f} ms)"
            )
            if abs(factor - wanted) / wanted < 0.05 or round_ == CALIBRATION_ROUNDS:
                break  # the quota in place is the one measured last
            limit.set_rate(max(1.0, limit.rate * wanted / factor))
    return {
        "wanted": wanted,
        "full_speed_loop_ms": full_speed,
        "rounds": rounds,
        "quota_us": limit.quota_us,
        "period_us": limit.period_us,
    }


def visits(offline_site, site_dir: Path, screen: dict, cpu: str, limit) -> tuple[dict, dict | None]:
    """A cold visit (the start page, the CPU slowed, then the app) with the loop's times once
    interactive, and the return visit in the same profile (None where it cannot be slowed)."""
    rate = screen["rate"]
    with open_start_page(offline_site, site_dir, screen) as site:
        if rate != 1 and cpu == "cgroup":
            limit.add(cpu_limit.browser_processes())
        if rate != 1 and cpu == "cdp":
            cdp = site.page.context.new_cdp_session(site.page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        cold = load_record(site.goto(OPEN_QUERY))
        if site.interactive:
            site.settle(settle_ms=1000, timeout_s=60)  # the worker idle: the loop runs alone
            cold.update(loop_times(site, rate if cpu == "cdp" else None))
        cold["console_errors"] = errors(site.console_errors())
        if rate != 1 and cpu == "cdp":  # the return visit's new tab would not be throttled
            return cold, None
        leave(site)  # the app's shared worker ends, as after closing the tab
        back = load_record(site.revisit())
        back["console_errors"] = errors(
            [c for c in site.console[site.console_mark :] if c in site.console_errors()]
        )
    return cold, back


def errors(console: list[dict]) -> list[dict]:
    """Console errors, without Chromium's request for a favicon the site does not have."""
    return [e for e in console if "favicon.ico" not in e["url"] + e["text"]]


def summary(values: list) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {"median": None, "p90": None, "n": 0}
    return {"median": statistics.median(values), "p90": percentile(values, 0.9), "n": len(values)}


def over(a, b):
    return a / b if a and b else None


def loop_medians(runs: list[dict]) -> dict:
    """The loop's median time per place (the page first, then each worker)."""
    places = sorted(
        {where for r in runs for where in r.get("loop_ms", {})},
        key=lambda where: (where != "page", where),
    )
    return {
        where: statistics.median(
            [r["loop_ms"][where] for r in runs if where in r.get("loop_ms", {})]
        )
        for where in places
    }


def summarise(loads: dict, rates: dict[str, float]) -> dict:
    """Per screen and visit (cold, return): each site's time to interactive (median, p90) and
    the explorer's ratio to the baseline; the return visits also against the baseline's cold
    time; the loop's median times, and their factor over the phone at full speed."""
    result = {}
    full_speed = next((s for s, r in rates.items() if r == 1 and s.startswith("phone")), None)
    for screen, sites in loads.items():
        row = {}
        for visit in ("cold", "return"):
            times = {
                name: summary([r["interactive_ms"] for r in runs[visit] if r])
                for name, runs in sites.items()
            }
            times["explorer_over_baseline"] = over(
                times["explorer"]["median"], times["baseline"]["median"]
            )
            row[visit] = times
        row["return"]["explorer_over_baseline_cold"] = over(
            row["return"]["explorer"]["median"], row["cold"]["baseline"]["median"]
        )
        row["loop_ms"] = {name: loop_medians(runs["cold"]) for name, runs in sites.items()}
        result[screen] = row
    for row in result.values():
        if full_speed is None:
            break
        row["loop_factor"] = {
            name: {
                where: over(ms, result[full_speed]["loop_ms"][name].get(where))
                for where, ms in places.items()
            }
            for name, places in row["loop_ms"].items()
        }
    return result


def table(summaries: dict) -> str:
    def ms(value):
        return "–" if value is None else f"{value / 1000:.1f} s"

    def ratio(value):
        return "–" if value is None else f"{value:.2f}×"

    lines = [
        "| screen | visit | explorer median | explorer p90 | hello median | hello p90 "
        "| explorer / hello |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for screen, row in summaries.items():
        for visit in ("cold", "return"):
            e, b = row[visit]["explorer"], row[visit]["baseline"]
            share = ratio(row[visit]["explorer_over_baseline"])
            if visit == "return":
                share += f" ({ratio(row['return']['explorer_over_baseline_cold'])} of hello cold)"
            lines.append(
                f"| {screen} | {visit} | {ms(e['median'])} | {ms(e['p90'])} | {ms(b['median'])} "
                f"| {ms(b['p90'])} | {share} |"
            )
    lines += ["", "CPU-bound loop once interactive (median ms, and × the phone at full speed):", ""]
    for screen, row in summaries.items():
        for name, places in row["loop_ms"].items():
            factors = row.get("loop_factor", {}).get(name, {})
            cells = ", ".join(
                f"{where} {value:.0f}" + (f" ({factors[where]:.1f}×)" if factors.get(where) else "")
                for where, value in places.items()
            )
            lines.append(f"- {screen}, {name}: {cells}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="visits per site and screen")
    parser.add_argument("--rates", type=float, nargs="+", default=[1, 4], help="CPU slow-downs")
    parser.add_argument(
        "--cpu",
        choices=("cgroup", "cdp"),
        default="cgroup",
        help="slow the whole browser (cgroup, needs root) or the page only (CDP)",
    )
    parser.add_argument("--desktop", action="store_true", help="also the 1280 × 900 desktop")
    parser.add_argument("--site", type=Path, help="a built explorer site (default: build one)")
    parser.add_argument("--baseline", type=Path, help="a converted baseline (default: convert)")
    args = parser.parse_args(argv)

    offline_site, reason = offline_harness()
    if offline_site is None:
        log(f"cannot run: {reason}")
        return 2
    slowed = sorted({rate for rate in args.rates if rate != 1})
    if args.cpu == "cgroup" and slowed:
        reason = cpu_limit.unavailable()
        if reason or len(slowed) > 1:
            log(f"cannot slow the browser by {slowed}: {reason or 'one rate at a time'}")
            return 2
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    results = {
        "environment": environment(),
        "runs": args.runs,
        "rates": args.rates,
        "cpu": args.cpu,
    }
    measured = screens(args.rates, args.desktop)
    limit = (
        cpu_limit.CpuLimit(slowed[0])
        if args.cpu == "cgroup" and slowed
        else contextlib.nullcontext()
    )
    with tempfile.TemporaryDirectory(dir=RESULTS_DIR) as tmp, limit:
        out = Path(tmp)
        if args.site:
            explorer = (args.site.resolve(), site_page(args.site))
        else:
            explorer = build_explorer(out, log)
        if args.baseline:
            baseline = (args.baseline.resolve(), "baseline_app.html")
        else:
            baseline = build_baseline(out, log)
        sites = {
            name: with_start_page(folder, page, out / "started" / name)
            for name, (folder, page) in (("baseline", baseline), ("explorer", explorer))
        }
        if isinstance(limit, cpu_limit.CpuLimit):
            results["calibration"] = calibrate(offline_site, sites["baseline"], limit)
        loads = {
            screen: {name: {"cold": [], "return": []} for name in sites} for screen in measured
        }
        # Rounds alternate screens and sites, so a machine getting busier weighs on all alike.
        for attempt in range(1, args.runs + 1):
            for screen, options in measured.items():
                for name, folder in sites.items():
                    cold, back = visits(offline_site, folder, options, args.cpu, limit)
                    loads[screen][name]["cold"].append(cold)
                    loads[screen][name]["return"].append(back)
                    log(
                        f"run {attempt}/{args.runs} {screen:>10} {name:>8}: interactive "
                        f"{cold['interactive_ms']} ms cold, "
                        f"{back['interactive_ms'] if back else '–'} ms on return"
                        + "".join(f" — {r['error']}" for r in (cold, back) if r and r["error"])
                    )
    results["loads"] = loads
    results["summary"] = summarise(loads, {s: o["rate"] for s, o in measured.items()})
    results["environment"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = RESULTS_DIR / f"phone-{stamp}.json"
    path.write_text(json.dumps(results, indent=1))
    print(table(results["summary"]))
    if "calibration" in results:
        calibration = results["calibration"]
        print(
            f"\nCPU: the browser under a {calibration['quota_us']} µs / "
            f"{calibration['period_us']} µs quota; a loop in a worker "
            f"{calibration['rounds'][-1]['factor']:.2f}× slower at calibration"
        )
    refused = {
        answer
        for runs in loads.values()
        for visits_ in runs.values()
        for record in visits_["cold"]
        for answer in record.get("worker_throttle_refused", {}).values()
    }
    if refused:
        print(f"CDP's throttle asked of the workers: {sorted(str(a) for a in refused)}")
    log(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

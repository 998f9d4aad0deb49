"""Time to interactive on a phone: the explorer against the hello-world baseline
(benchmarks/baseline_app.py), on a 390 × 844 touch screen at 3 device pixels per CSS pixel with
the CPU at 1× and 4× throttle, next to the 1280 × 900 desktop, offline.

    python -m benchmarks.phone [--runs 5] [--rates 1 4] [--site DIR] [--baseline DIR]

Every load is a cold start in a fresh profile: the profile first opens an empty page of the
site's origin, the throttle is set (CDP Emulation.setCPUThrottlingRate on the page), and only
then is the app opened. Chromium throttles pages only: the same call on a worker's target is
refused ("only supported for pages"), so Pyodide, which runs in a worker, is not slowed. To show
it, a CPU-bound loop is timed in the page and in each worker once the app is interactive.
Prints a table (median and p90 of each site, the explorer's ratio to the baseline in the same
run) and writes the measurements to benchmarks/results/phone-<time>.json. No thresholds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .compare_apps import percentile
from .pyodide_site import build_baseline, build_explorer, load_record, mirror_dir, offline_harness
from .run import RESULTS_DIR, environment, log, site_page

PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 3}
DESKTOP_VIEWPORT = (1280, 900)
PHONE_VIEWPORT = (390, 844)
START_PAGE = "blank.html"  # of the site's origin: the profile exists before the app is opened
START_HTML = '<!DOCTYPE html><html lang="en"><title>start</title></html>\n'
# A CPU-bound loop, timed where it runs (ms): in the page, or in a worker through CDP.
LOOP_JS = """(() => {
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 6e7; i++) x += i % 7;
  return x > 0 ? performance.now() - started : -1;
})()"""
LOOP_REPEATS = 3


def screens(rates: list[float]) -> dict[str, dict]:
    """The screens measured: the desktop, unthrottled, then the phone at each CPU rate."""
    result = {"desktop": {"viewport": DESKTOP_VIEWPORT, "context_options": {}, "rate": 1}}
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


def with_start_page(site: Path, out: Path) -> Path:
    """A copy of the site (hard links where it can) with an empty START_PAGE beside its pages:
    the offline server serves no file from outside the folder, so symbolic links will not do."""
    copy = out / site.name
    shutil.copytree(site, copy, symlinks=True, copy_function=link_or_copy)
    (copy / START_PAGE).write_text(START_HTML)
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


def loop_times(site, rate: float) -> dict:
    """The loop's median time (ms) in the page and in each worker, and what Chromium said when
    the throttle was asked of each worker too."""
    workers = WorkerTargets(site.page)
    try:
        refused = {
            name: workers.call(name, "Emulation.setCPUThrottlingRate", {"rate": rate}).get("error")
            for name in workers.sessions
        }
        times = {where: [] for where in ("page", *workers.sessions)}
        for _ in range(LOOP_REPEATS):  # in turn, so a busier moment weighs on each alike
            times["page"].append(site.page.evaluate(LOOP_JS))
            for name in workers.sessions:
                times[name].append(workers.loop_ms(name))
    finally:
        workers.close()
    medians = {
        where: statistics.median([t for t in values if t is not None] or [0])
        for where, values in times.items()
    }
    return {"loop_ms": medians, "worker_throttle_refused": refused}


def cold_load(offline_site, site_dir: Path, page: str, screen: dict) -> dict:
    """Open the start page, set the CPU throttle, then open the app: its load record, and the
    loop's times once interactive."""
    with offline_site.open_offline_site(
        site_dir,
        START_PAGE,
        mirror_dir(),
        timeout_s=1,  # the start page is not an app: nothing to wait for
        viewport=screen["viewport"],
        context_options=screen["context_options"],
    ) as site:
        cdp = site.page.context.new_cdp_session(site.page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": screen["rate"]})
        site.url = f"https://{offline_site.offline_server.SITE_HOST}/{page}"
        site.server.log.reset()
        record = load_record(site._load(300))
        if site.interactive:
            record.update(loop_times(site, screen["rate"]))
        record["console_errors"] = [
            e for e in site.console_errors() if "favicon.ico" not in e["url"] + e["text"]
        ]
        cdp.detach()
    return record


def summary(values: list) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {"median": None, "p90": None, "n": 0}
    return {"median": statistics.median(values), "p90": percentile(values, 0.9), "n": len(values)}


def summarise(loads: dict) -> dict:
    """Per screen: each site's time to interactive (median, p90), the explorer's ratio to the
    baseline and to its own desktop time, and the loop's median times."""
    result = {}
    desktop = summary([r["interactive_ms"] for r in loads["desktop"]["explorer"]])["median"]
    for screen, sites in loads.items():
        row = {name: summary([r["interactive_ms"] for r in runs]) for name, runs in sites.items()}
        explorer, baseline = row["explorer"]["median"], row["baseline"]["median"]
        row["explorer_over_baseline"] = explorer / baseline if explorer and baseline else None
        row["explorer_over_desktop"] = explorer / desktop if explorer and desktop else None
        row["loop_ms"] = {
            name: {
                where: statistics.median(
                    [r["loop_ms"][where] for r in runs if where in r.get("loop_ms", {})]
                )
                for where in sorted(
                    {where for r in runs for where in r.get("loop_ms", {})},
                    key=lambda where: (where != "page", where),  # the page first, then workers
                )
            }
            for name, runs in sites.items()
        }
        result[screen] = row
    return result


def table(summaries: dict) -> str:
    def ms(value):
        return "–" if value is None else f"{value / 1000:.1f} s"

    def ratio(value):
        return "–" if value is None else f"{value:.2f}×"

    lines = [
        "| screen | explorer median | explorer p90 | baseline median | baseline p90 "
        "| explorer / baseline | explorer / desktop |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for screen, row in summaries.items():
        e, b = row["explorer"], row["baseline"]
        lines.append(
            f"| {screen} | {ms(e['median'])} | {ms(e['p90'])} | {ms(b['median'])} "
            f"| {ms(b['p90'])} | {ratio(row['explorer_over_baseline'])} "
            f"| {ratio(row['explorer_over_desktop'])} |"
        )
    lines += [
        "",
        "CPU-bound loop once interactive (median ms; the throttle reaches a row's "
        "column only if it grows with the rate):",
        "",
    ]
    for screen, row in summaries.items():
        for name, places in row["loop_ms"].items():
            cells = ", ".join(f"{where} {value:.0f}" for where, value in places.items())
            lines.append(f"- {screen}, {name}: {cells}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold loads per site and screen")
    parser.add_argument("--rates", type=float, nargs="+", default=[1, 4], help="CPU throttles")
    parser.add_argument("--site", type=Path, help="a built explorer site (default: build one)")
    parser.add_argument("--baseline", type=Path, help="a converted baseline (default: convert)")
    args = parser.parse_args(argv)

    offline_site, reason = offline_harness()
    if offline_site is None:
        log(f"cannot run: {reason}")
        return 2
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    results = {"environment": environment(), "runs": args.runs, "rates": args.rates}
    with tempfile.TemporaryDirectory(dir=RESULTS_DIR) as tmp:
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
            name: (with_start_page(folder, out / "started" / name), page)
            for name, (folder, page) in (("baseline", baseline), ("explorer", explorer))
        }
        measured = screens(args.rates)
        loads = {screen: {name: [] for name in sites} for screen in measured}
        # Rounds alternate screens and sites, so a machine getting busier weighs on all alike.
        for attempt in range(1, args.runs + 1):
            for screen, options in measured.items():
                for name, (folder, page) in sites.items():
                    record = cold_load(offline_site, folder, page, options)
                    loads[screen][name].append(record)
                    log(
                        f"run {attempt}/{args.runs} {screen:>10} {name:>8}: interactive "
                        f"{record['interactive_ms']} ms"
                        + (f" — {record['error']}" if record["error"] else "")
                    )
    results["loads"] = loads
    results["summary"] = summarise(loads)
    results["environment"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = RESULTS_DIR / f"phone-{stamp}.json"
    path.write_text(json.dumps(results, indent=1))
    print(table(results["summary"]))
    refused = {
        r.get("worker_throttle_refused", {}).get(name)
        for runs in loads.values()
        for records in runs.values()
        for r in records
        for name in r.get("worker_throttle_refused", {})
    }
    print(f"\nthe throttle asked of the workers: {sorted(str(x) for x in refused) or 'no workers'}")
    log(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Many embeds on one page (issue 21): a course page with 1, 2 and 3 iframes of the explorer's
single-view embeds, opened offline through ../shared/pyodide-offline in a fresh profile each.

For each page: when each frame became interactive (ms from navigation), the CPU time of all of
Chromium's processes, and the bytes sent. Usage:

    python -m benchmarks.embeds [--site DIR] [--runs 2] [--json FILE]
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from .pyodide_site import harness_or_exit, site_main

# Different views and states, as a course page would embed them.
EMBEDS = (
    "view=heatmap&embed=1&d_model=16&pos=5&offset=3",
    "view=compare&embed=1&d_model=64&pos=20&offset=4",
    "view=waves&embed=1&d_model=32&pos=9&offset=2",
)
HOST_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>A course page with {n} embeds</title></head>
<body><h1>Positional encodings</h1>
{frames}
</body></html>
"""
FRAME = '<iframe src="index.html?{query}" width="900" height="560" loading="eager"></iframe>\n'
# Each frame's probe (installed in every frame by the harness): when it became interactive.
FRAMES_JS = """() => [...document.querySelectorAll('iframe')].map((frame) => {
  const probe = frame.contentWindow && frame.contentWindow.__offline;
  return probe ? probe.snapshot().interactive : null;
})"""


def ticks_since_boot() -> int:
    return round(float(Path("/proc/uptime").read_text().split()[0]) * os.sysconf("SC_CLK_TCK"))


def chromium_cpu_s(started_after: int) -> float:
    """User + system CPU seconds of the Chromium processes started after a moment (in clock
    ticks since boot): those of this page's browser, not of any other Chromium running."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if "chrom" not in (entry / "comm").read_text():
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command name: field 3 is the state; utime, stime, starttime are 14, 15, 22.
        if int(fields[19]) >= started_after:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def host_site(site: Path, out: Path) -> Path:
    """A copy of the site (by links) with the course pages embeds-1.html … embeds-3.html."""
    hosted = out / "hosted"
    shutil.copytree(site, hosted, symlinks=True, copy_function=os.link)
    for n in range(1, len(EMBEDS) + 1):
        frames = "".join(FRAME.format(query=query) for query in EMBEDS[:n])
        (hosted / f"embeds-{n}.html").write_text(HOST_PAGE.format(n=n, frames=frames))
    return hosted


def open_course_page(offline_site, hosted: Path, n: int, timeout_s: float = 300) -> dict:
    started = ticks_since_boot()
    with offline_site.open_offline_site(hosted, f"embeds-{n}.html", timeout_s=1) as site:
        begun = time.monotonic()
        times = [None] * n
        while None in times and time.monotonic() - begun < timeout_s:
            times = site.page.evaluate(FRAMES_JS)
            time.sleep(0.1)
        cpu = chromium_cpu_s(started)
        entries = site.metrics()["requests"]
        return {
            "embeds": n,
            "interactive_ms": [round(t) if t is not None else None for t in times],
            "last_interactive_ms": None if None in times else round(max(times)),
            "cpu_s": round(cpu, 1),
            "mib_sent": round(sum(e.get("wire_bytes", 0) for e in entries) / 2**20, 1),
            "requests": len(entries),
        }


def run(site: Path, runs: int, log=print) -> dict:
    offline_site = harness_or_exit()
    with tempfile.TemporaryDirectory() as tmp:
        hosted = host_site(site, Path(tmp))
        records = []
        for attempt in range(runs):
            for n in range(1, len(EMBEDS) + 1):
                record = open_course_page(offline_site, hosted, n)
                log(f"run {attempt + 1}, {n} embed(s): {record}")
                records.append(record)
    summary = {}
    for n in range(1, len(EMBEDS) + 1):
        mine = [r for r in records if r["embeds"] == n and r["last_interactive_ms"] is not None]
        summary[n] = {
            key: statistics.median(r[key] for r in mine) if mine else None
            for key in ("last_interactive_ms", "cpu_s", "mib_sent")
        }
    one = summary[1]["last_interactive_ms"]
    for row in summary.values():
        last = row["last_interactive_ms"]
        row["ratio_to_one"] = round(last / one, 2) if one and last else None
    return {"runs": records, "summary": summary}


def main(argv=None) -> int:
    return site_main(__doc__, run, argv, ("--runs", int, 2))


if __name__ == "__main__":
    raise SystemExit(main())

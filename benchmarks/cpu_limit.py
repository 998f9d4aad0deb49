"""A slower CPU for the whole browser: Chromium's processes under a Linux cgroup-v1 CPU quota.

CDP's Emulation.setCPUThrottlingRate slows a page's main thread only (Chromium refuses it on a
worker's target), so Pyodide, which runs in a worker, would run at full speed. A CFS quota on a
cgroup holding every Chromium process slows every thread of the browser, the workers too; the
processes Chromium starts later inherit the cgroup. WebPageTest's agent throttled Chrome this way
before DevTools throttling worked (https://github.com/catchpoint/WebPageTest.agent/pull/298).

The quota is a share of one core for the whole group: a single busy thread is slowed by
1 / share, and threads that would run in parallel on an unthrottled machine share it. Needs root
and the cgroup-v1 `cpu` controller mounted at /sys/fs/cgroup/cpu.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

CPU_CONTROLLER = Path("/sys/fs/cgroup/cpu")
# A short period spreads the quota thinly: a throttled thread waits at most a few ms at a time
# (the kernel's default 100 ms period would stall a thread for 75 ms at a quarter of a core).
PERIOD_US = 20_000
MIN_QUOTA_US = 1_000  # the kernel refuses a smaller cfs_quota_us
BROWSER_EXECUTABLES = ("chromium", "chrome")  # chromium, chrome_crashpad_handler, ...


def quota_us(rate: float, period_us: int = PERIOD_US) -> int:
    """cpu.cfs_quota_us that makes one busy thread `rate` times slower: 1 / rate of one core
    per period."""
    if rate < 1:
        raise ValueError(f"a CPU can only be slowed, by a rate of 1 or more: {rate}")
    quota = round(period_us / rate)
    if quota < MIN_QUOTA_US:
        raise ValueError(
            f"rate {rate:g} needs a quota under {MIN_QUOTA_US} µs: lengthen the period"
        )
    return quota


def descendants(root: int, parents: dict[int, int]) -> list[int]:
    """Every process below `root`, given each process's parent ({pid: ppid})."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return sorted(found)


def process_parents(proc: Path = Path("/proc")) -> dict[int, int]:
    """{pid: ppid} of every process now running."""
    parents = {}
    for stat in proc.glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        parents[int(stat.parent.name)] = int(text[text.rindex(")") + 2 :].split()[1])
    return parents


def executable(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def browser_processes(root: int | None = None) -> list[int]:
    """Chromium's processes started by this process (through Playwright's driver, which is
    left out: it only relays the protocol)."""
    found = descendants(root or os.getpid(), process_parents())
    return [pid for pid in found if Path(executable(pid)).name.startswith(BROWSER_EXECUTABLES)]


def own_cgroup(controller: str = "cpu") -> str:
    """This process's cgroup path in the v1 hierarchy of `controller` ("/" for the root)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    raise RuntimeError(f"no cgroup-v1 {controller} controller for this process")


def unavailable() -> str | None:
    """Why the browser cannot be put under a CPU quota here, or None."""
    if not (CPU_CONTROLLER / "cpu.cfs_quota_us").is_file():
        return f"no cgroup-v1 cpu controller at {CPU_CONTROLLER}"
    try:
        parent = CPU_CONTROLLER / own_cgroup().lstrip("/")
    except (OSError, RuntimeError) as error:
        return str(error)
    if not os.access(parent, os.W_OK):
        return f"cannot create a cgroup in {parent} (not root?)"
    return None


class CpuLimit:
    """A cgroup that slows whatever is moved into it `rate` times (one busy thread), removed
    on exit: its processes go back to the cgroup this process is in.

        with CpuLimit(4) as limit:
            ...  # launch the browser
            limit.add(browser_processes())
    """

    def __init__(self, rate: float, period_us: int = PERIOD_US, name: str | None = None):
        self.rate = rate
        self.period_us = period_us
        self.quota_us = quota_us(rate, period_us)
        self.parent = CPU_CONTROLLER / own_cgroup().lstrip("/")
        self.path = self.parent / (name or f"pe-phone-{os.getpid()}")

    def __enter__(self) -> CpuLimit:
        self.path.mkdir(exist_ok=True)
        (self.path / "cpu.cfs_period_us").write_text(str(self.period_us))
        (self.path / "cpu.cfs_quota_us").write_text(str(self.quota_us))
        return self

    def set_rate(self, rate: float) -> None:
        """Another slow-down for the same cgroup (e.g. after calibrating it)."""
        self.rate, self.quota_us = rate, quota_us(rate, self.period_us)
        (self.path / "cpu.cfs_quota_us").write_text(str(self.quota_us))

    def add(self, pids: list[int]) -> list[int]:
        """Move these processes (every thread of each) into the cgroup; the ones moved."""
        moved = []
        for pid in pids:
            try:
                (self.path / "cgroup.procs").write_text(str(pid))
            except OSError:  # ended meanwhile
                continue
            moved.append(pid)
        return moved

    def members(self) -> list[int]:
        return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]

    def __exit__(self, *exc) -> None:
        for pid in self.members():
            with contextlib.suppress(OSError):  # ended meanwhile
                (self.parent / "cgroup.procs").write_text(str(pid))
        self.path.rmdir()

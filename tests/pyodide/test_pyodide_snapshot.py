"""A return visit from the memory snapshot of Python's core (static/snapshot.js) in the built
site with snapshots on (PE_SNAPSHOT=1; off by default, as they did not pay): the first visit keeps
one, the next boots from it, and a corrupt or stale one is replaced after a cold boot; every visit
answers a key press. Real Pyodide, through ../shared/pyodide-offline.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from pyodide_support import (  # noqa: F401 (the console test is collected here)
    console_errors,
    on_the_site,
    test_console_has_no_errors,
    visit_offline,
)
from test_pyodide_site import DEEP_TEXT_JS

from benchmarks.pyodide_site import leave

pytestmark = pytest.mark.pyodide

POS_HANDLE = ".pe-control-pos .noUi-handle"
# The snapshot caches that hold one, by name.
STORED_JS = """async () => {
  const names = [];
  for (const name of await caches.keys()) {
    if (!name.startsWith('pe-snapshot-')) continue;
    const entry = await (await caches.open(name)).match(new URL('pe-core-snapshot', location.href));
    if (entry && JSON.parse(entry.headers.get('x-pe-snapshot')).sha256) names.push(name);
  }
  return names.sort();
}"""
# Flip bytes in the middle of the stored snapshot, its header kept.
CORRUPT_JS = """async () => {
  const url = new URL('pe-core-snapshot', location.href);
  for (const name of await caches.keys()) {
    if (!name.startsWith('pe-snapshot-')) continue;
    const cache = await caches.open(name);
    const entry = await cache.match(url);
    const bytes = new Uint8Array(await entry.arrayBuffer());
    for (let i = 0; i < 64; i++) bytes[(bytes.length >> 1) + i] ^= 0xff;
    await cache.put(url, new Response(bytes, {headers: entry.headers}));
  }
}"""
# The stored snapshot as an older build left it: in a cache named by another key.
STALE_JS = """async () => {
  const url = new URL('pe-core-snapshot', location.href);
  const [name] = (await caches.keys()).filter((key) => key.startsWith('pe-snapshot-'));
  const entry = await (await caches.open(name)).match(url);
  await (await caches.open('pe-snapshot-0.29.3-an-older-build')).put(url, entry);
  await caches.delete(name);
}"""


REPO_ROOT = Path(__file__).resolve().parents[2]


def with_snapshots(site_dir: Path, folder: Path) -> Path:
    """A copy of the built site whose worker configuration asks for snapshots, as a build with
    PE_SNAPSHOT=1 writes it."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    import build_site
    import site_lock

    copy = folder / "site"
    shutil.copytree(site_dir, copy)
    lock = json.loads((copy / site_lock.LOCK).read_text(encoding="utf-8"))
    build_site.write_worker_config(copy, lock, snapshot=True)
    return copy


@pytest.fixture(scope="module")
def visit(request, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("snapshots")
    return visit_offline(
        request, lambda site_dir: on_the_site(with_snapshots(site_dir, folder), steps)
    )


def worker_console(page) -> list[str]:
    """The shared worker's console lines (Python's runtime); Chromium replays them on attach."""
    cdp = page.context.browser.new_browser_cdp_session()
    try:
        targets = cdp.send("Target.getTargets")["targetInfos"]
        shared = [t["targetId"] for t in targets if t["type"] == "shared_worker"]
        assert shared, "no shared worker runs Python"
        attached = cdp.send("Target.attachToTarget", {"targetId": shared[0], "flatten": False})
        lines = []

        def on_message(event):
            message = json.loads(event["message"])
            if message.get("method") == "Runtime.consoleAPICalled":
                args = message["params"]["args"]
                lines.append(" ".join(str(a.get("value", a.get("description"))) for a in args))

        cdp.on("Target.receivedMessageFromTarget", on_message)
        enable = json.dumps({"id": 1, "method": "Runtime.enable"})
        cdp.send(
            "Target.sendMessageToTarget", {"sessionId": attached["sessionId"], "message": enable}
        )
        time.sleep(0.5)
        return lines
    finally:
        cdp.detach()


def stored(site, timeout_s: float = 60) -> list[str]:
    """The snapshot caches once one holds a snapshot (it is stored after the page rendered)."""
    deadline = time.monotonic() + timeout_s
    names = site.page.evaluate(STORED_JS)
    while not names and time.monotonic() < deadline:
        time.sleep(0.5)
        names = site.page.evaluate(STORED_JS)
    return names


def visit_and_press(site) -> dict:
    """What the worker said on this visit, and the pos readout after → twice."""
    record = {"worker": "\n".join(worker_console(site.page))}
    site.press(POS_HANDLE, "ArrowRight", 2)
    record["interaction"] = site.settle(settle_ms=3000)
    record["readout"] = site.page.evaluate(DEEP_TEXT_JS, ".pe-pos-readout")
    record["stored"] = stored(site)
    return record


def steps(site) -> dict:
    record = {"first": visit_and_press(site)}
    for name, spoil in (("snapshot", None), ("corrupt", CORRUPT_JS), ("stale", STALE_JS)):
        if spoil:
            site.page.evaluate(spoil)
        leave(site)  # a return visit starts Python again, as after closing the tab
        load = site.revisit()
        record[name] = {"load": load, **(visit_and_press(site) if site.interactive else {})}
    return record


def test_the_first_visit_boots_cold_and_keeps_a_snapshot(visit):
    first = visit["first"]
    assert "cold boot: no snapshot yet" in first["worker"]
    assert "snapshot of the core made and restored" in first["worker"]
    assert len(first["stored"]) == 1 and first["stored"][0].startswith("pe-snapshot-0.29.3-")


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("snapshot", "booted from snapshot"),
        ("corrupt", "cold boot: the snapshot failed (the stored snapshot is corrupt)"),
        ("stale", "cold boot: no snapshot yet"),
    ],
)
def test_a_return_visit_says_how_python_booted_and_answers_a_key(visit, name, said):
    revisit = visit[name]
    assert revisit["load"]["interactive"], revisit["load"]["error"]
    assert said in revisit["worker"]
    assert revisit["interaction"]["patch_after_last_input"]
    assert revisit["readout"].startswith("pos = 9 "), revisit["readout"]


def test_a_spoilt_snapshot_is_replaced_and_an_older_builds_deleted(visit):
    first = visit["first"]["stored"]
    assert visit["corrupt"]["stored"] == first
    assert visit["stale"]["stored"] == first  # not pe-snapshot-0.29.3-an-older-build


def test_a_visit_from_the_snapshot_keeps_it_as_it_was(visit):
    assert "snapshot stored" not in visit["snapshot"]["worker"]

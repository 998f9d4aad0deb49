"""The built site on its own: every file from its own origin, a return visit with the server
gone, and a key pressed while Python starts. Real Pyodide, through ../shared/pyodide-offline."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from pe_explorer.views import VIEW_NAMES
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pyodide_support import on_the_site, test_console_has_no_errors, visit_offline  # noqa: F401
from test_pyodide_site import DEEP_TEXT_JS

from benchmarks.pyodide_site import leave

pytestmark = pytest.mark.pyodide

SITE_HOST = "app.local"
# Chromium's own autofill service asks this host whatever the page does; not the page's.
BROWSER_HOSTS = {"content-autofill.googleapis.com"}
POS_HANDLE = ".pe-control-pos .noUi-handle"
# Every one of these site files is in Cache Storage, waited for in the page (the cache is only
# read asynchronously, which Playwright's wait_for_function does not await): true, or the files
# still missing when timeoutMs has run out.
ALL_CACHED_JS = """async ([paths, timeoutMs]) => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const missing = [];
    for (const path of paths) {
      const url = new URL(path, location.origin).href;
      if (!(await caches.match(url, { ignoreSearch: true }))) missing.push(path);
    }
    if (!missing.length) return true;
    if (performance.now() > deadline) return missing;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}"""
# The service worker's own script is fetched by the browser, never through the worker.
NOT_CACHED = {"/sw.js"}
# Every view's card has been built (the page builds those below the first row after it is
# interactive, and they load files of their own, e.g. the multichoice widget's CSS).
CARDS_BUILT_JS = """(count) => new Set(window.__offline.deep('[class*="pe-view-"]').flatMap(
  (e) => [...e.classList].filter((c) => c.startsWith('pe-view-')))).size === count"""


def wait_until_cached(site, timeout_s: float = 240) -> list[str]:
    """Wait until every card is built and every file the first visit took from the site is in
    the service worker's cache, the page included (a return visit with the server gone needs
    them all); the files still missing ([] when none)."""
    site.page.wait_for_function(
        CARDS_BUILT_JS, arg=len(VIEW_NAMES), timeout=timeout_s * 1000, polling=250
    )
    fetched = {
        entry["path"].split("?")[0]
        for entry in site.metrics()["requests"]
        if entry["host"] == SITE_HOST and entry["status"] < 400
    }
    # A navigation is kept under its path with index.html (sw.js cacheKey).
    paths = sorted({p + "index.html" if p.endswith("/") else p for p in fetched - NOT_CACHED})
    paths = sorted({*paths, "/index.html"})
    found = site.page.evaluate(ALL_CACHED_JS, [paths, timeout_s * 1000])
    return [] if found is True else found


def press_while_starting(site) -> dict:
    """Open the page again and press → three times on pos before Python is ready."""
    page = site.page.context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site.metrics()["url"], wait_until="commit")
    handle = page.locator(POS_HANDLE).first
    handle.wait_for(timeout=60_000)
    starting = page.evaluate("document.body.classList.contains('pn-loading')")
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    shown = page.locator(f"{POS_HANDLE.split()[0]} .bk-slider-value").first.inner_text()
    page.wait_for_function("() => !document.body.classList.contains('pn-loading')", timeout=180_000)
    try:
        page.wait_for_function(
            f"() => (({DEEP_TEXT_JS})('.pe-pos-readout') || '').startsWith('pos = 10 ')",
            timeout=30_000,
        )
        readout = True
    except PlaywrightTimeout:
        readout = False
    return {
        "starting": starting,
        "shown_while_starting": shown,
        "readout_applied": bool(readout),
        "readout": page.evaluate(DEEP_TEXT_JS, ".pe-pos-readout"),
        "slider": page.locator(f"{POS_HANDLE.split()[0]} .bk-slider-value").first.inner_text(),
        "errors": errors,
    }


def steps(site) -> dict:
    """Let the service worker keep the site, come back with the server gone, then open the page
    again and press keys before Python is ready."""
    record = {"not_cached": wait_until_cached(site)}
    leave(site)  # the first visit's Python ends, as when its tab is closed
    record["return"] = site.revisit(server_gone=True)
    if site.interactive:
        site.press(POS_HANDLE, "ArrowRight", 2)
        record["interaction"] = site.settle(settle_ms=3000)
        record["readout"] = site.page.evaluate(DEEP_TEXT_JS, ".pe-pos-readout")
    leave(site)  # so that the next page starts Python, not joins this one's
    record["starting"] = press_while_starting(site)
    return record


def test_every_request_of_the_first_visit_goes_to_the_sites_own_origin(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    hosts = set(visit["load"]["hosts"]) - BROWSER_HOSTS
    assert hosts == {SITE_HOST}


def test_the_first_visit_leaves_the_site_in_the_service_workers_cache(visit):
    assert visit["not_cached"] == []


def test_a_return_visit_works_with_the_server_gone(visit):
    assert visit["return"]["interactive"], visit["return"]["error"]
    assert visit["interaction"]["patch_after_last_input"]
    assert visit["readout"].startswith("pos = 9 ")


def test_the_return_visit_is_answered_by_the_service_worker(visit):
    # With the server gone, what reaches it is dropped; only the browser's check for a new
    # service worker script may try.
    asked = {
        host: counts["requests"]
        for host, counts in visit["return"]["hosts"].items()
        if host not in BROWSER_HOSTS
    }
    assert asked in ({}, {SITE_HOST: asked.get(SITE_HOST)})
    assert asked.get(SITE_HOST, 0) <= 10


def test_a_key_pressed_while_python_starts_is_applied_once_it_is_ready(visit):
    starting = visit["starting"]
    assert starting["starting"], "Python was already running: the test pressed too late"
    assert starting["shown_while_starting"] == "10"
    assert starting["readout_applied"], starting["readout"]
    assert starting["slider"] == "10"


def test_the_page_opened_while_python_starts_logs_no_errors(visit):
    assert visit["starting"]["errors"] == []


def visit_under_a_sub_path(site_dir) -> dict:
    """The same files copied below a folder of another site: /courses/pe/index.html."""
    with tempfile.TemporaryDirectory() as host_root:
        # A copy: the harness serves no file through a link that leaves its folder.
        shutil.copytree(site_dir, Path(host_root) / "courses" / "pe")
        return on_the_site(host_root, requests_outside, "courses/pe/index.html", timeout_s=180)


def requests_outside(site) -> dict:
    """Every request of the site's load that left its folder /courses/pe/."""
    paths = [entry["path"] for entry in site.metrics()["requests"]]
    return {"outside": [p for p in paths if not p.startswith("/courses/pe/")]}


@pytest.fixture(scope="module")
def sub_path_visit(request) -> dict:
    return visit_offline(request, visit_under_a_sub_path)


def test_the_site_works_below_a_sub_path_of_another_host(sub_path_visit):
    assert sub_path_visit["load"]["interactive"], sub_path_visit["load"]["error"]
    # Chromium asks its autofill service whatever the page; every request of the page's own
    # stays below its folder.
    assert [p for p in sub_path_visit["outside"] if not p.startswith("/v1/pages/")] == []
    assert sub_path_visit["console_errors"] == []

"""Two embeds on one course page, in the real Pyodide build offline (issue 21): both become
interactive, each showing its own view, and the runtime's files are fetched from the site
once, shared by the frames through the service worker (scripts/sw.js)."""

from __future__ import annotations

import collections
import time

import pytest
from pyodide_support import offline_site, visit_offline

from benchmarks.embeds import EMBEDS, FRAMES_JS, host_site

pytestmark = pytest.mark.pyodide

# Each frame's plot titles, through Panel's shadow roots.
TITLES_JS = """() => [...document.querySelectorAll('iframe')].map((frame) => {
  const found = [];
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.classList && e.classList.contains('js-plotly-plot')) found.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(frame.contentDocument);
  return found.map((p) => (p.layout && p.layout.title && p.layout.title.text) || '');
})"""


EXPECTED_TITLES = [
    ["PE matrix: 64 positions × 16 dimensions (interleaved)"],
    ["PE(pos) and PE(pos + k) over the 64 dimensions"],
]


def two_embeds(site_dir, tmp) -> dict:
    hosted = host_site(site_dir, tmp)
    with offline_site.open_offline_site(hosted, "embeds-2.html", timeout_s=1) as site:
        deadline = time.monotonic() + 300
        while None in (times := site.page.evaluate(FRAMES_JS)) and time.monotonic() < deadline:
            time.sleep(0.25)
        # Python's first render is the default page (kept hidden until the link's state is
        # applied, static/startup.js); wait for the views the links ask for.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            titles = site.page.evaluate(TITLES_JS)
            if titles == EXPECTED_TITLES:
                break
            time.sleep(0.25)
        site_requests = collections.Counter(
            entry["path"]
            for entry in site.server.log.snapshot()
            if entry["host"] == offline_site.offline_server.SITE_HOST
        )
        return {
            "interactive_ms": times,
            "titles": titles,
            "site_requests": site_requests,
            "console_errors": site.console_errors(),
        }


@pytest.fixture(scope="module")
def visit(request, tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("embeds")
    return visit_offline(request, lambda site_dir: two_embeds(site_dir, tmp))


def test_both_embeds_become_interactive_each_with_its_own_view(visit):
    assert None not in visit["interactive_ms"], visit
    assert EMBEDS[0].startswith("view=heatmap&") and EMBEDS[1].startswith("view=compare&")
    assert visit["titles"] == EXPECTED_TITLES


# What the Web Workers load: Pyodide and the packages, most of the bytes. (The pages' own
# scripts, Bokeh's and Panel's, load before the service worker controls the frames.)
WORKER_FILES = (".whl", ".wasm", ".zip", "pyodide.asm.js", "pe-lock.json")


def test_what_the_workers_load_is_fetched_once_for_both_frames(visit):
    worker = {
        path: n
        for path, n in visit["site_requests"].items()
        if path.startswith("/runtime/") and path.endswith(WORKER_FILES)
    }
    assert len(worker) > 10, visit["site_requests"]
    assert {path: n for path, n in worker.items() if n > 1} == {}


def test_console_has_no_errors(visit):
    errors = [e for e in visit["console_errors"] if "favicon.ico" not in e["url"] + e["text"]]
    assert errors == []

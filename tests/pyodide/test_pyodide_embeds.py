"""Three embeds on one course page, in the real Pyodide build offline (issue 21): they share one
Python runtime (the shared worker app.js, static/worker.js), each becomes
interactive showing its own view, a key in one frame changes that frame alone, and the runtime's
files are fetched from the site once. Without shared workers a page starts Panel's own worker.
"""

from __future__ import annotations

import collections

import pytest
from embeds_support import (
    CHANGED_AND_IDLE_JS,
    QUERIES_JS,
    canonical_queries,
    interactive_frames,
    on_a_course_page,
)
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    console_errors,
    offline_site,
    page_holds,
    test_console_has_no_errors,
    visit_offline,
)

from benchmarks.embeds import EMBEDS
from benchmarks.pyodide_site import leave, worker_targets

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
    ["Waves of 4 pairs: solid sin, dashed cos; lines at pos = 9 and pos + k = 11"],
]


def press_right_in_the_first_frame(page) -> tuple[list[str], list[str]]:
    """ArrowRight on the first frame's pos slider: every frame's link before and after."""
    before = canonical_queries(page)
    page.frames[1].locator(".pe-control-pos .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    # Python has written the first frame's new link back, and no frame's worker has anything
    # left to apply: a change the key made elsewhere would show by now.
    page_holds(page, CHANGED_AND_IDLE_JS, before, 30)
    return before, page.evaluate(QUERIES_JS)


def three_embeds(site) -> dict:
    """Wait for the three frames, read their views, press a key in the first."""
    times = interactive_frames(site.page)
    # Python's first render is the default page (kept hidden until the link's state is
    # applied, static/startup.js); wait for the views the links ask for.
    page_holds(
        site.page,
        f"(expected) => JSON.stringify(({TITLES_JS})()) === JSON.stringify(expected)",
        EXPECTED_TITLES,
        30,
    )
    titles = site.page.evaluate(TITLES_JS)
    site_requests = collections.Counter(
        entry["path"]
        for entry in site.metrics()["requests"]
        if entry["host"] == offline_site.offline_server.SITE_HOST
    )
    queries = press_right_in_the_first_frame(site.page)
    return {
        "interactive_ms": times,
        "titles": titles,
        "workers": worker_targets(site.page),
        "queries": queries,
        "site_requests": site_requests,
    }


visit = on_a_course_page("embeds-3.html", three_embeds)


def test_every_embed_becomes_interactive_with_its_own_view(visit):
    assert None not in visit["interactive_ms"], visit
    views = [query.split("&")[0] for query in EMBEDS]
    assert views == ["view=heatmap", "view=compare", "view=waves"]
    assert visit["titles"] == EXPECTED_TITLES


def test_the_frames_share_one_python_runtime(visit):
    # One shared worker runs Python; each frame's own Web Worker only relays to it.
    assert visit["workers"] == [
        ("service_worker", "sw.js"),
        ("shared_worker", "app.js"),
        *[("worker", "app.js")] * 3,
    ]


def test_a_key_in_one_frame_changes_that_frame_alone(visit):
    before, after = visit["queries"]
    assert "pos=5" in before[0] and "pos=6" in after[0], visit["queries"]
    assert after[1:] == before[1:]


# What the Web Workers load: Pyodide and the packages, most of the bytes. (The pages' own
# scripts, Bokeh's and Panel's, load before the service worker controls the frames.)
WORKER_FILES = (".whl", ".wasm", ".zip", "pyodide.asm.js", "pe-lock.json")


def test_what_the_workers_load_is_fetched_once_for_all_frames(visit):
    worker = {
        path: n
        for path, n in visit["site_requests"].items()
        if path.startswith("/runtime/") and path.endswith(WORKER_FILES)
    }
    assert len(worker) > 10, visit["site_requests"]
    assert {path: n for path, n in worker.items() if n > 1} == {}


def without_shared_workers(site) -> dict:
    """A browser without shared workers (Chrome for Android has none): the page starts Panel's
    own worker, app.js, and works the same."""
    site.page.context.add_init_script("delete window.SharedWorker")
    leave(site)
    site.revisit(timeout_s=1)  # the course page; its frame is the app
    times = interactive_frames(site.page)
    before, after = press_right_in_the_first_frame(site.page)
    return {
        "interactive": times[0],
        # The page's Web Workers (its frame's included).
        "workers": sorted(w.url.rsplit("/", 1)[-1] for w in site.page.workers),
        "queries": (before[0], after[0]),
    }


fallback = on_a_course_page("embeds-1.html", without_shared_workers)


def test_without_shared_workers_the_page_runs_its_own_python(fallback):
    assert fallback["interactive"], fallback
    assert fallback["workers"] == ["app.js"]
    before, after = fallback["queries"]
    assert "pos=5" in before and "pos=6" in after, fallback["queries"]
    assert fallback["console_errors"] == []

"""The static site before Python has started (issue 21): a link to another state than the
prerendered one shows the frames and titles of the views it asks for, and no numbers; an
embed shows its one view and no header. The page's worker script is held back while the page is
read, then let go: the page becomes the one asked for. And the page opened from disk (file://)
says to serve its folder.

The site is served from its own folder (its runtime is vendored in it): the offline harness
cannot hold the worker back, and these pages need no CDN."""

from __future__ import annotations

import re

import pytest
from browser_support import EVERY_ELEMENT_JS, ConsoleLog, next_frame, wait_until
from pe_explorer.ui.page import before_python_facts
from pe_explorer.views import VIEWS

pytestmark = pytest.mark.pyodide

WORKER_SCRIPT = re.compile(r".*/app\.js$")
EMBED = "?view=heatmap&embed=1&d_model=16&pos=5&offset=3"
SHARED = "?d_model=16&pos=5&offset=3&theme=dark"

# What is on the page, through Panel's shadow roots.
PAGE_JS = (
    "() => {"
    + EVERY_ELEMENT_JS
    + """  const having = (name) => found.filter((e) => e.classList && e.classList.contains(name));
  const frames = document.querySelector('.pe-before-python');
  return {
    frames: frames ? [...frames.querySelectorAll('section')].map((s) => ({
      view: s.className.replace('pe-before-python-', ''),
      title: s.querySelector('h2').textContent,
    })) : null,
    heading: frames && frames.querySelector('h1') ? frames.querySelector('h1').textContent : null,
    background: frames ? getComputedStyle(frames).backgroundColor : null,
    frames_text: frames ? frames.innerText : '',
    plots: having('js-plotly-plot').map((p) => (p.layout.title && p.layout.title.text) || ''),
    sliders: having('bk-slider-value').length,
    // Shown ones only: the page's first paint has the header too, hidden once Bokeh has run.
    headers: having('pe-header')
      .filter((e) => e.checkVisibility({visibilityProperty: true})).length,
    embedded_roots: window.Bokeh && window.Bokeh.index ? Object.keys(window.Bokeh.index).length : 0,
  };
}"""
)


@pytest.fixture(scope="module")
def site_url(site_origin):
    return f"{site_origin}/index.html"


@pytest.fixture
def open_held(browser, site_url):
    """Open a link of the site with the worker's script held back; yields (page, log, let_go)."""
    contexts = []

    def open_page(query: str, viewport=(900, 560), hold=WORKER_SCRIPT, color_scheme="light"):
        context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, color_scheme=color_scheme
        )
        contexts.append(context)
        held = []
        # The site's worker script (app.js): the page's Web Worker, and the shared worker.
        context.route(hold, lambda route: held.append(route))
        page = context.new_page()
        log = ConsoleLog(page)
        page.goto(site_url + query, wait_until="commit")
        wait_until(page, lambda: held, what="the page asking for the held script")
        if hold is WORKER_SCRIPT:
            page.wait_for_load_state("load")
        # Painted: what the page's scripts drew by then is on the screen (what they draw later,
        # such as Bokeh's prerendered page, a test waits for).
        next_frame(page)
        next_frame(page)
        return page, log, lambda: [route.continue_() for route in held]

    yield open_page
    for context in contexts:
        context.close()


def test_an_embed_shows_its_one_view_and_no_numbers_before_python(open_held):
    page, log, let_go = open_held(EMBED)
    seen = page.evaluate(PAGE_JS)
    assert seen["frames"] == [{"view": "heatmap", "title": "The encoding matrix"}]
    assert seen["heading"] is None and seen["headers"] == 0
    # Nothing of the prerendered default state: no plot, no slider, no document at all.
    assert (seen["plots"], seen["sliders"], seen["embedded_roots"]) == ([], 0, 0)
    frames_text = seen["frames_text"]
    for spec in VIEWS:  # a title's own digits ("T5") are words, not the link's numbers
        frames_text = frames_text.replace(spec.title, "")
    assert not any(ch.isdigit() for ch in frames_text)

    let_go()
    # Python's page replaces the frames once it shows the link's state, not before.
    ready = wait_until(
        page,
        lambda: (seen := page.evaluate(PAGE_JS))["frames"] is None and seen,
        timeout_s=240,
        what="Python to draw the embed",
    )
    assert ready["plots"] == ["PE matrix: 64 positions × 16 dimensions (interleaved)"]
    assert ready["headers"] == 0
    assert log.relevant_errors() == []


def test_a_shared_link_shows_every_views_frame_in_its_theme_and_no_numbers(open_held):
    page, log, _ = open_held(SHARED, viewport=(1280, 900))
    seen = page.evaluate(PAGE_JS)
    assert seen["frames"] == [{"view": spec.name, "title": spec.title} for spec in VIEWS]
    assert seen["heading"] == before_python_facts()["title"]
    assert seen["background"] == "rgb(17, 24, 39)"  # the dark theme's paper, #111827
    assert (seen["plots"], seen["sliders"], seen["embedded_roots"]) == ([], 0, 0)
    frames_text = seen["frames_text"]
    for spec in VIEWS:  # a title's own digits ("T5") are words, not the link's numbers
        frames_text = frames_text.replace(spec.title, "")
    assert not any(ch.isdigit() for ch in frames_text)
    assert log.relevant_errors() == []


def test_a_dark_preferring_visitor_sees_dark_frames_before_python(open_held):
    # No theme in the link: the system's dark goes into it, and nothing is painted light first.
    page, log, let_go = open_held("?view=heatmap&embed=1", color_scheme="dark")
    seen = page.evaluate(PAGE_JS)
    assert [frame["view"] for frame in seen["frames"]] == ["heatmap"]
    assert seen["background"] == "rgb(17, 24, 39)"  # the dark theme's paper, #111827
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(17, 24, 39)"
    assert "theme=dark" in page.evaluate("location.search")
    let_go()
    assert log.relevant_errors() == []


@pytest.mark.parametrize("query", ["", "?pos=7&d_model=128"], ids=["no-query", "defaults"])
def test_a_link_to_the_default_state_keeps_the_prerendered_page(open_held, query):
    page, log, _ = open_held(query, viewport=(1280, 900))
    # Bokeh draws the prerendered page (its header, controls and first row) while the worker's
    # script is held, a part at a time.

    def prerendered():
        seen = page.evaluate(PAGE_JS)
        drawn = seen["headers"] == 1 and seen["sliders"] > 0 and len(seen["plots"]) >= 2
        return seen if drawn else None

    seen = wait_until(page, prerendered, timeout_s=60, what="the prerendered page")
    assert seen["frames"] is None
    assert [title.split(":")[0] for title in seen["plots"]] == [
        "PE matrix",
        "PE(pos) and PE(pos + k) over the 128 dimensions",
    ]
    assert log.relevant_errors() == []


FIRST_PAINT_JS = """() => {
  const paint = document.querySelector('[data-root-id] > .pe-first-paint');
  const picture = paint && paint.querySelector('img');
  return paint && {
    shown: paint.checkVisibility(),
    heading: paint.querySelector('h1').textContent,
    view: paint.querySelector('.pe-first-paint-view h2').textContent,
    picture: picture.complete ? [picture.naturalWidth, picture.naturalHeight] : null,
    bokeh: window.Bokeh !== undefined,
  };
}"""


def test_the_page_paints_its_header_and_matrix_before_any_script_has_run(open_held):
    # BokehJS held back: Panel's scripts (deferred) have not run, and the page is already drawn.
    page, log, let_go = open_held(
        "", viewport=(1280, 900), hold=re.compile(r".*/bokeh-3[^/]*\.min\.js$")
    )
    # The first paint's picture is an image of its own: drawn once it has loaded.
    seen = wait_until(
        page,
        lambda: (seen := page.evaluate(FIRST_PAINT_JS)) and seen["picture"] and seen,
        timeout_s=30,
        what="the first paint's picture",
    )
    assert seen == {
        "shown": True,
        "heading": before_python_facts()["title"],
        "view": "The encoding matrix",
        "picture": [128, 64],  # one pixel per cell: 128 dimensions × 64 positions
        "bokeh": False,
    }
    let_go()
    # Once Bokeh has drawn the prerendered page, the first paint gives way to it.
    wait_until(
        page,
        lambda: (
            not page.evaluate(FIRST_PAINT_JS)["shown"] and page.evaluate(PAGE_JS)["headers"] == 1
        ),
        timeout_s=60,
        what="the prerendered page in place of the first paint",
    )
    assert log.relevant_errors() == []


SANDBOXED_PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<link rel="icon" href="static/favicon.svg"><title>A sandboxed embed</title></head><body>
<iframe sandbox="{flags}" src="index.html{query}" width="900" height="600"></iframe>
</body></html>"""


def open_sandboxed(browser, site_origin, flags: str):
    """A host page of the site's origin framing an embed with these sandbox flags."""
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    page = context.new_page()
    log = ConsoleLog(page)
    host = f"{site_origin}/sandboxed.html"
    body = SANDBOXED_PAGE.format(flags=flags, query=EMBED.replace("&", "&amp;"))
    page.route(host, lambda route: route.fulfill(body=body, content_type="text/html"))
    page.goto(host)
    return context, page, log


def embed_frame(page):
    return next(frame for frame in page.frames if "embed=1" in frame.url)


def test_a_frame_sandboxed_without_same_origin_says_what_it_needs(browser, site_origin):
    """Issue 20: a Web Worker cannot start at an opaque origin (Panel #4163). The frame says
    so, naming the flag, instead of a spinner that turns forever."""
    context, page, log = open_sandboxed(browser, site_origin, "allow-scripts")
    frame = wait_until(page, lambda: embed_frame(page), what="the embed's frame")
    alert = frame.locator(".pe-cannot-start")
    alert.wait_for(timeout=20_000)
    assert "allow-same-origin" in alert.inner_text()
    # The frame gives up its loading state (Panel's spinner) once it has said what it needs.
    frame.wait_for_function("() => !document.body.classList.contains('pn-loading')", timeout=20_000)
    assert frame.evaluate("document.body.classList.contains('pn-loading')") is False
    # Neither the default state's page nor the frames of the page before Python.
    assert frame.evaluate(PAGE_JS)["frames"] is None
    assert (frame.evaluate(PAGE_JS)["plots"], frame.evaluate(PAGE_JS)["sliders"]) == ([], 0)
    # Panel's spinner (a CSS mask image) is fetched in CORS mode, which this test server does
    # not answer with Access-Control-Allow-Origin (GitHub Pages, for one, does).
    errors = [e for e in log.relevant_errors() if "arc_spinner.svg" not in e]
    assert errors in ([], ["Failed to load resource: net::ERR_FAILED"])
    context.close()


def test_a_frame_sandboxed_with_same_origin_starts(browser, site_origin):
    context, page, log = open_sandboxed(browser, site_origin, "allow-scripts allow-same-origin")
    frame = wait_until(page, lambda: embed_frame(page), what="the embed's frame")
    wait_until(
        page,
        lambda: (
            frame.evaluate(PAGE_JS)["plots"]
            == ["PE matrix: 64 positions × 16 dimensions (interleaved)"]
            and frame.evaluate(PAGE_JS)["frames"] is None
        ),
        timeout_s=240,
        what="the sandboxed embed to be drawn by Python",
    )
    assert frame.locator(".pe-cannot-start").count() == 0
    assert log.relevant_errors() == []
    context.close()


def test_the_page_opened_from_disk_says_to_serve_the_folder(site_dir, browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        # As offline: the CDN scripts fail at once instead of waiting on the network.
        page.route(re.compile(r"^https?://"), lambda route: route.abort())
        page.goto((site_dir / "index.html").as_uri(), wait_until="domcontentloaded")
        message = page.locator(".pe-file-protocol-message")
        message.wait_for(state="visible", timeout=10_000)
        assert "./build.sh serve" in message.inner_text()
        assert "pn-loading" not in page.evaluate("document.body.className")
    finally:
        context.close()

"""The README's course-page recipes (issue 20): a Canvas/Moodle page and an MkDocs site built from
the README's own snippets, served from another site than the explorer's, as a course platform
would be. In each, the embed of the real Pyodide build becomes interactive: it announces the
link's state, a key on its pos slider reaches Python, and no console error appears.

The course origin (localhost) and the explorer's (127.0.0.1) are different sites, so the frame's
storage is third-party. The Canvas page is opened in a profile that blocks third-party cookies
and storage, and the test checks that the frame's storage is indeed refused there."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer

import pytest
from browser_support import (
    CHROMIUM_ARGS,
    RECORD_MESSAGES_JS,
    REPO_ROOT,
    ConsoleLog,
)
from pyodide_support import QuietHandler, page_holds

pytestmark = pytest.mark.pyodide

PLACEHOLDER = "https://YOUR.SITE/pe/"
# What the recipes' link asks for, as the embed reports it.
ASKED = {"view": "compare", "d_model": "64", "pos": "20", "offset": "4"}
# Run in the frame: can it use the storage a first-party page has?
STORAGE_JS = """async () => {
  const result = {};
  try { localStorage.setItem('pe-probe', '1'); result.localStorage = 'allowed'; }
  catch (error) { result.localStorage = error.name; }
  try { await caches.open('pe-probe'); result.caches = 'allowed'; }
  catch (error) { result.caches = error.name; }
  return result;
}"""
# Run in the frame: the bottom of its content, as static/frame-size.js measures it, and whether
# its document scrolls.
CONTENT_JS = """() => {
  let bottom = 0;
  for (const element of document.querySelectorAll('[data-root-id] > *')) {
    const box = element.getBoundingClientRect();
    if (box.height > 0) bottom = Math.max(bottom, box.bottom + window.scrollY);
  }
  const scroller = document.scrollingElement;
  return {content: Math.ceil(bottom), overflow: scroller.scrollHeight - scroller.clientHeight};
}"""


def recipe(name: str) -> str:
    """The README's snippet marked `<!-- recipe: name -->`, unindented."""
    readme = (REPO_ROOT / "README.md").read_text()
    found = re.search(rf"<!-- recipe: {name} -->\n(\s*)```html\n(.*?)\n\s*```", readme, re.S)
    assert found, f"README.md has no recipe {name!r}"
    indent = found[1]
    return "\n".join(line.removeprefix(indent) for line in found[2].splitlines())


LMS_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>Week 3: positions</title></head>
<body><div class="user_content"><h2>Where is each token?</h2>
<p>Move pos and watch the numbers stay put.</p>
{snippet}
</div></body></html>
"""
MKDOCS_YML = """site_name: A course
theme:
  name: mkdocs
  highlightjs: false
"""
MKDOCS_PAGE = """# Where is each token?

Two positions four apart: move *pos* and watch the numbers stay put.

{snippet}

Then read on.
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory, site_origin):
    """The course pages, built from the recipes, served on a site of their own."""
    root = tmp_path_factory.mktemp("course")
    explorer = site_origin + "/"
    (root / "lms.html").write_text(
        LMS_PAGE.format(snippet=recipe("lms").replace(PLACEHOLDER, explorer))
    )
    project = tmp_path_factory.mktemp("mkdocs")
    (project / "docs").mkdir()
    (project / "mkdocs.yml").write_text(MKDOCS_YML)
    (project / "docs" / "index.md").write_text(
        MKDOCS_PAGE.format(snippet=recipe("mkdocs").replace(PLACEHOLDER, explorer))
    )
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(root / "mkdocs")],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    handler = functools.partial(QuietHandler, directory=str(root))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        # localhost, not 127.0.0.1: another site than the explorer's.
        yield f"http://localhost:{server.server_address[1]}"
        server.shutdown()


# The first message of this type the host page has heard whose state has these fields.
HEARD_JS = """([type, fields]) => (window.peMessages || []).find((m) => m && m.type === type
  && Object.entries(fields).every(([key, value]) => (m.state || {})[key] === value)) || null"""
# In the frame, once its worker has applied everything: three frames later (a size change seen
# by frame-size.js's ResizeObserver is posted from the animation frame after), a last message
# to the host, which handles its messages in the order they were sent.
AFTER_THE_REST_JS = """() => new Promise((done) => {
  const idle = () => typeof pyodideWorker === 'undefined'
    || (!pyodideWorker.busy && !pyodideWorker.queue.length);
  const giveUp = performance.now() + 30000;  // a worker never idle: the test reads what is shown
  const later = (n) => requestAnimationFrame(() => {
    if ((n > 1 || !idle()) && performance.now() < giveUp) return later(idle() ? n - 1 : 3);
    parent.postMessage({type: 'pe-test:after'}, '*');
    done();
  });
  later(3);
})"""


def heard(page, type_: str, fields: dict, timeout_s: float) -> dict | None:
    """The first message of type_ whose state has fields that the host page has heard, waited for
    up to timeout_s (None if none came)."""
    page_holds(page, HEARD_JS, [type_, fields], timeout_s)
    return page.evaluate(HEARD_JS, [type_, fields])


def drive(context, url: str) -> dict:
    """Open the course page, wait for the embed's ready, press ArrowRight on its pos slider;
    return what the host heard, the frame's storage and size, and the console errors."""
    context.add_init_script(f"({RECORD_MESSAGES_JS})()")
    page = context.new_page()
    log = ConsoleLog(page)
    missing = []
    page.on("response", lambda r: r.status >= 400 and missing.append(r.url))
    page.goto(url)
    page.locator("iframe").scroll_into_view_if_needed()
    ready = heard(page, "pe-explorer:ready", {}, 240)
    assert ready, f"the embed never said it was ready; console: {log.errors}"
    frame = page.frames[1]
    storage = frame.evaluate(STORAGE_JS)
    frame.locator(".pe-control-pos .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    after = (heard(page, "pe-explorer:state", {"pos": "21"}, 30) or {}).get("state")
    # The frame's size after the key reaches the host before this last message does.
    frame.evaluate(AFTER_THE_REST_JS)
    heard(page, "pe-test:after", {}, 30)
    return {
        "ready": ready["state"],
        "after": after,
        "storage": storage,
        "frame_height": page.locator("iframe").evaluate("(frame) => frame.clientHeight"),
        **frame.evaluate(CONTENT_JS),
        "errors": log.relevant_errors(),
        "missing": missing,
    }


@pytest.fixture(scope="module")
def lms(browser, chromium_path, course, tmp_path_factory):
    """The Canvas/Moodle page in a profile that blocks third-party cookies and storage."""
    profile = tmp_path_factory.mktemp("profile")
    (profile / "Default").mkdir()
    (profile / "Default" / "Preferences").write_text(
        json.dumps({"profile": {"block_third_party_cookies": True, "cookie_controls_mode": 1}})
    )
    context = browser.browser_type.launch_persistent_context(
        str(profile),
        executable_path=chromium_path,
        args=CHROMIUM_ARGS,
        viewport={"width": 1000, "height": 900},
    )
    try:
        yield drive(context, f"{course}/lms.html")
    finally:
        context.close()


@pytest.fixture(scope="module")
def mkdocs_site(browser, course):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        yield drive(context, f"{course}/mkdocs/index.html")
    finally:
        context.close()


def test_the_canvas_page_embed_shows_the_link_and_answers_a_key(lms):
    assert {key: lms["ready"][key] for key in ASKED} == ASKED
    assert lms["after"] is not None and lms["after"]["offset"] == "4"
    assert lms["errors"] == [], lms["missing"]


def test_the_embed_works_with_third_party_storage_blocked(lms):
    # The profile does refuse the frame its storage: the explorer works without it.
    assert lms["storage"] == {"localStorage": "SecurityError", "caches": "SecurityError"}
    assert lms["after"] is not None


def test_the_canvas_page_keeps_the_height_the_snippet_gives(lms):
    # No script runs on such a page: the snippet's height holds the whole view.
    height = int(re.search(r'height="(\d+)"', recipe("lms"))[1])
    assert lms["frame_height"] == height
    assert lms["content"] <= height and lms["overflow"] <= 1


def test_the_mkdocs_page_embed_shows_the_link_fits_and_answers_a_key(mkdocs_site):
    assert {key: mkdocs_site["ready"][key] for key in ASKED} == ASKED
    assert mkdocs_site["after"] is not None
    # pe-embed.js fitted the frame to the embed's content: no inner scrollbar, no gap.
    assert abs(mkdocs_site["frame_height"] - mkdocs_site["content"]) <= 2
    assert mkdocs_site["overflow"] <= 1
    assert mkdocs_site["errors"] == [], mkdocs_site["missing"]

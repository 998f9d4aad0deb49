"""Auto-height embeds (issue 20): static/embed-example.html, with the site's pe-embed.js, fits
each explorer frame to its content at 1400, 768 and 320 px wide: no inner scrollbar, no gap
below. The frames post their height in our message and in Canvas's lti.frameResize; the host
script takes heights only from its own frames, within bounds. The real Pyodide build."""

from __future__ import annotations

import pytest
from browser_support import RECORD_MESSAGES_JS, ConsoleLog, host_messages
from pyodide_support import page_holds

pytestmark = pytest.mark.pyodide

EXPECTED_TITLES = [
    ["PE matrix: 48 positions × 16 dimensions (interleaved)"],
    ["PE(pos) and PE(pos + k) over the 128 dimensions"],
]
# For each frame: its height, its content's height (measured as static/frame-size.js does),
# whether its document scrolls, and its plot titles once the page before Python is gone.
FRAMES_JS = """() => [...document.querySelectorAll('iframe')].map((frame) => {
  const doc = frame.contentDocument;
  let bottom = 0;
  for (const element of doc.querySelectorAll('[data-root-id] > *, .pe-before-python')) {
    const box = element.getBoundingClientRect();
    if (box.height > 0) bottom = Math.max(bottom, box.bottom + frame.contentWindow.scrollY);
  }
  const plots = [];
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.classList && e.classList.contains('js-plotly-plot')) plots.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(doc);
  return {
    frame: frame.clientHeight,
    content: Math.ceil(bottom),
    overflow: doc.scrollingElement.scrollHeight - doc.scrollingElement.clientHeight,
    titles: doc.querySelector('.pe-before-python') ? null :
      plots.map((p) => (p.layout && p.layout.title && p.layout.title.text) || ''),
  };
})"""
WIDTHS = (1400, 768, 320)


# Every frame shows these plot titles (the views the links ask for, drawn by Python).
TITLED_JS = f"""(expected) =>
  JSON.stringify(({FRAMES_JS})().map((f) => f.titles)) === JSON.stringify(expected)"""
# Every frame is as tall as its content, and its document does not scroll.
FITTED_JS = f"""() => ({FRAMES_JS})().every((f) =>
  Math.abs(f.frame - f.content) <= 2 && f.overflow <= 1)"""
# The host page has received a message of this type that matches these fields (of its state).
HEARD_JS = """([type, fields]) => (window.peMessages || []).some((m) => m && m.type === type
  && Object.entries(fields).every(([key, value]) => (m.state || {})[key] === value))"""


def frames_once(page, predicate: str, timeout_s: float, arg=None) -> list[dict]:
    """FRAMES_JS's reading once predicate(arg) holds in the page, or when time has run out."""
    page_holds(page, predicate, arg, timeout_s)
    return page.evaluate(FRAMES_JS)


def fitted(frames) -> bool:
    return all(abs(f["frame"] - f["content"]) <= 2 and f["overflow"] <= 1 for f in frames)


@pytest.fixture(scope="module")
def course_page(browser, site_origin):
    """The example course page, its two embeds drawn by Python, then each width in turn."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900})
    context.add_init_script(f"({RECORD_MESSAGES_JS})()")
    page = context.new_page()
    log = ConsoleLog(page)
    page.goto(f"{site_origin}/static/embed-example.html")
    for frame in page.locator("iframe").all():
        frame.scroll_into_view_if_needed()
    ready = frames_once(page, TITLED_JS, 240, EXPECTED_TITLES)
    assert [f["titles"] for f in ready] == EXPECTED_TITLES, ready
    by_width = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        by_width[width] = frames_once(page, FITTED_JS, 20)
    yield page, log, by_width
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_each_frame_fits_its_content_with_no_scrollbar_and_no_gap(course_page, width):
    _, _, by_width = course_page
    frames = by_width[width]
    assert fitted(frames), frames
    # The snippet's height is only where a frame starts: fitted, it is another one.
    assert all(f["content"] > 100 for f in frames)


def test_frames_post_their_height_in_both_message_formats(course_page):
    page, _, _ = course_page
    messages = page.evaluate("window.peMessages")
    ours = [m for m in messages if isinstance(m, dict) and m.get("type") == "pe-explorer:resize"]
    canvas = [m for m in messages if isinstance(m, dict) and m.get("subject") == "lti.frameResize"]
    assert ours and canvas
    assert all(isinstance(m["height"], int | float) and m["height"] > 0 for m in ours + canvas)


def test_the_host_script_ignores_other_senders_and_heights_out_of_bounds(course_page):
    page, log, _ = course_page
    before = [f["frame"] for f in page.evaluate(FRAMES_JS)]
    # From the host page itself (not one of its frames), and from a frame: absurd heights.
    page.evaluate("window.postMessage({type: 'pe-explorer:resize', height: 3000}, '*')")
    page.evaluate(
        """() => document.querySelector('iframe').contentWindow.eval(
             "parent.postMessage({type: 'pe-explorer:resize', height: 1e9}, '*');" +
             "parent.postMessage({type: 'pe-explorer:resize', height: 'tall'}, '*');" +
             "parent.postMessage({type: 'pe-test:after'}, '*')")"""
    )
    # Messages to a page are handled in the order they were sent: once the host has heard the
    # last one, its script has handled (and refused) every height before it.
    assert page_holds(page, HEARD_JS, ["pe-test:after", {}], 30)
    assert [f["frame"] for f in page.evaluate(FRAMES_JS)] == before
    assert log.relevant_errors() == []


# The text of the first element with a class, through Panel's shadow roots, in a frame.
DEEP_TEXT_JS = """(name) => {
  const found = [];
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.classList && e.classList.contains(name)) found.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(document);
  return found.length ? found[0].textContent : null;
}"""


def test_each_embed_tells_its_host_when_it_is_ready_with_its_state(course_page):
    page, _, _ = course_page
    ready = host_messages(page, "pe-explorer:ready")
    assert sorted(m["state"]["view"] for m in ready) == ["compare", "heatmap"]
    heatmap = next(m for m in ready if m["state"]["view"] == "heatmap")
    assert heatmap["state"]["d_model"] == "16" and heatmap["state"]["pos"] == "5"


def test_a_host_sets_values_checked_like_a_links_and_hears_the_new_state(course_page):
    page, log, _ = course_page
    frame = next(f for f in page.frames if "view=heatmap" in f.url)
    post = (
        "(values) => document.querySelector('iframe').contentWindow.postMessage("
        "{type: 'pe-explorer:set', values}, '*')"
    )
    page.evaluate(post, {"pos": 20, "d_model": "abc", "theme": "dark"})
    page_holds(page, HEARD_JS, ["pe-explorer:state", {"view": "heatmap", "pos": "20"}], 30)
    states = [m["state"] for m in host_messages(page, "pe-explorer:state")]
    state = next(s for s in reversed(states) if s.get("view") == "heatmap")
    # d_model=abc is not a number: the default, and a notice, exactly as in a link.
    assert (state["pos"], state["d_model"], state["theme"]) == ("20", "128", "dark")
    page_holds(frame, f"() => (({DEEP_TEXT_JS})('pe-notices') || '').includes('abc')", None, 30)
    notices = frame.evaluate(DEEP_TEXT_JS, "pe-notices") or ""
    assert "d_model" in notices and "abc" in notices
    # Not a plain object of short values: refused, and the host is told.
    page.evaluate(post, ["pos", 3])
    assert page_holds(page, HEARD_JS, ["pe-explorer:refused", {}], 30)
    assert host_messages(page, "pe-explorer:refused")
    assert log.relevant_errors() == []

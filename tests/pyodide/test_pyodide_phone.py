"""A 390 × 844 phone (touch, three device pixels per CSS pixel) in the real Pyodide build,
offline: the layout is as wide as the screen, nothing scrolls sideways, every slider handle is a
24 × 24 px target, and a finger dragging the pos handle in the bar at the bottom of the screen
moves the chart above it, both on screen, and then every view."""

from __future__ import annotations

import pytest
from a11y_support import scroll_through, touch_drag
from browser_support import SHOWN_POS_JS, look_at
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    INSIDE_JS,
    page_holds,
    test_console_has_no_errors,
)

pytestmark = pytest.mark.pyodide

WIDTH, HEIGHT = 390, 844
PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 3}
SITE_OPTIONS = {"viewport": (WIDTH, HEIGHT), "context_options": PHONE}
PAGES = ["", "?view=heatmap&embed=1"]
MIN_TARGET_PX = 24  # WCAG 2.2's 2.5.8 Target Size (Minimum)
POS_HANDLE = ".pe-control-pos .noUi-handle"

# The layout viewport's width, how far the page reaches sideways, and every slider handle's size.
LAYOUT_JS = """() => ({
  client_width: document.documentElement.clientWidth,
  scroll_width: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
  handles: __offline.deep('.noUi-handle').map((handle) => {
    const box = handle.getBoundingClientRect();
    const host = handle.getRootNode().host;
    const slider = host && [...host.classList].find((c) => c.startsWith('pe-'));
    return {slider: slider || '?', width: box.width, height: box.height};
  }),
})"""


# Every view shows this pos (SHOWN_POS_JS's readings all equal it).
SHOWING_JS = f"(slider) => Object.values(({SHOWN_POS_JS})()).every((pos) => pos === slider)"
OPENED_JS = """() => __offline.deep('.pe-controls-toggle').some((button) =>
    button.getAttribute('aria-expanded') === 'true')
  && __offline.deep('.noUi-handle').every((handle) => handle.getBoundingClientRect().width > 0)"""


# A view's first chart, found through the card's shadow roots.
CHART_JS = f"""(view) => {{
  const card = __offline.deep(`.pe-view-${{view}}`)[0];
  return card ? ({INSIDE_JS})(card, '.js-plotly-plot')[0] || null : null;
}}"""
# The chart's name (aria-label), once it has one.
LABEL_JS = f"(view) => (({CHART_JS})(view) || {{}}).getAttribute?.('aria-label') || null"
LABELLED_JS = f"(view) => Boolean(({LABEL_JS})(view))"
# [view, handle]: how much of the view's chart the screen shows between the bar at the top and
# the sliders' bar at the bottom, and how much of the handle it shows (fractions of their
# heights, and px).
IN_VIEW_JS = f"""([view, handle]) => {{
  const chart = ({CHART_JS})(view);
  const knob = __offline.deep(handle)[0];
  const bars = __offline.deep('.pe-bar').map((b) => b.getBoundingClientRect().bottom);
  const top = Math.max(0, ...bars);
  const bar = __offline.deep('.pe-thumb-bar')[0];
  const bottom = bar ? bar.getBoundingClientRect().top : window.innerHeight;
  const seen = (element, low, high) => {{
    if (!element) return null;
    const box = element.getBoundingClientRect();
    const shown = Math.max(0, Math.min(box.bottom, high) - Math.max(box.top, low));
    return {{fraction: box.height ? shown / box.height : 0, px: shown, top: box.top,
            bottom: box.bottom}};
  }};
  return {{chart: seen(chart, top, bottom), handle: seen(knob, 0, window.innerHeight),
          window: window.innerHeight, free: [top, bottom]}};
}}"""


def caught_up(page, slider: int, timeout_s: float = 30) -> dict:
    """What each view shows for pos, once each was on screen and showed the slider's value (a
    view off screen waits, and catches up when seen), or when time ran out."""
    for view in ("heatmap", "compare", "waves"):
        look_at(page, view)
        page_holds(page, SHOWING_JS, slider, timeout_s)
    return page.evaluate(SHOWN_POS_JS)


def open_controls(page) -> bool:
    """Tap the bar's Controls button, where the page folds its controls away (a phone's
    layout); whether it was there to tap."""
    toggle = page.locator(".pe-controls-toggle").first
    if not toggle.count() or not toggle.is_visible():
        return False
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.tap()
        # Open: the button says so, and every slider handle of the unfolded controls is laid out.
        page_holds(page, OPENED_JS, None, 10)
    return True


def steps(site) -> dict:
    """Read the layout of the page and of an embed, then drag the pos handle with a finger."""
    record = {"layouts": {}, "errors": {}}
    page = site.page

    def layout(query):
        if query:
            site.goto(query)
        scroll_through(page)  # every card drawn: their sliders and widths count too
        folded = page.evaluate(LAYOUT_JS)
        opened = open_controls(page)
        unfolded = page.evaluate(LAYOUT_JS)
        return {
            "client_width": unfolded["client_width"],
            # Sideways, with the controls folded and open.
            "scroll_width": max(folded["scroll_width"], unfolded["scroll_width"]),
            "handles": unfolded["handles"],
            "controls_folded": opened,
        }

    def drag():
        # The controls stay folded: pos is in the bar at the bottom of the screen, and the waves
        # card, below the first screen, is scrolled to as a reader would.
        site.goto("")
        look_at(page, "waves")
        page_holds(page, LABELLED_JS, "waves", 60)
        record["before_drag"] = page.evaluate(SHOWN_POS_JS)
        record["label_before"] = page.evaluate(LABEL_JS, "waves")
        touch_drag(page, POS_HANDLE, to=0.6, scroll=False)
        record["drag"] = site.settle(settle_ms=2000)
        record["label_after"] = page.evaluate(LABEL_JS, "waves")
        record["in_view"] = page.evaluate(IN_VIEW_JS, ["waves", POS_HANDLE])
        slider = page.evaluate(SHOWN_POS_JS)["slider"]
        record["after_drag"] = caught_up(page, slider)

    def attempt(name, part):
        """Run part, keeping the error that stopped it: one must not hide the others'."""
        try:
            return part()
        except Exception as error:
            record["errors"][name] = f"{type(error).__name__}: {error}"

    for query in PAGES:
        record["layouts"][query] = attempt(query, lambda query=query: layout(query))
    attempt("drag", drag)
    return record


def page_id(query: str) -> str:
    return query.lstrip("?") or "default"


@pytest.mark.parametrize("query", PAGES, ids=page_id)
def test_the_layout_is_as_wide_as_the_phone(visit, query):
    # Without <meta name="viewport" content="width=device-width"> a phone lays the page out
    # 980 px wide and shrinks it to fit.
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert query not in visit["errors"], visit["errors"][query]
    assert visit["layouts"][query]["client_width"] == WIDTH


@pytest.mark.parametrize("query", PAGES, ids=page_id)
def test_nothing_scrolls_sideways(visit, query):
    assert query not in visit["errors"], visit["errors"][query]
    layout = visit["layouts"][query]
    assert layout["scroll_width"] <= layout["client_width"], layout


@pytest.mark.parametrize("query", PAGES, ids=page_id)
def test_every_slider_handle_is_at_least_24_px(visit, query):
    assert query not in visit["errors"], visit["errors"][query]
    handles = [h for h in visit["layouts"][query]["handles"] if h["width"] or h["height"]]
    assert handles, "no slider handle on the page"
    small = [h for h in handles if min(h["width"], h["height"]) < MIN_TARGET_PX]
    assert small == [], f"{len(small)} of {len(handles)} handles under 24 × 24 px: {small[:3]}"


def test_a_touch_drag_moves_the_chart_on_screen_with_the_controls_folded(visit):
    # Drag and see at once: the pos handle is in the bar at the bottom, the waves chart above
    # it, both on screen as the finger moves the chart.
    assert "drag" not in visit["errors"], visit["errors"]["drag"]
    assert visit["label_before"] and "pos = 7" in visit["label_before"], visit["label_before"]
    assert visit["label_after"] != visit["label_before"], visit["label_after"]
    in_view = visit["in_view"]
    assert in_view["handle"]["fraction"] == 1, in_view
    # At least half of the chart, and 200 px of it, shows between the two bars.
    assert in_view["chart"]["fraction"] >= 0.5 and in_view["chart"]["px"] >= 200, in_view


def test_a_touch_drag_on_the_pos_handle_moves_the_readout_and_the_views(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert "drag" not in visit["errors"], visit["errors"]["drag"]
    before, after = visit["before_drag"], visit["after_drag"]
    assert (before["slider"], before["readout"]) == (7, 7), before
    assert visit["drag"]["settled"], visit["drag"]["error"]
    assert after["slider"] not in (None, 7), after
    assert set(after.values()) == {after["slider"]}, after

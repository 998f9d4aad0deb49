"""The Pyodide tier's looks at the whole page, shared by the accessibility, phone and screenshot
tests (tests/pyodide/conftest.py holds them, one per kind of visitor, for the whole run): each
link in one browser profile, every card scrolled to and drawn, photographed, its charts checked
for text over another chart or past the card's edge (layout_support), then axe; and what a
keyboard, a finger and a screen reader meet on the default page.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from a11y_support import CONTROLS, run_axe, scroll_through, touch_drag
from browser_support import FOCUS_JS, SHOWN_POS_JS, look_at, page_idle, tab_to
from frames_support import PICKS_READY_JS, RECORD_JS, STOP_JS
from layout_support import OVERLAPS_JS
from pe_explorer.plotkit.narrow import NARROW_MARK, NARROW_PX
from pe_explorer.views import VIEWS
from pyodide_support import INSIDE_JS, console_errors, page_holds

NAMES = [spec.name for spec in VIEWS]
SCREENSHOTS = Path(__file__).resolve().parents[1] / "pyodide" / "screenshots"
# How long a card may take to be built and drawn once it is on screen.
CARD_TIMEOUT_S = 90
# The window's height while cards are photographed: most cards fit (a phone's are 780 to 4,690
# px tall).
PHOTO_HEIGHT_PX = 2400
TAB_PRESSES = 80
PHONE = {
    "viewport": (390, 844),
    "context_options": {"is_mobile": True, "has_touch": True, "device_scale_factor": 3},
}
POS_HANDLE = ".pe-control-pos .noUi-handle"


@dataclass(frozen=True)
class Page:
    """A link to check, and what to do there besides axe."""

    query: str
    photos: str = ""  # the pictures' middle name (light, dark, embed): every card photographed
    at_load: bool = False  # axe also before any scroll, as the page fills in
    scroll: bool = True  # every card scrolled to and drawn, then axe (else axe at load alone)
    layout: bool = False  # the phone's layout measured, the controls folded and open
    viewport: tuple[int, int] | None = None  # the window resized first


THEME_OF_PAGE_JS = "() => document.documentElement.getAttribute('data-pe-theme')"
# A card is drawn when its view took the place of its placeholder, each chart it shows has been
# plotted (traces, at its box's width) under its name (aria-label), and its Show data is filled.
CARD_DRAWN_JS = (
    """(view) => {
  const card = __offline.deep(`.pe-view-${view}`)[0];
  if (!card) return false;
  const inside = (selector) => ("""
    + INSIDE_JS
    + """)(card, selector);
  if (inside('.pe-placeholder, .pe-card-frame').length) return false;
  const charts = inside('.js-plotly-plot').filter((chart) => chart.getClientRects().length);
  // Drawn for the card's width: a narrow card's figure says so (plotkit/narrow.py).
  const narrow = matchMedia('(max-width: """
    + str(NARROW_PX)
    + """px)').matches;
  const drawn = (chart) => Boolean(
    Boolean(chart.layout && chart.layout.meta && chart.layout.meta."""
    + NARROW_MARK
    + """) === narrow
    && (chart.getAttribute('aria-label') || '').trim()
    && chart._fullLayout && (chart.data || []).length
    && chart.querySelector('.main-svg')
    && Math.abs(chart._fullLayout.width - chart.clientWidth) <= 2
  );
  return charts.length > 0 && charts.every(drawn) && inside('details.pe-data').length > 0;
}"""
)


def file_name(view: str, kind: str, width: int) -> str:
    return f"{view}-{kind}-{width}.png"


def every_card(site, kind: str) -> dict:
    """Each card in turn scrolled to, waited for until drawn, checked for overlapping text and
    photographed alone (SCREENSHOTS/VIEW-KIND-WIDTH.png), in a window PHOTO_HEIGHT_PX tall (as
    wide as before): a card taller than the window makes Chromium resize the window for its
    picture, and every chart then draws again (benchmarks/RESULTS.md)."""
    page = site.page
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    record = {"written": {}, "errors": {}, "overlaps": {}, "theme": page.evaluate(THEME_OF_PAGE_JS)}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": max(height, PHOTO_HEIGHT_PX)})
    try:
        for name in NAMES:
            path = SCREENSHOTS / file_name(name, kind, width)
            path.unlink(missing_ok=True)  # a stale picture must not pass for a new one
            try:
                record["overlaps"][name] = photograph(page, name, path)
                record["written"][path.name] = path.stat().st_size
            except Exception as error:  # one card's failure must not hide the others'
                record["errors"][path.name] = f"{type(error).__name__}: {error}"
    finally:
        page.set_viewport_size({"width": width, "height": height})
    return record


# Centre the card in the window (its picture then needs no resize when it fits).
CENTRE_JS = "(card) => card.scrollIntoView({block: 'center'})"


def photograph(page, name: str, path: Path) -> list:
    """The view's card scrolled to the middle of the window and waited for until drawn; the
    overlaps read; then the card photographed to path. Returns the overlaps."""
    card = page.locator(f".pe-view-{name}").first
    card.wait_for(state="attached", timeout=CARD_TIMEOUT_S * 1000)
    card.evaluate(CENTRE_JS)
    page.wait_for_function(CARD_DRAWN_JS, arg=name, timeout=CARD_TIMEOUT_S * 1000, polling=100)
    card.evaluate(CENTRE_JS)  # drawn, the card may have grown
    # Read before the picture: for a card taller than the window Chromium shrinks the window to
    # 1 × 1 to take it, and Plotly then draws each chart again at its width.
    overlaps = page.evaluate(OVERLAPS_JS, name)
    # One image pixel per CSS pixel: a phone's (device scale 3) nine times fewer to encode.
    card.screenshot(
        path=str(path), animations="disabled", scale="css", timeout=CARD_TIMEOUT_S * 1000
    )
    return overlaps


# The controls the page shows (their pe-control-* classes).
CONTROLS_SHOWN_JS = """() => __offline.deep('[class*="pe-control-"]')
  .filter((e) => e.getClientRects().length)
  .flatMap((e) => [...e.classList].filter((c) => c.startsWith('pe-control-')))"""
VIEWS_SHOWN_JS = """() => __offline.deep('[class*="pe-view-"]').map((e) =>
  [...e.classList].find((c) => c.startsWith('pe-view-')).slice('pe-view-'.length))"""
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
OPENED_JS = """() => __offline.deep('.pe-controls-toggle').some((button) =>
    button.getAttribute('aria-expanded') === 'true')
  && __offline.deep('.noUi-handle').every((handle) => handle.getBoundingClientRect().width > 0)"""


def open_controls(page) -> bool:
    """Tap the bar's Controls button, where the page folds its controls away (a phone's
    layout); whether it was there to tap."""
    toggle = page.locator(".pe-controls-toggle").first
    if not toggle.count() or not toggle.is_visible():
        return False
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.tap()
        page_holds(page, OPENED_JS, None, 10)
    return True


def phone_layout(page) -> dict:
    """How wide the page is laid out and reaches, with its controls folded and then open, and
    every slider handle's size (open)."""
    folded = page.evaluate(LAYOUT_JS)
    opened = open_controls(page)
    unfolded = page.evaluate(LAYOUT_JS)
    if opened:
        page.locator(".pe-controls-toggle").first.tap()  # folded again, as it was
    return {
        "client_width": unfolded["client_width"],
        "scroll_width": max(folded["scroll_width"], unfolded["scroll_width"]),
        "handles": unfolded["handles"],
        "controls_folded": opened,
    }


def timed_into(seconds: dict, part: str, work):
    """work(), its duration (s, rounded to 0.1) kept in seconds[part], even if it fails."""
    started = time.monotonic()
    try:
        return work()
    finally:
        seconds[part] = round(time.monotonic() - started, 1)


def check_page(site, page: Page) -> dict:
    """Open the link, draw every card (photographed when asked), and run axe: what a test needs
    to say what went wrong. record["seconds"]: how long each part took."""
    if page.viewport:
        site.page.set_viewport_size({"width": page.viewport[0], "height": page.viewport[1]})
    first_load = not page.query and not site.earlier_loads  # the page is open already
    seconds = {}
    timed = partial(timed_into, seconds)

    load = site.load if first_load else timed("load", lambda: site.goto(page.query))
    record = {"interactive": load["interactive"], "error": load["error"], "seconds": seconds}
    if not load["interactive"]:
        return record
    if page.at_load:  # what a visitor sees while the page fills in, before any scroll
        record["at_load"] = timed("axe at load", lambda: run_axe(site.page))
    record["theme"] = site.page.evaluate(THEME_OF_PAGE_JS)
    if not page.scroll:
        record["violations"] = timed("axe at load", lambda: run_axe(site.page))
        return record
    if page.photos:
        record["cards"] = timed("photos", lambda: every_card(site, page.photos))
    record["pending"] = timed("scroll", lambda: scroll_through(site.page))
    record["views"] = sorted(set(site.page.evaluate(VIEWS_SHOWN_JS)))
    record["headers"] = site.page.evaluate("() => __offline.deep('.pe-header').length")
    record["controls"] = sorted(set(site.page.evaluate(CONTROLS_SHOWN_JS)))
    if page.layout:
        record["layout"] = timed("layout", lambda: phone_layout(site.page))
    record["violations"] = timed("axe", lambda: run_axe(site.page))
    return record


# The slider each view is driven by: pos where it follows pos, else the first it follows.
SLIDERS = ("pos", "offset", "d_model", "n_positions", "base")


def driving_slider(spec) -> str | None:
    return next((c for c in SLIDERS if c in spec.controls and c in spec.follows), None)


# The model view follows no slider (its numbers come from the model): test_pyodide_model.py
# checks its chart's name.
DRIVEN = {spec.name: slider for spec in VIEWS if (slider := driving_slider(spec))}
# Views whose Show data is opened before the key and read after it.
SHOW_DATA_VIEWS = ("heatmap", "rope", "alibi")
# A card's charts (role, name) and its Show data tables, searched through its shadow roots.
CARD_JS = (
    """(view) => {
  const card = __offline.deep(`.pe-view-${view}`)[0];
  if (!card) return null;
  const inside = """
    + INSIDE_JS
    + """;
  const cells = (details, selector) => [...details.querySelectorAll(selector)];
  return {
    charts: inside(card, '.js-plotly-plot').map((chart) => ({
      role: chart.getAttribute('role'), label: chart.getAttribute('aria-label')})),
    data: inside(card, 'details.pe-data').map((details) => ({
      open: details.open,
      rows: cells(details, 'tbody th').map((th) => th.textContent),
      scopes: cells(details, 'thead th').map((th) => th.getAttribute('scope')),
      headers: cells(details, 'thead th').map((th) => th.textContent),
    })),
  };
}"""
)
# The card's charts are all named, and one of them no longer has a name of `before`.
CARD_NAMED_JS = f"""([view, before]) => {{
  const card = ({CARD_JS})(view);
  const labels = card ? card.charts.map((chart) => chart.label) : [];
  return labels.length > 0 && labels.every(Boolean) && labels.some((l) => !before.includes(l));
}}"""


# Whether the view's Show data is open.
OPENED_JS = f"(name) => ({CARD_JS})(name).data.some((table) => table.open)"


def card_named(site, name: str, before: list[str], timeout_s: float = 60) -> dict | None:
    """Scroll the view's card on screen (off screen, a view waits) and wait until its charts are
    named, one not as in before, and the worker is idle: the card then, or None."""
    site.page.locator(f".pe-view-{name}").first.scroll_into_view_if_needed()
    if not page_holds(site.page, CARD_NAMED_JS, [name, before], timeout_s):
        return None
    page_idle(site.page, what=f"the {name} card")
    return site.page.evaluate(CARD_JS, name)


def names_on_the_page(site) -> dict:
    """On the default page (at pos = 7, k = 1), a slider at a time: each view it drives, its
    charts' names (its Show data opened); one key on the slider; each view's names and data once
    its card, scrolled to, shows new ones."""
    seen = {name: {} for name in DRIVEN}
    for slider in dict.fromkeys(DRIVEN.values()):
        views = [name for name, drives in DRIVEN.items() if drives == slider]
        for name in views:
            card = card_named(site, name, [])
            seen[name]["named"] = card is not None
            seen[name]["charts"] = card["charts"] if card else []
            if name in SHOW_DATA_VIEWS:
                site.page.locator(f".pe-view-{name} details.pe-data summary").first.click()
                page_holds(site.page, OPENED_JS, name, 30)
                seen[name]["data_before"] = site.page.evaluate(CARD_JS, name)["data"]
        key = "ArrowRight" if slider == "pos" else "ArrowLeft"
        site.press(f".pe-control-{slider.replace('_', '-')} .noUi-handle", key, 1)
        for name in views:
            before = [chart["label"] for chart in seen[name]["charts"]]
            card = card_named(site, name, before)
            seen[name]["renamed"] = card is not None
            seen[name]["charts_after"] = card["charts"] if card else []
            if card and name in SHOW_DATA_VIEWS:
                card = data_redrawn(site, name, seen[name]["data_before"])
            seen[name]["data_after"] = card["data"] if card else []
    return seen


def data_redrawn(site, name: str, before: list, timeout_s: float = 60) -> dict:
    """The card once its Show data lists other rows than before: the page names the new pos at
    once (its picks), the table's rows come with Python's drawing of it."""
    rows = [[table["rows"], table["headers"]] for table in before]
    changed = f"""([name, before]) => JSON.stringify(
      ({CARD_JS})(name).data.map((t) => [t.rows, t.headers])) !== JSON.stringify(before)"""
    page_holds(site.page, changed, [name, rows], timeout_s)
    return site.page.evaluate(CARD_JS, name)


# The sliders after pos, in page order, and the link key each one writes.
KEYED_SLIDERS = {
    "pe-control-offset": "offset",
    "pe-control-d-model": "d_model",
    "pe-control-n-positions": "n_positions",
    "pe-control-base": "base",
}
LINK_VALUE_JS = "(key) => new URLSearchParams(location.search).get(key)"
# To the top, with nothing focused: the focused element may be inside shadow roots, where the
# document's activeElement is only its outermost host (blurring that leaves the inner one focused,
# and Tab would go on from there).
TOP_JS = """() => {
  window.scrollTo(0, 0);
  let element = document.activeElement;
  while (element && element.shadowRoot && element.shadowRoot.activeElement) {
    element = element.shadowRoot.activeElement;
  }
  element?.blur();
  document.activeElement?.blur();
}"""


def tab_order(site) -> dict:
    """From the top of the default page: the controls Tab reaches, in order; then ArrowRight on
    the pos slider reached by Tab, and what each view shows for pos once the worker answered."""
    site.goto("")
    # Interactive is not yet done: the views below the fold may still be drawing and re-rendering
    # what Tab walks over. Wait for the worker to be idle and the page quiet.
    site.settle()
    page = site.page
    page.evaluate(TOP_JS)
    reached = []
    for _ in range(TAB_PRESSES):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_JS).split()
        reached += [c for c in CONTROLS if c in focused and c not in reached]
    page.evaluate(TOP_JS)
    # A click on the page's top corner (no control there) starts Tab's walk from the top, as a
    # person would make it start.
    page.mouse.click(2, 2)
    before = page.evaluate(SHOWN_POS_JS)
    tab_to(page, "pe-control-pos", TAB_PRESSES)
    page.keyboard.press("ArrowRight")
    settled = site.settle(settle_ms=2000)
    after = page.evaluate(SHOWN_POS_JS)
    # Then on, by Tab, each slider after it: one key, and the link (which the state writes once
    # Python has taken the step) says the new value.
    moved = {}
    for css_class, key in KEYED_SLIDERS.items():
        was = page.evaluate(LINK_VALUE_JS, key)
        tab_to(page, css_class, TAB_PRESSES)
        page.keyboard.press("ArrowRight")
        site.settle(settle_ms=1500)
        moved[key] = (was, page.evaluate(LINK_VALUE_JS, key))
    # A d_model preset, before the base slider: reached by Shift+Tab and pressed with Enter.
    for _ in range(TAB_PRESSES):
        page.keyboard.press("Shift+Tab")
        if "pe-preset-16" in page.evaluate(FOCUS_JS).split():
            break
    page.keyboard.press("Enter")
    preset = page_holds(page, f"() => ({LINK_VALUE_JS})('d_model') === '16'", None, 30)
    return {
        "reached": reached,
        "before": before,
        "after": after,
        "moved": moved,
        "preset": preset,
        **settled,
    }


# A view's first chart, found through the card's shadow roots.
CHART_JS = f"""(view) => {{
  const card = __offline.deep(`.pe-view-${{view}}`)[0];
  return card ? ({INSIDE_JS})(card, '.js-plotly-plot')[0] || null : null;
}}"""
LABEL_JS = (
    f"(view) => {{ const c = ({CHART_JS})(view); return c && c.getAttribute('aria-label'); }}"
)
LABEL_CHANGED_JS = (
    f"([view, before]) => {{ const l = ({LABEL_JS})(view); return l && l !== before; }}"
)
# [view, control]: how much of the view's chart the screen shows between the bar at the top and
# the sliders' bar at the bottom, and how much of the handle it shows (fractions of their
# heights, and px).
IN_VIEW_JS = f"""([view, control]) => {{
  const chart = ({CHART_JS})(view);
  const host = __offline.deep(`.${{control}}`)[0];
  const knob = host ? ({INSIDE_JS})(host, '.noUi-handle')[0] : null;
  const bars = __offline.deep('.pe-bar').map((b) => b.getBoundingClientRect().bottom);
  const top = Math.max(0, ...bars);
  const bar = __offline.deep('.pe-thumb-bar')[0];
  const bottom = bar ? bar.getBoundingClientRect().top : window.innerHeight;
  const seen = (element, low, high) => {{
    if (!element) return null;
    const box = element.getBoundingClientRect();
    const shown = Math.max(0, Math.min(box.bottom, high) - Math.max(box.top, low));
    return {{fraction: box.height ? shown / box.height : 0, px: shown}};
  }};
  return {{chart: seen(chart, top, bottom), handle: seen(knob, 0, window.innerHeight),
          free: [top, bottom]}};
}}"""


def caught_up(page, slider: int, timeout_s: float = 30) -> dict:
    """What each view shows for pos, once each was on screen and showed the slider's value (a
    view off screen waits, and catches up when seen), or when time ran out."""
    showing = f"(slider) => Object.values(({SHOWN_POS_JS})()).every((pos) => pos === slider)"
    for view in ("heatmap", "compare", "waves"):
        look_at(page, view)
        page_holds(page, showing, slider, timeout_s)
    return page.evaluate(SHOWN_POS_JS)


def drag_and_see(site) -> dict:
    """The controls folded, the waves card (below the first screen) scrolled to as a reader
    would: a finger drags the pos handle in the bar at the bottom of the screen. What the chart
    said before and after, how much of it and of the handle the screen showed, and then what
    every view shows."""
    page = site.page
    site.goto("")
    look_at(page, "waves")
    page_holds(page, "(view) => Boolean((" + LABEL_JS + ")(view))", "waves", 60)
    record = {
        "before": page.evaluate(SHOWN_POS_JS),
        "label_before": page.evaluate(LABEL_JS, "waves"),
    }
    page_holds(page, PICKS_READY_JS, None, 30)
    page.evaluate(RECORD_JS)
    touch_drag(page, POS_HANDLE, to=0.6, scroll=False)
    record["in_view"] = page.evaluate(IN_VIEW_JS, ["waves", "pe-control-pos"])
    record["drag"] = site.settle(settle_ms=2000)
    record["frames"] = page.evaluate(STOP_JS)
    page_holds(page, LABEL_CHANGED_JS, ["waves", record["label_before"]], 30)
    record["label_after"] = page.evaluate(LABEL_JS, "waves")
    record["in_view_after"] = page.evaluate(IN_VIEW_JS, ["waves", "pe-control-pos"])
    record["after"] = caught_up(page, page.evaluate(SHOWN_POS_JS)["slider"])
    return record


def pages_in(site, pages: list[Page], then=(), visitor: str = "visit") -> dict:
    """In one browser profile, already open: each page checked (check_page); after the default
    page, and after all pages, the steps in then ((name, steps, after_default) each) record what
    they return under their name. Each part's seconds go to SCREENSHOTS/VISITOR-seconds.json; the
    console's errors are those from here on."""
    record = {"pages": {}, "errors": {}, "first_load": site.load}
    since = len(site.console)
    try:
        if site.interactive:
            pages_and_steps(site, pages, then, record)
        record["console_errors"] = console_errors(site, since)
        return record
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        parts = {query: page.get("seconds") for query, page in record["pages"].items()}
        seconds = json.dumps({**record.get("seconds", {}), "parts": parts}, indent=1)
        (SCREENSHOTS / f"{visitor}-seconds.json").write_text(seconds)


def pages_and_steps(site, pages: list[Page], then, record: dict) -> None:
    for page in pages:
        attempt(record, page.query, lambda page=page: check_page(site, page), "pages")
        if not page.query:
            for name, steps, after_default in then:
                if after_default:
                    attempt(record, name, lambda steps=steps: steps(site))
    for name, steps, after_default in then:
        if not after_default:
            attempt(record, name, lambda steps=steps: steps(site))


def attempt(record: dict, name: str, part, under: str = "") -> None:
    """Run part, keeping what it returns (under record[under][name], or record[name]) or the
    error that stopped it: one part's failure must not hide the others'. How long it took goes
    to record["seconds"] (written beside the screenshots: where a visit's time goes)."""
    try:
        result = timed_into(record.setdefault("seconds", {}), name or "(default page)", part)
    except Exception as error:
        record["errors"][name] = f"{type(error).__name__}: {error}"
        return
    if under:
        record[under][name] = result
    else:
        record[name] = result


# Every card is checked on the default page, photographed in both themes; a view alone is its
# card under the header and its controls, and an embed its card alone: one view of each kind
# (one chart, a grid of charts, an upload, the model) embedded, and the grid alone.
EMBEDDED = ("heatmap", "scaling", "checker", "model")
DESKTOP_PAGES = [
    Page("", photos="light", at_load=True),
    Page("?view=scaling"),
    Page("?theme=dark", photos="dark", at_load=True),
    *[Page(f"?view={name}&embed=1") for name in EMBEDDED],
]
# A visitor whose system prefers dark: the page at load (the dark page scrolled through is
# ?theme=dark's, above), and a view alone.
DARK_VISITOR_PAGES = [Page("", scroll=False), Page("?view=heatmap")]
# A phone: the page in both themes, photographed and measured; an embed; a view alone on a 320 px
# phone; then every view embedded in a 480 px frame (?embed=1 alone embeds them all),
# photographed.
PHONE_PAGES = [
    Page("", photos="light", layout=True),
    Page("?theme=dark", photos="dark"),
    Page("?view=heatmap&embed=1", layout=True),
    Page("?view=tokens", layout=True, viewport=(320, 640)),  # the narrowest phone in use
    Page("?embed=1", photos="embed", viewport=(480, 900)),
]
DESKTOP_THEN = (("names", names_on_the_page, True), ("keyboard", tab_order, False))
PHONE_THEN = (("drag", drag_and_see, True),)

"""Accessibility of the real Pyodide build, offline: axe-core (WCAG 2.0 to 2.2, A and AA) finds
no violation on the default page (every card drawn), views alone and embedded, the dark theme, a
visitor whose system prefers dark, and a phone; a keyboard alone reaches the controls in page
order and moves the views; and every view's charts carry their numbers in their names
(aria-label), which follow a key on a slider the view follows, while an open Show data stays open.

One browser profile per kind of visitor; each page is a new link in that profile (after the first
load the service worker serves the site, so a link takes seconds). The whole page is scrolled
through before axe runs, so the cards drawn when they come into view are checked too.
"""

from __future__ import annotations

import math

import pytest
from a11y_support import CONTROLS, axe_missing, describe, run_axe, scroll_through
from browser_support import FOCUS_JS, SHOWN_POS_JS, page_idle, tab_to
from pe_explorer.views import VIEWS
from pyodide_support import INSIDE_JS, offline_site, unavailable, visit_offline

pytestmark = pytest.mark.pyodide

NAMES = [spec.name for spec in VIEWS]

# The slider each view is driven by: pos where it follows pos, else the first it follows.
SLIDERS = ("pos", "offset", "d_model", "n_positions", "base")


def driving_slider(spec) -> str | None:
    return next((c for c in SLIDERS if c in spec.controls and c in spec.follows), None)


# The model view follows no slider (its numbers come from the model): test_pyodide_model.py
# checks its chart's name.
DRIVEN = {spec.name: slider for spec in VIEWS if (slider := driving_slider(spec))}
DRIVEN_VIEWS = tuple(DRIVEN)
POS_VIEWS = tuple(name for name, slider in DRIVEN.items() if slider == "pos")
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


def card_named(site, name: str, before: list[str], timeout_s: float = 60) -> dict | None:
    """Scroll the view's card on screen (off screen, a view waits) and wait until its charts are
    named, one not as in before, and the worker is idle: the card then, or None."""
    site.page.locator(f".pe-view-{name}").first.scroll_into_view_if_needed()
    try:
        site.page.wait_for_function(
            CARD_NAMED_JS, arg=[name, before], timeout=timeout_s * 1000, polling=100
        )
    except Exception as error:
        if type(error).__name__ != "TimeoutError":
            raise
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
        key = "ArrowRight" if slider == "pos" else "ArrowLeft"
        site.press(f".pe-control-{slider.replace('_', '-')} .noUi-handle", key, 1)
        for name in views:
            before = [chart["label"] for chart in seen[name]["charts"]]
            card = card_named(site, name, before)
            seen[name]["renamed"] = card is not None
            seen[name]["charts_after"] = card["charts"] if card else []
            seen[name]["data_after"] = card["data"] if card else []
    return seen


# Every card is checked on the default page. A view alone is its card under the header and its
# controls, and an embed is its card alone: both are checked for one view of each kind (one
# chart, a grid of charts, an upload, the model).
EMBEDDED = ("heatmap", "scaling", "checker", "model")
DESKTOP_PAGES = [
    "",
    *[f"?view={name}" for name in EMBEDDED],
    "?theme=dark",
    *[f"?view={name}&embed=1" for name in EMBEDDED],
]
DARK_VISITOR_PAGES = ["", "?view=heatmap"]
# Pages axe also checks at load, before the cards below the first screen are drawn.
AT_LOAD = ("", "?theme=dark")
PHONE_PAGES = ["", "?view=heatmap&embed=1"]
PHONE = {
    "viewport": (390, 844),
    "context_options": {"is_mobile": True, "has_touch": True, "device_scale_factor": 3},
}
DARK_VISITOR = {"context_options": {"color_scheme": "dark"}}
TAB_PRESSES = 80

# The views a page shows, by class (pe-view-NAME), searched through every shadow root.
VIEWS_SHOWN_JS = """() => __offline.deep('[class*="pe-view-"]').map((e) =>
  [...e.classList].find((c) => c.startsWith('pe-view-')).slice('pe-view-'.length))"""


def views_expected(query: str) -> list[str]:
    """The views a link shows: the one it names, else all of them."""
    for part in query.lstrip("?").split("&"):
        if part.startswith("view="):
            return [part.removeprefix("view=")]
    return NAMES


def check_page(site, query: str) -> dict:
    """Open the link, draw every card, and run axe: what a test needs to say what went wrong."""
    first_load = not query and not site.earlier_loads  # the page is open already
    load = site.load if first_load else site.goto(query)
    record = {"interactive": load["interactive"], "error": load["error"]}
    if not load["interactive"]:
        return record
    if query in AT_LOAD:  # what a visitor sees while the page fills in, before any scroll
        record["at_load"] = run_axe(site.page)
    record["pending"] = scroll_through(site.page)
    record["views"] = sorted(set(site.page.evaluate(VIEWS_SHOWN_JS)))
    record["violations"] = run_axe(site.page)
    return record


# The sliders after pos, in page order, and the link key each one writes.
KEYED_SLIDERS = {
    "pe-control-offset": "offset",
    "pe-control-d-model": "d_model",
    "pe-control-n-positions": "n_positions",
    "pe-control-base": "base",
}
LINK_VALUE_JS = "(key) => new URLSearchParams(location.search).get(key)"


def tab_order(site) -> dict:
    """From the top of the default page: the controls Tab reaches, in order; then ArrowRight on
    the pos slider reached by Tab, and what each view shows for pos once the worker answered."""
    site.goto("")
    page = site.page
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement?.blur(); }")
    reached = []
    for _ in range(TAB_PRESSES):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_JS).split()
        reached += [c for c in CONTROLS if c in focused and c not in reached]
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement?.blur(); }")
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
    return {"reached": reached, "before": before, "after": after, "moved": moved, **settled}


def visit_pages(queries: list[str], viewport=(1280, 900), context_options=None, keyboard=False):
    """A visit of the site in one profile: each link checked with axe (and, with keyboard, the
    charts' names on the default page once checked); then the keyboard."""

    def visit(site_dir) -> dict:
        record = {"pages": {}, "errors": {}}
        with offline_site.open_offline_site(
            site_dir, "index.html", viewport=viewport, context_options=context_options
        ) as site:
            record["first_load"] = site.load
            if not site.interactive:
                return record
            for query in queries:
                try:
                    record["pages"][query] = check_page(site, query)
                    if keyboard and not query:
                        record["names"] = names_on_the_page(site)
                except Exception as error:  # one page's failure must not hide the others'
                    record["errors"][query] = f"{type(error).__name__}: {error}"
            if keyboard:
                try:
                    record["keyboard"] = tab_order(site)
                except Exception as error:
                    record["errors"]["keyboard"] = f"{type(error).__name__}: {error}"
            record["console_errors"] = site.console_errors()
        return record

    return visit


def open_visit(request, queries, **options) -> dict:
    missing = axe_missing()
    if missing:
        unavailable(missing)
    return visit_offline(request, visit_pages(queries, **options))


@pytest.fixture(scope="module")
def desktop(request) -> dict:
    return open_visit(request, DESKTOP_PAGES, keyboard=True)


@pytest.fixture(scope="module")
def dark_visitor(request) -> dict:
    return open_visit(request, DARK_VISITOR_PAGES, **DARK_VISITOR)


@pytest.fixture(scope="module")
def phone(request) -> dict:
    return open_visit(request, PHONE_PAGES, **PHONE)


def assert_no_violation(visit: dict, query: str, who: str) -> None:
    where = f"{who} {query or '(default page)'}"
    assert visit["first_load"]["interactive"], f"{who}: {visit['first_load']['error']}"
    assert query not in visit["errors"], f"{where}: {visit['errors'].get(query)}"
    page = visit["pages"][query]
    assert page["interactive"], f"{where}: {page['error']}"
    assert page["views"] == sorted(views_expected(query)), f"{where}: shows {page['views']}"
    assert page["pending"] == 0, f"{where}: {page['pending']} cards were never drawn"
    assert page["violations"] == [], describe(page["violations"], where)


def page_id(query: str) -> str:
    return query.lstrip("?") or "default"


@pytest.mark.parametrize("query", DESKTOP_PAGES, ids=page_id)
def test_axe_finds_no_violation_on_a_desktop(desktop, query):
    assert_no_violation(desktop, query, "1280 × 900")


@pytest.mark.parametrize("query", DARK_VISITOR_PAGES, ids=page_id)
def test_axe_finds_no_violation_for_a_visitor_who_prefers_dark(dark_visitor, query):
    assert_no_violation(dark_visitor, query, "prefers-color-scheme: dark")


@pytest.mark.parametrize("query", PHONE_PAGES, ids=page_id)
def test_axe_finds_no_violation_on_a_phone(phone, query):
    assert_no_violation(phone, query, "390 × 844 phone")


@pytest.mark.parametrize("query", AT_LOAD, ids=page_id)
def test_axe_finds_no_violation_at_load_before_any_scroll(desktop, query):
    page = desktop["pages"][query]
    assert page["interactive"], page["error"]
    assert page["at_load"] == [], describe(page["at_load"], f"{page_id(query)} at load")


def test_tab_from_the_top_reaches_every_control_in_page_order(desktop):
    assert "keyboard" not in desktop["errors"], desktop["errors"].get("keyboard")
    assert desktop["keyboard"]["reached"] == CONTROLS


def test_arrow_right_on_the_pos_slider_reached_by_tab_moves_the_views(desktop):
    assert "keyboard" not in desktop["errors"], desktop["errors"].get("keyboard")
    keyboard = desktop["keyboard"]
    assert keyboard["settled"], keyboard["error"]
    on_screen = ("slider", "readout", "heatmap", "bars")
    assert {key: keyboard["before"][key] for key in on_screen} == dict.fromkeys(on_screen, 7)
    assert {key: keyboard["after"][key] for key in on_screen} == dict.fromkeys(on_screen, 8)


def test_console_has_no_errors(desktop, dark_visitor, phone):
    errors = [
        (who, error)
        for who, visit in (("desktop", desktop), ("dark", dark_visitor), ("phone", phone))
        for error in visit.get("console_errors", [])
        if "favicon.ico" not in error["url"] + error["text"]
    ]
    assert errors == []


def test_every_slider_reached_by_tab_moves_the_state_with_one_key(desktop):
    assert "keyboard" not in desktop["errors"], desktop["errors"].get("keyboard")
    moved = desktop["keyboard"]["moved"]
    assert set(moved) == set(KEYED_SLIDERS.values())
    for key, (before, after) in moved.items():
        assert after is not None and after != before, (key, before, after)


def names_on(desktop: dict, name: str) -> dict:
    """What names_on_the_page saw of the view."""
    assert "names" in desktop, desktop["errors"].get("")
    return desktop["names"][name]


def shown(value: float) -> str:
    text = f"{value:.4f}"
    return text.replace("-", "\u2212")


@pytest.mark.parametrize("name", DRIVEN_VIEWS)
def test_each_chart_is_a_named_figure(desktop, name):
    seen = names_on(desktop, name)
    assert seen["named"], seen["charts"]
    assert seen["charts"]
    for chart in seen["charts"]:
        assert chart["role"] == "figure" and chart["label"], chart


@pytest.mark.parametrize("name", POS_VIEWS)
def test_the_name_says_pos(desktop, name):
    assert any("7" in chart["label"] for chart in names_on(desktop, name)["charts"])


def test_the_heatmap_name_carries_the_worked_example(desktop):
    (chart,) = names_on(desktop, "heatmap")["charts"]
    assert chart["label"].endswith(f"PE(7, 6) = {shown(math.sin(7 / 10000 ** (6 / 128)))}")
    (after,) = names_on(desktop, "heatmap")["charts_after"]
    assert after["label"].endswith(f"PE(8, 6) = {shown(math.sin(8 / 10000 ** (6 / 128)))}")


@pytest.mark.parametrize("name", DRIVEN_VIEWS)
def test_a_key_on_a_slider_renames_the_chart(desktop, name):
    seen = names_on(desktop, name)
    assert seen["renamed"], (seen["charts"], seen["charts_after"])
    before = {chart["label"] for chart in seen["charts"]}
    assert any(chart["label"] not in before for chart in seen["charts_after"])


@pytest.mark.parametrize("name", ("heatmap", "rope", "alibi"))
def test_show_data_stays_open_and_lists_the_rows_near_the_new_pos(desktop, name):
    (data,) = names_on(desktop, name)["data_after"]
    assert data["open"]
    assert set(data["scopes"]) == {"col"}
    # pos moved from 7 to 8: the rows (ALiBi: the keys) near it are now 5 … 11.
    shown_now = data["headers"][2:] if name == "alibi" else data["rows"]
    expected = (
        [f"key {p}" for p in range(5, 12)] if name == "alibi" else list(map(str, range(5, 12)))
    )
    assert shown_now == expected

"""Screenshots of every view's card, light and dark, 1280 px wide and on a 390 px phone, from the
real Pyodide build offline, for a person to look at: tests/pyodide/screenshots/VIEW-THEME-WIDTH.png
(git-ignored). One load of the full page per theme and screen: each card in turn is scrolled into
view, waited for until its charts are drawn and named, and photographed alone. The test checks
that each was written, of a drawn card, in the theme its name says."""

from __future__ import annotations

from pathlib import Path

import pytest
from pe_explorer.views import VIEWS
from pyodide_support import INSIDE_JS, offline_site, visit_offline

pytestmark = pytest.mark.pyodide

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
# The first is the theme of the page as it opens: a fresh profile whose browser prefers light.
THEMES = ("light", "dark")
SCREENS = {
    1280: {"viewport": (1280, 900)},
    390: {
        "viewport": (390, 844),
        "context_options": {"is_mobile": True, "has_touch": True, "device_scale_factor": 3},
    },
}
# How long a card may take to be built and drawn once it is on screen.
CARD_TIMEOUT_S = 90
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
  const drawn = (chart) => Boolean(
    (chart.getAttribute('aria-label') || '').trim()
    && chart._fullLayout && (chart.data || []).length
    && chart.querySelector('.main-svg')
    && Math.abs(chart._fullLayout.width - chart.clientWidth) <= 2
  );
  return charts.length > 0 && charts.every(drawn) && inside('details.pe-data').length > 0;
}"""
)


def file_name(view: str, theme: str, width: int) -> str:
    return f"{view}-{theme}-{width}.png"


def errors_of_this_load(site) -> list[dict]:
    return [c for c in site.console[site.console_mark :] if c["type"] in ("error", "pageerror")]


class STARTUP_RACE:  # noqa: N801 (a named known problem, not a class to instantiate)
    """Once in a CI run (1 of 56 phone loads, 2026-11-26), a link opened in the same profile got
    "window.importShim is not a function" from every Panel JSComponent as the page embedded
    Python's document: es-module-shims, the first of Panel's deferred scripts, had not defined
    importShim. Not reproduced since; the closing note of issue 31 has it. Such a load is opened
    again and its errors are kept in `retried`, reported by a test of its own."""

    TEXT = "window.importShim is not a function"

    @classmethod
    def errors(cls, site) -> list[dict]:
        return [e for e in errors_of_this_load(site) if cls.TEXT in e.get("text", "")]


def photograph_card(page, view: str, path: Path) -> Path:
    """Scroll the view's card into view (which builds it), wait until it is drawn, and write a
    PNG of the card alone at path."""
    card = page.locator(f".pe-view-{view}")
    card.scroll_into_view_if_needed(timeout=CARD_TIMEOUT_S * 1000)
    page.wait_for_function(CARD_DRAWN_JS, arg=view, timeout=CARD_TIMEOUT_S * 1000, polling=100)
    path.parent.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(path), animations="disabled", timeout=CARD_TIMEOUT_S * 1000)
    return path


def take(width: int):
    """Every view's card in both themes on one screen: one load of the page per theme, in one
    browser profile."""

    def visit(site_dir) -> dict:
        record = {"written": {}, "errors": {}, "console_errors": [], "retried": {}, "themes": {}}
        with offline_site.open_offline_site(site_dir, "index.html", **SCREENS[width]) as site:
            for theme in THEMES:
                names = [file_name(spec.name, theme, width) for spec in VIEWS]
                query = "" if theme == THEMES[0] else f"?theme={theme}"
                load = site.load if theme == THEMES[0] else site.goto(query)
                startup = STARTUP_RACE.errors(site)
                if startup:
                    # Recorded, and the pictures are taken of a clean load (see STARTUP_RACE).
                    record["retried"][f"{theme}-{width}"] = startup
                    load = site.goto(query)
                if not load["interactive"]:
                    record["errors"] |= dict.fromkeys(names, load["error"])
                    record["console_errors"] += errors_of_this_load(site)
                    continue
                record["themes"][theme] = site.page.evaluate(THEME_OF_PAGE_JS)
                for spec, name in zip(VIEWS, names, strict=True):
                    try:
                        path = photograph_card(site.page, spec.name, SCREENSHOTS / name)
                        record["written"][name] = path.stat().st_size
                    except Exception as error:  # one card's failure must not hide the others'
                        record["errors"][name] = f"{type(error).__name__}: {error}"
                record["console_errors"] += errors_of_this_load(site)
        return record

    return visit


@pytest.fixture(scope="module")
def shots(request) -> dict:
    for old in SCREENSHOTS.glob("*.png"):  # a stale file must not pass for a new one
        old.unlink()
    return {width: visit_offline(request, take(width)) for width in SCREENS}


def test_every_view_is_photographed_in_both_themes_at_both_widths(shots):
    expected = {
        file_name(spec.name, theme, width)
        for spec in VIEWS
        for theme in THEMES
        for width in SCREENS
    }
    written = {name: size for shot in shots.values() for name, size in shot["written"].items()}
    errors = {name: error for shot in shots.values() for name, error in shot["errors"].items()}
    assert errors == {}
    assert set(written) == expected
    assert all(size > 0 and (SCREENSHOTS / name).is_file() for name, size in written.items())


def test_each_load_shows_the_theme_its_pictures_are_named_after(shots):
    assert {width: shot["themes"] for width, shot in shots.items()} == {
        width: {theme: theme for theme in THEMES} for width in SCREENS
    }


def test_console_has_no_errors(shots):
    errors = [
        (width, error)
        for width, shot in shots.items()
        for error in shot.get("console_errors", [])
        if "favicon.ico" not in error["url"] + error["text"]
    ]
    assert errors == []


def test_a_start_up_race_if_any_is_reported_and_was_rare(shots):
    # Shown in the output whenever it happens, so it is seen; more than one load in a run would
    # be a regression, not a rare race.
    retried = {name: errors for shot in shots.values() for name, errors in shot["retried"].items()}
    if retried:
        print(f"start-up race in {sorted(retried)}: {STARTUP_RACE.TEXT}")
    assert len(retried) <= 1, retried

"""Screenshots of every view, light and dark, 1280 px wide and on a 390 px phone, from the real
Pyodide build offline, for a person to look at: tests/screenshots/VIEW-THEME-WIDTH.png
(git-ignored). The test checks only that each was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from a11y_support import screenshot, scroll_through
from pe_explorer.views import VIEWS
from pyodide_support import offline_site, visit_offline

pytestmark = pytest.mark.pyodide

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
THEMES = ("light", "dark")
SCREENS = {
    1280: {"viewport": (1280, 900)},
    390: {
        "viewport": (390, 844),
        "context_options": {"is_mobile": True, "has_touch": True, "device_scale_factor": 3},
    },
}


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


def take(width: int):
    """Every view in both themes on one screen, in one browser profile."""

    def visit(site_dir) -> dict:
        record = {"written": {}, "errors": {}, "console_errors": [], "retried": {}}
        with offline_site.open_offline_site(site_dir, "index.html", **SCREENS[width]) as site:
            record["load"] = site.load
            record["console_errors"] += site.console_errors()
            for spec in VIEWS:
                for theme in THEMES:
                    name = file_name(spec.name, theme, width)
                    query = f"?view={spec.name}&theme={theme}"
                    try:
                        load = site.goto(query)
                        startup = STARTUP_RACE.errors(site)
                        if startup:
                            # Recorded, and the picture is taken of a clean load (see STARTUP_RACE).
                            record["retried"][name] = startup
                            load = site.goto(query)
                        if not load["interactive"]:
                            record["errors"][name] = load["error"]
                            continue
                        scroll_through(site.page)
                        path = screenshot(site.page, SCREENSHOTS / name)
                        record["written"][name] = path.stat().st_size
                    except Exception as error:  # one view's failure must not hide the others'
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

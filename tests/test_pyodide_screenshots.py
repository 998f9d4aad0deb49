"""Screenshots of every view, light and dark, 1280 px wide and on a 390 px phone, from the real
Pyodide build offline, for a person to look at: tests/screenshots/VIEW-THEME-WIDTH.png
(git-ignored). The test checks only that each was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from a11y_support import screenshot, scroll_through
from pyodide_support import offline_site, visit_offline

from components.views import VIEWS

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


def take(width: int):
    """Every view in both themes on one screen, in one browser profile."""

    def visit(site_dir) -> dict:
        record = {"written": {}, "errors": {}}
        with offline_site.open_offline_site(site_dir, "index.html", **SCREENS[width]) as site:
            record["load"] = site.load
            for spec in VIEWS:
                for theme in THEMES:
                    name = file_name(spec.name, theme, width)
                    try:
                        load = site.goto(f"?view={spec.name}&theme={theme}")
                        if not load["interactive"]:
                            record["errors"][name] = load["error"]
                            continue
                        scroll_through(site.page)
                        path = screenshot(site.page, SCREENSHOTS / name)
                        record["written"][name] = path.stat().st_size
                    except Exception as error:  # one view's failure must not hide the others'
                        record["errors"][name] = f"{type(error).__name__}: {error}"
            record["console_errors"] = site.console_errors()
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

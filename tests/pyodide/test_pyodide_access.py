"""Accessibility of the real Pyodide build, offline: axe-core (WCAG 2.0 to 2.2, A and AA) finds
no violation on the default page (every card drawn), views alone and embedded, the dark theme, a
visitor whose system prefers dark, and a phone; a keyboard alone reaches the controls in page
order and moves the views; and every view's charts carry their numbers in their names
(aria-label), which follow a key on a slider the view follows, while an open Show data stays open.

One browser profile per kind of visitor (tests/support/visits_support.py, shared with the phone and
screenshot tests); each page is a new link in that profile (after the first load the service
worker serves the site, so a link takes seconds). Every card is drawn before axe runs, so the
cards drawn when they come into view are checked too; and on the pages that fill in as they are
read, axe also runs at load, before any scroll.
"""

from __future__ import annotations

import math

import pytest
from a11y_support import CONTROLS, describe
from visits_support import (
    DARK_VISITOR_PAGES,
    DESKTOP_PAGES,
    DRIVEN,
    KEYED_SLIDERS,
    NAMES,
    PHONE_PAGES,
    SHOW_DATA_VIEWS,
)

pytestmark = pytest.mark.pyodide

DRIVEN_VIEWS = tuple(DRIVEN)
POS_VIEWS = tuple(name for name, slider in DRIVEN.items() if slider == "pos")


def views_expected(query: str) -> list[str]:
    """The views a link shows: the one it names, else all of them."""
    for part in query.lstrip("?").split("&"):
        if part.startswith("view="):
            return [part.removeprefix("view=")]
    return NAMES


def queries(pages) -> list[str]:
    return [page.query for page in pages]


def at_load(pages) -> list[str]:
    return [page.query for page in pages if page.at_load]


def assert_no_violation(visit: dict, query: str, who: str) -> None:
    where = f"{who} {query or '(default page)'}"
    assert visit["first_load"]["interactive"], f"{who}: {visit['first_load']['error']}"
    assert query not in visit["errors"], f"{where}: {visit['errors'].get(query)}"
    page = visit["pages"][query]
    assert page["interactive"], f"{where}: {page['error']}"
    if "pending" in page:  # scrolled through (visits_support.Page.scroll)
        assert page["views"] == sorted(views_expected(query)), f"{where}: shows {page['views']}"
        assert page["pending"] == 0, f"{where}: {page['pending']} cards were never drawn"
    assert page["violations"] == [], describe(page["violations"], where)


def page_id(query: str) -> str:
    return query.lstrip("?") or "default"


@pytest.mark.parametrize("query", queries(DESKTOP_PAGES), ids=page_id)
def test_axe_finds_no_violation_on_a_desktop(desktop, query):
    assert_no_violation(desktop, query, "1280 × 900")


@pytest.mark.parametrize("query", queries(DARK_VISITOR_PAGES), ids=page_id)
def test_axe_finds_no_violation_for_a_visitor_who_prefers_dark(dark_visitor, query):
    assert_no_violation(dark_visitor, query, "prefers-color-scheme: dark")
    assert dark_visitor["pages"][query]["theme"] == "dark"


@pytest.mark.parametrize("query", queries(PHONE_PAGES), ids=page_id)
def test_axe_finds_no_violation_on_a_phone(phone, query):
    assert_no_violation(phone, query, "phone (390 × 844; ?embed=1 in a 480 px frame)")


@pytest.mark.parametrize("query", at_load(DESKTOP_PAGES), ids=page_id)
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


def test_a_keyboard_only_visitor_can_choose_a_d_model_preset(desktop):
    assert "keyboard" not in desktop["errors"], desktop["errors"].get("keyboard")
    assert desktop["keyboard"]["preset"]


def test_a_view_alone_keeps_the_header_and_only_the_controls_it_needs(desktop):
    page = desktop["pages"]["?view=scaling"]
    assert page["headers"] == 1
    assert "pe-control-d-model" in page["controls"] and "pe-control-factor" in page["controls"]
    assert "pe-control-pos" not in page["controls"], page["controls"]


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


@pytest.mark.parametrize("name", SHOW_DATA_VIEWS)
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

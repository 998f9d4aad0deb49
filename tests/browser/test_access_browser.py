"""Keyboard reach and small screens: every control by Tab, and no sideways scroll at 320 px."""

import pytest
from browser_support import look_at, next_frame, page_idle, plots, tab_to, wait_until

pytestmark = pytest.mark.browser


def test_a_keyboard_only_visitor_can_change_d_model_with_a_preset(open_app):
    page, log = open_app()
    tab_to(page, "pe-preset-16")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('d_model') === '16'", timeout=10_000
    )
    assert log.relevant_errors() == []


@pytest.mark.parametrize("query", ["", "?theme=dark", "?view=tokens"])
def test_no_sideways_scroll_on_a_320_px_phone(open_app, query):
    page, log = open_app(query, viewport=(320, 640))
    # The page as built: the cards below the first row in place of their frames, all the server
    # sent drawn, and laid out.
    frames = page.locator(".pe-card-frame")
    wait_until(page, lambda: frames.count() == 0, timeout_s=30, what="the cards to be built")
    page_idle(page, what="the server after start-up")
    next_frame(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    assert log.relevant_errors() == []


def test_any_pair_can_be_picked_by_typing_its_number(open_app):
    # At d_model 2048 the picker lists the first pairs only; typing finds the others.
    page, log = open_app("?d_model=2048&n_positions=64")
    look_at(page, "waves")
    picker = page.locator(".pe-control-pairs input[type=search]").first
    picker.click()
    picker.type("700")
    page.keyboard.press("Enter")
    wait_until(
        page,
        lambda: any("i = 700" in name for plot in plots(page) for name in plot["names"]),
        timeout_s=20,
        what="the waves view to draw pair 700",
    )
    assert log.relevant_errors() == []

"""The guided questions in the served app, in Chromium: the tour by keyboard, and each link."""

from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import tab_to, wait_for_text, wait_until
from pe_explorer.ui.questions import QUESTIONS

pytestmark = pytest.mark.browser


def query_of(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def expected_query(question) -> dict:
    return {k: v[0] for k, v in parse_qs(question.query()).items()}


def test_a_keyboard_only_tour_sets_each_cards_state_and_escape_leaves_it(open_app):
    page, log = open_app("?theme=dark")
    tab_to(page, "pe-questions-toggle")
    page.keyboard.press("Enter")
    page.locator(".pe-tour-start button").first.wait_for(timeout=10_000)
    tab_to(page, "pe-tour-start")
    page.keyboard.press("Enter")
    first = QUESTIONS[0]
    wait_for_text(page, ".pe-tour-step", lambda t: t == f"Question 1 of {len(QUESTIONS)}")
    wait_until(page, lambda: query_of(page).get("n_positions") == "1024", what="card 1's state")
    assert query_of(page)["theme"] == "dark"  # the visitor's own choice stays
    assert all(query_of(page).get(k) == v for k, v in expected_query(first).items())
    tab_to(page, "pe-tour-next")
    page.keyboard.press("Enter")
    wait_for_text(page, ".pe-tour-step", lambda t: t == f"Question 2 of {len(QUESTIONS)}")
    page.keyboard.press("Enter")  # the focus stays on Next
    wait_for_text(page, ".pe-tour-step", lambda t: t == f"Question 3 of {len(QUESTIONS)}")
    third = QUESTIONS[2]
    wait_until(
        page,
        lambda: all(query_of(page).get(k) == v for k, v in expected_query(third).items()),
        what="card 3's state in the URL",
    )
    # The card's rotation error is the rotation view's, which the tour scrolled to.
    error = page.locator('.pe-tour .pe-question-number[data-number="error"]')
    if error.count():
        wait_for_text(page, ".pe-rotation-error", lambda t: t != "")
    page.keyboard.press("Escape")
    wait_until(page, lambda: page.locator(".pe-tour").first.is_hidden(), what="the tour closed")
    assert page.locator(".pe-question-list").first.is_visible()
    assert log.relevant_errors() == []

"""Play and a question card in the real Pyodide build, offline: Play sweeps pos and pauses with
the views agreeing; the tour's first card sets its state."""

from __future__ import annotations

import time

import pytest
from browser_support import SHOWN_POS_JS
from pe_explorer.ui.questions import QUESTIONS
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

QUERY = "n_positions=20&pos=0&offset=0"
PLAYING_JS = """() => __offline.deep('.pe-play').some((host) =>
  ((host.shadowRoot || host).querySelector('button') || {}).textContent.includes('Pause'))"""


def steps(site) -> dict:
    """Press Play, watch pos move, press Pause, then read every view's pos."""
    record = {"load": site.goto(f"?{QUERY}")}
    site.page.locator(".pe-play button").first.focus()
    site.page.keyboard.press("Enter")
    record["started"] = wait_for(site, PLAYING_JS)
    seen, deadline = set(), time.monotonic() + 30
    while len(seen) < 5 and time.monotonic() < deadline:
        seen.add(site.page.evaluate(SHOWN_POS_JS)["readout"])
        time.sleep(0.05)
    record["seen"] = sorted(p for p in seen if p is not None)
    site.page.locator(".pe-play button").first.click()
    record["paused"] = wait_for(site, f"() => !({PLAYING_JS})()")
    time.sleep(1.5)
    record["after_pause"] = site.page.evaluate(SHOWN_POS_JS)
    time.sleep(1.0)
    record["later"] = site.page.evaluate(SHOWN_POS_JS)
    record["search"] = site.page.evaluate("location.search")
    site.page.locator(".pe-questions-toggle button").first.click()
    site.page.locator(".pe-tour-start button").first.click()
    record["card_state"] = wait_for(
        site,
        "() => location.search.includes('n_positions=1024') && "
        f"(__offline.text('.pe-tour-step') || '') === 'Question 1 of {len(QUESTIONS)}'",
    )
    record["card_search"] = site.page.evaluate("location.search")
    return record


def test_play_advances_pos(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["started"]
    assert len(visit["seen"]) >= 5


def test_pause_stops_and_every_view_shows_the_slider_position(visit):
    assert visit["paused"]
    shown = visit["after_pause"]
    assert shown == visit["later"]
    assert shown["slider"] == shown["readout"] == shown["heatmap"] == shown["bars"]
    assert f"pos={shown['slider']}" in visit["search"]


def test_the_first_question_card_sets_its_state(visit):
    assert visit["card_state"], visit["card_search"]
    query = dict(part.split("=", 1) for part in QUESTIONS[0].query().split("&"))
    assert all(f"{key}={value}" in visit["card_search"] for key, value in query.items())

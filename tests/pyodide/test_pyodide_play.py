"""Play and a question card in the real Pyodide build, offline: Play sweeps pos and pauses with
the views agreeing; the tour's first card sets its state."""

from __future__ import annotations

import pytest
from browser_support import SHOWN_POS_JS
from pe_explorer.ui.questions import QUESTIONS
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

QUERY = "n_positions=20&pos=0&offset=0"
# Every pos the readout has shown while Play runs, kept in the page: five different ones.
SEEN_FIVE_JS = f"""() => {{
  const seen = (window.__peSeenPos ||= new Set());
  const shown = ({SHOWN_POS_JS})().readout;
  if (shown !== null) seen.add(shown);
  return seen.size >= 5;
}}"""
# Paused: the worker has applied every step and the slider, readout, heatmap and bars agree.
AGREED_JS = f"""() => {{
  const shown = ({SHOWN_POS_JS})();
  return !window.__offline.workerBusy() && shown.slider !== null
    && [shown.readout, shown.heatmap, shown.bars].every((pos) => pos === shown.slider);
}}"""
PLAYING_JS = """() => __offline.deep('.pe-play').some((host) =>
  ((host.shadowRoot || host).querySelector('button') || {}).textContent.includes('Pause'))"""


def steps(site) -> dict:
    """Press Play, watch pos move, press Pause, then read every view's pos."""
    record = {"load": site.goto(f"?{QUERY}")}
    site.page.locator(".pe-play button").first.focus()
    site.page.keyboard.press("Enter")
    record["started"] = wait_for(site, PLAYING_JS)
    wait_for(site, SEEN_FIVE_JS, timeout_s=30)
    record["seen"] = sorted(site.page.evaluate("() => [...window.__peSeenPos]"))
    site.page.locator(".pe-play button").first.click()
    record["paused"] = wait_for(site, f"() => !({PLAYING_JS})()")
    record["agreed"] = wait_for(site, AGREED_JS, timeout_s=30)
    record["after_pause"] = site.page.evaluate(SHOWN_POS_JS)
    # Paused, the page stays still: the worker idle and nothing changing on it for 1 s (the
    # harness's settle), four of Play's steps at its speed; then pos is where it was.
    record["still"] = site.settle(settle_ms=1000)["settled"]
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
    assert visit["still"]
    shown = visit["after_pause"]
    assert shown == visit["later"]
    assert shown["slider"] == shown["readout"] == shown["heatmap"] == shown["bars"]
    assert f"pos={shown['slider']}" in visit["search"]


def test_the_first_question_card_sets_its_state(visit):
    assert visit["card_state"], visit["card_search"]
    query = dict(part.split("=", 1) for part in QUESTIONS[0].query().split("&"))
    assert all(f"{key}={value}" in visit["card_search"] for key, value in query.items())

"""Play and the questions' tour in the real Pyodide build, offline, by the keyboard: Play sweeps
pos and pauses with the views agreeing, Space plays and pauses outside a text field, a manual
step pauses Play, Play sweeps k; the tour sets each card's state and Escape leaves it."""

from __future__ import annotations

import pytest
from browser_support import (
    CLOCK_JS,
    FOCUS_JS,
    SHOWN_POS_JS,
    held_pos,
    page_idle,
    tab_to,
    wait_until,
)
from controls_support import CAPTION, readouts
from controls_support import shown as shown_state
from pe_explorer.ui.questions import QUESTIONS
from pyodide_support import (
    page_holds,
    test_console_has_no_errors,  # noqa: F401 (collected here)
    wait_for,
)

pytestmark = pytest.mark.pyodide

# The visitor's own theme, which the tour's cards leave as it is.
QUERY = "n_positions=20&pos=0&offset=0&theme=dark"
# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = f"?{QUERY}"
# Every pos the readout has shown while Play runs, kept in the page: five different ones.
SEEN_FIVE_JS = f"""() => {{
  const seen = (window.__peSeenPos ||= new Set());
  const shown = ({SHOWN_POS_JS})().readout;
  if (shown !== null) seen.add(shown);
  return seen.size >= 5;
}}"""
# Every k the compare caption has shown while Play sweeps k: three different ones.
SEEN_THREE_K_JS = """() => {
  const seen = (window.__peSeenK ||= new Set());
  const match = /k = (-?\\d+)$/.exec(__offline.text('.pe-pos-readout') || '');
  if (match) seen.add(Number(match[1]));
  return seen.size >= 3;
}"""
# Paused: the worker has applied every step and the slider, readout, heatmap and bars agree.
AGREED_JS = f"""() => {{
  const shown = ({SHOWN_POS_JS})();
  return !window.__offline.workerBusy() && shown.slider !== null
    && [shown.readout, shown.heatmap, shown.bars].every((pos) => pos === shown.slider);
}}"""
PLAYING_JS = """() => __offline.deep('.pe-play').some((host) =>
  ((host.shadowRoot || host).querySelector('button') || {}).textContent.includes('Pause'))"""
PAUSED_JS = f"() => !({PLAYING_JS})()"
READOUT_POS_JS = f"() => ({SHOWN_POS_JS})().readout"
TOUR_STEP_JS = "(step) => (__offline.text('.pe-tour-step') || '') === step"
# The card's values are all in the URL.
CARD_IN_URL_JS = """(values) => {
  const query = new URLSearchParams(location.search);
  return Object.entries(values).every(([key, value]) => query.get(key) === value);
}"""


def card_query(question) -> dict:
    """A question card's values, as its link has them."""
    return dict(part.split("=", 1) for part in question.query().split("&"))


def step_label(number: int) -> str:
    return f"Question {number} of {len(QUESTIONS)}"


def page_holds_step(site, number: int, values: dict | None = None) -> bool:
    """Wait until the tour shows card number (and the URL holds values, if given)."""
    holds = page_holds(site.page, TOUR_STEP_JS, step_label(number))
    return holds and (values is None or page_holds(site.page, CARD_IN_URL_JS, values))


def play_and_pause_by_keyboard(site) -> dict:
    """Tab to Play, Enter, watch pos move, Space (on the Play button) to pause; every view's
    pos then, and a second later."""
    page, seen = site.page, {}
    tab_to(page, "pe-play")
    page.keyboard.press("Enter")
    seen["started"] = wait_for(site, PLAYING_JS)
    wait_for(site, SEEN_FIVE_JS, timeout_s=30)
    seen["seen"] = sorted(page.evaluate("() => [...window.__peSeenPos]"))
    # Space on the focused Play button presses it, as on any button: Pause.
    page.keyboard.press("Space")
    seen["paused"] = wait_for(site, PAUSED_JS)
    seen["agreed"] = wait_for(site, AGREED_JS, timeout_s=30)
    seen["held"] = held_pos(page)
    seen["after_pause"] = page.evaluate(SHOWN_POS_JS)
    # Paused, the page stays still: the worker idle and nothing changing on it for 1 s (the
    # harness's settle), four of Play's steps at its speed; then pos is where it was.
    seen["still"] = site.settle(settle_ms=1000)["settled"]
    seen["later"] = page.evaluate(SHOWN_POS_JS)
    seen["search"] = page.evaluate("location.search")
    return seen


def sweep_k(site) -> dict:
    """Play set to sweep k, started and paused by clicks: the ks it showed, then pos and what
    the compare view reads."""
    page, seen = site.page, {}
    seen["pos_before"] = page.evaluate(READOUT_POS_JS)
    page.locator(".pe-play-target button", has_text="k").first.click()
    page.locator(".pe-play button").first.click()
    seen["started"] = wait_for(site, PLAYING_JS)
    seen["swept"] = wait_for(site, SEEN_THREE_K_JS, timeout_s=30)
    seen["ks"] = sorted(page.evaluate("() => [...window.__peSeenK]"))
    page.locator(".pe-play button").first.click()
    seen["paused"] = wait_for(site, PAUSED_JS)
    seen["pos_after"] = held_pos(page)
    seen["shown"] = shown_state(page)
    # Play sweeps pos again for what follows.
    page.locator(".pe-play-target button", has_text="pos").first.click()
    page_idle(page, what="the worker after the target went back to pos")
    return seen


def space_plays_and_a_step_pauses(site) -> dict:
    """Space outside a text field plays; a step of the pos slider pauses; Space in the sentence
    box types a space and leaves Play alone."""
    page, seen = site.page, {}
    page.locator(".pe-header h1").click()
    presses = page.evaluate(CLOCK_JS)["space_presses"]
    page.keyboard.press("Space")
    seen["started"] = wait_for(site, PLAYING_JS)
    seen["heard"] = page.evaluate(CLOCK_JS)["space_presses"] - presses
    start = page.evaluate(READOUT_POS_JS)
    seen["advanced"] = wait_for(site, f"() => ({READOUT_POS_JS})() !== {start}", timeout_s=30)
    # A step back: a step forward could land on the pos Play has just sent and the page not
    # drawn yet, which changes nothing, so Python sees no step to pause for.
    page.locator(".pe-control-pos .noUi-handle").first.focus()
    page.keyboard.press("ArrowLeft")
    seen["paused"] = wait_for(site, PAUSED_JS)
    # The pause is shown before the step's own answer may be: read pos once it has landed. Not
    # on the slider: a step made while one of Play's is on its way to the page can leave the
    # slider on Play's pos while Python keeps the step's (the readout, matrix and bars show it).
    seen["held"] = held_pos(page, agreeing=("readout", "heatmap", "bars"))
    # Space in the sentence box types a space; it does not start Play.
    box = page.locator(".pe-control-text input").first
    box.focus()
    spaces, presses = box.input_value().count(" "), page.evaluate(CLOCK_JS)["space_presses"]
    page.keyboard.press("Space")
    # The key has been handled once the box holds its space: Play hears keys on the window,
    # while the key goes down, before the box takes the character.
    wait_until(page, lambda: box.input_value().count(" ") == spaces + 1, 30, "the space typed")
    seen["box_presses"] = page.evaluate(CLOCK_JS)["space_presses"] - presses
    page_idle(page, what="the worker after the typed space")
    seen["playing_after_box"] = page.evaluate(PLAYING_JS)
    seen["focus"] = page.evaluate(FOCUS_JS).split()
    return seen


def tour_by_keyboard(site) -> dict:
    """Open the questions and their tour with Tab and Enter, go to the third card with Next,
    and leave with Escape."""
    page, seen = site.page, {}
    page.locator(".pe-header h1").click()
    tab_to(page, "pe-questions-toggle")
    page.keyboard.press("Enter")
    page.locator(".pe-tour-start button").first.wait_for(timeout=60_000)
    tab_to(page, "pe-tour-start")
    page.keyboard.press("Enter")
    seen["first"] = page_holds_step(site, 1, card_query(QUESTIONS[0]))
    seen["first_search"] = page.evaluate("location.search")
    tab_to(page, "pe-tour-next")
    page.keyboard.press("Enter")
    seen["second"] = page_holds_step(site, 2)
    page.keyboard.press("Enter")  # the focus stays on Next
    seen["third"] = page_holds_step(site, 3, card_query(QUESTIONS[2]))
    seen["third_search"] = page.evaluate("location.search")
    # The card's rotation error is the rotation view's, which the tour scrolled to.
    error = page.locator('.pe-tour .pe-question-number[data-number="error"]')
    if error.count():
        seen["rotation_error"] = wait_for(site, "() => !!__offline.text('.pe-rotation-error')")
    page.keyboard.press("Escape")
    tour = page.locator(".pe-tour").first
    seen["closed"] = bool(wait_until(page, tour.is_hidden, 30, "the tour closed"))
    seen["list_shown"] = page.locator(".pe-question-list").first.is_visible()
    return seen


def steps(site) -> dict:
    """On one page: Play and Pause by the keyboard, Play sweeping k, Space and a manual step,
    then the questions' tour by the keyboard."""
    record = {"errors": {}}

    def attempt(name, part):
        """Run part; keep what it returns, or the error that stopped it."""
        try:
            record[name] = part()
        except Exception as error:  # a timeout of Playwright's as much as an assertion
            record["errors"][name] = f"{type(error).__name__}: {error}"

    if site.interactive:
        attempt("play", lambda: play_and_pause_by_keyboard(site))
        attempt("sweep", lambda: sweep_k(site))
        attempt("space", lambda: space_plays_and_a_step_pauses(site))
        attempt("tour", lambda: tour_by_keyboard(site))
    return record


def seen(visit, name: str) -> dict:
    """What the part called name saw, failing with its error if it stopped."""
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert name not in visit["errors"], visit["errors"][name]
    return visit[name]


def test_play_by_keyboard_advances_pos(visit):
    """Enter on the Play button (reached with Tab) starts Play, and pos takes five values."""
    shown = seen(visit, "play")
    assert shown["started"]
    assert len(shown["seen"]) >= 5


def test_pause_by_space_stops_and_every_view_shows_the_slider_position(visit):
    """Space on the Play button pauses it: every step drawn, the slider, readout, matrix and
    bars show one pos, which stays put, and is the URL's."""
    shown = seen(visit, "play")
    assert shown["paused"] and shown["agreed"]
    assert shown["still"]
    views = shown["after_pause"]
    assert views == shown["later"]
    assert views["slider"] == views["readout"] == views["heatmap"] == views["bars"]
    assert views["slider"] == shown["held"]
    assert f"pos={views['slider']}" in shown["search"]


def test_play_can_sweep_k_and_the_dot_product_follows_it(visit):
    """Play set to k moves k (three values) and not pos; paused, the compare view's caption and
    dot product, cosine and distance are those of the pos and k shown."""
    shown = seen(visit, "sweep")
    assert shown["started"] and shown["swept"] and shown["paused"]
    assert len(shown["ks"]) >= 3
    assert shown["pos_after"] == shown["pos_before"]
    page = shown["shown"]
    pos, second, k = map(int, CAPTION.fullmatch(page["caption"]).groups())
    assert pos == shown["pos_before"] and second == pos + k
    expected = readouts({"pos": pos, "offset": k, "d_model": int(page["titles"]["d_model"])})
    assert {name: page[name] for name in expected} == expected


def test_space_outside_a_text_field_toggles_play_and_a_manual_step_pauses_it(visit):
    """Space on the page (not in a field) starts Play, which moves pos; a step of the pos
    slider pauses it, and the views settle on one pos."""
    shown = seen(visit, "space")
    assert shown["started"] and shown["heard"] == 1
    assert shown["advanced"]
    assert shown["paused"]
    assert isinstance(shown["held"], int)


def test_space_in_the_sentence_box_types_a_space_and_leaves_play_alone(visit):
    """Space in the sentence box types a space: Play hears no press and stays paused, and the
    focus stays in the box."""
    shown = seen(visit, "space")
    assert shown["box_presses"] == 0
    assert not shown["playing_after_box"]
    assert "pe-control-text" in shown["focus"]


def test_a_keyboard_only_tour_sets_each_cards_state_and_escape_leaves_it(visit):
    """Tab and Enter open the questions and start the tour: card 1's state (and the visitor's
    own theme) in the URL; Next twice: card 3's; Escape closes the tour, the list stays."""
    shown = seen(visit, "tour")
    assert shown["first"], shown["first_search"]
    assert "n_positions=1024" in shown["first_search"]
    assert "theme=dark" in shown["first_search"]
    assert all(f"{k}={v}" in shown["first_search"] for k, v in card_query(QUESTIONS[0]).items())
    assert shown["second"]
    assert shown["third"], shown["third_search"]
    assert shown.get("rotation_error", True)
    assert shown["closed"]
    assert shown["list_shown"]

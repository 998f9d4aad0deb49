"""Play over positions in the served app, in Chromium, driven by the keyboard."""

import time

import pytest
from browser_support import FOCUS_JS, SHOWN_POS_JS, tab_to, text, wait_until

pytestmark = pytest.mark.browser


def shown_pos(page) -> int:
    return int(text(page, ".pe-pos-readout").split()[2])


def playing(page) -> bool:
    return "Pause" in text(page, ".pe-play button")


def held_pos(page, landed_ms: int = 700, held_ms: int = 700, timeout_s: float = 20) -> int:
    """pos once Play has paused and its last steps have landed: the first pos that holds still
    for held_ms (Play's own interval is shorter), within timeout_s. Under load the steps Play
    sent before the pause can take longer than landed_ms to be drawn."""
    deadline = time.monotonic() + timeout_s
    page.wait_for_timeout(landed_ms)
    while True:
        pos = shown_pos(page)
        page.wait_for_timeout(held_ms)
        if shown_pos(page) == pos:
            return pos
        assert time.monotonic() < deadline, "pos still moved after Play paused"


def test_play_by_keyboard_advances_pos_and_pause_leaves_the_views_agreeing(open_app):
    page, log = open_app("?n_positions=20&pos=0&offset=0")
    tab_to(page, "pe-play")
    page.keyboard.press("Enter")
    wait_until(page, lambda: playing(page), what="Play to start")
    seen = set()
    wait_until(page, lambda: seen.add(shown_pos(page)) or len(seen) >= 4, what="pos advancing")
    # Space on the focused Play button presses it, as on any button: Pause.
    page.keyboard.press("Space")
    wait_until(page, lambda: not playing(page), what="Play to pause")
    stopped = held_pos(page)
    views = page.evaluate(SHOWN_POS_JS)
    assert views["slider"] == views["readout"] == views["heatmap"] == views["bars"] == stopped
    assert log.relevant_errors() == []


def test_space_outside_a_text_field_toggles_play_and_a_manual_step_pauses_it(open_app):
    page, log = open_app("?n_positions=30&pos=3")
    page.locator(".pe-header h1").click()
    page.keyboard.press("Space")
    wait_until(page, lambda: playing(page), what="Space to start Play")
    start = shown_pos(page)
    wait_until(page, lambda: shown_pos(page) != start, what="pos advancing")
    # A step back: a step forward can land on the pos Play has just sent and the page not drawn
    # yet, which changes nothing, so Python sees no step to pause for.
    page.locator(".pe-control-pos .noUi-handle").focus()
    page.keyboard.press("ArrowLeft")
    wait_until(page, lambda: not playing(page), what="the manual step to pause Play")
    # The pause is shown before the step's own answer may be: read pos once it has landed.
    held_pos(page, landed_ms=400, held_ms=800)
    # Space in the sentence box types a space; it does not start Play.
    page.locator(".pe-control-text input").focus()
    page.keyboard.press("Space")
    page.wait_for_timeout(500)
    assert not playing(page)
    assert "pe-control-text" in page.evaluate(FOCUS_JS).split()
    assert log.relevant_errors() == []


def test_play_can_sweep_k_and_the_dot_product_follows_it(open_app):
    page, log = open_app("?n_positions=16&pos=2&offset=0")
    page.locator(".pe-play-target button", has_text="k").first.click()
    page.locator(".pe-play").first.click()
    wait_until(page, lambda: playing(page), what="Play to start")
    offsets = set()

    def caption_offset():
        offsets.add(int(text(page, ".pe-pos-readout").rsplit("= ", 1)[1]))
        return len(offsets) >= 3

    wait_until(page, caption_offset, what="k advancing")
    page.locator(".pe-play").first.click()
    wait_until(page, lambda: not playing(page), what="Play to pause")
    assert shown_pos(page) == 2
    assert log.relevant_errors() == []

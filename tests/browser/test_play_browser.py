"""Play over positions in the served app, in Chromium, driven by the keyboard."""

import pytest
from browser_support import FOCUS_JS, SHOWN_POS_JS, page_idle, tab_to, text, wait_until

pytestmark = pytest.mark.browser

# The PlayClock as the page holds it (components/ui/player.py): the steps Python sent, the last
# one the page has drawn, and the Space presses it heard for Play.
CLOCK_JS = """() => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  const clock = doc && [...doc.all_models.values()].find((m) => m.class_name === 'PlayClock');
  return clock ? {sent: clock.data.sent, acked: clock.data.acked,
                  space_presses: clock.data.space_presses} : null;
}"""


def shown_pos(page) -> int:
    return int(text(page, ".pe-pos-readout").split()[2])


def playing(page) -> bool:
    return "Pause" in text(page, ".pe-play button")


EVERY_VIEW = ("slider", "readout", "heatmap", "bars")


def landed(page, agreeing=EVERY_VIEW) -> dict | None:
    """What the views show for pos, once the page has drawn the last step Play sent and the
    views named in agreeing all show one pos (else None)."""
    clock = page.evaluate(CLOCK_JS)
    views = page.evaluate(SHOWN_POS_JS)
    shown = [views[key] for key in agreeing]
    drawn = clock is not None and clock["acked"] == clock["sent"]
    return views if drawn and shown[0] is not None and len(set(shown)) == 1 else None


def held_pos(page, agreeing=EVERY_VIEW) -> int:
    """pos once Play has paused and everything it sent has landed, checked to hold still.

    Waits for the server to be idle (nothing left to do for the session, everything it wrote
    received) and for the views named in agreeing to show one pos; then pos must be the same
    after one more idle round trip."""
    page_idle(page, what="the server after Play paused")
    try:
        views = wait_until(
            page, lambda: landed(page, agreeing), timeout_s=30, what="the views to agree"
        )
    except AssertionError as error:
        seen = page.evaluate(CLOCK_JS), page.evaluate(SHOWN_POS_JS)
        raise AssertionError(f"{error}: clock {seen[0]}, views {seen[1]}") from None
    page_idle(page, what="the server, once more")
    again = landed(page, agreeing)
    assert again == views, f"pos still moved after Play paused: {views} → {again}"
    return views[agreeing[0]]


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
    # A step back: a step forward could land on the pos Play has just sent and the page not
    # drawn yet, which changes nothing, so Python sees no step to pause for.
    page.locator(".pe-control-pos .noUi-handle").focus()
    page.keyboard.press("ArrowLeft")
    wait_until(page, lambda: not playing(page), what="the manual step to pause Play")
    # The pause is shown before the step's own answer may be: read pos once it has landed. Not
    # on the slider: a step made while one of Play's is on its way to the page can leave the
    # slider on Play's pos while Python keeps the step's (the readout, matrix and bars show it).
    held_pos(page, agreeing=("readout", "heatmap", "bars"))
    # Space in the sentence box types a space; it does not start Play.
    box = page.locator(".pe-control-text input").first
    box.focus()
    spaces, presses = box.input_value().count(" "), page.evaluate(CLOCK_JS)["space_presses"]
    page.keyboard.press("Space")
    # The key has been handled once the box holds its space: Play hears keys on the window,
    # while the key goes down, before the box takes the character.
    wait_until(page, lambda: box.input_value().count(" ") == spaces + 1, what="the space typed")
    assert page.evaluate(CLOCK_JS)["space_presses"] == presses
    page_idle(page, what="the server after the typed space")
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

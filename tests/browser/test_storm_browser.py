"""After storms of rapid key steps and fast drags, every view ends on the slider's final value."""

import pytest
from browser_support import SHOWN_POS_JS, look_at, page_idle, wait_until

pytestmark = pytest.mark.browser


def all_views_agree(page, skip=()) -> dict | None:
    shown = {key: value for key, value in page.evaluate(SHOWN_POS_JS).items() if key not in skip}
    values = set(shown.values())
    return shown if len(values) == 1 and None not in values else None


def settle_on_one_value(page) -> dict:
    """Wait until the slider and every view show one value, and it stays so once the server has
    nothing more to send (page_idle).

    The views on screen (heatmap, compare) must agree first; the waves view, below the fold,
    must then catch up once it is scrolled to.
    """
    look_at(page, "heatmap")
    wait_until(page, lambda: all_views_agree(page, skip={"waves"}), timeout_s=30, what="on screen")
    look_at(page, "waves")
    shown = wait_until(page, lambda: all_views_agree(page), timeout_s=30, what="views agreeing")
    page_idle(page, what="the server after the storm")
    # Everything the server sent is in: drawn, it must show the same value.
    again = wait_until(page, lambda: all_views_agree(page), timeout_s=30, what="views drawn")
    assert again == shown, f"{shown} moved on to {again}"
    return shown


def drag(page, handle_selector: str, track_selector: str, to: float, steps: int = 30):
    handle = page.locator(handle_selector).first.bounding_box()
    track = page.locator(track_selector).first.bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    target = track["x"] + track["width"] * to
    page.mouse.move(target, handle["y"] + handle["height"] / 2, steps=steps)
    page.mouse.up()


def test_a_storm_of_key_steps_ends_on_the_final_value(open_app):
    page, log = open_app("?n_positions=256&pos=0")
    page.locator(".pe-control-pos .noUi-handle").focus()
    for _ in range(120):
        page.keyboard.press("ArrowRight")
    assert settle_on_one_value(page)["slider"] == 120
    for _ in range(45):
        page.keyboard.press("ArrowLeft")
    assert settle_on_one_value(page)["slider"] == 75
    assert log.relevant_errors() == []

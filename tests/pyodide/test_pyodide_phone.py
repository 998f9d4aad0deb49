"""A 390 × 844 phone (touch, three device pixels per CSS pixel) and a 480 px course frame, in the
real Pyodide build, offline (the `phone` visit of tests/support/visits_support.py), and a view
alone on a 320 px phone: the layout is as wide as the screen and nothing scrolls sideways; every
slider handle is a 24 × 24 px target; a finger dragging the pos handle in the bar at the bottom
of the screen moves the chart above it, both on screen, and then every view. (Every view's
charts in both themes and embedded 480 px wide, their text over another chart or past the card:
test_pyodide_screenshots.py.)"""

from __future__ import annotations

import pytest
from frames_support import disagreements
from visits_support import PHONE_PAGES

pytestmark = pytest.mark.pyodide

WIDTH = 390
MIN_TARGET_PX = 24  # WCAG 2.2's 2.5.8 Target Size (Minimum)
MEASURED = [page.query for page in PHONE_PAGES if page.layout]
# The width each measured page is laid out at: the phone's, or the window's it was opened in.
WIDTHS = {page.query: (page.viewport or (WIDTH,))[0] for page in PHONE_PAGES}


def page_id(query: str) -> str:
    return query.lstrip("?") or "default"


def page_of(phone: dict, query: str) -> dict:
    assert phone["first_load"]["interactive"], phone["first_load"]["error"]
    assert query not in phone["errors"], phone["errors"][query]
    page = phone["pages"][query]
    assert page["interactive"], page["error"]
    return page


@pytest.mark.parametrize("query", MEASURED, ids=page_id)
def test_the_layout_is_as_wide_as_the_phone(phone, query):
    # Without <meta name="viewport" content="width=device-width"> a phone lays the page out
    # 980 px wide and shrinks it to fit.
    assert page_of(phone, query)["layout"]["client_width"] == WIDTHS[query]


@pytest.mark.parametrize("query", MEASURED, ids=page_id)
def test_nothing_scrolls_sideways(phone, query):
    layout = page_of(phone, query)["layout"]
    assert layout["scroll_width"] <= layout["client_width"], layout


@pytest.mark.parametrize("query", MEASURED, ids=page_id)
def test_every_slider_handle_is_at_least_24_px(phone, query):
    handles = [h for h in page_of(phone, query)["layout"]["handles"] if h["width"] or h["height"]]
    assert handles, "no slider handle on the page"
    small = [h for h in handles if min(h["width"], h["height"]) < MIN_TARGET_PX]
    assert small == [], f"{len(small)} of {len(handles)} handles under 24 × 24 px: {small[:3]}"


def drag(phone: dict) -> dict:
    assert "drag" not in phone["errors"], phone["errors"]["drag"]
    return phone["drag"]


def test_a_finger_drags_pos_and_sees_the_chart_move_with_the_controls_folded(phone):
    # Drag and see at once: the pos handle is in the bar at the bottom, the waves chart above
    # it; both are on screen while the finger moves and once the chart has followed.
    seen = drag(phone)
    assert "pos = 7" in (seen["label_before"] or ""), seen["label_before"]
    assert seen["label_after"] != seen["label_before"], seen["label_after"]
    for moment in ("in_view", "in_view_after"):
        in_view = seen[moment]
        assert in_view["handle"]["fraction"] == 1, (moment, in_view)
        # At least half of the chart, and 200 px of it, between the two bars.
        assert in_view["chart"]["fraction"] >= 0.5 and in_view["chart"]["px"] >= 200, in_view


def test_after_the_drag_every_view_shows_the_new_pos(phone):
    seen = drag(phone)
    before, after = seen["before"], seen["after"]
    assert (before["slider"], before["readout"]) == (7, 7), before
    assert seen["drag"]["settled"], seen["drag"]["error"]
    assert after["slider"] not in (None, 7), after
    assert set(after.values()) == {after["slider"]}, after


def test_every_frame_of_the_finger_drag_shows_one_pos(phone):
    """The picker on a phone: while the finger moves, every chart drawn and every caption says
    the pos the slider shows, in every frame."""
    frames = drag(phone)["frames"]
    assert len({frame["pos"] for frame in frames}) >= 5
    assert [disagreements(frame) for frame in frames if disagreements(frame)] == []

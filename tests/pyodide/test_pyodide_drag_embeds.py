"""Eight embeds on one course page, in the real Pyodide build offline (issue 56): they share one
Python runtime, and a drag of pos in any of them, at 60 moves a second with Chrome's own mouse,
shows in that frame on every animation frame the chart name Python gives its view at the value
the frame's slider shows; the other seven frames keep theirs all along. Once the drags are over,
each frame's link holds where its drag ended, and the console stays clean."""

from __future__ import annotations

import pytest
from embeds_support import DRAGGED_EMBEDS as LINKS
from embeds_support import canonical_queries, interactive_frames, on_a_course_page
from frames_support import RECORD_JS, STOP_JS, drag_by_cdp
from pe_explorer.state import ExplorerState
from pe_explorer.urlstate import parse_query
from pe_explorer.views import VIEW_NAMES, view_spec
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    page_holds,
    test_console_has_no_errors,
)

from benchmarks.embeds import FRAME, HOST_PAGE

pytestmark = pytest.mark.pyodide

PAGE = "embeds-8-drag.html"
# Each frame's charts' accessible names and its pos slider's number, read at each animation
# frame by frames_support.RECORD_JS, started and stopped in every frame at once.
IN_EVERY_FRAME = """(code) => [...document.querySelectorAll('iframe')]
  .map((frame) => frame.contentWindow.eval('(' + code + ')()'))"""
IDLE_JS = """() => [...document.querySelectorAll('iframe')]
  .every((frame) => !frame.contentWindow.__offline.workerBusy())"""


def write_page(hosted) -> None:
    frames = "".join(FRAME.format(query=link) for link in LINKS)
    (hosted / PAGE).write_text(HOST_PAGE.format(n=len(LINKS), frames=frames))


def view_of(link: str) -> str:
    return parse_query(link, VIEW_NAMES).view


def drags(site) -> dict:
    times = interactive_frames(site.page)
    if None in times:
        return {"interactive_ms": times}
    first = canonical_queries(site.page)
    page_holds(site.page, IDLE_JS, None, 60)
    record = {"interactive_ms": times, "first_queries": first, "drags": []}
    for index in range(len(LINKS)):
        site.page.evaluate(IN_EVERY_FRAME, RECORD_JS)
        drag_by_cdp(site.page, ".pe-control-pos", 0.8, seconds=0.7, hz=60, frame=index)
        # The frame after the release is recorded too.
        site.page.wait_for_timeout(150)
        frames = site.page.evaluate(IN_EVERY_FRAME, STOP_JS)
        record["drags"].append(
            [
                [(frame["pos"], frame["charts"][0]["label"]) for frame in shown if frame["charts"]]
                for shown in frames
            ]
        )
    page_holds(site.page, IDLE_JS, None, 60)
    record["last_queries"] = canonical_queries(site.page)
    return record


visit = on_a_course_page(PAGE, drags, prepare=write_page)


def python_names(link: str, values: set[int]) -> dict[int, str]:
    """The chart name the link's view gets from Python at each pos, the rest as the link says."""
    asked = parse_query(link, VIEW_NAMES).values
    state = ExplorerState()
    state.apply(asked)
    view = view_spec(view_of(link)).make(state)
    view.__panel__()
    names = {}
    for value in sorted(values):
        state.apply(asked)
        state.pos = value
        names[value] = view._plot.label
    return names


def test_all_eight_become_interactive(visit):
    assert None not in visit["interactive_ms"], visit["interactive_ms"]


@pytest.mark.parametrize("index", range(len(LINKS)), ids=[view_of(link) for link in LINKS])
def test_each_frame_of_a_drag_names_the_pos_its_slider_shows(visit, index):
    shown = visit["drags"][index][index]
    values = {int(pos) for pos, _ in shown}
    assert len(values) >= 6, f"the drag moved the slider through {sorted(values)}"
    expected = python_names(LINKS[index], values)
    wrong = [(pos, label) for pos, label in shown if label != expected[int(pos)]]
    assert wrong == [], wrong[:2]


@pytest.mark.parametrize("index", range(len(LINKS)), ids=[view_of(link) for link in LINKS])
def test_a_drag_leaves_the_other_seven_frames_as_they_were(visit, index):
    moved = {
        other: sorted({label for _, label in frames})
        for other, frames in enumerate(visit["drags"][index])
        if other != index and len({label for _, label in frames}) != 1
    }
    assert moved == {}


def test_each_link_holds_where_its_drag_ended(visit):
    ended = [int(visit["drags"][index][index][-1][0]) for index in range(len(LINKS))]
    held = [
        int(dict(pair.split("=") for pair in query.lstrip("?").split("&"))["pos"])
        for query in visit["last_queries"]
    ]
    assert held == ended
    begun = [int(parse_query(link, VIEW_NAMES).values["pos"]) for link in LINKS]
    assert all(end != start for end, start in zip(ended, begun, strict=True))

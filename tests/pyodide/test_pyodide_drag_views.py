"""Every view that follows pos or k, embedded alone (`?view=NAME&embed=1`) in the real Pyodide
build: on every animation frame of a drag of its slider, the chart's accessible name is, to the
digit, the name Python gives the view at the value the slider shows in that frame (computed here
by the view's own Python), and the console stays clean."""

from __future__ import annotations

import pytest
from embeds_support import DRAGGED_EMBEDS
from frames_support import RECORD_JS, STOP_JS, drag_by_cdp
from pe_explorer.state import ExplorerState
from pe_explorer.urlstate import parse_query
from pe_explorer.views import VIEW_NAMES, VIEWS, view_spec
from pyodide_support import test_console_has_no_errors  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = "?view=heatmap&embed=1"
# The views with picks whose embed has a pos or k slider (the tokens view sets pos with its
# words' chips; the full page's slider moves it: tests/pyodide/test_pyodide_drag.py's page), but
# those dragged in eight embeds on one page (tests/pyodide/test_pyodide_drag_embeds.py).
WITH_A_SLIDER = [
    spec.name for spec in VIEWS if spec.picks is not None and {"pos", "offset"} & set(spec.controls)
]
ON_ONE_PAGE = [parse_query(link, VIEW_NAMES).view for link in DRAGGED_EMBEDS]
PICKED = [name for name in WITH_A_SLIDER if name not in ON_ONE_PAGE]


def test_the_embeds_on_one_page_follow_pos_and_have_picks():
    assert set(ON_ONE_PAGE) <= set(WITH_A_SLIDER)
    assert all("pos" in view_spec(name).controls for name in ON_ONE_PAGE)


def dragged_axis(name: str) -> str:
    """The slider a drag of this view moves: pos, or k for a view whose embed has k alone."""
    return "pos" if "pos" in view_spec(name).controls else "offset"


def steps(site) -> dict:
    record = {}
    for name in PICKED:
        load = site.goto(f"?view={name}&embed=1")
        if not load["interactive"]:
            record[name] = {"interactive": False, "error": load["error"]}
            continue
        axis = dragged_axis(name)
        site.page.evaluate(RECORD_JS)
        drag_by_cdp(site.page, f".pe-control-{axis}", 0.8, seconds=0.7, hz=60)
        site.page.wait_for_timeout(200)
        frames = site.page.evaluate(STOP_JS)
        record[name] = {
            "interactive": True,
            "shown": [
                (frame["pos"], frame["offset"], frame["charts"][0]["label"])
                for frame in frames
                if frame["charts"]
            ],
        }
    return record


def python_names(name: str, shown: list) -> dict:
    """The name Python's view gives at each (pos, k) the sliders showed, moved there as a drag
    moves the state (a pos below −k raises k)."""
    state = ExplorerState()
    view = view_spec(name).make(state)
    view.__panel__()
    names = {}
    axis = dragged_axis(name)
    for pos, offset, _ in shown:
        value = int(pos if axis == "pos" else offset)
        if value not in names:
            state.param.update(pos=ExplorerState.param.pos.default, offset=1)
            setattr(state, axis, value)
            names[value] = view._plot.label
    return names


@pytest.mark.parametrize("name", PICKED)
def test_each_frame_names_the_value_its_slider_shows(visit, name):
    record = visit[name]
    assert record["interactive"], record.get("error")
    shown = record["shown"]
    axis_index = 0 if dragged_axis(name) == "pos" else 1
    values = {frame[axis_index] for frame in shown}
    assert len(values) >= 6, f"the drag moved the {name} slider through {sorted(values)}"
    expected = python_names(name, shown)
    wrong = [
        (value, *differing(label, expected[int(value)]))
        for value, label in ((frame[axis_index], frame[2]) for frame in shown)
        if label != expected[int(value)]
    ]
    assert wrong == [], wrong[:3]


def differing(shown: str, expected: str) -> tuple[str, str]:
    """Where two names part: each from a little before its first differing character."""
    start = next((i for i, (a, b) in enumerate(zip(shown, expected, strict=False)) if a != b), 0)
    return shown[max(0, start - 20) : start + 60], expected[max(0, start - 20) : start + 60]

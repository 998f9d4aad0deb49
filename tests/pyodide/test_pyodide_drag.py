"""In the real Pyodide build, dragging pos and k: on every animation frame of a 2 s drag at 60
moves a second (Chrome's own mouse events), and of a burst of keys (arrows, Page Up, End, Home),
every view on the page shows the same pos and pos + k as the slider, in its markers, its traces,
its name and its captions; when Python's own drawing arrives it changes nothing the page picked;
the live region speaks once, where a drag ended; axe finds nothing after it; the console stays
clean. Then page after page in one tab under a 4× slower CPU: each becomes interactive (no
document embedded before Panel's models)."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from a11y_support import describe, run_axe
from browser_support import page_idle
from frames_support import RECORD_JS, STOP_JS, disagreements, drag_by_cdp, positions_shown
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = ""

POS_HANDLE = ".pe-control-pos .noUi-handle"
# Counts every change of the live region's text from now on.
WATCH_JS = """() => {
  const region = __offline.deep('.pe-announcement')[0];
  const heard = [];
  window.__peAnnounced = heard;
  if (window.__peWatcher) window.__peWatcher.disconnect();
  window.__peWatcher = new MutationObserver(() => heard.push(region.textContent));
  window.__peWatcher.observe(region, {childList: true, characterData: true, subtree: true});
  return true;
}"""
# Links opened one after another in one tab under a 4× slower CPU: the shared Python is warm, so
# each renders as soon as it is asked (the start-up race of the hostile links).
ONE_TAB = (
    "?view=alibi&method=alibi&heads=64&n_positions=2048",
    "?view=heatmap&n_positions=512",
    "?view=compare&embed=1&pos=30",
    "?view=alibi&method=alibi&heads=64&n_positions=2048",
)


def frames_of_a_drag(site, slider: str, to: float) -> dict:
    """Record every frame while the slider's handle is dragged to fraction `to` in 2 s."""
    page = site.page
    page.evaluate(RECORD_JS)
    moves = drag_by_cdp(page, slider, to, seconds=2.0, hz=60)
    page.wait_for_timeout(200)
    frames = page.evaluate(STOP_JS)
    return {"moves": moves, "frames": frames}


def after_python(site) -> dict:
    """What the charts show once Python has drawn where the drag ended."""
    page_idle(site.page, timeout_s=60, what="the worker after the drag")
    site.page.evaluate(RECORD_JS)
    site.page.wait_for_timeout(100)
    return site.page.evaluate(STOP_JS)[-1]


def drag_and_hear(site, axis: str, to: float, record: dict) -> None:
    """Drag, let Python draw, and keep what the live region said meanwhile."""
    page = site.page
    page.evaluate(WATCH_JS)
    record[axis] = frames_of_a_drag(site, f".pe-control-{axis}", to)
    record[f"{axis}_settled"] = after_python(site)
    wait_for(site, "() => window.__peAnnounced.length > 0", timeout_s=10)
    page.wait_for_timeout(1000)  # longer than the announcer's quiet time: nothing else comes
    record[f"{axis}_announced"] = page.evaluate("() => window.__peAnnounced")


def steps(site) -> dict:
    record = {}
    page = site.page
    drag_and_hear(site, "pos", 0.85, record)
    drag_and_hear(site, "offset", 0.3, record)
    page.evaluate(RECORD_JS)
    for key, times in (("ArrowLeft", 12), ("PageUp", 2), ("End", 1), ("Home", 1)):
        site.press(POS_HANDLE, key, times)
    page.wait_for_timeout(300)
    record["keys"] = {"frames": page.evaluate(STOP_JS)}
    page_idle(page, timeout_s=60, what="the worker after the keys")
    record["axe"] = run_axe(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    try:
        record["one_tab"] = [
            {"link": link, "interactive": site.goto(link)["interactive"]} for link in ONE_TAB
        ]
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        cdp.detach()
    return record


@pytest.mark.parametrize("axis", ["pos", "offset", "keys"])
def test_every_frame_of_a_drag_shows_one_pos_and_one_pos_plus_k(visit, axis):
    assert visit["load"]["interactive"], visit["load"]["error"]
    frames = visit[axis]["frames"]
    assert len(frames) >= (10 if axis == "keys" else 100), f"{len(frames)} frames recorded"
    read = [positions_shown(frame) for frame in frames]
    assert all(len(shown) >= 5 for shown in read), "a frame in which the views were not read"
    wrong = [(i, disagreements(frame)) for i, frame in enumerate(frames) if disagreements(frame)]
    assert wrong == [], wrong[:5]


@pytest.mark.parametrize("axis", ["pos", "offset"])
def test_the_drag_moves_the_views_as_it_goes(visit, axis):
    """Not only where it ends: the views show many of the values passed on the way."""
    firsts = [positions_shown(frame)["chart 0 name"] for frame in visit[axis]["frames"]]
    assert len(set(firsts)) >= 15, sorted(set(firsts))


@pytest.mark.parametrize("axis", ["pos", "offset"])
def test_python_draws_what_the_page_picked(visit, axis):
    """The last frame of the drag (picked by the page) and Python's own drawing of that value
    show the same names, markers, traces and captions."""
    picked, drawn = visit[axis]["frames"][-1], visit[f"{axis}_settled"]
    assert [c["label"] for c in drawn["charts"]] == [c["label"] for c in picked["charts"]]
    assert drawn["charts"] == picked["charts"]
    assert drawn["texts"] == picked["texts"]
    # The same link; the page's picked values come last until Python's query has caught up.
    assert sorted(parse_qsl(drawn["url"][1:])) == sorted(parse_qsl(picked["url"][1:]))


@pytest.mark.parametrize("axis", ["pos", "offset"])
def test_the_live_region_speaks_once_where_a_drag_ended(visit, axis):
    """It reads the first view's name (the heatmap's) as Python drew it at the end."""
    assert visit[f"{axis}_announced"] == [visit[f"{axis}_settled"]["charts"][0]["label"]]


def test_axe_finds_nothing_after_the_drags(visit):
    assert visit["axe"] == [], describe(visit["axe"], "after the drags")


def test_page_after_page_in_one_tab_becomes_interactive(visit):
    assert [entry for entry in visit["one_tab"] if not entry["interactive"]] == []

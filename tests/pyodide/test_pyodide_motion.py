"""Motion in the real Pyodide build, offline: a visitor who asks for reduced motion gets no
animated transition anywhere on the page, and nothing moves unless they move it."""

from __future__ import annotations

import pytest
from pyodide_support import console_errors, in_turn

pytestmark = pytest.mark.pyodide

# Every element (through shadow roots) with a transition or an animation that takes time.
MOVING_JS = """() => __offline.deep('*').filter((element) => {
  const style = getComputedStyle(element);
  const transition = style.transitionDuration.split(',').some((d) => parseFloat(d) > 0);
  const animation = style.animationName !== 'none' && parseFloat(style.animationDuration) > 0;
  return transition || animation;
}).map((element) => element.tagName + '.' + String(element.className).slice(0, 40))"""
POSITION_JS = "() => new URLSearchParams(location.search).get('pos')"


def drive(site) -> dict:
    """The default page for a visitor with no preference, then for one who asks for reduced
    motion, in turn in the run's shared browser."""
    record = {}
    for motion in ("no-preference", "reduce"):
        since = len(site.console)
        with in_turn(site, reduced_motion=motion):
            load = site.goto("")
            assert load["interactive"], load["error"]
            site.settle(settle_ms=1500)
            before = site.page.evaluate(POSITION_JS)
            # Nothing plays by itself: unasked, the page stays still, the worker idle and nothing
            # changing on it for 3 s more (the harness's settle), and pos stays put.
            still = site.settle(settle_ms=3000)
            record[motion] = {
                "moving": site.page.evaluate(MOVING_JS),
                "still": still["settled"],
                "positions": (before, site.page.evaluate(POSITION_JS)),
                "errors": console_errors(site, since),
            }
    return record


@pytest.fixture(scope="module")
def record(shared_site):
    return shared_site.run(drive)


def test_without_a_preference_the_page_has_transitions(record):
    # What the reduced-motion rule takes away: Bokeh's and Plotly's own transitions.
    assert record["no-preference"]["moving"]


def test_with_reduced_motion_nothing_is_animated(record):
    assert record["reduce"]["moving"] == []


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_nothing_plays_by_itself(record, motion):
    before, after = record[motion]["positions"]
    assert record[motion]["still"]
    assert before == after == "7"


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_console_has_no_errors(record, motion):
    assert record[motion]["errors"] == []

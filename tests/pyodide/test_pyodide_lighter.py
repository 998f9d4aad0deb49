"""The lighter site (issue 34) in the real Pyodide build, offline: the page starts with plotly.js's
cartesian bundle, the learned view's 3D trajectory loads the full bundle when asked for from the
keyboard and draws in 3D, and every chart then still follows the controls; the wheels' bytecode
without sources imports and runs.
"""

from __future__ import annotations

import pytest
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

FULL = "plotly-3.1.0.min.js"
PARTIAL = "plotly-cartesian-3.1.0.min.js"
LOADED_JS = """() => performance.getEntriesByType('resource')
  .map((entry) => entry.name.split('/').pop()).filter((name) => name.startsWith('plotly'))"""
# The trace types of every Plotly chart on the page, chart by chart.
TRACE_TYPES_JS = """() => __offline.deep('.js-plotly-plot')
  .map((chart) => [...new Set((chart._fullData || []).map((trace) => trace.type))].sort())"""
FOCUS_CHOICE_JS = """(label) => {
  const button = __offline.deep('button').find((b) => b.textContent.trim() === label);
  if (!button) return false;
  button.focus();
  return true;
}"""
POS_HANDLE = ".pe-control-pos .noUi-handle"
# The learned view opens at pos 7, k 1; three presses of the right arrow on pos.
AFTER_KEYS = "Rows pos = 10 and pos + k = 11 (k = 1)"


def choose(site, label: str) -> bool:
    """Focus the button named label and press Enter on it, as a keyboard user does."""
    if not site.page.evaluate(FOCUS_CHOICE_JS, label):
        return False
    site.page.keyboard.press("Enter")
    return True


def has_trace(site, trace: str) -> bool:
    return wait_for(
        site, f"() => ({TRACE_TYPES_JS})().some((types) => types.includes({trace!r}))", 90
    )


def steps(site) -> dict:
    record = {"loaded_at_start": site.page.evaluate(LOADED_JS)}
    record["learned"] = site.goto("?view=learned&n_positions=32&d_model=8&pos=7&offset=1")
    record["scripts_on_open"] = site.page.evaluate(LOADED_JS)
    record["two_d"] = has_trace(site, "scatter")
    record["chose_3d"] = choose(site, "3D")
    record["three_d"] = has_trace(site, "scatter3d")
    record["scripts_after_3d"] = site.page.evaluate(LOADED_JS)
    record["traces_3d"] = site.page.evaluate(TRACE_TYPES_JS)
    # The full bundle now draws every chart, those the partial one drew first included.
    record["chose_2d"] = choose(site, "2D")
    record["back_to_2d"] = wait_for(
        site, f"() => !({TRACE_TYPES_JS})().some((types) => types.includes('scatter3d'))", 90
    )
    site.press(POS_HANDLE, "ArrowRight", 3)
    record["caption_follows"] = wait_for(
        site, f"() => __offline.text('.pe-learned-caption') === {AFTER_KEYS!r}", 90
    )
    record["caption_after"] = site.page.evaluate("() => __offline.text('.pe-learned-caption')")
    record["not_found"] = site.not_found()
    return record


def test_the_page_starts_with_the_cartesian_bundle_only(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert PARTIAL in visit["loaded_at_start"] and FULL not in visit["loaded_at_start"]
    assert visit["learned"]["interactive"]
    assert FULL not in visit["scripts_on_open"], "the 2D view needs no full bundle"
    assert visit["two_d"]


def test_the_3d_trajectory_loads_the_full_bundle_from_the_keyboard_and_draws(visit):
    assert visit["chose_3d"]
    assert visit["three_d"], visit["traces_3d"]
    assert FULL in visit["scripts_after_3d"]
    # Two tables' trajectories: the sinusoidal one's is drawn before any upload.
    assert any("scatter3d" in types and "heatmap" in types for types in visit["traces_3d"])


def test_after_the_full_bundle_every_chart_still_follows_the_controls(visit):
    assert visit["chose_2d"] and visit["back_to_2d"]
    assert visit["caption_follows"], visit["caption_after"]
    assert visit["not_found"] == []

"""Issue 17 in the served app, in Chromium: a tap on a touch screen shows a cell's formula (the
clicks, the pipeline and the code walkthrough are tested in the Pyodide build:
tests/pyodide/test_pyodide_site.py); and a drag of pos, every frame of it."""

import pytest
from browser_support import ConsoleLog, install_probe, wait_for_text
from frames_support import RECORD_JS, STOP_JS, disagreements, drag_by_cdp, positions_shown
from views_support import CELL_JS, formula_value, narrow_cell

pytestmark = pytest.mark.browser


def test_a_tap_on_a_touch_screen_shows_the_formula_too(browser, served_app):
    context = browser.new_context(viewport={"width": 420, "height": 800}, has_touch=True)
    install_probe(context)  # for narrow_cell's page_idle
    page = context.new_page()
    log = ConsoleLog(page)
    page.goto(served_app + "?view=heatmap&embed=1&d_model=8&n_positions=6&pos=2")
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    wait_for_text(page, ".pe-cell-formula-text", lambda t: t != "")
    # At this width the controls (touch-sized) push the chart below the fold: a finger scrolls.
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    cell = narrow_cell(page, 4, 3)
    page.touchscreen.tap(cell["x"], cell["y"])
    formula = wait_for_text(page, ".pe-cell-formula-text", lambda t: t.startswith("PE(4, 3)"))
    assert formula_value(formula) == f"{cell['value']:.4f}"
    # The narrow figure is taller (its title wraps): the chart grew with its pane, not squeezed
    # into the first height after it was measured (fixes/plotly_height.py).
    assert page.evaluate(CELL_JS, {"row": 4, "column": 3}) == cell
    assert cell["fills"]
    assert log.relevant_errors() == []
    context.close()


def test_every_frame_of_a_served_drag_shows_one_pos(open_app):
    """Under `panel serve` too, the page picks each value of a drag from the views' picks: on
    every frame of a 2 s drag the views agree with the slider."""
    page, log = open_app("")
    page.evaluate(RECORD_JS)
    drag_by_cdp(page, ".pe-control-pos", 0.85)
    page.wait_for_timeout(200)
    frames = page.evaluate(STOP_JS)
    assert len({positions_shown(frame).get("chart 0 name") for frame in frames}) >= 15
    assert [disagreements(frame) for frame in frames if disagreements(frame)] == []
    assert log.relevant_errors() == []

"""Issue 17 in the served app, in Chromium: a tap on a touch screen shows a cell's formula (the
clicks, the pipeline and the code walkthrough are tested in the Pyodide build:
tests/pyodide/test_pyodide_site.py)."""

import pytest
from browser_support import ConsoleLog, install_probe, wait_for_text
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

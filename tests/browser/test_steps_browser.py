"""Issue 17 in the served app, in Chromium: a cell's formula, the token pipeline and the code
walked through, each driven as a learner would (a click, a tap, the keyboard)."""

import pytest
from browser_support import ConsoleLog, look_at, tab_to, text, wait_for_text, wait_until

pytestmark = pytest.mark.browser

# The heatmap's plot, through Panel's shadow roots: the start of a page function's body.
HEATMAP_JS = """
  const plots = [];
  const walk = (root) => root.querySelectorAll('*').forEach((element) => {
    if (element.classList && element.classList.contains('js-plotly-plot')) plots.push(element);
    if (element.shadowRoot) walk(element.shadowRoot);
  });
  walk(document);
  const plot = plots.find((p) => (p.layout.title.text || '').startsWith('PE matrix'));
"""

# Where cell (row, column) of the heatmap is on screen, and its value as the plot holds it.
CELL_JS = (
    "({row, column}) => {"
    + HEATMAP_JS
    + """  const xaxis = plot._fullLayout.xaxis, yaxis = plot._fullLayout.yaxis;
  const box = plot.getBoundingClientRect();
  const label = plot.data[0].x[column];
  return {
    x: box.left + xaxis._offset + xaxis.d2p(label),
    y: box.top + yaxis._offset + yaxis.d2p(row),
    value: plot.calcdata[0][0].z[row][column],
    label,
  };
}"""
)

STAGE = ".pe-pipeline-stage-text"


def formula_value(formula: str) -> str:
    """The last number of "PE(7, 6) = … = −0.9861 · pair i = 3 · …", with an ASCII minus."""
    return formula.split(" · ")[0].rsplit("= ", 1)[1].replace("−", "-")


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_a_clicked_cells_formula_equals_its_value_to_the_digits_shown(open_app, layout):
    page, log = open_app(f"?layout={layout}&d_model=16&n_positions=12&pos=7")
    hint = wait_for_text(page, ".pe-cell-formula-text", lambda t: "/16)" in t)
    if layout == "interleaved":
        assert hint.startswith("PE(7, 6) = sin(7 / 10000^(6/16)) = sin(")
    for row, column in [(7, 6), (3, 1), (11, 9), (0, 15)]:
        cell = page.evaluate(CELL_JS, {"row": row, "column": column})
        # A click reports the point last hovered: the pointer goes onto the cell first.
        page.mouse.move(cell["x"], cell["y"])
        # Time-based by design: Plotly takes a press within 300 ms of the last click's for a
        # double click (which resets the zoom), and works out the point under the pointer at
        # most every 50 ms (a click right after the move reports the cell hovered before it).
        page.wait_for_timeout(400)
        page.mouse.click(cell["x"], cell["y"])
        formula = wait_for_text(
            page, ".pe-cell-formula-text", lambda t, r=row, c=column: t.startswith(f"PE({r}, {c})")
        )
        assert formula_value(formula) == f"{cell['value']:.4f}".replace("-0.0000", "0.0000")
        function = "sin" if (column % 2 == 0 if layout == "interleaved" else column < 8) else "cos"
        assert f" = {function}({row} / 10000^(" in formula
    assert log.relevant_errors() == []


def test_a_tap_on_a_touch_screen_shows_the_formula_too(browser, served_app):
    context = browser.new_context(viewport={"width": 420, "height": 800}, has_touch=True)
    page = context.new_page()
    log = ConsoleLog(page)
    page.goto(served_app + "?view=heatmap&embed=1&d_model=8&n_positions=6&pos=2")
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    wait_for_text(page, ".pe-cell-formula-text", lambda t: t != "")
    # At this width the controls (touch-sized) push the chart below the fold: a finger scrolls.
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    cell = page.evaluate(CELL_JS, {"row": 4, "column": 3})
    page.touchscreen.tap(cell["x"], cell["y"])
    formula = wait_for_text(page, ".pe-cell-formula-text", lambda t: t.startswith("PE(4, 3)"))
    assert formula_value(formula) == f"{cell['value']:.4f}"
    assert log.relevant_errors() == []
    context.close()


def test_stepping_the_pipeline_by_keyboard_shows_one_embedding_for_a_repeated_word(open_app):
    page, log = open_app("?view=tokens")
    # It opens on the sum; Prev goes back through the pipeline.
    wait_for_text(page, STAGE, lambda t: t.startswith("Stage 4 of 4"))
    tab_to(page, "pe-pipeline-prev")
    for stage in (3, 2):
        page.keyboard.press("Enter")
        wait_for_text(page, STAGE, lambda t, s=stage: t.startswith(f"Stage {s}"))
    # "the" stands at 0, 4 and 7: the same embedding numbers in each row.
    rows = page.locator("tr.pe-pipeline-copy")
    wait_until(page, lambda: rows.count() == 3, what="three copies of “the”")
    embeddings = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(3)]
    assert len(set(embeddings)) == 1
    assert "bit for bit" in text(page, ".pe-pipeline-verdict")
    tab_to(page, "pe-pipeline-next")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    wait_for_text(page, STAGE, lambda t: t.startswith("Stage 4 of 4"))
    sums = [rows.nth(i).locator("td").nth(3).inner_text() for i in range(3)]
    assert len(set(sums)) == 3
    assert log.relevant_errors() == []


def test_the_code_walkthrough_steps_by_keyboard_and_follows_the_layout(open_app):
    page, log = open_app("?view=code&layout=concatenated&d_model=16")
    look_at(page, "code")
    wait_for_text(page, ".pe-code-step-text", lambda t: t.startswith("Step 1 of 5"))
    tab_to(page, "pe-code-next")
    for step in (2, 3):
        page.keyboard.press("Enter")
        wait_for_text(page, ".pe-code-step-text", lambda t, s=step: t.startswith(f"Step {s} of 5"))
    # The highlighted line is its own pane: it may follow the step's text by a message.
    current = wait_for_text(page, ".pe-code-current", lambda t: "pe[:, :d_model // 2]" in t)
    assert "sin" in current
    assert "0::2" not in text(page, ".pe-code-lines")
    assert log.relevant_errors() == []

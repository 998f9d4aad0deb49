"""Reading and driving the views (the heatmap's cells, the tokens, the plots by title), through
Panel's shadow roots. They use only page.evaluate, locators and the keyboard and mouse, so the
served tests and those of the Pyodide build can both use them."""

from __future__ import annotations

from browser_support import look_at, page_idle, plots, wait_until
from pe_explorer.plotkit.narrow import NARROW_MARK

# How many elements of the page, through open shadow roots, match a CSS selector (and hold
# exactly the given text, when one is given).
COUNT_JS = """([selector, content]) => {
  let count = 0;
  const walk = (root) => root.querySelectorAll('*').forEach((element) => {
    if (element.matches(selector) && (content === null || element.textContent === content)) {
      count += 1;
    }
    if (element.shadowRoot) walk(element.shadowRoot);
  });
  walk(document);
  return count;
}"""

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

# Where cell (row, column) of the heatmap is on screen, its value as the plot holds it, and
# whether the figure is the one laid out for a narrow card (plotkit/narrow.py).
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
    // Drawn as tall as its pane (fixes/plotly_height.py).
    fills: Math.abs(plot.getRootNode().host.clientHeight - plot._fullLayout.height) <= 2,
    narrow: Boolean(plot.layout.meta && plot.layout.meta."""
    + NARROW_MARK
    + """),
  };
}"""
)

# The cell Plotly last reported under the pointer on the heatmap ({row, label}), or null: a
# click reports this point, so a test moves the pointer onto a cell and waits for it here.
HOVERED_CELL_JS = (
    "() => {"
    + HEATMAP_JS
    + """  const point = plot && plot._hoverdata && plot._hoverdata[0];
  return point ? {row: point.y, label: point.x} : null;
}"""
)

# The pipeline's stage indicator in the tokens view ("Stage 4 of 4: their sum, the input").
STAGE = ".pe-pipeline-stage-text"


def count(page, selector: str, content: str | None = None) -> int:
    """How many elements match selector on the page (with exactly content as text, if given)."""
    return page.evaluate(COUNT_JS, [selector, content])


def plot_titled(page, start: str) -> dict:
    """The one plot of the page (PLOTS_JS's summary) whose title starts with start."""
    (plot,) = [p for p in plots(page) if p["title"].startswith(start)]
    return plot


def title_when_drawn(page, matches, timeout_s: float, what: str) -> str:
    """The title of the first plot whose title matches(title), once one is drawn."""
    titles = lambda: [p["title"] for p in plots(page) if matches(p["title"])]  # noqa: E731
    return wait_until(page, titles, timeout_s, what=what)[0]


def press_on(page, selector: str, key: str, times: int = 1) -> None:
    """Focus the first element matching selector and press key `times` times."""
    page.locator(selector).first.focus()
    for _ in range(times):
        page.keyboard.press(key)


def type_a_sentence(page, sentence: str, chips: int, timeout_s: float = 10.0) -> None:
    """Type a sentence into the text box, press Enter, and wait for its chips in the tokens view."""
    field = page.locator(".pe-control-text input")
    field.fill(sentence)
    field.press("Enter")
    look_at(page, "tokens")
    wait_until(
        page, lambda: count(page, ".pe-token-chip") == chips, timeout_s, what=f"{chips} chips"
    )


def point_at_cell(page, cell: dict, row: int, timeout_s: float = 10.0) -> tuple[float, float]:
    """Move the pointer onto a heatmap cell (CELL_JS's answer for row) until Plotly reports
    hovering it, the point a click there reports; return where the pointer is.

    Plotly works the hovered point out at most every 50 ms, and the first move after a click
    may leave no point hovered: the pointer moves again, within the cell, until it is reported.
    """
    target = {"row": row, "label": cell["label"]}
    where = [cell["x"], cell["y"]]

    def hovered() -> bool:
        if page.evaluate(HOVERED_CELL_JS) == target:
            return True
        where[0] = cell["x"] + (1 if where[0] == cell["x"] else 0)
        page.mouse.move(*where)
        return False

    page.mouse.move(*where)
    wait_until(page, hovered, timeout_s, what=f"Plotly hovering row {row} of {cell['label']!r}")
    return where[0], where[1]


STILL_FRAMES = 3


def narrow_cell(page, row: int, column: int, timeout_s: float = 30.0) -> dict:
    """CELL_JS's answer once the page has nothing more coming (page_idle), the heatmap has been
    drawn again for a narrow card (a width change is acted on after a pause) and the cell held
    still for STILL_FRAMES frames: where a finger will find it."""
    page_idle(page, timeout_s, what="the page before a tap")
    seen = []

    def settled():
        cell = page.evaluate(CELL_JS, {"row": row, "column": column})
        seen.append((cell["narrow"], cell["x"], cell["y"]))
        recent = seen[-STILL_FRAMES:]
        still = len(recent) == STILL_FRAMES and len(set(recent)) == 1
        return cell if cell["narrow"] and still else None

    return wait_until(page, settled, timeout_s, what=f"the narrow heatmap's cell ({row}, {column})")


def formula_value(formula: str) -> str:
    """The last number of "PE(7, 6) = … = −0.9861 · pair i = 3 · …", with an ASCII minus."""
    return formula.split(" · ")[0].rsplit("= ", 1)[1].replace("−", "-")


def cell_function(row: int, column: int, d_model: int, layout: str) -> str:
    """sin or cos: the function of the heatmap's column (even columns, or the first half in the
    concatenated layout, are sines)."""
    sine = column % 2 == 0 if layout == "interleaved" else column < d_model // 2
    return "sin" if sine else "cos"


def row_marked(plot: dict, name: str) -> float:
    """The row a plot's marker (a shape or row image, PLOTS_JS) called name stands on."""
    (shape,) = [s for s in plot["shapes"] if s["name"] == name]
    return (shape["y0"] + shape["y1"]) / 2

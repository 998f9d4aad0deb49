"""Work follows the visitor's eyes: views off screen wait and catch up when scrolled to, and a
step redraws each plot on screen once (no second draw for an unchanged size)."""

import pytest
from browser_support import (
    ConsoleLog,
    look_at,
    page_idle,
    plots,
    probes_reported,
    text,
    wait_for_text,
    wait_until,
)
from pe_explorer.ui.lazy_views import NEAR_PX
from pe_explorer.views import VIEWS

pytestmark = pytest.mark.browser

# Counts plotly_afterplot (one whole draw) per view card, from the moment it is installed.
COUNT_DRAWS_JS = """() => {
  const cards = {};
  const walk = (root, card) => root.querySelectorAll('*').forEach((e) => {
    const name = (String(e.className).match(/pe-view-(\\w+)/) || [])[1] || card;
    if (e.classList && e.classList.contains('js-plotly-plot') && name) {
      cards[name] = cards[name] || {plot: e};
    }
    if (e.shadowRoot) walk(e.shadowRoot, name);
  });
  walk(document, null);
  window.__draws = {};
  for (const [name, {plot}] of Object.entries(cards)) {
    window.__draws[name] = 0;
    plot.on('plotly_afterplot', () => { window.__draws[name] += 1; });
  }
  return Object.keys(cards);
}"""


def on_screen(page, view: str) -> bool:
    """Whether the view is on screen or within NEAR_PX of it (it is kept up to date then)."""
    box = page.locator(f".pe-view-{view}").first.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] < height + NEAR_PX and box["y"] + box["height"] > -NEAR_PX


def title_of(page, start: str) -> str:
    (plot,) = [p for p in plots(page) if p["title"].startswith(start)]
    return plot["title"]


def placeholder_text(page, view: str) -> str:
    return (
        text(page, f".pe-view-{view} .pe-placeholder")
        if page.locator(f".pe-view-{view} .pe-placeholder").count()
        else ""
    )


def test_a_view_below_the_fold_is_drawn_when_first_scrolled_to(open_app):
    page, log = open_app("?d_model=4&pos=7")
    assert not on_screen(page, "properties")
    # The cards below the first row are built once the page is shown; their probes report where
    # they are, and the server acts on it.
    wait_until(page, lambda: placeholder_text(page, "properties"), what="the properties card")
    assert probes_reported(page)["properties"] is False
    # Only the first row is drawn; the others wait, a placeholder saying so in their place.
    assert sorted(p["title"].split(":")[0] for p in plots(page)) == sorted(
        ["PE matrix", "PE(pos) and PE(pos + k) over the 4 dimensions"]
    )
    assert placeholder_text(page, "properties").endswith("drawn when it comes into view")
    page.locator(".pe-control-pos .noUi-handle").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_for_text(page, ".pe-pos-readout", lambda t: t.startswith("pos = 10 "))
    look_at(page, "properties")
    wait_until(
        page,
        lambda: [p for p in plots(page) if p["title"].startswith("‖PE(q) − PE(10)‖")],
        what="the properties view, drawn for pos = 10",
    )
    assert placeholder_text(page, "properties") == ""
    assert log.relevant_errors() == []


def test_a_view_scrolled_away_waits_and_catches_up_when_back(open_app):
    page, log = open_app("?d_model=4&pos=7")
    look_at(page, "properties")
    wait_until(page, lambda: [p for p in plots(page) if p["title"].startswith("‖PE(q)")])
    look_at(page, "heatmap")
    # The view's probe has reported that it is off screen, and the server has it.
    assert probes_reported(page)["properties"] is False
    assert not on_screen(page, "properties")
    before = title_of(page, "‖PE(q) − PE(7)‖")
    page.locator(".pe-control-pos .noUi-handle").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_for_text(page, ".pe-pos-readout", lambda t: t.startswith("pos = 10 "))
    page_idle(page, what="the server after the steps")
    assert title_of(page, "‖PE(q) − PE(") == before
    look_at(page, "properties")
    wait_until(
        page,
        lambda: title_of(page, "‖PE(q) − PE(").startswith("‖PE(q) − PE(10)‖"),
        what="the properties view to catch up",
    )
    assert text(page, ".pe-control-pos .bk-slider-value") == "10"
    assert log.relevant_errors() == []


def test_a_d_model_step_draws_each_plot_on_screen_once_and_none_off_screen(open_app):
    page, log = open_app()
    look_at(page, "properties")  # drawn now, and off screen once scrolled back up
    wait_until(page, lambda: len(plots(page)) >= 3, what="the properties view")
    look_at(page, "heatmap")
    assert probes_reported(page)["properties"] is False
    views = page.evaluate(COUNT_DRAWS_JS)
    assert {"heatmap", "compare", "properties"} <= set(views)
    page.locator(".pe-control-d-model .noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    wait_for_text(page, ".pe-control-d-model .bk-slider-value", lambda t: t == "130")
    wait_until(
        page,
        lambda: [p for p in plots(page) if "× 130 dimensions" in p["title"]],
        what="the heatmap at d_model 130",
    )
    page_idle(page, what="the server after the step")
    # Time-based by design: a second draw would come from a timer, Plotly's delayed resize
    # (100 ms after a resize) or Panel's redraw of a Plotly pane (250 ms after its data changed,
    # panel/models/plotly.ts): wait past both, then count.
    page.wait_for_timeout(1500)
    draws = page.evaluate("() => window.__draws")
    shown = {view for view in views if on_screen(page, view)}
    assert {"heatmap", "compare"} <= shown
    assert {view: draws[view] for view in shown} == dict.fromkeys(shown, 1)
    assert {view: draws[view] for view in set(views) - shown} == dict.fromkeys(
        set(views) - shown, 0
    )
    assert log.relevant_errors() == []


def test_without_an_intersection_observer_every_view_is_drawn(browser, served_app):
    # An old browser cannot say what is on screen: then nothing waits to be seen.
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script("delete window.IntersectionObserver;")
    page = context.new_page()
    log = ConsoleLog(page)
    page.goto(served_app + "?d_model=16")
    wait_until(page, lambda: len(plots(page)) == len(VIEWS), timeout_s=30, what="every view")
    assert log.relevant_errors() == []
    context.close()

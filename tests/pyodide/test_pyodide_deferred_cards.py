"""The site's page builds the cards below the first row once it is shown (ExplorerPage.
defer_cards): in the real Pyodide build, every card arrives after the page is interactive, a
reader scrolled down stays where they are, and a card that comes into view draws its view.
Work follows the visitor's eyes: a view below the fold waits, drawn for the state of the moment
it is first seen; one scrolled away waits and catches up when back (the page's picker moves it
meanwhile, from the picks Python sent); a step draws each plot on
screen once and none off screen; and without an IntersectionObserver every view is drawn."""

from __future__ import annotations

import pytest
from browser_support import look_at, next_frame, page_idle, plots, wait_for_text, wait_until
from pe_explorer.views import VIEW_NAMES, VIEWS
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    on_the_site,
    test_console_has_no_errors,
    visit_offline,
    wait_for,
)
from viewport_support import COUNT_DRAWS_JS, on_screen, placeholder_text, titles

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = ""

SCROLLED_PX = 1000
CARDS_JS = """() => [...new Set(window.__offline.deep('[class*="pe-view-"]').flatMap(
  (e) => [...e.classList].filter((c) => c.startsWith('pe-view-')).map((c) => c.slice(8))))]"""
# The waves view's figure, titled "Waves of N pairs: ...", drawn by plotly.js.
WAVES_DRAWN_JS = """() => window.__offline.deep('.js-plotly-plot').some((plot) =>
  ((plot.layout && plot.layout.title && plot.layout.title.text) || '').startsWith('Waves'))"""


def steps(site) -> dict:
    """Scroll down as soon as the page answers, while the cards arrive."""
    site.page.evaluate(f"window.scrollTo(0, {SCROLLED_PX})")
    record = {
        "all_cards": wait_for(
            site, f"() => ({CARDS_JS})().length === {len(VIEW_NAMES)}", timeout_s=60
        ),
        "waves_drawn": wait_for(site, WAVES_DRAWN_JS, timeout_s=60),
    }
    # Every card in: the page gives up the height it held while they arrived, and the worker has
    # applied everything, so no later change of the page can still move the reader.
    record["settled"] = wait_for(
        site,
        "() => document.documentElement.style.minHeight === '' && !window.__offline.workerBusy()",
        timeout_s=60,
    )
    record["cards"] = site.page.evaluate(CARDS_JS)
    record["scroll_y"] = site.page.evaluate("window.scrollY")
    record["min_height"] = site.page.evaluate("document.documentElement.style.minHeight")
    for name, part in (("lazy", lazy_views), ("draws", draws_per_step)):
        try:
            record[name] = part(site)
        except AssertionError as error:
            record.setdefault("errors", {})[name] = str(error)
    return record


# The pos Python last drew a view at (its picks' `drawn`, plotkit/picks.py): the page's picker
# moves every view at once, on screen or not; Python draws only those on screen.
DRAWN_POS_JS = """(view) => {
  for (const [key, model] of window[Symbol.for('pe-picks')] || []) {
    if (key.startsWith(view + '-')) {
      const drawn = model.drawn;
      return drawn instanceof Map ? drawn.get('pos') : drawn.pos;
    }
  }
  return null;
}"""


def step_pos(site, presses: int, to: int) -> None:
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", presses)
    wait_for_text(site.page, ".pe-pos-readout", lambda t: t.startswith(f"pos = {to} "), 30)


def lazy_views(site) -> dict:
    """At d_model 4: the properties view, below the fold, waits in a placeholder; three steps of
    pos; scrolled to, it is drawn for pos = 10. Scrolled away, three more steps leave it as it
    was; back on screen it catches up to pos = 13."""
    page = site.page
    site.goto("?d_model=4&pos=7")
    record = {"below_the_fold": not on_screen(page, "properties")}
    record["placeholder"] = wait_until(
        page, lambda: placeholder_text(page, "properties"), 30, "the properties card"
    )
    page_idle(page, what="the page at start")
    record["drawn_at_start"] = sorted(p["title"].split(":")[0] for p in plots(page))
    step_pos(site, 3, 10)
    look_at(page, "properties")
    wait_until(page, lambda: titles(page, "‖PE(q) − PE(10)‖"), 30, "properties at pos = 10")
    record["placeholder_after"] = placeholder_text(page, "properties")
    look_at(page, "heatmap")
    # The card's observer says it left the screen at a frame after the scroll, and Python hears
    # it through the worker: wait for both before stepping.
    wait_until(page, lambda: not on_screen(page, "properties"), 30, "properties off screen")
    next_frame(page)
    next_frame(page)
    page_idle(page, what="the page after the scroll")
    step_pos(site, 3, 13)
    page_idle(page, what="the worker after the steps")
    record["off_screen"] = not on_screen(page, "properties")
    record["python_while_away"] = page.evaluate(DRAWN_POS_JS, "properties")
    record["picked_while_away"] = titles(page, "‖PE(q) − PE(")
    look_at(page, "properties")
    wait_until(
        page, lambda: page.evaluate(DRAWN_POS_JS, "properties") == 13, 30, "Python to catch up"
    )
    record["caught_up"] = titles(page, "‖PE(q) − PE(")
    return record


def draws_per_step(site) -> dict:
    """From the page lazy_views left (properties drawn, then scrolled away): one step of d_model,
    and how many times each plot was drawn, on screen and off it."""
    page = site.page
    look_at(page, "heatmap")
    page_idle(page, what="the worker before the step")
    views = page.evaluate(COUNT_DRAWS_JS)
    page.locator(".pe-control-d-model .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    wait_until(page, lambda: titles(page, "PE matrix: 64 positions × 6"), 30, "d_model 6")
    page_idle(page, what="the worker after the step")
    # Time-based by design: a second draw would come from a timer, Plotly's delayed resize
    # (100 ms after a resize) or Panel's redraw of a Plotly pane (250 ms after its data changed,
    # panel/models/plotly.ts): wait past both, then count.
    page.wait_for_timeout(1500)
    draws = page.evaluate("() => window.__draws")
    shown = {view for view in views if on_screen(page, view)}
    return {"views": views, "draws": draws, "shown": sorted(shown)}


def no_observer(site) -> dict:
    """A browser without IntersectionObserver cannot say what is on screen: then nothing waits,
    and every view is drawn. In a browser of its own (`without_an_observer`): the script stays
    for every later page of its context, and the run's shared browser would then draw every
    view on every step for the modules after this one."""
    site.page.context.add_init_script("delete window.IntersectionObserver;")
    site.goto("?d_model=16")
    drawn = wait_until(
        site.page, lambda: len(plots(site.page)) == len(VIEWS), 60, "every view drawn"
    )
    return {"drawn": drawn, "plots": len(plots(site.page))}


def test_every_card_arrives_and_the_reader_stays_where_they_scrolled(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["all_cards"] and sorted(visit["cards"]) == sorted(VIEW_NAMES)
    assert visit["scroll_y"] == SCROLLED_PX
    assert visit["min_height"] == ""  # the page's height is its own again


def test_a_card_on_screen_draws_its_view(visit):
    assert visit["waves_drawn"]  # the first card of the second row, on screen at 1000 px


def part(visit, name: str) -> dict:
    assert name not in visit.get("errors", {}), visit["errors"][name]
    return visit[name]


def test_a_view_below_the_fold_waits_and_is_drawn_for_the_state_when_first_seen(visit):
    lazy = part(visit, "lazy")
    assert lazy["below_the_fold"]
    assert lazy["placeholder"].endswith("drawn when it comes into view")
    # Only the first row is drawn; the others wait, a placeholder saying so in their place.
    assert lazy["drawn_at_start"] == sorted(
        ["PE matrix", "PE(pos) and PE(pos + k) over the 4 dimensions"]
    )
    assert lazy["placeholder_after"] == ""


def test_a_view_scrolled_away_waits_and_catches_up_when_back(visit):
    lazy = part(visit, "lazy")
    assert lazy["off_screen"]
    # Python waits while the view is away; the page's picker has moved it meanwhile.
    assert lazy["python_while_away"] == 10
    assert [t.split("‖")[1] for t in lazy["picked_while_away"]] == ["PE(q) − PE(13)"]
    assert [t.split("‖")[1] for t in lazy["caught_up"]] == ["PE(q) − PE(13)"]


def test_a_d_model_step_draws_each_plot_on_screen_once_and_none_off_screen(visit):
    seen = part(visit, "draws")
    views, draws, shown = set(seen["views"]), seen["draws"], set(seen["shown"])
    assert {"heatmap", "compare", "properties"} <= views
    assert {"heatmap", "compare"} <= shown and "properties" not in shown
    assert {view: draws[view] for view in shown} == dict.fromkeys(shown, 1)
    assert {view: draws[view] for view in views - shown} == dict.fromkeys(views - shown, 0)


@pytest.fixture(scope="module")
def without_an_observer(request) -> dict:
    """no_observer's visit, in a browser of its own."""
    return visit_offline(request, lambda site_dir: on_the_site(site_dir, no_observer))


def test_without_an_intersection_observer_every_view_is_drawn(without_an_observer):
    assert without_an_observer["load"]["interactive"], without_an_observer["load"]["error"]
    assert without_an_observer["drawn"], without_an_observer["plots"]
    assert without_an_observer["console_errors"] == [], without_an_observer["console_errors"]

"""The site's page builds the cards below the first row once it is shown (ExplorerPage.
defer_cards): in the real Pyodide build, every card arrives after the page is interactive, a
reader scrolled down stays where they are, and a card that comes into view draws its view."""

from __future__ import annotations

import pytest
from pe_explorer.views import VIEW_NAMES
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

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
    return record


def test_every_card_arrives_and_the_reader_stays_where_they_scrolled(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["all_cards"] and sorted(visit["cards"]) == sorted(VIEW_NAMES)
    assert visit["scroll_y"] == SCROLLED_PX
    assert visit["min_height"] == ""  # the page's height is its own again


def test_a_card_on_screen_draws_its_view(visit):
    assert visit["waves_drawn"]  # the first card of the second row, on screen at 1000 px

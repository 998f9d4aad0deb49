"""URL state and single-view embeds in the real Pyodide build, offline.

In the worker build the page's location reaches Python only after the first render, so
these check that the state still lands on what the URL asks for, in one update.
"""

from __future__ import annotations

import pytest
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)
from test_pyodide_site import DEEP_TEXT_JS

pytestmark = pytest.mark.pyodide

SHARED_QUERY = "d_model=64&pos=20&offset=-5&n_positions=100&%3Cb%3Ex%3C%2Fb%3E=1"
EMBED_QUERY = "view=compare&embed=1&pos=22&offset=3"
ODD_QUERY = "text=why?&pos=3?d_model=64"
# Each factor is finite, yet 1e308 would overflow every wavelength: the link must not stop the page.
LONGROPE_QUERY = "view=scaling&scaling=longrope&longrope_factors=" + ",".join(["1e308"] * 64)


def steps(site) -> dict:
    """Open a shared link, press keys, then open an embed link and one with a '?' in a value."""
    record = {"load": site.goto(f"?{SHARED_QUERY}")}
    text = lambda selector: site.page.evaluate(DEEP_TEXT_JS, selector)  # noqa: E731
    # The state and the notice about the hostile key arrive in one update, but may be
    # drawn a moment apart.
    record["restored"] = wait_for(
        site,
        "() => __offline.text('.pe-pos-readout').startsWith('pos = 20 ') && "
        "(__offline.text('.pe-notices') || '').includes('unknown parameter')",
    )
    record["readout"] = text(".pe-pos-readout")
    record["notice"] = text(".pe-notices")
    record["injected"] = site.page.evaluate("() => __offline.deep('.pe-notices b').length")
    history = site.page.evaluate("history.length")
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", 3)
    record["interaction"] = site.settle(settle_ms=3000)
    # The compare card (and its readout) may sit below the fold, paused until it is seen.
    site.page.locator(".pe-view-compare").first.scroll_into_view_if_needed()
    wait_for(site, "() => __offline.text('.pe-pos-readout').startsWith('pos = 23 ')", 30)
    record["readout_after_keys"] = text(".pe-pos-readout")
    record["search_after_keys"] = site.page.evaluate("location.search")
    record["history_grew"] = site.page.evaluate("history.length") != history

    record["embed_load"] = site.goto(f"?{EMBED_QUERY}")
    # The layout and the state arrive in one update, but may be drawn a moment apart.
    record["embed_restored"] = wait_for(
        site,
        "() => __offline.text('.pe-pos-readout').startsWith('pos = 22 ') && "
        "__offline.deep('.pe-header').length === 0",
    )
    record["embed_headers"] = site.page.evaluate("() => __offline.deep('.pe-header').length")
    record["embed_plots"] = site.page.evaluate("() => __offline.deep('.js-plotly-plot').length")
    # A question mark inside a value (a learner's sentence, a pasted link).
    record["odd_load"] = site.goto(f"?{ODD_QUERY}")
    record["odd_notice"] = wait_for(
        site, "() => (__offline.text('.pe-notices') || '').includes(\"'3?d_model=64'\")"
    )
    record["longrope_load"] = site.goto(f"?{LONGROPE_QUERY}")
    record["longrope_notice"] = wait_for(
        site,
        "() => (__offline.text('.pe-notices') || '').includes('LongRoPE factor 1 is 1e308') && "
        "__offline.deep('.js-plotly-plot').length > 0",
    )
    record["longrope_text"] = text(".pe-notices")
    return record


def test_a_shared_link_restores_its_state(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["restored"], visit["readout"]
    assert visit["readout"] == "pos = 20 · pos + k = 15 · k = -5"


def test_unknown_keys_give_an_escaped_notice(visit):
    assert "'<b>x</b>': unknown parameter" in (visit["notice"] or "")
    assert visit["injected"] == 0


def test_keys_update_the_url_in_place(visit):
    assert visit["readout_after_keys"].startswith("pos = 23 ")
    assert "pos=23" in visit["search_after_keys"]
    assert not visit["history_grew"]


def test_an_embed_link_shows_one_view_without_header(visit):
    assert visit["embed_restored"]
    assert visit["embed_headers"] == 0
    assert visit["embed_plots"] == 1


def test_a_question_mark_inside_a_value_opens_the_page_with_a_notice(visit):
    assert visit["odd_load"]["interactive"], visit["odd_load"]["error"]
    assert visit["odd_notice"]


def test_a_longrope_link_past_the_bounds_opens_with_a_notice(visit):
    assert visit["longrope_load"]["interactive"], visit["longrope_load"]["error"]
    assert visit["longrope_notice"], visit["longrope_text"]
    assert "kept the default" in visit["longrope_text"]

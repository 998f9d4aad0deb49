"""URL state and single-view embeds in the real Pyodide build, offline.

In the worker build the page's location reaches Python only after the first render, so
these check that the state still lands on what the URL asks for, in one update.
"""

from __future__ import annotations

import pytest
from browser_support import wait_until
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)
from test_pyodide_site import DEEP_TEXT_JS

pytestmark = pytest.mark.pyodide

# A shared link with a hostile key and a hostile value (the seed), besides the state it restores.
HOSTILE_VALUE = "<img src=x onerror=alert(1)>"
SHARED_QUERY = (
    "d_model=64&pos=20&offset=-5&n_positions=100&%3Cb%3Ex%3C%2Fb%3E=1"
    "&seed=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
)
EMBED_QUERY = "view=compare&embed=1&pos=22&offset=3"
# A question mark inside a value, on the mistakes view alone with a bad value of its own.
ODD_QUERY = "text=why?&pos=3?d_model=64&view=mistakes&mistake=alibi_slopes&query_at=64k"
# The mistakes view's chart name at that link, then with the wrong θ chosen in its list.
ALIBI_NAME = "head 9 has 0.04419 instead of 0.7071"
THETA_NAME = "θ 10000 instead of 500000"
CHART_NAMED_JS = """(words) => __offline.deep('.js-plotly-plot')
  .some((chart) => (chart.getAttribute('aria-label') || '').includes(words))"""
# Each factor is finite, yet 1e308 would overflow every wavelength: the link must not stop the page.
LONGROPE_QUERY = "view=scaling&scaling=longrope&longrope_factors=" + ",".join(["1e308"] * 64)
# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = f"?{SHARED_QUERY}"


def share_panel(site) -> dict:
    """Open the Share / Embed panel: its link and snippet, then one key on pos, and its link."""
    page = site.page
    page.get_by_role("button", name="Share / Embed").click()
    link = page.locator(".pe-share input").first
    wait_until(page, lambda: "pos=23" in link.input_value(), 30, "the link")
    shared = {
        "link": link.input_value(),
        "snippet": page.locator(".pe-share textarea").first.input_value(),
        "origin": page.evaluate("location.origin"),
    }
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", 1)
    wait_until(page, lambda: "pos=24" in link.input_value(), 30, "the link to follow pos")
    return {**shared, "link_after_key": link.input_value()}


def dismiss_notices(site) -> bool:
    """Press the notices' Dismiss button: whether they were then hidden."""
    site.page.get_by_role("button", name="Dismiss").first.click()
    return wait_for(site, "() => !__offline.deep('.pe-notices').some((e) => e.offsetParent)", 30)


def mistakes_steps(site) -> dict:
    """On the mistakes view alone: its notice, its chart's name, then another mistake chosen in
    its list: the name, the readout and the address follow."""
    page, record = site.page, {}
    record["notice"] = wait_for(
        site, "() => (__offline.text('.pe-notices') || '').includes(\"query_at: '64k'\")"
    )
    record["alibi_named"] = page.wait_for_function(CHART_NAMED_JS, arg=ALIBI_NAME, timeout=60_000)
    page.locator(".pe-control-mistake select").first.select_option(label="the wrong θ")
    record["theta_named"] = bool(
        page.wait_for_function(CHART_NAMED_JS, arg=THETA_NAME, timeout=60_000)
    )
    record["readout"] = page.evaluate("() => __offline.text('.pe-mistakes-readout')")
    wait_until(page, lambda: "mistake=wrong_theta" in page.evaluate("location.search"), 30, "url")
    record["search"] = page.evaluate("location.search")
    record["alibi_named"] = bool(record["alibi_named"])
    return record


def steps(site) -> dict:
    """Open a shared link, press keys, share it, then open an embed link and one with a '?' in a
    value."""
    record = {}
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
    record["injected"] = site.page.evaluate(
        "() => __offline.deep('.pe-notices b').length + __offline.deep('img[src=\"x\"]').length"
    )
    history = site.page.evaluate("history.length")
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", 3)
    record["interaction"] = site.settle(settle_ms=3000)
    # The compare card (and its readout) may sit below the fold, paused until it is seen.
    site.page.locator(".pe-view-compare").first.scroll_into_view_if_needed()
    wait_for(site, "() => __offline.text('.pe-pos-readout').startsWith('pos = 23 ')", 30)
    record["readout_after_keys"] = text(".pe-pos-readout")
    record["search_after_keys"] = site.page.evaluate("location.search")
    record["history_grew"] = site.page.evaluate("history.length") != history
    record["share"] = share_panel(site)
    record["dismissed"] = dismiss_notices(site)

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
    record["mistakes"] = mistakes_steps(site)
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


def test_hostile_keys_and_values_give_an_escaped_notice_and_inject_nothing(visit):
    assert "'<b>x</b>': unknown parameter" in (visit["notice"] or "")
    assert HOSTILE_VALUE in visit["notice"]
    assert visit["injected"] == 0
    assert visit["dialogs"] == []
    assert visit["dismissed"]


def test_the_share_panel_offers_the_link_and_an_iframe_snippet_that_follow_the_controls(visit):
    share = visit["share"]
    assert "pos=23" in share["link"]
    snippet = share["snippet"]
    assert snippet.startswith("<iframe data-pe-explorer src=") and 'loading="lazy"' in snippet
    assert 'width="100%"' in snippet and "title=" in snippet and "embed=1" in snippet
    # The resizer of the site the link is on, which fits the frame to its content.
    assert snippet.endswith(f'<script src="{share["origin"]}/static/pe-embed.js" defer></script>')
    assert "pos=24" in share["link_after_key"]


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


def test_the_mistakes_view_follows_its_link_and_its_list(visit):
    mistakes = visit["mistakes"]
    assert mistakes["notice"] and mistakes["alibi_named"]
    assert mistakes["theta_named"] and THETA_NAME in mistakes["readout"]
    assert "mistake=wrong_theta" in mistakes["search"] and "view=mistakes" in mistakes["search"]

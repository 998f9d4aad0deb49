"""The method control in the real Pyodide build, offline: switch, embed, bad values."""

from __future__ import annotations

import pytest
from pyodide_support import offline_site, visit_offline, wait_for
from test_pyodide_site import DEEP_TEXT_JS

pytestmark = pytest.mark.pyodide

EMBED_QUERY = "view=rope&embed=1&method=rope&pos=7&offset=3&seed=4"
BAD_QUERY = "method=xyz&heads=1000000000&view=methods&embed=1"
# Every readout of the RoPE view that must agree: the live score and the other pairs k apart.
ROPE_SCORES_JS = """() => ['.pe-rope-score', '.pe-rope-other', '.pe-rope-offset-only']
  .flatMap((selector) => __offline.deep(selector).map((e) => e.textContent.trim()))"""


def visit_methods(site_dir) -> dict:
    """Open the site, switch the method, then an embed of RoPE and a link with bad values."""
    record = {}
    with offline_site.open_offline_site(site_dir, "index.html") as site:
        text = lambda selector: site.page.evaluate(DEEP_TEXT_JS, selector)  # noqa: E731
        site.url = "https://app.local/index.html"
        record["load"] = site._load(300)
        site.page.locator(".pe-control-method button", has_text="ALiBi").first.click()
        record["switched"] = wait_for(
            site,
            "() => location.search.includes('method=alibi') && "
            "(__offline.text('.pe-method-note') || '').startsWith('Under ALiBi')",
        )
        # The first note is the first card's: the encoding matrix.
        record["note"] = text(".pe-method-note")
        record["search"] = site.page.evaluate("location.search")

        site.url = f"https://app.local/index.html?{EMBED_QUERY}"
        record["embed_load"] = site._load(300)
        record["embed_drawn"] = wait_for(
            site,
            "() => (__offline.text('.pe-rope-positions') || '').startsWith('m = pos = 7 ') && "
            "__offline.text('.pe-rope-positions').endsWith('k = n − m = 3')",
        )
        record["scores"] = site.page.evaluate(ROPE_SCORES_JS)
        site.press(".pe-control-pos .noUi-handle", "ArrowRight", 2)
        record["moved"] = wait_for(
            site, "() => (__offline.text('.pe-rope-positions') || '').startsWith('m = pos = 9 ')"
        )
        record["scores_after"] = site.page.evaluate(ROPE_SCORES_JS)
        record["embed_headers"] = site.page.evaluate("() => __offline.deep('.pe-header').length")

        site.url = f"https://app.local/index.html?{BAD_QUERY}"
        record["bad_load"] = site._load(300)
        record["bad_notice"] = wait_for(
            site, "() => (__offline.text('.pe-notices') || '').includes('heads')"
        )
        record["notice"] = text(".pe-notices")
        record["current_method"] = text("table.pe-methods tr.pe-current")
        record["console_errors"] = site.console_errors()
    return record


@pytest.fixture(scope="module")
def visit(request) -> dict:
    """What happened on one offline visit of the built site."""
    return visit_offline(request, visit_methods)


def test_switching_the_method_updates_the_views_and_the_url(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["switched"], (visit["note"], visit["search"])
    assert visit["note"].startswith("Under ALiBi there is no encoding matrix")


def test_an_embed_of_rope_scores_every_pair_k_apart_the_same(visit):
    assert visit["embed_load"]["interactive"], visit["embed_load"]["error"]
    assert visit["embed_drawn"] and visit["moved"]
    assert visit["embed_headers"] == 0
    assert len(visit["scores"]) == 5 and len(set(visit["scores"])) == 1
    assert visit["scores_after"] == visit["scores"]


def test_bad_method_values_get_a_notice_and_a_default(visit):
    assert visit["bad_load"]["interactive"], visit["bad_load"]["error"]
    assert visit["bad_notice"]
    assert "method: 'xyz' is not one of sinusoidal, rope, alibi, none" in visit["notice"]
    assert "heads: 1000000000 is outside 1 … 64; used the nearest value 64" in visit["notice"]
    assert visit["current_method"].startswith("sinusoidal")


def test_console_has_no_errors(visit):
    errors = [e for e in visit["console_errors"] if "favicon.ico" not in e["url"] + e["text"]]
    assert errors == []

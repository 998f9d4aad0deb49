"""The method control in the real Pyodide build, offline: switch, embed, bad values."""

from __future__ import annotations

import pytest
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)
from test_pyodide_site import DEEP_TEXT_JS

pytestmark = pytest.mark.pyodide

EMBED_QUERY = "view=rope&embed=1&method=rope&pos=7&offset=3&seed=4"
BAD_QUERY = "method=xyz&heads=1000000000&view=methods&embed=1"
# Every readout of the RoPE view that must agree: the live score and the other pairs k apart.
ROPE_SCORES_JS = """() => ['.pe-rope-score', '.pe-rope-other', '.pe-rope-offset-only']
  .flatMap((selector) => __offline.deep(selector).map((e) => e.textContent.trim()))"""


def steps(site) -> dict:
    """Switch the method, then open an embed of RoPE and a link with bad values."""
    record = {}
    text = lambda selector: site.page.evaluate(DEEP_TEXT_JS, selector)  # noqa: E731
    site.page.locator(".pe-control-method button", has_text="ALiBi").first.click()
    record["switched"] = wait_for(
        site,
        "() => location.search.includes('method=alibi') && "
        "(__offline.text('.pe-method-note') || '').startsWith('Under ALiBi')",
    )
    # The first note is the first card's: the encoding matrix.
    record["note"] = text(".pe-method-note")
    record["search"] = site.page.evaluate("location.search")

    record["embed_load"] = site.goto(f"?{EMBED_QUERY}")
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

    record["bad_load"] = site.goto(f"?{BAD_QUERY}")
    record["bad_notice"] = wait_for(
        site, "() => (__offline.text('.pe-notices') || '').includes('heads')"
    )
    record["notice"] = text(".pe-notices")
    record["current_method"] = text("table.pe-methods tr.pe-current")
    return record


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

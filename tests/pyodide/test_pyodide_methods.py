"""The method control in the real Pyodide build, offline: switching it on the page, embeds of
RoPE, of the methods chart and of a view a method lacks, and a link with bad values."""

from __future__ import annotations

import pytest
from browser_support import (
    choose_method,
    is_shown,
    look_at,
    query_of,
    text,
    wait_for_text,
    wait_until,
)
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = ""

EMBED_QUERY = "view=rope&embed=1&method=rope&pos=7&offset=3&seed=4"
# The methods chart alone; heads beyond its bounds only adds a notice the chart does not need.
METHODS_EMBED_QUERY = "view=methods&embed=1&method=none&train_length=20&heads=1000000000"
LACKING_QUERY = "view=dotproduct&embed=1&method=alibi"
BAD_QUERY = "method=xyz&heads=0&seed=abc&train_length=1e9"
# Every readout of the RoPE view that must agree: the live score and the other pairs k apart.
ROPE_SCORES_JS = """() => ['.pe-rope-score', '.pe-rope-other', '.pe-rope-offset-only']
  .flatMap((selector) => __offline.deep(selector).map((e) => e.textContent.trim()))"""
ROPE_SCORE_JS = "() => (__offline.text('.pe-rope-score') || '')"
HEATMAP_PLOT = ".pe-view-heatmap .js-plotly-plot"
HEATMAP_NOTE = ".pe-view-heatmap .pe-method-note"
CURRENT_ROW = ".pe-view-methods tr.pe-current"
WAIT_S = 60  # the worker redraws every card a method touches


def switch_the_method(page) -> dict:
    """ALiBi, RoPE, then Sinusoidal again on the full page: what each view and the URL show."""
    seen = {}
    wait_until(page, lambda: is_shown(page, HEATMAP_PLOT), WAIT_S, "the heatmap drawn")
    choose_method(page, "ALiBi")
    wait_until(page, lambda: query_of(page).get("method") == "alibi", WAIT_S, "method=alibi")
    seen["alibi_note"] = wait_for_text(page, HEATMAP_NOTE, lambda t: "ALiBi" in t, WAIT_S)
    wait_until(page, lambda: not is_shown(page, HEATMAP_PLOT), WAIT_S, "the heatmap hidden")
    look_at(page, "methods")
    seen["alibi_row"] = wait_for_text(page, CURRENT_ROW, lambda t: "ALiBi" in t, WAIT_S)
    # Views RoPE shares with the sinusoidal encoding draw again under RoPE; the matrix does not.
    choose_method(page, "RoPE")
    wait_until(page, lambda: query_of(page).get("method") == "rope", WAIT_S, "method=rope")
    seen["rope_row"] = wait_for_text(page, CURRENT_ROW, lambda t: t.startswith("RoPE"), WAIT_S)
    look_at(page, "waves")
    waves = ".pe-view-waves .js-plotly-plot"
    wait_until(page, lambda: is_shown(page, waves), WAIT_S, "the waves drawn")
    seen["waves_note"] = is_shown(page, ".pe-view-waves .pe-method-note")
    look_at(page, "heatmap")
    seen["rope_note"] = wait_for_text(page, HEATMAP_NOTE, lambda t: "RoPE" in t, WAIT_S)
    choose_method(page, "Sinusoidal")
    wait_until(page, lambda: is_shown(page, HEATMAP_PLOT), WAIT_S, "the heatmap back")
    wait_until(page, lambda: "method" not in query_of(page), WAIT_S, "the default left out")
    seen["sinusoidal_note"] = is_shown(page, HEATMAP_NOTE)
    return seen


def rope_embed(site) -> dict:
    """The RoPE embed's scores, after two steps of pos, and after a new seed."""
    seen = {}
    seen["drawn"] = wait_for(
        site,
        "() => (__offline.text('.pe-rope-positions') || '').startsWith('m = pos = 7 ') && "
        "__offline.text('.pe-rope-positions').endsWith('k = n − m = 3')",
    )
    seen["scores"] = site.page.evaluate(ROPE_SCORES_JS)
    seen["headers"] = site.page.evaluate("() => __offline.deep('.pe-header').length")
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", 2)
    seen["moved"] = wait_for(
        site, "() => (__offline.text('.pe-rope-positions') || '').startsWith('m = pos = 9 ')"
    )
    seen["scores_after"] = site.page.evaluate(ROPE_SCORES_JS)
    # A new seed draws another q and k: the score changes, and still agrees along k.
    score = site.page.evaluate(ROPE_SCORE_JS)
    site.page.locator(".pe-control-reseed").first.click()
    seen["reseeded"] = wait_for(
        site,
        f"() => location.search.includes('seed=5') && ({ROPE_SCORE_JS})() !== '' "
        f"&& ({ROPE_SCORE_JS})() !== {score!r}",
        timeout_s=WAIT_S,
    )
    seen["search"] = site.page.evaluate("location.search")
    seen["reseeded_scores"] = site.page.evaluate(ROPE_SCORES_JS)
    return seen


def methods_embed(page) -> dict:
    """The methods chart alone, under no method; then RoPE chosen in it."""
    seen = {"headers": page.locator(".pe-header").count()}
    seen["row"] = wait_for_text(page, CURRENT_ROW, lambda t: t.startswith("none"), WAIT_S)
    seen["train_length"] = text(page, ".pe-methods-train-length")
    seen["notice"] = text(page, ".pe-notices")
    choose_method(page, "RoPE")
    seen["rope_row"] = wait_for_text(page, CURRENT_ROW, lambda t: t.startswith("RoPE"), WAIT_S)
    wait_until(page, lambda: query_of(page).get("method") == "rope", WAIT_S, "method=rope")
    seen["query"] = query_of(page)
    return seen


def lacking_embed(page) -> dict:
    """An embed of the dot product matrix under ALiBi: its note, and its plot."""
    # Its one plot is never shown: wait for the note instead.
    note = wait_for_text(page, ".pe-method-note", lambda t: t != "", WAIT_S)
    return {"note": note, "plot": is_shown(page, ".pe-view-dotproduct .js-plotly-plot")}


def bad_link(page) -> dict:
    """The full page from a link with bad values: the notice, and what was used instead."""
    seen = {"notice": wait_for_text(page, ".pe-notices", lambda t: "method" in t, WAIT_S)}
    wait_until(page, lambda: is_shown(page, HEATMAP_PLOT), WAIT_S, "the heatmap drawn")
    look_at(page, "methods")
    seen["row"] = wait_for_text(page, CURRENT_ROW, lambda t: t != "", WAIT_S)
    look_at(page, "alibi")
    # One head, as the notice says: its slope is 2^(−8/1).
    seen["caption"] = wait_for_text(page, ".pe-alibi-caption", lambda t: t != "", WAIT_S)
    seen["slopes"] = page.locator(".pe-alibi-slope").all_inner_texts()
    return seen


def steps(site) -> dict:
    """Switch the method on the page; then open an embed of RoPE (pos stepped, a new seed), one
    of the methods chart (RoPE chosen in it), one of a view ALiBi lacks, and a bad link."""
    record = {"errors": {}}

    def attempt(name, part):
        """Run part; keep what it returns, or the error that stopped it."""
        try:
            record[name] = part()
        except Exception as error:  # a timeout of Playwright's as much as an assertion
            record["errors"][name] = f"{type(error).__name__}: {error}"

    def visit(name, query, part):
        record[f"{name}_load"] = load = site.goto(f"?{query}")
        if load["interactive"]:
            attempt(name, part)

    attempt("switch", lambda: switch_the_method(site.page))
    record["switch_search"] = site.page.evaluate("location.search")
    visit("rope", EMBED_QUERY, lambda: rope_embed(site))
    visit("methods_embed", METHODS_EMBED_QUERY, lambda: methods_embed(site.page))
    visit("lacking", LACKING_QUERY, lambda: lacking_embed(site.page))
    visit("bad", BAD_QUERY, lambda: bad_link(site.page))
    return record


def seen(visit, name: str) -> dict:
    """What the part called name saw, failing with its error if it stopped."""
    load = visit.get(f"{name}_load", visit["load"])
    assert load["interactive"], load["error"]
    assert name not in visit["errors"], visit["errors"][name]
    return visit[name]


def test_switching_the_method_updates_the_views_and_the_url(visit):
    """ALiBi hides the encoding matrix behind a note and marks ALiBi's first head in the methods
    table; RoPE draws the waves with no note and says why the matrix stays hidden; Sinusoidal
    draws the matrix again and leaves method out of the URL."""
    shown = seen(visit, "switch")
    assert shown["alibi_note"].startswith("Under ALiBi there is no encoding matrix")
    assert "head 1 (m = 1/2)" in shown["alibi_row"]
    assert shown["rope_row"].startswith("RoPE")
    assert not shown["waves_note"]
    assert "Under RoPE" in shown["rope_note"]
    assert not shown["sinusoidal_note"]
    assert "method" not in visit["switch_search"]


def test_an_embed_of_rope_scores_every_pair_k_apart_the_same(visit):
    """Every pair k apart scores the same, wherever pos is and after a new seed (seed=5 in the
    URL), which changes the score."""
    shown = seen(visit, "rope")
    assert shown["drawn"] and shown["moved"]
    assert shown["headers"] == 0
    assert len(shown["scores"]) == 5 and len(set(shown["scores"])) == 1
    assert shown["scores_after"] == shown["scores"]
    assert shown["reseeded"], shown["search"]
    assert "seed=5" in shown["search"]
    reseeded = shown["reseeded_scores"]
    assert len(reseeded) == 5 and len(set(reseeded)) == 1
    assert reseeded[0] != shown["scores"][0]


def test_an_embed_of_the_method_chart_switches_method_and_keeps_its_link(visit):
    """An embed of the methods chart (no header) shows the link's method and training length;
    choosing RoPE in it marks RoPE and writes method=rope into a URL that is still the embed's
    (what the embed tells a host page, as tests/pyodide/test_pyodide_embed_size.py checks)."""
    shown = seen(visit, "methods_embed")
    assert shown["headers"] == 0
    assert shown["row"].startswith("none")
    assert shown["train_length"] == "20"
    assert "heads: 1000000000 is outside 1 … 64; used the nearest value 64" in shown["notice"]
    assert shown["rope_row"].startswith("RoPE")
    assert shown["query"]["method"] == "rope"
    assert shown["query"]["view"] == "methods" and shown["query"]["embed"] == "1"


def test_an_embed_of_a_view_a_method_lacks_says_so_in_one_line(visit):
    """An embed of the dot product matrix under ALiBi says ALiBi has no PE·PEᵀ, and draws no
    plot."""
    shown = seen(visit, "lacking")
    assert shown["note"].startswith("Under ALiBi there is no PE·PEᵀ")
    assert not shown["plot"]


def test_bad_method_values_get_a_notice_and_a_default(visit):
    """A link with a bad method, heads, seed and training length says so for each, and the page
    uses the defaults (sinusoidal: the matrix drawn) or the nearest value (one ALiBi head)."""
    shown = seen(visit, "bad")
    notice = shown["notice"]
    assert "method: 'xyz' is not one of sinusoidal, rope, alibi, none" in notice
    assert "heads: 0 is outside 1 … 64; used the nearest value 1" in notice
    assert "seed: 'abc' is not a number" in notice
    assert "train_length" in notice
    assert shown["row"].startswith("sinusoidal")
    assert shown["caption"].startswith("1 head:")
    assert shown["slopes"] == ["0.003906250"]

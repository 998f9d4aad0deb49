"""The method control (sinusoidal, RoPE, ALiBi, none) in the served app, in Chromium."""

from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import ConsoleLog, look_at, text, wait_for_text, wait_until

pytestmark = pytest.mark.browser


def query_of(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def choose_method(page, label: str) -> None:
    page.locator(".pe-control-method button", has_text=label).first.click()


def shown(page, selector: str) -> bool:
    locator = page.locator(selector).first
    return locator.count() > 0 and locator.is_visible()


def test_switching_the_method_updates_the_views_and_the_url(open_app):
    page, log = open_app("")
    heatmap_plot = ".pe-view-heatmap .js-plotly-plot"
    assert shown(page, heatmap_plot)
    choose_method(page, "ALiBi")
    wait_until(page, lambda: query_of(page).get("method") == "alibi", what="method=alibi")
    note = wait_for_text(page, ".pe-view-heatmap .pe-method-note", lambda t: "ALiBi" in t)
    assert note.startswith("Under ALiBi there is no encoding matrix")
    wait_until(page, lambda: not shown(page, heatmap_plot), what="the heatmap hidden")
    look_at(page, "methods")
    current = wait_for_text(page, ".pe-view-methods tr.pe-current", lambda t: "ALiBi" in t)
    assert "head 1 (m = 1/2)" in current
    # Views RoPE shares with the sinusoidal encoding draw again under RoPE; the matrix does not.
    choose_method(page, "RoPE")
    wait_until(page, lambda: query_of(page).get("method") == "rope", what="method=rope")
    wait_for_text(page, ".pe-view-methods tr.pe-current", lambda t: t.startswith("RoPE"))
    look_at(page, "waves")
    wait_until(page, lambda: shown(page, ".pe-view-waves .js-plotly-plot"), what="waves drawn")
    assert not shown(page, ".pe-view-waves .pe-method-note")
    look_at(page, "heatmap")
    assert "Under RoPE" in text(page, ".pe-view-heatmap .pe-method-note")
    choose_method(page, "Sinusoidal")
    wait_until(page, lambda: shown(page, heatmap_plot), what="the heatmap back")
    wait_until(page, lambda: "method" not in query_of(page), what="the default left out")
    assert not shown(page, ".pe-view-heatmap .pe-method-note")
    assert log.relevant_errors() == []


def test_rope_scores_k_apart_agree_wherever_pos_is(open_app):
    page, log = open_app("?view=rope&embed=1&method=rope&pos=7&offset=3&seed=4")
    score = wait_for_text(page, ".pe-rope-score", lambda t: t != "")
    others = page.locator(".pe-rope-other").all_inner_texts()
    assert len(others) == 3 and set(others) == {score}
    assert text(page, ".pe-rope-offset-only") == score
    page.locator(".pe-control-pos .noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    wait_for_text(page, ".pe-rope-positions", lambda t: t.startswith("m = pos = 8 "))
    assert text(page, ".pe-rope-score") == score
    # A new seed draws another q and k: the score changes, and still agrees along k.
    page.locator(".pe-control-reseed").first.click()
    wait_until(page, lambda: query_of(page).get("seed") == "5", what="seed=5 in the URL")
    new_score = wait_for_text(page, ".pe-rope-score", lambda t: t != score)
    assert set(page.locator(".pe-rope-other").all_inner_texts()) == {new_score}
    assert log.relevant_errors() == []


def test_an_embed_of_the_method_chart_switches_method_and_tells_its_host(open_app):
    page, log = open_app("?view=methods&embed=1&method=none&train_length=20", viewport=(700, 900))
    assert page.locator(".pe-header").count() == 0
    wait_for_text(page, ".pe-view-methods tr.pe-current", lambda t: t.startswith("none"))
    assert text(page, ".pe-methods-train-length") == "20"
    choose_method(page, "RoPE")
    wait_for_text(page, ".pe-view-methods tr.pe-current", lambda t: t.startswith("RoPE"))
    wait_until(page, lambda: query_of(page).get("method") == "rope", what="method=rope")
    assert query_of(page)["view"] == "methods" and query_of(page)["embed"] == "1"
    assert log.relevant_errors() == []


def test_an_embed_of_a_view_a_method_lacks_says_so_in_one_line(browser, served_app):
    context = browser.new_context(viewport={"width": 600, "height": 500})
    page = context.new_page()
    log = ConsoleLog(page)
    page.goto(served_app + "?view=dotproduct&embed=1&method=alibi")
    # Its one plot is never shown: wait for the note instead.
    page.locator(".pe-method-note").first.wait_for(timeout=30_000)
    note = wait_for_text(page, ".pe-method-note", lambda t: t != "")
    assert note.startswith("Under ALiBi there is no PE·PEᵀ")
    assert not shown(page, ".pe-view-dotproduct .js-plotly-plot")
    assert log.relevant_errors() == []
    context.close()


def test_bad_method_values_get_a_notice_and_a_default(open_app):
    page, log = open_app("?method=xyz&heads=0&seed=abc&train_length=1e9")
    notice = wait_for_text(page, ".pe-notices", lambda t: "method" in t)
    assert "method: 'xyz' is not one of sinusoidal, rope, alibi, none" in notice
    assert "heads: 0 is outside 1 … 64; used the nearest value 1" in notice
    assert "seed: 'abc' is not a number" in notice
    assert "train_length" in notice
    assert shown(page, ".pe-view-heatmap .js-plotly-plot")
    look_at(page, "alibi")
    # One head, as the notice says: its slope is 2^(−8/1).
    caption = wait_for_text(page, ".pe-alibi-caption", lambda t: t != "")
    assert caption.startswith("1 head:")
    assert page.locator(".pe-alibi-slope").all_inner_texts() == ["0.003906250"]
    assert log.relevant_errors() == []

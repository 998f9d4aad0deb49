"""The live region in the real Pyodide build, offline: a burst of key presses is read once, where
it ended, and a visitor's sentence is read as text, never made into HTML. Then, in the tokens
view, sentences typed by a visitor: their words become chips that set pos, and a hostile one is
shown as text and never runs."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from browser_support import next_frame, page_idle, text, wait_for_text, wait_until
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)
from views_support import count, type_a_sentence

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = ""

# Counts every change of the live region's text from now on.
WATCH_JS = """() => {
  const region = __offline.deep('.pe-announcement')[0];
  window.__peAnnounced = [];
  new MutationObserver(() => window.__peAnnounced.push(region.textContent))
    .observe(region, {childList: true, characterData: true, subtree: true});
  return region.getAttribute('aria-live') + ' ' + region.getAttribute('role');
}"""
REGION_JS = """() => {
  const region = __offline.deep('.pe-announcement')[0];
  return {text: region.textContent, elements: region.children.length};
}"""
# How long the tokens view may take to catch up in the worker (a served test waits 10 s).
WAIT_S = 60
HOSTILE = "<img src=x onerror=alert(1)> <b>bold</b>"


def hostile_sentence(page) -> dict:
    """Type a sentence of HTML and click its last word: what the page shows of it, and whether
    any of it became elements."""
    type_a_sentence(page, HOSTILE, chips=4, timeout_s=WAIT_S)
    page.locator(".pe-token-chip-3 button").click()
    seen = {
        "step": wait_for_text(page, ".pe-tokens-step", lambda t: "“<b>bold</b>”" in t, WAIT_S),
        "chip": text(page, ".pe-token-chip-0 button"),
        "row": page.locator(".pe-token-row").nth(0).inner_text().split("\t")[1],
    }
    # All the worker sent is on the page, and drawn: any element made of the text is there.
    page_idle(page, WAIT_S, what="the worker after the sentence")
    next_frame(page)
    seen["images"] = count(page, 'img[src="x"]')
    seen["bold"] = count(page, "b", "bold")
    return seen


def typed_sentence(page) -> dict:
    """Type "dog bites man", click "man" (pos), then press Enter on "dog" to set pos + k. This
    page (?view=tokens) has no pos or k slider: the state is read from the URL."""
    type_a_sentence(page, "dog bites man", chips=3, timeout_s=WAIT_S)
    page.locator(".pe-token-chip-2 button").click()
    step = wait_for_text(page, ".pe-tokens-step", lambda t: "“man”" in t and "PE(2)" in t, WAIT_S)
    wait_until(page, lambda: url_state(page)["pos"] == "2", WAIT_S, what="pos=2 in the URL")
    seen = {"step": step, "url": url_state(page)}
    page.locator(".pe-token-mode button", has_text="pos + k").click()
    page.locator(".pe-token-chip-0 button").focus()
    page.keyboard.press("Enter")
    wait_until(page, lambda: url_state(page)["offset"] == "-2", WAIT_S, what="offset=-2")
    page_idle(page, WAIT_S, what="the worker after the Enter")
    seen["url_after"] = url_state(page)
    seen["step_after"] = text(page, ".pe-tokens-step")
    seen["rows"] = [page.locator(".pe-token-row").nth(i).get_attribute("class") for i in range(3)]
    return seen


def url_state(page) -> dict:
    """pos and offset as the page's URL has them (None when absent)."""
    query = parse_qs(page.evaluate("location.search").lstrip("?"))
    return {key: query.get(key, [None])[0] for key in ("pos", "offset")}


def steps(site) -> dict:
    """Watch the live region while keys step pos, then while a typed sentence is shown; then
    type two sentences into the tokens view (the hostile one first, while a click sets pos)."""
    record = {"errors": {}}
    site.settle(settle_ms=1500)
    record["region"] = site.page.evaluate(WATCH_JS)
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", 3)
    site.settle(settle_ms=2500)
    record["announced"] = site.page.evaluate("() => window.__peAnnounced")
    site.goto("?view=tokens&text=%3Cb%3Ebold%3C%2Fb%3E%20words&pos=0")
    site.settle(settle_ms=1500)
    site.page.evaluate(WATCH_JS)
    site.press(".pe-control-d-model .noUi-handle", "ArrowLeft", 1)
    assert wait_for(site, "() => window.__peAnnounced.length > 0", timeout_s=30)
    record["sentence"] = site.page.evaluate(REGION_JS)
    for name, part in (("hostile", hostile_sentence), ("typed", typed_sentence)):
        try:
            record[name] = part(site.page)
        except Exception as error:  # noqa: BLE001 (kept for the part's test to report)
            record["errors"][name] = f"{type(error).__name__}: {error}"
    return record


def test_the_region_is_polite_status(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["region"] == "polite status"


def test_three_steps_are_read_once_where_they_ended(visit):
    announced = visit["announced"]
    assert len(announced) == 1, announced
    assert "row 10 highlighted" in announced[0]  # pos 7 + 3


def test_a_typed_sentence_is_read_as_text(visit):
    sentence = visit["sentence"]
    assert "<b>bold</b>" in sentence["text"]
    assert sentence["elements"] == 0


def test_typing_a_sentence_makes_chips_and_a_click_sets_pos(visit):
    """Three words make three chips; a click on "man" sets pos 2, and Enter on "dog" in the
    pos + k mode sets k = −2, leaving pos and its row where they were."""
    assert "typed" not in visit["errors"], visit["errors"]["typed"]
    seen = visit["typed"]
    assert seen["url"]["pos"] == "2"
    assert seen["url_after"] == {"pos": "2", "offset": "-2"}
    assert "“man”" in seen["step_after"] and "PE(2)" in seen["step_after"]
    current, second = "pe-token-current", "pe-token-second"
    assert [current in row for row in seen["rows"]] == [False, False, True]
    assert [second in row for row in seen["rows"]] == [True, False, False]


def test_hostile_sentence_is_shown_as_text_and_never_runs(visit):
    """A sentence of HTML is shown as its characters, in the chips, the table and the equation:
    no image, no bold element, no dialog."""
    assert "hostile" not in visit["errors"], visit["errors"]["hostile"]
    seen = visit["hostile"]
    assert "“<b>bold</b>”" in seen["step"]
    assert seen["chip"] == seen["row"] == "<img"
    assert seen["images"] == 0
    assert seen["bold"] == 0
    assert visit["dialogs"] == []

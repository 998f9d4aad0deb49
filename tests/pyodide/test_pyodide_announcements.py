"""The live region in the real Pyodide build, offline: a burst of key presses is read once, where
it ended, and a visitor's sentence is read as text, never made into HTML."""

from __future__ import annotations

import pytest
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

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


def steps(site) -> dict:
    """Watch the live region while keys step pos, then while a typed sentence is shown."""
    record = {}
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

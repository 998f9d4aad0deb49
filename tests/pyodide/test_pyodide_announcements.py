"""The live region in the real Pyodide build, offline: a burst of key presses is read once, where
it ended, and a visitor's sentence is read as text, never made into HTML."""

from __future__ import annotations

import pytest
from pyodide_support import offline_site, visit_offline, wait_for

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


def drive(site_dir) -> dict:
    record = {}
    with offline_site.open_offline_site(site_dir, "index.html") as site:
        assert site.interactive, site.load["error"]
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
        record["errors"] = site.console_errors()
    return record


@pytest.fixture(scope="module")
def record(request):
    return visit_offline(request, drive)


def test_the_region_is_polite_status(record):
    assert record["region"] == "polite status"


def test_three_steps_are_read_once_where_they_ended(record):
    announced = record["announced"]
    assert len(announced) == 1, announced
    assert "row 10 highlighted" in announced[0]  # pos 7 + 3


def test_a_typed_sentence_is_read_as_text(record):
    sentence = record["sentence"]
    assert "<b>bold</b>" in sentence["text"]
    assert sentence["elements"] == 0


def test_console_has_no_errors(record):
    assert record["errors"] == []

"""The static site running in Pyodide, offline: the pos slider drives the readout through the
worker, and the console stays clean. Uses the harness in ../shared/pyodide-offline."""

from __future__ import annotations

import re

import pytest
from pyodide_support import test_console_has_no_errors  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

POS_HANDLE = ".pe-control-pos .noUi-handle"
POS_READOUT = ".pe-pos-readout"
PRESSES = 3
# Text of the first match of a selector, looking through shadow roots (Panel renders a pane's
# content in its shadow root, where textContent does not reach) and skipping <style>/<script>.
DEEP_TEXT_JS = """(selector) => {
  const element = window.__offline.deep(selector)[0];
  if (!element) return null;
  const parts = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { parts.push(node.data); return; }
    if (node.nodeName === 'STYLE' || node.nodeName === 'SCRIPT') return;
    if (node.shadowRoot) walk(node.shadowRoot);
    node.childNodes.forEach(walk);
  };
  walk(element);
  return parts.join(' ').replace(/\\s+/g, ' ').trim();
}"""


def steps(site) -> dict:
    """Press ArrowRight on the pos slider, and record what happened."""
    record = {"readout_before": site.page.evaluate(DEEP_TEXT_JS, POS_READOUT)}
    site.press(POS_HANDLE, "ArrowRight", PRESSES)
    # Generous: the worker reports idle before Python has run the callbacks.
    record["interaction"] = site.settle(settle_ms=3000)
    record["readout_after"] = site.page.evaluate(DEEP_TEXT_JS, POS_READOUT)
    return record


def shown_pos(readout: str | None) -> int:
    """The position a readout text shows ("pos = 7 · ...")."""
    match = re.search(r"\bpos\s*=\s*(\d+)", readout or "")
    assert match, f"{POS_READOUT} shows {readout!r}"
    return int(match[1])


def test_site_becomes_interactive(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]


def test_arrow_keys_on_the_pos_slider_move_the_readout(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    interaction = visit["interaction"]
    assert interaction["settled"], interaction["error"]
    assert interaction["patch_after_last_input"], "the worker did not answer the key presses"
    assert shown_pos(visit["readout_after"]) == shown_pos(visit["readout_before"]) + PRESSES

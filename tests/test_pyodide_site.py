"""The static site running in Pyodide, offline: the pos slider drives the readout through the
worker, and the console stays clean. Uses the harness in ../shared/pyodide-offline."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

SHARED_OFFLINE = Path(__file__).resolve().parents[2] / "shared" / "pyodide-offline"
if SHARED_OFFLINE.is_dir() and str(SHARED_OFFLINE) not in sys.path:
    sys.path.insert(0, str(SHARED_OFFLINE))

offline_site = pytest.importorskip(
    "offline_site",
    reason=f"the offline Pyodide harness (offline_site.py) is not at {SHARED_OFFLINE}",
)

pytestmark = pytest.mark.pyodide

POS_HANDLE = ".noUi-handle"  # the first slider on the page is pos
POS_READOUT = ".pe-pos-readout"
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


@pytest.fixture(scope="module")
def site(request):
    """The built site, open in offline headless Chromium and interactive."""
    if not os.environ.get("PYODIDE_MIRROR"):
        pytest.skip("PYODIDE_MIRROR is not set (see ../shared/pyodide-offline/README.md)")
    missing = offline_site.missing_prerequisites()
    if missing:
        pytest.skip("; ".join(missing))
    site_dir = request.getfixturevalue("site_dir")
    with offline_site.open_offline_site(site_dir, "index.html") as site:
        assert site.interactive, site.load["error"]
        yield site


def shown_pos(site) -> int:
    """The position the readout shows."""
    text = site.page.evaluate(DEEP_TEXT_JS, POS_READOUT)
    match = re.search(r"pos\s*=\s*(\d+)", text or "")
    assert match, f"{POS_READOUT} shows {text!r}"
    return int(match[1])


def test_arrow_keys_on_the_pos_slider_move_the_readout(site):
    before = shown_pos(site)
    site.press(POS_HANDLE, "ArrowRight", 3)
    # Generous: the worker reports idle before Python has run the callbacks.
    interaction = site.settle(settle_ms=3000)
    assert interaction["settled"], interaction["error"]
    assert interaction["patch_after_last_input"], "the worker did not answer the key presses"
    assert shown_pos(site) == before + 3


def test_every_request_is_served(site):
    assert site.not_found() == []


def test_console_has_no_errors(site):
    errors = [e for e in site.console_errors() if "favicon.ico" not in e["url"] + e["text"]]
    assert errors == []

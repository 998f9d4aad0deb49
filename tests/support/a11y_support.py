"""Accessibility checks of a page: axe-core run in it, the whole page scrolled through first so
every lazily drawn card is there to check, and full-page screenshots.

axe-core is pinned at AXE_VERSION and fetched from npm by `./build.sh setup` into .cache/npm
(git-ignored); the tests read it from there and never from a CDN.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from browser_support import next_frame, page_idle

REPO_ROOT = Path(__file__).resolve().parents[2]
AXE_VERSION = "4.14.1"
AXE_PACKAGE = REPO_ROOT / ".cache" / "npm" / "node_modules" / "axe-core"
AXE_JS = AXE_PACKAGE / "axe.min.js"
# WCAG 2.0, 2.1 and 2.2, levels A and AA (axe's tags: https://github.com/dequelabs/axe-core/blob/develop/doc/API.md#axe-core-tags)
# The page's controls in the order Tab reaches them (the served app and the Pyodide build).
CONTROLS = [
    "pe-theme",
    "pe-share-toggle",
    "pe-export-toggle",
    "pe-control-method",
    "pe-play",
    "pe-play-target",
    "pe-play-speed",
    "pe-control-pos",
    "pe-control-offset",
    "pe-control-d-model",
    "pe-preset-16",
    "pe-control-n-positions",
    "pe-control-base",
    "pe-control-layout",
    "pe-control-similarity",
]
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# Rules switched off, each for a named false positive: rule id -> why, with a link. Empty: every
# violation axe reports is the page's to fix.
DISABLED_RULES: dict[str, str] = {}
TARGETS_SHOWN = 3  # per rule, in an assertion message


def axe_missing() -> str | None:
    """Why axe-core cannot be used here, or None."""
    package = AXE_PACKAGE / "package.json"
    if not AXE_JS.is_file() or not package.is_file():
        return f"axe-core is not in {AXE_PACKAGE.parent}: run ./build.sh setup (npm install)"
    version = json.loads(package.read_text()).get("version")
    if version != AXE_VERSION:
        return f"axe-core {version} in {AXE_PACKAGE}, not {AXE_VERSION}: run ./build.sh setup"
    return None


# Runs axe on the whole document (open shadow roots included) and keeps what a failure message
# needs: the rule, its impact and help, and for each node its target (a list of selectors, one
# per shadow root on the way) and axe's summary of what to fix.
RUN_AXE_JS = """async (options) => {
  const results = await window.axe.run(document, options);
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    helpUrl: v.helpUrl,
    nodes: v.nodes.map((n) => ({
      target: n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : String(t))),
      summary: (n.failureSummary || '').replace(/\\s+/g, ' ').trim(),
      html: n.html.slice(0, 160),
    })),
  }));
}"""


def run_axe(page, disabled: dict[str, str] | None = None) -> list[dict]:
    """axe-core's WCAG 2.x A/AA violations of the page as it is now: [{id, impact, help,
    helpUrl, nodes: [{target, summary, html}]}]. `disabled`: rule id -> why (false positives),
    on top of DISABLED_RULES."""
    missing = axe_missing()
    if missing:
        raise RuntimeError(missing)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=AXE_JS.read_text())
    rules = {rule: {"enabled": False} for rule in {**DISABLED_RULES, **(disabled or {})}}
    options = {
        "runOnly": {"type": "tag", "values": WCAG_TAGS},
        "resultTypes": ["violations"],
        "rules": rules,
    }
    return page.evaluate(RUN_AXE_JS, options)


def describe(violations: list[dict], where: str = "") -> str:
    """An assertion message: per rule, its impact, what it asks, and the first targets with
    axe's summary of what is wrong there."""
    if not violations:
        return f"{where}: no violations" if where else "no violations"
    lines = [f"{where}: {len(violations)} axe rule(s) violated" if where else ""]
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}, {len(v['nodes'])} node(s)): {v['help']}")
        lines.append(f"  {v['helpUrl']}")
        for node in v["nodes"][:TARGETS_SHOWN]:
            lines.append(f"  at {' >>> '.join(node['target'])}")
            lines.append(f"     {node['summary'][:300]}")
        if len(v["nodes"]) > TARGETS_SHOWN:
            lines.append(f"  … and {len(v['nodes']) - TARGETS_SHOWN} more")
    return "\n".join(line for line in lines if line)


# Elements that stand for something not drawn yet: a view's placeholder (ui/lazy_views.py)
# and a deferred card's frame (components/ui/page.py), searched through every shadow root.
PENDING_JS = """() => {
  let pending = 0;
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.classList && (e.classList.contains('pe-placeholder')
                        || e.classList.contains('pe-card-frame'))) pending += 1;
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(document);
  return pending;
}"""


def scroll_through(page, timeout_s: float = 90, quiet_ms: int = 1000) -> int:
    """Scroll from the top to the bottom a screen at a time, as a reader would, until every lazily
    drawn card is drawn and the page is idle (page_idle: in the Pyodide build, the worker idle and
    nothing changed for quiet_ms); then back to the top, idle again.
    Returns how many elements still stood for something not drawn (0 when all were drawn)."""
    deadline = time.monotonic() + timeout_s
    page.evaluate("() => window.scrollTo(0, 0)")
    while time.monotonic() < deadline:
        at_bottom = page.evaluate(
            """() => {
              const root = document.scrollingElement || document.documentElement;
              window.scrollBy(0, Math.max(100, window.innerHeight * 0.8));
              return window.scrollY + window.innerHeight >= root.scrollHeight - 2;
            }"""
        )
        # A card's probe hears that the card came on screen at the next frame, and tells Python.
        next_frame(page)
        next_frame(page)
        if not at_bottom:
            continue
        # At the bottom: once Python has built what the probes asked for, every card is drawn,
        # or some came on screen only as the page grew: go over the page again.
        idle(page, deadline, quiet_ms)
        if page.evaluate(PENDING_JS) == 0:
            break
        page.evaluate("() => window.scrollTo(0, 0)")
    idle(page, deadline, quiet_ms)  # still busy: axe checks the page as it is, the caller decides
    pending = page.evaluate(PENDING_JS)
    page.evaluate("() => window.scrollTo(0, 0)")
    next_frame(page)
    idle(page, deadline, quiet_ms)
    return pending


def idle(page, deadline: float, quiet_ms: int) -> bool:
    """page_idle, within what is left of the time: whether the page went idle."""
    try:
        page_idle(page, timeout_s=max(1, deadline - time.monotonic()), quiet_ms=quiet_ms)
    except AssertionError:
        return False
    return True


def screenshot(page, path: Path) -> Path:
    """A full-page PNG of the page as it is now, at path (its folder made if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True, animations="disabled")
    return path


# A slider's track (noUiSlider's base, else the handle's parent), as the harness finds it.
TRACK_JS = """(handle) => {
  const track = handle.closest('.noUi-base') || handle.parentElement;
  const box = track.getBoundingClientRect();
  return {x: box.x, width: box.width};
}"""


def touch_drag(page, selector: str, to: float = 0.6, steps: int = 12, scroll=True) -> None:
    """Drag the first handle matching selector with one finger (CDP touch events, as a phone's
    touchscreen sends them) to fraction `to` of its track; scrolled to first, unless not."""
    handle = page.locator(selector).first
    if scroll:
        handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    track = handle.evaluate(TRACK_JS)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    end = track["x"] + track["width"] * to
    cdp = page.context.new_cdp_session(page)
    try:
        events = [("touchStart", x)]
        events += [("touchMove", x + (end - x) * step / steps) for step in range(1, steps + 1)]
        for kind, at in events:
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": at, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()

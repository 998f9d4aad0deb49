"""Works around Panel's HTML pane offering no way to reach its content by keyboard when it scrolls.

Upstream: none found; report text: docs/upstream.md, "Scroll regions".

Wide readouts, tables and code scroll sideways on a phone (`overflow-x: auto`, on the pane's
host or inside it), and a region that scrolls must take focus so that a keyboard can scroll it
(WCAG 2.1.1; axe-core's scrollable-region-focusable). The pane's host lives in its parent's
shadow root, out of reach of its own HTML. Here every HTML pane, after each new content and
each resize, gives `tabindex="0"` to whichever of its host and its elements scrolls sideways,
and takes it back when it no longer does.
"""

from __future__ import annotations

from pathlib import Path

# The script that does it, installed with the others by fixes/browser.py.
SCRIPT = Path(__file__).parents[1] / "js" / "fixes" / "scroll_regions.js"

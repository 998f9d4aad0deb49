"""The explorer's icon, given inline (as a data URI) by the static site and the served page.

Both pages put every control in their URL and rewrite it on each step (history.replaceState).
Chromium asks for the page's icon again after each rewrite: with a linked icon that was one
request per slider step (the served page's `favicon.ico`, 15 KB, which Bokeh sends without
cache headers; the static site's `static/favicon.svg`). An inline icon is never fetched.
"""

from __future__ import annotations

import base64
from pathlib import Path

ICON = Path(__file__).resolve().parents[2] / "static" / "favicon.svg"


def icon_data_uri(path: Path = ICON) -> str | None:
    """The icon as a data URI, or None where it is not shipped (the Pyodide wheel)."""
    try:
        svg = path.read_bytes()
    except OSError:
        return None
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")

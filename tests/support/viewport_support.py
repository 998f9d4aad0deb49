"""Work follows the visitor's eyes: what a test reads to tell whether a view waits off screen,
catches up when scrolled to, and draws each plot once per step."""

from __future__ import annotations

from browser_support import plots, text
from pe_explorer.ui.lazy_views import NEAR_PX

# Counts plotly_afterplot (one whole draw) per view card, from the moment it is installed.
COUNT_DRAWS_JS = """() => {
  const cards = {};
  const walk = (root, card) => root.querySelectorAll('*').forEach((e) => {
    const name = (String(e.className).match(/pe-view-(\\w+)/) || [])[1] || card;
    if (e.classList && e.classList.contains('js-plotly-plot') && name) {
      cards[name] = cards[name] || {plot: e};
    }
    if (e.shadowRoot) walk(e.shadowRoot, name);
  });
  walk(document, null);
  window.__draws = {};
  for (const [name, {plot}] of Object.entries(cards)) {
    window.__draws[name] = 0;
    plot.on('plotly_afterplot', () => { window.__draws[name] += 1; });
  }
  return Object.keys(cards);
}"""


def on_screen(page, view: str) -> bool:
    """Whether the view is on screen or within NEAR_PX of it (it is kept up to date then)."""
    box = page.locator(f".pe-view-{view}").first.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] < height + NEAR_PX and box["y"] + box["height"] > -NEAR_PX


def titles(page, start: str) -> list[str]:
    """The titles of the plots drawn that start with start."""
    return [p["title"] for p in plots(page) if p["title"].startswith(start)]


def placeholder_text(page, view: str) -> str:
    """What the view's placeholder says, or "" once the view took its place."""
    placeholder = page.locator(f".pe-view-{view} .pe-placeholder")
    return text(page, f".pe-view-{view} .pe-placeholder") if placeholder.count() else ""

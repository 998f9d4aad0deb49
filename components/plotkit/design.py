"""ExplorerDesign: Panel's Native design plus what every component of the page needs for access:
a visible focus ring, no motion for visitors who ask for none, and handles that touch can drag."""

from __future__ import annotations

from panel.theme import Inherit, Native
from panel.viewable import Viewable

# In every component's shadow root (Panel applies a design's stylesheets to each one). The ring's
# colour comes from the page (theme.page_styles), so it contrasts with either theme's background.
ACCESS_STYLE = """
:focus-visible { outline: 3px solid var(--pe-focus, #1d4ed8) !important; outline-offset: 2px; }
.noUi-handle { touch-action: none; }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { transition: none !important; animation: none !important;
                           scroll-behavior: auto !important; }
}
"""


class ExplorerDesign(Native):
    """Panel's Native design, with ACCESS_STYLE in every component."""

    modifiers = {Viewable: {"stylesheets": [Inherit, ACCESS_STYLE]}}

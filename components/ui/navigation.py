"""Finding one's way: the page's table of contents, the cards' anchors (#heatmap, …), and the
phone's layout: a bar that opens the contents and the controls, and text of at least 14 px."""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param
from panel.custom import JSComponent

from ..plotkit.narrow import NARROW_PX

# The widest screen laid out as a phone: one column, with the controls folded into a bar, and
# the views' charts stacked (plotkit/narrow.py).
PHONE_MAX_PX = NARROW_PX

# The phone's bar at the top (Views, Controls), which a heading scrolled to must clear (px).
TOP_BAR_PX = 76

# A card's heading is its anchor: id = its ?view= name, reachable by focus (tabindex=-1).
HEADING_CLASS = "pe-card-heading"


def card_heading(name: str, title: str) -> str:
    """The heading of the card of the view called name: the target of #name and of the
    table of contents."""
    return f'<h2 id="{name}" class="{HEADING_CLASS}" tabindex="-1">{title}</h2>'


# The headings sit below the phone's sticky bar when scrolled to.
HEADING_STYLE = f"""
h2.{HEADING_CLASS} {{ scroll-margin-top: 8px; }}
@media (max-width: {PHONE_MAX_PX}px) {{
  h2.{HEADING_CLASS} {{ scroll-margin-top: {TOP_BAR_PX}px; }}
}}
"""

# Text on a phone: at least 14 px (Bokeh's widgets and panes follow --bokeh-font-size, 12 px by
# default). On the page's root; custom properties reach into every shadow root below it.
PHONE_TEXT_STYLE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{ :host {{ --bokeh-font-size: 14px; }} }}
"""

# On a phone the sliders a reader drags most (pos and k) stay at the bottom of the screen, under
# the thumb, whether the controls are open or not: the chart they move stays in view above them.
THUMB_CONTROLS = ("pos", "offset")
THUMB_BAR_CLASS = "pe-thumb-bar"
# How much of the screen's bottom the bar takes (px, at most): the page leaves that much room
# below its last card, and a focused control is scrolled clear of it (WCAG 2.2, 2.4.11).
THUMB_BAR_PX = 150
# The sidebar on a phone: a full-width bar that stays at the top of the window, its controls
# folded away until the bar's Controls button opens them (CardNavigator sets data-pe-open).
# !important: Panel writes the sidebar's wide-screen styles on the element itself.
SIDEBAR_PHONE_STYLE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{
  :host {{ flex: 1 1 100% !important; min-width: 0 !important; z-index: 10;
          background: var(--panel-background-color, #ffffff);
          box-shadow: 0 2px 6px rgba(0, 0, 0, 0.2); }}
  :host(:not([data-pe-open])) > :not(.pe-navigator):not(.{THUMB_BAR_CLASS}) {{
    display: none !important; }}
  :host([data-pe-open]) {{ max-height: 65vh !important; }}
}}
"""

THUMB_BAR_STYLE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{
  :host {{ position: fixed !important; left: 0; right: 0; bottom: 0; z-index: 20;
          width: auto !important; margin: 0 !important; max-height: {THUMB_BAR_PX}px;
          padding: 2px 4px calc(2px + env(safe-area-inset-bottom, 0px));
          background: var(--panel-background-color, #ffffff);
          border-top: 1px solid var(--pe-grid, #d1d5db);
          box-shadow: 0 -2px 6px rgba(0, 0, 0, 0.2); }}
}}
"""
# The room the bar needs below the page's last card.
THUMB_ROOM_STYLE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{ :host {{ padding-bottom: {THUMB_BAR_PX}px; }} }}
"""


def thumb_bar(*widgets) -> pn.Column:
    """The sliders of THUMB_CONTROLS, in the sidebar on a wide screen and at the bottom of a
    phone's (THUMB_BAR_STYLE)."""
    return pn.Column(
        *widgets,
        sizing_mode="stretch_width",
        margin=0,
        css_classes=[THUMB_BAR_CLASS],
        stylesheets=[THUMB_BAR_STYLE],
    )


NAVIGATOR_STYLE = f"""
:host {{ width: 100%; }}
.pe-bar {{ display: none; }}
.pe-toc h2, .pe-controls-heading {{ font-size: 1.15em; margin: 0.6em 10px 0.3em; }}
.pe-toc ul {{ list-style: none; margin: 0 10px; padding: 0; display: flex; flex-wrap: wrap;
             gap: 4px; }}
.pe-toc a {{ display: inline-block; box-sizing: border-box; min-height: 26px; padding: 3px 9px;
            border: 1px solid var(--pe-grid, #d1d5db); border-radius: 13px; color: inherit;
            font-size: 14px; line-height: 18px; text-decoration: none; }}
.pe-toc a:hover {{ text-decoration: underline; }}
@media (max-width: {PHONE_MAX_PX}px) {{
  .pe-bar {{ display: flex; gap: 8px; padding: 6px 10px; }}
  .pe-bar button {{ flex: 1 1 0; min-height: 44px; font: inherit; font-size: 16px;
                    color: inherit; background: var(--panel-surface-color, #f3f4f6);
                    border: 1px solid var(--pe-grid, #d1d5db); border-radius: 6px; }}
  .pe-bar button::after {{ content: " ▾"; }}
  .pe-bar button[aria-expanded="true"]::after {{ content: " ▴"; }}
  .pe-toc, .pe-controls-heading {{ display: none; }}
  .pe-toc.pe-open {{ display: block; }}
  .pe-toc h2 {{ display: none; }}
  .pe-toc ul {{ flex-direction: column; gap: 0; }}
  .pe-toc a {{ display: block; min-height: 44px; padding: 0 12px; border: 0; border-radius: 0;
              border-bottom: 1px solid var(--pe-grid, #d1d5db); font-size: 16px;
              line-height: 44px; }}
}}
"""


class CardNavigator(JSComponent):
    """The table of contents of the page's cards, and what takes a reader to a card.

    A card is reached by its link in the contents, by the address's #name (on load and on
    hashchange: the browser cannot reach an id inside Panel's shadow roots itself), and by a
    `pe-explorer:go` event on window ({view, focus}; the questions and the tour send it). The
    card is scrolled to, at once, so its probe reports it on screen and it draws, and its
    heading takes the focus. A card still a frame (ExplorerPage.defer_cards) is scrolled to,
    and its place kept until the card replaces the frame. On a phone it is a bar: Views opens
    the contents, Controls the sidebar it sits in.
    """

    views = param.List(default=[], doc="{name, short} of each card on the page, in order.")
    phone_width = param.Integer(
        default=PHONE_MAX_PX, constant=True, doc="The widest screen laid out as a phone (px)."
    )
    bottom_room = param.Integer(
        default=THUMB_BAR_PX, constant=True, doc="The most a phone's sliders' bar takes (px)."
    )

    _stylesheets = [NAVIGATOR_STYLE]

    _esm = Path(__file__).parents[1] / "js" / "card_navigator.js"

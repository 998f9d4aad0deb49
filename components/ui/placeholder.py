"""A view before it is drawn: its placeholder, made from its row of the view table, in the
frame of its card, laid out with the numbers of the page Python draws."""

from __future__ import annotations

from ..views import VIEWS, ViewSpec
from .navigation import HEADING_STYLE, card_heading

# The page Python draws (ExplorerPage): a sidebar of controls beside a box of view cards, which
# wrap two to a row from about 1060 px. The first paint, the frames before Python and the cards
# not built yet are laid out with the same numbers.
SIDEBAR_BASIS_PX = 300
SIDEBAR_MIN_PX = 260
VIEWS_BASIS_PX = 560
CARD_BASIS_PX = 520
CARD_MARGIN_PX = 5
CARD_PADDING_PX = 10
PAGE_PADDING_PX = 10
PLACEHOLDER_RADIUS_PX = 6
# Bokeh's font and size, for what is painted before its stylesheets arrive.
PAGE_FONT = (
    'font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif; '
    "font-size: 14px;"
)

DRAWN_WHEN_SEEN = "drawn when it comes into view"
# Before Python the page cannot know the link's numbers: the frames show none.
DRAWN_WHEN_PYTHON = "drawn for the settings in this link as soon as Python has started…"

# The page's title (the header's h1), and a card's heading and explanation.
PAGE_HEADING = "margin: 0.2em 0 0.3em; font-size: 1.7em;"
CARD_HEADING = "font-size: 1.15em; margin: 0.8em 0 0.2em;"
CARD_TEXT = "margin: 0 0 0.3em; line-height: 1.45; max-width: 48em;"
CARD_STYLE = f"h2 {{ {CARD_HEADING} }}\np {{ {CARD_TEXT} }}\n"

PLACEHOLDER_RULE = (
    ".pe-placeholder { display: flex; align-items: center; justify-content: center; "
    # The theme's text colour (html's --pe-text reaches into every shadow root): a fixed grey
    # failed the contrast rule on the dark page before the cards were drawn.
    "text-align: center; height: 100%; color: var(--pe-text, #1f2328); "
    "border: 1px dashed var(--pe-grid, #d1d5db); "
    f"border-radius: {PLACEHOLDER_RADIUS_PX}px; }}"
)
PLACEHOLDER_STYLE = f":host {{ width: 100%; }}\n{PLACEHOLDER_RULE}\n"

# Cards laid out as the page's are (VIEW_CARD in a FlexBox).
CARD_FRAMES_STYLE = f"""
.pe-card-frames {{ display: flex; flex-wrap: wrap; }}
.pe-card-frames > section {{ flex: 1 1 {CARD_BASIS_PX}px; min-width: 0; max-width: 100%;
  box-sizing: border-box; margin: {CARD_MARGIN_PX}px; padding: 0 {CARD_PADDING_PX}px; }}
"""
CARD_FRAMES_STYLESHEETS = [CARD_STYLE, HEADING_STYLE, PLACEHOLDER_STYLE, CARD_FRAMES_STYLE]

# The page before Python (static/startup.js puts it over the page Python draws, which stays
# hidden until it shows the link's state), in the document itself: its rules name their scope.
# An embed's frames fill its <iframe>, whose height is the view's embed_height.
BEFORE_PYTHON_STYLE = f"""
.pe-before-python {{ position: absolute; top: 0; left: 0; right: 0; z-index: 5;
  box-sizing: border-box; min-height: 100vh; padding: 0 {PAGE_PADDING_PX}px;
  color: var(--pe-text); background: var(--pe-paper); {PAGE_FONT} }}
.pe-before-python-embed {{ min-height: 0; padding: 0; }}
.pe-before-python h1 {{ {PAGE_HEADING} }}
.pe-before-python h2 {{ {CARD_HEADING} }}
.pe-before-python-embed section {{ display: flex; flex-direction: column; }}
.pe-before-python-embed .pe-placeholder {{ flex: 1 1 0; min-height: 0; }}
{PLACEHOLDER_RULE}
{CARD_FRAMES_STYLE}"""


def placeholder_html(spec: ViewSpec, embed: bool = False, before_python: bool = False) -> str:
    """What stands for a view until it is drawn (PLACEHOLDER_STYLE): a box of the view's height,
    or filling its frame when embedded before Python, saying when the view will be drawn."""
    when = DRAWN_WHEN_PYTHON if before_python else DRAWN_WHEN_SEEN
    size = "" if embed and before_python else f' style="height: {spec.height}px"'
    return f'<div class="pe-placeholder"{size}>{spec.title}: {when}</div>'


def card_frames_html(specs: list[ViewSpec]) -> str:
    """The cards of specs as they look before their views are drawn: heading, explanation and
    placeholder (CARD_STYLE, HEADING_STYLE, PLACEHOLDER_STYLE, CARD_FRAMES_STYLE)."""
    frames = "".join(
        f'<section class="pe-card-frame">{card_heading(spec.name, spec.title)}'
        f"<p>{spec.explanation}</p>{placeholder_html(spec)}</section>"
        for spec in specs
    )
    return f'<div class="pe-card-frames">{frames}</div>'


def before_python_frame_html(spec: ViewSpec, embed: bool) -> str:
    """The card of one view in the page before Python: its title and placeholder, no numbers.
    Embedded, as tall as the embed's <iframe> (its embed_height)."""
    size = f' style="height: {spec.embed_height - 2 * CARD_MARGIN_PX}px"' if embed else ""
    return (
        f'<section class="pe-before-python-{spec.name}"{size}><h2>{spec.title}</h2>'
        f"{placeholder_html(spec, embed, before_python=True)}</section>"
    )


def before_python_page_html(title: str, embed: bool) -> str:
    """The page before Python, its cards left out (static/startup.js adds those the link asks
    for): the page's title, unless embedded."""
    kind = "pe-before-python pe-before-python-embed" if embed else "pe-before-python"
    heading = "" if embed else f"<h1>{title}</h1>"
    return (
        f'<div class="{kind}" aria-busy="true"><style>{BEFORE_PYTHON_STYLE}</style>{heading}'
        '<div class="pe-card-frames"></div></div>'
    )


def before_python_frames(title: str) -> dict:
    """Every frame static/startup.js may draw before Python, as HTML written by this build: the
    page (with title) and the embed around the cards, and each view's card in both. A link
    only chooses among them."""
    return {
        "frames": {
            "page": before_python_page_html(title, embed=False),
            "embed": before_python_page_html(title, embed=True),
        },
        "views": [
            {
                "name": spec.name,
                "page": before_python_frame_html(spec, embed=False),
                "embed": before_python_frame_html(spec, embed=True),
            }
            for spec in VIEWS
        ],
    }

"""The page's first paint, made at build time: the default state's header and matrix, in HTML."""

from __future__ import annotations

import base64
import io

from pe_explorer.plotkit import theme
from pe_explorer.state import ExplorerState
from pe_explorer.ui.page import INTRODUCTION, PAGE_STYLE
from pe_explorer.ui.placeholder import (
    CARD_HEADING,
    CARD_TEXT,
    PAGE_FONT,
    PAGE_PADDING_PX,
    SIDEBAR_BASIS_PX,
    SIDEBAR_MIN_PX,
    VIEWS_BASIS_PX,
)
from pe_explorer.views import view_spec
from pe_explorer.views.heatmap import figure
from PIL import Image  # Pillow comes with Bokeh; the site's wheel never imports it

# The build (scripts/panel_output.py) writes the first paint into the page's first Bokeh root,
# where it is shown before any script has run (no shadow roots before Bokeh runs). Bokeh appends
# the prerendered page after it, and the first rule hides it from then on. The picture sits
# where the heatmap's plot area will be.
FIRST_PAINT_STYLE = f"""
[data-root-id] > .pe-first-paint:not(:last-child) {{ display: none; }}
.pe-first-paint {{ box-sizing: border-box; padding: 0 {PAGE_PADDING_PX}px; min-height: 100vh;
  {PAGE_FONT} }}
.pe-first-paint h2 {{ {CARD_HEADING} }}
.pe-first-paint-body {{ display: flex; flex-wrap: wrap; gap: 0 {PAGE_PADDING_PX}px; }}
.pe-first-paint-side {{ flex: 0 1 {SIDEBAR_BASIS_PX}px; min-width: {SIDEBAR_MIN_PX}px; }}
.pe-first-paint-view {{ flex: 1 1 {VIEWS_BASIS_PX}px; min-width: 0; }}
.pe-first-paint-view p {{ {CARD_TEXT} }}
.pe-first-paint-view img {{ display: block; width: calc(100% - 110px); height: 360px;
  margin: 48px 0 0 64px; image-rendering: pixelated; }}
""" + PAGE_STYLE.replace(":host { width: 100%; }", "").replace(
    ".pe-header", ".pe-first-paint .pe-header"
)


def matrix_picture(state: ExplorerState) -> str:
    """The heatmap's matrix for state as a PNG data URI, one pixel per cell, in its colours."""
    matrix = figure(state)["data"][0]["z"]
    png = io.BytesIO()
    Image.fromarray(theme.diverging_rgb(matrix)).save(png, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")


def first_paint_html() -> str:
    """The page before any script has run: its header and equations, and the default encoding
    matrix as a picture, where the prerendered page will show it."""
    state = ExplorerState()
    spec = view_spec("heatmap")
    n, d = state.n_positions, state.d_model
    settings = (
        f"pos {state.pos} · k {state.offset} · d<sub>model</sub> {d} · {n} positions · "
        f"base {state.base:g} · {state.layout}"
    )
    colours = "color: var(--pe-text); background: var(--pe-paper)"  # theme.document_css
    return f"""<div class="pe-first-paint" style="{colours}" aria-busy="true">
<style>{FIRST_PAINT_STYLE}</style>
{INTRODUCTION}
<div class="pe-first-paint-body">
<div class="pe-first-paint-side"><h2>Controls</h2><p>{settings}</p></div>
<section class="pe-first-paint-view"><h2>{spec.title}</h2><p>{spec.explanation}</p>
<img src="{matrix_picture(state)}" width="{d}" height="{n}"
alt="The encoding matrix for {n} positions (rows) and {d} dimensions (columns), from -1 (blue) to
1 (red): the left columns alternate quickly, the right ones slowly.">
</section></div></div>"""

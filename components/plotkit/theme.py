"""Colours and base Plotly layout for the light and dark themes."""

from __future__ import annotations

import base64
from functools import lru_cache

from .narrow import NARROW_PX

# Okabe–Ito palette: distinguishable with every common colour-vision deficiency.
# Its orange and sky blue are darkened (#E69F00, #56B4E9 in the original) so that every line
# stands out at least 3:1 from both themes' backgrounds (WCAG 2.2, 1.4.11).
PAIR_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B87700", "#3A8CC9")
# Diverging, colour-blind safe, centred at 0 (blue negative, red positive): ColorBrewer RdBu
# reversed, spelled out because figures skip plotly.py's validation, which is what turns the
# name "RdBu_r" into these stops (plotly.js does not know the "_r" names).
DIVERGING_SCALE = [
    [0.0, "rgb(5,48,97)"],
    [0.1, "rgb(33,102,172)"],
    [0.2, "rgb(67,147,195)"],
    [0.3, "rgb(146,197,222)"],
    [0.4, "rgb(209,229,240)"],
    [0.5, "rgb(247,247,247)"],
    [0.6, "rgb(253,219,199)"],
    [0.7, "rgb(244,165,130)"],
    [0.8, "rgb(214,96,77)"],
    [0.9, "rgb(178,24,43)"],
    [1.0, "rgb(103,0,31)"],
]


def diverging_rgb(values, low: float = -1.0, high: float = 1.0):
    """RGB bytes (shape + (3,)) of values through DIVERGING_SCALE, as plotly.js colours them."""
    import numpy as np

    stops = np.array([stop for stop, _ in DIVERGING_SCALE])
    rgb = np.array([[int(c) for c in colour[4:-1].split(",")] for _, colour in DIVERGING_SCALE])
    where = np.clip((np.asarray(values, dtype=float) - low) / (high - low), 0.0, 1.0)
    channels = [np.interp(where, stops, rgb[:, channel]) for channel in range(3)]
    return np.rint(np.stack(channels, axis=-1)).astype(np.uint8)


# The parts of plotly.py's default template ("plotly") that apply to the explorer's figures,
# copied so that figures carry their template and need neither plotly.py nor its template at
# run time (tests/test_figures.py checks the copy against plotly.py's). Our layouts override
# most colours; these keep the rest of the familiar Plotly look (axis margins, title offsets,
# bar outlines, hover alignment).
INK = "#2a3f5f"
PATTERN = {"fillmode": "overlay", "size": 10, "solidity": 0.2}
CARTESIAN_AXIS = {
    "gridcolor": "white",
    "linecolor": "white",
    "ticks": "",
    "title": {"standoff": 15},
    "zerolinecolor": "white",
    "automargin": True,
    "zerolinewidth": 2,
}
TEMPLATE = {
    "data": {
        "bar": [
            {
                "error_x": {"color": INK},
                "error_y": {"color": INK},
                "marker": {"line": {"color": "#E5ECF6", "width": 0.5}, "pattern": PATTERN},
                "type": "bar",
            }
        ],
        # Every heatmap of ours names its colour scale, so the template's is left out.
        "heatmap": [{"type": "heatmap", "colorbar": {"outlinewidth": 0, "ticks": ""}}],
        "scatter": [{"fillpattern": PATTERN, "type": "scatter"}],
    },
    "layout": {
        "autotypenumbers": "strict",
        "colorway": [
            "#636efa",
            "#EF553B",
            "#00cc96",
            "#ab63fa",
            "#FFA15A",
            "#19d3f3",
            "#FF6692",
            "#B6E880",
            "#FF97FF",
            "#FECB52",
        ],
        "font": {"color": INK},
        "hovermode": "closest",
        "hoverlabel": {"align": "left"},
        "paper_bgcolor": "white",
        "plot_bgcolor": "#E5ECF6",
        "xaxis": CARTESIAN_AXIS,
        "yaxis": CARTESIAN_AXIS,
        "shapedefaults": {"line": {"color": INK}},
        "annotationdefaults": {"arrowcolor": INK, "arrowhead": 0, "arrowwidth": 1},
        "title": {"x": 0.05},
    },
}

THEMES = {
    "light": {
        "paper": "#ffffff",
        "plot": "#ffffff",
        "surface": "#f6f8fa",
        "text": "#1f2328",
        "grid": "#e5e7eb",
        "pos": "#111111",
        "second": "#7c3aed",
        "focus": "#1d4ed8",
    },
    "dark": {
        "paper": "#111827",
        "plot": "#111827",
        "surface": "#1f2937",
        "text": "#e5e7eb",
        "grid": "#374151",
        "pos": "#f9fafb",
        "second": "#c4b5fd",
        "focus": "#93c5fd",
    },
}


def colours(theme: str) -> dict[str, str]:
    """The colour set of a theme (light when the name is unknown)."""
    return THEMES.get(theme, THEMES["light"])


def page_styles(theme: str) -> dict[str, str]:
    """CSS of the page for a theme: Panel's design variables cascade into every widget."""
    palette = colours(theme)
    styles = {
        "background-color": palette["paper"],
        "color": palette["text"],
        "--panel-background-color": palette["paper"],
        "--panel-on-background-color": palette["text"],
        "--panel-surface-color": palette["surface"],
        "--panel-on-surface-color": palette["text"],
        "--pe-code-bg": palette["surface"],
        "--pe-grid": palette["grid"],
        "--pe-focus": palette["focus"],
    }
    if theme == "dark":
        styles["color-scheme"] = "dark"
    return styles


# The attribute static/startup.js and the URL writer set on <html>: the theme the page shows.
THEME_ATTRIBUTE = "data-pe-theme"


def document_css() -> str:
    """The page's own colours in each theme, keyed on <html data-pe-theme>, for what lies outside
    Panel's components: the page behind them, the first paint and the frames before Python."""
    rules = []
    for name, palette in THEMES.items():
        selector = f'html[{THEME_ATTRIBUTE}="{name}"]'
        if name == "light":
            selector = f":root, {selector}"
        scheme = "dark" if name == "dark" else "light"
        rules.append(
            f"{selector} {{ --pe-paper: {palette['paper']}; --pe-text: {palette['text']}; "
            f"color-scheme: {scheme}; }}"
        )
    rules.append("html, body { background: var(--pe-paper); color: var(--pe-text); }")
    return "\n".join(rules)


def base_layout(theme: str, uirevision: str) -> dict:
    """Layout keys every figure shares: colours, font, margins and the zoom-keeping uirevision.

    The height is the view's (components/views: plot_height), set when the figure is shown.
    """
    palette = colours(theme)
    return {
        "template": TEMPLATE,
        "paper_bgcolor": palette["paper"],
        "plot_bgcolor": palette["plot"],
        "font": {"color": palette["text"], "size": 13},
        "margin": {"l": 64, "r": 24, "t": 48, "b": 48},
        "autosize": True,
        "uirevision": uirevision,
        # Hover labels in the theme's colours (Plotly's default is the trace's own colour).
        "hoverlabel": {
            "namelength": -1,
            "bgcolor": palette["surface"],
            "bordercolor": palette["text"],
            "font": {"color": palette["text"]},
        },
        "legend": {"orientation": "h", "y": -0.12, "x": 0},
    }


# Plotly's default for tick labels, "hide past div", measures every label after each redraw to
# hide those crossing the figure's edge; automargin already makes room for them, so none ever
# does. Labels drawn as they are look the same and save a forced layout per label.
TICK_LABELS = {"ticklabeloverflow": "allow"}


def axis(theme: str, **extra) -> dict:
    """An axis styled for the theme, with any extra keys."""
    palette = colours(theme)
    return {"gridcolor": palette["grid"], "zerolinecolor": palette["grid"], **TICK_LABELS, **extra}


def colorbar(**extra) -> dict:
    """A heatmap's colour bar, its tick labels drawn like the axes'."""
    return {**TICK_LABELS, **extra}


# The readout tables under the views that compare pairs of positions (compare, rope).
READOUT_TABLE_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
table.pe-readouts { border-collapse: collapse; font-variant-numeric: tabular-nums; width: 100%; }
.pe-readouts th, .pe-readouts td { padding: 0.25em 0.6em; text-align: right;
                                   border-bottom: 1px solid var(--pe-grid, #e5e7eb); }
.pe-readouts th:first-child, .pe-readouts td:first-child { text-align: left; }
.pe-readouts tr.pe-current { font-weight: 600; }
.pe-readouts caption { text-align: left; padding-bottom: 0.3em; }
p.pe-note { margin: 0.4em 0 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


def rows_as_blocks_style(*tables: str) -> str:
    """CSS for tables of these classes on a narrow screen (NARROW_PX): each row a block, its
    header cell then one line per cell, each with its column's name (the cell's data-label), so
    that nothing scrolls sideways. The header row stays for screen readers; the tables' explicit
    roles (table, row, cell …) keep their meaning, which display: block takes away in some
    browsers."""

    def every(*parts: str) -> str:
        return ", ".join(f".{table} {part}".strip() for table in tables for part in parts)

    return f"""
@media (max-width: {NARROW_PX}px) {{
  :host {{ overflow-x: visible; }}
  {every("", "tbody", "tr", "th", "td", "caption")} {{ display: block; width: auto; }}
  {every("thead")} {{ position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); }}
  {every("tr")} {{ padding: 0.3em 0; border-bottom: 1px solid var(--pe-grid, #e5e7eb); }}
  {every("th", "td")} {{ border: 0; padding: 0.1em 0.2em; }}
  {every("tbody th")} {{ text-align: left; }}
  {every("td")} {{ display: flex; justify-content: space-between; gap: 1em; text-align: right; }}
  {every("td::before")} {{ content: attr(data-label); text-align: left; font-weight: normal;
    font-style: normal; }}
}}
"""


def diagonal_line(offset: int, n_positions: int, half: float, colour: str) -> dict:
    """A dotted line along the cells (row i, column i + k) of an n × n matrix of positions."""
    first_row = max(0, -offset)
    last_row = min(n_positions - 1, n_positions - 1 - offset)
    return {
        "type": "line",
        "xref": "x",
        "yref": "y",
        "x0": first_row + offset - half,
        "y0": first_row - half,
        "x1": last_row + offset + half,
        "y1": last_row + half,
        "line": {"color": colour, "width": 3, "dash": "dot"},
        "name": "offset k",
    }


def cell_outline(row: int, column: int, half: float, colour: str) -> dict:
    """An outline around the cell (row, column) of a matrix of positions: pos and pos + k."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": column - half,
        "x1": column + half,
        "y0": row - half,
        "y1": row + half,
        "line": {"color": colour, "width": 2},
        "fillcolor": "rgba(0,0,0,0)",
        "name": "pos, pos+k",
    }


def luminance(colour: str) -> float:
    """The relative luminance of a #rrggbb colour (WCAG 2.2)."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    red, green, blue = (
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    )
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: str, second: str) -> float:
    """The contrast ratio of two #rrggbb colours (WCAG 2.2): 1 to 21."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def halo(colour: str) -> str:
    """The colour drawn around a mark of colour: whichever of near-black and white differs more."""
    return "#ffffff" if contrast(colour, "#ffffff") > contrast(colour, "#111111") else "#111111"


@lru_cache(maxsize=16)
def outline_source(colour: str, dasharray: str = "") -> str:
    """An SVG outline that stretches to any box with its line staying 2 px wide, as a data URI
    for a layout image (Plotly moves an image without redrawing the heatmap under it).

    The line runs on a halo of the opposite lightness edged with a hairline of the other: white
    and near-black both border it, so over cells of any colour one part stands out at least
    3:1 (WCAG 2.2, 1.4.11).
    """
    dashes = f' stroke-dasharray="{dasharray}"' if dasharray else ""
    rect = (
        '<rect x="0" y="0" width="100" height="100" fill="none" vector-effect="non-scaling-stroke" '
    )
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" preserveAspectRatio="none">'
        f'{rect}stroke="{"#111111" if halo(colour) == "#ffffff" else "#ffffff"}" stroke-width="9"/>'
        f'{rect}stroke="{halo(colour)}" stroke-width="7"/>'
        f'{rect}stroke="{colour}" stroke-width="4"{dashes}/>'
        "</svg>"
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


@lru_cache(maxsize=16)
def line_source(colour: str, ends: tuple[int, int, int, int], width: int, dasharray: str) -> str:
    """An SVG line from (x0, y0) to (x1, y1) of a 100 × 100 box that stretches to any box, its
    width and dashes staying in px, as a data URI for a layout image (a moved shape would make
    Plotly redraw the whole plot; a moved image is only moved)."""
    x0, y0, x1, y1 = ends
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" preserveAspectRatio="none">'
        f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{colour}" stroke-width="{width}" '
        f'stroke-dasharray="{dasharray}" vector-effect="non-scaling-stroke"/></svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def matrix_axes(theme: str, labels, columns) -> dict:
    """The axes of a heatmap of the PE matrix: dimensions as categories (about eight ticks,
    numbered), positions downwards."""
    tick_step = max(1, len(columns) // 8)
    return {
        "xaxis": axis(
            theme,
            title={"text": "dimension"},
            type="category",
            tickmode="array",
            tickvals=labels[::tick_step],
            ticktext=[str(c) for c in columns[::tick_step]],
            showgrid=False,
        ),
        "yaxis": axis(theme, title={"text": "position pos"}, autorange="reversed", showgrid=False),
    }


# The readouts written as lines of text under a view (T5's buckets, Shaw et al.'s vectors).
READOUT_NOTE_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
p.pe-note { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""

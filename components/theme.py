"""Colours and base Plotly layout for the light and dark themes."""

from __future__ import annotations

# Okabe–Ito palette: distinguishable with every common colour-vision deficiency.
PAIR_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
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

THEMES = {
    "light": {
        "paper": "#ffffff",
        "plot": "#ffffff",
        "text": "#1f2328",
        "grid": "#e5e7eb",
        "pos": "#111111",
        "second": "#7c3aed",
    },
    "dark": {
        "paper": "#111827",
        "plot": "#111827",
        "text": "#e5e7eb",
        "grid": "#374151",
        "pos": "#f9fafb",
        "second": "#c4b5fd",
    },
}


def colours(theme: str) -> dict[str, str]:
    """The colour set of a theme (light when the name is unknown)."""
    return THEMES.get(theme, THEMES["light"])


def base_layout(theme: str, uirevision: str, height: int) -> dict:
    """Layout keys every figure shares: colours, font, margins and the zoom-keeping uirevision."""
    palette = colours(theme)
    return {
        "paper_bgcolor": palette["paper"],
        "plot_bgcolor": palette["plot"],
        "font": {"color": palette["text"], "size": 13},
        "margin": {"l": 64, "r": 24, "t": 48, "b": 48},
        "height": height,
        "autosize": True,
        "uirevision": uirevision,
        "hoverlabel": {"namelength": -1},
        "legend": {"orientation": "h", "y": -0.12, "x": 0},
    }


def axis(theme: str, **extra) -> dict:
    """An axis styled for the theme, with any extra keys."""
    palette = colours(theme)
    return {"gridcolor": palette["grid"], "zerolinecolor": palette["grid"], **extra}

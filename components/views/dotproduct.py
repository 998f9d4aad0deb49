"""Dot products PE(i)·PE(j) of the shown positions: a Toeplitz matrix, with D(k) beside it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import derived, encoding
from ..state import ExplorerState
from ..ui import theme
from ..ui.view import DATA_COLUMNS, DATA_ROWS, DataTable, number, span_text, window

SIMILARITY_TITLES = {"dot": "dot products PE(i)·PE(j)", "cosine": "cosine similarities"}

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
p.pe-gram-readout { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


@dataclass(frozen=True)
class OffsetReadout:
    """The numbers of diagonal k: D(k) and what follows from it, and the diagonal's spread."""

    offset: int
    dot: float
    cosine: float
    distance: float
    entries: int
    spread: float  # max − min of the entries PE(i)·PE(i + k) on diagonal k


def numbers(state: ExplorerState) -> OffsetReadout:
    """D(k), 2D(k)/d_model and √(d_model − 2D(k)), and the spread of diagonal k of PE·PEᵀ."""
    k, d, base = state.offset, state.d_model, float(state.base)
    exact = encoding.offset_comparison(k, d, base)
    # The products of the interleaved matrix, as the picture shows (the layout changes nothing).
    diagonal = encoding.diagonal_products(
        derived.pe_matrix(state.n_positions, d, base, "interleaved"), k
    )
    return OffsetReadout(
        offset=k,
        dot=exact.dot,
        cosine=exact.cosine,
        distance=exact.distance,
        entries=int(diagonal.size),
        spread=float(diagonal.max() - diagonal.min()),
    )


def readout(state: ExplorerState) -> str:
    """The numbers of diagonal k as text (numbers only)."""
    shown = numbers(state)
    return (
        f'<p class="pe-gram-readout">Diagonal k = <span class="pe-gram-offset">{shown.offset}'
        f'</span>: all <span class="pe-gram-entries">{shown.entries}</span> entries '
        f"PE(i)·PE(i + k) equal D(k) = "
        f'<span class="pe-gram-dot">{shown.dot + 0.0:.9f}</span> (largest minus smallest: '
        f'<span class="pe-gram-spread">{shown.spread:.1e}</span>).<br>'
        f"Cosine similarity 2D(k)/d<sub>model</sub> = "
        f'<span class="pe-gram-cosine">{shown.cosine + 0.0:.9f}</span>; distance '
        f"√(d<sub>model</sub> − 2D(k)) = "
        f'<span class="pe-gram-distance">{shown.distance:.9f}</span>.</p>'
    )


def figure(state: ExplorerState) -> dict:
    """Heatmap of PE·PEᵀ (or cosines) with diagonal k marked; D(k) against k beside it."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    shown = derived.dot_product_cells(n, d, base)
    cosine = state.similarity == "cosine"
    z = shown.cosines if cosine else shown.dots
    scale = 1.0 if cosine else d / 2
    palette = theme.colours(state.theme)
    k = state.offset
    offsets, dots = derived.offset_dot_curve(n, d, base)
    exact = encoding.offset_comparison(k, d, base)
    curve = 2.0 * dots / d if cosine else dots
    current = exact.cosine if cosine else exact.dot
    measure = "cos" if cosine else "D"
    shapes = [theme.diagonal_line(k, n, 0.5 * shown.stride, palette["second"])]
    if state.second_pos < n:
        shapes.append(
            theme.cell_outline(state.pos, state.second_pos, 0.5 * shown.stride, palette["pos"])
        )
    title = f"PE·PEᵀ: {SIMILARITY_TITLES[state.similarity]} of {n} position{'' if n == 1 else 's'}"
    notes = []
    if shown.stride > 1:
        notes.append(
            f"Reduced for display: every {shown.stride}th position "
            f"({shown.rows.size} × {shown.rows.size} of {n} × {n} cells)"
        )
    if not shown.direct:
        notes.append("filled from D(i − j), equal to the product")
    if notes:
        title += "<br><sub>" + "; ".join(notes) + "</sub>"
    traces = [
        {
            "type": "heatmap",
            "x": shown.rows,
            "y": shown.rows,
            "z": z,
            "zmin": -scale,
            "zmid": 0.0,
            "zmax": scale,
            "colorscale": theme.DIVERGING_SCALE,
            "colorbar": theme.colorbar(x=0.45, thickness=10, len=0.9, title={"text": measure}),
            "hovertemplate": f"i = %{{y}}, j = %{{x}}<br>{measure} = %{{z:.6f}}<extra></extra>",
            "name": "PE·PEᵀ",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": offsets,
            "y": curve,
            "xaxis": "x2",
            "yaxis": "y2",
            "line": {"color": theme.PAIR_COLOURS[0], "width": 1.5},
            "name": "D(k) = Σ cos(k·ω_i)" if not cosine else "2D(k)/d_model",
            "hovertemplate": f"k = %{{x}}<br>{measure} = %{{y:.6f}}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([k]),
            "y": np.array([current]),
            "xaxis": "x2",
            "yaxis": "y2",
            "marker": {"color": palette["second"], "size": 10, "symbol": "diamond"},
            "name": f"k = {k}",
            "hovertemplate": f"k = {k}<br>{measure} = %{{y:.9f}}<extra></extra>",
        },
    ]
    layout = theme.base_layout(state.theme, uirevision=f"dotproduct-{n}-{d}")
    layout.update(
        title={"text": title, "x": 0, "font": {"size": 15}},
        margin={"l": 56, "r": 16, "t": 80 if notes else 56, "b": 56},
        xaxis=theme.axis(
            state.theme, domain=[0.0, 0.4], title={"text": "position j"}, showgrid=False
        ),
        yaxis=theme.axis(
            state.theme,
            title={"text": "position i"},
            autorange="reversed",
            showgrid=False,
            scaleanchor="x",
            constrain="domain",
        ),
        xaxis2=theme.axis(
            state.theme, domain=[0.66, 1.0], anchor="y2", title={"text": "offset k = j − i"}
        ),
        yaxis2=theme.axis(
            state.theme,
            anchor="x2",
            range=[-1.05 * scale, 1.05 * scale],
            title={"text": "2D(k) / d_model" if cosine else "D(k)"},
        ),
        shapes=shapes,
        showlegend=False,
        annotations=[
            {
                "text": f"k = {k}: {measure} = {current + 0.0:.4f}",
                "xref": "x2",
                "yref": "paper",
                "x": k,
                "y": 1.0,
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 12, "color": palette["second"]},
            }
        ],
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the matrix, diagonal k and its value."""
    shown = numbers(state)
    n, k = state.n_positions, shown.offset
    cosine = state.similarity == "cosine"
    value = f"cosine {number(shown.cosine)}" if cosine else f"D({k}) = {number(shown.dot)}"
    return (
        f"PE·PEᵀ, {SIMILARITY_TITLES[state.similarity]} of {n} positions, diagonal k = {k} "
        f"marked: all {shown.entries} entries on it equal {value}; cell ({state.pos}, "
        f"{state.second_pos}) outlined"
    )


def data(state: ExplorerState) -> DataTable:
    """Entries (i, j) of PE·PEᵀ (or the cosines) for i near pos and j near pos + k."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    rows = window(state.pos, n, DATA_ROWS)
    columns = window(state.second_pos, n, DATA_COLUMNS)
    # Entry (i, j) is D(j − i): the same numbers as the product, read off the curve.
    _, curve = derived.offset_dot_curve(n, d, base)
    offsets = np.subtract.outer(np.asarray(columns), np.asarray(rows)).T
    if state.similarity == "cosine":
        values = encoding.offset_cosine(offsets, d, base)
    else:
        values = curve[offsets + n - 1]
    return DataTable(
        caption=f"PE·PEᵀ: {SIMILARITY_TITLES[state.similarity]}, rows i near pos = {state.pos}, "
        f"columns j near pos + k = {state.second_pos}",
        columns=("i \\ j", *(str(j) for j in columns)),
        rows=tuple((i, *row) for i, row in zip(rows, values, strict=True)),
        note=f"Rows {span_text(rows)} and columns {span_text(columns)} of {n} shown; "
        "Export has the whole matrix.",
    )

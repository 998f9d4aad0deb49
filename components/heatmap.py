"""Heatmap of the PE matrix (positions × dimensions) with the rows pos and pos + k marked."""

from __future__ import annotations

import base64
import math
from functools import lru_cache

import numpy as np

from . import theme
from .state import ExplorerState, cached_encoding
from .view import PlotView

# A screen shows at most about this many distinct cells; larger matrices are strided.
MAX_DISPLAY_CELLS = 250_000


def display_strides(n_positions: int, d_model: int, max_cells: int = MAX_DISPLAY_CELLS):
    """(row stride, pair stride) so that the shown cells fit in max_cells; (1, 1) when they do.

    Columns are strided by whole sin/cos pairs so both functions of a pair stay visible.
    """
    pairs = d_model // 2
    stride = max(1, math.ceil(math.sqrt(n_positions * d_model / max_cells)))
    while math.ceil(n_positions / stride) * 2 * math.ceil(pairs / stride) > max_cells:
        stride += 1
    return stride, stride


def column_roles(d_model: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """For each column: its pair index i, and whether it holds the sine (True) or cosine."""
    pairs = d_model // 2
    columns = np.arange(d_model)
    if layout == "interleaved":
        return columns // 2, columns % 2 == 0
    return columns % pairs, columns < pairs


@lru_cache(maxsize=4)
def display_matrix(n_positions: int, d_model: int, base: float, layout: str):
    """The matrix as shown: float32, strided when large. Returns (rows, columns, z, strides)."""
    matrix = cached_encoding(n_positions, d_model, base, layout)
    row_stride, pair_stride = display_strides(n_positions, d_model)
    rows = np.arange(0, n_positions, row_stride)
    pair_of, is_sine = column_roles(d_model, layout)
    columns = np.flatnonzero(pair_of % pair_stride == 0)
    z = np.ascontiguousarray(matrix[np.ix_(rows, columns)], dtype=np.float32)
    z.flags.writeable = False
    return rows, columns, z, (row_stride, pair_stride)


@lru_cache(maxsize=4)
def column_labels(d_model: int, layout: str, columns: tuple[int, ...]) -> list[str]:
    """Hover labels of the shown columns: dimension, pair index and function."""
    pair_of, is_sine = column_roles(d_model, layout)
    return [f"dim {c} · i = {pair_of[c]} · {'sin' if is_sine[c] else 'cos'}" for c in columns]


@lru_cache(maxsize=8)
def marker_source(colour: str, dash: str) -> str:
    """An SVG outline that stretches to any box with its line staying 2 px wide, as a data URI."""
    dasharray = ' stroke-dasharray="2 3"' if dash == "dot" else ""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" '
        'preserveAspectRatio="none"><rect x="0" y="0" width="100" height="100" fill="none" '
        f'stroke="{colour}" stroke-width="4" vector-effect="non-scaling-stroke"{dasharray}/>'
        "</svg>"
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def row_marker(position: float, half_height: float, colour: str, dash: str) -> dict:
    """A rectangle around one row of the heatmap, spanning every column.

    It is a layout image, not a shape: Plotly recomputes and redraws the whole heatmap when a
    shape moves (shape positions can change the axis ranges), but only moves an image. A step
    of pos then costs one small relayout at any matrix size.
    """
    return {
        "source": marker_source(colour, dash),
        "xref": "paper",
        "yref": "y",
        "x": 0,
        "y": position,
        "sizex": 1,
        "sizey": 2 * half_height,
        "sizing": "stretch",
        "xanchor": "left",
        "yanchor": "middle",
        "layer": "above",
        "name": "pos" if dash == "solid" else "pos+k",
    }


def figure(state: ExplorerState) -> dict:
    """The heatmap figure for the state."""
    n, d = state.n_positions, state.d_model
    rows, columns, z, (row_stride, pair_stride) = display_matrix(
        n, d, float(state.base), state.layout
    )
    labels = column_labels(d, state.layout, tuple(columns.tolist()))
    palette = theme.colours(state.theme)
    half = 0.5 * row_stride
    markers = [row_marker(state.pos, half, palette["pos"], "solid")]
    annotations = []
    second = state.second_pos
    if second < n:
        markers.append(row_marker(second, half, palette["second"], "dot"))
    else:
        annotations.append(
            {
                "text": f"pos + k = {second} is below the {n} rows shown",
                "xref": "paper",
                "yref": "paper",
                "x": 1,
                "y": -0.08,
                "xanchor": "right",
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    reduced = row_stride > 1 or pair_stride > 1
    title = f"PE matrix: {n} positions × {d} dimensions ({state.layout})"
    if reduced:
        title += (
            f"<br><sub>Reduced for display: every {row_stride}th position and every "
            f"{pair_stride}th pair ({len(rows)} × {len(columns)} of {n} × {d} cells)</sub>"
        )
    tick_step = max(1, len(columns) // 8)
    layout = theme.base_layout(state.theme, uirevision=f"heatmap-{n}-{d}", height=460)
    layout.update(
        title={"text": title, "x": 0, "font": {"size": 15}},
        margin={"l": 64, "r": 24, "t": 72 if reduced else 48, "b": 56},
        xaxis=theme.axis(
            state.theme,
            title={"text": "dimension"},
            type="category",
            tickmode="array",
            tickvals=labels[::tick_step],
            ticktext=[str(c) for c in columns[::tick_step]],
            showgrid=False,
        ),
        yaxis=theme.axis(
            state.theme, title={"text": "position pos"}, autorange="reversed", showgrid=False
        ),
        images=markers,
        annotations=annotations,
    )
    trace = {
        "type": "heatmap",
        "x": labels,
        "y": rows,
        "z": z,
        "zmin": -1.0,
        "zmid": 0.0,
        "zmax": 1.0,
        "colorscale": theme.DIVERGING_SCALE,
        "colorbar": theme.colorbar(title={"text": "PE"}, thickness=12),
        "hovertemplate": "pos %{y}<br>%{x}<br>value %{z:.6f}<extra></extra>",
    }
    return {"data": [trace], "layout": layout}


class HeatmapView(PlotView):
    """The PE matrix as a heatmap, rows pos and pos + k marked."""

    figure = staticmethod(figure)
    watches = ("pos", "offset", "n_positions", "d_model", "base", "layout", "theme")
    file_stem = "heatmap"
    height = 460

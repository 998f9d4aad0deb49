"""Plotly pieces several views draw alike: the titled layout, the PE matrix, an offset curve.

Each is the one place its look is set, so that, say, the dot-product and RoPE views mark the
offset k the same way.
"""

from __future__ import annotations

import numpy as np

from ..derived import MatrixCells
from ..state import ExplorerState
from . import theme


def titled_layout(state: ExplorerState, uirevision: str, title: str, size: int = 15) -> dict:
    """theme.base_layout with the figure's title at the left."""
    layout = theme.base_layout(state.theme, uirevision=uirevision)
    layout["title"] = {"text": title, "x": 0, "font": {"size": size}}
    return layout


def message_figure(
    state: ExplorerState, uirevision: str, title: str, text: str, y: float = 0.5
) -> dict:
    """A titled figure with no traces and no axes that says text (Plotly's HTML: escaped by
    the caller) in its middle, y up the paper: why there is nothing to draw."""
    layout = titled_layout(state, uirevision, title)
    layout.update(
        xaxis=theme.axis(state.theme, visible=False),
        yaxis=theme.axis(state.theme, visible=False),
        annotations=[
            {
                "text": text,
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": y,
                "showarrow": False,
                "font": {"size": 14},
            }
        ],
    )
    return {"data": [], "layout": layout}


def matrix_axis(state: ExplorerState, text: str, **extra) -> dict:
    """An axis of a heatmap, titled text: no grid lines over the cells."""
    return theme.axis(state.theme, showgrid=False, title={"text": text}, **extra)


def pe_matrix_layout(
    state: ExplorerState, cells: MatrixCells, labels, title: str, uirevision: str
) -> dict:
    """The layout of a heatmap of the PE matrix: title (with the reduction note) and axes."""
    n, d = state.n_positions, state.d_model
    layout = titled_layout(state, uirevision, title + cells.title_note(n, d))
    layout.update(
        margin={"l": 64, "r": 24, "t": 72 if cells.reduced else 48, "b": 56},
        **theme.matrix_axes(state.theme, labels, cells.columns),
    )
    return layout


def pe_matrix_trace(cells: MatrixCells, labels, **extra) -> dict:
    """The shown cells of the PE matrix as a heatmap, −1 … 1 on the diverging scale."""
    return {
        "type": "heatmap",
        "x": labels,
        "y": cells.rows,
        "z": cells.z,
        "zmin": -1.0,
        "zmid": 0.0,
        "zmax": 1.0,
        "colorscale": theme.DIVERGING_SCALE,
        "colorbar": theme.colorbar(title={"text": "PE"}, thickness=12),
        **extra,
    }


def panel_heatmap(x, y, z, limit: float, suffix: str, name: str, hovertemplate: str) -> dict:
    """A heatmap in one panel (axes x{suffix}, y{suffix}) of a figure of several: −limit …
    limit on the diverging scale, no colour bar of its own."""
    return {
        "type": "heatmap",
        "x": x,
        "y": y,
        "z": z,
        "zmin": -limit,
        "zmid": 0.0,
        "zmax": limit,
        "colorscale": theme.DIVERGING_SCALE,
        "showscale": False,
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
        "name": name,
        "hovertemplate": hovertemplate,
    }


def reduced_note(stride: int, shown: int, n_positions: int) -> str:
    """What a strided matrix of positions says about its reduction."""
    return (
        f"Reduced for display: every {stride}th position "
        f"({shown} × {shown} of {n_positions} × {n_positions} cells)"
    )


def offset_shapes(state: ExplorerState, stride: int) -> list[dict]:
    """Diagonal k of a matrix of positions dotted, and the cell (pos, pos + k) outlined."""
    palette = theme.colours(state.theme)
    n, half = state.n_positions, 0.5 * stride
    shapes = [theme.diagonal_line(state.offset, n, half, palette["second"])]
    if state.second_pos < n:
        shapes.append(theme.cell_outline(state.pos, state.second_pos, half, palette["pos"]))
    return shapes


def toeplitz_trace(
    rows, z, scale: float, measure: str, names: tuple[str, str, str], name: str
) -> dict:
    """A matrix of positions (constant along each diagonal) symmetric about 0 out to scale.

    names are the row's, the column's and the value's in the hover label.
    """
    row, column, value = names
    return {
        "type": "heatmap",
        "x": rows,
        "y": rows,
        "z": z,
        "zmin": -scale,
        "zmid": 0.0,
        "zmax": scale,
        "colorscale": theme.DIVERGING_SCALE,
        "colorbar": theme.colorbar(x=0.45, thickness=10, len=0.9, title={"text": measure}),
        "hovertemplate": f"{row} = %{{y}}, {column} = %{{x}}<br>{value} = %{{z:.6f}}"
        "<extra></extra>",
        "name": name,
    }


def curve_trace(x, y, colour: str, name: str, labels: tuple[str, str]) -> dict:
    """A line against the offset; labels name x and y in its hover."""
    x_label, y_label = labels
    return {
        "type": "scatter",
        "mode": "lines",
        "x": x,
        "y": y,
        "line": {"color": colour, "width": 1.5},
        "name": name,
        "hovertemplate": f"{x_label} = %{{x}}<br>{y_label} = %{{y:.6f}}<extra></extra>",
    }


def point_trace(
    x: float, y: float, marker: tuple[str, int], labels: tuple[str, str], digits: int
) -> dict:
    """A curve's point at the current offset x: a diamond of marker's colour and size, its y
    in the hover with digits decimals."""
    colour, size = marker
    x_label, y_label = labels
    return {
        "type": "scatter",
        "mode": "markers",
        "x": np.array([x]),
        "y": np.array([y]),
        "marker": {"color": colour, "size": size, "symbol": "diamond"},
        "name": point_name(x_label, x),
        "hovertemplate": point_hovertemplate(x_label, x, y_label, digits),
    }


def point_name(x_label: str, x: float) -> str:
    """A curve's point's name: where it is."""
    return f"{x_label} = {x}"


def point_hovertemplate(x_label: str, x: float, y_label: str, digits: int) -> str:
    """A curve's point's hover: where it is, and its y with digits decimals."""
    return f"{x_label} = {x}<br>{y_label} = %{{y:.{digits}f}}<extra></extra>"


def toeplitz_layout(state: ExplorerState, uirevision: str, title: str) -> dict:
    """The layout of a matrix of positions beside its curves against the offset: the title (a
    reduced matrix's note under it needs more room above), no legend."""
    layout = titled_layout(state, uirevision, title)
    layout.update(
        margin={"l": 56, "r": 16, "t": 80 if "<br>" in title else 56, "b": 56},
        showlegend=False,
    )
    return layout


def panel_caption(text: str, left: float, bottom: float) -> dict:
    """A small caption whose lower left corner is at (left, bottom) in paper coordinates: over
    a panel whose x domain starts at left and whose y domain ends at bottom."""
    return {
        "text": text,
        "xref": "paper",
        "yref": "paper",
        "x": left,
        "y": bottom,
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 12},
    }


def offset_label(
    text: str, offset: int, colour: str, xref: str = "x2", yref: str = "paper"
) -> dict:
    """A label over a curve against the offset (axis xref) at k = offset, standing on the top
    of yref (the paper's, or an axis's "y domain")."""
    return {
        "text": text,
        "xref": xref,
        "yref": yref,
        "x": offset,
        "y": 1.0,
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 12, "color": colour},
    }

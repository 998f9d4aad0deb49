"""Heatmap of the PE matrix (positions × dimensions) with the rows pos and pos + k marked."""

from __future__ import annotations

import base64
from functools import lru_cache

from .. import derived, theme
from ..state import ExplorerState


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
    cells = derived.matrix_cells(n, d, float(state.base), state.layout)
    palette = theme.colours(state.theme)
    half = 0.5 * cells.row_stride
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
    title = f"PE matrix: {n} positions × {d} dimensions ({state.layout})"
    if cells.reduced:
        title += (
            f"<br><sub>Reduced for display: every {cells.row_stride}th position and every "
            f"{cells.pair_stride}th pair ({len(cells.rows)} × {len(cells.columns)} of "
            f"{n} × {d} cells)</sub>"
        )
    tick_step = max(1, len(cells.columns) // 8)
    layout = theme.base_layout(state.theme, uirevision=f"heatmap-{n}-{d}")
    layout.update(
        title={"text": title, "x": 0, "font": {"size": 15}},
        margin={"l": 64, "r": 24, "t": 72 if cells.reduced else 48, "b": 56},
        xaxis=theme.axis(
            state.theme,
            title={"text": "dimension"},
            type="category",
            tickmode="array",
            tickvals=cells.labels[::tick_step],
            ticktext=[str(c) for c in cells.columns[::tick_step]],
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
        "x": cells.labels,
        "y": cells.rows,
        "z": cells.z,
        "zmin": -1.0,
        "zmid": 0.0,
        "zmax": 1.0,
        "colorscale": theme.DIVERGING_SCALE,
        "colorbar": theme.colorbar(title={"text": "PE"}, thickness=12),
        "hovertemplate": "pos %{y}<br>%{x}<br>value %{z:.6f}<extra></extra>",
    }
    return {"data": [trace], "layout": layout}

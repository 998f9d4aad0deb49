"""pos and pos + k marked on a chart as layout images, and the picks that move them.

Plotly only moves a moved image, where a moved shape makes it recompute and redraw the whole
plot (a shape can change the axis ranges): a drag of pos or k then costs one small relayout
however large the matrix under the marks. A mark shown for some values only is kept and hidden
for the others, so that a pick moves marks and never adds or removes one.
"""

from __future__ import annotations

import numpy as np

from . import picks as picks_kit
from . import theme


def diagonal_ends(offset, n_positions: int):
    """The first and last row i whose cell (i, i + k) is in the matrix (numbers or arrays)."""
    return np.maximum(0, -offset), np.minimum(n_positions - 1, n_positions - 1 - offset)


def diagonal_place(offset, n_positions: int, half: float) -> tuple:
    """Where diagonal k's box is: its left edge, its middle row and its side (numbers or
    arrays); x − y at its top left corner is k."""
    first, last = diagonal_ends(offset, n_positions)
    return first + offset - half, (first + last) / 2, last - first + 2 * half


def layout_image(source: str, axes: tuple[str, str], name: str, **place) -> dict:
    """A layout image of source stretched over its place (x, y, sizex, sizey and anchors) on
    axes, above the data."""
    xref, yref = axes
    return {
        "source": source,
        "xref": xref,
        "yref": yref,
        **place,
        "sizing": "stretch",
        "layer": "above",
        "name": name,
    }


def diagonal_marker(offset: int, n_positions: int, half: float, colour: str, axes=("x", "y")):
    """Diagonal k of an n × n matrix of positions (rows i on y, columns j on x, downwards)
    dotted: a line across the box from the corner of its first cell to that of its last."""
    x, y, side = (float(value) for value in diagonal_place(offset, n_positions, half))
    source = theme.line_source(colour, (0, 0, 100, 100), 3, "3 3")
    return layout_image(
        source,
        axes,
        "offset k",
        x=x,
        y=y,
        sizex=side,
        sizey=side,
        xanchor="left",
        yanchor="middle",
        visible=True,
    )


def cell_marker(pos: int, second: int, n_positions: int, half: float, colour: str, axes=("x", "y")):
    """The cell (pos, pos + k) outlined, hidden when pos + k is past the last position."""
    return layout_image(
        theme.outline_source(colour),
        axes,
        "pos, pos+k",
        x=second,
        y=pos,
        sizex=2 * half,
        sizey=2 * half,
        xanchor="center",
        yanchor="middle",
        visible=second < n_positions,
    )


def offset_markers(state, stride: int, axes=("x", "y")) -> list[dict]:
    """Diagonal k of a matrix of positions (every stride-th shown) and the cell (pos, pos + k)."""
    palette, n, half = theme.colours(state.theme), state.n_positions, 0.5 * stride
    return [
        diagonal_marker(state.offset, n, half, palette["second"], axes),
        cell_marker(state.pos, state.second_pos, n, half, palette["pos"], axes),
    ]


def marker_updates(moved: picks_kit.Moved, n_positions: int, stride: int, first: int = 0) -> list:
    """offset_markers, images first and first + 1, at each value of one axis."""
    x, y, side = diagonal_place(moved.offsets, n_positions, 0.5 * stride)
    diagonal, cell = f"images[{first}]", f"images[{first + 1}]"
    return [
        picks_kit.Update("layout", f"{diagonal}.x", each=x.astype(np.float64)),
        picks_kit.Update("layout", f"{diagonal}.y", each=y),
        picks_kit.Update("layout", f"{diagonal}.sizex", each=side.astype(np.float64)),
        picks_kit.Update("layout", f"{diagonal}.sizey", each=side.astype(np.float64)),
        picks_kit.Update("layout", f"{cell}.x", each=moved.seconds),
        picks_kit.Update("layout", f"{cell}.y", each=moved.firsts),
        picks_kit.Update(
            "layout", f"{cell}.visible", each=tuple((moved.seconds < n_positions).tolist())
        ),
    ]


def column_marker(
    key: int, colour: str, dotted: bool, name: str, axes=("x", "y"), visible: bool = True
) -> dict:
    """The column of key j of a heatmap outlined, full height (yref: the y axis's domain)."""
    source = theme.outline_source(colour, "2 3" if dotted else "")
    xref, yref = axes
    return layout_image(
        source,
        (xref, f"{yref} domain"),
        name,
        x=key,
        y=0.5,
        sizex=1,
        sizey=1,
        xanchor="center",
        yanchor="middle",
        visible=visible,
    )


def row_marker(
    row: int, columns: tuple[float, float], height: float, colour: str, name: str, axes=("x", "y")
) -> dict:
    """Row row of a heatmap outlined from columns[0] to columns[1], height high."""
    left, right = columns
    return layout_image(
        theme.outline_source(colour),
        axes,
        name,
        x=(left + right) / 2,
        y=row,
        sizex=right - left,
        sizey=height,
        xanchor="center",
        yanchor="middle",
    )

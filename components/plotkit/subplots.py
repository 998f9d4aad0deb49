"""A figure of several charts, composed from one small function per chart.

A view's figure function builds each chart as a Subplot, whose traces, shapes and annotations
name the chart's own axes "x" and "y", and hands them to compose, which gives each its pair of
Plotly axes (x, y; x2, y2 …), its place on the paper and its caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..state import ExplorerState
from . import theme
from .charts import curve_trace, offset_label, offset_shapes, panel_caption, point_trace

Domain = tuple[float, float]


@dataclass(frozen=True)
class Subplot:
    """One chart of a figure: its traces, axes and place, with "x"/"y" meaning its own axes."""

    traces: list[dict]
    x_axis: dict  # keys of a Plotly axis (title, type, range …), styled by the theme
    y_axis: dict
    domain: tuple[Domain, Domain]  # its x and y domains on the paper
    caption: str = ""  # set over the chart's top left corner
    shapes: list[dict] = field(default_factory=list)
    annotations: list[dict] = field(default_factory=list)


def axis_names(index: int) -> tuple[str, str]:
    """The Plotly axes of the index-th subplot, from 1: ("x", "y"), ("x2", "y2") …"""
    suffix = "" if index == 1 else str(index)
    return f"x{suffix}", f"y{suffix}"


def _on_axes(items: list[dict], x_name: str, y_name: str) -> list[dict]:
    """Shapes or annotations with their "x"/"y" references (and "x domain" …) renamed."""
    rename = {"x": x_name, "y": y_name, "x domain": f"{x_name} domain"}
    rename["y domain"] = f"{y_name} domain"
    return [
        {**item, **{ref: rename[item[ref]] for ref in ("xref", "yref") if item.get(ref) in rename}}
        for item in items
    ]


def compose(state: ExplorerState, layout: dict, subplots: Sequence[Subplot]) -> dict:
    """The figure of subplots on layout (its title, margins, legend …), each on its own axes."""
    data: list[dict] = []
    shapes = list(layout.get("shapes", []))
    annotations = list(layout.get("annotations", []))
    for index, subplot in enumerate(subplots, 1):
        x_name, y_name = axis_names(index)
        (x_domain, y_domain) = subplot.domain
        data += [{**trace, "xaxis": x_name, "yaxis": y_name} for trace in subplot.traces]
        shapes += _on_axes(subplot.shapes, x_name, y_name)
        annotations += _on_axes(subplot.annotations, x_name, y_name)
        if subplot.caption:
            annotations.append(panel_caption(subplot.caption, x_domain[0], y_domain[1] + 0.01))
        suffix = x_name[1:]
        layout[f"xaxis{suffix}"] = theme.axis(
            state.theme, domain=list(x_domain), anchor=y_name, **subplot.x_axis
        )
        layout[f"yaxis{suffix}"] = theme.axis(
            state.theme, domain=list(y_domain), anchor=x_name, **subplot.y_axis
        )
    # Plotly drops an empty list of shapes or annotations: a figure without them has no key.
    layout.update(
        {key: items for key, items in (("shapes", shapes), ("annotations", annotations)) if items}
    )
    return {"data": data, "layout": layout}


def heatmap_axis(text: str, **extra) -> dict:
    """A Subplot's axis of a heatmap, titled text: no grid lines over the cells."""
    return {"showgrid": False, "title": {"text": text}, **extra}


def toeplitz_subplot(
    state: ExplorerState, trace: dict, titles: tuple[str, str], stride: int
) -> Subplot:
    """A matrix of positions (charts.toeplitz_trace) in the left 40 % of the figure, square
    cells, its diagonal k dotted and the cell (pos, pos + k) outlined; titles are its columns'
    and its rows'."""
    column_title, row_title = titles
    y_axis = heatmap_axis(row_title, autorange="reversed", scaleanchor="x", constrain="domain")
    domain = ((0.0, 0.4), (0.0, 1.0))
    shapes = offset_shapes(state, stride)
    return Subplot([trace], heatmap_axis(column_title), y_axis, domain, shapes=shapes)


def offset_curve_subplot(
    state: ExplorerState,
    curve: tuple,
    names: tuple[str, str, str],
    titles: tuple[str, str],
    place: tuple[Domain, Domain],
    scale: float,
) -> Subplot:
    """A curve against the offset, (offsets −(n − 1) … n − 1, values), from −1.05·scale to
    1.05·scale, with the state's k marked on it and labelled over it.

    names are the curve's, its value's in the curve's hover, and its value's at k; titles are
    the offset axis's and the value axis's.
    """
    offsets, values = curve
    k, n = state.offset, state.n_positions
    # k lies in −(n − 1) … n − 1: the marker is a point of the curve drawn.
    current = float(values[k + n - 1])
    name, curve_value, value = names
    colour = theme.colours(state.theme)["second"]
    traces = [
        curve_trace(offsets, values, theme.PAIR_COLOURS[0], name, ("k", curve_value)),
        point_trace(k, current, (colour, 10), ("k", value), 9),
    ]
    offset_title, value_title = titles
    y_axis = {"range": [-1.05 * scale, 1.05 * scale], "title": {"text": value_title}}
    label = offset_label(offset_mark_text(k, value, current), k, colour, xref="x")
    return Subplot(traces, {"title": {"text": offset_title}}, y_axis, place, annotations=[label])


def offset_mark_text(offset: int, value: str, current: float) -> str:
    """The label over a curve's point at k = offset: its value there, named value."""
    return f"k = {offset}: {value} = {current + 0.0:.4f}"

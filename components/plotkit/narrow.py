"""A figure for a narrow screen: its charts one above the other at full width, its titles wrapped.

A view draws its figure for a wide card: several charts side by side in a grid, a title on one
line. Below NARROW_PX (a phone, a narrow course column) `for_narrow_screen` redraws the same
figure as a stack: each chart gets the full width and a row of its own at least MIN_ROW_PX tall,
its caption, colour bar and annotations moved with it; the legend goes under the last chart, and
titles and captions wrap. Only the layout changes: the traces, and so the numbers, stay.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import textwrap
from dataclasses import dataclass

import numpy as np

from .picks import AxisPicks, Picks, Text, Update, compressed

# The widest card drawn as a stack (px): ui/navigation.PHONE_MAX_PX lays the page out as a phone
# up to this width too.
NARROW_PX = 600
# A chart's height in the stack (px): at least this, or what it had in the grid.
MIN_ROW_PX = 220
# The space between two charts of the stack, for the lower one's caption and the upper one's
# axis title (px).
ROW_GAP_PX = 84
# Where a chart with a colour bar ends (paper x), leaving the bar and its labels room.
COLORBAR_PLOT_END = 0.8
# Characters per line of a wrapped title (15 px) and caption (12 px) in a 390 px card.
TITLE_CHARS = 44
CAPTION_CHARS = 48
TITLE_LINE_PX = 18
TITLE_FONT_PX = 13
# Plotly's mode bar, over the top right of a chart (px; its buttons are bigger on a touch
# screen): the title goes below it, a little in from the card's edge, and the charts as much
# lower, so that what sat between the title and the first chart keeps its room.
MODE_BAR_PX = 44
TITLE_INSET_PX = 8
# A legend under the charts: its type, the height of a row of its entries, and how wide a row
# is in a 390 px card, an entry's symbol and a character of its name (px).
LEGEND_FONT_PX = 11
LEGEND_ROW_PX = 19
LEGEND_LINE_PX = 280
LEGEND_SYMBOL_PX = 46
LEGEND_CHAR_PX = 6.6
# On a wide card a legend under the chart keeps Plotly's 12 px type and is given the rows it
# takes in the narrowest wide card (NARROW_PX, a plot about this wide): wider, it needs fewer.
WIDE_LEGEND_FONT_PX = 12
WIDE_LEGEND_LINE_PX = 480
# Where the Plotly template puts a legend that the figure does not place (plotkit/theme.py).
TEMPLATE_LEGEND_Y = -0.12


# The key of layout.meta that marks a figure drawn for a narrow card.
NARROW_MARK = "pe_narrow"
# The name (Plotly's `name`) of an annotation a narrow card leaves out: words the view also
# shows under the chart, for which a narrow chart has no room.
WIDE_ONLY = "pe-wide-only"


@dataclass(frozen=True)
class Chart:
    """One chart of the figure: its axes' suffix ("" for x/y, "2" for x2/y2 …) and domains."""

    suffix: str
    x: tuple[float, float]
    y: tuple[float, float]


def charts_of(layout: dict) -> list[Chart]:
    """The figure's charts, top to bottom, left to right: each x axis with a domain, and the y
    axis it is anchored to (overlaying axes belong to their base chart)."""
    charts = []
    for key, axis in layout.items():
        if not key.startswith("xaxis") or not isinstance(axis, dict) or "overlaying" in axis:
            continue
        suffix = key.removeprefix("xaxis")
        y_axis = layout.get(f"yaxis{suffix}", {})
        x = tuple(axis.get("domain", (0.0, 1.0)))
        y = tuple(y_axis.get("domain", (0.0, 1.0)))
        charts.append(Chart(suffix, x, y))
    return sorted(charts, key=lambda chart: (-chart.y[1], chart.x[0]))


def side_by_side(charts: list[Chart]) -> bool:
    """Whether two of the charts share a band of height (a grid, not a stack)."""
    return any(
        min(a.y[1], b.y[1]) - max(a.y[0], b.y[0]) > 0.02
        for i, a in enumerate(charts)
        for b in charts[i + 1 :]
    )


def wrap(text: str, width: int) -> tuple[str, int]:
    """Plotly text wrapped at width characters with <br>: the text and its number of lines.
    Text that has its own line breaks, or markup, is left as it is."""
    if "<br>" in text or re.search(r"<[^>]*\s[^>]*>", text):
        return text, text.count("<br>") + 1
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return "<br>".join(lines) or text, max(1, len(lines))


class Restack:
    """The move of every chart from its place in the grid to its row of the stack."""

    def __init__(self, layout: dict, charts: list[Chart]):
        margin = layout.get("margin", {})
        height = layout.get("height", 450)
        self.old_plot_px = max(1.0, height - margin.get("t", 80) - margin.get("b", 80))
        rows = [max(MIN_ROW_PX, (c.y[1] - c.y[0]) * self.old_plot_px) for c in charts]
        self.new_plot_px = sum(rows) + ROW_GAP_PX * (len(rows) - 1)
        self.new: dict[str, Chart] = {}
        top = 0.0
        for chart, row in zip(charts, rows, strict=True):
            y1 = 1 - top / self.new_plot_px
            y0 = y1 - row / self.new_plot_px
            self.new[chart.suffix] = Chart(chart.suffix, (0.0, 1.0), (max(0.0, y0), y1))
            top += row + ROW_GAP_PX
        self.old = {chart.suffix: chart for chart in charts}

    def narrow_x(self, suffix: str, end: float) -> None:
        chart = self.new[suffix]
        self.new[suffix] = Chart(suffix, (0.0, end), chart.y)

    def owner(self, x: float, y: float) -> str | None:
        """The chart a point on the paper belongs to: inside it, or above it (its caption)."""
        reach = 0.12
        for suffix, chart in self.old.items():
            if chart.x[0] - 0.02 <= x <= chart.x[1] + 0.02 and (
                chart.y[0] - 0.02 <= y <= chart.y[1] + reach
            ):
                return suffix
        return None

    def move_y(self, y: float, suffix: str | None) -> float:
        """A paper y in the grid, in the stack: linear inside its chart, the same distance in px
        above or below it; outside every chart, the same distance in px from the paper's edge."""
        if suffix is None:
            edge = 0.0 if y < 0.5 else 1.0
            return edge + (y - edge) * self.old_plot_px / self.new_plot_px
        old, new = self.old[suffix], self.new[suffix]
        if y > old.y[1]:
            return new.y[1] + (y - old.y[1]) * self.old_plot_px / self.new_plot_px
        if y < old.y[0]:
            return new.y[0] - (old.y[0] - y) * self.old_plot_px / self.new_plot_px
        share = (y - old.y[0]) / max(1e-9, old.y[1] - old.y[0])
        return new.y[0] + share * (new.y[1] - new.y[0])

    def move_x(self, x: float, suffix: str | None) -> float:
        if suffix is None:
            return x
        old, new = self.old[suffix], self.new[suffix]
        share = (x - old.x[0]) / max(1e-9, old.x[1] - old.x[0])
        return new.x[0] + share * (new.x[1] - new.x[0])


def _own_colour_bar(trace: dict) -> dict:
    """The trace, with a colour bar of its own to move if it has one (its arrays shared)."""
    if "colorbar" in trace:
        return {**trace, "colorbar": dict(trace["colorbar"])}
    if "colorbar" in trace.get("marker", {}):
        marker = trace["marker"]
        return {**trace, "marker": {**marker, "colorbar": dict(marker["colorbar"])}}
    return trace


def _colour_bars(data: list[dict]) -> list[tuple[str, dict]]:
    """(axes suffix, colour bar) of every trace that shows one."""
    bars = []
    for trace in data:
        suffix = trace.get("xaxis", "x").removeprefix("x")
        bar = trace.get("colorbar") or trace.get("marker", {}).get("colorbar")
        if bar is not None and trace.get("showscale", True) is not False:
            bars.append((suffix, bar))
    return bars


def _move_paper_items(layout: dict, restack: Restack) -> None:
    """Annotations and shapes placed on the paper follow their chart."""
    for item in layout.get("annotations", []):
        if item.get("xref") == "paper" and item.get("yref") == "paper":
            owner = restack.owner(item.get("x", 0.5), item.get("y", 0.5))
            item["x"] = restack.move_x(item.get("x", 0.5), owner)
            item["y"] = restack.move_y(item.get("y", 0.5), owner)
    for shape in layout.get("shapes", []):
        if shape.get("yref") == "paper" and shape.get("xref") == "paper":
            owner = restack.owner(shape.get("x0", 0), shape.get("y1", 0))
            for key in ("y0", "y1"):
                shape[key] = restack.move_y(shape.get(key, 0), owner)
            for key in ("x0", "x1"):
                shape[key] = restack.move_x(shape.get(key, 0), owner)


def _stack(figure: dict, charts: list[Chart]) -> None:
    """Every chart of the grid in a row of its own, in place."""
    layout = figure["layout"]
    restack = Restack(layout, charts)
    bars = _colour_bars(figure["data"])
    for suffix, bar in bars:
        if suffix in restack.new:
            restack.narrow_x(suffix, COLORBAR_PLOT_END)
            chart = restack.new[suffix]
            bar.update(x=COLORBAR_PLOT_END + 0.03, xanchor="left", yanchor="middle")
            bar.update(y=sum(chart.y) / 2, len=chart.y[1] - chart.y[0], lenmode="fraction")
    for suffix, chart in restack.new.items():
        layout[f"xaxis{suffix}"]["domain"] = list(chart.x)
        layout[f"yaxis{suffix}"]["domain"] = list(chart.y)
    _move_paper_items(layout, restack)
    margin = layout.get("margin", {})
    layout["height"] = round(restack.new_plot_px + margin.get("t", 80) + margin.get("b", 80))


def _title_under_the_mode_bar(layout: dict) -> None:
    """The title wrapped, at the card's left (a little in) and below Plotly's mode bar, which a
    touch screen always shows: the top margin grows by what that takes."""
    title = layout.get("title")
    if not isinstance(title, dict) or not isinstance(title.get("text"), str):
        return
    title["text"], lines = wrap(title["text"], TITLE_CHARS)
    size = min(title.get("font", {}).get("size", TITLE_FONT_PX), TITLE_FONT_PX)
    title["font"] = {**title.get("font", {}), "size": size}
    title.update(xref="container", x=0, xanchor="left", yref="container", y=1, yanchor="top")
    title["pad"] = {"t": MODE_BAR_PX, "l": TITLE_INSET_PX}
    extra = MODE_BAR_PX + (lines - 1) * TITLE_LINE_PX
    margin = layout.setdefault("margin", {})
    margin["t"] = margin.get("t", 80) + extra
    layout["height"] = layout.get("height", 450) + extra


def legend_names(figure: dict) -> list[str]:
    """The names the figure's legend lists, as text (none when it shows no legend)."""
    data, layout = figure["data"], figure["layout"]
    if layout.get("showlegend") is False:
        return []
    shown = [t for t in data if t.get("showlegend", len(data) > 1) is not False and t.get("name")]
    return [re.sub(r"<[^>]+>", "", str(trace["name"])) for trace in shown]


def legend_rows(
    names: list[str], line_px: float = LEGEND_LINE_PX, font_px: float = LEGEND_FONT_PX
) -> int:
    """How many rows a legend of these names wraps into where its line is line_px wide (Plotly
    wraps a horizontal legend at the plot's width; a 390 px card by default), estimated from
    their lengths in type of font_px."""
    char_px = LEGEND_CHAR_PX * font_px / LEGEND_FONT_PX
    rows, used = 1, 0.0
    for name in names:
        width = LEGEND_SYMBOL_PX + char_px * len(name)
        if used and used + width > line_px:
            rows, used = rows + 1, 0.0
        used += width
    return rows


def _legend_at_the_foot(figure: dict, narrow: bool) -> None:
    """A legend stands at the figure's foot, with the room its rows need added below the last
    chart's axis title: on a narrow card any legend, in small type; on a wide one a legend under
    the chart. (A legend laid out under the plot grows upwards from where it is put, and wraps
    into more rows than the figure left room for: over the axis title, then over the chart; one
    inside a narrow chart covers its tick labels.)"""
    layout = figure["layout"]
    names = legend_names(figure)
    legend = layout.get("legend", {"y": TEMPLATE_LEGEND_Y})
    if not names or not isinstance(legend, dict) or (not narrow and legend.get("y", 1) >= 0):
        return
    legend = layout["legend"] = dict(legend)
    legend.update(orientation="h", x=0, xanchor="left", yref="container", y=0, yanchor="bottom")
    if narrow:
        legend["font"] = {**legend.get("font", {}), "size": LEGEND_FONT_PX}
        rows = legend_rows(names)
    else:
        font_px = legend.get("font", {}).get("size", WIDE_LEGEND_FONT_PX)
        rows = legend_rows(names, WIDE_LEGEND_LINE_PX, font_px)
    room = rows * LEGEND_ROW_PX + LEGEND_ROW_PX // 2
    margin = layout.setdefault("margin", {})
    margin["b"] = margin.get("b", 80) + room
    layout["height"] = layout.get("height", 450) + room


def for_wide_screen(figure: dict) -> dict:
    """The figure as a wide card draws it: a legend under the chart at the figure's foot."""
    figure = {**figure, "layout": copy.deepcopy(figure["layout"])}
    _legend_at_the_foot(figure, narrow=False)
    return figure


def for_narrow_screen(figure: dict) -> dict:
    """The figure as a narrow card draws it: charts side by side stacked, titles wrapped."""
    # The layout is copied, the traces only where a colour bar moves: their arrays are shared.
    figure = {**figure, "data": [_own_colour_bar(t) for t in figure["data"]]}
    layout = figure["layout"] = copy.deepcopy(figure["layout"])
    charts = charts_of(layout)
    if len(charts) > 1 and side_by_side(charts):
        _stack(figure, charts)
    if "annotations" in layout:
        kept = [a for a in layout["annotations"] if a.get("name") != WIDE_ONLY]
        layout["annotations"] = kept
    for item in layout.get("annotations", []):
        if isinstance(item.get("text"), str):
            item["text"] = wrap(item["text"], CAPTION_CHARS)[0]
    _title_under_the_mode_bar(layout)
    _legend_at_the_foot(figure, narrow=True)
    # Says, in the browser (gd.layout.meta), which figure this is.
    layout["meta"] = {**layout.get("meta", {}), NARROW_MARK: True}
    return figure


def narrow_update(update, wide_layout: dict):
    """A pick's update (plotkit/picks.Update) as the narrow card's figure takes it: a title or an
    annotation's text wrapped as for_narrow_screen wraps them, an annotation's index counted
    without the ones a narrow card leaves out; None for an update of one of those."""
    path = update.path
    if update.target != "layout":
        return update
    match = re.match(r"annotations\[(\d+)\](.*)", path)
    width = TITLE_CHARS if path == "title.text" else CAPTION_CHARS
    if match:
        annotations = wide_layout.get("annotations") or []
        index = int(match[1])
        if index >= len(annotations) or annotations[index].get("name") == WIDE_ONLY:
            return None
        kept = sum(1 for a in annotations[:index] if a.get("name") != WIDE_ONLY)
        path = f"annotations[{kept}]{match[2]}"
    if path != "title.text" and not (match and match[2] == ".text"):
        return dataclasses.replace(update, path=path)
    if update.text is not None:
        count = len(update.text.slots[0]) if update.text.slots else 1
        texts = [wrap(update.text.at(i), width)[0] for i in range(count)]
        text = compressed(texts) if update.text.slots else Text((texts[0],), ())
        return Update("layout", path, text=text)
    return Update("layout", path, each=tuple(wrap(str(v), width)[0] for v in update.each))


def card_room(axis: AxisPicks, card: dict) -> list[Update]:
    """The top margin, bottom margin and height of the narrow card at each value of axis, from
    the card drawn now: each title line past the first adds TITLE_LINE_PX
    (_title_under_the_mode_bar), each legend row LEGEND_ROW_PX (_legend_at_the_foot). Nothing
    when neither changes."""
    layout = card["layout"]
    title = next((u for u in axis.updates if u.target == "layout" and u.path == "title.text"), None)
    names = {u.trace: u for u in axis.updates if u.target == "trace" and u.path == "name"}
    if (title is None or title.text is None) and not names:
        return []
    now_lines = str(layout.get("title", {}).get("text", "")).count("<br>") + 1
    now_rows = legend_rows(legend_names(card)) if legend_names(card) else 0
    tops, bottoms = [], []
    for i in range(axis.count):
        lines = wrap(title.value({}, i), TITLE_CHARS)[1] if title is not None else now_lines
        data = [
            {**trace, "name": names[t].value({}, i)} if t in names else trace
            for t, trace in enumerate(card["data"])
        ]
        shown = legend_names({"data": data, "layout": layout})
        rows = legend_rows(shown) if shown else 0
        tops.append((lines - now_lines) * TITLE_LINE_PX)
        bottoms.append((rows - now_rows) * LEGEND_ROW_PX)
    tops, bottoms = np.array(tops, dtype=float), np.array(bottoms, dtype=float)
    if not tops.any() and not bottoms.any():
        return []
    margin = layout.get("margin", {})
    return [
        Update("layout", "margin.t", each=margin.get("t", 80) + tops),
        Update("layout", "margin.b", each=margin.get("b", 80) + bottoms),
        Update("layout", "height", each=layout["height"] + tops + bottoms),
    ]


def narrow_picks(picks: Picks, wide_layout: dict, card: dict) -> Picks:
    """Picks made for a wide card, for the narrow card (card: the figure drawn) made from the
    same figure."""
    axes = []
    for axis in picks.axes:
        updates = [narrow_update(update, wide_layout) for update in axis.updates]
        kept = [update for update in updates if update is not None]
        narrow = AxisPicks(axis.axis, axis.start, axis.count, axis.at, tuple(kept))
        room = card_room(narrow, card)
        axes.append(AxisPicks(axis.axis, axis.start, axis.count, axis.at, (*kept, *room)))
    return Picks(picks.tables, tuple(axes))

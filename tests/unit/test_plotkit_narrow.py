"""A narrow card's figure (plotkit/narrow.py): charts side by side drawn one above the other at
full width, each with its caption and colour bar; titles wrapped; the numbers untouched."""

from __future__ import annotations

import copy
import itertools

import pytest
from pe_explorer.plotkit import narrow
from pe_explorer.plotkit.narrow import (
    Chart,
    charts_of,
    for_narrow_screen,
    for_wide_screen,
    side_by_side,
    wrap,
)
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS, view_spec


def figure_of(name: str, **values) -> dict:
    spec = view_spec(name)
    figure = spec.figure(ExplorerState(**values))
    figure["layout"].setdefault("height", spec.plot_height)
    return figure


def plot_px(layout: dict) -> float:
    margin = layout["margin"]
    return layout["height"] - margin["t"] - margin["b"]


@pytest.mark.parametrize("name", ("scaling", "rope", "alibi", "t5", "shaw", "dotproduct", "nope"))
def test_charts_side_by_side_are_stacked_at_full_width(name):
    wide = figure_of(name)
    assert side_by_side(charts_of(wide["layout"]))
    stacked = for_narrow_screen(wide)
    charts = charts_of(stacked["layout"])
    assert len(charts) == len(charts_of(wide["layout"]))
    assert not side_by_side(charts)
    for upper, lower in itertools.pairwise(charts):
        gap_px = (upper.y[0] - lower.y[1]) * plot_px(stacked["layout"])
        assert gap_px >= narrow.ROW_GAP_PX - 1, (upper, lower)
    for chart in charts:
        assert chart.x[0] == 0.0 and chart.x[1] >= narrow.COLORBAR_PLOT_END
        assert (chart.y[1] - chart.y[0]) * plot_px(stacked["layout"]) >= narrow.MIN_ROW_PX - 1


def test_the_numbers_are_the_wide_figures():
    wide = figure_of("scaling", scaling="yarn", factor=4)
    stacked = for_narrow_screen(wide)
    assert len(stacked["data"]) == len(wide["data"])
    for ours, theirs in zip(stacked["data"], wide["data"], strict=True):
        assert ours.keys() == theirs.keys()
        for key in ours.keys() - {"colorbar", "marker"}:
            assert ours[key] is theirs[key], key  # the very arrays: nothing recomputed or copied


def test_the_wide_figure_is_left_as_it_was():
    wide = figure_of("rope")
    before = copy.deepcopy(wide)
    for_narrow_screen(wide)
    assert wide["layout"] == before["layout"]
    bars = [trace.get("colorbar") for trace in wide["data"]]
    assert any(bars) and bars == [trace.get("colorbar") for trace in before["data"]]


def test_a_colour_bar_stands_beside_its_own_chart():
    stacked = for_narrow_screen(figure_of("rope"))
    charts = {chart.suffix: chart for chart in charts_of(stacked["layout"])}
    bars = [t for t in stacked["data"] if t.get("colorbar")]
    assert bars
    for trace in bars:
        chart = charts[trace.get("xaxis", "x").removeprefix("x")]
        bar = trace["colorbar"]
        assert chart.y[0] <= bar["y"] <= chart.y[1]
        assert bar["len"] == pytest.approx(chart.y[1] - chart.y[0])
        assert bar["x"] > chart.x[1]


def test_each_caption_sits_just_above_its_chart():
    wide = figure_of("scaling")
    stacked = for_narrow_screen(wide)
    charts = charts_of(stacked["layout"])
    captions = [
        a
        for a in stacked["layout"]["annotations"]
        if a.get("xref") == "paper" and a.get("yanchor") == "bottom"
    ]
    assert len(captions) == len(charts)
    for chart in charts:
        above = [c for c in captions if chart.y[1] <= c["y"] <= chart.y[1] + 0.03]
        assert len(above) == 1, (chart, captions)
        assert above[0]["x"] == pytest.approx(0.0)


def test_a_stack_keeps_its_places_and_gets_its_title_wrapped():
    wide = figure_of("waves")
    stacked = for_narrow_screen(wide)
    assert charts_of(stacked["layout"]) == charts_of(wide["layout"])
    lines = stacked["layout"]["title"]["text"].split("<br>")
    assert len(lines) > 1 and all(len(line) <= narrow.TITLE_CHARS for line in lines)
    extra = narrow.MODE_BAR_PX + (len(lines) - 1) * narrow.TITLE_LINE_PX
    assert stacked["layout"]["margin"]["t"] == wide["layout"]["margin"]["t"] + extra
    rows = narrow.legend_rows(narrow.legend_names(wide))
    room = rows * narrow.LEGEND_ROW_PX + narrow.LEGEND_ROW_PX // 2  # the legend's, at the foot
    assert stacked["layout"]["height"] == wide["layout"]["height"] + extra + room


def test_the_title_starts_inside_the_card_below_the_mode_bar():
    title = for_narrow_screen(figure_of("compare"))["layout"]["title"]
    assert title["xref"] == title["yref"] == "container"
    assert (title["x"], title["xanchor"], title["y"], title["yanchor"]) == (0, "left", 1, "top")
    assert title["pad"] == {"t": narrow.MODE_BAR_PX, "l": narrow.TITLE_INSET_PX}
    assert title["font"]["size"] <= narrow.TITLE_FONT_PX


def test_a_narrow_figure_says_so_and_a_wide_one_does_not():
    wide = figure_of("waves")
    assert narrow.NARROW_MARK not in wide["layout"].get("meta", {})
    assert for_narrow_screen(wide)["layout"]["meta"][narrow.NARROW_MARK] is True


def test_wrap_leaves_markup_with_attributes_and_own_breaks_alone():
    assert wrap("a<br>b", 1) == ("a<br>b", 2)
    tagged = '<span style="color: red">a long title that would wrap</span>'
    assert wrap(tagged, 10) == (tagged, 1)
    assert wrap("θ<sub>i</sub> of every pair in the head", 12)[1] == 4


def test_side_by_side_is_about_a_shared_band_of_height():
    assert side_by_side([Chart("", (0, 0.4), (0, 1)), Chart("2", (0.6, 1), (0, 1))])
    assert not side_by_side([Chart("", (0, 1), (0.6, 1)), Chart("2", (0, 1), (0, 0.4))])


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.name)
def test_every_view_has_a_narrow_figure(spec):
    wide = figure_of(spec.name)
    stacked = for_narrow_screen(wide)
    assert stacked["layout"]["height"] >= wide["layout"]["height"]
    assert not side_by_side(charts_of(stacked["layout"]))


def test_words_the_readout_also_has_are_left_out_of_a_narrow_chart():
    wide = figure_of("methods")
    assert any(a.get("name") == narrow.WIDE_ONLY for a in wide["layout"]["annotations"])
    kept = for_narrow_screen(wide)["layout"]["annotations"]
    assert kept and all(a.get("name") != narrow.WIDE_ONLY for a in kept)


def test_a_view_turning_narrow_sends_its_figure_whole_then_patches_again():
    from pe_explorer.plotkit.frame import PlotView

    view = PlotView(state=ExplorerState(), spec=view_spec("rope"))
    sent = []
    view._plot.show = lambda figure, whole=False: sent.append((whole, figure))
    view.narrow = True
    view.state.pos = 9
    assert [whole for whole, _ in sent] == [True, False]
    assert all(not side_by_side(charts_of(figure["layout"])) for _, figure in sent)


def test_a_legend_under_the_charts_stands_at_the_foot_with_room_for_its_rows():
    wide = figure_of("methods")
    names = narrow.legend_names(wide)
    stacked = for_narrow_screen(wide)
    legend = stacked["layout"]["legend"]
    assert (legend["yref"], legend["y"], legend["yanchor"]) == ("container", 0, "bottom")
    room = narrow.legend_rows(names) * narrow.LEGEND_ROW_PX + narrow.LEGEND_ROW_PX // 2
    assert stacked["layout"]["margin"]["b"] == wide["layout"]["margin"]["b"] + room
    # Long names wrap one to a row; short ones share rows.
    assert narrow.legend_rows(["a name that fills a row on its own", "and another"]) == 2
    assert narrow.legend_rows(["sin", "cos", "tan"]) == 1


def test_a_legend_inside_a_narrow_chart_goes_to_the_foot_off_its_tick_labels():
    wide = figure_of("rotation")
    assert wide["layout"]["legend"]["y"] >= 0  # inside the chart, at its bottom right
    legend = for_narrow_screen(wide)["layout"]["legend"]
    assert (legend["orientation"], legend["yref"], legend["y"]) == ("h", "container", 0)


def test_on_a_wide_card_a_legend_under_the_chart_gets_the_rows_of_the_narrowest():
    wide = figure_of("methods")
    drawn = for_wide_screen(wide)
    legend = drawn["layout"]["legend"]
    assert (legend["yref"], legend["y"], legend["yanchor"]) == ("container", 0, "bottom")
    rows = narrow.legend_rows(narrow.legend_names(wide), narrow.WIDE_LEGEND_LINE_PX, 12)
    assert rows > 1
    room = rows * narrow.LEGEND_ROW_PX + narrow.LEGEND_ROW_PX // 2
    assert drawn["layout"]["height"] == wide["layout"]["height"] + room
    assert "yref" not in wide["layout"]["legend"]  # the view's own figure is left as it was
    # A legend inside the chart stays there on a wide card.
    assert (
        for_wide_screen(figure_of("rotation"))["layout"]["legend"]
        == (figure_of("rotation")["layout"]["legend"])
    )


@pytest.mark.parametrize("name", ["ropecheck", "checker", "model", "tokens", "learned"])
def test_a_view_with_a_figure_of_its_own_is_drawn_narrow_on_a_narrow_card(name):
    """Views whose figure() is their own (an upload, the model, the pipeline) are laid out for
    the card's width too: the page waits for the narrow mark on a phone."""
    view = view_spec(name).make(ExplorerState())
    view.narrow = True
    assert view.card_figure()["layout"]["meta"][narrow.NARROW_MARK] is True

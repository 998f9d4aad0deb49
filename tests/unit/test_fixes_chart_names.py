"""NamedPlotly: a chart's accessible name travels to the page in its model's tags."""

from pe_explorer.fixes.chart_names import NamedPlotly

FIGURE = {"data": [{"type": "scatter", "x": [0, 1], "y": [1, 0]}], "layout": {}}


def test_the_name_is_on_the_model_from_the_start():
    pane = NamedPlotly(FIGURE, label="PE matrix, row 7 highlighted")
    assert pane.get_root().tags == ["PE matrix, row 7 highlighted", "", 0]


def test_a_new_name_reaches_the_model_without_resending_the_figure():
    pane = NamedPlotly(FIGURE, label="before")
    model = pane.get_root()
    figures = []
    model.on_change("data", lambda attr, old, new: figures.append(new))
    pane.label = "after"
    assert model.tags == ["after", "", 0]
    assert figures == []


def test_a_name_is_not_part_of_the_figure():
    pane = NamedPlotly(FIGURE, label="a chart")
    assert "meta" not in pane.get_root().layout


def test_the_picks_key_and_generation_travel_beside_the_name():
    pane = NamedPlotly(FIGURE, label="a chart", pick_key="heatmap-1")
    model = pane.get_root()
    pane.pick_generation = 3
    assert model.tags == ["a chart", "heatmap-1", 3]

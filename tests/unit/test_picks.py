"""Python computes, the page picks: what a view's picks give at each value of pos or k is what
Python draws there, to the digit, and they cover everything Python's drawing changes.

Each view is built as the page builds it; its picks are taken at one state, then pos (or k) is
set to another value and Python draws it: the pick (plotkit.picks.pick, the page's rule) must
equal that figure's values at every path the picks name, the chart's name, its Show data caption
and the panes under it; and every figure path that changed must be among the picks' paths.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from pe_explorer.fixes.plotly_patch import CONTAINER_ARRAYS, changed_paths, flatten, same_value
from pe_explorer.plotkit import picks as picks_kit
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS, view_spec

PICKED_VIEWS = [spec.name for spec in VIEWS if spec.picks is not None]
# Each view with picks and each axis it follows (one it does not follow it never picks).
PICKED_AXES = [
    (spec.name, axis)
    for spec in VIEWS
    if spec.picks is not None
    for axis in picks_kit.AXES
    if axis in spec.follows
]
# States each view's picks are checked at: the default page, a negative k, a pos + k beyond the
# rows, a long sequence, the concatenated layout, a wide model.
STATES = [
    {},
    {"pos": 20, "offset": -12},
    {"n_positions": 40, "pos": 30, "offset": 25},
    {"n_positions": 600, "pos": 300, "offset": 7, "d_model": 64},
    {"layout": "concatenated", "pos": 3, "offset": 5, "d_model": 32},
    {"d_model": 512, "n_positions": 128, "pos": 100, "offset": 27},
]
CAPTION = re.compile(r"<caption>(.*?)</caption>")


def values_to_check(axis: picks_kit.AxisPicks, current: int) -> list[int]:
    """Both ends, the current value's neighbours and a few between."""
    last = axis.start + axis.count - 1
    chosen = {axis.start, last, current - 1, current + 1, (axis.start + last) // 2}
    chosen |= {axis.start + (axis.count * j) // 7 for j in range(7)}
    return sorted(v for v in chosen if axis.start <= v <= last and v != current)


def drawn(view) -> dict:
    """What Python shows now: the figure's flattened paths, the name, the caption, the panes."""
    figure = view._plot.object
    layout = flatten(figure["layout"], items=CONTAINER_ARRAYS)
    traces = [flatten(trace) for trace in figure["data"]]
    caption = CAPTION.search(view._data.object)
    panes = {}
    for pane in view.content().objects:
        for css_class in getattr(pane, "css_classes", None) or []:
            panes[css_class] = pane.object
    # The Show data table: its caption is picked; its rows wait for Python (a table per value
    # would be most of what the picks weigh).
    panes.pop("pe-data-pane", None)
    return {
        "layout": layout,
        "traces": traces,
        "label": view._plot.label,
        "caption": html.unescape(caption.group(1)) if caption else None,
        "panes": panes,
    }


def assert_same(picked, shown, where: str) -> None:
    if isinstance(shown, np.ndarray) or isinstance(picked, np.ndarray):
        picked, shown = np.asarray(picked), np.asarray(shown)
        # NaN in numbers: a point not drawn, by both.
        numbers = picked.dtype.kind == "f" and shown.dtype.kind == "f"
        assert np.array_equal(picked, shown, equal_nan=numbers), where
    else:
        assert same_value(picked, shown), f"{where}: picked {picked!r}, drawn {shown!r}"


def assert_pick_is_drawing(picked: dict, now: dict, where: str) -> None:
    for index, attributes in picked["trace"].items():
        for path, value in attributes.items():
            assert_same(value, now["traces"][index].get(path), f"{where} trace {index} {path}")
    for path, value in picked["layout"].items():
        assert_same(value, now["layout"].get(path), f"{where} layout {path}")
    for css_class, value in picked["pane"].items():
        assert_same(value, now["panes"][css_class], f"{where} pane {css_class}")
    for target in ("label", "caption"):
        if target in picked:
            assert_same(picked[target], now[target], f"{where} {target}")


def assert_picks_cover(picked: dict, before: dict, now: dict, where: str) -> None:
    """Every path, name, caption and pane that changed from the picks' drawing is picked."""
    layout_paths = changed_paths(before["layout"], now["layout"])
    assert layout_paths <= picked["layout"].keys(), f"{where}: unpicked {layout_paths}"
    for index, (old, new) in enumerate(zip(before["traces"], now["traces"], strict=True)):
        paths = changed_paths(old, new)
        assert paths <= picked["trace"].get(index, {}).keys(), f"{where} trace {index}: {paths}"
    for target in ("label", "caption"):
        if before[target] != now[target]:
            assert target in picked, f"{where}: {target} changed but is not picked"
    for css_class, text in now["panes"].items():
        if before["panes"].get(css_class) != text:
            assert css_class in picked["pane"], f"{where}: pane {css_class} is not picked"


@pytest.mark.parametrize("values", STATES, ids=lambda values: ",".join(map(str, values.items())))
@pytest.mark.parametrize(("name", "axis"), PICKED_AXES)
def test_a_pick_is_what_python_draws_at_that_value(name, axis, values):
    check_picks(name, axis, values, narrow=False)


@pytest.mark.parametrize(
    "values", STATES[:2], ids=lambda values: ",".join(map(str, values.items()))
)
@pytest.mark.parametrize(("name", "axis"), PICKED_AXES)
def test_a_pick_on_a_narrow_card_is_what_python_draws_there(name, axis, values):
    """A phone's card: titles wrapped, charts stacked, wide-only notes left out."""
    check_picks(name, axis, values, narrow=True)


def check_picks(name: str, axis: str, values: dict, narrow: bool) -> None:
    spec = view_spec(name)
    state = ExplorerState(**values)
    view = spec.make(state)
    view.__panel__()
    view.narrow = narrow
    picks = view.picks()
    if picks is None:
        pytest.skip(f"{name} sends no picks at {values}")
    axis_picks = picks.axis(axis)
    assert axis_picks is not None, f"{name} picks no {axis}"
    before = drawn(view)
    current, held = getattr(state, axis), (state.pos, state.offset)
    assert_pick_is_drawing(picks_kit.pick(picks, axis, current), before, f"{name} {axis}={current}")
    for value in values_to_check(axis_picks, current):
        picked = picks_kit.pick(picks, axis, value)
        setattr(state, axis, value)
        now = drawn(view)
        where = f"{name} {axis}={value}"
        assert_pick_is_drawing(picked, now, where)
        assert_picks_cover(picked, before, now, where)
        # Back where the picks were made (a pos below −k raised k: ExplorerState.limits).
        state.param.update(pos=held[0], offset=held[1])


@pytest.mark.parametrize("name", PICKED_VIEWS)
def test_picks_hold_every_value_the_sliders_offer(name):
    state = ExplorerState(pos=5, offset=-3)
    picks = view_spec(name).picks(state)
    limits = state.limits()
    for axis in picks.axes:
        low, high = limits[axis.axis]
        assert (axis.start, axis.start + axis.count - 1) == (low, high)
        assert axis.at == (state.offset if axis.axis == "pos" else state.pos)


def test_a_text_is_its_parts_around_each_values_numbers():
    text = picks_kit.compressed(["pos 7 · k = −1", "pos 8 · k = −1", "pos 9 · k = 2"])
    assert text.parts == ("pos ", " · k = ", "")
    assert [text.at(i) for i in range(3)] == ["pos 7 · k = −1", "pos 8 · k = −1", "pos 9 · k = 2"]


def test_texts_of_other_words_are_kept_whole():
    text = picks_kit.compressed(["row 3 dotted", "row 4 below"])
    assert [text.at(i) for i in range(2)] == ["row 3 dotted", "row 4 below"]


def test_a_table_too_large_to_send_leaves_the_axis_to_python():
    state = ExplorerState(n_positions=2048, d_model=2048)
    assert view_spec("compare").picks(state) is None


def test_a_clicked_cells_formula_is_picked_in_its_column_and_kept_where_it_was_clicked():
    """A click on the heatmap (row 20, dimension 3, pos at 7) shows that cell's formula; the
    page's picks keep it at pos 7 and follow pos in column 3, as Python draws them."""
    state = ExplorerState()
    view = view_spec("heatmap").make(state)
    view.__panel__()
    view._cell_clicked(
        type(
            "Event", (), {"new": {"points": [{"x": view._plot.object["data"][0]["x"][3], "y": 20}]}}
        )
    )
    picks = view.picks()
    assert picks_kit.pick(picks, "pos", 7)["pane"]["pe-cell-formula"] == view._formula.object
    assert 'data-pos="20" data-dimension="3"' in view._formula.object
    state.pos = 9
    assert picks_kit.pick(picks, "pos", 9)["pane"]["pe-cell-formula"] == view._formula.object
    assert 'data-pos="9" data-dimension="3"' in view._formula.object

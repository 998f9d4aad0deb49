"""No view redraws what did not change: moving pos or k sends small patches, never whole figures
or a recomputed matrix, and a view that does not show pos sends nothing at all."""

from __future__ import annotations

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from pe_explorer import derived
from pe_explorer.fixes.plotly_patch import same_value
from pe_explorer.state import ExplorerState
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.views import VIEW_NAMES, compare, view_spec


class Sent:
    """What one view's pane sent to the browser: whole figures, and patches."""

    def __init__(self, pane):
        self.whole = 0
        self.patches: list[tuple[dict, dict, list[int]]] = []
        # A patch sets .object without an event; only whole figures trigger it.
        pane.param.watch(self._count_whole, "object")
        send = pane._send_patch

        def record(restyle, relayout, traces):
            self.patches.append((restyle, relayout, traces))
            send(restyle, relayout, traces)

        pane._send_patch = record

    def _count_whole(self, event):
        self.whole += 1


def page_showing(*names: str) -> ExplorerPage:
    """The whole page with live Bokeh models, as a browser session has them, with the views named
    on screen (so those are built and follow the state): every view unless names are given."""
    page = ExplorerPage(state=ExplorerState(n_positions=128, d_model=128))
    pn.panel(page).get_root(Document())
    for name in names or VIEW_NAMES:
        page.probe(name).on_screen = True
    return page


def sent_by(page, name: str) -> Sent:
    return Sent(page.view(name)._plot)


def model_of(pane):
    ((model, _),) = pane._models.values()
    return model


@pytest.mark.parametrize("parameter", ["pos", "offset"])
def test_moving_pos_or_k_never_recomputes_the_matrix(parameter):
    page = page_showing()
    before = derived.pe_matrix.cache_info()
    for _ in range(3):
        setattr(page.state, parameter, getattr(page.state, parameter) + 1)
    after = derived.pe_matrix.cache_info()
    assert after.misses == before.misses
    assert after.currsize == before.currsize


@pytest.mark.parametrize("parameter", ["pos", "offset"])
def test_frequency_view_sends_nothing_when_pos_or_k_move(parameter):
    page = page_showing("frequency")
    sent = sent_by(page, "frequency")
    setattr(page.state, parameter, getattr(page.state, parameter) + 1)
    assert (sent.whole, sent.patches) == (0, [])


@pytest.mark.parametrize("name", ["heatmap", "waves", "compare"])
@pytest.mark.parametrize("parameter", ["pos", "offset"])
def test_moving_pos_or_k_sends_one_patch_and_no_whole_figure(name, parameter):
    page = page_showing(name)
    sent = sent_by(page, name)
    setattr(page.state, parameter, getattr(page.state, parameter) + 1)
    assert sent.whole == 0
    assert len(sent.patches) == 1


def test_heatmap_patch_moves_the_row_markers_and_does_not_resend_the_matrix():
    page = page_showing("heatmap")
    sent = sent_by(page, "heatmap")
    page.state.pos = 20
    ((restyle, relayout, traces),) = sent.patches
    assert (restyle, traces) == ({}, [])
    # Indexed paths of layout images: Plotly moves the two markers without redrawing the heatmap.
    assert relayout == {"images[0].y": 20, "images[1].y": 21}


def test_waves_patch_moves_the_lines_and_resends_no_curve():
    page = page_showing("waves")
    sent = sent_by(page, "waves")
    page.state.pos = 20
    ((restyle, relayout, _),) = sent.patches
    assert restyle == {}
    assert {path.split(".")[0] for path in relayout} == {"images[0]", "images[1]", "title"}
    assert "lines at pos = 20 and pos + k = 21" in relayout["title.text"]


def test_compare_patch_carries_the_two_new_vectors():
    page = page_showing("compare")
    sent = sent_by(page, "compare")
    page.state.pos = 20
    ((restyle, _, traces),) = sent.patches
    assert traces == [0, 1]
    expected = derived.pe_pair(page.state)
    np.testing.assert_array_equal(restyle["y"][0], expected[0])
    np.testing.assert_array_equal(restyle["y"][1], expected[1])


def test_the_patch_reaches_the_bokeh_model():
    page = page_showing("heatmap")
    pane = page.view("heatmap")._plot
    page.state.pos = 30
    assert model_of(pane).relayout["images[0].y"] == 30


def test_after_a_patch_the_pane_holds_the_current_figure():
    page = page_showing("waves")
    view = page.view("waves")
    page.state.pos = 25
    assert same_value(view._plot.object, view.card_figure())


def test_refreshing_an_unchanged_view_sends_nothing():
    page = page_showing("compare")
    view = page.view("compare")
    page.state.pos = 25
    sent = Sent(view._plot)
    view._refresh()
    assert (sent.whole, sent.patches) == (0, [])


def test_changing_d_model_sends_the_heatmap_whole():
    page = page_showing("heatmap")
    sent = sent_by(page, "heatmap")
    page.state.d_model = 64
    assert sent.whole == 1
    assert sent.patches == []


@pytest.mark.parametrize(("d_model", "kind"), [(128, "bar"), (256, "bar"), (258, "scatter")])
def test_compare_draws_many_dimensions_as_a_filled_step_line(d_model, kind):
    state = ExplorerState(d_model=d_model)
    traces = compare.figure(state)["data"]
    assert [trace["type"] for trace in traces] == [kind, kind]
    np.testing.assert_array_equal(traces[0]["y"], derived.pe_pair(state)[0])
    if kind == "scatter":
        assert (traces[0]["line"]["shape"], traces[0]["fill"]) == ("hvh", "tozeroy")


def test_a_patch_equal_to_the_last_one_is_still_sent():
    page = page_showing("heatmap")
    # The page resets relayout to null after applying it; until that arrives, the model still
    # holds the last patch, and setting an equal value would send nothing.
    pane = page.view("heatmap")._plot
    model = model_of(pane)
    page.state.pos = 30
    sent = []
    model.on_change("relayout", lambda attr, old, new: sent.append(new))
    pane._send_patch({}, dict(model.relayout), [])
    assert sent[-1] == model.relayout
    assert len(sent) == 2


def test_a_view_off_screen_waits_and_catches_up_when_back():
    page = page_showing("properties")
    sent = sent_by(page, "properties")
    page.probe("properties").on_screen = False
    page.state.pos += 3
    assert (sent.whole, sent.patches) == (0, [])
    page.probe("properties").on_screen = True
    assert sent.whole + len(sent.patches) == 1
    view = page.view("properties")
    assert same_value(view._plot.object, view.card_figure())


@pytest.mark.parametrize("name", VIEW_NAMES)
def test_moving_pos_or_k_recomputes_no_array(name):
    """Moving pos or k redraws every view from the arrays it already has: no cache of derived
    misses."""
    spec = view_spec(name)
    state = ExplorerState(n_positions=300, d_model=96, seed=3, pairs=[0, 5, 9])

    def draw():
        spec.figure(state), spec.describe(state), spec.data(state)
        if spec.readout:
            spec.readout(state)

    draw()
    before = [cache.cache_info().misses for cache in derived.cached_functions()]
    for pos in range(0, 300, 37):
        state.pos, state.offset = pos, -pos // 2
        draw()
    after = [cache.cache_info().misses for cache in derived.cached_functions()]
    recomputed = {
        cache.__name__
        for cache, first, last in zip(derived.cached_functions(), before, after, strict=True)
        if first != last
    }
    assert recomputed == set()

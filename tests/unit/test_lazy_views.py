"""Start-up builds only the first row of views; the others are built when they come on screen,
showing the state as it is then."""

from __future__ import annotations

import html

import panel as pn
import pytest
from bokeh.document import Document
from panel.models.plotly import PlotlyPlot
from pe_explorer.fixes.plotly_patch import same_value
from pe_explorer.state import ExplorerState
from pe_explorer.ui.lazy_views import EAGER_VIEWS
from pe_explorer.ui.navigation import card_heading
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.ui.page_options import PageOptions
from pe_explorer.views import VIEW_NAMES, VIEWS


def served(page: ExplorerPage):
    """The page's Bokeh root, as a browser session gets it."""
    return pn.panel(page).get_root(Document())


def drawn_titles(root) -> list[str]:
    """The titles of the Plotly figures in the page's Bokeh models."""
    return [plot.layout["title"]["text"] for plot in root.select({"type": PlotlyPlot})]


def placeholders(root) -> list[str]:
    return [
        model.text
        for model in root.select({"css_classes": ["pe-placeholder-pane"]})
        if "pe-placeholder" in model.text
    ]


def test_a_page_starts_with_its_first_row_of_views_and_placeholders_for_the_rest():
    root = served(ExplorerPage(state=ExplorerState(d_model=16)))
    titles = sorted(drawn_titles(root))
    assert len(titles) == EAGER_VIEWS == 2
    assert titles[0].startswith("PE matrix: ")
    assert titles[1].startswith("PE(pos) and PE(pos + k)")
    assert len(placeholders(root)) == len(VIEWS) - EAGER_VIEWS
    assert all("drawn when it comes into view" in text for text in placeholders(root))


def test_a_view_coming_on_screen_is_built_for_the_state_as_it_is_then():
    page = ExplorerPage(state=ExplorerState(d_model=16, n_positions=64))
    root = served(page)
    page.state.pos = 21
    page.probe("properties").on_screen = True
    assert len(drawn_titles(root)) == EAGER_VIEWS + 1
    assert any(title.startswith("‖PE(q) − PE(21)‖") for title in drawn_titles(root))
    assert len(placeholders(root)) == len(VIEWS) - EAGER_VIEWS - 1
    view = page.view("properties")
    assert same_value(view._plot.object, view.card_figure())


def test_a_view_built_on_screen_then_follows_the_state():
    page = ExplorerPage(state=ExplorerState(d_model=16, n_positions=64))
    root = served(page)
    page.probe("properties").on_screen = True
    page.state.pos = 33
    assert any(title.startswith("‖PE(q) − PE(33)‖") for title in drawn_titles(root))


def test_a_view_not_yet_on_screen_costs_nothing_when_the_state_moves():
    page = ExplorerPage(state=ExplorerState(d_model=16, n_positions=64))
    root = served(page)
    for pos in range(5):
        page.state.pos = pos
    page.state.d_model = 32
    assert len(drawn_titles(root)) == EAGER_VIEWS
    assert len(placeholders(root)) == len(VIEWS) - EAGER_VIEWS


@pytest.mark.parametrize("name", VIEW_NAMES)
def test_an_embed_of_one_view_draws_it_at_once(name):
    page = ExplorerPage(options=PageOptions(view=name, embed=True))
    root = served(page)
    assert len(drawn_titles(root)) == 1
    assert placeholders(root) == []


def pair_picker_cards(root) -> list[str]:
    """The view cards (pe-view-NAME) holding the pair picker in the page's Bokeh models."""
    picker = root.select_one({"css_classes": ["pe-control-pairs"]})
    cards = []
    for model in root.select({"type": pn.models.layout.Column}):
        if picker in model.references():
            cards += [c for c in model.css_classes if c.startswith("pe-view-")]
    return cards


def test_the_pair_picker_sits_in_the_waves_card_and_catches_up_when_it_comes_on_screen():
    page = ExplorerPage(state=ExplorerState(d_model=16, n_positions=64))
    root = served(page)
    assert pair_picker_cards(root) == ["pe-view-waves"]
    picker = page.controls.pairs
    page.state.d_model = 64
    # Off screen it does not redraw on every step of d_model...
    assert picker.options == list(range(8))
    page.probe("waves").on_screen = True
    # ...and shows this d_model's pairs as soon as it is seen.
    assert picker.options == list(range(32))
    assert picker.value == page.state.chosen_pairs
    page.state.d_model = 66
    assert picker.options == list(range(33))


def test_an_embedded_view_keeps_its_pair_picker_up_to_date():
    page = ExplorerPage(
        state=ExplorerState(d_model=16), options=PageOptions(view="frequency", embed=True)
    )
    served(page)
    page.state.d_model = 64
    assert page.controls.pairs.options == list(range(32))


def view_cards(root) -> list[str]:
    """The names of the view cards (pe-view-NAME) in the page's Bokeh models, sorted."""
    return sorted(
        name[len("pe-view-") :]
        for model in root.select({"type": pn.models.layout.Column})
        for name in model.css_classes
        if name.startswith("pe-view-")
    )


def test_deferred_cards_start_as_one_frame_and_are_built_once_a_browser_shows_the_page():
    page = ExplorerPage(defer_cards=True)
    doc = Document()
    root = pn.panel(page).get_root(doc)
    assert view_cards(root) == sorted(VIEW_NAMES[:EAGER_VIEWS])
    frames = html.unescape(root.select_one({"css_classes": ["pe-deferred-cards"]}).text)
    later = VIEWS[EAGER_VIEWS:]
    assert frames.count('class="pe-card-frame"') == len(later)
    positions = [frames.index(card_heading(spec.name, spec.title)) for spec in later]
    assert positions == sorted(positions)  # in the page's order
    assert placeholders(root) == []  # the frames' placeholders are in the one pane

    assert not page._shown.built  # the browser holds the page's height meanwhile
    doc.add_root(root)
    changed = []
    doc.on_change(lambda event: changed.append(getattr(event, "model", None)))
    page._shown.shown = True  # what the page's PageShown component reports once on screen
    assert page._shown.built
    # Only the later cards' box changes: the first row's is left as it is, so the browser does
    # not lay out its plots again (a click on them while the cards arrive is not lost).
    ((later, _),) = page._later_box._models.values()  # the Bokeh model of each box
    ((views, _),) = page._views_box._models.values()
    assert later in changed and views not in changed
    assert view_cards(root) == sorted(VIEW_NAMES) == view_cards(served(ExplorerPage()))
    assert root.select_one({"css_classes": ["pe-deferred-cards"]}) is None
    assert len(placeholders(root)) == len(VIEWS) - EAGER_VIEWS
    # The pair picker is in its card again, and a later view still draws when on screen.
    assert pair_picker_cards(root) == ["pe-view-waves"]
    page.probe("properties").on_screen = True
    assert "properties" in page.lazy.views


@pytest.mark.parametrize(
    "options",
    [PageOptions(view="waves"), PageOptions(view="waves", embed=True), PageOptions(embed=True)],
    ids=["one-view", "embed", "embed-all"],
)
def test_pages_without_a_second_row_or_embedded_defer_nothing(options):
    page = ExplorerPage(defer_cards=True, options=options)
    root = served(page)
    assert root.select_one({"css_classes": ["pe-deferred-cards"]}) is None
    assert view_cards(root) == ([options.view] if options.view else sorted(VIEW_NAMES))
    # Once shown, nothing to build: the page's height (held by PageShown) is let go at once.
    page._shown.shown = True
    assert page._shown.built


def test_a_deferring_pages_first_views_send_their_picks_once_the_page_is_shown():
    page = ExplorerPage(defer_cards=True)
    pn.panel(page).get_root(Document())
    first = [page.lazy.views[spec.name] for spec in VIEWS[:EAGER_VIEWS]]
    # Start-up draws them without their picks: nothing is dragged before the page is shown.
    assert [(view.picks_held, view._plot.pick_generation) for view in first] == [(True, 0)] * 2
    assert all(view._picks.pos_picks == {} for view in first)
    page._shown.shown = True
    assert all(not view.picks_held and view._plot.pick_generation == 1 for view in first)
    assert all(view._picks.pos_picks["count"] == page.state.n_positions for view in first)
    # A view made later, and any view of a page that defers nothing, has them from the start.
    page.probe("waves").on_screen = True
    assert page.lazy.views["waves"]._picks.pos_picks
    served_page = ExplorerPage()
    served(served_page)
    assert all(view._picks.pos_picks for view in served_page.lazy.views.values())

"""The page's layout: the full page (header, toolbar, sidebar beside the cards) and an embed
(controls, one card, a link to the full page), laid out again when the link's options change."""

from __future__ import annotations

import panel as pn
import pytest
from bokeh.document import Document
from pe_explorer.state import ExplorerState
from pe_explorer.ui.lazy_views import EAGER_VIEWS
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.ui.page_options import PageOptions
from pe_explorer.views import VIEWS, view_spec


def classes_of(objects) -> list[list[str]]:
    """The CSS classes of each of the page's parts, in order."""
    return [list(getattr(part, "css_classes", []) or []) for part in objects]


def page_parts(page: ExplorerPage) -> list:
    """The page's visible parts: its root's objects before the hidden components."""
    objects = page._root.objects
    return objects[: objects.index(page.url.writer)]


def test_the_full_page_is_header_toolbar_panels_notices_and_the_sidebar_beside_the_cards():
    page = ExplorerPage(state=ExplorerState(d_model=16))
    header, toolbar, share, export, questions, url, body = page_parts(page)
    assert "<h1>Positional Encoding Explorer</h1>" in header.object
    assert "pe-toolbar" in toolbar.css_classes
    assert [type(widget).__name__ for widget in toolbar.objects] == [
        "RadioButtonGroup",
        "Toggle",
        "Toggle",
        "Toggle",
    ]
    assert not (share.visible or export.visible or questions.visible)
    assert url.objects[0] is page.url._notices
    sidebar, views = body.objects
    assert "pe-controls" in sidebar.css_classes
    assert "pe-navigator" in sidebar.objects[0].css_classes
    assert classes_of(views.objects) == [[f"pe-view-{spec.name}"] for spec in VIEWS]


def test_deferred_cards_start_as_one_frame_after_the_first_row():
    page = ExplorerPage(state=ExplorerState(d_model=16), defer_cards=True)
    *_, body = page_parts(page)
    cards = body.objects[1].objects
    assert len(cards) == EAGER_VIEWS + 1
    assert "pe-later-cards" in cards[-1].css_classes
    assert "pe-deferred-cards" in cards[-1].objects[0].css_classes


def test_an_embed_is_its_controls_its_card_and_a_link_to_the_full_page():
    options = PageOptions(view="rotation", embed=True)
    page = ExplorerPage(state=ExplorerState(d_model=16), options=options)
    url, controls, card, full_link = page_parts(page)
    assert url.objects[0] is page.url._notices
    assert "pe-controls" in controls.css_classes
    assert len(controls.objects) >= len(view_spec("rotation").controls)
    assert card.css_classes == ["pe-view-rotation"]
    assert "Open in the Positional Encoding Explorer" in full_link.object
    assert "view=" not in full_link.object and "embed=" not in full_link.object


def test_changing_the_options_lays_the_page_out_again():
    page = ExplorerPage(state=ExplorerState(d_model=16))
    page.options.param.update(view="t5", embed=True)
    assert [part.css_classes for part in page_parts(page)][2] == ["pe-view-t5"]
    page.options.param.update(view="", embed=False)
    assert len(page_parts(page)) == 7
    assert isinstance(page_parts(page)[-1], pn.FlexBox)


@pytest.mark.parametrize("through", ["link", "box"])
def test_longrope_factors_past_their_range_leave_the_page_built_and_say_why(through):
    """Issue 40: 64 factors of 1e308 made every wavelength infinite and the page build raise."""
    factors = ",".join(["1e308"] * 64)
    page = ExplorerPage()
    if through == "link":
        page.apply_query(f"?view=scaling&scaling=longrope&longrope_factors={factors}")
        notices = page.url._notices
        assert notices.visible and "LongRoPE factor 1 is 1e308" in notices.object
    else:
        page.options.view = "scaling"
        page.state.param.update(scaling="longrope", longrope_factors=factors)
    pn.panel(page).get_root(Document())
    view = page.view("scaling")
    assert not view._error.visible
    assert "LongRoPE" in view.description()

"""The page's table of contents and the cards' anchors: every card is listed by its short name
and reachable as #name, before and after the deferred cards are built."""

from __future__ import annotations

import html

import panel as pn
import pytest
from bokeh.document import Document
from pe_explorer.ui.navigation import CardNavigator, card_heading
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.ui.page_options import PageOptions
from pe_explorer.views import VIEW_NAMES, VIEWS


def served(page: ExplorerPage):
    return pn.panel(page).get_root(Document())


def navigators(page: ExplorerPage) -> list[CardNavigator]:
    return [obj for obj in page._root.select(CardNavigator)]


def headings(root) -> str:
    """Every HTML pane's text in the page's Bokeh models, joined."""
    return "".join(html.unescape(model.text) for model in root.select({"type": pn.models.HTML}))


def test_every_view_has_a_short_name_for_the_contents():
    shorts = [spec.short for spec in VIEWS]
    assert all(0 < len(short) <= 16 for short in shorts)
    assert len(set(shorts)) == len(shorts)


def test_the_contents_list_every_card_in_page_order():
    page = ExplorerPage()
    (navigator,) = navigators(page)
    assert [view["name"] for view in navigator.views] == list(VIEW_NAMES)
    assert [view["short"] for view in navigator.views] == [spec.short for spec in VIEWS]


def test_one_view_alone_lists_itself_and_an_embed_has_no_contents():
    (navigator,) = navigators(ExplorerPage(options=PageOptions(view="rope")))
    assert [view["name"] for view in navigator.views] == ["rope"]
    assert navigators(ExplorerPage(options=PageOptions(view="rope", embed=True))) == []


@pytest.mark.parametrize("defer_cards", [False, True], ids=["built", "deferred"])
def test_every_cards_heading_is_its_anchor_whether_built_or_a_frame(defer_cards):
    text = headings(served(ExplorerPage(defer_cards=defer_cards)))
    for spec in VIEWS:
        assert text.count(card_heading(spec.name, spec.title)) == 1, spec.name
    assert card_heading("compare", "Two") == (
        '<h2 id="compare" class="pe-card-heading" tabindex="-1">Two</h2>'
    )

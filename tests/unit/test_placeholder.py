"""A view before it is drawn (components/ui/placeholder.py): one placeholder per row of the view
table, in the cards not built yet and in the frames static/startup.js draws before Python."""

from __future__ import annotations

import html
import re

import pytest
from pe_explorer.ui.lazy_views import EAGER_VIEWS
from pe_explorer.ui.page import TITLE, before_python_facts
from pe_explorer.ui.placeholder import (
    CARD_MARGIN_PX,
    DRAWN_WHEN_PYTHON,
    DRAWN_WHEN_SEEN,
    card_frames_html,
    placeholder_html,
)
from pe_explorer.views import VIEW_NAMES, VIEWS


def text(markup: str) -> str:
    """What a reader sees of markup: its text without tags, styles and character references."""
    without_style = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", without_style))


@pytest.mark.parametrize("spec", VIEWS, ids=VIEW_NAMES)
def test_a_placeholder_is_as_tall_as_its_view_and_names_it(spec):
    placeholder = placeholder_html(spec)
    assert f'style="height: {spec.height}px"' in placeholder
    assert text(placeholder) == f"{spec.title}: {DRAWN_WHEN_SEEN}"


def test_the_cards_not_built_yet_hold_their_placeholders_in_the_tables_order():
    later = VIEWS[EAGER_VIEWS:]
    frames = card_frames_html(list(later))
    positions = [frames.index(placeholder_html(spec)) for spec in later]
    assert positions == sorted(positions)
    assert frames.count('class="pe-card-frame"') == len(later)


def test_before_python_every_view_has_a_frame_in_the_page_and_in_an_embed():
    facts = before_python_facts()
    assert [view["name"] for view in facts["views"]] == list(VIEW_NAMES)
    for spec, view in zip(VIEWS, facts["views"], strict=True):
        for kind in ("page", "embed"):
            frame = view[kind]
            assert frame.startswith(f'<section class="pe-before-python-{spec.name}"')
            assert text(frame) == f"{spec.title}{spec.title}: {DRAWN_WHEN_PYTHON}"
    # An embed's frame fills its <iframe>, which is the view's embed_height tall.
    height = VIEWS[0].embed_height - 2 * CARD_MARGIN_PX
    assert f'style="height: {height}px"' in facts["views"][0]["embed"]


@pytest.mark.parametrize("kind", ["page", "embed"])
def test_before_python_the_page_shows_no_numbers_and_its_title_unless_embedded(kind):
    facts = before_python_facts()
    page = facts["frames"][kind]
    shown = text(page) + "".join(text(view[kind]) for view in facts["views"])
    for spec in VIEWS:  # a title's own digits ("T5") are words, not the link's numbers
        shown = shown.replace(spec.title, "")
    assert not re.search(r"\d", shown)  # the link's numbers are Python's to draw
    assert text(page) == ("" if kind == "embed" else TITLE)
    assert page.count('<div class="pe-card-frames"></div>') == 1  # where the cards go

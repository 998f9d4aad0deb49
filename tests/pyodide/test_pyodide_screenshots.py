"""Screenshots of every view's card, light and dark, 1280 px wide and on a 390 px phone, and
embedded in a 480 px frame, from the real Pyodide build offline, for a person to look at:
tests/pyodide/screenshots/VIEW-KIND-WIDTH.png (git-ignored). They are taken on the desktop and
phone visits the accessibility tests share (tests/support/visits_support.py): each card in turn
scrolled into view, waited for until its charts are drawn and named, and photographed alone.
The tests check that each was written, of a drawn card, in the theme its name says, and that no
text of its charts covers another chart or an axis's words or runs past the card's edge (read
on the card before its picture)."""

from __future__ import annotations

import pytest
from visits_support import DESKTOP_PAGES, NAMES, PHONE_PAGES, SCREENSHOTS, file_name

pytestmark = pytest.mark.pyodide

# (visit, width, page): every page photographed.
SHOTS = [("desktop", 1280, page) for page in DESKTOP_PAGES if page.photos] + [
    ("phone", (page.viewport or (390,))[0], page) for page in PHONE_PAGES if page.photos
]


def shot_id(shot) -> str:
    visit, width, page = shot
    return f"{page.photos}-{width}"


@pytest.fixture(params=SHOTS, ids=shot_id)
def cards(request) -> tuple:
    visit_name, width, page = request.param
    visit = request.getfixturevalue(visit_name)
    assert visit["first_load"]["interactive"], visit["first_load"]["error"]
    assert page.query not in visit["errors"], visit["errors"][page.query]
    return width, page, visit["pages"][page.query]["cards"]


def test_every_card_is_photographed(cards):
    width, page, shot = cards
    assert shot["errors"] == {}
    expected = {file_name(name, page.photos, width) for name in NAMES}
    assert set(shot["written"]) == expected
    assert all(
        size > 0 and (SCREENSHOTS / name).is_file() for name, size in shot["written"].items()
    )


def test_each_page_shows_the_theme_its_pictures_are_named_after(cards):
    width, page, shot = cards
    assert shot["theme"] == ("dark" if page.photos == "dark" else "light")


@pytest.mark.parametrize("name", NAMES)
def test_no_text_covers_another_chart_or_the_axes_words_or_runs_past_the_card(cards, name):
    """layout_support.OVERLAPS_JS, read on each card before its picture."""
    width, page, shot = cards
    assert name in shot["overlaps"], shot["errors"]
    assert shot["overlaps"][name] == []

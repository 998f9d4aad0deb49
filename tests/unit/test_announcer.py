"""What the live region is given to read: the page's first view, described, after every change."""

import math

import pytest
from pe_explorer.ui.page import ExplorerPage
from pe_explorer.ui.page_options import PageOptions


def test_a_step_of_pos_gives_the_matrix_row_and_a_value_from_the_closed_form():
    page = ExplorerPage()
    page.state.pos = 9
    expected = math.sin(9 / 10000 ** (6 / 128))  # PE(9, 6): pair i = 3, a sine
    assert "row 9 highlighted" in page._announcer.message
    assert f"{expected:.4f}".replace("-", "−") in page._announcer.message


def test_an_embed_announces_its_own_view():
    page = ExplorerPage(options=PageOptions(view="compare", embed=True))
    page.state.offset = 3
    assert "k = 3" in page._announcer.message


@pytest.mark.parametrize("settle_ms", [-1])
def test_the_quiet_time_cannot_be_negative(settle_ms):
    from pe_explorer.ui.announcer import Announcer

    with pytest.raises(ValueError):
        Announcer(settle_ms=settle_ms)

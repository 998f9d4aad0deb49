"""A link with a second `?` (`?text=why?`) opens under `panel serve`: the rest is its query."""

import panel.io.location
import pytest
from pe_explorer.fixes import location


@pytest.mark.parametrize(
    ("uri", "search"),
    [
        ("/app?text=why?", "?text=why%3F"),
        ("/app?pos=3?d_model=64", "?pos=3%3Fd_model=64"),
        ("/app??pos=3", "?%3Fpos=3"),
        ("/app?pos=3", "?pos=3"),
    ],
)
def test_a_second_question_mark_is_read_as_part_of_the_query(uri, search):
    location.install()
    params = panel.io.location._get_location_params("http", "localhost:5006", uri)
    assert (params["pathname"], params["search"]) == ("/app", search)

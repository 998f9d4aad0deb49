"""Links in the served app, where Panel's Location (components/fixes/location.py) reads the URL:
a question mark inside a value still opens the page. URL state, embeds, hostile and bad links,
and the Share panel: tests/pyodide/test_pyodide_url.py and the access tests' visits."""

from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import wait_until

pytestmark = pytest.mark.browser


def query_of(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?text=a?b?c", {"text": "a?b?c"}),
        ("?view=heatmap?x=1", {"pos": "7"}),
        ("??pos=3", {"pos": "7"}),
    ],
    ids=["text=a?b?c", "view=heatmap?x=1", "??pos=3"],
)
def test_a_question_mark_inside_a_value_still_opens_the_page(open_app, query, expected):
    # Panel's Location split such a link into three parts and the page never loaded
    # (components/fixes/location.py); the session's log must hold no traceback either.
    page, log = open_app(query)
    # The page rewrites its URL canonically (offset is always written) once it has read it.
    wait_until(page, lambda: query_of(page).get("offset") == "1", what="the URL rewritten")
    assert {key: query_of(page).get(key) for key in expected} == expected
    assert log.relevant_errors() == []

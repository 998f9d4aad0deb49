"""URL state, single-view embeds and hostile links in the served app, in Chromium."""

from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import heatmap, plots, text, wait_for_text, wait_until

pytestmark = pytest.mark.browser


def query_of(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


@pytest.mark.parametrize(
    ("view", "plot_type"),
    [("frequency", "scatter")],
)
def test_view_and_embed_show_only_that_view(open_app, view, plot_type):
    page, log = open_app(f"?view={view}&embed=1", viewport=(600, 400))
    wait_until(page, lambda: len(plots(page)) == 1, what="a single plot")
    assert plots(page)[0]["type"] == plot_type
    assert page.locator(".pe-header").count() == 0
    assert page.locator(f".pe-view-{view}").count() == 1
    # No horizontal scrollbar in a 600 px wide iframe.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert log.relevant_errors() == []


def test_view_without_embed_keeps_the_header_and_only_the_needed_controls(open_app):
    page, log = open_app("?view=frequency")
    assert page.locator(".pe-header").count() == 1
    assert page.locator(".pe-control-d-model").count() == 1
    assert page.locator(".pe-control-pos").count() == 0
    assert log.relevant_errors() == []


def test_hostile_value_gives_a_notice_and_injects_nothing(open_app):
    page, log = open_app("?pos=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&foo=%3Cb%3Ebold%3C/b%3E")
    notice = wait_for_text(page, ".pe-notices", lambda t: "pos" in t)
    assert "<img src=x onerror=alert(1)>" in notice
    assert "'foo': unknown parameter" in notice
    assert page.locator("img[src=x]").count() == 0
    assert page.locator(".pe-notices b").count() == 0
    assert text(page, ".pe-pos-readout").startswith("pos = 7 ")
    page.locator(".pe-notices").first.page.get_by_role("button", name="Dismiss").click()
    wait_until(page, lambda: page.locator(".pe-notices").first.is_hidden(), what="dismissed")
    assert log.dialogs == []
    assert log.relevant_errors() == []


def test_bad_values_fall_back_with_a_notice(open_app):
    page, log = open_app("?d_model=7&n_positions=1000000000&pos=-3")
    notice = wait_for_text(page, ".pe-notices", lambda t: "d_model" in t)
    assert "7 is odd; used 8" in notice and "n_positions" in notice and "pos" in notice
    assert heatmap(page)["columns"] == 8
    assert text(page, ".pe-pos-readout").startswith("pos = 0 ")
    assert log.relevant_errors() == []


def test_share_panel_offers_the_link_and_an_iframe_snippet(open_app, served_app):
    page, log = open_app("?pos=12")
    page.get_by_role("button", name="Share / Embed").click()
    link = page.locator(".pe-share input").first
    wait_until(page, lambda: "pos=12" in link.input_value(), what="the link")
    snippet = page.locator(".pe-share textarea").first.input_value()
    assert snippet.startswith("<iframe data-pe-explorer src=") and 'loading="lazy"' in snippet
    # The resizer of the site the link is on, which fits the frame to its content.
    assert snippet.endswith(
        f'<script src="{served_app.rsplit("/", 1)[0]}/static/pe-embed.js" defer></script>'
    )
    assert 'width="100%"' in snippet and "title=" in snippet and "embed=1" in snippet
    # The open panel follows the controls.
    page.locator(".pe-control-pos .noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    wait_until(page, lambda: "pos=13" in link.input_value(), what="the link to follow pos")
    assert log.relevant_errors() == []


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

"""Values a host page sends to an embed (issue 20): read like a link, with the same notices,
only once the page has read its own URL."""

from pe_explorer.state import ExplorerState
from pe_explorer.ui.page_options import PageOptions
from pe_explorer.ui.urlsync import UrlSync


def synced(query: str) -> UrlSync:
    url = UrlSync(state=ExplorerState(), options=PageOptions())
    url.apply_query(query)
    return url


def notice_text(url: UrlSync) -> str:
    return url._notices.object if url._notices.visible else ""


def test_a_hosts_values_move_the_state_and_keep_the_rest_of_the_link():
    url = synced("view=compare&embed=1&d_model=64&pos=3")
    url.writer._handle_msg({"values": {"pos": "20", "theme": "dark"}})
    assert (url.state.pos, url.state.d_model, url.state.theme) == (20, 64, "dark")
    assert (url.options.view, url.options.embed) == ("compare", True)
    assert "pos=20" in url.writer.query and notice_text(url) == ""


def test_a_hosts_bad_values_get_the_links_notices_and_safe_values():
    url = synced("d_model=64&pos=3")
    url.writer._handle_msg({"values": {"d_model": "abc", "pos": "99999", "<b>x</b>": "1"}})
    assert url.state.d_model == ExplorerState().d_model  # not a number: the default, as in a link
    assert url.state.pos == url.state.n_positions - 1  # the nearest valid value
    notices = notice_text(url)
    assert "d_model" in notices and "pos" in notices and "&lt;b&gt;" in notices
    assert "<b>x</b>" not in notices


def test_values_before_the_page_read_its_url_are_ignored():
    url = UrlSync(state=ExplorerState(), options=PageOptions())
    url.writer._handle_msg({"values": {"pos": "20"}})
    assert url.state.pos == ExplorerState().pos


def test_a_message_that_is_not_a_dict_of_values_is_ignored():
    url = synced("pos=3")
    for message in (None, [], "pos=20", {"values": ["pos", 20]}, {"other": 1}):
        url.writer._handle_msg(message)
    assert url.state.pos == 3

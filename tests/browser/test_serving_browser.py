"""The served app (panel serve, for development): visitors leaving mid-step."""

import urllib.request

import pytest
from browser_support import panel_serve

VISITORS = 8


@pytest.mark.browser
def test_visitors_leaving_mid_step_leave_no_traceback_in_the_servers_log(browser):
    """Closing the page while a step's changes were being written logged a traceback (a write
    task of Panel's dropped unawaited); panel_serve fails the test if the log holds one."""
    with panel_serve("app.py") as url:
        for _ in range(VISITORS):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.goto(url)
            handle = page.locator(".pe-control-d-model .noUi-handle").first
            handle.focus(timeout=60_000)
            for _ in range(3):
                page.keyboard.press("ArrowRight")
            context.close()
        # The server has noticed every closed socket (Bokeh logs each close)...
        closed = "WebSocket connection closed"
        url.log.wait_for(
            lambda lines: sum(closed in line for line in lines) >= VISITORS,
            timeout_s=60,
            what=f"{VISITORS} sockets closed",
        )
        # ...and handled what followed: a request made now is answered after it.
        urllib.request.urlopen(url, timeout=60).close()

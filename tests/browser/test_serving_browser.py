"""The served app (panel serve, for development): visitors leaving mid-step."""

import time

import pytest
from browser_support import panel_serve


@pytest.mark.browser
def test_visitors_leaving_mid_step_leave_no_traceback_in_the_servers_log(browser):
    """Closing the page while a step's changes were being written logged a traceback (a write
    task of Panel's dropped unawaited); panel_serve fails the test if the log holds one."""
    with panel_serve("app.py") as url:
        for _ in range(8):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.goto(url)
            handle = page.locator(".pe-control-d-model .noUi-handle").first
            handle.focus(timeout=60_000)
            for _ in range(3):
                page.keyboard.press("ArrowRight")
            context.close()
        # The server notices the closed sockets and finishes its writes.
        time.sleep(2)

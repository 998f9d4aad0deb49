"""The served app (panel serve): visitors leaving mid-step, and the page's inline icon."""

import re
import time
import urllib.request

import pytest
from browser_support import panel_serve
from pe_explorer.plotkit import icon


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


def test_the_served_page_never_asks_the_server_for_its_icon(served_app):
    """Panel's page would link ./favicon.ico, which Bokeh sends without cache headers; with the
    URL changing on every step, Chromium fetched it again after each one (seen in the server's
    writes: one 15 KB icon per d_model step)."""
    with urllib.request.urlopen(served_app, timeout=30) as response:
        page = response.read().decode()
    assert re.findall(r'<link rel="icon" href="([^"]+)"', page) == [icon.icon_data_uri()]
    assert "favicon.ico" not in page

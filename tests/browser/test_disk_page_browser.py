"""The built site opened from disk (file://): it says to serve the folder."""

from __future__ import annotations

import re

import pytest


@pytest.mark.browser
def test_page_opened_from_disk_says_to_serve_the_folder(site_dir, browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        # As offline: the CDN scripts fail at once instead of waiting on the network.
        page.route(re.compile(r"^https?://"), lambda route: route.abort())
        page.goto((site_dir / "index.html").as_uri(), wait_until="domcontentloaded")
        message = page.locator(".pe-file-protocol-message")
        message.wait_for(state="visible", timeout=10_000)
        assert "./build.sh serve" in message.inner_text()
        assert "pn-loading" not in page.evaluate("document.body.className")
    finally:
        context.close()

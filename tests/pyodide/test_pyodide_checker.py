"""The checker view in the real Pyodide build, offline (issue 19): files uploaded through the
file chooser never leave the browser, and each gets its verdict or its message."""

from __future__ import annotations

import pytest
from checker_support import check_verdicts, upload_each
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    made_by_the_page,
    offline_site,
    test_console_has_no_errors,
)

from benchmarks.pyodide_site import wait_for_service_worker_cache

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = "?view=checker"


def steps(site) -> dict:
    """Open the checker alone and choose each test file in its file chooser."""
    load = site.load
    # Python's first render is the default page; the link's one replaces the page before
    # Python (static/startup.js) once it is drawn.
    site.page.wait_for_function(
        "() => document.querySelector('.pe-before-python') === null", timeout=60_000
    )
    # The service worker keeps the site's files once the page is interactive (scripts/sw.js),
    # app.js among them, which this page (on the shared runtime) never loads itself.
    wait_for_service_worker_cache(site.page)
    before = len(site.metrics()["requests"])
    shown = upload_each(site.page) if load["interactive"] else {}
    # Chromium's own background requests (e.g. autofill) go to other hosts.
    sent = [
        e["path"]
        for e in site.metrics()["requests"][before:]
        if e["host"] == offline_site.offline_server.SITE_HOST
    ]
    return {"shown": shown, "requests": sent}


def test_each_uploaded_file_gets_its_verdict_or_its_message(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert check_verdicts(visit["shown"]) == []


def test_checking_files_asks_the_site_for_nothing(visit):
    assert made_by_the_page(visit["requests"]) == [], visit["requests"]

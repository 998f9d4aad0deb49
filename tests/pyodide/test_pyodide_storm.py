"""In the real Pyodide build: after fast drags and storms of key steps, every view shows the
slider's final value (the stale-value race of Panel 1.9.4's worker is patched at build time)."""

from __future__ import annotations

import pytest
from browser_support import SHOWN_POS_JS, look_at
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    made_by_the_page,
    offline_site,
    page_holds,
    test_console_has_no_errors,
)

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = ""

DRAG_TARGETS = (0.8, 0.15, 0.95, 0.05, 0.6, 0.3)
POS_HANDLE = ".pe-control-pos .noUi-handle"


def steps(site) -> dict:
    """Drag the pos handle to far apart places, then step it with storms of keys."""
    record = {"checks": []}

    def waves_after_scrolling_to_them(slider, timeout_s=30):
        """The waves view is below the fold: it catches up once it is scrolled to (the
        scroll is not an input the harness waits on, so wait up to timeout_s for it)."""
        look_at(site.page, "waves")
        page_holds(site.page, f"(slider) => ({SHOWN_POS_JS})().waves === slider", slider, timeout_s)
        waves = site.page.evaluate(SHOWN_POS_JS)["waves"]
        look_at(site.page, "heatmap")
        return waves

    def check(label):
        interaction = site.settle()  # the harness's 1.5 s of quiet
        shown = site.page.evaluate(SHOWN_POS_JS)
        shown["waves"] = waves_after_scrolling_to_them(shown["slider"])
        record["checks"].append({"label": label, "settled": interaction["settled"], **shown})

    for n, to in enumerate(DRAG_TARGETS):
        site.drag(POS_HANDLE, steps=30, to=to)
        check(f"drag {n} to {to}")
    before = len(site.metrics()["requests"])
    site.press(POS_HANDLE, "ArrowLeft", 120)
    check("120 × ArrowLeft")
    site.press(POS_HANDLE, "ArrowRight", 40)
    check("40 × ArrowRight")
    record["site_requests_in_steps"] = [
        entry["path"]
        for entry in site.metrics()["requests"][before:]
        if entry["host"] == offline_site.offline_server.SITE_HOST
    ]
    return record


def test_every_view_ends_on_the_final_value(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    stale = [
        check
        for check in visit["checks"]
        if len({check[k] for k in ("slider", "readout", "heatmap", "waves", "bars")}) != 1
    ]
    assert stale == [], stale
    assert [check["slider"] for check in visit["checks"]][-2:] == [0, 40]


def test_steps_fetch_nothing_from_the_site(visit):
    """The page rewrites its URL on each step; with a linked icon, Chromium fetched the icon
    again after every one (components/plotkit/icon.py)."""
    assert made_by_the_page(visit["site_requests_in_steps"]) == [], visit["site_requests_in_steps"]

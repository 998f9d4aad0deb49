"""Course pages with embeds of the real Pyodide build, offline: a module's visit of one, and
reading its frames (tests/pyodide/test_pyodide_embeds.py, test_pyodide_drag_embeds.py)."""

from __future__ import annotations

import pytest
from pyodide_support import console_errors, offline_site, page_holds, visit_offline

from benchmarks.embeds import FRAMES_JS, host_site

# Eight views that follow pos, as a course page would embed them, each at its own state: dragged
# on one page by tests/pyodide/test_pyodide_drag_embeds.py (the other views with picks, each
# alone, by test_pyodide_drag_views.py).
DRAGGED_EMBEDS = (
    "view=heatmap&embed=1&d_model=16&pos=5&offset=3",
    "view=compare&embed=1&d_model=64&pos=20&offset=4",
    "view=waves&embed=1&d_model=32&pos=9&offset=2",
    "view=rotation&embed=1&d_model=32&pos=7&offset=5",
    "view=dotproduct&embed=1&d_model=32&n_positions=64&pos=3&offset=2",
    "view=rope&embed=1&d_model=32&n_positions=64&pos=12&offset=6",
    "view=xl&embed=1&d_model=32&n_positions=64&pos=4&offset=1",
    "view=t5&embed=1&n_positions=64&pos=2&offset=8",
)
# Each frame's link, as the frame's page writes it back.
QUERIES_JS = """() => [...document.querySelectorAll('iframe')]
  .map((frame) => frame.contentWindow.location.search)"""
# The first frame's link differs from before (the links read before the key) and every frame's
# worker is idle.
CHANGED_AND_IDLE_JS = f"""(before) => ({QUERIES_JS})()[0] !== before[0]
  && [...document.querySelectorAll('iframe')].every((frame) =>
    !frame.contentWindow.__offline.workerBusy())"""


def canonical_queries(page, timeout_s: float = 30) -> list[str]:
    """Each frame's link once Python has written it back in full (n_positions included)."""
    page_holds(
        page, f"() => ({QUERIES_JS})().every((q) => q.includes('n_positions='))", None, timeout_s
    )
    return page.evaluate(QUERIES_JS)


def interactive_frames(page, timeout_s: float = 300) -> list:
    """When each frame became interactive (ms), once all are or time runs out."""
    page_holds(page, f"() => !({FRAMES_JS})().includes(null)", None, timeout_s)
    return page.evaluate(FRAMES_JS)


def on_a_course_page(page: str, steps, prepare=None):
    """A module's fixture: the site copied beside course pages (benchmarks.embeds.host_site, and
    prepare(hosted) when given, to write another), the course page `page` opened offline (its
    frames are the apps) and steps(site) run there."""

    @pytest.fixture(scope="module")
    def visit(request, tmp_path_factory) -> dict:
        def run(site_dir) -> dict:
            hosted = host_site(site_dir, tmp_path_factory.mktemp("course"))
            if prepare is not None:
                prepare(hosted)
            with offline_site.open_offline_site(hosted, page, timeout_s=1) as site:
                return {**steps(site), "console_errors": console_errors(site)}

        return visit_offline(request, run)

    return visit

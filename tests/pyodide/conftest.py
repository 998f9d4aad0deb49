"""The Pyodide tier's visits of the built site, offline.

`visit`: one per test module, the module's `steps(site)` run once the page is interactive: in
a browser of its own (a cold start), or, for a module that names its first link (`START`), in
the desktop browser the run shares (`shared_site`, return visits).
`desktop`, `dark_visitor`, `phone`: one each for the whole run, shared by the accessibility,
phone and screenshot tests (tests/support/visits_support.py): every card of the page drawn,
photographed and checked, by each kind of visitor (in the shared desktop browser, the first
two, and the shared phone, `shared_phone`, the last).
"""

from __future__ import annotations

import pytest
from a11y_support import axe_missing
from pyodide_support import (
    SharedSite,
    in_turn,
    on_the_shared_site,
    on_the_site,
    unavailable,
    visit_offline,
)
from visits_support import (
    DARK_VISITOR_PAGES,
    DESKTOP_PAGES,
    DESKTOP_THEN,
    PHONE,
    PHONE_PAGES,
    PHONE_THEN,
    pages_in,
)


@pytest.fixture(scope="session")
def shared_site(request):
    """The run's desktop browser (pyodide_support.SharedSite), opened at the first use."""
    shared = visit_offline(request, SharedSite)
    yield shared
    shared.close()


@pytest.fixture(scope="session")
def shared_phone(request):
    """The run's phone (visits_support.PHONE: 390 × 844, touch), opened at the first use."""
    shared = visit_offline(request, lambda site_dir: SharedSite(site_dir, **PHONE))
    yield shared
    shared.close()


@pytest.fixture(scope="module")
def visit(request) -> dict:
    """What happened on one offline visit of the built site: the module's `steps(site)`, run
    once the page is interactive; from the link `START` in the shared browser if the module
    names one, else in a browser of its own."""
    steps = request.module.steps
    start = getattr(request.module, "START", None)
    if start is None:
        return visit_offline(request, lambda site_dir: on_the_site(site_dir, steps))
    shared = request.getfixturevalue("shared_site")
    return shared.run(lambda site: on_the_shared_site(site, steps, start))


# The modules that read the shared visits below: with two pytest workers (--dist loadgroup) they
# run in one, so each visit is made once.
SHARED_VISITS = {"test_pyodide_access", "test_pyodide_phone", "test_pyodide_screenshots"}


def pytest_collection_modifyitems(items):
    """With pytest-xdist's --dist loadgroup, a module's tests stay in one worker (one visit per
    module), and the modules sharing the session's visits in one worker."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        group = "shared-visits" if module in SHARED_VISITS else module
        item.add_marker(pytest.mark.xdist_group(group))


def pages_visit(request, pages, then=(), browser: str = "shared_site", **media) -> dict:
    """The pages in a shared browser (the fixture named browser), in turn (a visitor with the
    preferences media)."""
    missing = axe_missing()
    if missing:
        unavailable(missing)

    def visit(site) -> dict:
        with in_turn(site, **media):
            return pages_in(site, pages, then, request.fixturename)

    return request.getfixturevalue(browser).run(visit)


@pytest.fixture(scope="session")
def desktop(request) -> dict:
    return pages_visit(request, DESKTOP_PAGES, DESKTOP_THEN)


@pytest.fixture(scope="session")
def dark_visitor(request) -> dict:
    return pages_visit(request, DARK_VISITOR_PAGES, color_scheme="dark")


@pytest.fixture(scope="session")
def phone(request) -> dict:
    return pages_visit(request, PHONE_PAGES, PHONE_THEN, browser="shared_phone")

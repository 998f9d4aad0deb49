"""The Pyodide tier's visits of the built site, offline.

`visit`: one per test module, the module's `steps(site)` run once the page is interactive.
`desktop`, `dark_visitor`, `phone`: one each for the whole run, shared by the accessibility,
phone and screenshot tests (tests/support/visits_support.py): every card of the page drawn,
photographed and checked, by each kind of visitor.
"""

from __future__ import annotations

import pytest
from a11y_support import axe_missing
from pyodide_support import on_the_site, unavailable, visit_offline
from visits_support import (
    DARK_VISITOR,
    DARK_VISITOR_PAGES,
    DESKTOP,
    DESKTOP_PAGES,
    DESKTOP_THEN,
    PHONE,
    PHONE_PAGES,
    PHONE_THEN,
    visit_pages,
)


@pytest.fixture(scope="module")
def visit(request) -> dict:
    """What happened on one offline visit of the built site: the module's `steps(site)`, run
    once the page is interactive, with `SITE_OPTIONS` (if any) for open_offline_site."""
    steps = request.module.steps
    options = getattr(request.module, "SITE_OPTIONS", {})
    return visit_offline(request, lambda site_dir: on_the_site(site_dir, steps, **options))


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


def pages_visit(request, pages, then=(), **options) -> dict:
    missing = axe_missing()
    if missing:
        unavailable(missing)
    return visit_offline(request, visit_pages(pages, then, request.fixturename, **options))


@pytest.fixture(scope="session")
def desktop(request) -> dict:
    return pages_visit(request, DESKTOP_PAGES, DESKTOP_THEN, **DESKTOP)


@pytest.fixture(scope="session")
def dark_visitor(request) -> dict:
    return pages_visit(request, DARK_VISITOR_PAGES, **DARK_VISITOR)


@pytest.fixture(scope="session")
def phone(request) -> dict:
    return pages_visit(request, PHONE_PAGES, PHONE_THEN, **PHONE)

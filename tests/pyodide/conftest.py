"""The Pyodide tier's one visit per test module: the module's steps on the built site, offline."""

from __future__ import annotations

import pytest
from pyodide_support import on_the_site, visit_offline


@pytest.fixture(scope="module")
def visit(request) -> dict:
    """What happened on one offline visit of the built site: the module's `steps(site)`, run
    once the page is interactive, with `SITE_OPTIONS` (if any) for open_offline_site."""
    steps = request.module.steps
    options = getattr(request.module, "SITE_OPTIONS", {})
    return visit_offline(request, lambda site_dir: on_the_site(site_dir, steps, **options))

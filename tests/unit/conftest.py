"""The unit tier builds nothing: a test that reads the built site goes in tests/site/."""

import pytest


@pytest.fixture(scope="session")
def site_dir():
    pytest.fail("the unit tier builds no site: move this test to tests/site/")

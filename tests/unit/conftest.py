"""The unit tier builds nothing: a test that reads the built site goes in tests/site/."""

import pytest
from hypothesis import settings

# No time limit per example: the unit tier runs in the idle scheduling class beside the browser
# tiers (build.sh test), where an example waits for a core; a limit would fail a starved core,
# not slow code.
settings.register_profile("beside-the-browser", deadline=None)
settings.load_profile("beside-the-browser")


@pytest.fixture(scope="session")
def site_dir():
    pytest.fail("the unit tier builds no site: move this test to tests/site/")

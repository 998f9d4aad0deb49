"""The workarounds in components/fixes/ were written for one Panel and one Bokeh: an upgrade
must go through them (the list in components/fixes/__init__.py) before this passes again."""

import tomllib
from pathlib import Path

import bokeh
import panel
import pytest
from pe_explorer.fixes import WRITTEN_FOR

INSTALLED = {"panel": panel.__version__, "bokeh": bokeh.__version__}


@pytest.mark.parametrize("package", sorted(WRITTEN_FOR))
def test_the_installed_version_is_the_one_the_workarounds_were_written_for(package):
    assert INSTALLED[package] == WRITTEN_FOR[package], (
        f"{package} {INSTALLED[package]} is installed, but components/fixes/ was written for "
        f"{package} {WRITTEN_FOR[package]}: check each workaround listed in "
        "components/fixes/__init__.py against the new version (is the upstream fix in? does the "
        "patched code still look the same?), then update WRITTEN_FOR"
    )


def test_the_pinned_requirements_match_the_workarounds():
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    for package, version in WRITTEN_FOR.items():
        assert f"{package}=={version}" in project["dependencies"]

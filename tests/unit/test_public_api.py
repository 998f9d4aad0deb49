"""The public API has the project's name: `from pe_explorer import show, diagnose`."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np
import pe_explorer
import pytest


def run(code: str) -> str:
    """Python's output for `code`, run outside the checkout (as an installed user runs it)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=tempfile.gettempdir(),
        env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
    ).stdout.strip()


def test_the_maths_imports_without_panel():
    """A learner who wants the numbers does not pay for the app."""
    code = "import sys, pe_explorer as p\np.positional_encoding(4, 8)\n"
    code += "print('panel' in sys.modules)"
    assert run(code) == "False"


def test_each_public_name_is_the_function_its_module_defines():
    from pe_explorer import diagnosis, encoding, notebook

    assert pe_explorer.positional_encoding is encoding.positional_encoding
    assert pe_explorer.diagnose is diagnosis.diagnose
    assert pe_explorer.show is notebook.show
    assert set(pe_explorer.__all__) <= set(dir(pe_explorer))


def test_the_top_level_names_are_the_papers_numbers():
    from pe_explorer import diagnose, positional_encoding

    pe = positional_encoding(50, 16)
    assert pe[1, 0] == pytest.approx(np.sin(1.0)) and pe[1, 1] == pytest.approx(np.cos(1.0))
    assert diagnose(pe).matches


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'components'"):
        pe_explorer.components  # noqa: B018


def test_installing_the_project_claims_no_top_level_components():
    assert run("import importlib.util as u; print(u.find_spec('components'))") == "None"


def test_dir_lists_the_public_names_only():
    assert dir(pe_explorer) == sorted(pe_explorer.__all__)
    assert not {"_PUBLIC", "import_module", "annotations"} & set(dir(pe_explorer))

"""The page's first paint (scripts/first_paint.py), made at build time, and the package the site
installs, which carries none of the build's code."""

from __future__ import annotations

import ast
import base64
import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from pe_explorer.plotkit import theme
from pe_explorer.ui.page import TITLE

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGE = REPO_ROOT / "components"  # pe_explorer's source (pyproject.toml: package-dir)
# What only the build imports: Pillow (the first paint's picture) and the build's own scripts.
BUILD_ONLY = {"PIL"} | {path.stem for path in (REPO_ROOT / "scripts").glob("*.py")}


@pytest.fixture(scope="module")
def first_paint():
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        import first_paint

        yield first_paint
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))


def imported_modules(source: Path) -> set[str]:
    """The top-level names of the modules a Python file imports (relative imports left out)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    "module", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_the_package_imports_nothing_only_the_build_has(module):
    assert imported_modules(module) & BUILD_ONLY == set()


def test_the_check_of_imports_sees_the_build_importing_pillow():
    assert "PIL" in imported_modules(REPO_ROOT / "scripts" / "first_paint.py")


def matrix_pixels(paint: str) -> np.ndarray:
    from PIL import Image

    data = re.search(r'<img src="data:image/png;base64,([^"]+)"', paint)
    assert data, "the first paint holds no picture of the matrix"
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data[1]))).convert("RGB"))


def test_the_first_paint_is_the_header_and_the_default_matrix_by_the_formula(first_paint):
    paint = first_paint.first_paint_html()
    assert f"<h1>{TITLE}</h1>" in paint and "<math" in paint
    pixels = matrix_pixels(paint)
    assert pixels.shape == (64, 128, 3)  # the default 64 positions × d_model 128, one pixel each
    # Closed form, PE(pos, 2i) = sin(pos / 10000^(2i/128)), PE(pos, 2i+1) = cos(same).
    pos = np.arange(64)[:, None]
    angles = pos / 10000.0 ** (np.arange(0, 128, 2)[None, :] / 128)
    expected = np.empty((64, 128))
    expected[:, 0::2], expected[:, 1::2] = np.sin(angles), np.cos(angles)
    assert np.abs(pixels.astype(int) - theme.diverging_rgb(expected)).max() <= 1
    # The scale's ends and middle: cos 0 = 1 is its darkest red, sin 0 = 0 its white.
    assert tuple(pixels[0, 1]) == (103, 0, 31) and tuple(pixels[0, 0]) == (247, 247, 247)

"""Derived data: every array the views draw, computed once per input and read-only.

Views only draw. What they draw from (the PE matrix, its reduced display copy, the dot-product
and cosine matrices, the offset curves) is computed here, from plain arguments, by the maths
in components/encoding.py, and cached: moving pos or k never recomputes any of it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps

import numpy as np

from . import encoding

# A screen shows at most about this many distinct cells; larger matrices are strided.
MAX_DISPLAY_CELLS = 250_000
# Up to this many multiply-adds the shown dot products are the product PE·PEᵀ itself; beyond,
# they are filled from D(i − j), which equals it (tests/test_views_dotproduct.py), so the
# browser never waits seconds for a 2048 × 2048 × 2048 product.
MAX_DIRECT_PRODUCT = 1 << 23


def _freeze(value) -> None:
    """Mark every NumPy array in value (nested in tuples, lists and dataclasses) read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple | list):
        for item in value:
            _freeze(item)
    elif dataclasses.is_dataclass(value):
        for item in dataclasses.fields(value):
            _freeze(getattr(value, item.name))


def read_only_cache(maxsize: int = 4) -> Callable:
    """lru_cache whose results are read-only: a view cannot change what another view draws."""

    def decorate(function: Callable) -> Callable:
        @lru_cache(maxsize=maxsize)
        @wraps(function)
        def cached(*args):
            result = function(*args)
            _freeze(result)
            return result

        return cached

    return decorate


@read_only_cache()
def pe_matrix(n_positions: int, d_model: int, base: float, layout: str) -> np.ndarray:
    """The PE matrix of positions 0 … n_positions − 1, float64."""
    return encoding.positional_encoding(n_positions, d_model, base, layout=layout)


def display_strides(n_positions: int, d_model: int, max_cells: int = MAX_DISPLAY_CELLS):
    """(row stride, pair stride) so that the shown cells fit in max_cells; (1, 1) when they do.

    Columns are strided by whole sin/cos pairs so both functions of a pair stay visible.
    """
    pairs = d_model // 2
    stride = max(1, math.ceil(math.sqrt(n_positions * d_model / max_cells)))
    while math.ceil(n_positions / stride) * 2 * math.ceil(pairs / stride) > max_cells:
        stride += 1
    return stride, stride


@dataclass(frozen=True)
class MatrixCells:
    """The PE matrix as the heatmap shows it: float32, every stride-th row and pair."""

    rows: np.ndarray  # the positions shown
    columns: np.ndarray  # the dimensions shown
    z: np.ndarray  # float32, rows × columns
    labels: list[str]  # hover label of each shown column: dimension, pair and function
    row_stride: int
    pair_stride: int

    @property
    def reduced(self) -> bool:
        return self.row_stride > 1 or self.pair_stride > 1


@read_only_cache()
def matrix_cells(n_positions: int, d_model: int, base: float, layout: str) -> MatrixCells:
    """The PE matrix as shown, strided by whole pairs when it has more cells than a screen."""
    matrix = pe_matrix(n_positions, d_model, base, layout)
    row_stride, pair_stride = display_strides(n_positions, d_model)
    rows = np.arange(0, n_positions, row_stride)
    pair_of, is_sine = encoding.column_roles(d_model, layout)
    columns = np.flatnonzero(pair_of % pair_stride == 0)
    z = np.ascontiguousarray(matrix[np.ix_(rows, columns)], dtype=np.float32)
    labels = [f"dim {c} · i = {pair_of[c]} · {'sin' if is_sine[c] else 'cos'}" for c in columns]
    return MatrixCells(rows, columns, z, labels, row_stride, pair_stride)


@dataclass(frozen=True)
class DotProductCells:
    """PE·PEᵀ as the dot-product view shows it: every stride-th position, float32."""

    rows: np.ndarray
    dots: np.ndarray
    cosines: np.ndarray
    stride: int
    direct: bool  # True when computed as PE·PEᵀ, False when filled from D(i − j)


def dot_product_stride(n_positions: int, max_cells: int = MAX_DISPLAY_CELLS) -> int:
    """Show every stride-th position so that at most max_cells cells are drawn."""
    return max(1, math.ceil(n_positions / math.isqrt(max_cells)))


@read_only_cache()
def dot_product_cells(n_positions: int, d_model: int, base: float) -> DotProductCells:
    """The shown dot products and cosine similarities of the shown positions.

    The layout only reorders PE's columns, so it is left out: the products are those of the
    interleaved matrix, the same bits whichever layout is shown.
    """
    stride = dot_product_stride(n_positions)
    rows = np.arange(0, n_positions, stride)
    direct = rows.size**2 * d_model <= MAX_DIRECT_PRODUCT
    if direct:
        dots = encoding.gram_matrix(pe_matrix(n_positions, d_model, base, "interleaved")[rows])
    else:
        curve = encoding.offset_dots(n_positions, d_model, base)
        dots = curve[np.abs(rows[:, None] - rows[None, :])]
    cosines = encoding.cosine_similarities(dots)
    shown = [np.ascontiguousarray(z, dtype=np.float32) for z in (dots, cosines)]
    return DotProductCells(rows, *shown, stride=stride, direct=direct)


@read_only_cache()
def offset_dot_curve(n_positions: int, d_model: int, base: float):
    """(offsets k = −(n−1) … n−1, D(k)): the dot product of encodings k apart, even in k."""
    dots = encoding.offset_dots(n_positions, d_model, base)
    offsets = np.arange(-(n_positions - 1), n_positions)
    return offsets, np.concatenate([dots[:0:-1], dots])


@read_only_cache()
def offset_distance_curve(
    d_model: int, base: float, horizon: int = encoding.NEAREST_HORIZON
) -> np.ndarray:
    """Distance of encodings k apart for k = 0 … horizon − 1."""
    return encoding.offset_distances(horizon, d_model, base)


@read_only_cache()
def value_range(n_positions: int, d_model: int, base: float, layout: str) -> tuple[float, float]:
    """Smallest and largest entry of the PE matrix (the same in either layout)."""
    matrix = pe_matrix(n_positions, d_model, base, layout)
    return float(matrix.min()), float(matrix.max())


def cached_functions() -> tuple:
    """Every cache of this module, for tests that count what was computed."""
    return (
        pe_matrix,
        matrix_cells,
        dot_product_cells,
        offset_dot_curve,
        offset_distance_curve,
        value_range,
    )

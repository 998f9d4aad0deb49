"""Learned position tables (GPT-2's wpe, BERT's): principal components and row comparisons.

    principal_components(table, count=3) -> PrincipalComponents
    compare_rows(table, pos, offset) -> RowComparison

A table is positions × dimensions, read and checked by components/diagnosis.py's reader (size
cap, NaN/inf, rank); check_table adds what a principal-component analysis needs. Plain NumPy:
no Panel, no Plotly, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .diagnosis import MatrixError, check_matrix

# Two principal components need three positions (two differences between rows).
MIN_POSITIONS = 3
COMPONENTS = 3
# The synthetic example: a helix of 1.5 turns rising through 64 dimensions, plus noise.
SYNTHETIC_POSITIONS, SYNTHETIC_DIMENSIONS, SYNTHETIC_SEED = 256, 64, 0
SYNTHETIC_TURNS, SYNTHETIC_RISE, SYNTHETIC_NOISE = 1.5, 2.0, 0.05
SYNTHETIC_NAME = "synthetic example, not GPT-2"


def check_table(matrix) -> np.ndarray:
    """The table as a finite float64 positions × dimensions array, or MatrixError saying why not.

    diagnosis.check_matrix's checks (rank, size cap, NaN/inf), and then at least MIN_POSITIONS
    rows that are not all the same (else there is no variance to analyse).
    """
    table = check_matrix(matrix)
    n_positions, d_model = table.shape
    if n_positions < MIN_POSITIONS:
        raise MatrixError(
            f"wrong shape {n_positions} × {d_model}: a position table needs at least "
            f"{MIN_POSITIONS} rows (one per position); if the rows are dimensions, save the "
            "transpose"
        )
    if not np.any(table != table[0]):
        raise MatrixError("no variation: every row is the same, so no position differs")
    return table


def sinusoidal_width(d_model: int) -> int:
    """The width of the sinusoidal table compared with a learned one of d_model columns: the
    same when even, else d_model + 1 (sine and cosine come in pairs)."""
    return d_model + d_model % 2


@dataclass(frozen=True)
class PrincipalComponents:
    """The top principal components of a table's rows (population variance, divided by n)."""

    mean: np.ndarray  # (d,), the mean row
    directions: np.ndarray  # (count, d), unit vectors, largest variance first
    scores: np.ndarray  # (n, count), each row's coordinates along the directions
    variances: np.ndarray  # (count,), the variance of the scores along each direction
    total_variance: float  # the sum of every column's variance

    @property
    def explained(self) -> np.ndarray:
        """The share of the total variance each component explains (0 … 1)."""
        return self.variances / self.total_variance


def principal_components(table, count: int = COMPONENTS) -> PrincipalComponents:
    """The top count principal components of the rows of table (fewer when it has fewer).

    From the eigenvectors of the smaller of XᵀX and XXᵀ (X the centred table). Each direction's
    sign makes its largest-magnitude entry positive, so the same table always gives the same
    picture; any sign is as right.
    """
    table = check_table(table)
    n_positions, d_model = table.shape
    count = min(count, n_positions - 1, d_model)
    mean = table.mean(axis=0)
    centred = table - mean
    if n_positions > d_model:
        eigenvalues, vectors = np.linalg.eigh(centred.T @ centred)
        order = np.argsort(eigenvalues)[::-1][:count]
        directions = vectors[:, order].T
    else:
        eigenvalues, vectors = np.linalg.eigh(centred @ centred.T)
        order = np.argsort(eigenvalues)[::-1][:count]
        # Each left vector u with XXᵀu = λu gives the direction Xᵀu / √λ.
        directions = centred.T @ vectors[:, order]
        # For an eigenvalue at rounding level (a table of lower rank) Xᵀu is rounding noise,
        # not orthogonal to the others: orthonormalising in order keeps the real ones as they
        # are and makes that one a direction of (almost) no variance.
        q, r = np.linalg.qr(directions)
        directions = (q * np.where(np.diag(r) < 0, -1.0, 1.0)).T
    largest = np.argmax(np.abs(directions), axis=1)
    signs = np.sign(directions[np.arange(len(directions)), largest])
    directions = directions * np.where(signs == 0, 1.0, signs)[:, None]
    scores = centred @ directions.T
    return PrincipalComponents(
        mean=mean,
        directions=directions,
        scores=scores,
        variances=np.sum(scores**2, axis=0) / n_positions,
        total_variance=float(np.sum(centred**2) / n_positions),
    )


@dataclass(frozen=True)
class RowComparison:
    """Rows first and second = first + k of a table: dot, cosine similarity, distance."""

    first: int
    second: int
    moved: bool  # pos or pos + k lay beyond the table's rows and were moved into them
    dot: float
    cosine: float  # NaN when a row is all zeros
    distance: float


def rows_within(n_positions: int, pos, offset):
    """(first, second, moved): pos and pos + k moved into the rows 0 … n − 1 of a table.

    The offset is kept when it fits (|k| ≤ n − 1; else it becomes ±(n − 1)), and pos moves as
    little as it can for pos + k to fit too. pos and offset may be arrays (of equal shape).
    """
    last = n_positions - 1
    offset_shown = np.clip(offset, -last, last)
    low, high = np.maximum(0, -offset_shown), np.minimum(last, last - offset_shown)
    first = np.minimum(np.maximum(pos, low), high)
    moved = (first != pos) | (offset_shown != offset)
    return first, first + offset_shown, moved


def compare_row_pairs(table, firsts, seconds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dot products, cosine similarities (NaN where a row is all zeros) and Euclidean distances
    of rows firsts[j] and seconds[j] of table.

    Each is a sum along one row, so a pair's numbers are the same bits however many pairs are
    asked for: the learned view prints one pair, its picks every pair a slider reaches.
    """
    table = np.asarray(table, dtype=np.float64)
    u, v = table[firsts], table[seconds]
    dot = (u * v).sum(axis=1)
    norms = np.sqrt((u * u).sum(axis=1)) * np.sqrt((v * v).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where(norms > 0, dot / norms, np.nan)
    return dot, cosine, np.sqrt(((u - v) ** 2).sum(axis=1))


def compare_rows(table, pos: int, offset: int) -> RowComparison:
    """Dot product, cosine similarity and Euclidean distance of rows pos and pos + k of table
    (moved into its rows as rows_within says)."""
    table = np.asarray(table, dtype=np.float64)
    first, second, moved = (int(value) for value in rows_within(len(table), pos, offset))
    dot, cosine, distance = (
        float(values[0]) for values in compare_row_pairs(table, [first], [second])
    )
    return RowComparison(first, second, bool(moved), dot, cosine, distance)


def synthetic_table(
    n_positions: int = SYNTHETIC_POSITIONS,
    d_model: int = SYNTHETIC_DIMENSIONS,
    seed: int = SYNTHETIC_SEED,
) -> np.ndarray:
    """A made-up learned-like table: a helix (a circle turning SYNTHETIC_TURNS times while it
    rises along a third direction) in three random orthonormal directions, plus Gaussian
    noise. Not GPT-2's or any model's numbers."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.standard_normal((d_model, 3)))
    along = np.linspace(0.0, 1.0, n_positions)
    angle = 2 * np.pi * SYNTHETIC_TURNS * along
    helix = np.stack([np.cos(angle), np.sin(angle), SYNTHETIC_RISE * (along - 0.5)], axis=1)
    noise = SYNTHETIC_NOISE * rng.standard_normal((n_positions, d_model))
    return helix @ basis.T + noise


@dataclass(frozen=True)
class LearnedTable:
    """A checked learned table with its principal components, as the learned view shows it."""

    values: np.ndarray  # float64, positions × dimensions, read-only
    name: str  # the file's name as given (escape it to show it), or SYNTHETIC_NAME
    synthetic: bool
    components: PrincipalComponents

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape


def learned_table(matrix, name: str, synthetic: bool = False) -> LearnedTable:
    """The table checked (MatrixError if it is not one) and analysed once."""
    values = np.array(check_table(matrix))
    components = principal_components(values)
    for array in (values, components.mean, components.directions, components.scores):
        array.flags.writeable = False
    return LearnedTable(values, name, synthetic, components)

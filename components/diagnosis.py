"""Is a learner's positional encoding right? Fit the usual mistakes to their matrix, name the best.

    diagnose(matrix, base=10000.0, rows="auto") -> Diagnosis

The reference is components/encoding.py's. Each candidate mistake (another base, an exponent of i
instead of 2i, multiplying instead of dividing, integer division, sine and cosine swapped, …) is
computed as the buggy code would compute it and compared cell by cell with the matrix; the
candidate that fits within the rounding error of float64, float32 or float16 is named. Plain
NumPy: no Panel, no Plotly, and no I/O beyond parsing the bytes or text it is given.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import encoding

# The size cap, checked before anything of that size is allocated.
MAX_ROWS = encoding.MAX_N_POSITIONS
MAX_COLUMNS = encoding.MAX_D_MODEL
MAX_CELLS = MAX_ROWS * MAX_COLUMNS
# A float64 .npy of 2048 × 2048 (32 MiB) and its header.
MAX_FILE_BYTES = MAX_CELLS * 8 + 4096
MAX_TEXT_CHARS = 32 * 2**20
SIZE_CAP = (
    f"at most {MAX_ROWS} × {MAX_COLUMNS} numbers (a float64 .npy of 32 MiB) "
    f"and files or text of at most 32 MiB"
)
ROWS = ("auto", "positions", "dimensions")

# Precisions a match is named by, with their machine epsilon (the spacing of numbers near 1).
PRECISIONS = (
    ("float64", float(np.finfo(np.float64).eps)),
    ("float32", float(np.finfo(np.float32).eps)),
    ("float16", float(np.finfo(np.float16).eps)),
)
# A float16 match whose error somewhere exceeds this is "precision loss", not a match.
PRECISION_LOSS = 0.01
# PE·PEᵀ counts as Toeplitz when no diagonal spreads by more than this part of the mean
# squared row norm (d_model / 2 for a right encoding).
TOEPLITZ_TOLERANCE = 1e-3
WORST_CELLS = 5
# Rows every candidate is first screened on: the first ones and some spread to the last.
SCREEN_FIRST, SCREEN_SPREAD = 16, 48
CHUNK_ROWS = 256


class MatrixError(ValueError):
    """The input is not a matrix this check can read; the message is one line for the page."""


@dataclass(frozen=True)
class Mistake:
    """A mistake the check can name: what it is, how it looks in code, how to fix it."""

    key: str
    title: str
    explanation: str
    fix: str


MISTAKES = {
    mistake.key: mistake
    for mistake in (
        Mistake(
            "transposed",
            "a transposed matrix",
            "its rows are dimensions and its columns positions",
            "PE is positions × d_model: pe[pos, dim]; transpose it (pe.T), or say the rows are "
            "dimensions if you meant that",
        ),
        Mistake(
            "layout",
            "the other layout",
            "the sines and cosines are in the other layout than the one expected",
            "interleaved puts sin in column 2i and cos in 2i + 1; concatenated puts the d_model/2 "
            "sines first, then the cosines. Use the one your model expects",
        ),
        Mistake(
            "swapped",
            "sine and cosine swapped",
            "each pair holds the cosine where the sine belongs and the sine where the cosine "
            "belongs",
            "pe[:, 0::2] = sin(angle) and pe[:, 1::2] = cos(angle)",
        ),
        Mistake(
            "exponent_i",
            "an exponent of i instead of 2i",
            "the frequencies are base^(-i/d_model) for pair i, as if the base were its square "
            "root: the 2 of 2i is missing, e.g. 10000 ** (torch.arange(0, d_model // 2) / d_model)",
            "divide by base ** (2i / d_model) with i the pair: torch.arange(0, d_model, 2) / "
            "d_model already holds 2i / d_model",
        ),
        Mistake(
            "exponent_4i",
            "an exponent of 4i instead of 2i",
            "the frequencies are base^(-4i/d_model): 2i was doubled although torch.arange(0, "
            "d_model, 2) already steps by 2, e.g. 10000 ** (2 * torch.arange(0, d_model, 2) / "
            "d_model)",
            "use torch.arange(0, d_model, 2) / d_model, or 2 * torch.arange(d_model // 2) / "
            "d_model, not both",
        ),
        Mistake(
            "multiply",
            "multiplying by base^(2i/d) instead of dividing",
            "the angle is pos × base^(2i/d_model), so the frequencies grow with i instead of "
            "falling",
            "angle = pos / base ** (2i / d_model), or pos * base ** (-2i / d_model)",
        ),
        Mistake(
            "integer_exponent",
            "integer division in the exponent",
            "every pair has frequency 1: the exponent 2i / d_model was computed in integer "
            "arithmetic (2 * i // d_model, Python 2's /, or an integer tensor times a float) and "
            "is 0",
            "compute the exponent in floating point: 2 * i / d_model with float i, e.g. "
            "torch.arange(0, d_model, 2, dtype=torch.float32)",
        ),
        Mistake(
            "floor_angle",
            "integer division of the position",
            "the angles are whole numbers: pos // base^(2i/d_model), or integer positions "
            "divided before the cast to float",
            "cast the positions to float before dividing, and divide with /, not //",
        ),
        Mistake(
            "integer_matrix",
            "values stored in an integer array",
            "every value is cut to a whole number (−1, 0 or 1): the matrix was made with "
            "np.zeros((n, d), dtype=int) or torch.zeros(n, d, dtype=torch.long)",
            "make the matrix in floating point: np.zeros((n, d)) or torch.zeros(n, d)",
        ),
        Mistake(
            "start_at_1",
            "positions starting at 1",
            "row r holds the encoding of position r + 1: torch.arange(1, n + 1)",
            "positions start at 0: torch.arange(n)",
        ),
        Mistake(
            "column_frequency",
            "the column index used as i",
            "each column has its own frequency base^(-2j/d_model) for column j, instead of "
            "sharing one per pair: np.power(10000, 2 * i / d_model) with i = np.arange(d_model)",
            "use the pair index: 2 * (i // 2) / d_model for column i",
        ),
        Mistake(
            "column_frequency_odd",
            "the column index in the exponent",
            "column j has frequency base^(-j/d_model): the cosine of pair i has a slightly "
            "lower frequency than its sine (np.power(10000, i / d_model) with i = "
            "np.arange(d_model))",
            "both columns of pair i share base^(-2i/d_model): use 2 * (i // 2) / d_model",
        ),
        Mistake(
            "base",
            "another base",
            "the frequencies are base^(-2i/d_model) for another base than the reference's: a "
            "constant typed wrong (1000 for 10000), or another base passed in",
            "use the base you meant (the paper's is 10000), or check against the base you "
            "meant: the Base control, or diagnose(matrix, base=...)",
        ),
        Mistake(
            "float16",
            "precision loss (float16)",
            "the angles were computed in float16, whose spacing near 1000 is 0.5: at large "
            "positions sin and cos of them are noise",
            "compute the angles in float32 or float64 and cast the finished matrix with .half()",
        ),
    )
}


@dataclass(frozen=True)
class Cell:
    """One cell of the matrix: where it is, the learner's value and the reference's."""

    position: int
    dimension: int
    theirs: float
    ours: float

    def __str__(self) -> str:
        return (
            f"position {self.position}, dimension {self.dimension}: "
            f"theirs {self.theirs:.6g}, ours {self.ours:.6g}"
        )


@dataclass(frozen=True)
class Fit:
    """How one candidate fitted: its name, the precision it fits to (None: it does not)."""

    name: str
    precision: str | None
    max_abs_error: float  # on the rows every candidate is screened on


@dataclass(frozen=True)
class Diagnosis:
    """The verdict on a matrix, and the evidence behind it."""

    verdict: str  # one or two sentences, plain text
    kind: str  # "match", "no match" or a key of MISTAKES ("transposed": right once transposed)
    matches: bool
    base: float  # the reference's base
    layout: str  # the layout of the reference compared against
    precision: str | None  # what the fit holds to: "float64", "float32", "float16", "4 decimals"
    transposed: bool  # the rows turned out to be the other way round than declared
    rows_are: str  # "positions" or "dimensions": what the given matrix's rows are
    fitted_base: float | None  # for kind "base": the base that fits
    n_positions: int
    d_model: int
    dtype: str  # the dtype the matrix came in
    max_abs_error: float  # max |theirs − ours|, every cell
    first_difference: Cell | None  # first cell (row by row) beyond the rounding tolerance
    worst_cells: tuple[Cell, ...]
    toeplitz: bool  # whether their PE·PEᵀ is constant along each diagonal
    toeplitz_spread: float  # largest (max − min) along a diagonal ÷ the mean squared row norm
    tried: tuple[Fit, ...]
    theirs: np.ndarray = field(compare=False, repr=False)  # positions × dimensions, float64
    reference: np.ndarray = field(compare=False, repr=False)  # ours, same shape

    @property
    def mistake(self) -> Mistake | None:
        """The mistake named, if any (a transposed matrix counts)."""
        if self.kind in MISTAKES:
            return MISTAKES[self.kind]
        return MISTAKES["transposed"] if self.transposed else None

    def __str__(self) -> str:
        lines = [
            self.verdict,
            f"  matrix: {self.n_positions} positions × {self.d_model} dimensions ({self.dtype}), "
            f"rows are {self.rows_are}",
            f"  reference: base {self.base:g}, {self.layout} layout",
            f"  max |theirs − ours|: {self.max_abs_error:.3g}",
        ]
        if self.first_difference is not None:
            lines.append(f"  first difference: {self.first_difference}")
        lines.append(f"  PE·PEᵀ {self.toeplitz_sentence()}")
        return "\n".join(lines)

    def toeplitz_sentence(self) -> str:
        """Whether their PE·PEᵀ is Toeplitz, in words with the number."""
        verdict = "is Toeplitz" if self.toeplitz else "is not Toeplitz"
        return (
            f"{verdict}: the largest spread along a diagonal is {self.toeplitz_spread:.2g} of "
            "the mean squared row norm"
        )

    def report(self) -> str:
        """A plain-text report to paste into a forum post: verdict, evidence and reference code."""
        lines = [
            "Positional encoding check (Positional Encoding Explorer)",
            "",
            f"Verdict: {self.verdict}",
        ]
        mistake = self.mistake
        if mistake is not None:
            lines += [f"What it looks like: {mistake.explanation}.", f"Fix: {mistake.fix}."]
        lines += [
            "",
            "Evidence",
            f"- matrix: {self.n_positions} positions × {self.d_model} dimensions "
            f"({self.dtype}); its rows are {self.rows_are}",
            f"- reference: base {self.base:g}, {self.layout} layout, float64",
            f"- max |theirs − ours|: {self.max_abs_error:.6g}",
            f"- first difference: {self.first_difference or 'none beyond rounding'}",
        ]
        if self.worst_cells:
            lines.append("- worst cells:")
            lines += [f"    {cell}" for cell in self.worst_cells]
        lines.append(f"- their PE·PEᵀ {self.toeplitz_sentence()}")
        fitting = [fit for fit in self.tried if fit.precision is not None]
        lines.append(
            f"- candidates tried: {len(self.tried)}; fitting: "
            + (", ".join(f"{fit.name} ({fit.precision})" for fit in fitting) or "none")
        )
        lines += [
            "",
            "Reference (NumPy):",
            "",
            reference_code(self.n_positions, self.d_model, self.base, self.layout),
        ]
        return "\n".join(lines)


def reference_code(n_positions: int, d_model: int, base: float, layout: str) -> str:
    """NumPy code that computes the reference matrix."""
    sin_cols, cos_cols = (
        ("0::2", "1::2") if layout == "interleaved" else (f":{d_model // 2}", f"{d_model // 2}:")
    )
    return (
        "import numpy as np\n\n"
        f"n_positions, d_model, base = {n_positions}, {d_model}, {base!r}\n"
        "omega = base ** (-np.arange(0, d_model, 2) / d_model)  # angular frequencies\n"
        "angle = np.arange(n_positions)[:, None] * omega\n"
        "pe = np.empty((n_positions, d_model))\n"
        f"pe[:, {sin_cols}], pe[:, {cos_cols}] = np.sin(angle), np.cos(angle)  # {layout}\n"
    )


# ---- Reading a matrix -------------------------------------------------------------------------


def check_matrix(matrix) -> np.ndarray:
    """The matrix as a finite 2-D float64 array within the cap, or MatrixError saying why not.

    Axes of length 1 beyond two are dropped (PyTorch's pe buffer is (1, n, d) or (n, 1, d)).
    """
    return _checked(matrix).astype(np.float64, copy=False)


def _checked(matrix) -> np.ndarray:
    """check_matrix's checks; the array keeps its own dtype (float16 stays float16)."""
    if isinstance(matrix, np.ndarray):
        array = matrix
    else:
        try:
            array = np.asarray(matrix)
        except (TypeError, ValueError) as error:
            raise MatrixError(f"not a matrix: {_first_line(error)}") from None
    if array.dtype.hasobject:
        raise MatrixError(
            "not a matrix of numbers: it holds Python objects (object dtype); give float numbers"
        )
    if array.dtype.kind not in "iuf":
        raise MatrixError(f"not a matrix of numbers: its dtype is {array.dtype}")
    array = array.reshape(_matrix_shape(array.shape))
    finite = np.isfinite(array)
    if not finite.all():
        row, column = np.argwhere(~finite)[0]
        raise MatrixError(
            f"NaN or infinity at row {row + 1}, column {column + 1}: every value must be a "
            "finite number"
        )
    return array


def _matrix_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, columns) of an array of this shape with its extra length-1 axes dropped, or
    MatrixError for another rank, an empty array or one over the cap."""
    if len(shape) == 0:
        raise MatrixError("not a matrix: a single number")
    if 0 in shape:
        raise MatrixError(f"empty: the array has shape {shape}")
    if len(shape) == 1:
        raise MatrixError(
            f"wrong rank: a vector of {shape[0]} numbers, not a matrix of positions × dimensions"
        )
    kept = [length for length in shape if length != 1]
    if len(shape) > 2 and len(kept) != 2:
        raise MatrixError(
            f"wrong rank: {len(shape)} axes {shape}; give a matrix of positions × dimensions"
        )
    rows, columns = shape if len(shape) == 2 else kept
    if rows > MAX_ROWS or columns > MAX_COLUMNS:
        raise MatrixError(f"over the size cap: {rows} × {columns}; the cap is {SIZE_CAP}")
    return rows, columns


@dataclass(frozen=True)
class UploadFormat:
    """What an uploaded file must hold, and the words for what it is not: the matrix here, and
    the RoPE checker's inv_freq. A .npy's header is checked before its data is read; any other
    file is decoded as text and parsed."""

    error: type[ValueError]  # raised with one line for the page
    numbers: str  # what a .npy of objects or of another dtype is not: "a matrix of numbers"
    size_cap: str
    max_file_bytes: int
    check_shape: Callable[[tuple[int, ...]], object]  # raises error for a shape it cannot take
    check_array: Callable[[np.ndarray], np.ndarray]  # the loaded array, checked
    parse_text: Callable[[str], np.ndarray]
    refused_suffixes: tuple[str, ...]  # archives, checkpoints and pickles: never opened
    refused: str  # the message for one of them
    not_text: str  # the message for bytes that are neither a .npy nor UTF-8 text

    def read(self, data: bytes, filename: str = "") -> np.ndarray:
        """The array in an uploaded file (.npy, or text), checked; a .npy keeps its dtype."""
        if not data:
            raise self.error("empty file: it holds no bytes")
        if len(data) > self.max_file_bytes:
            raise self.error(
                f"over the size cap: the file has {len(data):,} bytes; the cap is {self.size_cap}"
            )
        name = filename.lower()
        if data.startswith(b"\x93NUMPY") or name.endswith(".npy"):
            return self.read_npy(data)
        if data.startswith(b"PK\x03\x04") or name.endswith(self.refused_suffixes):
            raise self.error(self.refused)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise self.error(self.not_text) from None
        return self.parse_text(text)

    def read_npy(self, data: bytes) -> np.ndarray:
        """A .npy file's array: the header is read and checked before the data is."""
        stream = io.BytesIO(data)
        try:
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
        except (ValueError, EOFError, SyntaxError, TypeError) as error:
            raise self.error(f"not a valid .npy file: {_first_line(error)}") from None
        if dtype.hasobject:
            raise self.error(
                f"not {self.numbers}: the .npy holds Python objects (object dtype), which are "
                "never unpickled; save a float array"
            )
        if dtype.kind not in "iuf":
            raise self.error(f"not {self.numbers}: the .npy's dtype is {dtype}")
        self.check_shape(shape)
        if len(data) - stream.tell() < dtype.itemsize * math.prod(shape):
            raise self.error(f"not a valid .npy file: it is cut short (shape {shape}, {dtype})")
        stream.seek(0)
        try:
            array = np.load(stream, allow_pickle=False)
        except (ValueError, EOFError, OSError) as error:
            raise self.error(f"not a valid .npy file: {_first_line(error)}") from None
        return self.check_array(array)


def load_matrix(data: bytes, filename: str = "") -> np.ndarray:
    """The matrix in an uploaded file (.npy, or .csv / text), checked as check_matrix does.

    A .npy's array keeps its dtype, so that diagnose() can say what it came in."""
    return MATRIX_UPLOAD.read(data, filename)


# NumPy's and PyTorch's printed arrays: array([[...]], dtype=float32), tensor([[...]]), and
# lists of NumPy numbers: [np.float64(0.0), …].
_WRAPPERS = re.compile(
    r"\b(?:array|tensor|np\.\w+)\(|\b(?:dtype|device|requires_grad|grad_fn)=[^,\])]*|\)",
    re.IGNORECASE,
)
_NOT_NUMBER = re.compile(
    r"could not convert string '([^']*)' to float64 at row (\d+), column (\d+)"
)
_HEADER_INDEX = {"", "pos", "position", "positions", "index", "unnamed: 0", "#"}


def parse_text(text: str) -> np.ndarray:
    """The matrix in pasted numbers or a CSV: rows of numbers split by commas, semicolons,
    tabs or spaces, or a printed NumPy array / PyTorch tensor / nested list.

    One header line without numbers is skipped, and with it a first column holding the
    positions 0, 1, 2, … (the explorer's CSV export and pandas' to_csv write both).
    """
    if len(text) > MAX_TEXT_CHARS:
        raise MatrixError(
            f"over the size cap: the text has {len(text):,} characters; the cap is {SIZE_CAP}"
        )
    text = text.strip().lstrip("\ufeff")
    if not text:
        raise MatrixError("empty: there are no numbers")
    if "..." in text or "…" in text:
        raise MatrixError(
            "not the whole matrix: it was printed with '...' in place of the middle; save it with "
            "np.savetxt or np.save, or print it after np.set_printoptions(threshold=np.inf)"
        )
    bracketed = "[" in text
    if bracketed:
        lines = _bracket_rows(text)
        delimiter = None
    else:
        if text.count("\n") > 2 * MAX_ROWS + 16:
            raise MatrixError(
                f"over the size cap: more than {MAX_ROWS} rows; the cap is {SIZE_CAP}"
            )
        lines = [
            line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
        ]
        if not lines:
            raise MatrixError("empty: there are no numbers, only comments")
        delimiter = next((d for d in (",", ";", "\t") if d in lines[0]), None)
    header = None
    if not bracketed and not _has_number(lines[0], delimiter):
        # A header: a line with no number at all.
        header, lines = lines[0], lines[1:]
    if not lines:
        raise MatrixError("not numeric: no line holds numbers")
    if len(lines) > MAX_ROWS:
        raise MatrixError(
            f"over the size cap: more than {MAX_ROWS} rows ({len(lines)}); the cap is {SIZE_CAP}"
        )
    for line in lines:
        fields = line.count(delimiter) + 1 if delimiter else len(line.split(maxsplit=MAX_COLUMNS))
        if fields > MAX_COLUMNS:
            raise MatrixError(
                f"over the size cap: more than {MAX_COLUMNS} columns; the cap is {SIZE_CAP}"
            )
    try:
        values = np.loadtxt(
            io.StringIO("\n".join(lines)),
            delimiter=delimiter,
            dtype=np.float64,
            ndmin=2,
            comments=None,
        )
    except ValueError as error:
        raise MatrixError(_loadtxt_message(error, header is not None)) from None
    if header is not None and values.shape[1] > 1:
        first = re.split(r"[,;\t]|\s+", header.strip())[0].strip().strip("\"'").lower()
        if first in _HEADER_INDEX and np.array_equal(values[:, 0], np.arange(len(values))):
            values = values[:, 1:]
    return check_matrix(values)


def _bracket_rows(text: str) -> list[str]:
    """The innermost [ … ] groups of a printed array or nested list, one row each."""
    text = _WRAPPERS.sub(" ", text)
    brackets = re.sub(r"[^\[\]]", "", text)
    if len(brackets) > 2 * MAX_ROWS + 16:
        raise MatrixError(f"over the size cap: more than {MAX_ROWS} rows; the cap is {SIZE_CAP}")
    depth = deepest = 0
    for bracket in brackets:
        depth += 1 if bracket == "[" else -1
        if depth < 0:
            raise MatrixError("not a matrix: its brackets do not match")
        deepest = max(deepest, depth)
    if depth != 0:
        raise MatrixError("not a matrix: its brackets do not match")
    rows = re.findall(r"\[([^\[\]]*)\]", text)
    if deepest == 1:
        count = len(rows[0].replace(",", " ").split()) if len(rows) == 1 else 0
        raise MatrixError(
            f"wrong rank: a vector of {count} numbers, not a matrix of positions × dimensions"
            if count
            else "not a matrix: give rows of numbers"
        )
    if deepest > 2 and brackets.count("[" * (deepest - 1)) != 1:
        raise MatrixError(
            f"wrong rank: {deepest} levels of brackets; give a matrix of positions × dimensions"
        )
    if re.sub(r"\[[^\[\]]*\]|[\[\],\s]", "", text):
        raise MatrixError("not numeric: there is text outside the rows of numbers")
    rows = [" ".join(row.replace(",", " ").split()) for row in rows]
    if not any(rows):
        raise MatrixError("empty: there are no numbers")
    if not all(rows):
        raise MatrixError(f"wrong shape: row {rows.index('') + 1} is empty")
    return rows


def _has_number(line: str, delimiter: str | None) -> bool:
    for token in line.split(delimiter, MAX_COLUMNS):
        try:
            float(token)
        except ValueError:
            continue
        return True
    return False


def _loadtxt_message(error: ValueError, skipped_header: bool) -> str:
    message = _first_line(error)
    shift = 2 if skipped_header else 1
    found = _NOT_NUMBER.search(message)
    if found:
        token, row, column = found.groups()
        # NumPy counts these rows from 0 and the columns from 1.
        return f"not numeric: row {int(row) + shift}, column {column} holds {token[:40]!r}"
    found = re.search(r"number of columns changed from (\d+) to (\d+) at row (\d+)", message)
    if found:
        # Here NumPy counts the rows from 1.
        before, after, row = found.groups()
        numbers = "number" if after == "1" else "numbers"
        return (
            f"wrong shape: row {int(row) + shift - 1} has {after} {numbers} where the rows "
            f"before have {before}"
        )
    return f"not numeric: {message}"


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


MATRIX_UPLOAD = UploadFormat(
    error=MatrixError,
    numbers="a matrix of numbers",
    size_cap=SIZE_CAP,
    max_file_bytes=MAX_FILE_BYTES,
    check_shape=_matrix_shape,
    check_array=_checked,
    parse_text=parse_text,
    refused_suffixes=(".npz", ".pt", ".pth", ".pkl", ".pickle"),
    refused="not a matrix file: archives and pickles are never opened; save one array with "
    "np.save('pe.npy', pe) or np.savetxt('pe.csv', pe, delimiter=',')",
    not_text="not a matrix: the file is neither a .npy file nor text (CSV or numbers)",
)


# ---- Candidates -------------------------------------------------------------------------------

# A candidate computes, for some positions: the matrix the code would give, the angle behind
# each cell (the rounding tolerance grows with it) and, for a floor that rounding can tip either
# way, the matrix on the other side (None when there is none).
Build = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray, np.ndarray | None]]


@dataclass(frozen=True)
class _Candidate:
    kind: str  # "match" or a key of MISTAKES
    layout: str
    name: str
    build: Build
    fitted_base: float | None = None


def _column_angles(angles: np.ndarray, d_model: int, layout: str) -> np.ndarray:
    pair_of, _ = encoding.column_roles(d_model, layout)
    return angles[:, pair_of]


def _from_angles(angles: np.ndarray, layout: str) -> np.ndarray:
    # sin and cos placed as encoding places them (encoding.py offers no public name for it).
    return encoding._lay_out(angles, layout, np.dtype(np.float64))


def _encoded(base: float, layout: str, shift: float = 0.0) -> Build:
    def build(positions, d_model):
        shifted = positions + shift
        matrix = encoding.encode_positions(shifted, d_model, base, layout=layout)
        angles = shifted[:, None] * encoding.angular_frequencies(d_model, base)
        return matrix, _column_angles(angles, d_model, layout), None

    return build


def _swapped(base: float, layout: str) -> Build:
    def build(positions, d_model):
        matrix, angles, _ = _encoded(base, layout)(positions, d_model)
        sin_cols, cos_cols = encoding.pair_columns(d_model, layout)
        swapped = np.empty_like(matrix)
        swapped[:, sin_cols], swapped[:, cos_cols] = matrix[:, cos_cols], matrix[:, sin_cols]
        return swapped, angles, None

    return build


def _pair_angles(angles_of: Callable[[np.ndarray, np.ndarray], np.ndarray], base, layout) -> Build:
    """A candidate from its angles: angles_of(positions column, omega row) -> angles."""

    def build(positions, d_model):
        omega = encoding.angular_frequencies(d_model, base)
        angles = angles_of(positions[:, None], omega[None, :])
        return _from_angles(angles, layout), _column_angles(angles, d_model, layout), None

    return build


def _floor_angle(base: float, layout: str) -> Build:
    def build(positions, d_model):
        exact = positions[:, None] * encoding.angular_frequencies(d_model, base)
        # pos // base^(2i/d) is the floor of pos·ω; where pos·ω is within rounding of a whole
        # number, the buggy code's own rounding may land either side.
        low, high = np.floor(exact * (1 - 1e-9)), np.floor(exact * (1 + 1e-9))
        matrix = _from_angles(low, layout)
        other = None if np.array_equal(low, high) else _from_angles(high, layout)
        return matrix, _column_angles(low, d_model, layout), other

    return build


def _integer_matrix(base: float, layout: str) -> Build:
    def build(positions, d_model):
        matrix, angles, _ = _encoded(base, layout)(positions, d_model)
        # cos of a tiny angle is 1.0 in float32, 0.99999… in float64: either truncation.
        low, high = np.trunc(matrix), np.trunc(matrix.astype(np.float32)).astype(np.float64)
        return low, angles, None if np.array_equal(low, high) else high

    return build


def _column_frequency(base: float, exponent_per_column: float) -> Build:
    """Interleaved, each column j with frequency base^(-exponent_per_column · j / d_model)."""

    def build(positions, d_model):
        columns = np.arange(d_model)
        angles = positions[:, None] * np.power(base, -exponent_per_column * columns / d_model)
        sin_cols, cos_cols = encoding.pair_columns(d_model, "interleaved")
        matrix = np.empty_like(angles)
        matrix[:, sin_cols], matrix[:, cos_cols] = (
            np.sin(angles[:, sin_cols]),
            np.cos(angles[:, cos_cols]),
        )
        return matrix, angles, None

    return build


def _candidates(base: float, layouts: tuple[str, ...], expected: str | None) -> list[_Candidate]:
    """Every candidate, most likely first: the reference, then the mistakes."""
    found = [
        _Candidate("match", layout, f"reference ({layout})", _encoded(base, layout))
        for layout in layouts
    ]
    if expected is not None:
        other = next(layout for layout in encoding.LAYOUTS if layout != expected)
        found.append(_Candidate("layout", other, f"{other} layout", _encoded(base, other)))
    for layout in layouts:
        mistakes = [
            ("swapped", _swapped(base, layout)),
            ("exponent_i", _encoded(math.sqrt(base), layout)),
            ("multiply", _pair_angles(lambda pos, omega: pos / omega, base, layout)),
            (
                "integer_exponent",
                _pair_angles(lambda pos, omega: pos * np.ones_like(omega), base, layout),
            ),
            ("floor_angle", _floor_angle(base, layout)),
            ("integer_matrix", _integer_matrix(base, layout)),
            ("start_at_1", _encoded(base, layout, shift=1.0)),
        ]
        if math.isfinite(base * base):
            mistakes.insert(2, ("exponent_4i", _encoded(base * base, layout)))
        found += [
            _Candidate(kind, layout, f"{MISTAKES[kind].title} ({layout})", build)
            for kind, build in mistakes
        ]
    if "interleaved" in layouts:
        found += [
            _Candidate(
                "column_frequency",
                "interleaved",
                MISTAKES["column_frequency"].title,
                _column_frequency(base, 2.0),
            ),
            _Candidate(
                "column_frequency_odd",
                "interleaved",
                MISTAKES["column_frequency_odd"].title,
                _column_frequency(base, 1.0),
            ),
        ]
    return found


def _base_candidates(
    theirs: np.ndarray, base: float, layout: str, screen: np.ndarray
) -> list[_Candidate]:
    """Candidates of another base, estimated from the matrix: round values first ("base 1000")."""
    estimate = _estimate_base(theirs, layout)
    if estimate is None:
        return []
    estimate = _refine_base(theirs[screen], screen.astype(np.float64), estimate, layout)
    values = []
    for digits in (1, 2, 3):
        values.append(float(f"{estimate:.{digits}g}"))
    values.append(estimate)
    found = {}
    for value in values:
        name = f"base {value:.6g} ({layout})"
        if name in found or not 1 < value < math.inf or math.isclose(value, base, rel_tol=1e-9):
            continue
        found[name] = _Candidate("base", layout, name, _encoded(value, layout), value)
    return list(found.values())


def _estimate_base(theirs: np.ndarray, layout: str) -> float | None:
    """The base whose frequencies fit the matrix's pairs best, or None when they say nothing.

    Each pair's angle atan2(sin, cos), unwrapped along the positions, is pos·ω_i; its slope
    gives ω_i, and ln ω_i = −(2i/d) ln(base) gives ln(base) by weighted least squares.
    """
    rows = theirs[:512]
    n, d_model = rows.shape
    if n < 2 or d_model < 4:
        return None
    sin_cols, cos_cols = encoding.pair_columns(d_model, layout)
    angles = np.unwrap(np.arctan2(rows[:, sin_cols], rows[:, cos_cols]), axis=0)
    positions = np.arange(n, dtype=np.float64)
    omega = positions @ angles / (positions @ positions)
    exponent = 2.0 * np.arange(d_model // 2) / d_model
    usable = (omega > 0) & (omega < 3.0) & (exponent > 0)
    if not usable.any():
        return None
    # The error of a slope falls as the angle it spans grows.
    weight = ((n - 1) * omega[usable]) ** 2
    x, y = exponent[usable], -np.log(omega[usable])
    log_base = float(np.sum(weight * x * y) / np.sum(weight * x * x))
    if not math.isfinite(log_base) or log_base <= 0 or log_base > 100:
        return None
    return math.exp(log_base)


def _refine_base(rows: np.ndarray, positions: np.ndarray, estimate: float, layout: str) -> float:
    """Two Gauss–Newton steps on ln(base), kept only while they bring the values closer."""
    d_model = rows.shape[1]
    pair_of, is_sine = encoding.column_roles(d_model, layout)
    exponent = (2.0 * np.arange(d_model // 2) / d_model)[pair_of]
    log_base = math.log(estimate)

    def residual_and_slope(log_base):
        matrix, angles, _ = _encoded(math.exp(log_base), layout)(positions, d_model)
        # d angle / d ln(base) = −exponent · angle; d sin = cos d angle, d cos = −sin d angle.
        slope = np.where(is_sine, np.cos(angles), -np.sin(angles)) * (-exponent * angles)
        return rows - matrix, slope

    residual, slope = residual_and_slope(log_base)
    for _ in range(2):
        denominator = float(np.sum(slope * slope))
        if denominator == 0:
            break
        step = float(np.sum(slope * residual)) / denominator
        trial = log_base + step
        if not 0 < trial < 100:
            break
        trial_residual, trial_slope = residual_and_slope(trial)
        if np.sum(trial_residual**2) >= np.sum(residual**2):
            break
        log_base, residual, slope = trial, trial_residual, trial_slope
    return math.exp(log_base)


# ---- Fitting ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rounding:
    """How much rounding the matrix may carry: which precisions, and printed decimals."""

    precisions: tuple[tuple[str, float], ...]
    allowance: float  # half a unit in the last printed decimal (0 when printed in full)
    decimals: int | None
    scale_k: float  # the angle error of a rounded computation is about scale_k · eps · angle


def _rounding(values: np.ndarray, base: float, sample: np.ndarray) -> _Rounding:
    decimals = _printed_decimals(sample)
    allowance = 0.0 if decimals is None else 0.5 * 10.0**-decimals * (1 + 1e-6) + 1e-12
    # float16 is only named for numbers that are float16 numbers (or printed from them).
    in_float16 = decimals is None and bool(
        np.all(np.abs(values - values.astype(np.float16).astype(np.float64)) <= 1e-6)
    )
    precisions = PRECISIONS if in_float16 else PRECISIONS[:2]
    # The angle pos·base^(−2i/d) computed in floating point carries a relative error of up to
    # about (ln(base) + 3) eps (exp of a rounded exponent, then a product); doubled for margin.
    scale_k = 2.0 * (math.log(max(base, math.e)) + 3.0)
    return _Rounding(precisions, allowance, decimals, scale_k)


def _printed_decimals(values: np.ndarray) -> int | None:
    """k when every value is a whole multiple of 10^−k for some 2 ≤ k ≤ 9 (text with k
    decimals), else None."""
    if values.size == 0 or np.abs(values).max() > 1e3:
        return None
    for k in range(10):
        scaled = values * 10.0**k
        if np.all(np.abs(scaled - np.rint(scaled)) <= 1e-6):
            return k if k >= 2 else None
    return None


def _excess(
    theirs: np.ndarray, positions: np.ndarray, candidate: _Candidate, rounding: _Rounding
) -> tuple[float, float]:
    """(the largest error ÷ its angle-scaled tolerance, the largest absolute error), by chunks.

    A cell fits precision p when |theirs − candidate| ≤ eps_p · (scale_k·|angle| + 4) plus the
    printed-decimals allowance: the first number is compared with eps_p.
    """
    worst_ratio = worst_error = 0.0
    d_model = theirs.shape[1]
    for start in range(0, len(positions), CHUNK_ROWS):
        chunk = slice(start, start + CHUNK_ROWS)
        matrix, angles, other = candidate.build(positions[chunk], d_model)
        error = np.abs(theirs[chunk] - matrix)
        if other is not None:
            error = np.minimum(error, np.abs(theirs[chunk] - other))
        scale = rounding.scale_k * np.abs(angles) + 4.0
        ratio = float(np.max((error - rounding.allowance) / scale))
        # NaN (sin of an overflowed angle) fits nothing.
        worst_ratio = max(worst_ratio, math.inf if math.isnan(ratio) else ratio)
        worst_error = max(worst_error, float(error.max()))
    return worst_ratio, worst_error


def _precision_of(ratio: float, rounding: _Rounding) -> tuple[int, str] | None:
    for index, (name, eps) in enumerate(rounding.precisions):
        if ratio <= eps:
            return index, name
    return None


@dataclass(frozen=True)
class _Orientation:
    theirs: np.ndarray  # positions × dimensions
    rows_are: str
    transposed: bool  # the other way round than declared


def _orientations(values: np.ndarray, rows: str) -> list[_Orientation]:
    """The ways to read the matrix, the declared one first (rows="auto": positions first)."""
    declared = "dimensions" if rows == "dimensions" else "positions"
    ways = []
    problems = []
    for rows_are in (declared, "positions" if declared == "dimensions" else "dimensions"):
        theirs = values if rows_are == "positions" else values.T
        problem = _shape_problem(theirs.shape)
        if problem is None:
            ways.append(_Orientation(theirs, rows_are, rows_are != declared))
        else:
            problems.append((rows_are, problem))
    if not ways or (rows != "auto" and ways[0].transposed):
        rows_are, problem = problems[0]
        hint = ""
        if ways:
            other = "dimensions" if rows_are == "positions" else "positions"
            hint = f"; if the rows are {other}, say so"
        raise MatrixError(f"{problem} (reading rows as {rows_are}){hint}")
    return ways


def _shape_problem(shape: tuple[int, int]) -> str | None:
    n_positions, d_model = shape
    if d_model % 2:
        return f"odd number of columns ({d_model}): d_model must be even"
    if n_positions < 2:
        return f"wrong shape {n_positions} × {d_model}: it needs at least 2 positions"
    return None


def _screen_positions(n_positions: int) -> np.ndarray:
    first = np.arange(min(n_positions, SCREEN_FIRST))
    spread = np.rint(np.linspace(0, n_positions - 1, SCREEN_SPREAD)).astype(np.int64)
    return np.unique(np.concatenate([first, spread]))


@dataclass(frozen=True)
class _Best:
    candidate: _Candidate
    precision: str
    orientation: _Orientation
    max_abs_error: float


def diagnose(
    matrix, base: float = encoding.DEFAULT_BASE, rows: str = "auto", layout: str | None = None
) -> Diagnosis:
    """Whether matrix is the sinusoidal encoding of positions 0 … n−1 with this base, and if
    not, which usual mistake explains it.

    rows says what the matrix's rows are ("positions", "dimensions" or "auto": positions when
    that reading fits, else dimensions, reported as a transposed matrix). layout=None accepts
    either layout and names it; "interleaved" or "concatenated" reports the other as a mistake.
    Raises MatrixError for input that is not such a matrix.
    """
    base = encoding.check_base(base)
    if rows not in ROWS:
        raise ValueError(f"rows must be one of {', '.join(ROWS)}, got {rows!r}")
    if layout is not None:
        encoding.check_layout(layout)
    values = check_matrix(matrix)
    dtype = str(getattr(matrix, "dtype", values.dtype))
    orientations = _orientations(values, rows)
    # Values far outside [−1, 1] may overflow in a candidate's arithmetic; such a cell simply
    # fits nothing, so NumPy need not warn.
    with np.errstate(all="ignore"):
        return _diagnose(values, orientations, base, layout, dtype)


def _diagnose(values, orientations, base, layout, dtype) -> Diagnosis:
    layouts = encoding.LAYOUTS if layout is None else (layout,)
    first = orientations[0].theirs
    rounding = _rounding(values, base, first[_screen_positions(len(first))])

    best, tried = None, None
    for orientation in orientations:
        best, fits = _best_fit(orientation, base, layouts, layout, rounding)
        if tried is None or best is not None:
            tried = fits
        if best is not None:
            break
    return _diagnosis(best, orientations[0], base, layout, rounding, dtype, tuple(tried))


def _best_fit(orientation, base, layouts, expected, rounding) -> tuple[_Best | None, list[Fit]]:
    """Screen every candidate on a few rows; confirm the best on every row, next best if not."""
    theirs = orientation.theirs
    screen = _screen_positions(len(theirs))
    screen_positions = screen.astype(np.float64)
    candidates = _candidates(base, layouts, expected)
    for candidate_layout in layouts:
        candidates += _base_candidates(theirs, base, candidate_layout, screen)
    ranked, fits = [], []
    for priority, candidate in enumerate(candidates):
        ratio, error = _excess(theirs[screen], screen_positions, candidate, rounding)
        precision = _precision_of(ratio, rounding)
        fits.append(Fit(candidate.name, precision and precision[1], error))
        if precision is not None:
            ranked.append((precision[0], priority, candidate))
    all_positions = np.arange(len(theirs), dtype=np.float64)
    for _, _, candidate in sorted(ranked, key=lambda item: item[:2]):
        ratio, error = _excess(theirs, all_positions, candidate, rounding)
        precision = _precision_of(ratio, rounding)
        if precision is not None:
            # Confirmed on every row (possibly at a coarser precision than on the screen rows).
            return _Best(candidate, precision[1], orientation, error), fits
    return None, fits


# ---- The verdict ------------------------------------------------------------------------------


def _diagnosis(best, primary, base, expected, rounding, dtype, tried) -> Diagnosis:
    """The diagnosis of the best fit (None: nothing fits), with the evidence against the
    reference in the layout fitted, expected or, failing both, closest."""
    orientation = primary if best is None else best.orientation
    theirs = orientation.theirs
    n_positions, d_model = theirs.shape
    if best is not None and best.candidate.kind != "layout":
        layout = best.candidate.layout
    else:
        layout = expected or _closest_layout(theirs, base)
    reference = encoding.positional_encoding(n_positions, d_model, base, layout=layout)
    absolute = np.abs(theirs - reference)
    first = _first_difference(theirs, reference, base, layout, rounding)
    worst = _worst_cells(theirs, reference, absolute)
    toeplitz_spread = _toeplitz_spread(theirs)
    kind = "no match" if best is None else best.candidate.kind
    precision = None if best is None else best.precision
    if rounding.decimals is not None and precision is not None:
        precision = f"{rounding.decimals} decimals"
    loss_from = None
    if kind == "match" and best.precision == "float16":
        off = absolute > PRECISION_LOSS
        if off.any():
            # float16's rounding excuses any error at large angles: the first difference that
            # matters is the first cell off by more than PRECISION_LOSS.
            position, dimension = divmod(int(np.argmax(off)), d_model)
            kind, loss_from = "float16", position
            first = _cell(theirs, reference, position, dimension)
    verdict = _verdict(
        kind, best, orientation, base, layout, precision, float(absolute.max()), first, loss_from
    )
    if kind == "match" and orientation.transposed:
        kind = "transposed"
    # The diagnosis keeps copies: the caller's array stays theirs, and writable.
    theirs = np.array(theirs)
    for array in (theirs, reference):
        array.flags.writeable = False
    return Diagnosis(
        verdict=verdict,
        kind=kind,
        matches=kind == "match",
        base=base,
        layout=layout,
        precision=precision,
        transposed=orientation.transposed,
        rows_are=orientation.rows_are,
        fitted_base=best.candidate.fitted_base if best is not None else None,
        n_positions=n_positions,
        d_model=d_model,
        dtype=dtype,
        max_abs_error=float(absolute.max()),
        first_difference=first,
        worst_cells=worst,
        toeplitz=toeplitz_spread <= TOEPLITZ_TOLERANCE,
        toeplitz_spread=toeplitz_spread,
        tried=tried,
        theirs=theirs,
        reference=reference,
    )


def _closest_layout(theirs, base) -> str:
    """The layout in which the fewest cells differ from the reference."""
    counts = []
    for layout in encoding.LAYOUTS:
        reference = encoding.positional_encoding(len(theirs), theirs.shape[1], base, layout=layout)
        counts.append(int(np.count_nonzero(np.abs(theirs - reference) > 1e-3)))
    return encoding.LAYOUTS[int(np.argmin(counts))]


def _first_difference(theirs, reference, base, layout, rounding) -> Cell | None:
    """The first cell, row by row, further from the reference than rounding explains."""
    eps = rounding.precisions[-1][1]
    positions = np.arange(len(theirs), dtype=np.float64)
    angles = _column_angles(
        positions[:, None] * encoding.angular_frequencies(theirs.shape[1], base),
        theirs.shape[1],
        layout,
    )
    tolerance = eps * (rounding.scale_k * angles + 4.0) + rounding.allowance
    beyond = np.abs(theirs - reference) > tolerance
    if not beyond.any():
        return None
    position, dimension = divmod(int(np.argmax(beyond)), theirs.shape[1])
    return _cell(theirs, reference, position, dimension)


def _worst_cells(theirs, reference, absolute) -> tuple[Cell, ...]:
    count = min(WORST_CELLS, absolute.size)
    flat = absolute.ravel()
    top = np.argpartition(flat, -count)[-count:]
    top = top[np.argsort(-flat[top], kind="stable")]
    cells = [divmod(int(index), theirs.shape[1]) for index in top if flat[index] > 0]
    return tuple(_cell(theirs, reference, p, j) for p, j in cells)


def _cell(theirs, reference, position, dimension) -> Cell:
    return Cell(
        position,
        dimension,
        float(theirs[position, dimension]),
        float(reference[position, dimension]),
    )


def _toeplitz_spread(theirs: np.ndarray) -> float:
    """max over offsets k of (max − min of PE(i)·PE(i+k)) ÷ the mean squared row norm.

    A right encoding gives one value per diagonal (a Toeplitz PE·PEᵀ); the offsets checked are
    0 … 3 and about 20 more spread up to n − 1, which keeps this O(20·n·d) instead of O(n²·d).
    """
    n = len(theirs)
    offsets = np.unique(
        np.concatenate([np.arange(min(n, 4)), np.geomspace(1, n - 1, 20).astype(int)])
    )
    norms = encoding.diagonal_products(theirs, 0)
    scale = float(norms.mean())
    if scale == 0:
        return 0.0
    spread = 0.0
    for offset in offsets:
        diagonal = encoding.diagonal_products(theirs, int(offset))
        spread = max(spread, float(diagonal.max() - diagonal.min()))
    return spread / scale


def _verdict(kind, best, orientation, base, layout, precision, max_error, first, loss_from) -> str:
    reference = f"the reference (base {base:g}, {layout} layout)"
    if kind == "no match":
        where = f" It first differs at {first}." if first is not None else ""
        sentence = f"does not match {reference}, and none of the usual mistakes explains it.{where}"
    elif kind == "match":
        sentence = f"matches {reference} {_to(precision)}: max |theirs − ours| = {max_error:.2g}."
    elif kind == "float16":
        sentence = (
            f"has lost precision (float16): it matches {reference} only to float16 precision, "
            f"and from position {loss_from} on it is off by more than {PRECISION_LOSS:g} "
            f"(max |theirs − ours| = {max_error:.2g})."
        )
    else:
        candidate = best.candidate
        fits = f"fits {_to(precision)}"
        if kind == "base":
            what = f"base {candidate.fitted_base:.6g} instead of {base:g}"
        elif kind in ("exponent_i", "exponent_4i"):
            exponent, same = ("i", math.sqrt(base)) if kind == "exponent_i" else ("4i", base * base)
            what = (
                f"an exponent of {exponent} instead of 2i: frequencies base^(-{exponent}/d), the "
                f"same as base {same:g} with 2i"
            )
        elif kind == "layout":
            what = f"the {candidate.layout} layout where {layout} was expected"
            fits = f"otherwise right, {_to(precision)}"
        else:
            what = MISTAKES[kind].title
        if kind != "layout" and candidate.layout != layout:
            fits = f"{candidate.layout} layout, {fits}"
        elif kind != "layout":
            fits = f"{layout} layout, {fits}"
        sentence = f"looks like {what} ({fits})."
    if not orientation.transposed:
        return "It " + sentence
    if orientation.rows_are == "dimensions":
        return (
            "Transposed: its rows are dimensions and its columns positions. Read that way, it "
            + sentence
        )
    return "Its rows are positions, not dimensions as declared. Read that way, it " + sentence


def _to(precision: str) -> str:
    """'to float32 precision', or 'to 4 decimals' for numbers printed with 4 decimals."""
    return f"to {precision}" if precision.endswith("decimals") else f"to {precision} precision"


def diagonal_spreads(gram: np.ndarray) -> np.ndarray:
    """max − min along each diagonal k ≥ 0 of a square matrix (0 for a Toeplitz one)."""
    return np.array([np.ptp(np.diagonal(gram, k)) for k in range(len(gram))])

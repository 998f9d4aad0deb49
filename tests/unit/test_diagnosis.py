"""diagnose(): each usual mistake, written as people write it, is named; right matrices pass;
random and almost-right ones are reported with their first difference; bad input gets a message.
"""

from __future__ import annotations

import dataclasses
import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pe_explorer import encoding
from pe_explorer.diagnosis import (
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_TEXT_CHARS,
    MISTAKES,
    SIZE_CAP,
    Cell,
    Diagnosis,
    MatrixError,
    diagnose,
    load_matrix,
    parse_text,
    reference_code,
)

SIZES = [(16, 8), (64, 32), (200, 128), (1000, 512)]


# ---- Encodings as people write them (the PyTorch tutorial's, in NumPy), right and wrong -------


def pytorch_tutorial(n, d_model, base=10000.0, dtype=np.float32, layout="interleaved"):
    """The PyTorch tutorial's PositionalEncoding, in NumPy, in its dtype (right)."""
    position = np.arange(0, n, dtype=dtype)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2, dtype=dtype) * dtype(-(math.log(base) / d_model)))
    pe = np.zeros((n, d_model), dtype=dtype)
    if layout == "interleaved":
        pe[:, 0::2] = np.sin(position * div_term)
        pe[:, 1::2] = np.cos(position * div_term)
    else:
        # tensor2tensor / the TensorFlow tutorial: the sines, then the cosines.
        pe = np.concatenate(
            [np.sin(position * div_term), np.cos(position * div_term)], axis=-1
        ).astype(dtype)
    return pe


def base_1000(n, d_model):
    position = np.arange(0, n)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(1000.0) / d_model))
    pe = np.zeros((n, d_model), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def exponent_i(n, d_model):
    position = np.arange(n)[:, None]
    div_term = 10000 ** (np.arange(0, d_model // 2) / d_model)  # the 2 of 2i forgotten
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(position / div_term)
    pe[:, 1::2] = np.cos(position / div_term)
    return pe


def exponent_4i(n, d_model):
    position = np.arange(n)[:, None]
    div_term = 10000 ** (2 * np.arange(0, d_model, 2) / d_model)  # 2i, doubled again
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(position / div_term)
    pe[:, 1::2] = np.cos(position / div_term)
    return pe


def multiplying(n, d_model):
    position = np.arange(n, dtype=np.float32)[:, None]
    scale = np.power(np.float32(10000.0), np.arange(0, d_model, 2, dtype=np.float32) / d_model)
    pe = np.zeros((n, d_model), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * scale)
    pe[:, 1::2] = np.cos(position * scale)
    return pe


def python2_division(n, d_model):
    """The loop version, with the exponent in integer arithmetic (Python 2's /, or //)."""
    pe = np.zeros((n, d_model))
    for pos in range(n):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** (i // d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** (i // d_model)))
    return pe


def floor_division(n, d_model):
    position = np.arange(n)[:, None]  # integers
    div_term = 10000 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(position // div_term)
    pe[:, 1::2] = np.cos(position // div_term)
    return pe


def integer_array(n, d_model):
    position = np.arange(n)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe = np.zeros((n, d_model), dtype=int)  # every value cut to a whole number
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def positions_from_1(n, d_model):
    position = np.arange(1, n + 1)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def sin_cos_swapped(n, d_model):
    position = np.arange(n)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.cos(position * div_term)
    pe[:, 1::2] = np.sin(position * div_term)
    return pe


def loop_with_column_index(n, d_model):
    """The blog-post loop: i already steps by 2, and is doubled anyway (and i + 1 for cos)."""
    pe = np.zeros((n, d_model))
    for pos in range(n):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** ((2 * i) / d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d_model)))
    return pe


def tf_tutorial_without_pair_index(n, d_model):
    """The TensorFlow tutorial's get_angles with i in place of 2 * (i // 2)."""
    i = np.arange(d_model)[None, :]
    angle_rads = np.arange(n)[:, None] / np.power(10000, i / np.float32(d_model))
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    return angle_rads


def stored_transposed(n, d_model):
    return pytorch_tutorial(n, d_model).T  # dimensions × positions


MISTAKEN = {
    "base": base_1000,
    "exponent_i": exponent_i,
    "exponent_4i": exponent_4i,
    "multiply": multiplying,
    "integer_exponent": python2_division,
    "floor_angle": floor_division,
    "integer_matrix": integer_array,
    "start_at_1": positions_from_1,
    "swapped": sin_cos_swapped,
    "column_frequency": loop_with_column_index,
    "column_frequency_odd": tf_tutorial_without_pair_index,
    "transposed": stored_transposed,
}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("kind", sorted(MISTAKEN))
def test_each_mistake_is_named(kind, size):
    diagnosis = diagnose(MISTAKEN[kind](*size))
    assert diagnosis.kind == kind, diagnosis.verdict
    assert not diagnosis.matches
    assert diagnosis.mistake is MISTAKES[kind]


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_a_base_of_1000_is_named_with_its_value(size):
    diagnosis = diagnose(base_1000(*size))
    assert diagnosis.fitted_base == 1000.0
    assert "looks like base 1000 instead of 10000" in diagnosis.verdict


@settings(max_examples=30, deadline=None)
@given(base=st.floats(min_value=20.0, max_value=100_000.0))
def test_another_base_is_estimated(base):
    assume(abs(base / 10000.0 - 1) > 1e-3)
    diagnosis = diagnose(encoding.positional_encoding(64, 64, base))
    if base == 100.0:
        assert diagnosis.kind == "exponent_i"  # base 100 with 2i is base 10000 with i
    else:
        assert diagnosis.kind == "base", diagnosis.verdict
        # A round base that gives the same matrix is named first (14600 for 14600.03125): the
        # fit is as close as 64 × 64 float64 values tell, and its matrix is theirs.
        assert diagnosis.fitted_base == pytest.approx(base, rel=1e-5)
        refitted = encoding.positional_encoding(64, 64, diagnosis.fitted_base)
        assert np.abs(refitted - encoding.positional_encoding(64, 64, base)).max() < 1e-4


@pytest.mark.parametrize("size", [(64, 32), (512, 128)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_other_layout_is_a_mistake_only_when_one_layout_is_expected(size):
    concatenated = pytorch_tutorial(*size, layout="concatenated")
    assert diagnose(concatenated, layout="concatenated").matches
    diagnosis = diagnose(concatenated, layout="interleaved")
    assert diagnosis.kind == "layout"
    assert diagnosis.layout == "interleaved"
    assert "concatenated layout where interleaved was expected" in diagnosis.verdict


def test_stacking_sines_and_cosines_on_the_wrong_axis_gives_the_concatenated_layout():
    # torch.stack([sin, cos], dim=1).view(n, d) was meant to interleave them.
    angle = np.arange(50)[:, None] * encoding.angular_frequencies(64)
    pe = np.stack([np.sin(angle), np.cos(angle)], axis=1).reshape(50, 64)
    assert diagnose(pe, layout="interleaved").kind == "layout"
    assert diagnose(pe).layout == "concatenated"


@pytest.mark.parametrize("n", [256, 2048])
def test_float16_angles_lose_precision_at_large_positions(n):
    diagnosis = diagnose(pytorch_tutorial(n, 128, dtype=np.float16))
    assert diagnosis.kind == "float16"
    assert diagnosis.mistake is MISTAKES["float16"]
    assert not diagnosis.toeplitz
    # The first difference is the first cell off by more than float16 noise would be at pos 0.
    first = diagnosis.first_difference
    assert abs(first.theirs - first.ours) > 0.01
    assert f"from position {first.position} on" in diagnosis.verdict
    off = np.abs(diagnosis.theirs - diagnosis.reference) > 0.01
    assert not off[: first.position].any()


# ---- Right matrices ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(
    "size", [(8, 8), *SIZES, (2048, 64)], ids=lambda size: f"{size[0]}x{size[1]}"
)
def test_a_float32_pytorch_style_encoding_passes(size, layout):
    diagnosis = diagnose(pytorch_tutorial(*size, layout=layout))
    assert diagnosis.matches, diagnosis.verdict
    assert (diagnosis.kind, diagnosis.precision, diagnosis.layout) == ("match", "float32", layout)
    assert diagnosis.first_difference is None
    assert diagnosis.toeplitz
    assert diagnosis.verdict.startswith(f"It matches the reference (base 10000, {layout} layout)")


@pytest.mark.parametrize(
    "dtype, precision", [(np.float64, "float64"), (np.float32, "float32"), (np.float16, "float16")]
)
def test_a_match_names_its_precision(dtype, precision):
    # Computed in float64 and stored in dtype: few positions, so float16 holds its digits.
    matrix = encoding.positional_encoding(12, 32).astype(dtype)
    diagnosis = diagnose(load_matrix(npy(matrix), "pe.npy"))
    assert (diagnosis.kind, diagnosis.precision) == ("match", precision)
    assert diagnosis.dtype == np.dtype(dtype).name


def test_the_reference_is_encodings_and_theirs_is_left_as_it_was():
    matrix = encoding.positional_encoding(30, 16, 500.0, layout="concatenated").copy()
    diagnosis = diagnose(matrix, base=500.0)
    assert diagnosis.matches and diagnosis.max_abs_error == 0.0
    expected = encoding.positional_encoding(30, 16, 500.0, layout="concatenated")
    assert np.array_equal(diagnosis.reference, expected)
    assert matrix.flags.writeable and not diagnosis.theirs.flags.writeable


def test_numbers_printed_with_four_decimals_match_to_four_decimals():
    text = "\n".join(",".join(f"{v:.4f}" for v in row) for row in pytorch_tutorial(20, 8))
    diagnosis = diagnose(parse_text(text))
    assert diagnosis.matches and diagnosis.precision == "4 decimals"
    assert "to 4 decimals" in diagnosis.verdict


# ---- Rows as positions or dimensions ----------------------------------------------------------


def test_a_transposed_matrix_matches_when_its_rows_are_said_to_be_dimensions():
    diagnosis = diagnose(stored_transposed(40, 16), rows="dimensions")
    assert diagnosis.matches and not diagnosis.transposed
    assert diagnosis.rows_are == "dimensions"
    assert (diagnosis.n_positions, diagnosis.d_model) == (40, 16)


@pytest.mark.parametrize("rows", ["auto", "positions"])
def test_a_transposed_matrix_is_detected_and_said(rows):
    diagnosis = diagnose(stored_transposed(40, 16), rows=rows)
    assert diagnosis.kind == "transposed" and diagnosis.transposed and not diagnosis.matches
    assert diagnosis.verdict.startswith("Transposed: its rows are dimensions")


def test_a_matrix_said_to_be_dimensions_that_is_not_is_detected():
    diagnosis = diagnose(pytorch_tutorial(40, 16), rows="dimensions")
    assert diagnosis.transposed and diagnosis.rows_are == "positions"


def test_another_mistake_in_a_transposed_matrix_is_named_with_it():
    diagnosis = diagnose(base_1000(40, 16).T)
    assert (diagnosis.kind, diagnosis.transposed) == ("base", True)
    assert "base 1000" in diagnosis.verdict and diagnosis.verdict.startswith("Transposed")


# ---- Matrices no candidate explains -----------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 64),
    half=st.integers(1, 32),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_random_matrix_does_not_match_and_differs_at_its_first_cell(n, half, seed):
    matrix = np.random.default_rng(seed).uniform(-1, 1, (n, 2 * half))
    diagnosis = diagnose(matrix, rows="positions")
    assert diagnosis.kind == "no match" and not diagnosis.matches
    assert diagnosis.first_difference == Cell(0, 0, matrix[0, 0], 0.0)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 300),
    half=st.integers(1, 64),
    layout=st.sampled_from(encoding.LAYOUTS),
    dtype=st.sampled_from([np.float64, np.float32]),
    where=st.tuples(st.floats(0, 1, exclude_max=True), st.floats(0, 1, exclude_max=True)),
    delta=st.floats(0.05, 0.5) | st.floats(-0.5, -0.05),
)
def test_an_almost_right_matrix_differs_at_the_cell_that_is_wrong(
    n, half, layout, dtype, where, delta
):
    d_model = 2 * half
    matrix = encoding.positional_encoding(n, d_model, layout=layout).astype(dtype)
    position, dimension = int(where[0] * n), int(where[1] * d_model)
    matrix[position, dimension] += dtype(delta)
    diagnosis = diagnose(matrix, rows="positions")
    assert diagnosis.kind == "no match" and not diagnosis.matches
    ours = encoding.positional_encoding(n, d_model, layout=layout)[position, dimension]
    expected = Cell(position, dimension, float(matrix[position, dimension]), float(ours))
    assert diagnosis.first_difference == expected
    assert diagnosis.worst_cells[0] == expected
    assert diagnosis.verdict.endswith(f"It first differs at {expected}.")


def test_an_almost_right_base_is_named_not_passed():
    diagnosis = diagnose(encoding.positional_encoding(100, 64, 10010.0))
    assert diagnosis.kind == "base" and diagnosis.fitted_base == pytest.approx(10010.0)


# ---- Evidence ---------------------------------------------------------------------------------


def test_the_toeplitz_property_is_reported():
    assert diagnose(encoding.positional_encoding(300, 64)).toeplitz
    assert diagnose(base_1000(300, 64)).toeplitz  # still sinusoids of pos·ω
    floor = diagnose(floor_division(300, 64))
    assert not floor.toeplitz and floor.toeplitz_spread > 0.1


def test_worst_cells_are_sorted_and_the_max_error_is_every_cells():
    diagnosis = diagnose(multiplying(64, 32))
    errors = [abs(cell.theirs - cell.ours) for cell in diagnosis.worst_cells]
    assert errors == sorted(errors, reverse=True) and len(errors) == 5
    expected = np.abs(diagnosis.theirs - diagnosis.reference).max()
    assert diagnosis.max_abs_error == errors[0] == pytest.approx(expected)


def test_the_report_holds_the_verdict_the_numbers_and_the_reference_code():
    diagnosis = diagnose(base_1000(50, 32))
    report = diagnosis.report()
    assert diagnosis.verdict in report
    assert f"max |theirs − ours|: {diagnosis.max_abs_error:.6g}" in report
    assert str(diagnosis.first_difference) in report
    assert "Toeplitz" in report and "Fix:" in report
    assert reference_code(50, 32, 10000.0, "interleaved") in report


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_the_reference_code_computes_the_reference(layout):
    namespace = {}
    exec(reference_code(20, 12, 500.0, layout), namespace)
    expected = encoding.positional_encoding(20, 12, 500.0, layout=layout)
    assert np.array_equal(namespace["pe"], expected)


def test_a_diagnosis_is_frozen_and_reads_as_text():
    diagnosis = diagnose(exponent_i(20, 16))
    with pytest.raises(dataclasses.FrozenInstanceError):
        diagnosis.kind = "match"
    text = str(diagnosis)
    assert text.splitlines()[0] == diagnosis.verdict
    assert "20 positions × 16 dimensions" in text and "first difference" in text
    assert isinstance(diagnosis, Diagnosis)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="rows must be one of"):
        diagnose(pytorch_tutorial(4, 4), rows="columns")
    with pytest.raises(ValueError, match="base must be"):
        diagnose(pytorch_tutorial(4, 4), base=1.0)
    with pytest.raises(ValueError, match="layout must be"):
        diagnose(pytorch_tutorial(4, 4), layout="stacked")


# ---- Reading files and text -------------------------------------------------------------------


def npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def npy_header(shape, descr="<f8") -> bytes:
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_an_npy_file_is_read(layout):
    matrix = pytorch_tutorial(30, 16, layout=layout)
    assert np.array_equal(load_matrix(npy(matrix), "pe.npy"), matrix)


def test_a_pytorch_buffer_with_a_batch_axis_is_read():
    matrix = pytorch_tutorial(30, 16)
    assert load_matrix(npy(matrix[None]), "pe.npy").shape == (30, 16)
    assert load_matrix(npy(matrix[:, None, :]), "pe.npy").shape == (30, 16)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("0,1,0,1\n0.8414709848078965,0.5403023058681398,0.01,0.99995", id="csv"),
        pytest.param("0 1 0 1\n0.8414709848078965 0.5403023058681398 0.01 0.99995", id="spaces"),
        pytest.param(
            "0\t1\t0\t1\n0.8414709848078965\t0.5403023058681398\t0.01\t0.99995", id="tabs"
        ),
        pytest.param(
            "0;1;0;1\n0.8414709848078965;0.5403023058681398;0.01;0.99995", id="semicolons"
        ),
        pytest.param(
            "[[0, 1, 0, 1], [0.8414709848078965, 0.5403023058681398, 0.01, 0.99995]]", id="list"
        ),
        pytest.param(
            "tensor([[0.0000, 1.0000, 0.0000, 1.0000],\n"
            "        [0.8415, 0.5403, 0.0100, 0.9999]], dtype=torch.float64)",
            id="tensor",
        ),
        pytest.param(
            "[[np.float64(0.0), np.float64(1.0), np.float64(0.0), np.float64(1.0)],"
            " [np.float64(0.84), np.float64(0.54), np.float64(0.01), np.float64(0.99)]]",
            id="numpy-numbers",
        ),
        pytest.param("d0,d1,d2,d3\n0,1,0,1\n0.84,0.54,0.01,0.99", id="header"),
        pytest.param("pos,dim0,dim1,dim2,dim3\n0,0,1,0,1\n1,0.84,0.54,0.01,0.99", id="export"),
    ],
)
def test_pasted_numbers_and_csv_are_read(text):
    matrix = parse_text(text)
    assert matrix.shape == (2, 4) and matrix[0].tolist() == [0, 1, 0, 1]
    assert np.array_equal(load_matrix(text.encode(), "pe.csv"), matrix)


def test_a_printed_numpy_array_is_read_across_its_wrapped_lines():
    matrix = encoding.positional_encoding(3, 20)
    assert np.allclose(parse_text(repr(matrix)), matrix, atol=1e-8)


def test_the_explorers_own_csv_export_matches(tmp_path):
    from pe_explorer.state import ExplorerState
    from pe_explorer.ui.export import matrix_csv

    text = matrix_csv(ExplorerState(n_positions=20, d_model=16, layout="concatenated"))
    diagnosis = diagnose(parse_text(text))
    assert diagnosis.matches and diagnosis.precision == "float64"
    assert diagnosis.layout == "concatenated"


BAD_FILES = {
    "empty file": (b"", "pe.csv", "empty file"),
    "empty text": (b"  \n\n ", "pe.csv", "empty: there are no numbers"),
    "header only": (b"pos,dim0,dim1\n", "pe.csv", "not numeric: no line holds numbers"),
    "non-numeric csv": (b"0,1\n0.5,abc\n", "pe.csv", "not numeric: row 2, column 2 holds 'abc'"),
    "words": (b"a,b\nc,d\n", "pe.csv", "not numeric: row 2, column 1 holds 'c'"),
    "ragged csv": (b"0,1\n0.5\n", "pe.csv", "wrong shape: row 2 has 1 number where the rows"),
    "nan": (b"0,1\n0.5,nan\n", "pe.csv", "NaN or infinity at row 2, column 2"),
    "inf": (b"0,1\n-inf,0.5\n", "pe.csv", "NaN or infinity at row 2, column 1"),
    "summarised print": (b"[[0. 1. ... 1.]\n [0.8 0.5 ... 1.]]", "pe.txt", "printed with '...'"),
    "vector text": (b"[0.0, 1.0, 0.5, 0.8]", "pe.txt", "wrong rank: a vector of 4 numbers"),
    "rank 3 text": (b"[[[0, 1], [0, 1]], [[0, 1], [0, 1]]]", "pe.txt", "wrong rank: 3 levels"),
    "unbalanced": (b"[[0, 1], [0, 1]", "pe.txt", "brackets do not match"),
    "object npy": (npy(np.array([[1, "a"]], dtype=object)), "pe.npy", "object dtype"),
    "string npy": (npy(np.array([["a", "b"]])), "pe.npy", "dtype is <U1"),
    "complex npy": (npy(np.zeros((2, 2), complex)), "pe.npy", "dtype is complex128"),
    "rank 1 npy": (npy(np.zeros(4)), "pe.npy", "wrong rank: a vector of 4 numbers"),
    "rank 3 npy": (npy(np.zeros((2, 3, 4))), "pe.npy", "wrong rank: 3 axes (2, 3, 4)"),
    "scalar npy": (npy(np.float64(3.0)), "pe.npy", "not a matrix: a single number"),
    "empty npy": (npy(np.zeros((0, 4))), "pe.npy", "empty: the array has shape (0, 4)"),
    "nan npy": (npy(np.array([[0, 1], [np.nan, 0]])), "pe.npy", "NaN or infinity at row 2"),
    "cut npy": (npy(np.zeros((10, 4)))[:-8], "pe.npy", "cut short"),
    "broken npy": (b"\x93NUMPY\x01\x00garbage", "pe.npy", "not a valid .npy file"),
    "huge npy header": (npy_header((100_000, 100_000)), "pe.npy", "over the size cap"),
    # Refused before parsing: the rows and columns are counted first.
    "too many columns": (
        (("0," * 3000 + "0\n") * 2).encode(),
        "pe.csv",
        "over the size cap: more than 2048 columns",
    ),
    "too many rows": (b"0,1\n" * 3000, "pe.csv", "over the size cap: more than 2048 rows"),
    "too many printed rows": (b"[" + b"[0, 1]," * 3000 + b"]", "pe.txt", "more than 2048 rows"),
    "binary": (bytes(range(256)) * 4, "pe.bin", "neither a .npy file nor text"),
    "npz": (b"PK\x03\x04" + bytes(40), "pe.npz", "archives and pickles are never opened"),
    "pickle": (b"\x80\x04\x95", "pe.pt", "archives and pickles are never opened"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_input_gets_its_one_line_message(name):
    data, filename, message = BAD_FILES[name]
    with pytest.raises(MatrixError) as raised:
        diagnose(load_matrix(data, filename))
    assert message in str(raised.value)
    assert "\n" not in str(raised.value) and isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    "matrix, rows, message",
    [
        (np.zeros((3, 5)), "auto", "odd number of columns (5)"),
        (
            np.zeros((4, 5)),
            "positions",
            "odd number of columns (5): d_model must be even "
            "(reading rows as positions); if the rows are dimensions, say so",
        ),
        (np.zeros((1, 4)), "positions", "at least 2 positions"),
        ([[0.0, 1.0], [0.5]], "auto", "not a matrix"),
        (np.zeros((2, 2), dtype=bool), "auto", "dtype is bool"),
        (np.zeros((MAX_ROWS + 1, 2)), "auto", "over the size cap"),
    ],
)
def test_bad_matrices_get_their_message(matrix, rows, message):
    with pytest.raises(MatrixError, match=None) as raised:
        diagnose(matrix, rows=rows)
    assert message in str(raised.value)


def test_an_odd_column_count_with_even_rows_is_read_as_dimensions_when_rows_are_auto():
    diagnosis = diagnose(pytorch_tutorial(5, 8).T)  # 8 × 5: only the rows can be dimensions
    assert diagnosis.kind == "transposed" and diagnosis.n_positions == 5


def test_the_cap_is_stated_and_checked_before_the_text_is_parsed():
    assert f"{MAX_ROWS} × {MAX_COLUMNS}" in SIZE_CAP
    with pytest.raises(MatrixError, match="over the size cap: the text has"):
        parse_text("0" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(MatrixError, match="over the size cap: the file has"):
        load_matrix(b"0" * (MAX_ROWS * MAX_COLUMNS * 8 + 5000), "pe.csv")


def test_a_matrix_at_the_cap_is_read():
    matrix = np.zeros((MAX_ROWS, MAX_COLUMNS))
    assert load_matrix(npy(matrix), "pe.npy").shape == (MAX_ROWS, MAX_COLUMNS)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=200) | st.text(alphabet="0123456789.,;-e []\n\t\r()nafitso", max_size=200)
)
def test_any_text_gives_a_matrix_or_a_message(text):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            matrix = parse_text(text)
        except MatrixError as error:
            assert str(error) and "\n" not in str(error)
        else:
            assert matrix.ndim == 2 and np.isfinite(matrix).all()


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300), name=st.sampled_from(["pe.npy", "pe.csv", "pe"]))
def test_any_bytes_give_a_matrix_or_a_message(data, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            load_matrix(npy(np.zeros((2, 2)))[:10] + data if name == "pe.npy" else data, name)
        except MatrixError as error:
            assert str(error) and "\n" not in str(error)


@settings(max_examples=200, deadline=None)
@given(
    matrix=arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 6)),
        elements=st.floats(allow_nan=False, allow_infinity=False),
    ),
    rows=st.sampled_from(["auto", "positions", "dimensions"]),
)
def test_any_finite_matrix_gives_a_diagnosis_or_a_message_without_warnings(matrix, rows):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            diagnosis = diagnose(matrix, rows=rows)
        except MatrixError as error:
            assert "\n" not in str(error)
        else:
            assert diagnosis.verdict in diagnosis.report()

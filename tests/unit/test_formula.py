"""The formula behind a cell: the paper's PE(pos, 2i) = sin(pos / base^(2i/d_model)), filled in."""

import math
import re

import numpy as np
import pytest
from pe_explorer import encoding, formula
from pe_explorer.formula import MINUS, cell_formula

# The value at the end of the equation: "… = sin(4.5457) = −0.9861".
VALUE = re.compile(r"= (−?\d+\.\d+)$")


def shown_value(cell: formula.CellFormula, digits: int = 4) -> str:
    equation, _, _ = cell.parts(digits)
    return VALUE.search(equation).group(1)


def test_the_issues_worked_example_reads_as_written():
    cell = cell_formula(7, 6, 128, 10000.0, "interleaved")
    assert cell.text() == (
        "PE(7, 6) = sin(7 / 10000^(6/128)) = sin(4.5457) = −0.9861 · pair i = 3 · "
        "wavelength 2π·10000^(6/128) = 9.7"
    )


def test_the_worked_example_holds_the_closed_form_numbers():
    cell = cell_formula(7, 6, 128)
    angle = 7 / 10000 ** (6 / 128)
    assert (cell.pair, cell.two_i, cell.function) == (3, 6, "sin")
    assert cell.angle == pytest.approx(angle, rel=1e-15)
    assert cell.value == pytest.approx(math.sin(angle), abs=1e-15)
    assert cell.wavelength == pytest.approx(2 * math.pi * 10000 ** (6 / 128), rel=1e-15)


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize(("n_positions", "d_model", "base"), [(64, 128, 1e4), (40, 10, 100.0)])
def test_every_cells_shown_value_is_the_matrix_value_to_the_digits_shown(
    layout, n_positions, d_model, base
):
    """Every cell of the matrix the page draws (its float64 source, and the float32 copy the
    colours come from) against the value its formula prints."""
    matrix = encoding.positional_encoding(n_positions, d_model, base, layout=layout)
    shown = matrix.astype(np.float32)
    for pos in range(n_positions):
        for dimension in range(d_model):
            cell = cell_formula(pos, dimension, d_model, base, layout)
            printed = shown_value(cell)
            assert printed == formula.fixed(matrix[pos, dimension], 4)
            assert float(printed.replace(MINUS, "-")) == pytest.approx(
                shown[pos, dimension], abs=0.5e-4 + 1e-7
            )


@pytest.mark.parametrize("d_model", [2, 8, 128, 2048])
def test_odd_dimensions_are_cosines_when_interleaved(d_model):
    for dimension in range(0, d_model, max(1, d_model // 16)):
        for column in (dimension - dimension % 2, dimension - dimension % 2 + 1):
            cell = cell_formula(3, column, d_model)
            assert cell.function == ("cos" if column % 2 else "sin")
            assert cell.pair == column // 2


@pytest.mark.parametrize("d_model", [2, 8, 128])
def test_concatenated_holds_the_sines_then_the_cosines(d_model):
    half = d_model // 2
    for pair in range(half):
        sine = cell_formula(5, pair, d_model, layout="concatenated")
        cosine = cell_formula(5, pair + half, d_model, layout="concatenated")
        assert (sine.function, sine.pair) == ("sin", pair)
        assert (cosine.function, cosine.pair) == ("cos", pair)


def test_concatenated_dimension_64_plus_3_is_the_cosine_of_pair_3():
    cell = cell_formula(7, 67, 128, layout="concatenated")
    assert cell.text().startswith("PE(7, 67) = cos(7 / 10000^(6/128)) = cos(4.5457) = ")
    interleaved = cell_formula(7, 7, 128, layout="interleaved")
    assert (cell.pair, cell.angle, cell.value) == (3, interleaved.angle, interleaved.value)


@pytest.mark.parametrize("base", [10.0, 500.0, 10000.0, 100000.0])
@pytest.mark.parametrize("d_model", [4, 64, 2048])
def test_wavelength_is_two_pi_base_to_the_2i_over_d(base, d_model):
    for dimension in (0, d_model // 3, d_model - 1):
        cell = cell_formula(11, dimension, d_model, base)
        expected = 2 * math.pi * base ** (2 * cell.pair / d_model)
        assert cell.wavelength == pytest.approx(expected, rel=1e-12)
        # One wavelength is one turn: the angle at pos is 2π·pos / λ.
        assert cell.angle == pytest.approx(2 * math.pi * 11 / expected, rel=1e-12)


def test_pair_0_has_wavelength_two_pi_whatever_the_base():
    cell = cell_formula(7, 1, 16, 37.5)
    assert cell.text().endswith("pair i = 0 · wavelength 2π·37.5^(0/16) = 6.3")
    assert cell.angle == 7.0


def test_digits_sets_the_decimals_of_angle_and_value():
    assert cell_formula(7, 6, 128).parts(6)[0].endswith("= sin(4.545671) = −0.986135")
    assert cell_formula(7, 6, 128).parts(0)[0].endswith("= sin(5) = −1")


def test_html_reads_exactly_as_the_text():
    cell = cell_formula(30, 67, 128, 500.0, "concatenated")
    page = cell.html()
    assert re.sub(r"<[^>]+>", "", page) == cell.text()
    assert 'data-pos="30"' in page and 'data-dimension="67"' in page


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (-0.98613479, 4, "−0.9861"),
        (0.5, 4, "0.5000"),
        # An exact half goes away from zero, as JavaScript's toFixed rounds (Python: to even).
        (0.03125, 4, "0.0313"),
        (-0.03125, 4, "−0.0313"),
        (2.5, 0, "3"),
        # A negative number rounding to zero loses its sign, as in Plotly's d3-format.
        (-0.00004, 4, "0.0000"),
        (-0.0, 4, "0.0000"),
        (9.675, 1, "9.7"),
    ],
)
def test_numbers_are_rounded_as_the_hover_label_rounds_them(value, digits, shown):
    assert formula.fixed(value, digits) == shown


@pytest.mark.parametrize(
    ("base", "shown"), [(10000.0, "10000"), (100.0, "100"), (37.5, "37.5"), (12345.67, "12345.67")]
)
def test_the_base_is_printed_short_but_never_changed(base, shown):
    # :g alone would print 12345.67 as 12345.7, a different base.
    assert formula.base_text(base) == shown
    assert float(formula.base_text(base)) == base


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ((-1, 0, 8), "pos"),
        ((1.5, 0, 8), "pos"),
        ((True, 0, 8), "pos"),
        ((encoding.MAX_POSITION + 1, 0, 8), "pos"),
        ((0, 8, 8), "dimension"),
        ((0, -1, 8), "dimension"),
        ((0, "6", 8), "dimension"),
        ((0, 0, 7), "d_model"),
        ((0, 0, 0), "d_model"),
        ((0, 0, 8, 1.0), "base"),
        ((0, 0, 8, float("nan")), "base"),
        ((0, 0, 8, 10000.0, "stacked"), "layout"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(arguments, name):
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        cell_formula(*arguments)


@pytest.mark.parametrize("digits", [-1, 13, 2.0])
def test_bad_digits_raise_value_error(digits):
    with pytest.raises(ValueError, match="^digits must be"):
        cell_formula(7, 6, 128).text(digits)

"""The page's numbers: numbers_of prints many at once exactly as number prints each."""

import numpy as np
import pytest
from pe_explorer.plotkit.numbers import number, numbers_of

# Exact halves (which fixed rounds away from zero, Python's format to even), negatives that
# round to zero (no minus), −0, repeats, and numbers of every size.
EDGES = [0.5, -0.5, 2.5, -2.5, 0.125, -0.375, 1 / 1024, -3 / 2048, 0.0, -0.0, -1e-20, 1e-20]


@pytest.mark.parametrize("digits", [0, 1, 4, 6, 9])
def test_numbers_of_prints_each_value_as_number_does(digits):
    rng = np.random.default_rng(digits)
    values = np.concatenate(
        [
            EDGES,
            np.arange(-2048, 2049) / 2.0 ** (digits + 1),  # every exact half at these digits
            -0.6 * 10.0 ** -np.arange(0, 12),  # round to −0 or not
            rng.standard_normal(2000) * 10.0 ** rng.integers(-12, 4, 2000),
            [7.25, 7.25, -7.25],
        ]
    )
    assert numbers_of(values, digits) == tuple(number(value, digits) for value in values)


def test_numbers_of_takes_any_shape_and_none():
    assert numbers_of([[1.5, -2.25]]) == ("1.5000", "−2.2500")
    assert numbers_of(3.0) == ("3.0000",)
    assert numbers_of([]) == ()

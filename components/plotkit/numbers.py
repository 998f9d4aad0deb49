"""The one place the page decides how a number is printed: its decimals and its minus sign.

Every number is printed with U+2212 for its minus sign and never as −0, rounded as Plotly's
hover labels round (formula.fixed): chart names and Show data tables with DATA_DIGITS decimals,
the readout tables under the views with READOUT_DIGITS, so that a reader can check the last
digit against the closed form.
"""

from __future__ import annotations

import numpy as np

from ..formula import MINUS, fixed

# Decimals of the numbers in a chart's name and its Show data table, as in the hover labels.
DATA_DIGITS = 4
# Decimals of the readout tables (dot products, scores, biases): float64 holds about 16 digits,
# nine decimals show every digit the closed forms of the readouts are checked to.
READOUT_DIGITS = 9


def number(value: float, digits: int = DATA_DIGITS) -> str:
    """A number as a chart's name and its table print it: 4 decimals, minus as U+2212."""
    return fixed(float(value), digits)


def readout_number(value: float) -> str:
    """A number of a readout table: READOUT_DIGITS decimals, minus as U+2212."""
    return fixed(float(value), READOUT_DIGITS)


def signed(value: int) -> str:
    """A whole number with U+2212 for its minus sign."""
    return str(int(value)).replace("-", MINUS)


def numbers_of(values, digits: int = DATA_DIGITS) -> tuple[str, ...]:
    """Each value as number(value, digits) prints it, each distinct one printed once and all in
    one call (a view's picks print thousands): Python's format rounds the exact binary value to
    the nearest, as fixed does, but an exact half (value·2^(digits + 1) odd) to even, so those,
    and values that are not finite, go to fixed."""
    distinct, at = np.unique(np.asarray(values, dtype=np.float64).ravel(), return_inverse=True)
    magnitudes = np.abs(distinct)
    texts = (f"{{:.{digits}f}}\0" * distinct.size).format(*magnitudes.tolist()).split("\0")
    zero = f"{0:.{digits}f}"
    for index in np.flatnonzero(distinct < 0).tolist():
        if texts[index] != zero:
            texts[index] = MINUS + texts[index]
    scaled = magnitudes * 2.0 ** (digits + 1)
    for index in np.flatnonzero(~np.isfinite(scaled) | (np.mod(scaled, 2.0) == 1.0)).tolist():
        texts[index] = fixed(float(distinct[index]), digits)
    return tuple(map(texts.__getitem__, at.tolist()))

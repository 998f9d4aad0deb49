"""The formula behind one cell of the PE matrix, filled in with that cell's own numbers.

    PE(7, 6) = sin(7 / 10000^(6/128)) = sin(4.5457) = −0.9861

Plain Python and NumPy: every number comes from components/encoding.py, and numbers are
rounded the way the heatmap's hover label (Plotly's d3-format) rounds them, so a cell's
formula and its hover show the same digits.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

from . import encoding

MINUS = "\u2212"
MAX_DIGITS = 12
# Wavelengths are positions: one decimal tells 2π (6.3) from 9.7 without crowding the line.
WAVELENGTH_DIGITS = 1


# The picks of a view print the same few numbers for many values of pos or k (a readout's other
# rows, a number that depends on k alone): each is worked out once.
@lru_cache(maxsize=1 << 16)
def fixed(value: float, digits: int) -> str:
    """value with digits decimals, as Plotly's hover prints it (%{value:.4f}), minus as U+2212.

    Plotly rounds with JavaScript's toFixed: the exact binary value, halves away from zero
    (Python's format rounds halves to even). A negative number that rounds to zero loses its
    sign, as in d3-format.
    """
    rounded = Decimal(abs(value)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = f"{rounded:f}"
    return MINUS + text if value < 0 and rounded != 0 else text


def base_text(base: float) -> str:
    """The base as the formula prints it: :g, unless that would change its value."""
    text = f"{base:g}"
    return text if float(text) == base else repr(float(base))


def power(base: float, pair: int, d_model: int) -> str:
    """base^(2i/d_model) in the paper's form: "10000^(6/128)" for pair 3 of 128 dimensions."""
    return f"{base_text(base)}^({2 * pair}/{d_model})"


@dataclass(frozen=True)
class CellFormula:
    """Cell (pos, dimension) of the PE matrix: its pair i, sine or cosine, angle and value."""

    pos: int
    dimension: int
    d_model: int
    base: float
    layout: str
    pair: int  # i: the dimension holds sin or cos of pos·ω_i
    function: str  # "sin" or "cos"
    angle: float  # pos·ω_i = pos / base^(2i/d_model), in radians
    value: float  # PE(pos, dimension), as the page's matrix holds it
    wavelength: float  # λ_i = 2π·base^(2i/d_model), in positions

    @property
    def two_i(self) -> int:
        """The numerator 2i of the exponent 2i/d_model."""
        return 2 * self.pair

    def parts(self, digits: int = 4) -> tuple[str, str, str]:
        """The equation, the pair and the wavelength, as text."""
        digits = encoding.check_integer("digits", digits, 0, MAX_DIGITS)
        scale = power(self.base, self.pair, self.d_model)
        name = self.function
        equation = (
            f"PE({self.pos}, {self.dimension}) = {name}({self.pos} / {scale}) = "
            f"{name}({fixed(self.angle, digits)}) = {fixed(self.value, digits)}"
        )
        wavelength = f"wavelength 2π·{scale} = {fixed(self.wavelength, WAVELENGTH_DIGITS)}"
        return equation, f"pair i = {self.pair}", wavelength

    def text(self, digits: int = 4) -> str:
        """The formula in one line, e.g. "PE(7, 6) = sin(7 / 10000^(6/128)) = sin(4.5457) = …"."""
        return " · ".join(self.parts(digits))

    def html(self, digits: int = 4) -> str:
        """The formula as a paragraph whose text is exactly text(digits)."""
        equation, pair, wavelength = (html.escape(part) for part in self.parts(digits))
        return (
            f'<p class="pe-cell-formula-text" data-pos="{self.pos}" '
            f'data-dimension="{self.dimension}"><span class="pe-cell-equation">{equation}</span>'
            f' · <span class="pe-cell-pair">{pair}</span>'
            f' · <span class="pe-cell-wavelength">{wavelength}</span></p>'
        )


def column_label(dimension: int, pair: int, is_sine: bool, wavelength: float, base, d_model):
    """A heatmap column's x category: what its hover label says about every cell of the column."""
    name = "sin" if is_sine else "cos"
    scale = power(base, pair, d_model)
    shown_wavelength = fixed(wavelength, WAVELENGTH_DIGITS)
    return (
        f"dim {dimension} · pair i = {pair} · wavelength {shown_wavelength}<br>"
        f"PE(pos, {dimension}) = {name}(pos / {scale}) = {name}"
    )


def cell_formula(
    pos: int,
    dimension: int,
    d_model: int,
    base: float = encoding.DEFAULT_BASE,
    layout: str = "interleaved",
) -> CellFormula:
    """The formula of cell (pos, dimension) for this d_model, base and layout."""
    d_model = encoding.check_d_model(d_model)
    base = encoding.check_base(base)
    layout = encoding.check_layout(layout)
    pos = encoding.check_integer("pos", pos, 0, encoding.MAX_POSITION)
    dimension = encoding.check_integer("dimension", dimension, 0, d_model - 1)
    pair_of, is_sine = encoding.column_roles(d_model, layout)
    pair = int(pair_of[dimension])
    value = encoding.encode_positions([pos], d_model, base, layout=layout)[0, dimension]
    return CellFormula(
        pos=pos,
        dimension=dimension,
        d_model=d_model,
        base=base,
        layout=layout,
        pair=pair,
        function="sin" if is_sine[dimension] else "cos",
        # The same product encode_positions takes the sine or cosine of.
        angle=float(pos * encoding.angular_frequencies(d_model, base)[pair]),
        value=float(value),
        wavelength=float(encoding.wavelengths(d_model, base)[pair]),
    )

"""Dot products PE(i)·PE(j) of the shown positions: a Toeplitz matrix, with D(k) beside it."""

from __future__ import annotations

from .. import derived
from ..plotkit.charts import reduced_note, toeplitz_layout, toeplitz_trace
from ..plotkit.frame import ChartData, toeplitz_table
from ..plotkit.numbers import number, readout_number
from ..plotkit.subplots import compose, offset_curve_subplot, toeplitz_subplot
from ..state import ExplorerState

SIMILARITY_TITLES = {"dot": "dot products PE(i)·PE(j)", "cosine": "cosine similarities"}

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
p.pe-gram-readout { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


def diagonal(state: ExplorerState) -> derived.OffsetDiagonal:
    """Diagonal k of the state's PE·PEᵀ."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    return derived.offset_diagonal(n, d, base, state.offset)


def readout(state: ExplorerState) -> str:
    """The numbers of diagonal k as text (numbers only)."""
    shown = diagonal(state)
    return (
        f'<p class="pe-gram-readout">Diagonal k = <span class="pe-gram-offset">{shown.offset}'
        f'</span>: all <span class="pe-gram-entries">{shown.entries}</span> entries '
        f"PE(i)·PE(i + k) equal D(k) = "
        f'<span class="pe-gram-dot">{readout_number(shown.dot)}</span> (largest minus smallest: '
        f'<span class="pe-gram-spread">{shown.spread:.1e}</span>).<br>'
        f"Cosine similarity 2D(k)/d<sub>model</sub> = "
        f'<span class="pe-gram-cosine">{readout_number(shown.cosine)}</span>; distance '
        f"√(d<sub>model</sub> − 2D(k)) = "
        f'<span class="pe-gram-distance">{readout_number(shown.distance)}</span>.</p>'
    )


def _title(state: ExplorerState, shown: derived.DotProductCells) -> str:
    """The figure's title, with a note when the matrix is strided or filled from D(i − j)."""
    n = state.n_positions
    title = f"PE·PEᵀ: {SIMILARITY_TITLES[state.similarity]} of {n} position{'' if n == 1 else 's'}"
    notes = [reduced_note(shown.stride, shown.rows.size, n)] if shown.stride > 1 else []
    if not shown.direct:
        notes.append("filled from D(i − j), equal to the product")
    return title + ("<br><sub>" + "; ".join(notes) + "</sub>" if notes else "")


def figure(state: ExplorerState) -> dict:
    """Heatmap of PE·PEᵀ (or cosines) with diagonal k marked; D(k) against k beside it."""
    n, d = state.n_positions, state.d_model
    shown = derived.dot_product_cells(n, d, float(state.base))
    cosine = state.similarity == "cosine"
    scale = 1.0 if cosine else d / 2
    measure = "cos" if cosine else "D"
    z = shown.cosines if cosine else shown.dots
    trace = toeplitz_trace(shown.rows, z, scale, measure, ("i", "j", measure), "PE·PEᵀ")
    matrix = toeplitz_subplot(state, trace, ("position j", "position i"), shown.stride)
    layout = toeplitz_layout(state, f"dotproduct-{n}-{d}", _title(state, shown))
    curve = derived.offset_similarity_curve(n, d, float(state.base), state.similarity)
    names = ("2D(k)/d_model" if cosine else "D(k) = Σ cos(k·ω_i)", measure, measure)
    titles = ("offset k = j − i", "2D(k) / d_model" if cosine else "D(k)")
    beside = offset_curve_subplot(state, curve, names, titles, ((0.66, 1.0), (0.0, 1.0)), scale)
    return compose(state, layout, [matrix, beside])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the matrix, diagonal k and its value."""
    shown = diagonal(state)
    n, k = state.n_positions, shown.offset
    cosine = state.similarity == "cosine"
    value = f"cosine {number(shown.cosine)}" if cosine else f"D({k}) = {number(shown.dot)}"
    return (
        f"PE·PEᵀ, {SIMILARITY_TITLES[state.similarity]} of {n} positions, diagonal k = {k} "
        f"marked: all {shown.entries} entries on it equal {value}; cell ({state.pos}, "
        f"{state.second_pos}) outlined"
    )


def data(state: ExplorerState) -> ChartData:
    """Entries (i, j) of PE·PEᵀ (or the cosines) for i near pos and j near pos + k: D(j − i),
    the same numbers as the product, read off the curve the chart draws."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    _, curve = derived.offset_similarity_curve(n, d, base, state.similarity)
    caption = (
        f"PE·PEᵀ: {SIMILARITY_TITLES[state.similarity]}, rows i near pos = {state.pos}, "
        f"columns j near pos + k = {state.second_pos}"
    )
    return toeplitz_table(state, caption, "i \\ j", curve)

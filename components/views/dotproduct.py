"""Dot products PE(i)·PE(j) of the shown positions: a Toeplitz matrix, with D(k) beside it."""

from __future__ import annotations

from dataclasses import dataclass

from .. import derived, encoding
from ..plotkit import theme
from ..plotkit.charts import curve_trace, point_trace, reduced_note, toeplitz_layout, toeplitz_trace
from ..plotkit.frame import ChartData, offset_window, positions_table
from ..plotkit.numbers import number
from ..state import ExplorerState

SIMILARITY_TITLES = {"dot": "dot products PE(i)·PE(j)", "cosine": "cosine similarities"}

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
p.pe-gram-readout { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


@dataclass(frozen=True)
class OffsetReadout:
    """The numbers of diagonal k: D(k) and what follows from it, and the diagonal's spread."""

    offset: int
    dot: float
    cosine: float
    distance: float
    entries: int
    spread: float  # max − min of the entries PE(i)·PE(i + k) on diagonal k


def numbers(state: ExplorerState) -> OffsetReadout:
    """D(k), 2D(k)/d_model and √(d_model − 2D(k)), and the spread of diagonal k of PE·PEᵀ."""
    k, d, base = state.offset, state.d_model, float(state.base)
    exact = encoding.offset_comparison(k, d, base)
    # The products of the interleaved matrix, as the picture shows (the layout changes nothing).
    diagonal = encoding.diagonal_products(
        derived.pe_matrix(state.n_positions, d, base, "interleaved"), k
    )
    return OffsetReadout(
        offset=k,
        dot=exact.dot,
        cosine=exact.cosine,
        distance=exact.distance,
        entries=int(diagonal.size),
        spread=float(diagonal.max() - diagonal.min()),
    )


def readout(state: ExplorerState) -> str:
    """The numbers of diagonal k as text (numbers only)."""
    shown = numbers(state)
    return (
        f'<p class="pe-gram-readout">Diagonal k = <span class="pe-gram-offset">{shown.offset}'
        f'</span>: all <span class="pe-gram-entries">{shown.entries}</span> entries '
        f"PE(i)·PE(i + k) equal D(k) = "
        f'<span class="pe-gram-dot">{shown.dot + 0.0:.9f}</span> (largest minus smallest: '
        f'<span class="pe-gram-spread">{shown.spread:.1e}</span>).<br>'
        f"Cosine similarity 2D(k)/d<sub>model</sub> = "
        f'<span class="pe-gram-cosine">{shown.cosine + 0.0:.9f}</span>; distance '
        f"√(d<sub>model</sub> − 2D(k)) = "
        f'<span class="pe-gram-distance">{shown.distance:.9f}</span>.</p>'
    )


def figure(state: ExplorerState) -> dict:
    """Heatmap of PE·PEᵀ (or cosines) with diagonal k marked; D(k) against k beside it."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    shown = derived.dot_product_cells(n, d, base)
    cosine = state.similarity == "cosine"
    z = shown.cosines if cosine else shown.dots
    scale = 1.0 if cosine else d / 2
    palette = theme.colours(state.theme)
    k = state.offset
    offsets, dots = derived.offset_dot_curve(n, d, base)
    exact = encoding.offset_comparison(k, d, base)
    curve = 2.0 * dots / d if cosine else dots
    current = exact.cosine if cosine else exact.dot
    measure = "cos" if cosine else "D"
    title = f"PE·PEᵀ: {SIMILARITY_TITLES[state.similarity]} of {n} position{'' if n == 1 else 's'}"
    notes = []
    if shown.stride > 1:
        notes.append(reduced_note(shown.stride, shown.rows.size, n))
    if not shown.direct:
        notes.append("filled from D(i − j), equal to the product")
    if notes:
        title += "<br><sub>" + "; ".join(notes) + "</sub>"
    curve_name = "D(k) = Σ cos(k·ω_i)" if not cosine else "2D(k)/d_model"
    traces = [
        toeplitz_trace(shown.rows, z, scale, measure, ("i", "j", measure), "PE·PEᵀ"),
        curve_trace(offsets, curve, "2", theme.PAIR_COLOURS[0], curve_name, ("k", measure)),
        point_trace(k, current, "2", (palette["second"], 10), ("k", measure), 9),
    ]
    titles = (
        "position j",
        "position i",
        "offset k = j − i",
        "2D(k) / d_model" if cosine else "D(k)",
    )
    label = f"k = {k}: {measure} = {current + 0.0:.4f}"
    layout = toeplitz_layout(
        state, f"dotproduct-{n}-{d}", title, titles, 0.66, scale, shown.stride, label
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the matrix, diagonal k and its value."""
    shown = numbers(state)
    n, k = state.n_positions, shown.offset
    cosine = state.similarity == "cosine"
    value = f"cosine {number(shown.cosine)}" if cosine else f"D({k}) = {number(shown.dot)}"
    return (
        f"PE·PEᵀ, {SIMILARITY_TITLES[state.similarity]} of {n} positions, diagonal k = {k} "
        f"marked: all {shown.entries} entries on it equal {value}; cell ({state.pos}, "
        f"{state.second_pos}) outlined"
    )


def data(state: ExplorerState) -> ChartData:
    """Entries (i, j) of PE·PEᵀ (or the cosines) for i near pos and j near pos + k."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    rows, columns, offsets = offset_window(state)
    # Entry (i, j) is D(j − i): the same numbers as the product, read off the curve.
    _, curve = derived.offset_dot_curve(n, d, base)
    if state.similarity == "cosine":
        values = encoding.offset_cosine(offsets, d, base)
    else:
        values = curve[offsets + n - 1]
    caption = (
        f"PE·PEᵀ: {SIMILARITY_TITLES[state.similarity]}, rows i near pos = {state.pos}, "
        f"columns j near pos + k = {state.second_pos}"
    )
    return positions_table(caption, "i \\ j", rows, columns, values, n)

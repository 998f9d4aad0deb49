"""Dot products PE(i)·PE(j) of the shown positions: a Toeplitz matrix, with D(k) beside it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np

from .. import derived, encoding
from ..plotkit import picks as picks_kit
from ..plotkit.charts import (
    point_hovertemplate,
    point_name,
    reduced_note,
    toeplitz_layout,
    toeplitz_trace,
)
from ..plotkit.frame import ChartData, toeplitz_table
from ..plotkit.markers import marker_updates, offset_markers
from ..plotkit.numbers import READOUT_DIGITS, numbers_of
from ..plotkit.picked_texts import filled, whole
from ..plotkit.subplots import (
    compose,
    offset_curve_subplot,
    offset_mark_text,
    toeplitz_subplot,
)
from ..state import ExplorerState

SIMILARITY_TITLES = {"dot": "dot products PE(i)·PE(j)", "cosine": "cosine similarities"}

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
p.pe-gram-readout { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""
# The picks give the readout's spread of every diagonal: n(n + 1)/2 · d_model multiply-adds,
# and a call for each of the n diagonals that takes about as long as SPREAD_CALL_PRODUCTS; at
# MAX_SPREAD_PRODUCTS in all, about 12 ms here (3 times that in the browser). Beyond it, Python
# draws each value of pos and k alone, as before.
SPREAD_CALL_PRODUCTS, MAX_SPREAD_PRODUCTS = 1 << 15, 1 << 25
# Where the figure keeps what k moves besides its markers (the layout's images): D(k)'s point on
# the curve (a trace) and its label (an annotation).
POINT_TRACE, POINT_LABEL = 2, 0


@dataclass(frozen=True)
class Diagonals:
    """Diagonals k of PE·PEᵀ, one entry per k: derived.OffsetDiagonal's numbers as arrays."""

    offset: np.ndarray
    dot: np.ndarray
    cosine: np.ndarray
    distance: np.ndarray
    entries: np.ndarray
    spread: np.ndarray

    @classmethod
    def of(cls, shown: derived.OffsetDiagonal) -> Diagonals:
        """The one diagonal shown."""
        return cls(*(np.array([getattr(shown, f.name)]) for f in dataclasses.fields(cls)))


def diagonal(state: ExplorerState) -> derived.OffsetDiagonal:
    """Diagonal k of the state's PE·PEᵀ."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    return derived.offset_diagonal(n, d, base, state.offset)


def diagonals(state: ExplorerState, offsets: np.ndarray) -> Diagonals:
    """Diagonal k's numbers at each of offsets, from the functions offset_diagonal calls."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    distinct, at = np.unique(offsets, return_inverse=True)
    spreads = derived.offset_spreads(n, d, base)[np.abs(distinct)]
    return Diagonals(
        offset=offsets,
        dot=encoding.offset_dot(distinct, d, base)[at],
        cosine=encoding.offset_cosine(distinct, d, base)[at],
        distance=encoding.offset_distance(distinct, d, base)[at],
        entries=n - np.abs(offsets),
        spread=spreads[at],
    )


def readout_text(shown: Diagonals) -> picks_kit.Text:
    """The numbers of each diagonal k as text (numbers only)."""
    return picks_kit.joined(
        len(shown.offset),
        '<p class="pe-gram-readout">Diagonal k = <span class="pe-gram-offset">',
        whole(shown.offset),
        '</span>: all <span class="pe-gram-entries">',
        whole(shown.entries),
        '</span> entries PE(i)·PE(i + k) equal D(k) = <span class="pe-gram-dot">',
        numbers_of(shown.dot, READOUT_DIGITS),
        '</span> (largest minus smallest: <span class="pe-gram-spread">',
        [f"{spread:.1e}" for spread in shown.spread.tolist()],
        '</span>).<br>Cosine similarity 2D(k)/d<sub>model</sub> = <span class="pe-gram-cosine">',
        numbers_of(shown.cosine, READOUT_DIGITS),
        '</span>; distance √(d<sub>model</sub> − 2D(k)) = <span class="pe-gram-distance">',
        numbers_of(shown.distance, READOUT_DIGITS),
        "</span>.</p>",
    )


def readout(state: ExplorerState) -> str:
    """The numbers of diagonal k as text (numbers only)."""
    return readout_text(Diagonals.of(diagonal(state))).at(0)


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
    # Its marks are the layout's images, not toeplitz_subplot's shapes: a moved shape would
    # redraw the whole matrix.
    matrix = toeplitz_subplot(state, trace, ("position j", "position i"), shown.stride)
    matrix = dataclasses.replace(matrix, shapes=[])
    layout = toeplitz_layout(state, f"dotproduct-{n}-{d}", _title(state, shown))
    layout["images"] = offset_markers(state, shown.stride)
    curve = derived.offset_similarity_curve(n, d, float(state.base), state.similarity)
    names = ("2D(k)/d_model" if cosine else "D(k) = Σ cos(k·ω_i)", measure, measure)
    titles = ("offset k = j − i", "2D(k) / d_model" if cosine else "D(k)")
    beside = offset_curve_subplot(state, curve, names, titles, ((0.66, 1.0), (0.0, 1.0)), scale)
    return compose(state, layout, [matrix, beside])


def label_text(
    similarity: str, n_positions: int, shown: Diagonals, firsts, seconds
) -> picks_kit.Text:
    """The chart's accessible name at each diagonal of shown, with pos and pos + k there."""
    count = len(shown.offset)
    offsets = whole(shown.offset)
    if similarity == "cosine":
        value = ["cosine ", numbers_of(shown.cosine)]
    else:
        value = ["D(", offsets, ") = ", numbers_of(shown.dot)]
    return picks_kit.joined(
        count,
        f"PE·PEᵀ, {SIMILARITY_TITLES[similarity]} of {n_positions} positions, diagonal k = ",
        offsets,
        " marked: all ",
        whole(shown.entries),
        " entries on it equal ",
        *value,
        "; cell (",
        whole(firsts),
        ", ",
        whole(seconds),
        ") outlined",
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the matrix, diagonal k and its value."""
    shown = Diagonals.of(diagonal(state))
    text = label_text(state.similarity, state.n_positions, shown, [state.pos], [state.second_pos])
    return text.at(0)


def caption_text(similarity: str, firsts, seconds) -> picks_kit.Text:
    """The Show data table's caption at each pos and pos + k."""
    return picks_kit.joined(
        len(firsts),
        f"PE·PEᵀ: {SIMILARITY_TITLES[similarity]}, rows i near pos = ",
        whole(firsts),
        ", columns j near pos + k = ",
        whole(seconds),
    )


def data(state: ExplorerState) -> ChartData:
    """Entries (i, j) of PE·PEᵀ (or the cosines) for i near pos and j near pos + k: D(j − i),
    the same numbers as the product, read off the curve the chart draws."""
    n, d, base = state.n_positions, state.d_model, float(state.base)
    _, curve = derived.offset_similarity_curve(n, d, base, state.similarity)
    caption = caption_text(state.similarity, [state.pos], [state.second_pos]).at(0)
    return toeplitz_table(state, caption, "i \\ j", curve)


def point_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """D(k)'s point on the curve and its label at each value of one axis (rows of the tables
    "offsets" and "curve": the curve's offsets and values)."""
    n, offsets = state.n_positions, moved.offsets
    measure = "cos" if state.similarity == "cosine" else "D"
    _, values = derived.offset_similarity_curve(
        n, state.d_model, float(state.base), state.similarity
    )
    distinct, at = np.unique(offsets, return_inverse=True)
    marks = [
        offset_mark_text(k, measure, v)
        for k, v in zip(distinct.tolist(), values[distinct + n - 1].tolist(), strict=True)
    ]
    labels = [marks[i] for i in at.tolist()]
    count, ks = len(offsets), whole(offsets)
    hover = partial(point_hovertemplate, "k", y_label=measure, digits=9)
    label = f"annotations[{POINT_LABEL}]"
    return [
        picks_kit.Update("trace", "x", POINT_TRACE, rows="offsets", index=offsets + n - 1),
        picks_kit.Update("trace", "y", POINT_TRACE, rows="curve", index=offsets + n - 1),
        picks_kit.Update(
            "trace", "name", POINT_TRACE, text=filled(count, partial(point_name, "k"), x=ks)
        ),
        picks_kit.Update("trace", "hovertemplate", POINT_TRACE, text=filled(count, hover, x=ks)),
        picks_kit.Update("layout", f"{label}.text", text=picks_kit.compressed(labels)),
        picks_kit.Update("layout", f"{label}.x", each=offsets),
    ]


def axis_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """Everything k and pos move, at each value of one axis."""
    shown = diagonals(state, moved.offsets)
    similarity, n = state.similarity, state.n_positions
    label = label_text(similarity, n, shown, moved.firsts, moved.seconds)
    return [
        *marker_updates(moved, n, derived.dot_product_stride(n)),
        *point_updates(state, moved),
        picks_kit.Update("label", text=label),
        picks_kit.Update("caption", text=caption_text(similarity, moved.firsts, moved.seconds)),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_text(shown)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks | None:
    """What a drag of pos or k moves: the diagonal and the cell marked, D(k)'s point and label,
    the chart's name, the caption and the readout; nothing when the spreads of every diagonal
    would take too long (MAX_SPREAD_PRODUCTS)."""
    n, d = state.n_positions, state.d_model
    if n * SPREAD_CALL_PRODUCTS + n * (n + 1) // 2 * d > MAX_SPREAD_PRODUCTS:
        return None
    offsets, values = derived.offset_similarity_curve(n, d, float(state.base), state.similarity)
    tables = {
        "offsets": offsets.astype(np.float64).reshape(-1, 1),
        "curve": np.asarray(values, dtype=np.float64).reshape(-1, 1),
    }
    axes = tuple(m.picks(axis_updates(state, m)) for m in picks_kit.moved_positions(state))
    return picks_kit.Picks(tables, axes)

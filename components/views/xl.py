"""Transformer-XL (Dai et al. 2019): the four terms of the relative score against i − j."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import derived, relative
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import offset_label, pe_matrix_trace, titled_layout
from ..plotkit.frame import ChartData, offset_curves_table
from ..plotkit.markers import layout_image
from ..plotkit.numbers import READOUT_DIGITS, numbers_of, readout_number
from ..plotkit.picked_texts import whole
from ..plotkit.subplots import Subplot, axis_names, compose, heatmap_axis
from ..state import ExplorerState

# The four terms, in the paper's order, each with its name, its formula (HTML) and its colour.
TERMS = (
    ("content", "(a) content–content", "q·W<sub>k</sub>x<sub>j</sub>", theme.PAIR_COLOURS[0]),
    ("content_position", "(b) content–position", "q·W<sub>R</sub>R<sub>i−j</sub>",
     theme.PAIR_COLOURS[1]),
    ("content_bias", "(c) global content bias", "u·W<sub>k</sub>x<sub>j</sub>",
     theme.PAIR_COLOURS[2]),
    ("position_bias", "(d) global position bias", "v·W<sub>R</sub>R<sub>i−j</sub>",
     theme.PAIR_COLOURS[3]),
)  # fmt: skip
# The curves on top, R_{i−j} (offsets × dimensions, concatenated) below.
CURVES_DOMAIN, SINUSOID_DOMAIN = [0.58, 1.0], [0.0, 0.25]

READOUT_STYLE = theme.READOUT_TABLE_STYLE
# Where the figure keeps what |k| moves: the diamonds (a trace), the labels of i − j and of
# R_|k| (annotations) and the markers of both (layout images).
MARKS_TRACE, DISTANCE_LABEL, ROW_LABEL, DISTANCE_IMAGE, ROW_IMAGE = 5, 0, 1, 0, 1


def score_terms(state: ExplorerState) -> relative.XLTerms:
    """The four terms at the offsets i − j = 0 … n − 1, for the state's seeded stand-ins."""
    return derived.transformer_xl_curves(
        state.n_positions, state.d_model, float(state.base), state.seed
    )


@dataclass(frozen=True)
class TermsAt:
    """The four terms and the score at i − j = |k| for pairs pos, pos + k (one entry each)."""

    firsts: np.ndarray  # pos
    seconds: np.ndarray  # pos + k
    distance: np.ndarray  # i − j = |k|
    terms: np.ndarray  # (a), (b), (c), (d): a row each
    total: np.ndarray


def terms_at(curves: relative.XLTerms, firsts, seconds) -> TermsAt:
    """The terms at each pair's distance, read off the curves."""
    firsts, seconds = np.asarray(firsts), np.asarray(seconds)
    distance = np.abs(seconds - firsts)
    terms = np.array([getattr(curves, name)[distance] for name, *_ in TERMS])
    return TermsAt(firsts, seconds, distance, terms, curves.total[distance])


def readout_text(state: ExplorerState, shown: TermsAt) -> picks_kit.Text:
    """The four terms at each pair's i − j = |k| as a table, and what varies with the offset."""
    rows = []
    for (name, label, formula, _), values in zip(TERMS, shown.terms, strict=True):
        rows += [
            f'<tr><td>{label}: {formula}</td><td class="pe-xl-{name.replace("_", "-")}">',
            numbers_of(values, READOUT_DIGITS),
            "</td></tr>",
        ]
    position = numbers_of(shown.terms[1] + shown.terms[3], READOUT_DIGITS)  # (b) + (d)
    low, high = (readout_number(value) for value in position_range(state))
    return picks_kit.joined(
        len(shown.distance),
        '<table class="pe-readouts"><caption class="pe-xl-offset">The pair pos = ',
        whole(shown.firsts),
        ", pos + k = ",
        whole(shown.seconds),
        " is i − j = |k| = ",
        whole(shown.distance),
        " apart (the later one is the query i)</caption>"
        "<thead><tr><th>term of the score</th><th>value</th></tr></thead><tbody>",
        *rows,
        '<tr class="pe-current"><td>score A<sub>i,j</sub> = (a) + (b) + (c) + (d)</td>'
        '<td class="pe-xl-total">',
        numbers_of(shown.total, READOUT_DIGITS),
        "</td></tr></tbody></table>"
        '<p class="pe-note">(a) and (c) read the key\'s content alone: they are the same at '
        "every offset. Only (b) + (d) = (q + v)·W<sub>R</sub>R<sub>i−j</sub> = "
        '<span class="pe-xl-position">',
        position,
        f"</span> depends on i − j; over 0 … {state.n_positions - 1} it runs from {low} to "
        f"{high}. R is the sinusoid of the offset in the concatenated layout (all sines, then "
        "all cosines), as in the paper's code; q, u, v, W<sub>R</sub> and the key are random "
        f"(seed {state.seed}).</p>",
    )


def position_range(state: ExplorerState) -> tuple[float, float]:
    """The lowest and highest (b) + (d) over the offsets 0 … n − 1."""
    position = derived.xl_position_curve(
        state.n_positions, state.d_model, float(state.base), state.seed
    )
    return float(position.min()), float(position.max())


def readout(state: ExplorerState) -> str:
    """The four terms at i − j = |k| as a table, and what varies with the offset."""
    return readout_text(state, terms_at(score_terms(state), [state.pos], [state.second_pos])).at(0)


def _term_trace(curves: relative.XLTerms, term: tuple) -> dict:
    """One term of the score against the offset, the learned biases (c) and (d) dashed."""
    name, label, formula, colour = term
    return {
        "type": "scatter",
        "mode": "lines",
        "x": curves.offsets,
        "y": getattr(curves, name),
        "line": {"color": colour, "width": 1.5, "dash": "dash" if "bias" in name else "solid"},
        # The legend gives the formula, short enough for a phone; the hover names the term.
        "name": f"{label.split()[0]} {formula}",
        "hovertemplate": f"{label}<br>i − j = %{{x}}: %{{y:.6f}}<extra></extra>",
    }


def _across(x: float, xref: str, line: dict, name: str) -> dict:
    """A vertical line at x (on xref) across its subplot's full height."""
    return {
        "type": "line",
        "xref": xref,
        "yref": "y domain",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": line,
        "name": name,
    }


def distance_marker(distance: int, n_positions: int, colour: str) -> dict:
    """A dotted line at i − j = distance across the terms' chart, as a layout image (Plotly moves
    an image without redrawing the plot; a moved shape would redraw R's heatmap too). The image
    is as wide as the chart's offsets, the line at its middle."""
    return layout_image(
        theme.line_source(colour, (50, 0, 50, 100), 2, "3 3"),
        ("x", "y domain"),
        "i − j = |k|",
        x=distance,
        y=1,
        sizex=max(1, n_positions - 1),
        sizey=1,
        xanchor="center",
        yanchor="top",
    )


def row_marker(distance: int, row_stride: int, colour: str) -> dict:
    """The row i − j = distance of R outlined, across every column, as a layout image."""
    x_name, y_name = axis_names(2)  # R's chart is the second
    return layout_image(
        theme.outline_source(colour),
        (f"{x_name} domain", y_name),
        "R_|k|",
        x=0,
        y=distance,
        sizex=1,
        sizey=row_stride,
        xanchor="left",
        yanchor="middle",
    )


def distance_text(distances) -> picks_kit.Text:
    """The label of the line at each i − j = |k| of distances."""
    return picks_kit.joined(len(distances), "i − j = ", whole(distances))


def row_text(distances) -> picks_kit.Text:
    """The label of the row R_|k| at each of distances."""
    return picks_kit.joined(len(distances), "◀ R<sub>", whole(distances), "</sub>")


def terms_subplot(state: ExplorerState, shown: TermsAt) -> Subplot:
    """The four terms and their sum over i − j = 0 … n − 1, |k| marked on each (its line is
    one of the layout's images)."""
    palette = theme.colours(state.theme)
    curves = score_terms(state)
    distance = int(shown.distance[0])
    total = {
        "type": "scatter",
        "mode": "lines",
        "x": curves.offsets,
        "y": curves.total,
        "line": {"color": palette["text"], "width": 2.5},
        "name": "score (the sum)",
        "hovertemplate": "score<br>i − j = %{x}: %{y:.6f}<extra></extra>",
    }
    marks = {
        "type": "scatter",
        "mode": "markers",
        "x": np.full(5, distance),
        "y": np.array([*shown.terms[:, 0], shown.total[0]]),
        "marker": {
            "color": [colour for *_, colour in TERMS] + [palette["text"]],
            "size": 9,
            "symbol": "diamond",
            "line": {"color": palette["paper"], "width": 1},
        },
        "showlegend": False,
        "name": "i − j = |k|",
        "hovertemplate": "i − j = %{x}: %{y:.6f}<extra></extra>",
    }
    label = distance_text([distance]).at(0)
    return Subplot(
        traces=[*(_term_trace(curves, term) for term in TERMS), total, marks],
        x_axis={"title": {"text": "offset i − j"}},
        y_axis={"title": {"text": "term"}},
        domain=([0.0, 1.0], CURVES_DOMAIN),
        annotations=[offset_label(label, distance, palette["second"], "x", "y domain")],
    )


def _sinusoid_trace(cells: derived.MatrixCells) -> dict:
    """R_{i−j} as a heatmap, −1 … 1 on the diverging scale, its colour bar beside its panel."""
    colorbar = theme.colorbar(
        x=1.07,
        y=sum(SINUSOID_DOMAIN) / 2,
        len=SINUSOID_DOMAIN[1] - SINUSOID_DOMAIN[0],
        thickness=10,
        title={"text": "R"},
    )
    return pe_matrix_trace(
        cells,
        cells.columns,
        colorbar=colorbar,
        showlegend=False,
        name="R_(i−j)",
        hovertemplate="i − j = %{y}, dimension %{x}<br>R = %{z:.4f}<extra></extra>",
    )


def sinusoid_cells(state: ExplorerState) -> derived.MatrixCells:
    """R_{i−j} at the offsets 0 … n − 1 as drawn: the PE matrix in the concatenated layout."""
    return derived.matrix_cells(state.n_positions, state.d_model, float(state.base), "concatenated")


def sinusoid_subplot(state: ExplorerState, distance: int) -> Subplot:
    """R_{i−j} over the offsets (rows) and dimensions (columns), the sines parted from the
    cosines and the row |k| labelled (its outline is one of the layout's images)."""
    n, d = state.n_positions, state.d_model
    palette = theme.colours(state.theme)
    cells = sinusoid_cells(state)
    # Sines on the left half, cosines on the right: the concatenated layout.
    parting = {"color": palette["text"], "width": 1, "dash": "dash"}
    label = {
        "text": row_text([distance]).at(0),
        "xref": "x",
        "yref": "y",
        "x": d - 0.5,
        "y": distance,
        "xanchor": "left",
        "showarrow": False,
        "font": {"size": 12, "color": palette["second"]},
    }
    reduced = cells.title_note(n, d).replace("<br><sub>", " · ").replace("</sub>", "")
    return Subplot(
        traces=[_sinusoid_trace(cells)],
        x_axis=heatmap_axis("dimension"),
        y_axis=heatmap_axis("i − j", autorange="reversed"),
        domain=([0.0, 1.0], SINUSOID_DOMAIN),
        caption=f"<b>R<sub>i−j</sub></b>, d<sub>model</sub> = {d}: sines, then cosines{reduced}",
        shapes=[_across(d // 2 - 0.5, "x", parting, "sines | cosines")],
        annotations=[label],
    )


def figure(state: ExplorerState) -> dict:
    """Top: the four terms and their sum over i − j = 0 … n − 1, |k| marked. Below: R_{i−j}."""
    n, d = state.n_positions, state.d_model
    shown = terms_at(score_terms(state), [state.pos], [state.second_pos])
    distance = int(shown.distance[0])
    title = f"Transformer-XL: the score's four terms over i − j = 0 … {n - 1}"
    layout = titled_layout(state, f"xl-{n}-{d}", title)
    layout.update(
        margin={"l": 64, "r": 40, "t": 60, "b": 48},
        legend={"orientation": "h", "x": 0, "y": CURVES_DOMAIN[0] - 0.08, "yanchor": "top"},
    )
    colour = theme.colours(state.theme)["second"]
    layout["images"] = [
        distance_marker(distance, n, colour),
        row_marker(distance, sinusoid_cells(state).row_stride, colour),
    ]
    subplots = (terms_subplot(state, shown), sinusoid_subplot(state, distance))
    return compose(state, layout, subplots)


def describe_text(state: ExplorerState, shown: TermsAt) -> picks_kit.Text:
    """The chart's accessible name for each pair of shown: its four terms and its score."""
    a, b, c, d = (numbers_of(values) for values in shown.terms)
    return picks_kit.joined(
        len(shown.distance),
        f"Transformer-XL's relative score of one query over offsets i − j = 0 to "
        f"{state.n_positions - 1} (d_model {state.d_model}, seed {state.seed}): for pos = ",
        whole(shown.firsts),
        " and pos + k = ",
        whole(shown.seconds),
        ", i − j = ",
        whole(shown.distance),
        ", (a) content ",
        a,
        ", (b) content-position ",
        b,
        ", (c) content bias ",
        c,
        " and (d) position bias ",
        d,
        " add up to ",
        numbers_of(shown.total),
        "; (a) and (c) are the same at every offset",
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the four terms and the score at i − j = |k|."""
    shown = terms_at(score_terms(state), [state.pos], [state.second_pos])
    return describe_text(state, shown).at(0)


def caption_text(state: ExplorerState, distances) -> picks_kit.Text:
    """The Show data table's caption at each i − j = |k| of distances."""
    return picks_kit.joined(
        len(distances),
        "Transformer-XL's score terms near i − j = ",
        whole(distances),
        f" (d_model {state.d_model}, seed {state.seed})",
    )


def data(state: ExplorerState) -> ChartData:
    """The four terms and the score at the offsets near |k|."""
    curves = score_terms(state)
    columns = {label: getattr(curves, name) for name, label, *_ in TERMS}
    return offset_curves_table(
        caption_text(state, [abs(state.offset)]).at(0),
        "i − j",
        {**columns, "score": curves.total},
        abs(state.offset),
    )


def axis_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """The diamonds (rows of the tables "marks_x" and "marks_y", by |k|), the markers and their
    labels, the chart's name, the caption and the readout at each value of one axis."""
    shown = terms_at(score_terms(state), moved.firsts, moved.seconds)
    distance = shown.distance
    line, row = f"images[{DISTANCE_IMAGE}]", f"images[{ROW_IMAGE}]"
    line_label, row_label = f"annotations[{DISTANCE_LABEL}]", f"annotations[{ROW_LABEL}]"
    return [
        picks_kit.Update("trace", "x", MARKS_TRACE, rows="marks_x", index=distance),
        picks_kit.Update("trace", "y", MARKS_TRACE, rows="marks_y", index=distance),
        picks_kit.Update("layout", f"{line}.x", each=distance),
        picks_kit.Update("layout", f"{row}.y", each=distance),
        picks_kit.Update("layout", f"{line_label}.text", text=distance_text(distance)),
        picks_kit.Update("layout", f"{line_label}.x", each=distance),
        picks_kit.Update("layout", f"{row_label}.text", text=row_text(distance)),
        picks_kit.Update("layout", f"{row_label}.y", each=distance),
        picks_kit.Update("label", text=describe_text(state, shown)),
        picks_kit.Update("caption", text=caption_text(state, distance)),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_text(state, shown)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks:
    """What a drag of pos or k moves: the diamonds at |k|, the line and the row of R marked and
    labelled, the chart's name, the caption and the readout."""
    curves = score_terms(state)
    columns = [getattr(curves, name) for name, *_ in TERMS] + [curves.total]
    offsets = np.asarray(curves.offsets, dtype=np.float64)
    tables = {
        "marks_x": np.repeat(offsets[:, None], len(columns), axis=1),
        "marks_y": np.ascontiguousarray(np.stack(columns, axis=1), dtype=np.float64),
    }
    axes = tuple(m.picks(axis_updates(state, m)) for m in picks_kit.moved_positions(state))
    return picks_kit.Picks(tables, axes)


def code(state: ExplorerState) -> str:
    """A standalone NumPy script: the seeded q, key, u, v and W_R, R in the concatenated layout
    and the four terms over the offsets."""
    return f"""import numpy as np

d_model, base, seed, n_positions = {state.d_model}, {float(state.base)!r}, {state.seed}, \
{state.n_positions}
offset = {abs(state.offset)}  # i - j, the query i after the key j

# Random stand-ins for a trained model's numbers, drawn in this order from one stream.
rng = np.random.default_rng(seed)
q, key, u, v = (rng.standard_normal(d_model) / np.sqrt(d_model) for _ in range(4))  # key = W_k x_j
w_r = rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)

offsets = np.arange(n_positions)  # i - j >= 0
omega = base ** (-np.arange(0, d_model, 2) / d_model)
angle = offsets[:, None] * omega
r = np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # R_(i-j): sines, then cosines
projected = r @ w_r.T  # W_R R_(i-j)

a = np.full(n_positions, q @ key)  # (a) content-content
b = projected @ q  # (b) content-position
c = np.full(n_positions, u @ key)  # (c) global content bias
d = projected @ v  # (d) global position bias
score = a + b + c + d
print(f"i - j = {{offset}}: a = {{a[offset]:.6f}}, b = {{b[offset]:.6f}}, c = {{c[offset]:.6f}}, "
      f"d = {{d[offset]:.6f}}, score = {{score[offset]:.6f}}")
"""

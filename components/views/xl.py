"""Transformer-XL (Dai et al. 2019): the four terms of the relative score against i − j."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import derived, relative
from ..plotkit import theme
from ..plotkit.charts import offset_label, pe_matrix_trace, titled_layout
from ..plotkit.frame import ChartData, offset_curves_table
from ..plotkit.numbers import number, readout_number
from ..plotkit.subplots import Subplot, compose, heatmap_axis
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


@dataclass(frozen=True)
class XLReadout:
    """The four terms and their sum at the offset i − j = |k|."""

    distance: int  # i − j = |k|
    terms: tuple[float, float, float, float]  # (a), (b), (c), (d)
    total: float
    position_range: tuple[float, float]  # lowest and highest (b) + (d) over 0 … n − 1


def score_terms(state: ExplorerState) -> relative.XLTerms:
    """The four terms at the offsets i − j = 0 … n − 1, for the state's seeded stand-ins."""
    return derived.transformer_xl_curves(
        state.n_positions, state.d_model, float(state.base), state.seed
    )


def readout_values(state: ExplorerState) -> XLReadout:
    """The terms at |k|, read off the cached curves."""
    curves = score_terms(state)
    distance = abs(state.offset)
    position = derived.xl_position_curve(
        state.n_positions, state.d_model, float(state.base), state.seed
    )
    return XLReadout(
        distance=distance,
        terms=tuple(float(getattr(curves, name)[distance]) for name, *_ in TERMS),
        total=float(curves.total[distance]),
        position_range=(float(position.min()), float(position.max())),
    )


def readout(state: ExplorerState) -> str:
    """The four terms at i − j = |k| as a table, and what varies with the offset."""
    shown = readout_values(state)
    _, content_position, _, position_bias = shown.terms
    position = readout_number(content_position + position_bias)
    rows = [
        f"<tr><td>{label}: {formula}</td>"
        f'<td class="pe-xl-{name.replace("_", "-")}">{readout_number(value)}</td></tr>'
        for (name, label, formula, _), value in zip(TERMS, shown.terms, strict=True)
    ]
    low, high = (readout_number(value) for value in shown.position_range)
    return "".join(
        [
            '<table class="pe-readouts">',
            f'<caption class="pe-xl-offset">The pair pos = {state.pos}, pos + k = '
            f"{state.second_pos} is i − j = |k| = {shown.distance} apart (the later one is the "
            "query i)</caption>",
            "<thead><tr><th>term of the score</th><th>value</th></tr></thead><tbody>",
            *rows,
            '<tr class="pe-current"><td>score A<sub>i,j</sub> = (a) + (b) + (c) + (d)</td>'
            f'<td class="pe-xl-total">{readout_number(shown.total)}</td></tr>',
            "</tbody></table>",
            f'<p class="pe-note">(a) and (c) read the key\'s content alone: they are the same at '
            "every offset. Only (b) + (d) = (q + v)·W<sub>R</sub>R<sub>i−j</sub> = "
            f'<span class="pe-xl-position">{position}</span> depends on i − j; '
            f"over 0 … {state.n_positions - 1} it runs from {low} to {high}. R is the sinusoid "
            "of the offset in the concatenated layout (all sines, then all cosines), as in the "
            "paper's code; q, u, v, W<sub>R</sub> and the key are random (seed "
            f"{state.seed}).</p>",
        ]
    )


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


def terms_subplot(state: ExplorerState, shown: XLReadout) -> Subplot:
    """The four terms and their sum over i − j = 0 … n − 1, |k| marked on each."""
    palette = theme.colours(state.theme)
    curves = score_terms(state)
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
        "x": np.full(5, shown.distance),
        "y": np.array([*shown.terms, shown.total]),
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
    line = {"color": palette["second"], "width": 2, "dash": "dot"}
    return Subplot(
        traces=[*(_term_trace(curves, term) for term in TERMS), total, marks],
        x_axis={"title": {"text": "offset i − j"}},
        y_axis={"title": {"text": "term"}},
        domain=([0.0, 1.0], CURVES_DOMAIN),
        shapes=[_across(shown.distance, "x", line, "i − j = |k|")],
        annotations=[
            offset_label(
                f"i − j = {shown.distance}", shown.distance, palette["second"], "x", "y domain"
            )
        ],
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


def sinusoid_subplot(state: ExplorerState, distance: int) -> Subplot:
    """R_{i−j} over the offsets (rows) and dimensions (columns), the row |k| outlined and the
    sines parted from the cosines."""
    n, d = state.n_positions, state.d_model
    palette = theme.colours(state.theme)
    cells = derived.matrix_cells(n, d, float(state.base), "concatenated")
    row = {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": -0.5,
        "x1": d - 0.5,
        "y0": distance - cells.row_stride / 2,
        "y1": distance + cells.row_stride / 2,
        "line": {"color": palette["second"], "width": 2},
        "fillcolor": "rgba(0,0,0,0)",
        "name": "R_|k|",
    }
    # Sines on the left half, cosines on the right: the concatenated layout.
    parting = {"color": palette["text"], "width": 1, "dash": "dash"}
    label = {
        "text": f"◀ R<sub>{distance}</sub>",
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
        shapes=[row, _across(d // 2 - 0.5, "x", parting, "sines | cosines")],
        annotations=[label],
    )


def figure(state: ExplorerState) -> dict:
    """Top: the four terms and their sum over i − j = 0 … n − 1, |k| marked. Below: R_{i−j}."""
    n, d = state.n_positions, state.d_model
    shown = readout_values(state)
    title = f"Transformer-XL: the score's four terms over i − j = 0 … {n - 1}"
    layout = titled_layout(state, f"xl-{n}-{d}", title)
    layout.update(
        margin={"l": 64, "r": 40, "t": 60, "b": 48},
        legend={"orientation": "h", "x": 0, "y": CURVES_DOMAIN[0] - 0.08, "yanchor": "top"},
    )
    subplots = (terms_subplot(state, shown), sinusoid_subplot(state, shown.distance))
    return compose(state, layout, subplots)


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the four terms and the score at i − j = |k|."""
    shown = readout_values(state)
    a, b, c, d = (number(value) for value in shown.terms)
    return (
        f"Transformer-XL's relative score of one query over offsets i − j = 0 to "
        f"{state.n_positions - 1} (d_model {state.d_model}, seed {state.seed}): for pos = "
        f"{state.pos} and pos + k = {state.second_pos}, i − j = {shown.distance}, (a) content "
        f"{a}, (b) content-position {b}, (c) content bias {c} and "
        f"(d) position bias {d} add up to {number(shown.total)}; (a) and (c) are the same at "
        "every offset"
    )


def data(state: ExplorerState) -> ChartData:
    """The four terms and the score at the offsets near |k|."""
    curves = score_terms(state)
    columns = {label: getattr(curves, name) for name, label, *_ in TERMS}
    return offset_curves_table(
        f"Transformer-XL's score terms near i − j = {abs(state.offset)} "
        f"(d_model {state.d_model}, seed {state.seed})",
        "i − j",
        {**columns, "score": curves.total},
        abs(state.offset),
    )


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

"""Transformer-XL (Dai et al. 2019): the four terms of the relative score against i − j."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import derived
from ..formula import MINUS
from ..plotkit import theme
from ..plotkit.charts import matrix_axis, offset_label, panel_caption, titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, span_text, window
from ..plotkit.numbers import number
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


def numbers(state: ExplorerState) -> XLReadout:
    """The terms at |k|, read off the cached curves."""
    curves = derived.transformer_xl_curves(
        state.n_positions, state.d_model, float(state.base), state.seed
    )
    distance = abs(state.offset)
    position = curves.content_position + curves.position_bias
    return XLReadout(
        distance=distance,
        terms=tuple(float(getattr(curves, name)[distance]) for name, *_ in TERMS),
        total=float(curves.total[distance]),
        position_range=(float(position.min()), float(position.max())),
    )


def _number(value: float) -> str:
    return f"{value + 0.0:.6f}".replace("-", MINUS)


def readout(state: ExplorerState) -> str:
    """The four terms at i − j = |k| as a table, and what varies with the offset."""
    shown = numbers(state)
    a, b, c, d = shown.terms
    lines = [
        '<table class="pe-readouts">',
        f'<caption class="pe-xl-offset">The pair pos = {state.pos}, pos + k = '
        f"{state.second_pos} is i − j = |k| = {shown.distance} apart (the later one is the "
        "query i)</caption>",
        "<thead><tr><th>term of the score</th><th>value</th></tr></thead><tbody>",
    ]
    for (name, label, formula, _), value in zip(TERMS, shown.terms, strict=True):
        css = name.replace("_", "-")
        lines.append(
            f'<tr><td>{label}: {formula}</td><td class="pe-xl-{css}">{_number(value)}</td></tr>'
        )
    lines += [
        '<tr class="pe-current"><td>score A<sub>i,j</sub> = (a) + (b) + (c) + (d)</td>'
        f'<td class="pe-xl-total">{_number(shown.total)}</td></tr>',
        "</tbody></table>",
        f'<p class="pe-note">(a) and (c) read the key\'s content alone: they are the same at '
        "every offset. Only (b) + (d) = (q + v)·W<sub>R</sub>R<sub>i−j</sub> = "
        f'<span class="pe-xl-position">{_number(b + d)}</span> depends on i − j; over '
        f"0 … {state.n_positions - 1} it runs from {_number(shown.position_range[0])} to "
        f"{_number(shown.position_range[1])}. R is the sinusoid of the offset in the "
        "concatenated layout (all sines, then all cosines), as in the paper's code; q, u, v, "
        f"W<sub>R</sub> and the key are random (seed {state.seed}).</p>",
    ]
    return "".join(lines)


def figure(state: ExplorerState) -> dict:
    """Top: the four terms and their sum over i − j = 0 … n − 1, |k| marked. Below: R_{i−j}."""
    n, d, base, seed = state.n_positions, state.d_model, float(state.base), state.seed
    palette = theme.colours(state.theme)
    curves = derived.transformer_xl_curves(n, d, base, seed)
    shown = numbers(state)
    cells = derived.matrix_cells(n, d, base, "concatenated")
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": curves.offsets,
            "y": getattr(curves, name),
            "line": {"color": colour, "width": 1.5, "dash": "dash" if "bias" in name else "solid"},
            # The legend gives the formula, short enough for a phone; the hover names the term.
            "name": f"{label.split()[0]} {formula}",
            "hovertemplate": f"{label}<br>i − j = %{{x}}: %{{y:.6f}}<extra></extra>",
        }
        for name, label, formula, colour in TERMS
    ]
    traces += [
        {
            "type": "scatter",
            "mode": "lines",
            "x": curves.offsets,
            "y": curves.total,
            "line": {"color": palette["text"], "width": 2.5},
            "name": "score (the sum)",
            "hovertemplate": "score<br>i − j = %{x}: %{y:.6f}<extra></extra>",
        },
        {
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
        },
        {
            "type": "heatmap",
            "x": cells.columns,
            "y": cells.rows,
            "z": cells.z,
            "xaxis": "x2",
            "yaxis": "y2",
            "zmin": -1.0,
            "zmid": 0.0,
            "zmax": 1.0,
            "colorscale": theme.DIVERGING_SCALE,
            "colorbar": theme.colorbar(
                x=1.07,
                y=sum(SINUSOID_DOMAIN) / 2,
                len=SINUSOID_DOMAIN[1] - SINUSOID_DOMAIN[0],
                thickness=10,
                title={"text": "R"},
            ),
            "showlegend": False,
            "name": "R_(i−j)",
            "hovertemplate": "i − j = %{y}, dimension %{x}<br>R = %{z:.4f}<extra></extra>",
        },
    ]
    half = d // 2
    shapes = [
        {
            "type": "line",
            "xref": "x",
            "yref": "y domain",
            "x0": shown.distance,
            "x1": shown.distance,
            "y0": 0,
            "y1": 1,
            "line": {"color": palette["second"], "width": 2, "dash": "dot"},
            "name": "i − j = |k|",
        },
        {
            "type": "rect",
            "xref": "x2",
            "yref": "y2",
            "x0": -0.5,
            "x1": d - 0.5,
            "y0": shown.distance - cells.row_stride / 2,
            "y1": shown.distance + cells.row_stride / 2,
            "line": {"color": palette["second"], "width": 2},
            "fillcolor": "rgba(0,0,0,0)",
            "name": "R_|k|",
        },
        {
            # Sines on the left half, cosines on the right: the concatenated layout.
            "type": "line",
            "xref": "x2",
            "yref": "y2 domain",
            "x0": half - 0.5,
            "x1": half - 0.5,
            "y0": 0,
            "y1": 1,
            "line": {"color": palette["text"], "width": 1, "dash": "dash"},
            "name": "sines | cosines",
        },
    ]
    reduced = cells.title_note(n, d).replace("<br><sub>", " · ").replace("</sub>", "")
    annotations = [
        panel_caption(
            f"<b>R<sub>i−j</sub></b>, d<sub>model</sub> = {d}: sines, then cosines{reduced}",
            0.0,
            SINUSOID_DOMAIN[1] + 0.01,
        ),
        {
            "text": f"◀ R<sub>{shown.distance}</sub>",
            "xref": "x2",
            "yref": "y2",
            "x": d - 0.5,
            "y": shown.distance,
            "xanchor": "left",
            "showarrow": False,
            "font": {"size": 12, "color": palette["second"]},
        },
        offset_label(
            f"i − j = {shown.distance}", shown.distance, palette["second"], "x", "y domain"
        ),
    ]
    title = f"Transformer-XL: the score's four terms over i − j = 0 … {n - 1}"
    layout = titled_layout(state, f"xl-{n}-{d}", title)
    layout.update(
        margin={"l": 64, "r": 40, "t": 60, "b": 48},
        legend={"orientation": "h", "x": 0, "y": CURVES_DOMAIN[0] - 0.08, "yanchor": "top"},
        xaxis=theme.axis(
            state.theme, domain=[0.0, 1.0], anchor="y", title={"text": "offset i − j"}
        ),
        yaxis=theme.axis(state.theme, domain=CURVES_DOMAIN, anchor="x", title={"text": "term"}),
        xaxis2=matrix_axis(state, "dimension", domain=[0.0, 1.0], anchor="y2"),
        yaxis2=matrix_axis(
            state, "i − j", domain=SINUSOID_DOMAIN, anchor="x2", autorange="reversed"
        ),
        shapes=shapes,
        annotations=annotations,
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the four terms and the score at i − j = |k|."""
    shown = numbers(state)
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
    curves = derived.transformer_xl_curves(
        state.n_positions, state.d_model, float(state.base), state.seed
    )
    offsets = window(abs(state.offset), state.n_positions, DATA_ROWS)
    return ChartData(
        caption=f"Transformer-XL's score terms near i − j = {abs(state.offset)} "
        f"(d_model {state.d_model}, seed {state.seed})",
        columns=("i − j", *(label for _, label, *_ in TERMS), "score"),
        rows=tuple(
            (i, *(getattr(curves, name)[i] for name, *_ in TERMS), curves.total[i]) for i in offsets
        ),
        note=f"Offsets {span_text(offsets)} of 0–{state.n_positions - 1} shown.",
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

"""A learned position table (GPT-2's wpe, say) beside the sinusoidal table of the same size.

The visitor's file is read by the checker's validated reader (diagnosis.MATRIX_UPLOAD) and
analysed by components/learned.py; it is the view's own, never URL state. Both tables are drawn
as heatmaps, as T·Tᵀ (or cosine similarities), and as a trajectory on their top principal
components, in 2D or 3D; the readout compares rows pos and pos + k of each.
"""

from __future__ import annotations

import html
import math

import numpy as np
import panel as pn
import param

from .. import derived
from .. import diagnosis as diagnose
from .. import learned as analysis
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import panel_caption, panel_heatmap, titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.numbers import DATA_DIGITS, number, numbers_of, signed
from ..plotkit.upload import UploadView, box_style, file_input, input_button, labelled_choice
from ..state import ExplorerState

ACCEPT = ".npy,.csv,.txt,.tsv"
PROJECTIONS = ("2D", "3D")
# A learned table's colours saturate at this quantile of |value|: a few outlying dimensions
# (GPT-2's wpe has some) would otherwise wash every other cell out to white.
COLOUR_QUANTILE = 0.99
# Longest file name shown; the rest is cut with an ellipsis.
MAX_NAME_CHARS = 60
# Panels: the learned table on the left, the sinusoidal one on the right; from the top, the
# matrices, their T·Tᵀ and their principal components.
LEFT, RIGHT = [0.0, 0.46], [0.54, 1.0]
MATRIX_ROW, GRAM_ROW, PCA_ROW = [0.76, 1.0], [0.44, 0.67], [0.0, 0.35]
# Viridis (plotly.js's stops), spelled out because figures skip plotly.py's validation, which
# would turn the name into these stops.
POSITION_SCALE = [
    [0.0, "#440154"],
    [0.1111111111111111, "#482878"],
    [0.2222222222222222, "#3e4989"],
    [0.3333333333333333, "#31688e"],
    [0.4444444444444444, "#26828e"],
    [0.5555555555555556, "#1f9e89"],
    [0.6666666666666666, "#35b779"],
    [0.7777777777777778, "#6ece58"],
    [0.8888888888888888, "#b5de2b"],
    [1.0, "#fde725"],
]
SIMILARITY_NAMES = {"dot": "dot products", "cosine": "cosine similarities"}

STYLE = (
    box_style("pe-learned-status", "pe-learned")
    + """
.pe-learned-status code { overflow-wrap: anywhere; }
p.pe-learned-privacy { margin: 0.3em 0; font-size: 0.9em; line-height: 1.4; }
"""
)

READOUT_STYLE = theme.READOUT_TABLE_STYLE
# Decimals of the rows' dot products, cosines and distances in the readout.
ROW_DIGITS = 6
# What stands in a field's place while a text is written for the picks (filled): no text
# holds it.
MARK = "\x00"

PRIVACY = (
    '<p class="pe-learned-privacy">No weights come with the site. On the static site the file '
    "is read in your browser and never leaves it; under <code>panel serve</code> it goes to that "
    f"server, which applies the same cap: {html.escape(diagnose.SIZE_CAP)}.</p>"
)


def shown_name(table: analysis.LearnedTable) -> str:
    """The table's name as the page shows it (plain text, cut to MAX_NAME_CHARS; a NUL, which
    the picks' texts use as their mark, shown as U+FFFD)."""
    name = table.name.replace(MARK, "\ufffd") if table.name else "your table"
    return name if len(name) <= MAX_NAME_CHARS else name[: MAX_NAME_CHARS - 1] + "…"


def table_size(state: ExplorerState, table: analysis.LearnedTable | None) -> tuple[int, int]:
    """(positions, dimensions) of the learned table, or of the state before any: at least the
    MIN_POSITIONS rows that principal components need (the description says how many)."""
    if table is not None:
        return table.shape
    return max(state.n_positions, analysis.MIN_POSITIONS), state.d_model


def sinusoidal_side(state: ExplorerState, table: analysis.LearnedTable | None):
    """(matrix, principal components) of the sinusoidal table beside the learned one: the same
    positions, the same width or one more (an odd width has no whole sin/cos pairs)."""
    n_positions, d_model = table_size(state, table)
    width = analysis.sinusoidal_width(d_model)
    base = float(state.base)
    matrix = derived.sinusoidal_table(n_positions, width, base, state.layout)
    return matrix, derived.sinusoidal_components(n_positions, width, base)


def comparisons(state: ExplorerState, table: analysis.LearnedTable | None):
    """Rows pos and pos + k of the learned table (None before any) and of the sinusoidal one."""
    matrix, _ = sinusoidal_side(state, table)
    learned = None
    if table is not None:
        learned = analysis.compare_rows(table.values, state.pos, state.offset)
    return learned, analysis.compare_rows(matrix, state.pos, state.offset)


# ---- The figure -------------------------------------------------------------------------------


def figure(
    state: ExplorerState, table: analysis.LearnedTable | None = None, projection: str = "2D"
) -> dict:
    """Learned (left) and sinusoidal (right): each table, its T·Tᵀ and its principal-component
    trajectory; before any table, the sinusoidal side alone and a prompt on the left."""
    n_positions, d_model = table_size(state, table)
    matrix, components = sinusoidal_side(state, table)
    _, compared = comparisons(state, table)
    palette = theme.colours(state.theme)
    layout = titled_layout(state, f"learned-{n_positions}-{d_model}-{projection}", "", 14)
    traces, images, annotations, notes = [], [], [], []
    if table is None:
        # Alone, the sinusoidal side takes the whole width.
        sides = [("sinusoidal", [0.0, 1.0], 1, matrix, components)]
    else:
        sides = [
            ("learned", LEFT, 1, table.values, table.components),
            ("sinusoidal", RIGHT, 2, matrix, components),
        ]
    stride = derived.panel_stride(n_positions, matrix.shape[1])
    for side, columns, first_axis, values, side_components in sides:
        cells = derived.panel_cells(values, stride, state.layout if side == "sinusoidal" else None)
        gram_rows, gram = derived.panel_gram(values, state.similarity)
        gram = gram.astype(np.float32)
        suffix = "" if first_axis == 1 else str(first_axis)
        traces.append(_matrix_trace(cells, side, suffix))
        traces.append(_gram_trace(gram_rows, gram, state.similarity, side, str(first_axis + 2)))
        traces += _pca_traces(side_components, projection, side, first_axis, palette, compared)
        images += _row_marks(compared, _half(cells.rows), suffix, palette)
        images.append(_cell_mark(compared, _half(gram_rows), str(first_axis + 2), palette["pos"]))
        kind = side if table is None or side == "sinusoidal" else _kind(table)
        annotations += _captions(kind, columns, cells, gram, state.similarity, side_components)
        # Beside a learned table the sinusoidal one shares its position axes (zoom one, both
        # follow), so it needs no tick labels of its own.
        shared = side == "sinusoidal" and table is not None
        layout.update(_axes(state, columns, first_axis, projection, shared=shared))
        if side == "sinusoidal":
            notes += _reduction_notes(values, cells, gram_rows)
    title = _title(state, table, n_positions, d_model, matrix.shape[1], notes)
    # From the top down, so that its lines never reach the captions under it.
    layout["title"].update(text=title, yref="container", y=1.0, yanchor="top", pad={"t": 10})
    layout.update(
        images=images,
        annotations=annotations,
        showlegend=False,
        margin={"l": 56, "r": 64, "t": 56 + 22 * title.count("<br>"), "b": 48},
    )
    return {"data": traces, "layout": layout}


def _kind(table: analysis.LearnedTable) -> str:
    return "synthetic" if table.synthetic else "learned"


def _title(state, table, n_positions: int, d_model: int, width: int, notes: list[str]) -> str:
    base = f"base {float(state.base):g}"
    if table is None:
        title = (
            f"The sinusoidal table, {n_positions} × {d_model}, {base}<br><sub>No learned table "
            "yet: choose a file above, or try the synthetic example</sub>"
        )
    else:
        name = "Synthetic example, not GPT-2" if table.synthetic else html.escape(shown_name(table))
        title = f"{name} ({n_positions} × {d_model})<br>beside the sinusoidal table ({base})"
        if width != d_model:
            notes.insert(0, f"odd width: the sinusoidal table has {width} dimensions")
    if notes:
        title += "<br><sub>" + "; ".join(notes) + "</sub>"
    return title


def _reduction_notes(values: np.ndarray, cells: derived.PanelCells, gram_rows) -> list[str]:
    """What the panels leave out of a large table, for the title (both sides have its rows)."""
    n_positions, d_model = values.shape
    notes = []
    rows, columns = cells.rows.size, cells.columns.size
    if rows * columns < n_positions * d_model:
        notes.append(f"tables: {rows} × {columns} cells drawn")
    if gram_rows.size < n_positions:
        notes.append(f"products: {gram_rows.size} positions drawn")
    return notes


def colour_limit(side: str, z: np.ndarray) -> float:
    """Where a table's colours saturate: ±1 for the sinusoidal one, the COLOUR_QUANTILE of the
    shown |value| for a learned one."""
    return 1.0 if side == "sinusoidal" else derived.saturation_limit(z, COLOUR_QUANTILE)


def _matrix_trace(cells: derived.PanelCells, side: str, suffix: str) -> dict:
    limit = colour_limit(side, cells.z)
    hover = "pos %{y}, dim %{x}<br>%{z:.4f}<extra>%{fullData.name}</extra>"
    return panel_heatmap(cells.columns, cells.rows, cells.z, limit, suffix, f"{side} table", hover)


def gram_limit(gram: np.ndarray, similarity: str) -> float:
    """Where T·Tᵀ's colours saturate: ±1 for cosines, the largest finite |product| for dots."""
    return 1.0 if similarity == "cosine" else derived.largest_finite(gram)


def _half(rows: np.ndarray) -> float:
    return 0.5 * (rows[1] - rows[0]) if rows.size > 1 else 0.5


def _gram_trace(rows, gram, similarity: str, side: str, suffix: str) -> dict:
    scale = gram_limit(gram, similarity)
    name = f"{side} {SIMILARITY_NAMES[similarity]}"
    hover = "i = %{y}, j = %{x}<br>%{z:.4f}<extra>%{fullData.name}</extra>"
    # An all-zero T·Tᵀ still gets a colour range (zmid = 0 keeps it symmetric).
    return panel_heatmap(rows, rows, gram, scale or 1.0, suffix, name, hover)


def _coordinates(components: analysis.PrincipalComponents, count: int) -> list[np.ndarray]:
    """The first count score columns (zeros for components the table does not have)."""
    scores = components.scores
    return [scores[:, c] if c < scores.shape[1] else np.zeros(len(scores)) for c in range(count)]


def _pca_place(projection: str, first_axis: int) -> dict:
    """The 3D scene, or the 2D axes, of one side's principal components."""
    if projection == "3D":
        return {"scene": "scene" if first_axis == 1 else "scene2"}
    return {"xaxis": f"x{first_axis + 4}", "yaxis": f"y{first_axis + 4}"}


def _pca_traces(components, projection: str, side: str, first_axis: int, palette, compared):
    """The trajectory coloured by position, and the rows pos and pos + k marked on it."""
    count = 3 if projection == "3D" else 2
    xyz = dict(zip("xyz", _coordinates(components, count), strict=False))
    place = _pca_place(projection, first_axis)
    trajectory = _trajectory(xyz, place, side, palette)
    marks = [
        _pca_mark(xyz, place, row, colour, label)
        for row, colour, label in (
            (compared.first, palette["pos"], "pos"),
            (compared.second, palette["second"], "pos + k"),
        )
    ]
    return [trajectory, *marks]


def _trajectory(xyz: dict, place: dict, side: str, palette) -> dict:
    """A side's rows on its top components, joined in order and coloured by position."""
    three = "z" in xyz
    positions = np.arange(len(xyz["x"]))
    hover = "pos %{customdata}<br>PC1 %{x:.4f}<br>PC2 %{y:.4f}" + (
        "<br>PC3 %{z:.4f}" if three else ""
    )
    trajectory = {
        "type": "scatter3d" if three else "scatter",
        "mode": "lines+markers",
        **{axis: values.astype(np.float32) for axis, values in xyz.items()},
        **place,
        "customdata": positions,
        "line": {"color": palette["grid"], "width": 1 if not three else 2},
        "marker": {
            "color": positions,
            "colorscale": POSITION_SCALE,
            "cmin": 0,
            "cmax": max(len(positions) - 1, 1),
            "size": 3 if three else 5,
            "showscale": side == "sinusoidal",
            **({} if three else {"line": {"color": palette["text"], "width": 0.6}}),
        },
        "name": f"{side} rows on PC1–PC{len(xyz)}",
        "hovertemplate": hover + "<extra>%{fullData.name}</extra>",
    }
    if side == "sinusoidal":
        trajectory["marker"]["colorbar"] = theme.colorbar(
            title={"text": "pos"},
            thickness=10,
            len=PCA_ROW[1] - PCA_ROW[0],
            y=PCA_ROW[0],
            yanchor="bottom",
            x=1.01,
        )
    return trajectory


def mark_name(label: str, row: str) -> str:
    """The name of the circle on a trajectory at row (printed): "pos = 7"."""
    return f"{label} = {row}"


def mark_hover(label: str, row: str) -> str:
    """The hover label of that circle."""
    return f"{mark_name(label, row)}<extra></extra>"


def _pca_mark(xyz: dict, place: dict, row: int, colour: str, label: str) -> dict:
    """The row pos or pos + k circled on the trajectory."""
    three = "z" in xyz
    return {
        "type": "scatter3d" if three else "scatter",
        "mode": "markers",
        **{axis: values[[row]].astype(np.float32) for axis, values in xyz.items()},
        **place,
        "marker": {
            "color": "rgba(0,0,0,0)",
            "size": 8 if three else 12,
            "line": {"color": colour, "width": 2},
        },
        "name": mark_name(label, str(row)),
        "hovertemplate": mark_hover(label, str(row)),
    }


# Each side's layout images, in order: rows pos and pos + k across its table, and the cell
# (pos, pos + k) of its T·Tᵀ. Images, not shapes: a moved shape makes Plotly redraw every
# heatmap, a moved image is only moved.
MARKS_PER_SIDE = 3
# Each side's traces, in order: its table, its T·Tᵀ, its trajectory, the circles pos and pos + k.
TRACES_PER_SIDE = 5


def _mark(colour: str, dash: str, name: str, axes: tuple[str, str], **place) -> dict:
    """A layout image outlining a box of a panel (theme.outline_source)."""
    xref, yref = axes
    return {
        "source": theme.outline_source(colour, "2 3" if dash == "dot" else ""),
        "xref": xref,
        "yref": yref,
        **place,
        "sizing": "stretch",
        "layer": "above",
        "name": name,
    }


def _row_marks(compared: analysis.RowComparison, half: float, suffix: str, palette) -> list:
    """Rows pos (solid) and pos + k (dotted) outlined across a table's heatmap, as tall as the
    rows it draws (half: half of that)."""
    return [
        _mark(
            colour,
            dash,
            name,
            (f"x{suffix} domain", f"y{suffix}"),
            x=0,
            y=row,
            sizex=1,
            sizey=2 * half,
            xanchor="left",
            yanchor="middle",
        )
        for row, colour, dash, name in (
            (compared.first, palette["pos"], "solid", "pos"),
            (compared.second, palette["second"], "dot", "pos + k"),
        )
    ]


def _cell_mark(compared: analysis.RowComparison, half: float, suffix: str, colour: str) -> dict:
    """The cell (pos, pos + k) of a T·Tᵀ outlined."""
    return _mark(
        colour,
        "solid",
        "pos, pos+k",
        (f"x{suffix}", f"y{suffix}"),
        x=compared.second,
        y=compared.first,
        sizex=2 * half,
        sizey=2 * half,
        xanchor="center",
        yanchor="middle",
    )


def _captions(kind: str, columns, cells, gram, similarity: str, components) -> list[dict]:
    """Short captions over one side's three panels (they must fit half a phone's width)."""
    limit = colour_limit(kind, cells.z)
    product = ("PE·PEᵀ" if kind == "sinusoidal" else "T·Tᵀ") if similarity == "dot" else "cosine"
    pca = " ".join(f"{number(100 * share, 0)}%" for share in components.explained)
    return [
        panel_caption(f"<b>{kind}</b> ±{limit:.3g}", columns[0], MATRIX_ROW[1]),
        panel_caption(
            f"<b>{product}</b> ±{gram_limit(gram, similarity):.3g}", columns[0], GRAM_ROW[1]
        ),
        panel_caption(f"<b>PCA</b> {pca}", columns[0], PCA_ROW[1]),
    ]


def _axes(state, columns, first_axis: int, projection: str, shared: bool = False) -> dict:
    """The layout's axes of one side: matrix, T·Tᵀ and the PCA's 2D axes or 3D scene.

    shared: the position axes match the learned side's and show no labels of their own.
    """
    axes = {}
    for offset, row, titles in (
        (0, MATRIX_ROW, ("dimension", "position")),
        (2, GRAM_ROW, ("position j", "position i")),
    ):
        panel = first_axis + offset
        suffix = "" if panel == 1 else str(panel)
        axes[f"xaxis{suffix}"] = theme.axis(
            state.theme,
            domain=columns,
            anchor=f"y{suffix}",
            showgrid=False,
            title={"text": titles[0]},
        )
        axes[f"yaxis{suffix}"] = theme.axis(
            state.theme,
            domain=row,
            anchor=f"x{suffix}",
            showgrid=False,
            autorange="reversed",
            title={"text": "" if shared else titles[1]},
        )
        if shared:
            partner = "" if offset == 0 else "3"
            axes[f"yaxis{suffix}"].update(matches=f"y{partner}", showticklabels=False)
            if offset == 2:
                axes[f"xaxis{suffix}"]["matches"] = "x3"
    if projection == "3D":
        axes["scene" if first_axis == 1 else "scene2"] = _scene(state, columns)
        return axes
    suffix = str(first_axis + 4)
    axes[f"xaxis{suffix}"] = theme.axis(
        state.theme, domain=columns, anchor=f"y{suffix}", title={"text": "PC1"}
    )
    axes[f"yaxis{suffix}"] = theme.axis(
        state.theme,
        domain=PCA_ROW,
        anchor=f"x{suffix}",
        title={"text": "PC2"},
        # Equal units: a flat trajectory looks flat (the shares say how much).
        scaleanchor=f"x{suffix}",
        constrain="domain",
    )
    return axes


def _scene(state: ExplorerState, columns) -> dict:
    palette = theme.colours(state.theme)
    axis = {
        "backgroundcolor": palette["plot"],
        "showbackground": True,
        "gridcolor": palette["grid"],
        "zerolinecolor": palette["grid"],
        "color": palette["text"],
        "nticks": 5,
        "tickfont": {"size": 10},
    }
    return {
        "domain": {"x": columns, "y": PCA_ROW},
        "xaxis": axis | {"title": {"text": "PC1"}},
        "yaxis": axis | {"title": {"text": "PC2"}},
        "zaxis": axis | {"title": {"text": "PC3"}},
        "aspectmode": "data",
        # Further out than Plotly's default, so the axis titles stay inside the panel.
        "camera": {"eye": {"x": 1.9, "y": 1.9, "z": 1.1}},
        "bgcolor": palette["plot"],
    }


# ---- Text: the accessible name, the readout, Show data and the code ---------------------------


def _shares(components: analysis.PrincipalComponents) -> str:
    shares = components.explained
    parts = ", ".join(f"PC{c + 1} {number(100 * share, 1)} %" for c, share in enumerate(shares))
    return f"{number(100 * shares.sum(), 1)} % of the variance ({parts})"


def printed(values, digits: int = DATA_DIGITS) -> list[str]:
    """Each value as the view prints it (plotkit.numbers.number), "undefined" for NaN (the
    cosine of an all-zero row)."""
    values = np.asarray(values, dtype=np.float64)
    undefined = np.isnan(values)
    texts = list(numbers_of(np.where(undefined, 0.0, values), digits))
    for index in np.flatnonzero(undefined).tolist():
        texts[index] = "undefined"
    return texts


def measures(comparison: analysis.RowComparison, digits: int, prefix: str = "") -> dict:
    """A comparison's dot product, cosine and distance, printed, named prefix + dot …"""
    values = (comparison.dot, comparison.cosine, comparison.distance)
    return dict(zip(MEASURES[prefix], printed(values, digits), strict=True))


# The names of the printed measures of the sinusoidal table ("") and of the learned one.
MEASURES = {
    "": ("dot", "cosine", "distance"),
    "learned_": ("learned_dot", "learned_cosine", "learned_distance"),
}
MOVED = " (moved into the table)"


def _rows_text(dot: str, cosine: str, distance: str) -> str:
    return f"dot {dot}, cosine {cosine}, distance {distance}"


def moved_note_of(pos: int, second_pos: int, n_positions: int, first: int, second: int) -> str:
    """What the view says when pos or pos + k lay beyond the table's rows and first and second
    are compared instead."""
    return (
        f"pos = {pos} and pos + k = {second_pos} do not both fit in the table's "
        f"{n_positions} rows: rows {first} and {second} are compared"
    )


def moved_note(state: ExplorerState, comparison: analysis.RowComparison, n_positions: int) -> str:
    """What the view says when pos or pos + k lay beyond the table's rows ("" otherwise)."""
    if not comparison.moved:
        return ""
    first, second = comparison.first, comparison.second
    return moved_note_of(state.pos, state.second_pos, n_positions, first, second)


def note_html(note: str) -> str:
    """The moved note under the readout ("" without one)."""
    return f'<p class="pe-note pe-learned-moved">{html.escape(note)}.</p>' if note else ""


def described(state: ExplorerState, table: analysis.LearnedTable | None) -> dict:
    """What describe_of takes that moving pos or k leaves alone."""
    n_positions, d_model = table_size(state, table)
    _, components = sinusoidal_side(state, table)
    kind = None
    if table is not None:
        kind = (
            "A synthetic learned-like table (not GPT-2: a seeded random helix plus noise)"
            if table.synthetic
            else f"Learned table {shown_name(table)}"
        )
    shares = "" if table is None else _shares(table.components)
    return {
        "kind": kind,
        "n_positions": n_positions,
        "d_model": d_model,
        "base": f"{float(state.base):g}",
        "shares": (shares, _shares(components)),
    }


def describe_of(
    kind,
    n_positions,
    d_model,
    base,
    shares,
    *,
    first,
    second,
    moved,
    dot,
    cosine,
    distance,
    learned_dot="",
    learned_cosine="",
    learned_distance="",
) -> str:
    """The chart's accessible name from its parts (described) and its numbers printed: rows
    first and second compared (moved: MOVED when they were moved into the table, else ""), the
    sinusoidal table's measures and (kind not None) the learned one's."""
    rows = f"rows {first} and {second}"
    sinusoidal_text = (
        f"the sinusoidal table's top components explain {shares[1]}; {rows}{moved}: "
        f"{_rows_text(dot, cosine, distance)}"
    )
    if kind is None:
        return (
            f"No learned table given yet; the sinusoidal table of {n_positions} positions by "
            f"{d_model} dimensions, base {base}: {sinusoidal_text}"
        )
    learned_text = _rows_text(learned_dot, learned_cosine, learned_distance)
    return (
        f"{kind}, {n_positions} positions by {d_model} dimensions, beside "
        f"the sinusoidal table at base {base}: its top components explain "
        f"{shares[0]}, and {rows}{moved} have {learned_text}; {sinusoidal_text}"
    )


def describe(state: ExplorerState, table: analysis.LearnedTable | None = None) -> str:
    """The chart's accessible name: the variance the top components explain, and rows pos and
    pos + k of each table compared."""
    learned, sinusoidal = comparisons(state, table)
    return describe_of(
        **described(state, table),
        first=str(sinusoidal.first),
        second=str(sinusoidal.second),
        moved=MOVED if sinusoidal.moved else "",
        **measures(sinusoidal, DATA_DIGITS),
        **({} if learned is None else measures(learned, DATA_DIGITS, "learned_")),
    )


def side_names(table: analysis.LearnedTable | None) -> tuple[str, ...]:
    """The readout's name of each table, the learned one first."""
    if table is None:
        return ("sinusoidal",)
    return ("synthetic" if table.synthetic else "learned", "sinusoidal")


def variance_html(state: ExplorerState, table: analysis.LearnedTable | None) -> str:
    """The readout's table of the variance the top components explain, for both tables."""
    _, components = sinusoidal_side(state, table)
    sides = [components] if table is None else [table.components, components]
    lines = [
        '<table class="pe-readouts pe-learned-variance"><caption>Share of the variance '
        "explained by the top principal components</caption><thead><tr><th>table</th>"
        "<th>PC1</th><th>PC2</th><th>PC3</th><th>together</th></tr></thead><tbody>",
    ]
    for name, side_components in zip(side_names(table), sides, strict=True):
        shares = list(side_components.explained) + [math.nan] * (3 - side_components.explained.size)
        cells = "".join(
            f"<td>{'–' if math.isnan(share) else f'{number(100 * share, 2)} %'}</td>"
            for share in shares
        )
        lines.append(
            f'<tr class="pe-learned-{name}-variance"><td>{name}</td>{cells}'
            f"<td>{number(100 * side_components.explained.sum(), 2)} %</td></tr>"
        )
    lines.append("</tbody></table>")
    return "".join(lines)


def readout_of(
    names,
    variance,
    *,
    first,
    second,
    offset,
    note,
    dot,
    cosine,
    distance,
    learned_dot="",
    learned_cosine="",
    learned_distance="",
) -> str:
    """The readout from its parts (side_names, variance_html) and its numbers printed: rows
    first and second = first + offset compared in each table, and the moved note (note_html)."""
    caption = f"Rows pos = {first} and pos + k = {second} (k = {offset})"
    lines = [
        '<table class="pe-readouts pe-learned-rows">',
        f'<caption class="pe-learned-caption">{html.escape(caption)}</caption>',
        "<thead><tr><th>table</th><th>dot product</th><th>cosine similarity</th>"
        "<th>Euclidean distance</th></tr></thead><tbody>",
    ]
    # The learned table's row first, when there is one.
    rows = [(learned_dot, learned_cosine, learned_distance)] * (len(names) - 1)
    for name, row in zip(names, [*rows, (dot, cosine, distance)], strict=True):
        cells = "".join(f"<td>{cell}</td>" for cell in row)
        lines.append(f'<tr class="pe-learned-{name}"><td>{name}</td>{cells}</tr>')
    lines += ["</tbody></table>", variance, note]
    return "".join(lines)


def readout(state: ExplorerState, table: analysis.LearnedTable | None = None) -> str:
    """Rows pos and pos + k compared, and the variance explained, for both tables (numbers and
    escaped text only)."""
    n_positions, _ = table_size(state, table)
    learned, sinusoidal = comparisons(state, table)
    return readout_of(
        side_names(table),
        variance_html(state, table),
        first=str(sinusoidal.first),
        second=str(sinusoidal.second),
        offset=signed(sinusoidal.second - sinusoidal.first),
        note=note_html(moved_note(state, sinusoidal, n_positions)),
        **measures(sinusoidal, ROW_DIGITS),
        **({} if learned is None else measures(learned, ROW_DIGITS, "learned_")),
    )


def data(state: ExplorerState, table: analysis.LearnedTable | None = None) -> ChartData:
    """Each table's coordinates on its top principal components, for the rows around pos."""
    n_positions, _ = table_size(state, table)
    _, components = sinusoidal_side(state, table)
    _, sinusoidal = comparisons(state, table)
    rows = indices_near(sinusoidal.first, n_positions, DATA_ROWS)
    sides = [("sinusoidal", components)]
    if table is not None:
        sides.insert(0, ("synthetic" if table.synthetic else "learned", table.components))
    columns, values = ["pos"], []
    for name, side_components in sides:
        count = side_components.scores.shape[1]
        columns += [f"{name} PC{c + 1}" for c in range(count)]
        values.append(side_components.scores[list(rows)])
    matrix = np.concatenate(values, axis=1)
    return ChartData(
        caption="Coordinates of the rows around pos on each table's top principal components",
        columns=tuple(columns),
        rows=tuple((r, *matrix[index]) for index, r in enumerate(rows)),
        note=f"Rows {span_text(rows)} of {n_positions} shown. A component's sign is a "
        "convention (its direction's largest entry is made positive).",
    )


def code(state: ExplorerState) -> str:
    """A NumPy script: the sinusoidal table of a learned table's size, both tables' principal
    components, and rows pos and pos + k compared (results[name] holds the numbers)."""
    sin_cols, cos_cols = ("0::2", "1::2") if state.layout == "interleaved" else (":half", "half:")
    return f'''import numpy as np

# Your learned table, positions × dimensions; GPT-2's, saved from a notebook with
# np.save("wpe.npy", model.transformer.wpe.weight.detach().numpy())
table = np.load("wpe.npy").astype(np.float64)
n_positions, d_model = table.shape
base, pos, k = {float(state.base)!r}, {state.pos}, {state.offset}

# The sinusoidal table of the same size ({state.layout} layout); sine and cosine come in pairs,
# so an odd width is compared with one more dimension.
width = d_model + d_model % 2
half = width // 2
omega = base ** (-np.arange(0, width, 2) / width)
angle = np.arange(n_positions)[:, None] * omega
sinusoidal = np.empty((n_positions, width))
sinusoidal[:, {sin_cols}], sinusoidal[:, {cos_cols}] = np.sin(angle), np.cos(angle)


def principal_components(t, count=3):
    """Top principal directions of the rows, each row's coordinates, and the variance shares."""
    centred = t - t.mean(axis=0)
    count = min(count, len(t) - 1, t.shape[1])
    eigenvalues, vectors = np.linalg.eigh(centred.T @ centred)
    directions = vectors[:, np.argsort(eigenvalues)[::-1][:count]].T
    # A direction's sign is a convention: make its largest entry positive.
    largest = np.argmax(np.abs(directions), axis=1)
    directions *= np.sign(directions[np.arange(count), largest])[:, None]
    scores = centred @ directions.T
    return scores, (scores**2).sum(axis=0) / (centred**2).sum()


# pos and pos + k, moved into the table's rows when beyond them (the offset kept if it fits).
last = n_positions - 1
k = min(max(k, -last), last)
pos = min(max(pos, max(0, -k)), min(last, last - k))

results = {{}}
for name, t in (("learned", table), ("sinusoidal", sinusoidal)):
    scores, explained = principal_components(t)
    u, v = t[pos], t[pos + k]
    results[name] = {{
        "explained": explained,
        "scores": scores,
        "dot": u @ v,
        "cosine": u @ v / (np.linalg.norm(u) * np.linalg.norm(v)),
        "distance": np.linalg.norm(u - v),
    }}
    shares = ", ".join(f"{{100 * share:.2f}} %" for share in explained)
    print(f"{{name}}: top components explain {{shares}}; rows {{pos}} and {{pos + k}}: "
          f"dot {{u @ v:.6f}}, cosine {{results[name]['cosine']:.6f}}, "
          f"distance {{results[name]['distance']:.6f}}")
'''


# ---- The view ---------------------------------------------------------------------------------


class LearnedView(UploadView):
    """A file input and an example button for a learned table; both tables drawn side by side.

    The table is the visitor's own and is not URL state (a link never carries it). The figure
    follows the state (pos, k, base, layout, similarity, theme) and the card's 2D/3D toggle.
    """

    projection = param.Selector(
        default="2D",
        objects=list(PROJECTIONS),
        doc="The principal-component trajectory in 2D (PC1, PC2) or 3D (PC1–PC3).",
    )

    def __init__(self, **params):
        self._example = input_button("Try a synthetic example", "pe-learned-example", 220)
        self._clear = input_button("Clear", "pe-learned-clear", 90, visible=False)
        super().__init__(
            file=file_input(
                "A file of your learned table (.npy, .csv, .txt or .tsv)",
                ACCEPT,
                "pe-learned-file",
            ),
            **params,
        )
        self._projection = self.choice("projection", "Trajectory", "pe-learned-projection")
        self._example.on_click(lambda event: self.load_example())
        self._clear.on_click(lambda event: self.clear())

    def extra_panes(self) -> list:
        """The status (drawn above the plot, see content) and the readout (below it)."""
        self._status = self.text_pane(STYLE, css_class="pe-learned-status-pane")
        self._readout = self.text_pane(READOUT_STYLE, css_class="pe-learned-readout")
        return [self._status, self._readout]

    def update_extras(self) -> None:
        result = self.result()
        table = result if isinstance(result, analysis.LearnedTable) else None
        self._status.object = status_html(result)
        self._readout.object = readout(self.state, table)
        self._clear.visible = result is not None

    def picks(self) -> picks_kit.Picks | None:
        # The visitor's table and the trajectory's projection are the view's own.
        return picks(self.state, self.table(), self.projection)

    def table(self) -> analysis.LearnedTable | None:
        result = self.result()
        return result if isinstance(result, analysis.LearnedTable) else None

    def figure(self) -> dict:
        # The module's figure (a method's name does not hide it).
        drawn = figure(self.state, self.table(), self.projection)
        drawn["layout"].setdefault("height", self.spec.plot_height)
        return drawn

    def description(self) -> str:
        return describe(self.state, self.table())

    def data_table(self) -> ChartData:
        return data(self.state, self.table())

    def result(self) -> analysis.LearnedTable | diagnose.MatrixError | None:
        """The visitor's table, checked and analysed once per source (MatrixError for bad
        input; None before any)."""
        return self.once_per(self._source, self._load)

    def _load(self):
        if self._source is None:
            return None
        if self._source[0] == "example":
            return analysis.learned_table(
                analysis.synthetic_table(), analysis.SYNTHETIC_NAME, synthetic=True
            )
        try:
            return analysis.learned_table(self.read_input(diagnose.MATRIX_UPLOAD), self._source[2])
        except diagnose.MatrixError as error:
            return error

    def load_example(self) -> None:
        """Show the synthetic example table."""
        self.use_source(("example",))

    def clear(self) -> None:
        """Back to the sinusoidal table alone."""
        self.use_source(None)

    def content(self) -> pn.Column:
        inputs = self.inputs(
            "A learned position table, positions × dimensions: a .npy or .csv file",
            pn.FlexBox(self._example, self._clear, flex_wrap="wrap", align_items="center"),
            labelled_choice("Trajectory", self._projection),
            note=PRIVACY,
            style=STYLE,
        )
        below = (self._readout, self._data)
        return self.column(inputs, self._status, *below, css_class="pe-learned")


def status_html(result) -> str:
    """What was loaded, or why not, or the prompt; every piece of visitor text escaped."""
    if result is None:
        return (
            '<div class="pe-learned-status"><p>No learned table yet: choose a .npy or .csv file '
            'of positions × dimensions (for GPT-2: <code>np.save("wpe.npy", '
            "model.transformer.wpe.weight.detach().numpy())</code>), or try the synthetic "
            "example. Until then the sinusoidal table is drawn alone.</p></div>"
        )
    if isinstance(result, diagnose.MatrixError):
        return (
            '<div class="pe-learned-status pe-learned-error"><p>Not loaded: '
            f"{html.escape(str(result))}</p></div>"
        )
    n_positions, d_model = result.shape
    width = analysis.sinusoidal_width(d_model)
    odd = (
        f" Its width is odd, so the sinusoidal table beside it has {width} dimensions "
        "(sine and cosine come in pairs)."
        if width != d_model
        else ""
    )
    if result.synthetic:
        what = (
            f"<b>A synthetic example, not GPT-2</b>: {n_positions} positions × {d_model} "
            "dimensions made up here, a seeded random helix plus noise. It shows what the views "
            "do with a learned-like table; it says nothing about any real model."
        )
    else:
        what = (
            f"Loaded <b>{html.escape(shown_name(result))}</b>: {n_positions} positions × "
            f"{d_model} dimensions, rows read as positions."
        )
    return f'<div class="pe-learned-status"><p>{what}{odd}</p></div>'


# ---- What a drag of pos or k changes (plotkit/picks.py) ---------------------------------------


def filled(count: int, write, **fields) -> picks_kit.Text:
    """write(**fields) at each of count values, as a Text: a field is one string, or a sequence
    of count strings. write runs once, with a mark in each field's place: no text is parsed."""
    pieces = write(**{name: f"{MARK}{name}{MARK}" for name in fields}).split(MARK)
    items: list = [pieces[0]]
    for name, after in zip(pieces[1::2], pieces[2::2], strict=True):
        items += [fields[name], after]
    return picks_kit.joined(count, *items)


def _each(texts: list[str], at: np.ndarray) -> list[str]:
    """texts[at[v]] at each value v."""
    return [texts[index] for index in at.tolist()]


def _measure_fields(sides_measures, digits: int, at: np.ndarray) -> dict:
    """Each table's measures (compare_row_pairs of the distinct pairs), printed, at each value;
    named as measures names them (the learned table's first, when there is one)."""
    prefixes = ["learned_"] * (len(sides_measures) - 1) + [""]
    fields = {}
    for prefix, values in zip(prefixes, sides_measures, strict=True):
        for name, measure in zip(MEASURES[prefix], values, strict=True):
            fields[name] = _each(printed(measure, digits), at)
    return fields


def axis_updates(
    state: ExplorerState,
    table: analysis.LearnedTable | None,
    moved: picks_kit.Moved,
    sides: list,
    coordinates: int,
) -> list:
    """The circles on the trajectories, the outlines, the chart's name and the readout at each
    value of one axis (sides: each table's values; the circles' coordinates: picks' tables)."""
    n_positions, _ = table_size(state, table)
    count = moved.count
    firsts, seconds, shifted = analysis.rows_within(n_positions, moved.firsts, moved.offsets)
    # Each distinct pair of rows is compared and printed once.
    distinct, at = np.unique(firsts * n_positions + seconds, return_inverse=True)
    at = at.ravel()
    pairs = (distinct // n_positions, distinct % n_positions)
    sides_measures = [analysis.compare_row_pairs(values, *pairs) for values in sides]
    rows = {"first": picks_kit.whole(firsts), "second": picks_kit.whole(seconds)}
    label = filled(
        count,
        lambda **fields: describe_of(**described(state, table), **fields),
        **rows,
        moved=[MOVED if value else "" for value in shifted.tolist()],
        **_measure_fields(sides_measures, DATA_DIGITS, at),
    )
    notes = {}
    for index in np.flatnonzero(shifted).tolist():
        where = (int(moved.firsts[index]), int(moved.seconds[index]), firsts[index], seconds[index])
        notes[index] = note_html(moved_note_of(where[0], where[1], n_positions, *where[2:]))
    shown_offsets = (seconds - firsts)[np.unique(at, return_index=True)[1]]
    names, variance = side_names(table), variance_html(state, table)
    text = filled(
        count,
        lambda **fields: readout_of(names, variance, **fields),
        **rows,
        offset=_each([signed(k) for k in shown_offsets.tolist()], at),
        note=[notes.get(index, "") for index in range(count)],
        **_measure_fields(sides_measures, ROW_DIGITS, at),
    )
    updates = [
        picks_kit.Update("label", text=label),
        picks_kit.Update("pane", "pe-learned-readout", text=text),
    ]
    for side in range(len(sides)):
        updates += _side_updates(side, firsts, seconds, coordinates, count)
    return updates


def _side_updates(side: int, firsts, seconds, coordinates: int, count: int) -> list:
    """One table's circles (traces of its pca_rows) and outlines (its images) at each value."""
    image = MARKS_PER_SIDE * side
    updates = [
        picks_kit.Update("layout", f"images[{image}].y", each=firsts.astype(np.float64)),
        picks_kit.Update("layout", f"images[{image + 1}].y", each=seconds.astype(np.float64)),
        picks_kit.Update("layout", f"images[{image + 2}].x", each=seconds.astype(np.float64)),
        picks_kit.Update("layout", f"images[{image + 2}].y", each=firsts.astype(np.float64)),
    ]
    # A side's traces: its table, its T·Tᵀ, its trajectory, then the circles pos and pos + k.
    for trace, label, rows in (
        (TRACES_PER_SIDE * side + 3, "pos", firsts),
        (TRACES_PER_SIDE * side + 4, "pos + k", seconds),
    ):
        row = picks_kit.whole(rows)
        updates += [
            picks_kit.Update("trace", axis, trace, rows=pca_rows(side, axis), index=rows)
            for axis in "xyz"[:coordinates]
        ]
        updates += [
            picks_kit.Update(
                "trace", "name", trace, text=filled(count, mark_name, label=label, row=row)
            ),
            picks_kit.Update(
                "trace",
                "hovertemplate",
                trace,
                text=filled(count, mark_hover, label=label, row=row),
            ),
        ]
    return updates


def pca_rows(side: int, axis: str) -> str:
    """The name of the table of a side's coordinates along axis (x: PC1 …) as drawn."""
    return f"side{side}-{axis}"


def picks(
    state: ExplorerState, table: analysis.LearnedTable | None = None, projection: str = "2D"
) -> picks_kit.Picks:
    """What a drag of pos or k moves: the circles pos and pos + k on each trajectory (rows of
    each side's coordinates, float32 as drawn), the rows and the cell outlined, the chart's
    name and the readout; from the visitor's table when there is one."""
    matrix, components = sinusoidal_side(state, table)
    sides = (
        [(matrix, components)]
        if table is None
        else [(table.values, table.components), (matrix, components)]
    )
    coordinates = 3 if projection == "3D" else 2
    tables = {}
    for side, (_, side_components) in enumerate(sides):
        for axis, values in zip("xyz", _coordinates(side_components, coordinates), strict=False):
            drawn = values.astype(np.float32).astype(np.float64)
            tables[pca_rows(side, axis)] = drawn[:, None]
    values = [side_values for side_values, _ in sides]
    axes = tuple(
        moved.picks(axis_updates(state, table, moved, values, coordinates))
        for moved in picks_kit.moved_positions(state)
    )
    return picks_kit.Picks(tables, axes)

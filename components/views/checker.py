"""Check your implementation: a learner's PE matrix against the reference and the usual mistakes.

The check itself is components/diagnosis.py (the same function a teacher calls in a notebook);
this view reads the visitor's file or pasted numbers, shows the verdict as text, and draws the
evidence: their matrix, the reference and the difference, and both PE·PEᵀ.
"""

from __future__ import annotations

import html
import io

import numpy as np
import panel as pn
import param

from .. import derived
from .. import diagnosis as diagnose
from ..plotkit import theme
from ..plotkit.charts import matrix_axis, panel_caption, panel_heatmap, titled_layout
from ..plotkit.frame import DATA_COLUMNS, DATA_ROWS, ChartData, pe_table, span_text
from ..plotkit.numbers import number
from ..plotkit.subplots import Subplot, axis_names, compose, heatmap_axis
from ..plotkit.upload import UploadView, box_style, file_input, labelled_choice, paste_box
from ..state import ExplorerState

# Pasted text is for small matrices; larger ones come as a file (diagnose.SIZE_CAP).
MAX_PASTE_CHARS = 1 << 20
ACCEPT = ".npy,.csv,.txt,.tsv"
ROW_CHOICES = {"Detect": "auto", "Positions": "positions", "Dimensions": "dimensions"}
# The reference drawn before any matrix is given.
EXAMPLE_POSITIONS, EXAMPLE_D_MODEL = 32, 32

STYLE = (
    box_style("pe-checker-verdict", "pe-checker")
    + """
.pe-checker-cells { font-variant-numeric: tabular-nums; margin: 0.2em 0 0 1.2em; padding: 0; }
p.pe-checker-privacy { margin: 0.3em 0; font-size: 0.9em; line-height: 1.4; }
details.pe-checker-report pre { background: var(--pe-code-bg, #f6f8fa); padding: 0.6em 0.8em;
                                border-radius: 6px; overflow-x: auto; font-size: 0.85em; }
"""
)

PRIVACY = (
    '<p class="pe-checker-privacy">On the static site, Python runs in your browser: the file '
    "or numbers you give are read there and never leave it. Under <code>panel serve</code> they "
    f"go to that server, which applies the same cap: {html.escape(diagnose.SIZE_CAP)}.</p>"
)

EMPTY_VERDICT = (
    '<div class="pe-checker-verdict"><p>No matrix yet: choose a .npy or .csv file, or paste '
    "numbers (one row per position) and leave the box. The figure shows the reference it will "
    "be compared with, at base {base:g}.</p></div>"
)


def figure(state: ExplorerState, diagnosis: diagnose.Diagnosis | None = None) -> dict:
    """The evidence for a diagnosis; without one, the reference it will be compared with."""
    if diagnosis is None:
        return reference_figure(state)
    return evidence_figure(state, diagnosis)


def reference_figure(state: ExplorerState) -> dict:
    """The reference matrix at the state's base, before the visitor gives a matrix."""
    base = float(state.base)
    matrix = derived.reference_example(EXAMPLE_POSITIONS, EXAMPLE_D_MODEL, base)
    title = (
        f"The reference: base {base:g}, {EXAMPLE_POSITIONS} positions × "
        f"{EXAMPLE_D_MODEL} dimensions (interleaved). Give your matrix to compare."
    )
    layout = titled_layout(state, "checker-reference", title, 14)
    layout.update(
        xaxis=matrix_axis(state, "dimension"),
        yaxis=matrix_axis(state, "position", autorange="reversed"),
        margin={"l": 64, "r": 24, "t": 56, "b": 56},
    )
    positions, dimensions = np.arange(EXAMPLE_POSITIONS), np.arange(EXAMPLE_D_MODEL)
    trace = _matrix_trace(dimensions, positions, matrix, "reference")
    trace.update(showscale=True, colorbar=theme.colorbar(title={"text": "PE"}, thickness=12))
    return {"data": [trace], "layout": layout}


# Panels: the x domains of the three columns, and the y domains of the rows: the three matrices
# on top, both PE·PEᵀ and the spread of their diagonals below.
COLUMNS = ((0.0, 0.29), (0.355, 0.645), (0.71, 1.0))
TOP, BOTTOM = (0.56, 1.0), (0.0, 0.4)


def _heatmap_subplot(
    trace: dict, place: tuple[int, tuple[float, float]], caption: str, partner: int | None
) -> Subplot:
    """A panel of positions (rows) against dimensions or positions, at (column, y domain).

    partner: the panel (from 1) whose axes it shares, zooming with it; None for the panel that
    titles the position axis of its row.
    """
    column, y_domain = place
    x_title = "dimension" if y_domain == TOP else "position"
    if partner is None:
        x_axis = heatmap_axis(x_title)
        y_axis = heatmap_axis("position", autorange="reversed")
    else:
        x_name, y_name = axis_names(partner)
        x_axis = heatmap_axis(x_title, matches=x_name)
        y_axis = {"showgrid": False, "autorange": "reversed", "matches": y_name}
    x_domain = COLUMNS[column]
    return Subplot(
        traces=[trace],
        x_axis=x_axis,
        y_axis=y_axis,
        domain=(x_domain, y_domain),
        annotations=[panel_caption(caption, x_domain[0], y_domain[1])],
    )


def _difference_trace(cells: derived.EvidenceCells) -> dict:
    """theirs − ours, on a colour scale of its own out to the largest difference."""
    largest = derived.largest_finite(cells.difference) or 1.0
    return _matrix_trace(cells.columns, cells.rows, cells.difference, "theirs − ours") | {
        "zmin": -largest,
        "zmax": largest,
        "showscale": True,
        "colorbar": theme.colorbar(
            thickness=10, len=0.42, y=1.0, yanchor="top", title={"text": "diff"}
        ),
    }


def _spread_subplot(cells: derived.EvidenceCells) -> Subplot:
    """How far each diagonal k of both PE·PEᵀ is from constant, on a log axis."""
    x_domain = COLUMNS[2]
    return Subplot(
        traces=[
            _spread_trace(cells.offsets, cells.their_spread, "theirs", theme.PAIR_COLOURS[1]),
            _spread_trace(cells.offsets, cells.our_spread, "ours", theme.PAIR_COLOURS[0]),
        ],
        x_axis={"showgrid": False, "title": {"text": "k"}},
        y_axis={
            "showgrid": True,
            "type": "log",
            "title": {"text": "max − min"},
            "exponentformat": "power",
        },
        domain=(x_domain, BOTTOM),
        annotations=[panel_caption("spread along diagonal k of PE·PEᵀ", x_domain[0], BOTTOM[1])],
    )


def _marked_cells(diagnosis: diagnose.Diagnosis, state: ExplorerState) -> list[dict]:
    """The first difference and the worst cells circled on the difference panel (none when
    theirs matches exactly)."""
    marked = [diagnosis.first_difference] if diagnosis.first_difference else []
    marked += [cell for cell in diagnosis.worst_cells if cell not in marked]
    if not marked or diagnosis.max_abs_error == 0:
        return []
    x_name, y_name = axis_names(DIFFERENCE_PANEL)
    return [
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([cell.dimension for cell in marked]),
            "y": np.array([cell.position for cell in marked]),
            "xaxis": x_name,
            "yaxis": y_name,
            "marker": {
                "color": "rgba(0,0,0,0)",
                "size": 11,
                "line": {"color": theme.colours(state.theme)["pos"], "width": 2},
            },
            "name": "first difference and worst cells",
            "customdata": np.array([[cell.theirs, cell.ours] for cell in marked]),
            "hovertemplate": "pos %{y}, dim %{x}<br>theirs %{customdata[0]:.6g}<br>"
            "ours %{customdata[1]:.6g}<extra>%{fullData.name}</extra>",
        }
    ]


# The difference is the third panel; its marks are drawn last, over every panel's cells.
DIFFERENCE_PANEL = 3


def _evidence_title(diagnosis: diagnose.Diagnosis, cells: derived.EvidenceCells) -> str:
    n, d = diagnosis.n_positions, diagnosis.d_model
    title = (
        f"Theirs ({n} × {d}) against the reference (base {diagnosis.base:g}, {diagnosis.layout})"
    )
    if cells.reduced:
        title += (
            f"<br><sub>Reduced for display: {cells.rows.size} × {cells.columns.size} of "
            f"{n} × {d} cells, {cells.gram_rows.size} positions in PE·PEᵀ</sub>"
        )
    return title


def _matrix_subplots(diagnosis: diagnose.Diagnosis, cells: derived.EvidenceCells) -> list:
    """The top row: their matrix, the reference and the difference, zooming together."""
    rows, columns = cells.rows, cells.columns
    theirs = _matrix_trace(columns, rows, cells.theirs, "theirs")
    ours = _matrix_trace(columns, rows, cells.ours, "reference")
    difference = f"theirs − ours (max {diagnosis.max_abs_error:.2g})"
    return [
        _heatmap_subplot(theirs, (0, TOP), "theirs", None),
        _heatmap_subplot(ours, (1, TOP), "reference", 1),
        _heatmap_subplot(_difference_trace(cells), (2, TOP), difference, 1),
    ]


def _gram_subplots(diagnosis: diagnose.Diagnosis, cells: derived.EvidenceCells) -> list:
    """The bottom row: their PE·PEᵀ and the reference's, zooming together, and the spreads."""
    rows, scale = cells.gram_rows, diagnosis.d_model / 2
    theirs = _gram_trace(rows, cells.their_gram, scale, "their PE·PEᵀ")
    ours = _gram_trace(rows, cells.our_gram, scale, "reference PE·PEᵀ")
    toeplitz = "Toeplitz" if diagnosis.toeplitz else "not Toeplitz"
    return [
        _heatmap_subplot(theirs, (0, BOTTOM), f"their PE·PEᵀ ({toeplitz})", None),
        _heatmap_subplot(ours, (1, BOTTOM), "ours", 4),
        _spread_subplot(cells),
    ]


def evidence_figure(state: ExplorerState, diagnosis: diagnose.Diagnosis) -> dict:
    """Their matrix, the reference and the difference; below, both PE·PEᵀ and how far each of
    their diagonals is from constant."""
    cells = derived.evidence_cells(diagnosis)
    layout = theme.base_layout(
        state.theme, uirevision=f"checker-{diagnosis.n_positions}-{diagnosis.d_model}"
    )
    layout.update(
        title={"text": _evidence_title(diagnosis, cells), "x": 0, "font": {"size": 14}},
        showlegend=True,
        legend={"orientation": "h", "x": 0.71, "y": -0.1},
        margin={"l": 64, "r": 24, "t": 84 if cells.reduced else 64, "b": 64},
    )
    subplots = _matrix_subplots(diagnosis, cells) + _gram_subplots(diagnosis, cells)
    figure = compose(state, layout, subplots)
    figure["data"] += _marked_cells(diagnosis, state)
    return figure


def _matrix_trace(x, y, z, name: str) -> dict:
    hover = "pos %{y}, dim %{x}<br>%{z:.6g}<extra>%{fullData.name}</extra>"
    return panel_heatmap(x, y, np.asarray(z, dtype=np.float32), 1.0, "", name, hover)


def _gram_trace(rows, gram, scale: float, name: str) -> dict:
    hover = "i = %{y}, j = %{x}<br>PE(i)·PE(j) = %{z:.6g}<extra>%{fullData.name}</extra>"
    return panel_heatmap(rows, rows, gram, scale, "", name, hover)


def _spread_trace(offsets, spread, name: str, colour: str) -> dict:
    # A log axis cannot show 0: an exactly constant diagonal is drawn at 1e-17.
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "x": offsets,
        "y": np.maximum(spread, 1e-17),
        "line": {"color": colour, "width": 1.5},
        "marker": {"size": 4},
        "name": f"spread, {name}",
        "hovertemplate": "k = %{x}<br>max − min = %{y:.3g}<extra>%{fullData.name}</extra>",
    }


def verdict_html(result: diagnose.Diagnosis | diagnose.MatrixError | None, base: float) -> str:
    """The verdict and its numbers as HTML; every piece of text is escaped."""
    if result is None:
        return EMPTY_VERDICT.format(base=base)
    if isinstance(result, diagnose.MatrixError):
        return (
            '<div class="pe-checker-verdict pe-checker-error"><p>Not checked: '
            f"{html.escape(str(result))}</p></div>"
        )
    css = "pe-checker-match" if result.matches else "pe-checker-mistake"
    parts = [
        f'<div class="pe-checker-verdict {css}">',
        f"<p><b>{html.escape(result.verdict)}</b></p>",
    ]
    mistake = result.mistake
    if mistake is not None:
        explanation = mistake.explanation[0].upper() + mistake.explanation[1:]
        parts.append(f"<p>{html.escape(explanation)}. Fix: {html.escape(mistake.fix)}.</p>")
    parts.append(
        f"<p>{result.n_positions} positions × {result.d_model} dimensions "
        f"({html.escape(result.dtype)}), "
        f"rows are {result.rows_are}; max |theirs − ours| = {result.max_abs_error:.3g}; their "
        f"PE·PEᵀ {html.escape(result.toeplitz_sentence())}.</p>"
    )
    if result.first_difference is not None:
        parts.append(f"<p>First difference: {html.escape(str(result.first_difference))}.</p>")
    if result.worst_cells and not result.matches:
        parts.append('<p>Worst cells:</p><ul class="pe-checker-cells">')
        parts += [f"<li>{html.escape(str(cell))}</li>" for cell in result.worst_cells]
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def report_html(result) -> str:
    """The forum report in a closed <details>, escaped, when there is a diagnosis."""
    if not isinstance(result, diagnose.Diagnosis):
        return ""
    return (
        '<details class="pe-checker-report"><summary>Report to paste into a forum post'
        f"</summary><pre>{html.escape(result.report())}</pre></details>"
    )


class CheckerView(UploadView):
    """A file input and a text box for the visitor's matrix, the verdict and its evidence.

    The inputs are the visitor's own and are not URL state: the page never puts them in a link.
    The verdict follows the state's base (the reference's) and theme.
    """

    rows = param.Selector(
        default="auto",
        objects=list(ROW_CHOICES.values()),
        doc="What the rows of the visitor's matrix are; auto tries both.",
    )

    def __init__(self, **params):
        super().__init__(
            file=file_input(
                "A file of your matrix (.npy, .csv, .txt or .tsv)", ACCEPT, "pe-checker-file"
            ),
            text=paste_box(
                "Or paste numbers (one row per position; commas, spaces or a printed array)",
                "0, 1, 0, 1\n0.841471, 0.540302, 0.009999, 0.99995\n…",
                MAX_PASTE_CHARS,
                5,
                "pe-checker-text",
            ),
            **params,
        )
        self._rows = self.choice("rows", "Rows are", "pe-checker-rows", options=ROW_CHOICES)

    def extra_panes(self) -> list:
        """The verdict (drawn above the plot, see content) and the report (below it)."""
        self._verdict = self.text_pane(STYLE, css_class="pe-checker-verdict-pane")
        self._download = pn.widgets.FileDownload(
            callback=self._report_file,
            filename="pe-check-report.txt",
            label="Download the report (.txt)",
            color="default",
            width=240,
            visible=False,
            css_classes=["pe-checker-download"],
            margin=(4, 8),
        )
        self._report = self.text_pane(STYLE, (0, 8))
        return [self._verdict, self._report]

    def update_extras(self) -> None:
        result = self.result()
        self._verdict.object = verdict_html(result, float(self.state.base))
        self._report.object = report_html(result)
        self._download.visible = isinstance(result, diagnose.Diagnosis)

    def _report_file(self) -> io.StringIO:
        result = self.result()
        return io.StringIO(result.report() if isinstance(result, diagnose.Diagnosis) else "")

    def evidence(self, result) -> dict | None:
        if isinstance(result, diagnose.Diagnosis):
            return evidence_figure(self.state, result)
        return None

    def result(self) -> diagnose.Diagnosis | diagnose.MatrixError | None:
        """The diagnosis of the visitor's matrix at the state's base (MatrixError for bad input;
        None before any), computed once per input, rows choice and base."""
        return self.once_per((self._source, self.rows, float(self.state.base)), self._check)

    def _check(self):
        try:
            matrix = self.read_input(diagnose.MATRIX_UPLOAD)
            if matrix is None:
                return None
            return diagnose.diagnose(matrix, base=float(self.state.base), rows=self.rows)
        except diagnose.MatrixError as error:
            return error

    def content(self) -> pn.Column:
        inputs = self.inputs(
            "Your matrix, positions × d<sub>model</sub>: a .npy or .csv file",
            labelled_choice("Rows are", self._rows),
            note=PRIVACY,
            style=STYLE,
        )
        below = (self._data, self._download, self._report)
        return self.column(inputs, self._verdict, *below, css_class="pe-checker")


def describe(state: ExplorerState, result=None) -> str:
    """The chart's accessible name: the reference before any matrix, else the verdict."""
    if not isinstance(result, diagnose.Diagnosis):
        matrix = derived.reference_example(EXAMPLE_POSITIONS, EXAMPLE_D_MODEL, float(state.base))
        given = "not checked, " if isinstance(result, diagnose.MatrixError) else ""
        return (
            f"The reference PE matrix, base {state.base:g}, {EXAMPLE_POSITIONS} positions by "
            f"{EXAMPLE_D_MODEL} dimensions (interleaved), {given}no matrix of yours compared yet; "
            f"PE(1, 0) = {number(matrix[1, 0])}"
        )
    return (
        f"Your matrix, {result.n_positions} positions by {result.d_model} dimensions, against "
        f"the reference at base {result.base:g}: {result.verdict} Largest difference "
        f"{result.max_abs_error:.3g}"
    )


def data(state: ExplorerState, result=None) -> ChartData:
    """The first rows and columns of the visitor's matrix beside the reference's, or of the
    reference alone before any."""
    if isinstance(result, diagnose.Diagnosis):
        theirs, ours = result.theirs, result.reference
        rows = range(min(theirs.shape[0], DATA_ROWS))
        columns = range(min(theirs.shape[1], DATA_COLUMNS // 2))
        return ChartData(
            caption="Your matrix beside the reference, first rows and dimensions",
            columns=(
                "pos",
                *(f"{who} dim {c}" for c in columns for who in ("yours", "reference")),
            ),
            rows=tuple((r, *(m[r, c] for c in columns for m in (theirs, ours))) for r in rows),
            note=f"Rows {span_text(rows)} of {theirs.shape[0]} and dimensions "
            f"{span_text(columns)} of {theirs.shape[1]} shown; the report has the worst cells.",
        )
    matrix = derived.reference_example(EXAMPLE_POSITIONS, EXAMPLE_D_MODEL, float(state.base))
    rows, columns = range(DATA_ROWS), range(DATA_COLUMNS)
    caption = f"The reference PE(pos, dimension), base {state.base:g}"
    return pe_table(caption, matrix, rows, columns, ".")

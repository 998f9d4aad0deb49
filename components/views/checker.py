"""Check your implementation: a learner's PE matrix against the reference and the usual mistakes.

The check itself is components/diagnosis.py (the same function a teacher calls in a notebook);
this view reads the visitor's file or pasted numbers, shows the verdict as text, and draws the
evidence: their matrix, the reference and the difference, and both PE·PEᵀ.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass

import numpy as np
import panel as pn
import param

from .. import derived, encoding
from .. import diagnosis as diagnose
from ..plotkit import theme
from ..plotkit.charts import matrix_axis, panel_caption, panel_heatmap, titled_layout
from ..plotkit.frame import DATA_COLUMNS, DATA_ROWS, ChartData, pe_table, span_text
from ..plotkit.numbers import number
from ..plotkit.upload import UploadView, box_style, file_input, labelled_choice, paste_box
from ..state import ExplorerState

# Pasted text is for small matrices; larger ones come as a file (diagnose.SIZE_CAP).
MAX_PASTE_CHARS = 1 << 20
ACCEPT = ".npy,.csv,.txt,.tsv"
ROW_CHOICES = {"Detect": "auto", "Positions": "positions", "Dimensions": "dimensions"}
# The reference drawn before any matrix is given.
EXAMPLE_POSITIONS, EXAMPLE_D_MODEL = 32, 32
# At most this many cells per matrix panel, and positions per PE·PEᵀ panel, are drawn.
PANEL_CELLS = 60_000
GRAM_POSITIONS = 160

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
    return evidence_figure(diagnosis, state.theme)


def reference_figure(state: ExplorerState) -> dict:
    """The reference matrix at the state's base, before the visitor gives a matrix."""
    base = float(state.base)
    matrix = encoding.positional_encoding(EXAMPLE_POSITIONS, EXAMPLE_D_MODEL, base)
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
    trace = _matrix_trace(
        np.arange(EXAMPLE_D_MODEL), np.arange(EXAMPLE_POSITIONS), matrix, "reference", ""
    )
    trace.update(showscale=True, colorbar=theme.colorbar(title={"text": "PE"}, thickness=12))
    return {"data": [trace], "layout": layout}


@dataclass(frozen=True)
class EvidenceCells:
    """What the evidence figure draws of a diagnosis: strided cells, float32."""

    rows: np.ndarray  # positions shown in the matrix panels
    columns: np.ndarray  # dimensions shown
    theirs: np.ndarray
    ours: np.ndarray
    difference: np.ndarray
    gram_rows: np.ndarray  # positions shown in the PE·PEᵀ panels
    their_gram: np.ndarray
    our_gram: np.ndarray
    offsets: np.ndarray  # k × the gram stride
    their_spread: np.ndarray  # max − min along diagonal k of their shown PE·PEᵀ
    our_spread: np.ndarray
    reduced: bool  # fewer cells or positions shown than the matrix has


def evidence_cells(diagnosis: diagnose.Diagnosis) -> EvidenceCells:
    """The cells the evidence figure shows, strided by whole pairs when the matrix is large."""
    theirs, ours = diagnosis.theirs, diagnosis.reference
    n, d = theirs.shape
    row_stride, pair_stride = derived.display_strides(n, d, PANEL_CELLS)
    rows = np.arange(0, n, row_stride)
    pair_of, _ = encoding.column_roles(d, diagnosis.layout)
    columns = np.flatnonzero(pair_of % pair_stride == 0)
    cells = np.ix_(rows, columns)
    gram_rows = np.arange(0, n, derived.dot_product_stride(n, GRAM_POSITIONS**2))
    their_gram = encoding.gram_matrix(theirs[gram_rows])
    our_gram = encoding.gram_matrix(ours[gram_rows])
    return EvidenceCells(
        rows=rows,
        columns=columns,
        theirs=theirs[cells].astype(np.float32),
        ours=ours[cells].astype(np.float32),
        difference=(theirs[cells] - ours[cells]).astype(np.float32),
        gram_rows=gram_rows,
        their_gram=their_gram.astype(np.float32),
        our_gram=our_gram.astype(np.float32),
        offsets=gram_rows - gram_rows[0],
        their_spread=_diagonal_spreads(their_gram),
        our_spread=_diagonal_spreads(our_gram),
        reduced=rows.size * columns.size < n * d or gram_rows.size < n,
    )


def _diagonal_spreads(gram: np.ndarray) -> np.ndarray:
    """max − min along each diagonal k ≥ 0 of a square matrix (0 for a Toeplitz one)."""
    return np.array([np.ptp(np.diagonal(gram, k)) for k in range(len(gram))])


# Panels: (x domain, y domain) of the three matrices on top and the three PE·PEᵀ panels below.
COLUMNS = ([0.0, 0.29], [0.355, 0.645], [0.71, 1.0])
TOP, BOTTOM = [0.56, 1.0], [0.0, 0.4]


def evidence_figure(diagnosis: diagnose.Diagnosis, theme_name: str) -> dict:
    """Their matrix, the reference and the difference; below, both PE·PEᵀ and how far each of
    their diagonals is from constant."""
    cells = evidence_cells(diagnosis)
    palette = theme.colours(theme_name)
    layout = theme.base_layout(
        theme_name, uirevision=f"checker-{diagnosis.n_positions}-{diagnosis.d_model}"
    )
    largest = float(np.abs(cells.difference).max()) or 1.0
    scale = diagnosis.d_model / 2
    toeplitz = "Toeplitz" if diagnosis.toeplitz else "not Toeplitz"
    panels = [
        (
            _matrix_trace(cells.columns, cells.rows, cells.theirs, "theirs", ""),
            "theirs",
        ),
        (_matrix_trace(cells.columns, cells.rows, cells.ours, "reference", "2"), "reference"),
        (
            _matrix_trace(cells.columns, cells.rows, cells.difference, "theirs − ours", "3")
            | {
                "zmin": -largest,
                "zmax": largest,
                "showscale": True,
                "colorbar": theme.colorbar(
                    thickness=10, len=0.42, y=1.0, yanchor="top", title={"text": "diff"}
                ),
            },
            f"theirs − ours (max {diagnosis.max_abs_error:.2g})",
        ),
        (
            _gram_trace(cells.gram_rows, cells.their_gram, scale, "their PE·PEᵀ", "4"),
            f"their PE·PEᵀ ({toeplitz})",
        ),
        (_gram_trace(cells.gram_rows, cells.our_gram, scale, "reference PE·PEᵀ", "5"), "ours"),
    ]
    traces = [trace for trace, _ in panels]
    titles = [title for _, title in panels] + ["spread along diagonal k of PE·PEᵀ"]
    for index, (x_domain, y_domain, title) in enumerate(
        (
            *((column, TOP, titles[i]) for i, column in enumerate(COLUMNS)),
            *((column, BOTTOM, titles[3 + i]) for i, column in enumerate(COLUMNS)),
        )
    ):
        suffix = "" if index == 0 else str(index + 1)
        layout[f"xaxis{suffix}"] = theme.axis(
            theme_name,
            domain=x_domain,
            anchor=f"y{suffix}",
            showgrid=False,
            title={"text": "dimension" if index < 3 else "position" if index < 5 else "k"},
        )
        layout[f"yaxis{suffix}"] = theme.axis(
            theme_name,
            domain=y_domain,
            anchor=f"x{suffix}",
            showgrid=index == 5,
            **({} if index == 5 else {"autorange": "reversed"}),
        )
        layout.setdefault("annotations", []).append(panel_caption(title, x_domain[0], y_domain[1]))
    for axis in ("xaxis2", "xaxis3"):
        layout[axis]["matches"] = "x"
    for axis in ("yaxis2", "yaxis3"):
        layout[axis]["matches"] = "y"
    layout["xaxis5"]["matches"] = "x4"
    layout["yaxis5"]["matches"] = "y4"
    layout["yaxis"]["title"] = {"text": "position"}
    layout["yaxis4"]["title"] = {"text": "position"}
    layout["yaxis6"].update(type="log", title={"text": "max − min"}, exponentformat="power")
    traces += [
        _spread_trace(cells.offsets, cells.their_spread, "theirs", theme.PAIR_COLOURS[1]),
        _spread_trace(cells.offsets, cells.our_spread, "ours", theme.PAIR_COLOURS[0]),
    ]
    marked = [diagnosis.first_difference] if diagnosis.first_difference else []
    marked += [cell for cell in diagnosis.worst_cells if cell not in marked]
    if marked and diagnosis.max_abs_error > 0:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": np.array([cell.dimension for cell in marked]),
                "y": np.array([cell.position for cell in marked]),
                "xaxis": "x3",
                "yaxis": "y3",
                "marker": {
                    "color": "rgba(0,0,0,0)",
                    "size": 11,
                    "line": {"color": palette["pos"], "width": 2},
                },
                "name": "first difference and worst cells",
                "customdata": np.array([[cell.theirs, cell.ours] for cell in marked]),
                "hovertemplate": "pos %{y}, dim %{x}<br>theirs %{customdata[0]:.6g}<br>"
                "ours %{customdata[1]:.6g}<extra>%{fullData.name}</extra>",
            }
        )
    n, d = diagnosis.n_positions, diagnosis.d_model
    title = (
        f"Theirs ({n} × {d}) against the reference (base {diagnosis.base:g}, {diagnosis.layout})"
    )
    if cells.reduced:
        title += (
            f"<br><sub>Reduced for display: {cells.rows.size} × {cells.columns.size} of "
            f"{n} × {d} cells, {cells.gram_rows.size} positions in PE·PEᵀ</sub>"
        )
    layout.update(
        title={"text": title, "x": 0, "font": {"size": 14}},
        showlegend=True,
        legend={"orientation": "h", "x": 0.71, "y": -0.1},
        margin={"l": 64, "r": 24, "t": 84 if cells.reduced else 64, "b": 64},
    )
    return {"data": traces, "layout": layout}


def _matrix_trace(x, y, z, name: str, suffix: str) -> dict:
    hover = "pos %{y}, dim %{x}<br>%{z:.6g}<extra>%{fullData.name}</extra>"
    return panel_heatmap(x, y, np.asarray(z, dtype=np.float32), 1.0, suffix, name, hover)


def _gram_trace(rows, gram, scale: float, name: str, suffix: str) -> dict:
    hover = "i = %{y}, j = %{x}<br>PE(i)·PE(j) = %{z:.6g}<extra>%{fullData.name}</extra>"
    return panel_heatmap(rows, rows, gram, scale, suffix, name, hover)


def _spread_trace(offsets, spread, name: str, colour: str) -> dict:
    # A log axis cannot show 0: an exactly constant diagonal is drawn at 1e-17.
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "x": offsets,
        "y": np.maximum(spread, 1e-17),
        "xaxis": "x6",
        "yaxis": "y6",
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
            return evidence_figure(result, self.state.theme)
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
        matrix = encoding.positional_encoding(EXAMPLE_POSITIONS, EXAMPLE_D_MODEL, state.base)
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
    matrix = encoding.positional_encoding(EXAMPLE_POSITIONS, EXAMPLE_D_MODEL, state.base)
    rows, columns = range(DATA_ROWS), range(DATA_COLUMNS)
    caption = f"The reference PE(pos, dimension), base {state.base:g}"
    return pe_table(caption, matrix, rows, columns, ".")

"""PlotView: the one view class (one long-lived Plotly pane, updated in place from the state)."""

from __future__ import annotations

import html
import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import panel as pn
import param

from ..fixes.chart_names import NamedPlotly
from ..fixes.notebook_batch import one_message
from ..state import ExplorerState
from .narrow import for_narrow_screen, for_wide_screen, narrow_picks
from .numbers import number
from .picks import Picks, ViewPicks

# Show data lists the rows near the selection: pos − 3 … pos + 3, and at most 16 columns.
DATA_ROWS, DATA_COLUMNS = 7, 16
# A table of pairs lists every pair up to this many (a head of 512 dimensions), the ones the
# chart marks marked; a larger one, the marked ones and a few more, saying so.
ALL_PAIRS = 256

ERROR_STYLE = """
:host { width: 100%; }
.pe-error { border: 1px solid #b91c1c; background: #fef2f2; color: #7f1d1d;
            padding: 0.5em 0.75em; border-radius: 6px; }
"""

NOTE_STYLE = """
:host { width: 100%; }
p.pe-method-note { margin: 0.3em 0; padding: 0.5em 0.75em; line-height: 1.45;
                   border-left: 3px solid var(--pe-grid, #d1d5db); }
"""


DATA_STYLE = """
:host { width: 100%; min-width: 0; }
details.pe-data { margin: 0.2em 0; }
details.pe-data summary { cursor: pointer; width: fit-content; }
.pe-data-scroll { overflow-x: auto; max-width: 100%; }
table.pe-data-table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.pe-data-table caption { text-align: left; padding: 0.3em 0; }
.pe-data-table th, .pe-data-table td { padding: 0.15em 0.6em; text-align: right;
                                       white-space: nowrap;
                                       border-bottom: 1px solid var(--pe-grid, #d1d5db); }
p.pe-data-note { margin: 0.3em 0; line-height: 1.45; }
.pe-data-table tr.pe-data-marked th, .pe-data-table tr.pe-data-marked td { font-weight: 600;
  background: color-mix(in srgb, currentColor 8%, transparent); }
.pe-data-sr { position: absolute; width: 1px; height: 1px; overflow: hidden;
              clip: rect(0 0 0 0); white-space: nowrap; }
"""


@dataclass(frozen=True)
class ChartData:
    """The numbers a chart draws, as its Show data table lists them (plain text throughout:
    data_html escapes it)."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]  # one tuple of cells per row: text, whole numbers or floats
    note: str = ""  # which part of the data is listed, when not all of it
    marked: frozenset = frozenset()  # the rows (by their first cell) the chart marks


def cell_text(value) -> str:
    """One cell of a ChartData as text: floats with 4 decimals, NaN (nothing drawn) as "–"."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | np.integer):
        return str(int(value))
    value = float(value)
    return "–" if math.isnan(value) else number(value)


def indices_near(center: int, count: int, size: int) -> range:
    """size consecutive indices of 0 … count − 1 around center (fewer when count is smaller)."""
    start = max(0, min(center - (size - 1) // 2, count - size))
    return range(start, min(count, start + size))


def span_text(shown: range) -> str:
    """The indices listed, as "4–10" (or "4" for one)."""
    return f"{shown[0]}–{shown[-1]}" if len(shown) > 1 else f"{shown[0]}"


def pe_table(caption: str, matrix: np.ndarray, rows: range, columns: range, end: str) -> ChartData:
    """The PE matrix's rows and its first columns as a data table; its note says which of how
    many are shown, and ends with end."""
    return ChartData(
        caption=caption,
        columns=("pos", *(f"dim {c}" for c in columns)),
        rows=tuple((r, *matrix[r, : len(columns)]) for r in rows),
        note=f"Rows {span_text(rows)} of {matrix.shape[0]} and dimensions {span_text(columns)} "
        f"of {matrix.shape[1]} shown{end}",
    )


def toeplitz_table(state: ExplorerState, caption: str, corner: str, curve: np.ndarray) -> ChartData:
    """The data table of a matrix of positions whose entry (i, j) is the value at offset j − i:
    curve holds it for the offsets −(n − 1) … n − 1. Rows near pos, columns near pos + k."""
    n = state.n_positions
    rows = indices_near(state.pos, n, DATA_ROWS)
    columns = indices_near(state.second_pos, n, DATA_COLUMNS)
    offsets = np.asarray(columns)[None, :] - np.asarray(rows)[:, None]
    return ChartData(
        caption=caption,
        columns=(corner, *(str(j) for j in columns)),
        rows=tuple((i, *row) for i, row in zip(rows, curve[offsets + n - 1], strict=True)),
        note=f"Rows {span_text(rows)} and columns {span_text(columns)} of {n} shown; "
        "Export has the whole matrix.",
    )


def row_html(row: tuple, marked: bool) -> str:
    """One row of a data table: its first cell the row's header; a marked row says so in words
    too (for a screen reader), not only in weight."""
    cells = [html.escape(cell_text(cell)) for cell in row]
    mark = '<span class="pe-data-sr"> (marked)</span>' if marked else ""
    tag = '<tr class="pe-data-marked">' if marked else "<tr>"
    rest = "".join(f"<td>{cell}</td>" for cell in cells[1:])
    return f'{tag}<th scope="row">{cells[0]}{mark}</th>{rest}</tr>'


def data_html(table: ChartData) -> str:
    """The table in a closed <details> "Show data", scrollable sideways on its own."""
    escape = html.escape
    head = "".join(f'<th scope="col">{escape(column)}</th>' for column in table.columns)
    body = "".join(row_html(row, row[0] in table.marked) for row in table.rows)
    note = f'<p class="pe-data-note">{escape(table.note)}</p>' if table.note else ""
    # A region that scrolls must take the focus, so keys can scroll it (axe: scrollable-region-
    # focusable); its name is the caption.
    return (
        '<details class="pe-data"><summary>Show data</summary>'
        f'<div class="pe-data-scroll" role="region" tabindex="0" '
        f'aria-label="{escape(table.caption)}">'
        f'<table class="pe-data-table"><caption>{escape(table.caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}</details>"
    )


class WhileShown:
    """Runs an update at once while its widget or view is on screen; off screen, it notes that
    one is due and runs it once when shown again."""

    def __init__(self, update: Callable[[], None]):
        self._update = update
        self.shown = True
        self.stale = False

    def request(self) -> None:
        if not self.shown:
            self.stale = True
            return
        self.stale = False
        self._update()

    def set_shown(self, shown: bool) -> None:
        self.shown = shown
        if shown and self.stale:
            self.request()


class PlotView(pn.viewable.Viewer):
    """A view of ExplorerState as its row of the view table describes it (pe_explorer.views):
    its figure, drawn at its height, and its readout, redrawn only when a parameter it follows
    changes."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    spec = param.Parameter(doc="The view's row of the view table (pe_explorer.views.ViewSpec).")
    narrow = param.Boolean(
        default=False,
        doc="Whether the card is narrow (a phone, a narrow frame): its charts drawn one above "
        "the other, its titles wrapped (plotkit/narrow.py).",
    )
    picks_held = param.Boolean(
        default=False,
        doc="Whether the picks wait (the page's start-up: nothing is dragged until it is shown); "
        "once released, the view draws again with them.",
    )
    asks_for = param.String(
        default="",
        doc="The ?view= name of a view this one asks the page to show in its place, without "
        "loading the page again (the model view's what-if on the visitor's file, which a load "
        "would lose); set and then cleared, so that each ask is one event.",
    )

    @staticmethod
    def text_pane(style: str, margin=(4, 8), css_class: str = "", **params) -> pn.pane.HTML:
        """An empty full-width HTML pane for the text a view shows under its plot."""
        if css_class:
            params["css_classes"] = [css_class]
        return pn.pane.HTML(
            "", sizing_mode="stretch_width", stylesheets=[style], margin=margin, **params
        )

    @staticmethod
    def step_buttons(prefix: str, labels: dict[str, str]) -> tuple[pn.widgets.Button, ...]:
        """The buttons of a view that steps through stages (Prev, Next …): pe-{prefix}-{key}."""
        return tuple(
            pn.widgets.Button(
                label=label, width=72, margin=(4, 4), css_classes=[f"pe-{prefix}-{key}"]
            )
            for key, label in labels.items()
        )

    @staticmethod
    def step_indicator(text: str, css_class: str) -> pn.pane.HTML:
        """The pane saying which stage a stepping view shows, beside its buttons."""
        return pn.pane.HTML(text, css_classes=[css_class], margin=(10, 8, 4, 8))

    @staticmethod
    def step_bar(css_class: str, *objects) -> pn.FlexBox:
        """A stepping view's buttons and indicator, in one row that wraps on a phone."""
        return pn.FlexBox(
            *objects,
            flex_wrap="wrap",
            align_items="center",
            sizing_mode="stretch_width",
            css_classes=[css_class],
        )

    def __init__(self, **params):
        super().__init__(**params)
        self._plot = NamedPlotly(
            None,
            sizing_mode="stretch_width",
            height=self.spec.plot_height,
            config=self._config(),
            margin=(0, 0),
        )
        self._error = pn.pane.HTML("", visible=False, stylesheets=[ERROR_STYLE], margin=(4, 0))
        # Under a method the view means nothing for, this line replaces its content.
        self._note = self.text_pane(NOTE_STYLE, css_class="pe-method-note-pane", visible=False)
        # The numbers the chart draws, as a table; kept open across updates (fixes/chart_names).
        self._data = self.text_pane(DATA_STYLE, (0, 8, 4, 8), "pe-data-pane")
        self._content: pn.Column | None = None
        self._wide_layout: dict = {}  # the figure's layout before card_figure, and its result
        self._card: dict = {}
        # What a drag of pos or k changes, sent for the page to pick (plotkit/picks.py).
        self._generation = 0
        self._picks = ViewPicks(key=f"{self.spec.name}-{uuid.uuid4().hex[:12]}", margin=0)
        self._plot.pick_key = self._picks.key if self.spec.picks is not None else ""
        self._extras = self.extra_panes()
        self._while_shown = WhileShown(self._redraw_unlocked)
        # A card that turns narrow or wide gets its figure whole: its charts move, a new layout.
        self._whole = False
        self._refresh()
        self.state.param.watch(self._refresh, list(self.spec.follows))
        self.param.watch(self._narrow_changed, "narrow")
        self.param.watch(self._refresh, "picks_held")

    def extra_panes(self) -> list:
        """Panes shown under the plot: the readout, when the view has one."""
        if self.spec.readout is None:
            return []
        self._readout = self.text_pane(self.spec.readout_style, css_class="pe-readout-pane")
        return [self._readout]

    def update_extras(self) -> None:
        """Refresh the readout from the state."""
        if self.spec.readout is not None:
            self._readout.object = self.spec.readout(self.state)

    def own_arguments(self) -> tuple:
        """What the view's figure, name and table follow besides the state: the view's own
        place in it (a stepping view's step), never URL state."""
        return ()

    def description(self) -> str:
        """The chart's accessible name: what it shows and its key numbers now."""
        return self.spec.describe(self.state, *self.own_arguments())

    def data_table(self) -> ChartData:
        """The numbers the chart draws, for its Show data table."""
        return self.spec.data(self.state, *self.own_arguments())

    def picks(self) -> Picks | None:
        """What a drag of pos or k changes, at every value (None: Python draws each), for the
        card as drawn: narrow, its titles wrapped and its wide-only notes left out."""
        if self.spec.picks is None:
            return None
        picks = self.spec.picks(self.state, *self.pick_arguments())
        if picks is None or not self.narrow:
            return picks
        return narrow_picks(picks, self._wide_layout, self._card)

    def pick_arguments(self) -> tuple:
        """What the view's picks follow besides the state (its own_arguments, unless a view
        shows more of its own than its figure does)."""
        return self.own_arguments()

    def figure(self) -> dict:
        """The view's figure for the state, at its height unless the figure sets its own."""
        figure = self.spec.figure(self.state, *self.own_arguments())
        figure["layout"].setdefault("height", self.spec.plot_height)
        return figure

    def card_figure(self) -> dict:
        """The figure as the card draws it: laid out for a narrow card or a wide one
        (plotkit/narrow.py). Views with a figure of their own (an upload, the model) get it too."""
        figure = self.figure()
        self._wide_layout = figure["layout"]
        card = for_narrow_screen(figure) if self.narrow else for_wide_screen(figure)
        self._card = card
        return card

    def _config(self) -> dict:
        state = self.state
        return {
            "displaylogo": False,
            "responsive": True,
            "toImageButtonOptions": {
                "format": "png",
                "scale": 2,
                "filename": f"pe-{self.spec.name}-d{state.d_model}-n{state.n_positions}",
            },
        }

    def set_shown(self, shown: bool) -> None:
        """Pause updates while the view is off the page; catch up when it is shown again."""
        self._while_shown.set_shown(shown)

    def _refresh(self, *events) -> None:
        self._while_shown.request()

    def _narrow_changed(self, event) -> None:
        self._whole = True
        self._refresh()

    def _redraw_unlocked(self) -> None:
        # Under `panel serve` each property change would be its own message (config, figure,
        # readout); held together they are one (in a notebook: fixes/notebook_batch.py).
        with pn.io.unlocked(), one_message(self._plot):
            self._redraw()

    def _show_method_note(self) -> bool:
        """Show the one-line note instead of the content when the method has nothing to draw
        here; True when it does."""
        note = self.spec.method_note(self.state.method)
        self._note.object = f'<p class="pe-method-note">{note}</p>' if note else ""
        self._note.visible = bool(note)
        if self._content is not None:
            self._content.visible = not note
        return bool(note)

    def _redraw(self) -> None:
        if self._show_method_note():
            return
        try:
            figure = self.card_figure()
            self.update_extras()
            label = self.description()
            data = data_html(self.data_table())
            picks = None if self.picks_held else self.picks()
        except ValueError as error:
            # The state never lets a bad value through; if one did, say so in words.
            self._error.object = f'<div class="pe-error">{html.escape(str(error))}</div>'
            self._error.visible = True
            return
        self._error.visible = False
        config = self._config()
        if config != self._plot.config:
            self._plot.config = config
        height = figure["layout"]["height"]
        if height != self._plot.height:
            self._plot.height = height
        self._plot.label = label
        self._data.object = data
        # Only what changed travels: a moved marker is a small relayout, not a new figure.
        self._plot.show(figure, whole=self._whole)
        self._whole = False
        self._show_picks(picks)

    def _show_picks(self, picks: Picks | None) -> None:
        """The picks made for this drawing, and its generation on the chart (the page picks only
        when the two match)."""
        if self.spec.picks is None or self.picks_held:
            return
        self._generation += 1
        self._picks.show(picks, self.state, self._generation, self.spec.follows)
        self._plot.pick_generation = self._generation

    def content(self) -> pn.Column:
        """What the view shows: its plot and the panes under it."""
        return pn.Column(
            self._error,
            self._plot,
            self._data,
            *self._extras,
            sizing_mode="stretch_width",
        )

    def __panel__(self):
        if self._content is None:
            self._content = self.content()
            self._content.visible = not self._note.visible
        return pn.Column(self._note, self._content, self._picks, sizing_mode="stretch_width")


def offset_curves_table(
    caption: str, offset_name: str, curves: dict[str, np.ndarray], center: int, near: str = ""
) -> ChartData:
    """Curves against the offset (columns named by curves' keys) at the DATA_ROWS offsets around
    center; the note says which of 0 … n − 1 are listed, then near."""
    count = len(next(iter(curves.values())))
    offsets = indices_near(center, count, DATA_ROWS)
    return ChartData(
        caption=caption,
        columns=(offset_name, *curves),
        rows=tuple((k, *(scores[k] for scores in curves.values())) for k in offsets),
        note=f"Offsets {span_text(offsets)} of 0–{count - 1} shown{near}.",
    )

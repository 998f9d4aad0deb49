"""PlotView: the one view class (one long-lived Plotly pane, updated in place from the state)."""

from __future__ import annotations

import html
from collections.abc import Callable

import panel as pn
import param

from .fixes.plotly_patch import PatchablePlotly
from .state import ExplorerState

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
    """A view of ExplorerState as its row of the view table describes it (components.views):
    its figure, drawn at its height, and its readout, redrawn only when a parameter it follows
    changes."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    spec = param.Parameter(doc="The view's row of the view table (components.views.ViewSpec).")

    def __init__(self, **params):
        super().__init__(**params)
        self._plot = PatchablePlotly(
            None,
            sizing_mode="stretch_width",
            height=self.spec.plot_height,
            config=self._config(),
            margin=(0, 0),
        )
        self._error = pn.pane.HTML("", visible=False, stylesheets=[ERROR_STYLE], margin=(4, 0))
        # Under a method the view means nothing for, this line replaces its content.
        self._note = pn.pane.HTML(
            "",
            visible=False,
            sizing_mode="stretch_width",
            stylesheets=[NOTE_STYLE],
            margin=(4, 8),
            css_classes=["pe-method-note-pane"],
        )
        self._content: pn.Column | None = None
        self._extras = self.extra_panes()
        self._while_shown = WhileShown(self._redraw_unlocked)
        self._refresh()
        self.state.param.watch(self._refresh, list(self.spec.follows))

    def extra_panes(self) -> list:
        """Panes shown under the plot: the readout, when the view has one."""
        if self.spec.readout is None:
            return []
        self._readout = pn.pane.HTML(
            "", sizing_mode="stretch_width", stylesheets=[self.spec.readout_style], margin=(4, 8)
        )
        return [self._readout]

    def update_extras(self) -> None:
        """Refresh the readout from the state."""
        if self.spec.readout is not None:
            self._readout.object = self.spec.readout(self.state)

    def figure(self) -> dict:
        """The view's figure for the state, at its height unless the figure sets its own."""
        figure = self.spec.figure(self.state)
        figure["layout"].setdefault("height", self.spec.plot_height)
        return figure

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

    def _redraw_unlocked(self) -> None:
        # Under `panel serve` each property change would be its own message (config, figure,
        # readout); held together they are one.
        with pn.io.unlocked():
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
            figure = self.figure()
            self.update_extras()
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
        # Only what changed travels: a moved marker is a small relayout, not a new figure.
        self._plot.show(figure)

    def content(self) -> pn.Column:
        """What the view shows: its plot and the panes under it."""
        return pn.Column(self._error, self._plot, *self._extras, sizing_mode="stretch_width")

    def __panel__(self):
        if self._content is None:
            self._content = self.content()
            self._content.visible = not self._note.visible
        return pn.Column(self._note, self._content, sizing_mode="stretch_width")

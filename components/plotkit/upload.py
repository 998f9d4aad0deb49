"""UploadView: a view that also draws what the visitor gives it, a file or pasted numbers.

What the visitor gives is the view's own, never URL state: the page never puts it in a link.
The checker, the RoPE config checker and the learned-table view read their input this way.
"""

from __future__ import annotations

import numpy as np
import panel as pn

from ..diagnosis import UploadFormat
from .frame import ChartData, PlotView


def box_style(box: str, prefix: str) -> str:
    """CSS of the view's verdict box (class box), bordered by its kind: {prefix}-match,
    {prefix}-mistake or {prefix}-error."""
    return f"""
:host {{ width: 100%; }}
.{box} {{ border-radius: 6px; padding: 0.5em 0.75em; line-height: 1.45;
          border: 1px solid var(--pe-grid, #e5e7eb); }}
.{box}.{prefix}-match {{ border-color: #15803d; }}
.{box}.{prefix}-mistake {{ border-color: #b45309; }}
.{box}.{prefix}-error {{ border-color: #b91c1c; background: #fef2f2; color: #7f1d1d; }}
.{box} p {{ margin: 0.2em 0; }}
"""


def input_button(label: str, css_class: str, width: int, **params) -> pn.widgets.Button:
    """A button beside the inputs: an example to try, or Clear."""
    return pn.widgets.Button(
        label=label, css_classes=[css_class], width=width, margin=(4, 8), **params
    )


def file_input(label: str, accept: str, css_class: str) -> pn.widgets.FileInput:
    """The chooser of one file, its types in accept (".npy,.csv")."""
    return pn.widgets.FileInput(
        label=label, accept=accept, multiple=False, css_classes=[css_class], margin=(4, 8)
    )


def paste_box(
    label: str, placeholder: str, max_length: int, rows: int, css_class: str
) -> pn.widgets.TextAreaInput:
    """The full-width box for pasted numbers, at most max_length characters."""
    return pn.widgets.TextAreaInput(
        label=label,
        placeholder=placeholder,
        max_length=max_length,
        rows=rows,
        sizing_mode="stretch_width",
        css_classes=[css_class],
        margin=(4, 8),
    )


def labelled_choice(label: str, choice) -> pn.FlexBox:
    """A choice of the view's (a button group) after its label, wrapping on a phone."""
    return pn.FlexBox(
        pn.pane.HTML(f"<span>{label}</span>", margin=(10, 0, 0, 8)),
        choice,
        flex_wrap="wrap",
        sizing_mode="stretch_width",
    )


class UploadView(PlotView):
    """A PlotView of the state and of the visitor's input: a file chooser and, when given, a
    box for pasted numbers.

    The input is the view's source: None before any, ("file", bytes, name), ("text", str), or
    one of the subclass's own (an example); a new source redraws the view.
    """

    def __init__(
        self,
        file: pn.widgets.FileInput,
        text: pn.widgets.TextAreaInput | None = None,
        **params,
    ):
        self._source: tuple | None = None
        self._kept: dict[str, tuple] = {}  # once_per's (key, value) of each slot
        self._file, self._text = file, text
        super().__init__(**params)
        file.param.watch(self._file_chosen, ["value", "filename"])
        if text is not None:
            text.param.watch(self._text_entered, "value")

    def choice(
        self, name: str, label: str, css_class: str, **params
    ) -> pn.widgets.RadioButtonGroup:
        """Buttons for the view's own parameter name (how to read the input, say), named label;
        a new choice redraws the view."""
        buttons = pn.widgets.RadioButtonGroup.from_param(
            self.param[name], name=label, css_classes=[css_class], margin=(4, 8), **params
        )
        self.param.watch(self._refresh, name)
        return buttons

    def once_per(self, key, compute, slot: str = "result"):
        """compute()'s value, computed again only when key (the input, and what the view's
        check of it follows) changes; slot names the value kept."""
        kept = self._kept.get(slot)
        if kept is None or kept[0] != key:
            kept = self._kept[slot] = (key, compute())
        return kept[1]

    def result(self):
        """What the view makes of the visitor's input (None before any)."""
        return None

    def evidence(self, result) -> dict | None:
        """The figure of a result, or None to draw the view's figure of the state alone."""
        return None

    def figure(self) -> dict:
        figure = self.evidence(self.result())
        if figure is None:
            figure = self.spec.figure(self.state)
        figure["layout"].setdefault("height", self.spec.plot_height)
        return figure

    def description(self) -> str:
        return self.spec.describe(self.state, self.result())

    def data_table(self) -> ChartData:
        return self.spec.data(self.state, self.result())

    def read_input(self, upload: UploadFormat) -> np.ndarray | None:
        """The array of a file or text source, read and checked as upload says (None without
        one); upload.error says why it cannot be."""
        if self._source is None:
            return None
        if self._source[0] == "file":
            return upload.read(self._source[1], self._source[2])
        return upload.parse_text(self._source[1])

    def use_source(self, source: tuple | None) -> None:
        """Draw this input from now on (None: none)."""
        self._source = source
        self._refresh()

    def check_file(self, data: bytes | None, filename: str) -> None:
        """Check the bytes of a file, as choosing it in the file input does."""
        self.use_source(("file", data, filename) if data is not None else None)

    def check_text(self, text: str) -> None:
        """Check pasted numbers, as leaving the text box does (empty text clears the check)."""
        self.use_source(("text", text) if text.strip() else None)

    def _file_chosen(self, *events) -> None:
        data = self._file.value
        if data is None and self._file.filename:
            data = b""  # Panel's FileInput gives an empty file no value: it is one, and empty
        # In the Pyodide worker a new file's bytes may arrive before its name: the name then
        # is the previous file's, so the bytes alone say what they are until it comes.
        name_is_current = any(event.name == "filename" for event in events)
        self.check_file(data, (self._file.filename or "") if name_is_current else "")

    def _text_entered(self, event) -> None:
        # Text the view put in the box itself (an example) is its source already.
        if self._source != ("text", event.new):
            self.check_text(event.new or "")

    def column(self, inputs: pn.Column, verdict, *below, css_class: str) -> pn.Column:
        """The view's content: its inputs and the verdict on them above the plot, then what it
        shows below the plot."""
        return pn.Column(
            inputs,
            verdict,
            self._error,
            self._plot,
            *below,
            sizing_mode="stretch_width",
            css_classes=[css_class],
        )

    def inputs(self, heading: str, *rows, note: str, style: str) -> pn.Column:
        """The inputs above the view's verdict: a heading (HTML), the file chooser and the
        paste box, the view's own rows, and a note (HTML) on where the input goes."""
        return pn.Column(
            pn.pane.HTML(f"<span>{heading}</span>", margin=(4, 8, 0, 8)),
            self._file,
            *(() if self._text is None else (self._text,)),
            *rows,
            pn.pane.HTML(note, stylesheets=[style], sizing_mode="stretch_width", margin=(0, 8)),
            sizing_mode="stretch_width",
        )

"""A model's positions, layer by layer: a strip of the layers coloured by what each does with
positions, each layer type's wavelengths against the original and the maximum context, its score
of q = k = (1, …, 1) over offsets, and the findings. The model is a preset (in the link) or the
visitor's config.json, GGUF or safetensors header (never in the link)."""

from __future__ import annotations

import html
import io
import json
import math
from urllib.parse import quote

import numpy as np
import panel as pn

from .. import derived
from ..model.code import model_program
from ..model.findings import never_turning
from ..model.reader import read_model
from ..model.report import engine_line, layer_line, ranges
from ..model.sources import Loaded, from_source, load
from ..model.types import Layer, ModelPositions
from ..model.values import parse_json
from ..plotkit import theme
from ..plotkit.charts import message_figure, titled_layout
from ..plotkit.frame import ALL_PAIRS, DATA_ROWS, ChartData, PlotView
from ..plotkit.hub_fetch import HubFetch, hub_text
from ..plotkit.slice_file import SliceFile, SliceReader
from ..plotkit.subplots import Subplot, compose
from ..plotkit.upload import input_button
from ..state import ExplorerState, VisitorModel

STRIP = ((0.0, 1.0), (0.88, 1.0))
WAVES = ((0.0, 1.0), (0.47, 0.76))
SCORES = ((0.0, 1.0), (0.0, 0.33))
NO_ROPE_COLOUR = "#9ca3af"
READOUT_STYLE = """
:host { max-width: 100%; }
.pe-model-readout ul { margin: 0.2em 0; padding-left: 1.2em; }
.pe-model-readout li { margin: 0.15em 0; }
.pe-model-readout .pe-model-code { font-family: ui-monospace, monospace; font-size: 0.92em; }
.pe-model-readout .pe-model-evidence { font-variant-numeric: tabular-nums; }
"""


def type_colours(model: ModelPositions) -> dict[tuple, str]:
    """A colour for each layer type (grey for layers without RoPE)."""
    colours, index = {}, 0
    for layer, _ in model.layer_types():
        if layer.method == "rope":
            colours[layer.signature] = theme.PAIR_COLOURS[index % len(theme.PAIR_COLOURS)]
            index += 1
        else:
            colours[layer.signature] = NO_ROPE_COLOUR
    return colours


def short_name(layer: Layer) -> str:
    """A layer type in a few words: its kind, θ and window."""
    if layer.method != "rope":
        return f"{layer.label}: {'no RoPE' if layer.method == 'none' else layer.method}"
    window = f", window {layer.window:,}" if layer.window else ""
    return f"{layer.kind}: θ {layer.theta:g}{window}"


def strip_subplot(model: ModelPositions) -> Subplot:
    """One bar per layer, coloured by its type, named in the hover."""
    colours = type_colours(model)
    traces = []
    for layer, indices in model.layer_types():
        traces.append(
            {
                "type": "bar",
                "x": indices,
                "y": [1] * len(indices),
                "width": 0.9,  # one layer wide, whatever the spacing of this type's layers
                "name": short_name(layer),
                "marker": {"color": colours[layer.signature]},
                "legendgroup": "layers",
                "hovertemplate": f"layer %{{x}}<br>{html.escape(short_name(layer))}<extra></extra>",
            }
        )
    return Subplot(
        traces,
        {"title": {"text": "layer", "standoff": 2}, "range": [-0.5, len(model.layers) - 0.5]},
        {"visible": False, "range": [0, 1]},
        STRIP,
        caption=f"{len(model.layers)} layers, coloured by what they do with positions",
    )


def _wavelength_trace(layer: Layer, colour: str, context: int | None) -> list[dict]:
    wavelength = 2 * math.pi / np.where(layer.inv_freq > 0, layer.inv_freq, np.nan)
    pairs = np.arange(wavelength.size)
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": pairs,
            "y": wavelength,
            "name": f"λ_i, {short_name(layer)}",
            "line": {"color": colour, "width": 2},
            "legendgroup": "waves",
            "hovertemplate": "pair %{x}<br>λ_i = %{y:.6g}<extra></extra>",
        }
    ]
    if context:
        slow = never_turning(layer.inv_freq, context)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": pairs[slow],
                "y": wavelength[slow],
                "name": f"never one turn in {context:,}",
                "showlegend": False,
                "marker": {"color": colour, "symbol": "circle-open", "size": 7},
                "hovertemplate": "pair %{x}: never one turn<extra></extra>",
            }
        )
    return traces


def _context_lines(model: ModelPositions, text: str) -> tuple[list[dict], list[dict]]:
    shapes, labels = [], []
    lengths = {("original", model.original_context, "dot"), ("maximum", model.max_context, "dash")}
    for name, value, dash in sorted(lengths, key=lambda item: item[1] or 0):
        if not value:
            continue
        shapes.append(
            {
                "type": "line",
                "xref": "x domain",
                "x0": 0,
                "x1": 1,
                "yref": "y",
                "y0": value,
                "y1": value,
                "line": {"color": text, "dash": dash, "width": 1},
            }
        )
        labels.append(
            {
                "text": f"{name} context {value:,}",
                "xref": "x domain",
                "yref": "y",
                "x": 0 if name == "original" else 1,
                "y": math.log10(value),
                "xanchor": "left" if name == "original" else "right",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 11},
            }
        )
    return shapes, labels


def rope_types(model: ModelPositions) -> list[Layer]:
    return [
        layer
        for layer, _ in model.layer_types()
        if layer.method == "rope" and layer.inv_freq is not None
    ]


def waves_subplot(model: ModelPositions, text: str) -> Subplot:
    colours = type_colours(model)
    traces = [
        t
        for layer in rope_types(model)
        for t in _wavelength_trace(layer, colours[layer.signature], model.original_context)
    ]
    shapes, labels = _context_lines(model, text)
    return Subplot(
        traces,
        {"title": {"text": "pair i", "standoff": 2}},
        {
            "type": "log",
            "exponentformat": "power",
            "title": {"text": "wavelength (log)", "standoff": 4},
        },
        WAVES,
        caption="each pair's wavelength 2π/θ_i; open circles never turn once in the "
        "original context",
        shapes=shapes,
        annotations=labels,
    )


def score_offsets(top: int) -> np.ndarray:
    """About 400 offsets from 1 to top, evenly spaced on a log axis."""
    return np.unique(np.round(np.geomspace(1, max(top, 2), 400)))


def scores_subplot(model: ModelPositions) -> Subplot:
    colours = type_colours(model)
    offsets = score_offsets(model.max_context or 4096)
    traces = []
    for layer in rope_types(model):
        score = derived.model_scores(layer.inv_freq.tobytes(), offsets.tobytes())
        factor = layer.attention_factor**2
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": offsets,
                "y": score * factor,
                "name": f"score × {factor:.4g}, {short_name(layer)}"
                if factor != 1
                else f"score, {short_name(layer)}",
                "line": {"color": colours[layer.signature], "width": 2},
                "showlegend": False,
                "hovertemplate": "m = %{x:.0f}<br>score = %{y:.4f}<extra></extra>",
            }
        )
    shapes = [
        {
            "type": "line",
            "yref": "y domain",
            "y0": 0,
            "y1": 1,
            "xref": "x",
            "x0": v,
            "x1": v,
            "line": {"color": "#6b7280", "dash": dash, "width": 1},
        }
        for v, dash in ((model.original_context, "dot"), (model.max_context, "dash"))
        if v
    ]
    return Subplot(
        traces,
        {
            "type": "log",
            "exponentformat": "power",
            "title": {"text": "offset m (log)", "standoff": 2},
        },
        {"title": {"text": "score / q·k", "standoff": 4}},
        SCORES,
        caption="score of q = k = (1, …, 1) over offsets, times the attention factor²",
        shapes=shapes,
    )


def model_figure(state: ExplorerState, model: ModelPositions) -> dict:
    """The figure of a model: the layer strip, the wavelengths and the scores."""
    title = f"{model.name}: {len(model.layers)} layers" + (
        f", context {model.original_context:,} → {model.max_context:,}"
        if model.original_context
        else ""
    )
    text = theme.colours(state.theme)["text"]
    if not rope_types(model):
        method = model.layers[0].method if model.layers else "none"
        return message_figure(
            state,
            "model",
            html.escape(title),
            html.escape(f"No rotary pairs: every layer uses {METHOD_WORDS.get(method, method)}."),
        )
    layout = titled_layout(state, f"model-{model.name}", html.escape(title))
    layout.update(
        barmode="overlay",
        bargap=0.1,
        margin={"l": 64, "r": 16, "t": 64, "b": 56},
        legend={"orientation": "h", "x": 0, "y": -0.1, "font": {"size": 12}},
    )
    return compose(
        state, layout, (strip_subplot(model), waves_subplot(model, text), scores_subplot(model))
    )


METHOD_WORDS = {
    "learned": "a learned table of absolute positions",
    "alibi": "ALiBi's linear biases",
    "t5": "T5's relative buckets",
    "none": "no position encoding",
    "sinusoidal": "the sinusoidal table",
}


def figure(state: ExplorerState) -> dict:
    return model_figure(state, derived.preset_both(state.model))


def describe_model(model: ModelPositions) -> str:
    """The chart's accessible name: the model, each layer type and its numbers, the findings."""
    parts = [f"{model.name}, {len(model.layers)} layers", engine_line(model)]
    if model.original_context:
        parts.append(
            f"trained on {model.original_context:,} positions, up to {model.max_context:,}"
        )
    for layer, indices in model.layer_types():
        line = layer_line(layer, indices)
        if layer.inv_freq is not None and model.original_context:
            slow = int(never_turning(layer.inv_freq, model.original_context).sum())
            line += (
                f"; {slow} of {layer.inv_freq.size} pairs never turn once in the original context"
            )
        parts.append(line)
    warnings = [f.code for f in model.findings if f.severity == "warning"]
    parts.append(
        f"findings: {', '.join(f.code for f in model.findings) or 'none'}"
        + (f" ({len(warnings)} warnings)" if warnings else "")
    )
    return ". ".join(parts) + "."


def describe(state: ExplorerState, model: ModelPositions | None = None) -> str:
    return describe_model(model or derived.preset_both(state.model))


def listed_pairs(size: int, first_slow: int | None, share: int) -> list[int]:
    """About `share` pairs of size: both ends, evenly between, and the first that never turns."""
    chosen = set(
        np.unique(np.linspace(0, size - 1, max(2, share - 1)).round().astype(int)).tolist()
    )
    if first_slow is not None:
        chosen.add(first_slow)
    return sorted(chosen)[: max(share, 2)]


def _rows(model: ModelPositions) -> tuple[list[tuple], int]:
    """The listed rows, and how many pairs there are in all."""
    rows, total = [], 0
    types = [(layer, idx) for layer, idx in model.layer_types() if layer.inv_freq is not None]
    every = sum(layer.inv_freq.size for layer, _ in types) <= ALL_PAIRS
    share = max(2, DATA_ROWS // max(1, len(types)))
    context = model.original_context or 0
    for layer, indices in types:
        inv = layer.inv_freq
        total += inv.size
        slow = np.flatnonzero(never_turning(inv, context)) if context else np.array([], int)
        first_slow = int(slow[0]) if slow.size else None
        for i in range(inv.size) if every else listed_pairs(inv.size, first_slow, share):
            theta = float(inv[i])
            wavelength = 2 * math.pi / theta if theta > 0 else math.inf
            turns = context / wavelength if context and math.isfinite(wavelength) else 0.0
            rows.append(
                (
                    f"{layer.label} (layers {ranges(indices)})",
                    i,
                    f"{theta:.9g}",
                    f"{wavelength:.6g}",
                    turns,
                    "never" if turns < 1 else "turns",
                )
            )
    return rows, total


def data(state: ExplorerState, model: ModelPositions | None = None) -> ChartData:
    """Pairs of every layer type (all, up to ALL_PAIRS in all; else both ends, evenly between and
    the first that never turns): θ_i, λ_i and its turns in the original context."""
    model = model or derived.preset_both(state.model)
    rows, total = _rows(model)
    note = (
        ""
        if len(rows) == total
        else (
            f"{len(rows)} of {total} pairs listed: each layer type's first and last, pairs evenly "
            "between and the first that never turns once; Export / Code recomputes every pair."
        )
    )
    if not rows:
        rows = [(short_name(layer), "–", "–", "–", 0.0, "") for layer, _ in model.layer_types()][
            :DATA_ROWS
        ]
    return ChartData(
        caption=f"Pairs of {model.name}'s layer types: θ_i, wavelength and turns in the "
        "original context",
        columns=("layer type", "pair i", "θ_i", "λ_i", "turns in L", "marked"),
        rows=tuple(rows),
        note=note,
    )


def findings_html(model: ModelPositions) -> str:
    """The findings and the sources, escaped: visitor text is never HTML."""
    esc = html.escape
    items = "".join(
        f'<li class="pe-model-finding pe-model-{f.severity}"><span class="pe-model-code">'
        f"{esc(f.code)}</span> ({esc(f.severity)}): {esc(f.sentence)} "
        f'<span class="pe-model-evidence">Numbers: {esc(f.evidence)}</span></li>'
        for f in model.findings
    )
    sources = "".join(f"<li>{esc(k)}: {esc(v)}</li>" for k, v in model.sources.items())
    return (
        f'<div class="pe-model-readout"><p><b>Findings</b> ({len(model.findings)})</p>'
        f"<ul>{items or '<li>none</li>'}</ul>"
        f"<details><summary>Where each value comes from</summary><ul>{sources}</ul></details></div>"
    )


def both_line(name: str) -> str:
    """'; beside it, llama.cpp d32676d774 via convert_hf_to_gguf.py …' for a preset the converter
    converts, else ''."""
    from ..model.converter import converter_name, has_gguf_form

    return f"; beside it, {converter_name(name)}" if has_gguf_form(name) else ""


def what_if_link(name: str) -> str:
    """A link that opens the mistakes view on this preset's layers (a visitor's own file is not
    in any link: its what-if is the view's button, ModelView.what_if)."""
    query = html.escape(f"?model={quote(name)}&mistake_on=model&view=mistakes")
    return (
        f'<a class="pe-model-what-if" href="{query}">What if: a published mistake (bf16 angles, '
        "the wrong θ, scaling dropped …) run on these layers</a>"
    )


def readout(state: ExplorerState) -> str:
    return findings_html(derived.preset_both(state.model))


# ---- The view ----------------------------------------------------------------------------------

PASTE_CHARS = 1 << 20
ACCEPT = ".json,.gguf,.safetensors,application/json"
HELP = (
    '<p class="pe-note">Your file stays in your browser: a GGUF or safetensors file is read by its '
    "header and its few small RoPE tensors only, however large it is. Nothing you give here goes "
    "into the page's link; the link keeps the preset. A model on the Hub is asked for by your "
    "browser from huggingface.co when you press its button, and only then.</p>"
)
STYLE = (
    READOUT_STYLE
    + """
.pe-model-status { margin: 0.2em 0; }
.pe-model-status.pe-model-error { color: #b91c1c; }
"""
)


class ModelView(PlotView):
    """A preset (the state's `model`, in the link), or the visitor's config.json pasted or a
    model file chosen (never in the link); given both a file and a pasted config, the view shows
    the config and what the file says against it."""

    def __init__(self, **params):
        self._pasted: Loaded | None = None
        self._file: Loaded | None = None
        self._problem = ""
        self._model: ModelPositions | None = None
        self._paste = pn.widgets.TextAreaInput(
            label="Or paste a config.json",
            placeholder='{"model_type": "llama", "rope_theta": …}',
            max_length=PASTE_CHARS,
            rows=3,
            sizing_mode="stretch_width",
            css_classes=["pe-model-paste"],
            margin=(4, 8),
        )
        self._reader = SliceReader(
            label="A model file (config.json, .gguf or .safetensors):",
            accept=ACCEPT,
            css_classes=["pe-model-file"],
            margin=(4, 0),
        )
        self._slices = SliceFile(self._reader, from_source, self._file_read)
        self._hub = HubFetch(css_classes=["pe-model-hub"], margin=(4, 0))
        self._hub.param.watch(self._hub_answered, "answer")
        self._clear = input_button("Back to the preset", "pe-model-clear", 180, color="default")
        # The what-if of the visitor's own model: a button, since no link holds their file.
        self._what_if = input_button(
            "What if: a published mistake on your model",
            "pe-model-what-if-upload",
            330,
            color="default",
            visible=False,
        )
        # The model shown, normalised (ModelPositions.to_json): the visitor's too, never uploaded.
        self._json = pn.widgets.FileDownload(
            callback=lambda: io.StringIO(self.model_json()),
            filename="model-positions.json",
            label="Download the model as JSON",
            color="default",
            width=240,
            css_classes=["pe-model-json"],
        )
        super().__init__(**params)
        self._paste.param.watch(self._pasted_text, "value")
        self._clear.on_click(self._back_to_preset)
        self._what_if.on_click(self.what_if)

    def extra_panes(self) -> list:
        self._status = self.text_pane(STYLE, css_class="pe-model-status-pane")
        self._findings = self.text_pane(STYLE, css_class="pe-model-findings-pane")
        return [self._findings]

    def model(self) -> ModelPositions:
        """The model shown: the visitor's when given and readable, else the preset."""
        if self._pasted is None and self._file is None:
            return derived.preset_both(self.state.model)
        if self._model is None:
            self._model = self._read_given()
        return self._model

    def _read_given(self) -> ModelPositions:
        given = [x for x in (self._pasted, self._file) if x is not None]
        given.sort(key=lambda loaded: loaded.kind == "safetensors")
        try:
            self._problem = ""
            return read_model(*given)
        except ValueError as error:
            self._problem = str(error)
            return derived.preset_both(self.state.model)

    def figure(self) -> dict:
        figure = model_figure(self.state, self.model())
        figure["layout"].setdefault("height", self.spec.plot_height)
        return figure

    def description(self) -> str:
        return describe_model(self.model())

    def data_table(self) -> ChartData:
        return data(self.state, self.model())

    def update_extras(self) -> None:
        model = self.model()
        self._findings.object = findings_html(model)
        given = [x.kind for x in (self._pasted, self._file) if x is not None]
        if self._problem:
            text = f"Your model could not be read, so the preset is shown: {self._problem}"
            self._status.object = (
                f'<p class="pe-model-status pe-model-error" role="alert">{html.escape(text)}</p>'
            )
        elif given:
            read = ""
            if self._file is not None and self._file.kind != "config.json":
                done, size = self._slices.last_read
                read = f" (read {done / 2**20:.1f} MiB of {size / 2**20:,.1f} MiB, by slices)"
            shown = html.escape(" and ".join(given))
            self._status.object = (
                f'<p class="pe-model-status">Showing your {shown}{read}; '
                f"{html.escape(engine_line(model))}.</p>"
            )
        else:
            self._status.object = (
                f'<p class="pe-model-status">Showing the preset {html.escape(model.name)}; '
                f"{html.escape(engine_line(model))}{html.escape(both_line(self.state.model))}. "
                f"{what_if_link(self.state.model)}</p>"
            )
        self._clear.disabled = not given and not self._problem
        self._what_if.visible = bool(given) and not self._problem

    def _pasted_text(self, event) -> None:
        text = (event.new or "").strip()
        try:
            self._pasted = load(text) if text else None
        except ValueError as error:
            self._pasted = None
            self._problem = str(error)
            self._model = None
            return self._refresh_with_problem()
        self._given_changed()

    def _file_read(self, name: str, result) -> None:
        if isinstance(result, ValueError):
            self._file = None
            self._problem = f"{name[:80]}: {result}"
            self._model = None
            return self._refresh_with_problem()
        result.name = result.name or name
        self._file = result
        self._given_changed()

    def show_given(self, loaded: Loaded) -> None:
        """Show a model given from Python (notebook.show(model=…)) as a chosen file is shown."""
        self._file_read(loaded.name or "your model", loaded)

    def _hub_answered(self, event) -> None:
        """The Hub's answer read as a chosen config.json named by the model id, or its problem."""
        try:
            model_id, text = hub_text(event.new or {})
        except ValueError as error:
            model_id = str((event.new or {}).get("id", ""))[:200]
            return self._file_read(model_id or "the Hub", error)
        try:
            config = parse_json(text)
        except ValueError as error:
            return self._file_read(model_id, error)
        self._file_read(model_id, Loaded(config, name=model_id, kind=f"config.json of {model_id}"))

    def _given_changed(self) -> None:
        self._model, self._problem = None, ""
        self._refresh()
        self._share_reading()

    def _refresh_with_problem(self) -> None:
        problem = self._problem
        self._refresh()
        self._problem = problem
        self.update_extras()
        self._share_reading()

    def _back_to_preset(self, event=None) -> None:
        self._pasted = self._file = self._model = None
        self._problem = ""
        self._paste.value = ""
        self._refresh()
        self._share_reading()

    def _share_reading(self) -> None:
        """The visitor's model, read, into the state for the mistakes view (state.visitor_model,
        never in the link); None while none is given or it cannot be read."""
        reading = None
        if (self._pasted is not None or self._file is not None) and not self._problem:
            model = self.model()
            reading = None if self._problem else VisitorModel.of(model)
        if reading != self.state.visitor_model:
            self.state.visitor_model = reading
        self._what_if.visible = reading is not None

    def what_if(self, event=None) -> None:
        """The mistakes view on the visitor's model (mistake_on=upload), shown by the page in
        place of this one, as the preset's what-if link does, without loading the page again."""
        self._share_reading()
        if self.state.visitor_model is None:
            return
        self.state.mistake_on = "upload"
        self.asks_for = "mistakes"
        self.asks_for = ""

    def model_json(self) -> str:
        """The model shown, normalised: layers, inv_freq, findings and sources, as JSON."""
        return json.dumps(self.model().to_json(), indent=1)

    def code(self) -> str:
        """The NumPy script of the model shown (the visitor's when given)."""
        return code(self.state, self.model())

    def content(self) -> pn.Column:
        inputs = pn.Column(
            self._reader,
            self._hub,
            self._paste,
            pn.FlexBox(self._clear, self._json, self._what_if, sizing_mode="stretch_width"),
            pn.pane.HTML(HELP, stylesheets=[STYLE], sizing_mode="stretch_width", margin=(0, 8)),
            self._status,
            sizing_mode="stretch_width",
        )
        return pn.Column(
            inputs,
            self._error,
            self._plot,
            self._data,
            *self._extras,
            sizing_mode="stretch_width",
            css_classes=["pe-model"],
        )


def code(state: ExplorerState, model: ModelPositions | None = None) -> str:
    """Export / Code: a NumPy script recomputing every layer type's inv_freq."""
    return model_program(model or derived.preset_both(state.model))

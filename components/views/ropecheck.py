"""Check a RoPE config: the visitor's inv_freq against the frequencies of the config they meant.

The check is components/rope_diagnosis.py's `diagnose_rope` (the function a notebook calls), and
rope_diagnosis reads the visitor's .npy file or pasted numbers (INV_FREQ_UPLOAD); this view takes
the config from the state (the RoPE scaling controls), shows the verdict and draws the evidence:
their inv_freq against the expected one per pair, and the relative error per pair with the pairs
where it differs marked.
"""

from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass

import numpy as np
import panel as pn
import param

from .. import derived, scaling
from ..code_templates import rope_check_program
from ..model.presets import PRESETS
from ..model.reader import scaling_settings
from ..plotkit import theme
from ..plotkit.charts import message_figure, panel_caption
from ..plotkit.frame import DATA_COLUMNS, ChartData
from ..plotkit.subplots import Subplot, compose
from ..plotkit.upload import (
    UploadView,
    box_style,
    file_input,
    input_button,
    labelled_choice,
    paste_box,
)
from ..rope_diagnosis import (
    INV_FREQ_UPLOAD,
    MAX_PASTE_CHARS,
    RELATIVE_TOLERANCE,
    SIZE_CAP,
    InvFreqError,
    RopeDiagnosis,
    diagnose_rope,
    example_mistake,
)
from ..state import ExplorerState

ACCEPT = ".npy,.csv,.txt"
# How the numbers of a d_head-long vector (one per dimension, as cos and sin are built) pair up.
PAIRINGS = {"Detect": "auto", "Interleaved": "interleaved", "Half-split": "half-split"}
# The Show data table lists at most this many pairs: the worst and some spread over the rest.
DATA_PAIRS = DATA_COLUMNS
# A log axis cannot show 0: an exact match is drawn at this relative error.
ZERO_ERROR = 1e-17
STYLE = (
    box_style("pe-ropecheck-verdict", "pe-ropecheck")
    + """
.pe-ropecheck-help p { margin: 0.3em 0; font-size: 0.9em; line-height: 1.4; }
.pe-ropecheck-help p code { overflow-wrap: anywhere; }
.pe-ropecheck-help pre { background: var(--pe-code-bg, #f6f8fa); padding: 0.5em 0.8em;
                         border-radius: 6px; overflow-x: auto; font-size: 0.85em; margin: 0.2em 0; }
"""
)

HELP = (
    '<div class="pe-ropecheck-help"><p>To get the inv_freq of a <code>transformers</code> '
    "model, run this line and paste what it prints:</p>"
    '<pre><code>print(*model.model.rotary_emb.inv_freq.tolist(), sep=",")</code></pre>'
    "<p>(Older versions keep it in each layer: "
    "<code>model.model.layers[0].self_attn.rotary_emb.inv_freq</code>; save it as a file with "
    '<code>np.save("inv_freq.npy", inv_freq.cpu().numpy())</code>.) Only the frequencies are '
    "checked, not YaRN's or LongRoPE's attention factor. On the static site your numbers are "
    "read in your browser and never leave it; under <code>panel serve</code> they go to that "
    f"server, which applies the same cap: {html.escape(SIZE_CAP)}.</p></div>"
)


class ConfigError(ValueError):
    """The config set by the controls cannot be computed (e.g. LongRoPE without its factors)."""


# ---- The config the visitor meant --------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """A scaled RoPE config, as the state's scaling controls set it."""

    method: str
    d_head: int
    base: float
    factor: float
    original_context: int
    params: tuple[tuple[str, object], ...]  # the method's own parameters, in published order

    def arguments(self) -> tuple[str, int, float, float, int]:
        return self.method, self.d_head, self.base, self.factor, self.original_context

    def text(self) -> str:
        """The config in words: "YaRN, d_head 128, base 10000, s = 4, L = 4096, …"."""
        return ", ".join(part for part in self.lines() if part)

    def lines(self) -> tuple[str, str]:
        """The config in words, as two lines: the model and scaling, then the method's own
        parameters ("" when it has none)."""
        parts = [
            "no scaling" if self.method == "none" else scaling.SCALING_LABELS[self.method],
            f"d_head {self.d_head}",
            f"base {self.base:g}",
        ]
        if self.method != "none":
            parts.append(f"s = {self.factor:g}")
        parts.append(f"L = {self.original_context}")
        return ", ".join(parts), ", ".join(_parameter_text(*item) for item in self.params)


def _parameter_text(name: str, value) -> str:
    """One of a method's own parameters in words."""
    if name == "factors":
        return f"{len(value)} per-pair factors"
    if name == "seq_len":
        return f"sequence length {value}"
    if isinstance(value, bool):
        return f"{name} {'on' if value else 'off'}"
    return f"{name} {value:g}"


def config(state: ExplorerState) -> Config:
    """The config of the state's scaling controls, its d_model read as d_head."""
    method = scaling.check_scaling(state.scaling)
    try:
        params = derived.scaling_parameters(state, method)
    except ValueError as error:  # LongRoPE factors that are not numbers, or not d_head / 2
        raise ConfigError(str(error)) from None
    return Config(
        method=method,
        d_head=int(state.d_model),
        base=float(state.base),
        factor=float(state.factor),
        original_context=int(state.original_context),
        params=tuple(
            (name, tuple(value) if name == "factors" else value) for name, value in params.items()
        ),
    )


def expected_frequencies(state: ExplorerState) -> tuple[Config, derived.ScaledRope]:
    """The config and its model: the unscaled inv_freq θᵢ and the expected θ′ᵢ, or
    ConfigError."""
    chosen = config(state)
    model = derived.scaled_rope(state)
    if model.problem:
        raise ConfigError(model.problem)
    return chosen, model


# ---- The check ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RopeCheck:
    """A diagnosis of the visitor's array and what it was checked against."""

    config: Config
    diagnosis: RopeDiagnosis
    given: int  # how many numbers were given (d_head / 2, or d_head)
    dtype: str  # the dtype they came in

    @property
    def worst_pair(self) -> int:
        return int(np.argmax(self.diagnosis.relative_error))

    @property
    def max_error(self) -> float:
        return float(self.diagnosis.relative_error.max())


def check(
    state: ExplorerState, inv_freq: np.ndarray | None, pairing: str = "auto"
) -> RopeCheck | InvFreqError | ConfigError | None:
    """The diagnosis of inv_freq against the state's config (None without an array; the error
    saying why when the config or the array cannot be checked)."""
    try:
        chosen, _ = expected_frequencies(state)
    except ConfigError as error:
        return error
    if inv_freq is None:
        return None
    layout = None if pairing == "auto" else pairing
    try:
        diagnosis = diagnose_rope(
            inv_freq, *chosen.arguments(), layout=layout, **dict(chosen.params)
        )
    except ValueError as error:
        return InvFreqError(str(error))
    return RopeCheck(chosen, diagnosis, int(inv_freq.size), str(inv_freq.dtype))


def example_arrays(state: ExplorerState) -> tuple[np.ndarray | None, tuple[str, np.ndarray] | None]:
    """The config's right inv_freq, and a buggy one with the name of its bug
    (rope_diagnosis.example_mistake); None for what cannot be given."""
    try:
        chosen, model = expected_frequencies(state)
    except ConfigError:
        return None, None
    return model.scaled, example_mistake(*chosen.arguments(), **dict(chosen.params))


def numbers_text(values: np.ndarray) -> str:
    """Numbers as a person pastes them: comma-separated, 10 significant digits."""
    return ", ".join(f"{value:.10g}" for value in values)


# ---- The figure: inv_freq per pair on top, the relative error per pair below -------------------

# Panels: inv_freq per pair on top, the relative error per pair below.
TOP, BOTTOM = (0.5, 1.0), (0.0, 0.36)


def _log_axis(title: str) -> dict:
    return {"type": "log", "exponentformat": "power", "title": {"text": title}}


def _frequency_traces(chosen: Config, model: derived.ScaledRope) -> list[dict]:
    """The expected inv_freq per pair, and the unscaled one when the method scales."""
    pairs = np.arange(model.scaled.size)
    unscaled = {
        "type": "scatter",
        "mode": "lines",
        "x": pairs,
        "y": model.original,
        "line": {"color": theme.PAIR_COLOURS[2], "width": 1.5, "dash": "dot"},
        "name": "unscaled θᵢ",
        "hovertemplate": "pair %{x}<br>unscaled %{y:.8g}<extra></extra>",
    }
    expected = {
        "type": "scatter",
        "mode": "lines",
        "x": pairs,
        "y": model.scaled,
        "line": {"color": theme.PAIR_COLOURS[0], "width": 2},
        "name": "expected θ′ᵢ",
        "hovertemplate": "pair %{x}<br>expected %{y:.8g}<extra></extra>",
    }
    return [expected] if chosen.method == "none" else [unscaled, expected]


def _rings(pairs: np.ndarray, values: np.ndarray, bug: str, colour: str, legend: bool) -> dict:
    """Rings around the pairs where the visitor's array differs."""
    return {
        "type": "scatter",
        "mode": "markers",
        "x": pairs,
        "y": values[pairs],
        "marker": {"color": "rgba(0,0,0,0)", "size": 10, "line": {"color": colour, "width": 1.5}},
        "name": f"pairs where it differs ({pairs.size})",
        "legendgroup": "differs",
        "showlegend": legend,
        "hovertemplate": f"pair %{{x}}: {html.escape(bug)}<extra></extra>",
    }


def frequency_subplot(
    state: ExplorerState, chosen: Config, model: derived.ScaledRope, result=None
) -> Subplot:
    """The expected inv_freq per pair (and the unscaled one); with a check, the visitor's and
    rings where it differs."""
    traces = _frequency_traces(chosen, model)
    if isinstance(result, RopeCheck):
        diagnosis = result.diagnosis
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": np.arange(diagnosis.theirs.size),
                "y": diagnosis.theirs,
                "marker": {"color": theme.PAIR_COLOURS[1], "size": 5, "symbol": "x"},
                "name": "yours",
                "hovertemplate": "pair %{x}<br>yours %{y:.8g}<extra></extra>",
            }
        )
        traces += _flagged_rings(state, diagnosis, diagnosis.theirs, legend=True)
    return Subplot(traces, {}, _log_axis("θ′ᵢ (rad / position)"), ((0.0, 1.0), TOP))


def _flagged_rings(state, diagnosis: RopeDiagnosis, values: np.ndarray, legend: bool) -> list:
    flagged = np.asarray(diagnosis.pairs, dtype=int)
    if not flagged.size:
        return []
    colour = theme.colours(state.theme)["pos"]
    return [_rings(flagged, values, diagnosis.bug or "no known mistake", colour, legend)]


def error_subplot(state: ExplorerState, result=None) -> Subplot:
    """The relative error per pair against the tolerance (dashed), rings where it passes it;
    before any array, a note saying it will be drawn here."""
    y_axis = _log_axis("relative error")
    notes = [panel_caption(f"relative error; dashed: {RELATIVE_TOLERANCE:g}", 0, BOTTOM[1])]
    if isinstance(result, RopeCheck):
        traces = _error_traces(state, result.diagnosis)
    else:
        traces, awaiting = _awaiting(state)
        notes += awaiting
        y_axis["range"] = [-12, 1]
    return Subplot(
        traces,
        {"matches": "x", "title": {"text": "pair i"}},
        y_axis,
        ((0.0, 1.0), BOTTOM),
        shapes=[_tolerance_line(state)],
        annotations=notes,
    )


def _error_traces(state: ExplorerState, diagnosis: RopeDiagnosis) -> list[dict]:
    """The relative error per pair (an exact match drawn at ZERO_ERROR), ringed where it
    differs."""
    error = diagnosis.relative_error
    drawn = np.maximum(error, ZERO_ERROR)
    line = {
        "type": "scatter",
        "mode": "lines+markers",
        "x": np.arange(error.size),
        "y": drawn,
        "customdata": error,
        "line": {"color": theme.PAIR_COLOURS[1], "width": 1.5},
        "marker": {"size": 4},
        "name": "relative error |yours − expected| / expected",
        "showlegend": False,
        "hovertemplate": "pair %{x}<br>relative error %{customdata:.3g}<extra></extra>",
    }
    return [line, *_flagged_rings(state, diagnosis, drawn, legend=False)]


def _tolerance_line(state: ExplorerState) -> dict:
    return {
        "type": "line",
        "xref": "x domain",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": RELATIVE_TOLERANCE,
        "y1": RELATIVE_TOLERANCE,
        "line": {"color": theme.colours(state.theme)["text"], "width": 1, "dash": "dash"},
    }


def _awaiting(state: ExplorerState) -> tuple[list[dict], list[dict]]:
    """Before any array: an invisible point that keeps the lower panel's axes drawn, and the
    note that the relative error will be drawn there."""
    point = {
        "type": "scatter",
        "mode": "markers",
        "x": np.array([0]),
        "y": np.array([RELATIVE_TOLERANCE]),
        "marker": {"opacity": 0},
        "showlegend": False,
        "hoverinfo": "skip",
        "name": "",
    }
    note = {
        "text": "Give your inv_freq above:<br>its relative error per pair is drawn here",
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": BOTTOM[1] * 0.2,
        "showarrow": False,
        "font": {"size": 13},
        "bgcolor": theme.colours(state.theme)["paper"],
    }
    return [point], [note]


def _layout(state: ExplorerState, chosen: Config, heading: str) -> dict:
    """The two panels' title (the heading and the config in words), margins and legend."""
    layout = theme.base_layout(state.theme, uirevision=f"ropecheck-{chosen.d_head}")
    subtitle = "".join(f"<br><sub>{html.escape(line)}</sub>" for line in chosen.lines() if line)
    layout.update(
        title={"text": heading + subtitle, "x": 0, "font": {"size": 14}},
        margin={"l": 72, "r": 24, "t": 108, "b": 64},
        showlegend=True,
        legend={"orientation": "h", "x": 0, "y": -0.17, "yanchor": "top"},
    )
    return layout


def figure(state: ExplorerState) -> dict:
    """Before any array: the config's expected inv_freq (and the unscaled one) per pair."""
    try:
        chosen, model = expected_frequencies(state)
    except ConfigError as error:
        return problem_figure(state, str(error))
    layout = _layout(state, chosen, "The expected inv_freq θ′ᵢ per pair")
    return compose(state, layout, [frequency_subplot(state, chosen, model), error_subplot(state)])


def evidence_figure(state: ExplorerState, result: RopeCheck) -> dict:
    """Their inv_freq against the expected per pair; below, the relative error per pair, with
    the pairs where it differs ringed."""
    _, model = expected_frequencies(state)
    layout = _layout(state, result.config, "Your inv_freq against the expected, per pair")
    subplots = [
        frequency_subplot(state, result.config, model, result),
        error_subplot(state, result),
    ]
    return compose(state, layout, subplots)


def problem_figure(state: ExplorerState, message: str) -> dict:
    """Empty panels saying why the config cannot be drawn (Plotly reads tags: escaped)."""
    lines = textwrap.wrap(message, 60, break_long_words=False, break_on_hyphens=False)
    text = "<br>".join(html.escape(line) for line in lines)
    return message_figure(state, "ropecheck-problem", "The config cannot be computed", text, 0.6)


# ---- Verdict, accessible name, data table and code --------------------------------------------


def verdict_html(result, state: ExplorerState) -> str:
    """The verdict (or what is expected, before any array) as HTML; all text escaped."""
    if isinstance(result, ConfigError):
        return _box("error", f"Not checked: the config cannot be computed: {result}.")
    chosen, model = expected_frequencies(state)
    if result is None:
        return (
            '<div class="pe-ropecheck-verdict"><p>No inv_freq yet: choose a .npy file or paste '
            f"numbers (d_head / 2 = {model.scaled.size}, pair 0 first; a vector of d_head = "
            f"{chosen.d_head} works too), or try an example. It will be compared with the "
            f"config set in this card: <b>{html.escape(chosen.text())}</b>.</p></div>"
        )
    if isinstance(result, InvFreqError):
        return _box(
            "error",
            f"Not checked: {result}.",
            f"The config it would be compared with: {chosen.text()}.",
        )
    kind = "match" if result.diagnosis.ok else "mistake"
    lines = "".join(f"<p>{line}</p>" for line in _verdict_lines(result))
    return f'<div class="pe-ropecheck-verdict pe-ropecheck-{kind}">{lines}</div>'


def _verdict_lines(result: RopeCheck) -> list[str]:
    """The verdict on a check, line by line (HTML, every text escaped)."""
    diagnosis, chosen = result.diagnosis, result.config
    if diagnosis.ok:
        head = "It matches the config."
    elif diagnosis.bug:
        head = f"It does not match. Likely bug: {diagnosis.bug}."
    else:
        head = "It does not match the config."
    text = diagnosis.text[0].upper() + diagnosis.text[1:]
    lines = [f"<b>{html.escape(head)}</b>", f"{html.escape(text)}."]
    worst = result.worst_pair
    if not diagnosis.ok:
        lines.append(
            f"Worst at pair {worst}: yours {diagnosis.theirs[worst]:.8g}, expected "
            f"{diagnosis.expected[worst]:.8g} (relative error {result.max_error:.3g})."
        )
    given = f"{result.given} numbers ({html.escape(result.dtype)})"
    if result.given == chosen.d_head and chosen.d_head > 2:
        given += ", read as one per dimension"
    against = html.escape(chosen.text())
    lines.append(f"Checked: {given} against {against}, to {RELATIVE_TOLERANCE:g} relative.")
    if result.dtype == "float16":
        lines.append(
            "float16 alone rounds by up to 5e-4 relative, more than the tolerance: save the "
            "array in float32 or float64."
        )
    return lines


def _box(kind: str, *lines: str) -> str:
    """A verdict box of plain-text lines, each escaped."""
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return f'<div class="pe-ropecheck-verdict pe-ropecheck-{kind}">{body}</div>'


def describe(state: ExplorerState, result=None) -> str:
    """The chart's accessible name: the expected inv_freq before any array, else the verdict
    with the worst pair and the largest relative error."""
    if isinstance(result, ConfigError):
        return f"No chart: the RoPE config cannot be computed: {result}"
    try:
        chosen, model = expected_frequencies(state)
    except ConfigError as error:
        return f"No chart: the RoPE config cannot be computed: {error}"
    if not isinstance(result, RopeCheck):
        expected = model.scaled
        given = "yours was not read, " if isinstance(result, InvFreqError) else ""
        return (
            f"The expected inv_freq of {chosen.text()}: {expected.size} pairs from "
            f"{expected[0]:.6g} (pair 0) to {expected[-1]:.6g} (pair {expected.size - 1}), "
            f"{given}no inv_freq of yours checked yet"
        )
    diagnosis = result.diagnosis
    if diagnosis.ok:
        verdict = "it matches"
    else:
        verdict = f"it does not match, likely bug: {diagnosis.bug or 'none known'}"
    return (
        f"Your inv_freq, {result.given} numbers, against {chosen.text()}: {verdict}; worst at "
        f"pair {result.worst_pair}, max relative error {result.max_error:.3g}"
    )


def shown_pairs(n_pairs: int, flagged: tuple[int, ...], worst: int) -> list[int]:
    """The pairs the data table lists: spread over the flagged ones (or all), and the worst."""
    among = list(flagged) or list(range(n_pairs))
    count = min(DATA_PAIRS - 1, len(among))
    picked = {among[round(j)] for j in np.linspace(0, len(among) - 1, count)}
    return sorted(picked | {worst})


def data(state: ExplorerState, result=None) -> ChartData:
    """Per pair: yours, the expected and the relative error (the expected and the unscaled
    before any array; the unscaled alone when the config cannot be computed)."""
    try:
        chosen, model = expected_frequencies(state)
    except ConfigError as error:
        plain = derived.scaled_rope(state).original
        rows = shown_pairs(plain.size, (), 0)
        return ChartData(
            caption="Unscaled inv_freq per pair (the config cannot be computed)",
            columns=("pair", "unscaled θᵢ"),
            rows=tuple((i, f"{plain[i]:.6g}") for i in rows),
            note=f"{len(rows)} of {plain.size} pairs shown. {error}",
        )
    if not isinstance(result, RopeCheck):
        expected, plain = model.scaled, model.original
        rows = shown_pairs(expected.size, (), 0)
        return ChartData(
            caption=f"Expected inv_freq per pair: {chosen.text()}",
            columns=("pair", "expected θ′ᵢ", "unscaled θᵢ"),
            rows=tuple((i, f"{expected[i]:.6g}", f"{plain[i]:.6g}") for i in rows),
            note=f"Pairs {', '.join(map(str, rows))} of {expected.size} shown, spread evenly.",
        )
    return _check_data(result)


def _check_data(result: RopeCheck) -> ChartData:
    """The check's table: yours, the expected and the relative error of the pairs it lists."""
    diagnosis = result.diagnosis
    rows = shown_pairs(diagnosis.expected.size, diagnosis.pairs, result.worst_pair)
    among = "where yours differs" if diagnosis.pairs else "spread evenly"
    return ChartData(
        caption=f"Your inv_freq against the expected per pair: {result.config.text()}",
        columns=("pair", "yours", "expected", "relative error"),
        rows=tuple(
            (
                i,
                f"{diagnosis.theirs[i]:.8g}",
                f"{diagnosis.expected[i]:.8g}",
                f"{diagnosis.relative_error[i]:.2e}",
            )
            for i in rows
        ),
        note=f"Pairs {', '.join(map(str, rows))} of {diagnosis.expected.size} shown ({among}, "
        f"and the worst, pair {result.worst_pair}).",
    )


def code(state: ExplorerState, theirs: np.ndarray | None = None) -> str:
    """A standalone NumPy script: the expected inv_freq of the state's config from the published
    formulas, compared with an array (theirs, or a line to replace with yours)."""
    chosen = config(state)
    return rope_check_program(chosen.text(), chosen.arguments(), dict(chosen.params), theirs)


# ---- The view ----------------------------------------------------------------------------------


class RopeCheckView(UploadView):
    """A file input and a text box for the visitor's inv_freq, two examples, the verdict and
    its evidence. The inputs are the visitor's own, never put in a link; the verdict follows the
    config (the state's scaling controls) and the theme."""

    pairing = param.Selector(
        default="auto",
        objects=list(PAIRINGS.values()),
        doc="How a vector of d_head numbers (one per dimension) pairs up; auto detects it.",
    )

    def __init__(self, **params):
        self._right_example = input_button(
            "Try a correct array",
            "pe-ropecheck-right",
            180,
            description="Paste the config's own inv_freq into the box and check it",
            color="default",
        )
        self._buggy_example = input_button(
            "Try a buggy one",
            "pe-ropecheck-buggy",
            320,
            description="Paste an inv_freq with a known bug into the box and check it",
            color="default",
        )
        super().__init__(
            file=file_input(
                "A file of your inv_freq (.npy, .csv or .txt)", ACCEPT, "pe-ropecheck-file"
            ),
            text=paste_box(
                "Or paste its numbers",
                "1.0, 0.8659643, 0.7498942, … (commas, spaces or a printed tensor)",
                MAX_PASTE_CHARS,
                3,
                "pe-ropecheck-text",
            ),
            **params,
        )
        self._pairing = self.choice(
            "pairing", "A vector of d_head numbers pairs", "pe-ropecheck-pairing", options=PAIRINGS
        )
        self._right_example.on_click(lambda event: self.try_example(buggy=False))
        self._buggy_example.on_click(lambda event: self.try_example(buggy=True))
        self._reference = ModelReference(self.state)

    def extra_panes(self) -> list:
        """The verdict, drawn above the plot (see content)."""
        self._verdict = self.text_pane(STYLE, css_class="pe-ropecheck-verdict-pane")
        return [self._verdict]

    def update_extras(self) -> None:
        self._verdict.object = verdict_html(self.result(), self.state)
        _, buggy = example_arrays(self.state)
        self._buggy_example.disabled = buggy is None
        self._right_example.disabled = isinstance(self.result(), ConfigError)
        label = "Try a buggy one" if buggy is None else f"Try a buggy one ({buggy[0]})"
        if self._buggy_example.label != label:
            self._buggy_example.label = label

    def evidence(self, result) -> dict | None:
        if isinstance(result, RopeCheck):
            return evidence_figure(self.state, result)
        return None

    def code(self) -> str:
        """The NumPy script for the state's config, comparing the visitor's array when read."""
        result = self.result()
        theirs = self._array() if isinstance(result, RopeCheck) else None
        return code(self.state, theirs)

    def _array(self) -> np.ndarray | InvFreqError | None:
        """The visitor's input read once per input (InvFreqError when unreadable)."""
        return self.once_per(self._source, self._read, slot="array")

    def _read(self) -> np.ndarray | InvFreqError | None:
        try:
            return self.read_input(INV_FREQ_UPLOAD)
        except InvFreqError as error:
            return error

    def result(self):
        """The check of the visitor's array against the state's config, computed once per
        input, pairing and config (see `check`)."""
        config_key = (self.state.scaling, derived.ScalingSettings.of(self.state))
        key = (self._source, self.pairing, config_key)
        return self.once_per(key, self._check)

    def _check(self):
        array = self._array()
        if isinstance(array, InvFreqError):
            problem = check(self.state, None)
            return problem if isinstance(problem, ConfigError) else array
        return check(self.state, array, self.pairing)

    def try_example(self, buggy: bool) -> None:
        """Paste an example into the box and check it: the config's right array or a buggy one."""
        right, wrong = example_arrays(self.state)
        example = (None if wrong is None else wrong[1]) if buggy else right
        if example is None:
            return  # the config cannot be computed, or no example bug shows at this size
        text = numbers_text(example)
        self.check_text(text)
        self._text.value = text

    def content(self) -> pn.Column:
        inputs = self.inputs(
            "Your inv_freq: d_head / 2 numbers, pair 0 first, as a .npy file or pasted",
            labelled_choice(
                "A vector of d_head numbers pairs dimensions as GPT-J (interleaved) or GPT-NeoX "
                "and Llama (half-split):",
                self._pairing,
            ),
            pn.FlexBox(
                self._right_example,
                self._buggy_example,
                flex_wrap="wrap",
                sizing_mode="stretch_width",
            ),
            self._reference.panel(),
            note=HELP,
            style=STYLE,
        )
        return self.column(inputs, self._verdict, self._data, css_class="pe-ropecheck")


class ModelReference:
    """A published model's layer type as the reference: choosing one sets this card's scaling
    controls to it (its rotary size as d_head), as a preset does."""

    def __init__(self, state: ExplorerState):
        self.state = state
        self._model = pn.widgets.Select(
            label="Or check against a published model",
            options={"(the controls above)": "", **{e["label"]: k for k, e in PRESETS.items()}},
            sizing_mode="stretch_width",
            css_classes=["pe-ropecheck-model"],
            margin=(4, 8),
        )
        self._layer = pn.widgets.RadioButtonGroup(
            label="Its layer type",
            options=[],
            visible=False,
            css_classes=["pe-ropecheck-layer"],
            margin=(4, 8),
        )
        self._note = pn.pane.HTML("", margin=(0, 8), css_classes=["pe-ropecheck-model-note"])
        self._model.param.watch(self._model_chosen, "value")
        self._layer.param.watch(lambda event: self._apply(), "value")

    def _types(self):
        model = derived.preset_model(self._model.value)
        return model, [(layer, idx) for layer, idx in model.layer_types() if layer.method == "rope"]

    def _model_chosen(self, event) -> None:
        if not event.new:
            self._layer.visible, self._note.object = False, ""
            return
        _, types = self._types()
        names = [f"{layer.kind} ({len(idx)} layers)" for layer, idx in types]
        self._layer.options = names
        self._layer.visible = len(names) > 1
        if names and self._layer.value != names[0]:
            self._layer.value = names[0]  # applies it
        else:
            self._apply()

    def _apply(self) -> None:
        model, types = self._types()
        names = list(self._layer.options)
        chosen = names.index(self._layer.value) if self._layer.value in names else 0
        if not types:
            self._note.object = f"<p>{html.escape(model.name)} has no rotary layers.</p>"
            return
        layer = types[chosen][0]
        settings, why = scaling_settings(layer, model)
        if not settings:
            self._note.object = f"<p>Not applied: {html.escape(why)}.</p>"
            return
        self.state.param.update(**settings)
        self._note.object = (
            f"<p>The controls now hold {html.escape(model.name)}'s {html.escape(layer.kind)} "
            f"layers: {html.escape(settings['scaling'])}, d_head {layer.rotary_dim}, "
            f"base {layer.theta:g} (Your model view shows the whole model).</p>"
        )

    def panel(self) -> pn.Column:
        return pn.Column(self._model, self._layer, self._note, sizing_mode="stretch_width")

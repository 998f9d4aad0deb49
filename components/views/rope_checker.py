"""Check a RoPE config: the visitor's inv_freq against the frequencies of the config they meant.

The check is components/rope_diagnosis.py's `diagnose_rope` (the function a notebook calls);
this view reads the visitor's .npy file or pasted numbers, takes the config from the state (the
RoPE scaling controls), shows the verdict and draws the evidence: their inv_freq against the
expected one per pair, and the relative error per pair with the pairs where it differs marked.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass

import numpy as np
import panel as pn
import param

from .. import diagnosis as diagnose
from .. import encoding, scaling
from ..plotkit import theme
from ..plotkit.charts import message_figure, panel_caption
from ..plotkit.frame import DATA_COLUMNS, ChartData
from ..plotkit.upload import (
    UploadView,
    box_style,
    file_input,
    input_button,
    labelled_choice,
    paste_box,
)
from ..rope_diagnosis import RELATIVE_TOLERANCE, RopeDiagnosis, diagnose_rope
from ..state import ExplorerState
from .scaling import method_parameters

# An inv_freq has d_head / 2 numbers (or d_head, one per dimension): at most MAX_D_MODEL.
MAX_NUMBERS = encoding.MAX_D_MODEL
# A float64 .npy of MAX_NUMBERS numbers is 16 KiB; text of them, a few times that.
MAX_FILE_BYTES = 1 << 20
MAX_PASTE_CHARS = 200_000
SIZE_CAP = (
    f"at most {MAX_NUMBERS} numbers, in a file of at most 1 MiB or {MAX_PASTE_CHARS:,} "
    "characters of text"
)
ACCEPT = ".npy,.csv,.txt"
# How the numbers of a d_head-long vector (one per dimension, as cos and sin are built) pair up.
PAIRINGS = {"Detect": "auto", "Interleaved": "interleaved", "Half-split": "half-split"}
# The Show data table lists at most this many pairs: the worst and some spread over the rest.
DATA_PAIRS = DATA_COLUMNS
# A log axis cannot show 0: an exact match is drawn at this relative error.
ZERO_ERROR = 1e-17
# Panels: inv_freq per pair on top, the relative error per pair below.
TOP, BOTTOM = [0.5, 1.0], [0.0, 0.36]

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


class InvFreqError(ValueError):
    """The visitor's input is not an inv_freq this check can read; one line for the page."""


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
        own = []
        for name, value in self.params:
            if name == "factors":
                own.append(f"{len(value)} per-pair factors")
            elif name == "seq_len":
                own.append(f"sequence length {value}")
            elif isinstance(value, bool):
                own.append(f"{name} {'on' if value else 'off'}")
            else:
                own.append(f"{name} {value:g}")
        return ", ".join(parts), ", ".join(own)


def config(state: ExplorerState) -> Config:
    """The config of the state's scaling controls, its d_model read as d_head."""
    method = scaling.check_scaling(state.scaling)
    try:
        params = method_parameters(state, method)
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


def expected_frequencies(state: ExplorerState) -> tuple[Config, np.ndarray]:
    """The config and its inv_freq (scaling.rope_scaled_frequencies), or ConfigError."""
    chosen = config(state)
    try:
        expected, _ = scaling.rope_scaled_frequencies(*chosen.arguments(), **dict(chosen.params))
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return chosen, expected


# ---- Reading the visitor's inv_freq ------------------------------------------------------------

# NumPy's and PyTorch's printed arrays: array([...], dtype=float32), tensor([...]), and lists of
# NumPy numbers [np.float64(1.0), …]: their wrappers are dropped, leaving the numbers.
_WRAPPERS = re.compile(
    r"\b(?:array|tensor|np\.\w+|torch\.\w+)\(|\b(?:dtype|device|requires_grad|grad_fn)=[^,\])]*"
    r"|[()\[\]]",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[\s,;]+")


def read_text(text: str) -> np.ndarray:
    """The numbers of pasted text or a text file: separated by commas, semicolons, spaces or
    lines, or a printed NumPy array / PyTorch tensor / list. A first line without a number (a
    header) and lines starting with # are skipped."""
    if len(text) > MAX_PASTE_CHARS:
        raise InvFreqError(
            f"over the size cap: the text has {len(text):,} characters; the cap is {SIZE_CAP}"
        )
    if "..." in text or "…" in text:
        raise InvFreqError(
            "not the whole array: it was printed with '...' in place of the middle; print it "
            'with print(*inv_freq.tolist(), sep=",")'
        )
    lines = [
        line for line in text.lstrip("\ufeff").splitlines() if not line.lstrip().startswith("#")
    ]
    rows = [_SEPARATORS.split(_WRAPPERS.sub(" ", line).strip()) for line in lines]
    rows = [[token for token in row if token] for row in rows]
    rows = [row for row in rows if row]
    if len(rows) > 1 and not any(_is_number(token) for token in rows[0]):
        rows = rows[1:]
    tokens = [token for row in rows for token in row]
    if not tokens:
        raise InvFreqError("empty: there are no numbers")
    if len(tokens) > MAX_NUMBERS:
        raise InvFreqError(f"over the size cap: {len(tokens):,} numbers; the cap is {SIZE_CAP}")
    values = []
    for index, token in enumerate(tokens, start=1):
        if not _is_number(token):
            raise InvFreqError(f"not numeric: number {index} is {token[:40]!r}")
        values.append(float(token))
    return _vector(np.array(values, dtype=np.float64))


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return "_" not in token  # Python reads 1_0 as 10; NumPy and a person would not


def _vector_shape(shape: tuple[int, ...]) -> int:
    """The length of a vector of this shape (length-1 axes dropped: a (1, 64) or (64, 1) array
    is a vector), or InvFreqError for a matrix, an empty array or one over the cap."""
    if 0 in shape:
        raise InvFreqError(f"empty: the array has shape {shape}")
    if sum(length != 1 for length in shape) > 1:
        raise InvFreqError(
            f"wrong shape {shape}: give a vector, one number per pair (d_head / 2) or per "
            "dimension (d_head)"
        )
    size = math.prod(shape)
    if size > MAX_NUMBERS:
        raise InvFreqError(f"over the size cap: {size:,} numbers; the cap is {SIZE_CAP}")
    return size


def _vector(array: np.ndarray) -> np.ndarray:
    """The array as a vector of positive finite numbers (its dtype kept), or InvFreqError."""
    _vector_shape(array.shape)
    vector = array.reshape(-1)
    finite = np.isfinite(vector)
    if not finite.all():
        index = int(np.flatnonzero(~finite)[0])
        raise InvFreqError(
            f"NaN or infinity at number {index + 1}: every frequency must be a positive finite "
            "number"
        )
    if np.any(vector <= 0):
        index = int(np.flatnonzero(vector <= 0)[0])
        raise InvFreqError(
            f"number {index + 1} is {float(vector[index]):g}: every frequency must be positive"
        )
    return vector


INV_FREQ_UPLOAD = diagnose.UploadFormat(
    error=InvFreqError,
    numbers="numbers",
    size_cap=SIZE_CAP,
    max_file_bytes=MAX_FILE_BYTES,
    check_shape=_vector_shape,
    check_array=_vector,
    parse_text=read_text,
    refused_suffixes=(".npz", ".pt", ".pth", ".pkl", ".pickle", ".bin", ".safetensors"),
    refused="not an inv_freq file: archives, checkpoints and pickles are never opened; save the "
    "one array with np.save('inv_freq.npy', inv_freq) or paste its numbers",
    not_text="not an inv_freq: the file is neither a .npy file nor text (numbers)",
)


def read_file(data: bytes, filename: str = "") -> np.ndarray:
    """The inv_freq in an uploaded file: a .npy (its dtype kept), or text (read_text)."""
    return INV_FREQ_UPLOAD.read(data, filename)


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
    """The config's right inv_freq, and a buggy one with the name of its bug: the first of the
    method's usual mistakes that the check tells apart from the right array (None if none is,
    or the config cannot be computed)."""
    try:
        chosen, expected = expected_frequencies(state)
    except ConfigError:
        return None, None
    d_head, base = chosen.d_head, chosen.base
    plain = scaling.default_frequencies(d_head, base)
    pairs = np.arange(d_head // 2, dtype=np.float64)
    candidates: list[tuple[str, object]] = []
    if chosen.method in ("ntk", "dynamic"):
        candidates.append(("NTK's base not raised", lambda: plain))
    if chosen.method == "yarn":
        params = dict(chosen.params)
        flipped = {**params, "truncate": not params["truncate"]}
        candidates.append((
            f"YaRN's truncate {'off' if params['truncate'] else 'on'}",
            lambda: scaling.rope_scaled_frequencies(*chosen.arguments(), **flipped)[0],
        ))  # fmt: skip
    if chosen.method != "none":
        candidates.append(("the scaling ignored", lambda: plain))
    candidates.append(("exponent i/d, not 2i/d", lambda: 1.0 / base ** (pairs / d_head)))
    for label, make in candidates:
        buggy = make()
        diagnosis = diagnose_rope(buggy, *chosen.arguments(), **dict(chosen.params))
        if not diagnosis.ok:
            return expected, (label, buggy)
    return expected, None


def numbers_text(values: np.ndarray) -> str:
    """Numbers as a person pastes them: comma-separated, 10 significant digits."""
    return ", ".join(f"{value:.10g}" for value in values)


# ---- The figure --------------------------------------------------------------------------------


def figure(state: ExplorerState) -> dict:
    """Before any array: the config's expected inv_freq (and the unscaled one) per pair."""
    try:
        chosen, expected = expected_frequencies(state)
    except ConfigError as error:
        return problem_figure(state, str(error))
    layout = _two_panel_layout(state.theme, chosen, "The expected inv_freq θ′ᵢ per pair")
    layout["annotations"].append(
        {
            "text": "Give your inv_freq above:<br>its relative error per pair is drawn here",
            "xref": "paper",
            "yref": "paper",
            "x": 0.5,
            "y": BOTTOM[1] * 0.2,
            "showarrow": False,
            "font": {"size": 13},
            "bgcolor": theme.colours(state.theme)["paper"],
        }
    )
    layout["yaxis2"]["range"] = [-12, 1]
    traces = _frequency_traces(state.theme, chosen, expected)
    # An invisible point keeps the lower panel's axes drawn before any array is given.
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([0]),
            "y": np.array([RELATIVE_TOLERANCE]),
            "xaxis": "x2",
            "yaxis": "y2",
            "marker": {"opacity": 0},
            "showlegend": False,
            "hoverinfo": "skip",
            "name": "",
        }
    )
    layout["shapes"] = [_tolerance_line(state.theme)]
    return {"data": traces, "layout": layout}


def evidence_figure(result: RopeCheck, theme_name: str) -> dict:
    """Their inv_freq against the expected per pair; below, the relative error per pair, with
    the pairs where it differs ringed."""
    diagnosis, chosen = result.diagnosis, result.config
    palette = theme.colours(theme_name)
    layout = _two_panel_layout(theme_name, chosen, "Your inv_freq against the expected, per pair")
    pairs = np.arange(diagnosis.expected.size)
    traces = _frequency_traces(theme_name, chosen, diagnosis.expected)
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": pairs,
            "y": diagnosis.theirs,
            "xaxis": "x",
            "yaxis": "y",
            "marker": {"color": theme.PAIR_COLOURS[1], "size": 5, "symbol": "x"},
            "name": "yours",
            "hovertemplate": "pair %{x}<br>yours %{y:.8g}<extra></extra>",
        }
    )
    error = diagnosis.relative_error
    traces.append(
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": pairs,
            "y": np.maximum(error, ZERO_ERROR),
            "customdata": error,
            "xaxis": "x2",
            "yaxis": "y2",
            "line": {"color": theme.PAIR_COLOURS[1], "width": 1.5},
            "marker": {"size": 4},
            "name": "relative error |yours − expected| / expected",
            "showlegend": False,
            "hovertemplate": "pair %{x}<br>relative error %{customdata:.3g}<extra></extra>",
        }
    )
    flagged = np.asarray(diagnosis.pairs, dtype=int)
    if flagged.size:
        ring = {
            "color": "rgba(0,0,0,0)",
            "size": 10,
            "line": {"color": palette["pos"], "width": 1.5},
        }
        bug = diagnosis.bug or "no known mistake"
        for axis, values in (("", diagnosis.theirs), ("2", np.maximum(error, ZERO_ERROR))):
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "x": flagged,
                    "y": values[flagged],
                    "xaxis": f"x{axis}",
                    "yaxis": f"y{axis}",
                    "marker": ring,
                    "name": f"pairs where it differs ({flagged.size})",
                    "legendgroup": "differs",
                    "showlegend": axis == "",
                    "hovertemplate": f"pair %{{x}}: {_plotly_text(bug)}<extra></extra>",
                }
            )
    layout["shapes"] = [_tolerance_line(theme_name)]
    return {"data": traces, "layout": layout}


def problem_figure(state: ExplorerState, message: str) -> dict:
    """Empty panels saying why the config cannot be drawn."""
    title = "The config cannot be computed"
    return message_figure(state, "ropecheck-problem", title, _plotly_text(_wrap(message, 60)), 0.6)


def _plotly_text(text: str) -> str:
    """Text for a Plotly label, which reads a few HTML tags: escaped (<br> kept)."""
    return "<br>".join(html.escape(part) for part in text.split("\n"))


def _wrap(text: str, width: int) -> str:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join([*lines, line])


def _two_panel_layout(theme_name: str, chosen: Config, heading: str) -> dict:
    layout = theme.base_layout(theme_name, uirevision=f"ropecheck-{chosen.d_head}")
    layout.update(
        title={
            "text": heading
            + "".join(f"<br><sub>{html.escape(line)}</sub>" for line in chosen.lines() if line),
            "x": 0,
            "font": {"size": 14},
        },
        margin={"l": 72, "r": 24, "t": 108, "b": 64},
        showlegend=True,
        legend={"orientation": "h", "x": 0, "y": -0.17, "yanchor": "top"},
        xaxis=theme.axis(theme_name, domain=[0, 1], anchor="y"),
        yaxis=_log_axis(theme_name, TOP, "x", "θ′ᵢ (rad / position)"),
        xaxis2=theme.axis(
            theme_name, domain=[0, 1], anchor="y2", matches="x", title={"text": "pair i"}
        ),
        yaxis2=_log_axis(theme_name, BOTTOM, "x2", "relative error"),
        annotations=[
            panel_caption(f"relative error; dashed: {RELATIVE_TOLERANCE:g}", 0, BOTTOM[1]),
        ],
    )
    return layout


def _log_axis(theme_name: str, domain: list[float], anchor: str, title: str) -> dict:
    return theme.axis(
        theme_name,
        domain=domain,
        anchor=anchor,
        type="log",
        exponentformat="power",
        title={"text": title},
    )


def _frequency_traces(theme_name: str, chosen: Config, expected: np.ndarray) -> list[dict]:
    """The expected inv_freq per pair, and the unscaled one when the method scales."""
    pairs = np.arange(expected.size)
    traces = []
    if chosen.method != "none":
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": pairs,
                "y": scaling.default_frequencies(chosen.d_head, chosen.base),
                "xaxis": "x",
                "yaxis": "y",
                "line": {"color": theme.PAIR_COLOURS[2], "width": 1.5, "dash": "dot"},
                "name": "unscaled θᵢ",
                "hovertemplate": "pair %{x}<br>unscaled %{y:.8g}<extra></extra>",
            }
        )
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "x": pairs,
            "y": expected,
            "xaxis": "x",
            "yaxis": "y",
            "line": {"color": theme.PAIR_COLOURS[0], "width": 2},
            "name": "expected θ′ᵢ",
            "hovertemplate": "pair %{x}<br>expected %{y:.8g}<extra></extra>",
        }
    )
    return traces


def _tolerance_line(theme_name: str) -> dict:
    return {
        "type": "line",
        "xref": "x2 domain",
        "yref": "y2",
        "x0": 0,
        "x1": 1,
        "y0": RELATIVE_TOLERANCE,
        "y1": RELATIVE_TOLERANCE,
        "line": {"color": theme.colours(theme_name)["text"], "width": 1, "dash": "dash"},
    }


# ---- Verdict, accessible name, data table and code --------------------------------------------


def verdict_html(result, state: ExplorerState) -> str:
    """The verdict (or what is expected, before any array) as HTML; all text escaped."""
    if isinstance(result, ConfigError):
        return _box("error", f"Not checked: the config cannot be computed: {result}.")
    chosen, expected = expected_frequencies(state)
    against = html.escape(chosen.text())
    if result is None:
        return (
            '<div class="pe-ropecheck-verdict"><p>No inv_freq yet: choose a .npy file or paste '
            f"numbers (d_head / 2 = {expected.size}, pair 0 first; a vector of d_head = "
            f"{chosen.d_head} works too), or try an example. It will be compared with the "
            f"config set in this card: <b>{against}</b>.</p></div>"
        )
    if isinstance(result, InvFreqError):
        return _box(
            "error",
            f"Not checked: {result}.",
            f"The config it would be compared with: {chosen.text()}.",
        )
    diagnosis = result.diagnosis
    css = "match" if diagnosis.ok else "mistake"
    if diagnosis.ok:
        head = "It matches the config."
    elif diagnosis.bug:
        head = f"It does not match. Likely bug: {diagnosis.bug}."
    else:
        head = "It does not match the config."
    text = diagnosis.text[0].upper() + diagnosis.text[1:]
    lines = [f"<b>{html.escape(head)}</b>", f"{html.escape(text)}."]
    if not diagnosis.ok:
        lines.append(
            f"Worst at pair {result.worst_pair}: yours "
            f"{diagnosis.theirs[result.worst_pair]:.8g}, expected "
            f"{diagnosis.expected[result.worst_pair]:.8g} (relative error {result.max_error:.3g})."
        )
    given = f"{result.given} numbers ({html.escape(result.dtype)})"
    if result.given == chosen.d_head and chosen.d_head > 2:
        given += ", read as one per dimension"
    lines.append(f"Checked: {given} against {against}, to {RELATIVE_TOLERANCE:g} relative.")
    if result.dtype == "float16":
        lines.append(
            "float16 alone rounds by up to 5e-4 relative, more than the tolerance: save the "
            "array in float32 or float64."
        )
    return (
        f'<div class="pe-ropecheck-verdict pe-ropecheck-{css}">'
        + "".join(f"<p>{line}</p>" for line in lines)
        + "</div>"
    )


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
        chosen, expected = expected_frequencies(state)
    except ConfigError as error:
        return f"No chart: the RoPE config cannot be computed: {error}"
    if not isinstance(result, RopeCheck):
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
    before any array)."""
    try:
        chosen, expected = expected_frequencies(state)
    except ConfigError as error:
        plain = scaling.default_frequencies(state.d_model, state.base)
        rows = shown_pairs(plain.size, (), 0)
        return ChartData(
            caption="Unscaled inv_freq per pair (the config cannot be computed)",
            columns=("pair", "unscaled θᵢ"),
            rows=tuple((i, f"{plain[i]:.6g}") for i in rows),
            note=f"{len(rows)} of {plain.size} pairs shown. {error}",
        )
    if not isinstance(result, RopeCheck):
        plain = scaling.default_frequencies(chosen.d_head, chosen.base)
        rows = shown_pairs(expected.size, (), 0)
        return ChartData(
            caption=f"Expected inv_freq per pair: {chosen.text()}",
            columns=("pair", "expected θ′ᵢ", "unscaled θᵢ"),
            rows=tuple((i, f"{expected[i]:.6g}", f"{plain[i]:.6g}") for i in rows),
            note=f"Pairs {', '.join(map(str, rows))} of {expected.size} shown, spread evenly.",
        )
    diagnosis = result.diagnosis
    rows = shown_pairs(diagnosis.expected.size, diagnosis.pairs, result.worst_pair)
    among = "where yours differs" if diagnosis.pairs else "spread evenly"
    return ChartData(
        caption=f"Your inv_freq against the expected per pair: {chosen.text()}",
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
    params = dict(chosen.params)
    lines = [
        "import numpy as np",
        "",
        f"# The expected inv_freq: {chosen.text()}.",
        f"d_head, base, factor, L = {chosen.d_head}, {chosen.base!r}, {chosen.factor!r}, "
        f"{chosen.original_context}",
        "inv_freq = 1.0 / base ** (np.arange(0, d_head, 2) / d_head)  # theta_i, pair 0 first",
    ]
    lines += _method_code(chosen.method, params)
    if theirs is None:
        lines += [
            "",
            "# Yours: replace this line with np.load('inv_freq.npy') or your pasted numbers.",
            "theirs = expected.copy()",
        ]
    else:
        lines += ["", f"theirs = np.array([{_exact(theirs)}])"]
    lines += [
        "if theirs.size == d_head:  # one per dimension: interleaved or half-split pairs",
        "    interleaved = np.allclose(theirs[0::2], theirs[1::2], rtol=1e-5, atol=0)",
        "    theirs = theirs[0::2] if interleaved else theirs[: d_head // 2]",
        "relative_error = np.abs(theirs - expected) / np.abs(expected)",
        f"differs = np.flatnonzero(relative_error > {RELATIVE_TOLERANCE!r})",
        'print("expected:", expected)',
        'print("max relative error:", relative_error.max(), "at pair", relative_error.argmax())',
        'print("matches" if differs.size == 0 else f"differs in pairs {differs.tolist()}")',
    ]
    return "\n".join(lines) + "\n"


def _exact(values) -> str:
    """Numbers as Python reads them back exactly."""
    return ", ".join(repr(float(value)) for value in np.asarray(values, dtype=np.float64))


# Each method's lines of the script, from inv_freq (θᵢ) to expected; {name} stands for the
# method's parameter as Python reads it back, {rounding} for YaRN's line on truncate.
_METHOD_CODE = {
    "none": ("expected = inv_freq",),
    "pi": (
        "# Position Interpolation: every frequency divided by s.",
        "expected = inv_freq / factor",
    ),
    "ntk": (
        "# NTK-aware: the base raised to base * s ** (d / (d - 2)).",
        "raised = base * factor ** (d_head / (d_head - 2))",
        "expected = 1.0 / raised ** (np.arange(0, d_head, 2) / d_head)",
    ),
    "dynamic": (
        "# Dynamic NTK at sequence length n (below L it scales as at L).",
        "n = max({seq_len}, L)",
        "raised = base * (factor * n / L - (factor - 1)) ** (d_head / (d_head - 2))",
        "expected = 1.0 / raised ** (np.arange(0, d_head, 2) / d_head)",
    ),
    "yarn": (
        "# YaRN: pairs turning more than beta_fast times in L keep theta_i, fewer than beta_slow",
        "# times are divided by s, a linear ramp between (jquesnelle/yarn, transformers).",
        "beta_fast, beta_slow = {beta_fast}, {beta_slow}",
        "",
        "",
        "def pair_turning(turns):",
        "    return d_head * np.log(L / (turns * 2 * np.pi)) / (2 * np.log(base))",
        "",
        "",
        "low, high = pair_turning(beta_fast), pair_turning(beta_slow)",
        "{rounding}",
        "low, high = max(low, 0), min(high, d_head - 1)",
        "if low == high:",
        "    high += 0.001",
        "ramp = np.clip((np.arange(d_head // 2) - low) / (high - low), 0, 1)",
        "expected = inv_freq / factor * ramp + inv_freq * (1 - ramp)",
        "attention_factor = 0.1 * np.log(factor) + 1.0 if factor > 1 else 1.0  # not in inv_freq",
    ),
    "llama3": (
        "# Llama 3.1 (Meta's apply_scaling): short wavelengths kept, long ones divided by s,",
        "# and between, a mix smoothed in L / wavelength.",
        "low_freq_factor, high_freq_factor = {low_freq_factor}, {high_freq_factor}",
        "wavelength = 2 * np.pi / inv_freq",
        "smooth = (L / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)",
        "medium = (1 - smooth) * inv_freq / factor + smooth * inv_freq",
        "expected = np.where(",
        "    wavelength > L / low_freq_factor,",
        "    inv_freq / factor,",
        "    np.where(wavelength < L / high_freq_factor, inv_freq, medium),",
        ")",
    ),
    "longrope": (
        "# LongRoPE: each pair divided by its own searched factor.",
        "factors = np.array([{factors}])",
        "expected = inv_freq / factors",
    ),
}


def _method_code(method: str, params: dict) -> list[str]:
    """The method's lines of the script (_METHOD_CODE) with its parameters filled in."""
    values = {
        name: _exact(value) if name == "factors" else repr(value) for name, value in params.items()
    }
    if "truncate" in params:
        values["rounding"] = (
            "low, high = np.floor(low), np.ceil(high)  # truncate"
            if params["truncate"]
            else "# truncate off: the bounds stay fractional"
        )
    return [line.format(**values) for line in _METHOD_CODE[method]]


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
            return evidence_figure(result, self.state.theme)
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
        key = (self._source, self.pairing, *(getattr(self.state, name) for name in _CONFIG))
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
            note=HELP,
            style=STYLE,
        )
        return self.column(inputs, self._verdict, self._data, css_class="pe-ropecheck")


# The state parameters the config is read from (the view's follows, less the theme).
_CONFIG = (
    "scaling",
    "d_model",
    "base",
    "factor",
    "original_context",
    "seq_len",
    "beta_fast",
    "beta_slow",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
    "longrope_factors",
)

"""RoPE scaling: what each long-context method does to every pair's frequency, and to attention.

The maths is components/scaling.py (`rope_scaled_frequencies`, `scaling_bands`); this view
draws it for the state's d_model (as d_head), base, trained length L and factor s: the divisor
of each pair against its wavelength, the wavelengths before and after, the RoPE score of
q = k = (1, …, 1) over offsets 0 … s·L for every method, and the attention factor's effect on
a row of logits.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import panel as pn

from .. import scaling
from ..plotkit import theme
from ..plotkit.charts import panel_caption, titled_layout
from ..plotkit.frame import DATA_COLUMNS, ChartData, PlotView
from ..plotkit.numbers import number
from ..state import ExplorerState

# Offsets drawn on each score curve at most: 0, then whole offsets spaced evenly on a log scale
# up to s·L (every one near 0, where the curves part), with L and s·L among them. Fewer with
# many pairs: each curve costs offsets × pairs cosines (512 offsets at d_model 2048).
CURVE_POINTS = 2048
CURVE_CELLS = 1 << 19
# How each method treats a pair, as scaling.scaling_bands names it, and as the chart says it.
BAND_NAMES = {"kept": "left alone", "ramped": "ramped", "interpolated": "interpolated"}
BAND_LABEL_HEIGHTS = {"kept": 0.98, "ramped": 0.86, "interpolated": 0.02}  # of the panel
BAND_COLOURS = {
    "kept": "rgba(0,158,115,0.16)",
    "ramped": "rgba(184,119,0,0.18)",
    "interpolated": "rgba(0,114,178,0.16)",
}
# Each method's curve: the original model in the text colour, the others in Okabe–Ito colours,
# each with its own dash so that they differ without colour too.
CURVE_STYLES = {
    "none": (None, "solid"),
    "pi": (theme.PAIR_COLOURS[0], "dot"),
    "ntk": (theme.PAIR_COLOURS[1], "dash"),
    "dynamic": (theme.PAIR_COLOURS[5], "dashdot"),
    "yarn": (theme.PAIR_COLOURS[2], "solid"),
    "llama3": (theme.PAIR_COLOURS[4], "longdash"),
    "longrope": (theme.PAIR_COLOURS[3], "longdashdot"),
}
# The fixed row of logits the attention factor is shown on: 16 keys, evenly from 2 down to −2.
LOGITS = np.linspace(2.0, -2.0, 16)
# Panels: (x domain, y domain).
DIVISOR_PANEL = ([0.0, 0.42], [0.6, 0.95])
WAVELENGTH_PANEL = ([0.6, 1.0], [0.6, 0.95])
SCORE_PANEL = ([0.0, 0.62], [0.0, 0.4])
SOFTMAX_PANEL = ([0.74, 1.0], [0.0, 0.4])

READOUT_STYLE = """
:host { width: 100%; }
p.pe-note { margin: 0.4em 0 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
p.pe-scaling-problem { margin: 0.3em 0; padding: 0.4em 0.7em; border-radius: 6px;
                       border: 1px solid #b45309; }
"""
PRESET_STYLE = """
:host { width: 100%; }
p.pe-scaling-sources { margin: 0.1em 0 0.3em; font-size: 0.9em; line-height: 1.45; }
"""


@dataclass(frozen=True)
class Preset:
    """A published model's RoPE settings, applied to the state in one update."""

    key: str  # the button's CSS class: pe-scaling-preset-{key}
    label: str
    values: dict
    source: str  # where the numbers come from


PRESETS = (
    Preset(
        "llama2",
        "Llama 2 7B",
        {"d_model": 128, "base": 10000.0, "original_context": 4096},
        "meta-llama/Llama-2-7b-hf config.json: hidden_size 4096 over 32 heads (d_head 128), "
        "max_position_embeddings 4096, base 10000 (rope_theta); the scaling stays as chosen",
    ),
    Preset(
        "llama31",
        "Llama 3.1 8B",
        {
            "d_model": 128,
            "base": 500000.0,
            "original_context": 8192,
            "scaling": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
        },
        'meta-llama/Llama-3.1-8B config.json: rope_theta 500000, rope_scaling {"rope_type": '
        '"llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, '
        '"original_max_position_embeddings": 8192}',
    ),
    Preset(
        "yarn128k",
        "YaRN Llama 2 7B 128K",
        {
            "d_model": 128,
            "base": 10000.0,
            "original_context": 4096,
            "scaling": "yarn",
            "factor": 32.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": True,
        },
        'NousResearch/Yarn-Llama-2-7b-128k config.json: rope_scaling {"type": "yarn", '
        '"factor": 32.0, "original_max_position_embeddings": 4096}, on Llama 2 7B (d_head 128, '
        "base 10000); beta_fast 32 and beta_slow 1 are YaRN's defaults",
    ),
)


def method_parameters(state: ExplorerState, method: str) -> dict[str, object]:
    """A method's own parameters, from the state (ValueError for LongRoPE factors that are not
    d_head / 2 numbers)."""
    values = {
        "seq_len": lambda: state.seq_len,
        "beta_fast": lambda: state.beta_fast,
        "beta_slow": lambda: state.beta_slow,
        "truncate": lambda: state.truncate,
        "low_freq_factor": lambda: state.low_freq_factor,
        "high_freq_factor": lambda: state.high_freq_factor,
        "factors": lambda: scaling.parse_factors(state.longrope_factors, state.d_model // 2),
    }
    return {name: values[name]() for name in scaling.PARAMETERS[method]}


@dataclass(frozen=True)
class Scaled:
    """The state's model before and after one method's scaling, or why it cannot be scaled."""

    method: str
    original: np.ndarray  # inv_freq θ_i
    scaled: np.ndarray  # θ'_i (θ_i when the method's settings are not valid)
    attention_factor: float
    bands: np.ndarray  # 'kept' / 'ramped' / 'interpolated' per pair
    problem: str = ""  # why the settings are not valid (then drawn unscaled)

    @property
    def label(self) -> str:
        return scaling.SCALING_LABELS[self.method]

    @property
    def divisor(self) -> np.ndarray:
        """θ_i / θ'_i: how many times slower each pair turns."""
        return self.original / self.scaled

    def counts(self) -> dict[str, int]:
        """How many pairs fall in each band."""
        return {band: int((self.bands == band).sum()) for band in BAND_NAMES}


def scaled(state: ExplorerState, method: str | None = None) -> Scaled:
    """The state's d_model (as d_head), base, factor s and context L, scaled by method (the
    state's by default)."""
    method = scaling.check_scaling(state.scaling if method is None else method)
    original = scaling.default_frequencies(state.d_model, state.base)
    args = (method, state.d_model, state.base, state.factor, state.original_context)
    try:
        params = method_parameters(state, method)
        inv_freq, attention = scaling.rope_scaled_frequencies(*args, **params)
        bands = scaling.scaling_bands(*args, **params)
    except ValueError as error:
        kept = np.full(original.shape, "kept", dtype=object)
        return Scaled(method, original, original, 1.0, kept, str(error))
    return Scaled(method, original, inv_freq, attention, bands)


def curve_offsets(state: ExplorerState) -> np.ndarray:
    """Offsets 0 … s·L: 0, then whole offsets evenly spaced on a log scale (every one while they
    are closer than 1), L and s·L among them; at most CURVE_POINTS, and CURVE_CELLS / pairs."""
    end = int(math.ceil(state.factor * state.original_context))
    points = min(CURVE_POINTS, CURVE_CELLS // (state.d_model // 2))
    spaced = np.rint(np.geomspace(1, end, points - 3))
    return np.unique(np.concatenate(([0.0, float(state.original_context), float(end)], spaced)))


def offset_scores(inv_freq: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """RoPE's score of q = k = (1, …, 1) at each offset m, over q·k = d: (2 / d) Σ_i cos(m θ_i),
    1 at m = 0 (RoFormer's long-term decay).

    The angle is reduced to at most half a turn in float64 first, so that the cosine can be
    taken in float32 (several times faster) to about 1e-7, even at m = 128 × 2²⁰.
    """
    turns = np.multiply.outer(offsets, inv_freq / (2 * np.pi))
    turns -= np.rint(turns)
    angles = np.empty(turns.shape, dtype=np.float32)
    np.multiply(turns, 2 * np.pi, out=angles, casting="same_kind")
    np.cos(angles, out=angles)
    return (angles @ np.ones(inv_freq.size, dtype=np.float32)).astype(np.float64) / inv_freq.size


def softmax(logits: np.ndarray) -> np.ndarray:
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def entropy(weights: np.ndarray) -> float:
    """Shannon entropy in nats."""
    return float(-(weights * np.log(weights)).sum())


@dataclass(frozen=True)
class Logits:
    """The fixed row of logits before and after multiplying by the attention factor squared."""

    multiplier: float  # attention_factor²
    before: np.ndarray  # softmax weights
    after: np.ndarray

    @classmethod
    def of(cls, attention_factor: float) -> Logits:
        multiplier = attention_factor**2
        return cls(multiplier, softmax(LOGITS), softmax(LOGITS * multiplier))


def _band_spans(ratio: np.ndarray, bands: np.ndarray) -> list[tuple[str, float, float]]:
    """Runs of pairs in one band as (band, low, high) of λ_i / L, halfway (in log) between
    neighbouring pairs."""
    spans = []
    start = 0
    for index in range(1, bands.size + 1):
        if index == bands.size or bands[index] != bands[start]:
            last = index - 1
            low = ratio[start] / 1.2 if start == 0 else math.sqrt(ratio[start - 1] * ratio[start])
            high = (
                ratio[last] * 1.2 if index == bands.size else math.sqrt(ratio[last] * ratio[index])
            )
            spans.append((str(bands[start]), low, high))
            start = index
    return spans


def _band_label(span: tuple[str, float, float], index: int, count: int) -> dict:
    """The name of a band over its span: the first from its left edge and the last to its right
    edge (a band of one pair is narrow), others centred; the interpolated band (whose divisor is
    high) at the foot of the panel, the others at its top, a line apart (a narrow ramp's name
    would otherwise run into its neighbour's)."""
    band, low, high = span
    # A log axis places annotations in powers of ten.
    x, anchor = (math.log10(low) + math.log10(high)) / 2, "center"
    if index == 0 and count > 1:
        x, anchor = math.log10(low), "left"
    elif index == count - 1 and count > 1:
        x, anchor = math.log10(high), "right"
    top = band != "interpolated"
    return {
        "text": BAND_NAMES[band],
        "xref": "x",
        "yref": "y domain",
        "x": x,
        "xanchor": anchor,
        "y": BAND_LABEL_HEIGHTS[band],
        "yanchor": "top" if top else "bottom",
        "showarrow": False,
        "font": {"size": 11},
    }


def _line(suffix: str, value: float, horizontal: bool, colour: str, dash: str) -> dict:
    """A line across the panel of axes x{suffix}, y{suffix} at value: horizontal (on its y
    axis) or vertical (on its x axis)."""
    if horizontal:
        where = {"xref": f"x{suffix} domain", "x0": 0, "x1": 1, "yref": f"y{suffix}"}
        where.update(y0=value, y1=value)
    else:
        where = {"yref": f"y{suffix} domain", "y0": 0, "y1": 1, "xref": f"x{suffix}"}
        where.update(x0=value, x1=value)
    return {"type": "line", **where, "line": {"color": colour, "dash": dash, "width": 1}}


def figure(state: ExplorerState) -> dict:
    """The divisor θ_i/θ'_i against λ_i/L (bands shaded and named), the wavelengths before and
    after against L and s·L, every method's score over offsets 0 … s·L, and the softmax of a
    fixed row of logits before and after the attention factor."""
    chosen = scaled(state)
    palette = theme.colours(state.theme)
    context, factor = state.original_context, state.factor
    target = factor * context
    wavelength = 2 * np.pi / chosen.original
    new_wavelength = 2 * np.pi / chosen.scaled
    ratio = wavelength / context
    pair = np.arange(chosen.original.size)
    text_colour = palette["text"]

    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": ratio,
            "y": chosen.divisor,
            "customdata": pair,
            "name": f"θ_i / θ'_i, {chosen.label}",
            "showlegend": False,
            "line": {"color": theme.PAIR_COLOURS[0], "width": 2},
            "marker": {"size": 5},
            "hovertemplate": "pair %{customdata}<br>λ_i / L = %{x:.4g}<br>"
            "θ_i / θ'_i = %{y:.6g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": pair,
            "y": wavelength,
            "xaxis": "x2",
            "yaxis": "y2",
            "name": "λ_i before",
            "line": {"color": text_colour, "width": 2},
            "hovertemplate": "pair %{x}<br>λ_i = %{y:.6g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": pair,
            "y": new_wavelength,
            "xaxis": "x2",
            "yaxis": "y2",
            "name": f"λ'_i after {chosen.label}",
            "line": {"color": theme.PAIR_COLOURS[0], "dash": "dash", "width": 2},
            "hovertemplate": "pair %{x}<br>λ'_i = %{y:.6g}<extra></extra>",
        },
    ]

    offsets = curve_offsets(state)
    curves: dict[bytes, np.ndarray] = {}  # methods that give the same frequencies share a curve
    for method in scaling.SCALINGS:
        model = chosen if method == chosen.method else scaled(state, method)
        if model.problem and method != "none":
            continue  # not drawn: the readout says why
        key = model.scaled.tobytes()
        if key not in curves:
            curves[key] = offset_scores(model.scaled, offsets)
        colour, dash = CURVE_STYLES[method]
        highlighted = method == chosen.method
        name = "original (none)" if method == "none" else model.label
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": offsets,
                "y": curves[key],
                "xaxis": "x3",
                "yaxis": "y3",
                "name": f"{name} (chosen)" if highlighted else name,
                "opacity": 1.0 if highlighted else 0.7,
                "line": {
                    "color": colour or text_colour,
                    "dash": dash,
                    "width": 3 if highlighted else 1.2,
                },
                "legendgroup": "scores",
                "legendrank": 1 if highlighted else 2,
                "hovertemplate": f"{html.escape(name)}<br>m = %{{x:.0f}}<br>"
                "score = %{y:.4f}<extra></extra>",
            }
        )

    logits = Logits.of(chosen.attention_factor)
    keys = np.arange(LOGITS.size)
    for weights, name, colour in (
        (logits.before, "softmax of the logits", text_colour),
        (logits.after, f"softmax of logits × {logits.multiplier:.4f}", theme.PAIR_COLOURS[2]),
    ):
        traces.append(
            {
                "type": "bar",
                "x": keys,
                "y": weights,
                "xaxis": "x4",
                "yaxis": "y4",
                "name": name,
                "marker": {"color": colour},
                "legendgroup": "softmax",
                "hovertemplate": f"{name}<br>key %{{x}}<br>weight %{{y:.4f}}<extra></extra>",
            }
        )

    layout = titled_layout(
        state,
        f"scaling-{state.d_model}",
        f"{chosen.label}: s = {factor:g}, L = {number_text(context)} → s·L = {number_text(target)}",
    )
    spans = _band_spans(ratio, chosen.bands)
    shapes = [
        {
            "type": "rect",
            "xref": "x",
            "yref": "y domain",
            "x0": low,
            "x1": high,
            "y0": 0,
            "y1": 1,
            "line": {"width": 0},
            "fillcolor": BAND_COLOURS[band],
            "layer": "below",
        }
        for band, low, high in spans
    ]
    annotations = [_band_label(span, index, len(spans)) for index, span in enumerate(spans)]
    shapes.append(_line("", 1.0, False, text_colour, "dot"))  # λ_i = L
    for value, dash, label in ((context, "dot", "L"), (target, "dash", "s·L")):
        shapes.append(_line("2", value, True, text_colour, dash))
        annotations.append(
            {
                "text": f"{label} = {number_text(value)}",
                "xref": "x2 domain",
                "yref": "y2",
                "x": 0.0,
                "y": math.log10(value),
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 11},
            }
        )
    shapes.append(_line("3", context, False, text_colour, "dot"))
    annotations.append(
        {
            # At the foot of the line: the scores seldom go that low, and the panel's caption
            # is above it.
            "text": f"trained length L = {number_text(context)}",
            "xref": "x3",
            "yref": "y3 domain",
            "x": math.log10(context),
            "y": 0.02,
            "xanchor": "right",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 11},
        }
    )
    captions = (
        ("divisor θ_i / θ'_i", DIVISOR_PANEL),
        ("wavelengths", WAVELENGTH_PANEL),
        ("score of q = k = (1, …, 1)", SCORE_PANEL),
        (f"attention factor<br>a = {chosen.attention_factor:.4f}", SOFTMAX_PANEL),
    )
    annotations += [
        panel_caption(text, x_domain[0], y_domain[1] + 0.01)
        for text, (x_domain, y_domain) in captions
    ]
    axes = (
        ("λ_i / L (log)", "θ_i / θ'_i (log)", DIVISOR_PANEL, "log", "log"),
        ("pair i", "wavelength (log)", WAVELENGTH_PANEL, "linear", "log"),
        ("offset m (log)", "score / q·k", SCORE_PANEL, "log", "linear"),
        ("key", "weight", SOFTMAX_PANEL, "linear", "linear"),
    )
    for panel, (x_title, y_title, (x_domain, y_domain), x_type, y_type) in enumerate(axes, 1):
        suffix = "" if panel == 1 else str(panel)
        x_name, y_name = f"x{suffix}", f"y{suffix}"
        layout[f"xaxis{suffix}"] = theme.axis(
            state.theme,
            type=x_type,
            domain=x_domain,
            anchor=y_name,
            title={"text": x_title, "standoff": 4},
            **({"exponentformat": "power"} if x_type == "log" else {}),
        )
        layout[f"yaxis{suffix}"] = theme.axis(
            state.theme,
            type=y_type,
            domain=y_domain,
            anchor=x_name,
            title={"text": y_title, "standoff": 4},
            **({"exponentformat": "power"} if y_type == "log" else {}),
        )
    # Divisors are read against powers of two (s is one in every preset); a log axis spanning
    # less than a decade would otherwise label every digit.
    divisor_range = _divisor_range(chosen.divisor)
    layout["yaxis"].update(range=divisor_range, tickvals=_divisor_ticks(divisor_range))
    layout["yaxis3"]["range"] = [-1.05, 1.05]
    layout.update(
        shapes=shapes,
        annotations=annotations,
        barmode="group",
        margin={"l": 64, "r": 16, "t": 72, "b": 64},
        legend={"orientation": "h", "x": 0, "y": -0.12, "font": {"size": 12}},
    )
    return {"data": traces, "layout": layout}


def _divisor_range(divisor: np.ndarray) -> list[float]:
    """A log range holding every divisor, at least 1 … 2 (so that s = 1 is not a flat point)."""
    low = min(1.0, float(divisor.min()))
    high = max(2.0, float(divisor.max()))
    return [math.log10(low) - 0.1, math.log10(high) + 0.1]


def _divisor_ticks(log_range: list[float], most: int = 8) -> list[float]:
    """Powers of two inside a log axis's range, every second, fourth … when there are many."""
    low, high = (math.ceil(value / math.log10(2)) for value in log_range)
    powers = range(low, high)
    step = math.ceil(len(powers) / most)
    return [2.0**power for power in powers if power % step == 0]


def number_text(value: float) -> str:
    """A length as the chart prints it: whole positions with thin separators."""
    return f"{value:,.0f}".replace(",", "\u2009") if value == round(value) else f"{value:g}"


def _drawn_problems(state: ExplorerState) -> list[str]:
    """Why a method's curve is not drawn (its settings are not valid), one line each."""
    problems = []
    for method in scaling.SCALINGS:
        model = scaled(state, method)
        if model.problem:
            problems.append(f"{model.label} is not drawn: {model.problem}.")
    return problems


def readout(state: ExplorerState) -> str:
    """The bands' sizes, the attention factor and what it does to the logits, and any setting
    that cannot be applied (escaped)."""
    chosen = scaled(state)
    counts = chosen.counts()
    logits = Logits.of(chosen.attention_factor)
    lines = []
    if chosen.problem:
        lines.append(
            f'<p class="pe-scaling-problem" role="alert">{html.escape(chosen.label)} cannot be '
            f"applied, so the model is drawn unscaled: {html.escape(chosen.problem)}.</p>"
        )
    lines.append(
        f'<p class="pe-note">{html.escape(chosen.label)}: pairs left alone '
        f'<span class="pe-scaling-kept">{counts["kept"]}</span>, ramped '
        f'<span class="pe-scaling-ramped">{counts["ramped"]}</span>, interpolated '
        f'<span class="pe-scaling-interpolated">{counts["interpolated"]}</span> '
        f"of {chosen.original.size}. The slowest pair's wavelength goes from "
        f"{number(2 * math.pi / chosen.original[-1])} to "
        f'<span class="pe-scaling-slowest">{number(2 * math.pi / chosen.scaled[-1])}</span> '
        f"positions (s·L = {state.factor * state.original_context:g}).</p>"
    )
    lines.append(
        '<p class="pe-note">Attention factor a = '
        f'<span class="pe-scaling-attention">{chosen.attention_factor:.10f}</span>: cos and '
        "sin are multiplied by a, so q·k and every logit by "
        f'a² = <span class="pe-scaling-logit-multiplier">{logits.multiplier:.10f}</span>. On 16 '
        "logits evenly from 2 to −2, the softmax's largest weight goes from "
        f'<span class="pe-scaling-peak-before">{logits.before.max():.4f}</span> to '
        f'<span class="pe-scaling-peak-after">{logits.after.max():.4f}</span> and its entropy '
        f'from <span class="pe-scaling-entropy-before">{entropy(logits.before):.4f}</span> to '
        f'<span class="pe-scaling-entropy-after">{entropy(logits.after):.4f}</span> nats '
        "(sharper attention, against the flattening that more keys bring).</p>"
    )
    lines += [
        f'<p class="pe-note pe-scaling-not-drawn">{html.escape(problem)}</p>'
        for problem in _drawn_problems(state)
        if not problem.startswith(chosen.label + " ")
    ]
    return "".join(lines)


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the method, its bands, the slowest wavelength and the
    attention factor."""
    chosen = scaled(state)
    counts = chosen.counts()
    applied = f" (not applied: {chosen.problem})" if chosen.problem else ""
    return (
        f"RoPE scaling by {chosen.label}{applied}, factor s = {state.factor:g} over a trained "
        f"length L = {state.original_context}, d_head {state.d_model}, base {state.base:g}: "
        f"{counts['kept']} pairs left alone, {counts['ramped']} ramped, "
        f"{counts['interpolated']} interpolated; the slowest pair's wavelength becomes "
        f"{number(2 * math.pi / chosen.scaled[-1])} positions; attention factor "
        f"{number(chosen.attention_factor)}"
    )


def shown_pairs(bands: np.ndarray) -> list[int]:
    """At most DATA_COLUMNS pairs: the first and last two, where each band starts and ends,
    then evenly spread ones."""
    size = bands.size
    if size <= DATA_COLUMNS:
        return list(range(size))
    edges = np.flatnonzero(bands[1:] != bands[:-1])
    chosen = {0, 1, size - 2, size - 1, *edges.tolist(), *(edges + 1).tolist()}
    chosen = set(sorted(chosen)[:DATA_COLUMNS])
    for index in np.linspace(0, size - 1, DATA_COLUMNS).round().astype(int):
        if len(chosen) >= DATA_COLUMNS:
            break
        chosen.add(int(index))
    return sorted(chosen)


def data(state: ExplorerState) -> ChartData:
    """Per pair: θ_i, θ'_i, the divisor, λ_i, λ'_i and its band."""
    chosen = scaled(state)
    pairs = shown_pairs(chosen.bands)
    size = chosen.original.size
    note = "" if len(pairs) == size else (
        f"{len(pairs)} of {size} pairs shown: the first and last two, where each band begins "
        "and ends, and pairs spread between; the code under Export recomputes every pair."
    )  # fmt: skip
    return ChartData(
        caption=f"Per-pair frequencies before and after {chosen.label}, s = {state.factor:g}",
        columns=("pair i", "θ_i", "θ'_i", "θ_i / θ'_i", "λ_i", "λ'_i", "band"),
        rows=tuple(
            (
                i,
                f"{chosen.original[i]:.6g}",
                f"{chosen.scaled[i]:.6g}",
                float(chosen.divisor[i]),
                f"{2 * math.pi / chosen.original[i]:.6g}",
                f"{2 * math.pi / chosen.scaled[i]:.6g}",
                str(chosen.bands[i]),
            )
            for i in pairs
        ),
        note=note,
    )


CODE_METHODS = {
    "none": "inv_freq = inv_freq_original\nattention_factor = 1.0\n",
    "pi": "# Position Interpolation: every pair divided by s.\n"
    "inv_freq = inv_freq_original / factor\nattention_factor = 1.0\n",
    "ntk": "# NTK-aware: the base raised to base * s ** (d / (d - 2)).\n"
    "new_base = base * factor ** (d_head / (d_head - 2))\n"
    "inv_freq = 1.0 / new_base ** (np.arange(0, d_head, 2) / d_head)\n"
    "attention_factor = 1.0\n",
    "dynamic": "# Dynamic NTK (transformers' _compute_dynamic_ntk_parameters) at seq_len.\n"
    "seq_len = max(seq_len, original_context)\n"
    "new_base = base * (factor * seq_len / original_context - (factor - 1)) ** "
    "(d_head / (d_head - 2))\n"
    "inv_freq = 1.0 / new_base ** (np.arange(0, d_head, 2) / d_head)\n"
    "attention_factor = 1.0\n",
    "yarn": "# YaRN (transformers' _compute_yarn_parameters; Peng et al. 2023).\n"
    "def correction_dim(turns):\n"
    "    turns_in_context = original_context / (turns * 2 * np.pi)\n"
    "    return d_head * np.log(turns_in_context) / (2 * np.log(base))\n"
    "\n"
    "low, high = correction_dim(beta_fast), correction_dim(beta_slow)\n"
    "if truncate:\n"
    "    low, high = np.floor(low), np.ceil(high)\n"
    "low, high = max(low, 0), min(high, d_head - 1)\n"
    "if low == high:\n"
    "    high += 0.001\n"
    "ramp = np.clip((np.arange(d_head // 2) - low) / (high - low), 0, 1)\n"
    "extrapolation = 1 - ramp  # 1: the pair keeps its frequency\n"
    "inv_freq = (inv_freq_original / factor) * (1 - extrapolation) + inv_freq_original * "
    "extrapolation\n"
    "attention_factor = 0.1 * np.log(factor) + 1.0 if factor > 1 else 1.0\n",
    "llama3": "# Llama 3 (Meta's apply_scaling; transformers' _compute_llama3_parameters).\n"
    "low_freq_wavelen = original_context / low_freq_factor\n"
    "high_freq_wavelen = original_context / high_freq_factor\n"
    "wavelen = 2 * np.pi / inv_freq_original\n"
    "inv_freq = np.where(wavelen > low_freq_wavelen, inv_freq_original / factor, "
    "inv_freq_original)\n"
    "smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - "
    "low_freq_factor)\n"
    "smoothed = (1 - smooth) * inv_freq / factor + smooth * inv_freq\n"
    "medium = (wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen)\n"
    "inv_freq = np.where(medium, smoothed, inv_freq)\n"
    "attention_factor = 1.0\n",
    "longrope": "# LongRoPE: each pair divided by its own searched factor.\n"
    "inv_freq = inv_freq_original / np.array(factors)\n"
    "attention_factor = (\n"
    "    np.sqrt(1 + np.log(factor) / np.log(original_context)) if factor > 1 else 1.0\n"
    ")\n",
}


def code(state: ExplorerState) -> str:
    """A standalone NumPy script that recomputes the view's inv_freq, divisor and attention
    factor at the state, from the published formulas."""
    chosen = scaled(state)
    # Settings that cannot be applied are drawn unscaled: the script does the same.
    method = "none" if chosen.problem else chosen.method
    lines = [
        f'"""RoPE scaling by {scaling.SCALING_LABELS[method]}: inv_freq, the divisor θ_i / θ\'_i '
        'and the attention factor."""',
        "",
        "import numpy as np",
        "",
    ]
    if chosen.problem:
        lines.append(f"# {chosen.label} cannot be applied ({chosen.problem}): drawn unscaled.")
    lines += [
        f"d_head = {state.d_model}",
        f"base = {float(state.base)!r}",
        f"factor = {float(state.factor)!r}  # s",
        f"original_context = {state.original_context}  # L",
    ]
    for name, value in method_parameters(state, method).items():
        if name == "factors":
            value = [float(f) for f in value]
        lines.append(f"{name} = {value!r}")
    return (
        "\n".join(lines)
        + "\n\ninv_freq_original = 1.0 / base ** (np.arange(0, d_head, 2) / d_head)\n\n"
        + CODE_METHODS[method]
        + "divisor = inv_freq_original / inv_freq\n"
        "wavelength = 2 * np.pi / inv_freq\n\n"
        'print("attention factor", attention_factor)\n'
        "for i in range(d_head // 2):\n"
        "    print(i, inv_freq_original[i], inv_freq[i], divisor[i], wavelength[i])\n"
    )


class ScalingView(PlotView):
    """The view, with a row of buttons above the chart that set a published model's settings."""

    def __init__(self, **params):
        super().__init__(**params)
        self._presets = [
            pn.widgets.Button(
                label=preset.label,
                color="default",
                width=190,
                margin=(4, 8, 4, 0),
                description=f"Set the {preset.label} settings: {preset.source}",
                css_classes=[f"pe-scaling-preset-{preset.key}"],
            )
            for preset in PRESETS
        ]
        for button, preset in zip(self._presets, PRESETS, strict=True):
            button.on_click(lambda event, preset=preset: self.apply_preset(preset))

    def apply_preset(self, preset: Preset) -> None:
        """Set the preset's values on the state, in one update."""
        self.state.apply(dict(preset.values))

    def content(self) -> pn.Column:
        label = pn.pane.HTML("<span>Published settings:</span>", margin=(10, 8, 4, 8))
        sources = "; ".join(
            f"<b>{html.escape(preset.label)}</b>: {html.escape(preset.source)}"
            for preset in PRESETS
        )
        return pn.Column(
            pn.FlexBox(
                label,
                *self._presets,
                flex_wrap="wrap",
                align_items="center",
                sizing_mode="stretch_width",
                css_classes=["pe-scaling-presets"],
            ),
            pn.pane.HTML(
                f'<p class="pe-scaling-sources">Sources: {sources}.</p>',
                stylesheets=[PRESET_STYLE],
                sizing_mode="stretch_width",
                margin=(0, 8),
            ),
            self._error,
            self._plot,
            self._data,
            *self._extras,
            sizing_mode="stretch_width",
        )

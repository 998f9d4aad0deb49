"""RoPE scaling: what each long-context method does to every pair's frequency, and to attention.

The maths is components/scaling.py (`rope_scaled_frequencies`, `scaling_bands`) and the arrays
drawn are components/derived.py's (`scaled_rope`, `scaling_score_curves`, `attention_logits`);
this view draws them for the state's d_model (as d_head), base, trained length L and factor s:
the divisor of each pair against its wavelength, the wavelengths before and after, the RoPE
score of q = k = (1, …, 1) over offsets 0 … s·L for every method, and the attention factor's
effect on a row of logits.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import panel as pn

from .. import derived, scaling
from ..code_templates import scaling_lines
from ..derived import ScaledRope
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import ALL_PAIRS, DATA_COLUMNS, ChartData, PlotView
from ..plotkit.numbers import number, readout_number
from ..plotkit.presets import preset_buttons
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

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


class ModelPreset:
    """A preset of the model view's (components/model/presets.py), read as the model reader reads
    it and set on the scaling controls: the numbers live there, once. Read when first applied,
    so that the page's start-up does not load the reader."""

    def __init__(self, key: str, label: str, model: str) -> None:
        self.key, self.label, self.model = key, label, model

    @property
    def values(self) -> dict:
        from ..model.reader import scaling_settings

        model = derived.preset_model(self.model)
        settings, _ = scaling_settings(model.layers[0], model)
        return settings

    @property
    def source(self) -> str:
        from ..model.presets import PRESETS as MODEL_PRESETS

        return MODEL_PRESETS[self.model]["source"]


PRESETS = (
    Preset(
        "llama2",
        "Llama 2 7B",
        {"d_model": 128, "base": 10000.0, "original_context": 4096},
        "meta-llama/Llama-2-7b-hf config.json: hidden_size 4096 over 32 heads (d_head 128), "
        "max_position_embeddings 4096, base 10000 (rope_theta); the scaling stays as chosen",
    ),
    ModelPreset("llama31", "Llama 3.1 8B", "llama-3.1-8b"),
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


def length_text(value: float) -> str:
    """A length as the chart prints it: whole positions with thin separators."""
    return f"{value:,.0f}".replace(",", "\u2009") if value == round(value) else f"{value:g}"


def _axis(title: str, axis_type: str, **extra) -> dict:
    """A subplot's axis, titled close to its tick labels; powers of ten on a log axis."""
    if axis_type == "log":
        extra["exponentformat"] = "power"
    return {"type": axis_type, "title": {"text": title, "standoff": 4}, **extra}


def _line(value: float, horizontal: bool, colour: str, dash: str) -> dict:
    """A line across a subplot at value: horizontal (on its y axis) or vertical (on its x)."""
    if horizontal:
        where = {"xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": value, "y1": value}
    else:
        where = {"yref": "y domain", "y0": 0, "y1": 1, "xref": "x", "x0": value, "x1": value}
    return {"type": "line", **where, "line": {"color": colour, "dash": dash, "width": 1}}


def _small_label(
    text: str, x: float, y: float, refs: tuple[str, str], anchors: tuple[str, str]
) -> dict:
    """A line of small text on a subplot at (x, y) in refs, anchored at its (x, y) anchors."""
    (xref, yref), (xanchor, yanchor) = refs, anchors
    return {
        "text": text,
        "xref": xref,
        "yref": yref,
        "x": x,
        "y": y,
        "xanchor": xanchor,
        "yanchor": yanchor,
        "showarrow": False,
        "font": {"size": 11},
    }


def _band_shade(span: tuple[str, float, float]) -> dict:
    """A band's span of λ_i / L shaded in its colour, the panel's full height."""
    band, low, high = span
    return {
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
    refs, anchors = ("x", "y domain"), (anchor, "top" if top else "bottom")
    return _small_label(BAND_NAMES[band], x, BAND_LABEL_HEIGHTS[band], refs, anchors)


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


def divisor_subplot(state: ExplorerState, chosen: ScaledRope, text_colour: str) -> Subplot:
    """θ_i / θ'_i against λ_i / L on log axes, each band shaded and named, λ_i = L dotted."""
    trace = {
        "type": "scatter",
        "mode": "lines+markers",
        "x": chosen.wavelength / state.original_context,
        "y": chosen.divisor,
        "customdata": np.arange(chosen.original.size),
        "name": f"θ_i / θ'_i, {chosen.label}",
        "showlegend": False,
        "line": {"color": theme.PAIR_COLOURS[0], "width": 2},
        "marker": {"size": 5},
        "hovertemplate": "pair %{customdata}<br>λ_i / L = %{x:.4g}<br>"
        "θ_i / θ'_i = %{y:.6g}<extra></extra>",
    }
    spans = chosen.band_spans(state.original_context)
    # Divisors are read against powers of two (s is one in every preset); a log axis spanning
    # less than a decade would otherwise label every digit.
    divisor_range = _divisor_range(chosen.divisor)
    ticks = _divisor_ticks(divisor_range)
    return Subplot(
        traces=[trace],
        x_axis=_axis("λ_i / L (log)", "log"),
        y_axis=_axis("θ_i / θ'_i (log)", "log", range=divisor_range, tickvals=ticks),
        domain=DIVISOR_PANEL,
        caption="divisor θ_i / θ'_i",
        shapes=[*map(_band_shade, spans), _line(1.0, False, text_colour, "dot")],
        annotations=[_band_label(span, index, len(spans)) for index, span in enumerate(spans)],
    )


def wavelength_subplot(state: ExplorerState, chosen: ScaledRope, text_colour: str) -> Subplot:
    """λ_i and λ'_i against the pair i on a log axis, with L and s·L across."""
    pair = np.arange(chosen.original.size)
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": pair,
            "y": chosen.wavelength,
            "name": "λ_i before",
            "line": {"color": text_colour, "width": 2},
            "hovertemplate": "pair %{x}<br>λ_i = %{y:.6g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": pair,
            "y": chosen.scaled_wavelength,
            "name": f"λ'_i after {chosen.label}",
            "line": {"color": theme.PAIR_COLOURS[0], "dash": "dash", "width": 2},
            "hovertemplate": "pair %{x}<br>λ'_i = %{y:.6g}<extra></extra>",
        },
    ]
    context = state.original_context
    lengths = ((context, "dot", "L"), (state.factor * context, "dash", "s·L"))
    return Subplot(
        traces=traces,
        x_axis=_axis("pair i", "linear"),
        y_axis=_axis("wavelength (log)", "log"),
        domain=WAVELENGTH_PANEL,
        caption="wavelengths",
        shapes=[_line(value, True, text_colour, dash) for value, dash, _ in lengths],
        annotations=[
            _small_label(
                f"{name} = {length_text(value)}",
                0.0,
                math.log10(value),
                ("x domain", "y"),
                ("left", "bottom"),
            )
            for value, _, name in lengths
        ],
    )


def _score_trace(curve: derived.ScoreCurve, chosen: str, text_colour: str) -> dict:
    """One method's score curve, the chosen method's thick."""
    method = curve.model.method
    colour, dash = CURVE_STYLES[method]
    highlighted = method == chosen
    name = "original (none)" if method == "none" else curve.model.label
    return {
        "type": "scatter",
        "mode": "lines",
        "x": curve.offsets,
        "y": curve.scores,
        "name": f"{name} (chosen)" if highlighted else name,
        "opacity": 1.0 if highlighted else 0.7,
        "line": {"color": colour or text_colour, "dash": dash, "width": 3 if highlighted else 1.2},
        "legendgroup": "scores",
        "legendrank": 1 if highlighted else 2,
        "hovertemplate": f"{html.escape(name)}<br>m = %{{x:.0f}}<br>"
        "score = %{y:.4f}<extra></extra>",
    }


def score_subplot(state: ExplorerState, chosen: ScaledRope, text_colour: str) -> Subplot:
    """Every method's score of q = k = (1, …, 1) over the offsets 0 … s·L, L dotted."""
    curves = derived.scaling_score_curves(derived.ScalingSettings.of(state))
    context = state.original_context
    return Subplot(
        traces=[_score_trace(curve, chosen.method, text_colour) for curve in curves],
        x_axis=_axis("offset m (log)", "log"),
        y_axis=_axis("score / q·k", "linear", range=[-1.05, 1.05]),
        domain=SCORE_PANEL,
        caption="score of q = k = (1, …, 1)",
        shapes=[_line(context, False, text_colour, "dot")],
        # At the foot of the line: the scores seldom go that low, and the caption is above it.
        annotations=[
            _small_label(
                f"trained length L = {length_text(context)}",
                math.log10(context),
                0.02,
                ("x", "y domain"),
                ("right", "bottom"),
            )
        ],
    )


def softmax_subplot(chosen: ScaledRope, text_colour: str) -> Subplot:
    """The softmax of the fixed row of logits, before and after the attention factor."""
    logits = derived.attention_logits(chosen.attention_factor)
    keys = np.arange(derived.ATTENTION_LOGITS.size)
    bars = (
        (logits.before, "softmax of the logits", text_colour),
        (logits.after, f"softmax of logits × {number(logits.multiplier)}", theme.PAIR_COLOURS[2]),
    )
    traces = [
        {
            "type": "bar",
            "x": keys,
            "y": weights,
            "name": name,
            "marker": {"color": colour},
            "legendgroup": "softmax",
            "hovertemplate": f"{name}<br>key %{{x}}<br>weight %{{y:.4f}}<extra></extra>",
        }
        for weights, name, colour in bars
    ]
    return Subplot(
        traces=traces,
        x_axis=_axis("key", "linear"),
        y_axis=_axis("weight", "linear"),
        domain=SOFTMAX_PANEL,
        caption=f"attention factor<br>a = {number(chosen.attention_factor)}",
    )


def figure(state: ExplorerState) -> dict:
    """The divisor θ_i/θ'_i against λ_i/L (bands shaded and named), the wavelengths before and
    after against L and s·L, every method's score over offsets 0 … s·L, and the softmax of a
    fixed row of logits before and after the attention factor."""
    chosen = derived.scaled_rope(state)
    text_colour = theme.colours(state.theme)["text"]
    context, target = state.original_context, state.factor * state.original_context
    layout = titled_layout(
        state,
        f"scaling-{state.d_model}",
        f"{chosen.label}: s = {state.factor:g}, L = {length_text(context)} → "
        f"s·L = {length_text(target)}",
    )
    layout.update(
        barmode="group",
        margin={"l": 64, "r": 16, "t": 72, "b": 64},
        legend={"orientation": "h", "x": 0, "y": -0.12, "font": {"size": 12}},
    )
    subplots = (
        divisor_subplot(state, chosen, text_colour),
        wavelength_subplot(state, chosen, text_colour),
        score_subplot(state, chosen, text_colour),
        softmax_subplot(chosen, text_colour),
    )
    return compose(state, layout, subplots)


def _not_applied(chosen: ScaledRope) -> list[str]:
    """Why the chosen method cannot be applied, as an alert (escaped); none when it can."""
    if not chosen.problem:
        return []
    return [
        f'<p class="pe-scaling-problem" role="alert">{html.escape(chosen.label)} cannot be '
        f"applied, so the model is drawn unscaled: {html.escape(chosen.problem)}.</p>"
    ]


def _not_drawn(state: ExplorerState, chosen: ScaledRope) -> list[str]:
    """Why another method's curve is not drawn (its settings are not valid), one line each."""
    return [
        '<p class="pe-note pe-scaling-not-drawn">'
        f"{html.escape(f'{model.label} is not drawn: {model.problem}.')}</p>"
        for model in derived.every_scaled_rope(state)
        if model.problem and model.method != chosen.method
    ]


def _bands_line(state: ExplorerState, chosen: ScaledRope) -> str:
    """The bands' sizes and the slowest pair's wavelength before and after."""
    counts = chosen.counts()
    return (
        f'<p class="pe-note">{html.escape(chosen.label)}: pairs left alone '
        f'<span class="pe-scaling-kept">{counts["kept"]}</span>, ramped '
        f'<span class="pe-scaling-ramped">{counts["ramped"]}</span>, interpolated '
        f'<span class="pe-scaling-interpolated">{counts["interpolated"]}</span> '
        f"of {chosen.original.size}. The slowest pair's wavelength goes from "
        f"{number(chosen.wavelength[-1])} to "
        f'<span class="pe-scaling-slowest">{number(chosen.scaled_wavelength[-1])}</span> '
        f"positions (s·L = {state.factor * state.original_context:g}).</p>"
    )


def _attention_line(chosen: ScaledRope) -> str:
    """The attention factor and what it does to the softmax of the fixed row of logits."""
    logits = derived.attention_logits(chosen.attention_factor)
    return (
        '<p class="pe-note">Attention factor a = '
        f'<span class="pe-scaling-attention">{readout_number(chosen.attention_factor)}</span>: '
        "cos and sin are multiplied by a, so q·k and every logit by a² = "
        f'<span class="pe-scaling-logit-multiplier">{readout_number(logits.multiplier)}</span>. '
        "On 16 logits evenly from 2 to −2, the softmax's largest weight goes from "
        f'<span class="pe-scaling-peak-before">{number(logits.before.max())}</span> to '
        f'<span class="pe-scaling-peak-after">{number(logits.after.max())}</span> and its '
        f'entropy from <span class="pe-scaling-entropy-before">{number(logits.entropy_before)}'
        '</span> to <span class="pe-scaling-entropy-after">'
        f"{number(logits.entropy_after)}</span> nats (sharper attention, against the "
        "flattening that more keys bring).</p>"
    )


def readout(state: ExplorerState) -> str:
    """The bands' sizes, the attention factor and what it does to the logits, and any setting
    that cannot be applied (escaped)."""
    chosen = derived.scaled_rope(state)
    lines = [_bands_line(state, chosen), _attention_line(chosen), *_not_drawn(state, chosen)]
    return "".join(_not_applied(chosen) + lines)


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the method, its bands, the slowest wavelength and the
    attention factor."""
    chosen = derived.scaled_rope(state)
    counts = chosen.counts()
    applied = f" (not applied: {chosen.problem})" if chosen.problem else ""
    return (
        f"RoPE scaling by {chosen.label}{applied}, factor s = {state.factor:g} over a trained "
        f"length L = {state.original_context}, d_head {state.d_model}, base {state.base:g}: "
        f"{counts['kept']} pairs left alone, {counts['ramped']} ramped, "
        f"{counts['interpolated']} interpolated; the slowest pair's wavelength becomes "
        f"{number(chosen.scaled_wavelength[-1])} positions; attention factor "
        f"{number(chosen.attention_factor)}"
    )


def band_ends(bands: np.ndarray) -> set[int]:
    """The first and last two pairs, and where each band begins and ends."""
    size = bands.size
    edges = np.flatnonzero(bands[1:] != bands[:-1])
    return {i for i in (0, 1, size - 2, size - 1) if 0 <= i < size} | {
        *edges.tolist(),
        *(edges + 1).tolist(),
    }


def listed_pairs(bands: np.ndarray) -> list[int]:
    """At most DATA_COLUMNS pairs: the first and last two, where each band starts and ends,
    then evenly spread ones."""
    size = bands.size
    if size <= DATA_COLUMNS:
        return list(range(size))
    chosen = set(sorted(band_ends(bands))[:DATA_COLUMNS])
    for index in np.linspace(0, size - 1, DATA_COLUMNS).round().astype(int):
        if len(chosen) >= DATA_COLUMNS:
            break
        chosen.add(int(index))
    return sorted(chosen)


def _pair_row(chosen: ScaledRope, i: int) -> tuple:
    """Pair i's row: θ_i, θ'_i, the divisor, λ_i, λ'_i and its band (six significant digits:
    the frequencies and wavelengths span many powers of ten)."""
    columns = (chosen.original, chosen.scaled, chosen.wavelength, chosen.scaled_wavelength)
    theta, theta_scaled, wavelength, wavelength_scaled = (f"{c[i]:.6g}" for c in columns)
    divisor, band = float(chosen.divisor[i]), str(chosen.bands[i])
    return (i, theta, theta_scaled, divisor, wavelength, wavelength_scaled, band)


def data(state: ExplorerState) -> ChartData:
    """Per pair: θ_i, θ'_i, the divisor, λ_i, λ'_i and its band."""
    chosen = derived.scaled_rope(state)
    size = chosen.original.size
    pairs = range(size) if size <= ALL_PAIRS else listed_pairs(chosen.bands)
    note = "Marked: the first and last two pairs, and where each band begins and ends."
    if size > ALL_PAIRS:
        note = (
            f"{len(pairs)} of {size} pairs shown: the first and last two, where each band begins "
            "and ends, and pairs spread between; the code under Export recomputes every pair."
        )
    return ChartData(
        caption=f"Per-pair frequencies before and after {chosen.label}, s = {state.factor:g}",
        columns=("pair i", "θ_i", "θ'_i", "θ_i / θ'_i", "λ_i", "λ'_i", "band"),
        rows=tuple(_pair_row(chosen, i) for i in pairs),
        note=note,
        marked=frozenset(band_ends(chosen.bands)) if size <= ALL_PAIRS else frozenset(),
    )


def code(state: ExplorerState) -> str:
    """A standalone NumPy script that recomputes the view's inv_freq, divisor and attention
    factor at the state, with the method's own function from rope_types.py."""
    chosen = derived.scaled_rope(state)
    # Settings that cannot be applied are drawn unscaled: the script does the same.
    method = "none" if chosen.problem else chosen.method
    lines = [
        f'"""RoPE scaling by {scaling.SCALING_LABELS[method]}: inv_freq, the divisor θ_i / θ\'_i '
        'and the attention factor."""',
        "",
        "import math",
        "",
        "import numpy as np",
        "",
    ]
    if chosen.problem:
        lines.append(f"# {chosen.label} cannot be applied ({chosen.problem}): drawn unscaled.")
    lines += [
        f"d_head = {state.d_model}",
        f"base = {float(state.base)!r}",
        f"original_context = {state.original_context}  # L",
        *scaling_lines(
            method,
            (state.d_model, float(state.base), float(state.factor), state.original_context),
            derived.scaling_parameters(state, method),
            ("inv_freq, attention_factor", "d_head", "base", "original_context"),
        ),
    ]
    return (
        "\n".join(lines) + "\n\ninv_freq_original = default_frequencies(d_head, base)\n"
        "divisor = inv_freq_original / inv_freq\n"
        "wavelength = 2 * np.pi / inv_freq\n\n"
        'print("attention factor", attention_factor)\n'
        "for i in range(d_head // 2):\n"
        "    print(i, inv_freq_original[i], inv_freq[i], divisor[i], wavelength[i])\n"
    )


def _preset_name(preset: Preset) -> tuple[str, str, str]:
    """A preset button's label, description and CSS class."""
    description = f"Set the {preset.label} settings: {preset.source}"
    return preset.label, description, f"pe-scaling-preset-{preset.key}"


class ScalingView(PlotView):
    """The view, with a row of buttons above the chart that set a published model's settings."""

    def __init__(self, **params):
        super().__init__(**params)
        self._presets = preset_buttons(
            PRESETS, self.apply_preset, _preset_name, width=190, margin=(4, 8, 4, 0)
        )

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
            self.step_bar("pe-scaling-presets", label, *self._presets),
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

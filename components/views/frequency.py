"""Angular frequency and wavelength of every dimension pair, on log axes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import encoding
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import DATA_COLUMNS, ChartData
from ..plotkit.numbers import number
from ..state import ExplorerState


@dataclass(frozen=True)
class WavelengthSummary:
    """The extremes of the wavelengths, in positions."""

    shortest: float
    longest: float
    pairs: int


def summary(state: ExplorerState) -> WavelengthSummary:
    """Shortest (λ_0 = 2π) and longest wavelength for the state's d_model and base."""
    lengths = encoding.wavelengths(state.d_model, state.base)
    return WavelengthSummary(float(lengths[0]), float(lengths[-1]), int(lengths.size))


def _pair_curve(values: np.ndarray, axis: str, name: str, colour: int, value_hover: str) -> dict:
    """values against the pair index i on the y axis named axis (dots while they stay apart)."""
    return {
        "type": "scatter",
        "mode": "lines+markers" if values.size <= 128 else "lines",
        "x": np.arange(values.size),
        "y": values,
        "yaxis": axis,
        "name": name,
        "line": {"color": theme.PAIR_COLOURS[colour]},
        "marker": {"size": 4},
        "hovertemplate": f"i = %{{x}}<br>{value_hover}<extra></extra>",
    }


def figure(state: ExplorerState) -> dict:
    """ω_i (top) and λ_i (bottom) against i, chosen pairs highlighted."""
    omega = encoding.angular_frequencies(state.d_model, state.base)
    wavelength = 2.0 * np.pi / omega
    chosen = np.asarray(state.chosen_pairs)
    palette = theme.colours(state.theme)
    base = f"{state.base:g}"
    traces = [
        _pair_curve(omega, "y", "angular frequency ω_i", 0, "ω_i = %{y:.6g} rad/position"),
        _pair_curve(wavelength, "y2", "wavelength λ_i", 1, "λ_i = %{y:.6g} positions"),
        {
            "type": "scatter",
            "mode": "markers",
            "x": chosen,
            "y": wavelength[chosen],
            "yaxis": "y2",
            "name": "pairs shown as waves",
            "marker": {
                "size": 11,
                "color": "rgba(0,0,0,0)",
                "line": {"width": 2, "color": palette["pos"]},
            },
            "hovertemplate": "chosen pair i = %{x}<br>λ_i = %{y:.6g}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": chosen,
            "y": omega[chosen],
            "yaxis": "y",
            "name": "pairs shown as waves",
            "showlegend": False,
            "marker": {
                "size": 11,
                "color": "rgba(0,0,0,0)",
                "line": {"width": 2, "color": palette["pos"]},
            },
            "hovertemplate": "chosen pair i = %{x}<br>ω_i = %{y:.6g}<extra></extra>",
        },
    ]
    title = (
        f"ω_i = {base}^(−2i/d_model) and λ_i = 2π·{base}^(2i/d_model), d_model = {state.d_model}"
    )
    layout = titled_layout(state, f"frequency-{state.d_model}", title)
    layout.update(
        xaxis=theme.axis(state.theme, title={"text": "pair index i"}, anchor="y2"),
        yaxis=theme.axis(
            state.theme, type="log", domain=[0.56, 1.0], title={"text": "ω_i (rad / position)"}
        ),
        yaxis2=theme.axis(
            state.theme, type="log", domain=[0.0, 0.44], title={"text": "λ_i (positions)"}
        ),
        margin={"l": 72, "r": 24, "t": 48, "b": 90},
    )
    layout["legend"] = {"orientation": "h", "y": -0.16, "x": 0}
    return {"data": traces, "layout": layout}


def readout(state: ExplorerState) -> str:
    """The shortest and longest wavelengths as text (numbers only, nothing from visitors)."""
    extremes = summary(state)
    return (
        f'<p class="pe-wavelengths">{extremes.pairs} pairs. Shortest wavelength '
        f'λ<sub>0</sub> = <span class="pe-shortest">{extremes.shortest:.6f}</span> (2π) positions; '
        f"longest λ<sub>{extremes.pairs - 1}</sub> = "
        f'<span class="pe-longest">{extremes.longest:.3f}</span> positions.</p>'
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the range of wavelengths and the pairs marked."""
    extremes = summary(state)
    chosen = ", ".join(str(i) for i in state.chosen_pairs)
    return (
        f"Angular frequency and wavelength of the {extremes.pairs} pairs, d_model = "
        f"{state.d_model}, base {state.base:g}: wavelengths from {number(extremes.shortest)} "
        f"to {number(extremes.longest)} positions; pairs {chosen} marked"
    )


def data(state: ExplorerState) -> ChartData:
    """ω_i and λ_i of the first and last pairs and the pairs marked (every pair when few)."""
    omega = encoding.angular_frequencies(state.d_model, state.base)
    lengths = encoding.wavelengths(state.d_model, state.base)
    if omega.size <= DATA_COLUMNS:
        pairs = list(range(omega.size))
        note = ""
    else:
        pairs = sorted({0, omega.size - 1, *state.chosen_pairs})
        note = f"Pairs 0, {omega.size - 1} and the ones marked shown, of {omega.size}."
    return ChartData(
        caption=f"Angular frequency and wavelength per pair, base {state.base:g}",
        columns=("pair i", "ω_i (rad / position)", "λ_i (positions)"),
        # ω falls to 1/base: four significant digits, not four decimals.
        rows=tuple((i, f"{omega[i]:.4g}", lengths[i]) for i in pairs),
        note=note,
    )

"""Angular frequency and wavelength of every dimension pair, on log axes."""

from __future__ import annotations

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import DATA_COLUMNS, ChartData
from ..plotkit.numbers import number
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState


def _pair_curve(values: np.ndarray, name: str, colour: int, value_hover: str) -> dict:
    """values against the pair index i (dots while they stay apart)."""
    return {
        "type": "scatter",
        "mode": "lines+markers" if values.size <= 128 else "lines",
        "x": np.arange(values.size),
        "y": values,
        "name": name,
        "line": {"color": theme.PAIR_COLOURS[colour]},
        "marker": {"size": 4},
        "hovertemplate": f"i = %{{x}}<br>{value_hover}<extra></extra>",
    }


def _chosen_rings(state: ExplorerState, values: np.ndarray, value_hover: str, legend: bool):
    """Rings around the values of the pairs the waves view draws."""
    chosen = np.asarray(state.chosen_pairs)
    return {
        "type": "scatter",
        "mode": "markers",
        "x": chosen,
        "y": values[chosen],
        "name": "pairs shown as waves",
        "showlegend": legend,
        "marker": {
            "size": 11,
            "color": "rgba(0,0,0,0)",
            "line": {"width": 2, "color": theme.colours(state.theme)["pos"]},
        },
        "hovertemplate": f"chosen pair i = %{{x}}<br>{value_hover}<extra></extra>",
    }


def frequency_subplot(state: ExplorerState) -> Subplot:
    """ω_i against i, on a log axis, over the wavelengths (it shares their pair axis)."""
    omega = derived.angular_frequencies(state.d_model, float(state.base))
    traces = [
        _pair_curve(omega, "angular frequency ω_i", 0, "ω_i = %{y:.6g} rad/position"),
        _chosen_rings(state, omega, "ω_i = %{y:.6g}", legend=False),
    ]
    y_axis = {"type": "log", "title": {"text": "ω_i (rad / position)"}}
    x_axis = {"matches": "x2", "showticklabels": False}
    return Subplot(traces, x_axis, y_axis, ((0.0, 1.0), (0.56, 1.0)))


def wavelength_subplot(state: ExplorerState) -> Subplot:
    """λ_i against i, on a log axis."""
    wavelength = derived.wavelengths(state.d_model, float(state.base))
    traces = [
        _pair_curve(wavelength, "wavelength λ_i", 1, "λ_i = %{y:.6g} positions"),
        _chosen_rings(state, wavelength, "λ_i = %{y:.6g}", legend=True),
    ]
    y_axis = {"type": "log", "title": {"text": "λ_i (positions)"}}
    return Subplot(traces, {"title": {"text": "pair index i"}}, y_axis, ((0.0, 1.0), (0.0, 0.44)))


def figure(state: ExplorerState) -> dict:
    """ω_i (top) and λ_i (bottom) against i, chosen pairs highlighted."""
    base = f"{state.base:g}"
    title = (
        f"ω_i = {base}^(−2i/d_model) and λ_i = 2π·{base}^(2i/d_model), d_model = {state.d_model}"
    )
    layout = titled_layout(state, f"frequency-{state.d_model}", title)
    layout.update(
        margin={"l": 72, "r": 24, "t": 48, "b": 90},
        legend={"orientation": "h", "y": -0.16, "x": 0},
    )
    return compose(state, layout, [frequency_subplot(state), wavelength_subplot(state)])


def readout(state: ExplorerState) -> str:
    """The shortest and longest wavelengths as text (numbers only, nothing from visitors)."""
    lengths = derived.wavelengths(state.d_model, float(state.base))
    return (
        f'<p class="pe-wavelengths">{lengths.size} pairs. Shortest wavelength '
        f'λ<sub>0</sub> = <span class="pe-shortest">{lengths[0]:.6f}</span> (2π) positions; '
        f"longest λ<sub>{lengths.size - 1}</sub> = "
        f'<span class="pe-longest">{lengths[-1]:.3f}</span> positions.</p>'
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the range of wavelengths and the pairs marked."""
    lengths = derived.wavelengths(state.d_model, float(state.base))
    chosen = ", ".join(str(i) for i in state.chosen_pairs)
    return (
        f"Angular frequency and wavelength of the {lengths.size} pairs, d_model = "
        f"{state.d_model}, base {state.base:g}: wavelengths from {number(lengths[0])} "
        f"to {number(lengths[-1])} positions; pairs {chosen} marked"
    )


def data(state: ExplorerState) -> ChartData:
    """ω_i and λ_i of the first and last pairs and the pairs marked (every pair when few)."""
    omega = derived.angular_frequencies(state.d_model, float(state.base))
    lengths = derived.wavelengths(state.d_model, float(state.base))
    if omega.size <= DATA_COLUMNS:
        pairs, note = range(omega.size), ""
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

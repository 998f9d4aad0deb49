"""Angular frequency and wavelength of every dimension pair, on log axes."""

from __future__ import annotations

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import titled_layout
from ..plotkit.frame import ALL_PAIRS, ChartData
from ..plotkit.numbers import number
from ..plotkit.subplots import Subplot, compose
from ..state import ExplorerState

# The name, hover, unit and axis title of each row's values (pair_subplot).
FREQUENCY_NAMES = (
    "angular frequency ω_i",
    "ω_i = %{y:.6g}",
    " rad/position",
    "ω_i (rad / position)",
)
WAVELENGTH_NAMES = ("wavelength λ_i", "λ_i = %{y:.6g}", " positions", "λ_i (positions)")


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


def pair_subplot(state: ExplorerState, row: int, values: np.ndarray, names: tuple) -> Subplot:
    """values against the pair index i on a log axis, the pairs the waves view draws ringed:
    row 0, the frequencies, above row 1, the wavelengths, whose pair axis both share. names are
    the values' name, their hover, its unit and the axis title."""
    name, hover, unit, title = names
    traces = [
        _pair_curve(values, name, row, hover + unit),
        _chosen_rings(state, values, hover, legend=row == 1),
    ]
    if row == 0:
        x_axis, place = {"matches": "x2", "showticklabels": False}, (0.56, 1.0)
    else:
        x_axis, place = {"title": {"text": "pair index i"}}, (0.0, 0.44)
    return Subplot(traces, x_axis, {"type": "log", "title": {"text": title}}, ((0.0, 1.0), place))


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
    d, value = state.d_model, float(state.base)
    frequencies = pair_subplot(state, 0, derived.angular_frequencies(d, value), FREQUENCY_NAMES)
    wavelengths = pair_subplot(state, 1, derived.wavelengths(d, value), WAVELENGTH_NAMES)
    return compose(state, layout, [frequencies, wavelengths])


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
    """ω_i and λ_i of every pair (up to ALL_PAIRS; of more, the first, the last and the pairs
    marked), the pairs the waves view draws marked."""
    omega = derived.angular_frequencies(state.d_model, float(state.base))
    lengths = derived.wavelengths(state.d_model, float(state.base))
    marked = frozenset(state.chosen_pairs)
    if omega.size <= ALL_PAIRS:
        pairs, note = range(omega.size), "Marked: the pairs the waves view draws."
    else:
        pairs = sorted({0, omega.size - 1, *marked})
        note = f"Pairs 0, {omega.size - 1} and the ones marked shown, of {omega.size}."
    return ChartData(
        caption=f"Angular frequency and wavelength per pair, base {state.base:g}",
        columns=("pair i", "ω_i (rad / position)", "λ_i (positions)"),
        # ω falls to 1/base: four significant digits, not four decimals.
        rows=tuple((i, f"{omega[i]:.4g}", lengths[i]) for i in pairs),
        note=note,
        marked=marked,
    )

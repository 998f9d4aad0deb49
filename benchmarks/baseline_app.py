"""Baseline for the benchmarks: the smallest Panel + NumPy + Plotly app (one slider, one line).

Converted like the explorer (panel convert --to pyodide-worker, requirements numpy and
plotly==7.1.0), it is what any Panel + Plotly site costs to start; the explorer is compared
with it.
"""

import numpy as np
import panel as pn

pn.extension("plotly")

x = np.linspace(0.0, 2.0 * np.pi, 400)
frequency = pn.widgets.IntSlider(name="Frequency", start=1, end=20, value=1)


def figure(frequency: int) -> dict:
    """sin(frequency · x) as one line."""
    return {
        "data": [{"type": "scatter", "mode": "lines", "x": x, "y": np.sin(frequency * x)}],
        "layout": {"title": {"text": f"sin({frequency}x)"}, "height": 400},
    }


pn.Column(frequency, pn.pane.Plotly(pn.bind(figure, frequency))).servable(title="Baseline")

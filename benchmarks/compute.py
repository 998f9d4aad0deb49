"""Python-side costs: building the PE matrix, and one control step of the whole page in-process."""

from __future__ import annotations

import functools
import math
import statistics
import time
import timeit

import numpy as np
from pe_explorer import encoding

REPEATS = 7


def reference_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The textbook (PyTorch tutorial) construction, written with NumPy."""
    position = np.arange(n_positions, dtype=np.float64)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2, dtype=np.float64) * -(math.log(base) / d_model))
    pe = np.zeros((n_positions, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def per_call_s(function, repeats: int, *args) -> float:
    """Median seconds per call of function(*args): `repeats` timeit runs of an auto-ranged number
    of calls each."""
    timer = timeit.Timer(functools.partial(function, *args))
    number, _ = timer.autorange()
    return statistics.median(t / number for t in timer.repeat(repeat=repeats, number=number))


def matrix_timings(sizes: dict[str, tuple[int, int]], repeats: int = REPEATS) -> dict:
    """encoding.positional_encoding against the reference at each size (medians)."""
    results = {}
    for name, (d_model, n_positions) in sizes.items():
        ours = per_call_s(encoding.positional_encoding, repeats, n_positions, d_model)
        reference = per_call_s(reference_encoding, repeats, n_positions, d_model)
        difference = float(
            np.abs(
                encoding.positional_encoding(n_positions, d_model)
                - reference_encoding(n_positions, d_model)
            ).max()
        )
        results[name] = {
            "d_model": d_model,
            "n_positions": n_positions,
            "ours_ms": ours * 1000,
            "reference_ms": reference * 1000,
            "ratio": ours / reference,
            "max_abs_difference": difference,
        }
    return results


def page_step_timings(sizes: dict[str, tuple[int, int]], steps: int) -> dict:
    """One pos/offset/d_model step of the whole page, in-process, with its Bokeh models live.

    This is the Python share of the served latency (figures, pane diffs, model updates), without
    the websocket and the browser.
    """
    import panel as pn
    from bokeh.document import Document
    from pe_explorer.state import ExplorerState
    from pe_explorer.ui.page import ExplorerPage

    pn.extension("plotly")
    results = {}
    for name, (d_model, n_positions) in sizes.items():
        state = ExplorerState(d_model=d_model, n_positions=n_positions)
        page = ExplorerPage(state=state)
        pn.panel(page).get_root(Document())
        controls = {}
        # d_model moves one way, so no step finds its matrix cached.
        d_step = 2 if d_model + 2 * steps <= encoding.MAX_D_MODEL else -2
        for control, increment in (("pos", 1), ("offset", 1), ("d_model", d_step)):
            times = []
            for _ in range(steps):
                started = time.perf_counter()
                setattr(state, control, getattr(state, control) + increment)
                times.append((time.perf_counter() - started) * 1000)
            controls[control] = {
                "p50_ms": float(np.percentile(times, 50)),
                "p95_ms": float(np.percentile(times, 95)),
            }
        results[name] = {"d_model": d_model, "n_positions": n_positions, "controls": controls}
    return results

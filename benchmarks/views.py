"""The Python cost of redrawing each view once: figure, accessible name, readout and Show data.

    python -m benchmarks.views [--runs 30] [--views mistakes,heatmap]

For each view, the state changes by one step of pos (or, for a view that does not follow pos,
of the first parameter it follows) and the view is redrawn, the caches warm as after a drag:
the p50 and p95 of that redraw over --runs steps, at the default state and at a large one
(the issue-33 views at their heaviest settings), and apart, the making of the picks that drawing
sends (a view that follows pos or k). Python's share only: the browser's drawing and the
worker's messages come on top (benchmarks/latency.py measures those end to end).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS

# Where a view is heaviest: the largest sizes, and the long-context views at their extremes.
LARGE = {"d_model": 2048, "n_positions": 2048, "pos": 1000, "offset": 3}
HEAVIEST = {
    "scaling": {"d_model": 2048, "factor": 128.0, "original_context": 1 << 20},
    "ropecheck": {"d_model": 2048, "scaling": "yarn", "factor": 128.0},
    "t5": {"n_positions": 2048, "t5_buckets": 256, "t5_max_distance": 4096, "pos": 1000},
    "shaw": {"n_positions": 2048, "d_model": 2048, "shaw_clip": 512, "pos": 1000},
    "mistakes": {"query_at": "128k"},
}
# A choice (the mistake, the model) steps to the next of its values, round and round.
STEPPED = ("pos", "offset", "d_model", "base", "factor", "original_context", "mistake", "model")


def stepped(spec) -> str:
    """The parameter a drag moves for this view: pos where it follows pos."""
    return next(name for name in STEPPED if name in spec.follows)


def step(state: ExplorerState, name: str, index: int) -> None:
    """Move one parameter by one step, back and forth so that it stays in range."""
    sign = -1 if index % 2 == 0 else 1  # down first: the large state is at the top of the ranges
    if name in ("mistake", "model"):
        choices = state.param[name].objects
        setattr(state, name, choices[(choices.index(getattr(state, name)) + 1) % len(choices)])
    elif name == "d_model":
        state.d_model += 2 * sign
    elif name in ("base", "factor"):
        setattr(state, name, getattr(state, name) * (1.1 if sign > 0 else 1 / 1.1))
    elif name == "original_context":
        state.original_context += 16 * sign
    else:
        setattr(state, name, getattr(state, name) + sign)


def redraw_times(spec, values: dict, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Seconds per redraw of the view after each of runs steps, and seconds per making of the
    picks that drawing sends (0 for a view without picks)."""
    state = ExplorerState(**values)
    view = spec.make(state)
    view.figure(), view.description(), view.data_table()  # warm the caches, as the page has
    if spec.picks is not None:
        spec.picks(state)
    name = stepped(spec)
    times, pick_times = [], []
    for index in range(runs):
        step(state, name, index)
        start = time.perf_counter()
        view.figure()
        view.description()
        view.data_table()
        if spec.readout is not None:
            spec.readout(state)
        drawn = time.perf_counter()
        if spec.picks is not None:
            spec.picks(state)
        times.append(drawn - start)
        pick_times.append(time.perf_counter() - drawn)
    return np.array(times), np.array(pick_times)


def percentiles(times: np.ndarray) -> str:
    """p50 / p95 of times (s) in ms."""
    return f"{np.percentile(times, 50) * 1000:.1f} / {np.percentile(times, 95) * 1000:.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--views", default="", help="only these views (names, comma-separated)")
    args = parser.parse_args(argv)
    chosen = set(filter(None, args.views.split(",")))
    picks_column = "picks, default / large p50 ms"
    print(f"| view | step | default p50 / p95 ms | large p50 / p95 ms | {picks_column} |")
    print("|---|---|---|---|---|")
    for spec in VIEWS:
        if chosen and spec.name not in chosen:
            continue
        rows, picks = [], []
        for values in ({}, {**LARGE, **HEAVIEST.get(spec.name, {})}):
            times, pick_times = redraw_times(spec, values, args.runs)
            rows.append(percentiles(times))
            picks.append(f"{np.percentile(pick_times, 50) * 1000:.1f}")
        print(f"| {spec.name} | {stepped(spec)} | {rows[0]} | {rows[1]} | {' / '.join(picks)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

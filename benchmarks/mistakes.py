"""The mistakes view drawn from cold, per mistake, at its largest setting (issue 59).

    python -m benchmarks.mistakes [--runs 3] [--query 128k] [--positions 2048]

For each mistake, the caches of what it computes are cleared (derived.mistake_shown and
mistake_near, the view's printed slider words) and the view is drawn once as the page draws it:
the figure, its accessible name, the readout, Show data and the picks its drawing sends (what
every value of pos and k shows, for the whole sequence). Best of --runs, in ms, Python's share
only (CPython here; Pyodide in the browser is slower, about 2–3× for NumPy-bound work).
"""

from __future__ import annotations

import argparse
import time

from pe_explorer import derived
from pe_explorer.mistakes.types import MISTAKE_NAMES
from pe_explorer.state import ExplorerState
from pe_explorer.views import mistakes, view_spec


def cold_draw(state: ExplorerState) -> float:
    """Seconds to draw the mistakes view of state with every cache of the mistake cleared."""
    for cached in (derived.mistake_shown, derived.mistake_near, mistakes.slider_words):
        cached.cache_clear()
    spec = view_spec("mistakes")
    start = time.perf_counter()
    spec.figure(state)
    spec.describe(state)
    spec.readout(state)
    spec.data(state)
    spec.picks(state)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--query", default="128k", choices=["4k", "32k", "128k", "context"])
    parser.add_argument("--positions", type=int, default=2048)
    args = parser.parse_args(argv)
    print(f"| mistake | cold draw, {args.positions} positions, query at {args.query} (ms) |")
    print("|---|---|")
    for mistake in MISTAKE_NAMES:
        state = ExplorerState(mistake=mistake, query_at=args.query, n_positions=args.positions,
                              pos=args.positions // 2, offset=3)  # fmt: skip
        best = min(cold_draw(state) for _ in range(args.runs))
        print(f"| {mistake} | {best * 1000:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

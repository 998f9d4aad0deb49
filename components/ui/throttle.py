"""A drag's values reach the state at most every THROTTLE_MS, and at once where it ends.

The page shows every value of pos and k as it comes (plotkit/picks.py); Python, which draws
each view again, needs only enough of them to keep up, and the last.
"""

from __future__ import annotations

from collections.abc import Callable

import panel as pn

# How often a drag's value reaches Python (ms): the page has already shown it, so this only
# bounds how far Python's redraws trail the drag.
THROTTLE_MS = 150


class Throttle:
    """Runs apply() at the first value, then at most once per interval while values keep
    coming, and once after the last; flush() runs it now (a drag's release, a key).

    Without a document (a plain Python session, the unit tests) every value is applied at once:
    there is no page to show the values in between.
    """

    def __init__(
        self,
        apply: Callable[[], None],
        interval_ms: int = THROTTLE_MS,
        later: Callable[[Callable[[], None], int], object] | None = None,
        in_a_page: Callable[[], bool] = lambda: pn.state.curdoc is not None,
    ):
        self._apply = apply
        self._interval_ms = interval_ms
        self._later = later or self._once_later
        self._in_a_page = in_a_page
        self._pending = False
        self._window = None

    @staticmethod
    def _once_later(callback: Callable[[], None], ms: int):
        """Panel's timer, once (served, in the worker and in a notebook alike)."""
        return pn.state.add_periodic_callback(callback, period=ms, count=1)

    def push(self) -> None:
        """A new value is waiting."""
        if not self._in_a_page():
            self._apply()
            return
        self._pending = True
        if self._window is None:
            self._run()

    def flush(self) -> None:
        """Apply the waiting value now."""
        if self._pending:
            self._pending = False
            self._apply()

    def _run(self) -> None:
        if not self._pending:
            self._window = None
            return
        self._pending = False
        self._window = self._later(self._closed, self._interval_ms)
        self._apply()

    def _closed(self) -> None:
        self._window = None
        if self._pending:
            self._run()

"""Play: sweep pos (or the offset k) through the sequence, looping, at a chosen speed."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import panel as pn
import param
from panel.custom import JSComponent

from ..fixes.slider import Slider
from ..state import ExplorerState

TARGETS = {"pos": "pos", "k": "offset"}
MAX_SPEED = 30
# Pausing for a change the visitor made ignores the theme: it changes no position.
NOT_A_MOVE = ("theme",)
# Steps sent but not yet drawn that Play allows: one more keeps the worker busy while the
# browser draws the last (benchmarks/RESULTS.md, "Play"); more would only queue.
MAX_IN_FLIGHT = 2


class PlayClock(JSComponent):
    """The browser's side of Play: says when the last step has been drawn, and hears Space.

    Each step Python sends raises `sent`; the browser sets `acked` to it at the next animation
    frame, after the messages before it (the views' updates) were applied. Play keeps at most
    MAX_IN_FLIGHT steps unacknowledged: a slow browser skips positions instead of queueing
    them. Space anywhere but in a text field or on a button raises `space_presses`.
    """

    sent = param.Integer(default=0, doc="Steps sent to the browser.")
    acked = param.Integer(default=0, doc="The last step the browser has drawn.")
    space_presses = param.Integer(default=0, doc="Times Space was pressed to play or pause.")

    _esm = Path(__file__).parents[1] / "js" / "play_clock.js"


class Player(pn.viewable.Viewer):
    """Play / Pause and a speed for sweeping pos or k; any other change pauses it."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    playing = param.Boolean(default=False, doc="Whether Play is sweeping.")
    target = param.Selector(default="pos", objects=list(TARGETS.values()), doc="What it sweeps.")
    speed = param.Integer(
        default=4, bounds=(1, MAX_SPEED), label="Speed (steps per second)", doc="Steps a second."
    )
    skipped = param.Integer(default=0, doc="Ticks skipped because the browser was drawing.")

    def __init__(self, clock: Callable[[], float] = time.monotonic, **params):
        super().__init__(**params)
        self._now = clock
        self.clock = PlayClock()
        self._callback = None
        self._stepping = False
        self._origin: tuple[float, int] = (0.0, 0)
        self.toggle = pn.widgets.Toggle.from_param(
            self.param.playing,
            name="▶ Play",
            width=110,
            css_classes=["pe-play"],
        )
        self.speed_slider = Slider.from_param(
            self.param.speed, sizing_mode="stretch_width", css_classes=["pe-play-speed"]
        )
        self.target_choice = pn.widgets.RadioButtonGroup.from_param(
            self.param.target, options=TARGETS, width=120, css_classes=["pe-play-target"]
        )
        self.clock.param.watch(lambda event: self._toggle(), "space_presses")
        # A step drawn makes room for the next at once, without waiting for the timer.
        self.clock.param.watch(lambda event: self.playing and self.tick(), "acked")
        names = [name for name in self.state.param if name not in ("name", *NOT_A_MOVE)]
        self.state.param.watch(self._state_moved, names)

    def _toggle(self) -> None:
        self.playing = not self.playing

    def _state_moved(self, *events) -> None:
        """A change Play did not make (a slider, a link, a host page) pauses it."""
        if self.playing and not self._stepping:
            self.playing = False

    @param.depends("playing", watch=True)
    def _play_or_pause(self) -> None:
        self.toggle.name = "⏸ Pause" if self.playing else "▶ Play"
        if self.playing:
            self._start()
        else:
            self._stop()

    @param.depends("speed", "target", watch=True)
    def _restart(self) -> None:
        if self.playing:
            self._stop()
            self._start()

    def _range(self) -> tuple[int, int]:
        return self.state.limits()[self.target]

    def _start(self) -> None:
        low, _ = self._range()
        self._origin = (self._now(), getattr(self.state, self.target) - low)
        # Nothing is waiting for an acknowledgement when Play starts.
        self.clock.acked = self.clock.sent
        self._callback = pn.state.add_periodic_callback(
            self.tick, period=max(16, round(1000 / self.speed))
        )

    def _stop(self) -> None:
        if self._callback is not None:
            self._callback.stop()
            self._callback = None

    def tick(self) -> None:
        """One step: the position the clock says it should be at now, if the browser is ready.

        The position comes from the time since Play started, not from the last step: when a
        step takes longer than the interval, the next one skips ahead rather than lagging.
        """
        if self.clock.sent - self.clock.acked >= MAX_IN_FLIGHT:
            self.skipped += 1
            return
        low, high = self._range()
        started, index = self._origin
        # A tick due at exactly the next step must take it: rounding may put it just short.
        steps = math.floor((self._now() - started) * self.speed + 1e-6)
        value = low + (index + steps) % (high - low + 1)
        if value == getattr(self.state, self.target):
            return
        self._stepping = True
        try:
            setattr(self.state, self.target, value)
        finally:
            self._stepping = False
        self.clock.sent += 1

    def widgets(self) -> list:
        """The Play controls, in page order."""
        return [
            pn.pane.HTML("<span>Play sweeps</span>", margin=(6, 10, 0, 10)),
            # Wrapping: an embed's column of controls may be narrower than the two side by side.
            pn.FlexBox(
                self.toggle, self.target_choice, flex_wrap="wrap", sizing_mode="stretch_width"
            ),
            self.speed_slider,
        ]

    def __panel__(self):
        return pn.Column(*self.widgets(), sizing_mode="stretch_width")

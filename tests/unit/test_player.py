"""Play: the position follows the clock, skips instead of queueing, and any other move pauses."""

import panel as pn
import pytest
from pe_explorer.state import ExplorerState
from pe_explorer.ui.player import Player


class FakeCallback:
    def __init__(self, period):
        self.period = period
        self.stopped = False

    def stop(self):
        self.stopped = True


@pytest.fixture
def callbacks(monkeypatch):
    started = []

    def add_periodic_callback(callback, period):
        started.append(FakeCallback(period))
        return started[-1]

    monkeypatch.setattr(pn.state, "add_periodic_callback", add_periodic_callback)
    return started


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def drawn(player):
    """The browser acknowledges the last step (PlayClock does this two frames later)."""
    player.clock.acked = player.clock.sent


def test_play_steps_pos_with_the_clock_and_loops(callbacks):
    clock = Clock()
    state = ExplorerState(n_positions=10, pos=7, offset=0)
    player = Player(state=state, clock=clock, speed=4)
    player.playing = True
    assert callbacks[-1].period == 250 and player.toggle.name == "⏸ Pause"
    clock.now += 0.25
    player.tick()
    assert state.pos == 8
    drawn(player)
    clock.now += 0.5
    player.tick()
    assert state.pos == 0  # 7 + 3 steps, looping over 0 … 9
    player.playing = False
    assert callbacks[-1].stopped and player.toggle.name == "▶ Play"


def test_a_slow_browser_makes_play_skip_ahead_not_queue(callbacks):
    clock = Clock()
    state = ExplorerState(n_positions=64, pos=0, offset=0)
    player = Player(state=state, clock=clock, speed=10)
    player.playing = True
    clock.now += 0.1
    player.tick()
    assert state.pos == 1
    clock.now += 0.1
    player.tick()
    assert state.pos == 2
    # The browser is still drawing pos 1 and 2: ticks are skipped, nothing is sent.
    for _ in range(5):
        clock.now += 0.1
        player.tick()
    assert state.pos == 2 and player.skipped == 5 and player.clock.sent == 2
    drawn(player)  # the browser's acknowledgement steps at once
    assert state.pos == 7  # where the clock says, not pos 3


def test_moving_a_control_by_hand_pauses_play(callbacks):
    clock = Clock()
    state = ExplorerState()
    player = Player(state=state, clock=clock)
    player.playing = True
    state.theme = "dark"
    assert player.playing
    state.d_model = 64
    assert not player.playing and callbacks[-1].stopped


def test_play_can_sweep_k_inside_its_limits(callbacks):
    clock = Clock()
    state = ExplorerState(n_positions=5, pos=2, offset=4)
    player = Player(state=state, clock=clock, speed=1, target="offset")
    player.playing = True
    seen = []
    for _ in range(7):
        clock.now += 1.0
        player.tick()
        drawn(player)
        seen.append(state.offset)
    assert seen == [-2, -1, 0, 1, 2, 3, 4]  # limits: −pos … n_positions − 1, looping
    assert state.pos == 2


def test_space_toggles_play_and_a_new_speed_restarts_the_clock(callbacks):
    player = Player(state=ExplorerState(), clock=Clock())
    player.clock.space_presses += 1
    assert player.playing
    player.speed = 20
    assert callbacks[0].stopped and callbacks[-1].period == 50 and player.playing
    player.clock.space_presses += 1
    assert not player.playing

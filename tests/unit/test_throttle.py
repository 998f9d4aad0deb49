"""The throttle between a drag of pos or k and the state (ui/throttle.py): the first value at
once, then at most one per window, the last one when the window closes, and a release at once."""

from pe_explorer.ui.throttle import THROTTLE_MS, Throttle


def make(values: list):
    """A throttle applying the latest of values, with a timer the test runs by hand."""
    latest, applied, timers = [None], [], []
    throttle = Throttle(
        lambda: applied.append(latest[0]),
        later=lambda callback, ms: timers.append((callback, ms)) or object(),
        in_a_page=lambda: True,
    )

    def push(value):
        latest[0] = value
        throttle.push()

    return throttle, push, applied, timers


def test_the_first_value_goes_at_once_and_opens_a_window():
    throttle, push, applied, timers = make([])
    push(8)
    assert applied == [8]
    assert [ms for _, ms in timers] == [THROTTLE_MS]


def test_values_within_a_window_wait_and_the_last_goes_when_it_closes():
    throttle, push, applied, timers = make([])
    push(8)
    push(9)
    push(10)
    assert applied == [8]
    callback, _ = timers.pop()
    callback()
    assert applied == [8, 10]
    assert len(timers) == 1  # a new window, for the values still coming


def test_a_window_closing_with_nothing_new_sends_nothing():
    throttle, push, applied, timers = make([])
    push(8)
    timers.pop()[0]()
    assert applied == [8] and timers == []
    push(9)  # a new drag: at once again
    assert applied == [8, 9]


def test_a_release_sends_the_waiting_value_at_once():
    throttle, push, applied, timers = make([])
    push(8)
    push(9)
    throttle.flush()
    assert applied == [8, 9]
    throttle.flush()  # nothing waits: nothing more
    assert applied == [8, 9]


def test_without_a_page_every_value_goes_at_once():
    applied = []
    throttle = Throttle(lambda: applied.append(1), in_a_page=lambda: False)
    throttle.push()
    throttle.push()
    assert applied == [1, 1]

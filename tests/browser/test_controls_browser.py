"""The controls in the served app: after any keys, at and past their bounds, each slider shows
the state, and the URL, the compare caption and the readouts show the same one (issue 22)."""

import random

import pytest
from controls_support import (
    STORM_STARTS,
    press,
    settled_state,
    storm,
)
from pe_explorer.state import ExplorerState

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("keys", "offset"),
    [
        (["ArrowLeft", "End"], 255),
        (["ArrowLeft", *["ArrowRight"] * 3], 3),
        (["Home", *["ArrowRight"] * 5], 5),
    ],
    ids=["ArrowLeft-End", "ArrowLeft-ArrowRight3", "Home-ArrowRight5"],
)
def test_offset_keys_from_pos_0_and_k_0_show_one_state(open_app, keys, offset):
    """Issue 22: End on the offset slider left its title at k = 0 while the views showed 255."""
    page, log = open_app("?n_positions=256&pos=0&offset=0&d_model=128")
    press(page, "offset", keys)
    state = settled_state(page, f"k = {offset} everywhere")
    assert state == {"pos": 0, "offset": offset, "d_model": 128, "n_positions": 256}
    assert log.relevant_errors() == []


def test_home_and_end_reach_the_new_ends_after_the_length_changed(open_app):
    page, log = open_app("?n_positions=64&pos=7&offset=1&d_model=64")
    press(page, "n_positions", ["PageUp"] * 40)  # 5 steps each: 64 → 264
    assert settled_state(page)["n_positions"] == 264
    press(page, "pos", ["End"])
    assert settled_state(page)["pos"] == 263
    press(page, "offset", ["End"])
    assert settled_state(page)["offset"] == 263
    press(page, "offset", ["Home"])
    assert settled_state(page)["offset"] == -263
    press(page, "pos", ["Home"])
    # pos + k ≥ 0: k follows pos up to 0.
    assert settled_state(page) == {"pos": 0, "offset": 0, "d_model": 64, "n_positions": 264}
    assert log.relevant_errors() == []


BURSTS = 20


# The start the served slider fix (components/fixes/slider.py) guards; the Pyodide tier storms
# from every start (tests/pyodide/test_pyodide_controls.py).
@pytest.mark.parametrize("start", ["k-minus-pos"])
def test_a_random_storm_of_keys_leaves_sliders_url_and_readouts_agreeing(open_app, start):
    """20 bursts of 10 key steps on pos, k, d_model or the length, or a click on a d_model
    preset, from a bound state: 537 inputs over the three starts. After each burst the page
    agrees with itself and with a model of the state moved by the same inputs."""
    values = STORM_STARTS[start]
    page, log = open_app("?" + "&".join(f"{key}={value}" for key, value in values.items()))
    _, inputs = storm(page, random.Random(f"issue-22-{start}"), ExplorerState(**values), BURSTS)
    assert inputs >= 160
    assert log.relevant_errors() == []

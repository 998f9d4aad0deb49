"""The controls in the served app, where `panel serve` sends a slider's steps over the websocket
(components/fixes/slider.py): a storm of keys from the start that fix guards leaves each slider,
the URL, the compare caption and the readouts showing one state (issue 22). The keys at and past
the bounds, and storms from every start: tests/pyodide/test_pyodide_controls.py."""

import random

import pytest
from controls_support import STORM_STARTS, storm
from pe_explorer.state import ExplorerState

pytestmark = pytest.mark.browser


BURSTS = 10
BURST_KEYS = 20


# The start the served slider fix (components/fixes/slider.py) guards; the Pyodide tier storms
# from every start (tests/pyodide/test_pyodide_controls.py).
@pytest.mark.parametrize("start", ["k-minus-pos"])
def test_a_random_storm_of_keys_leaves_sliders_url_and_readouts_agreeing(open_app, start):
    """10 bursts of 20 key steps on pos, k, d_model or the length, or a click on a d_model
    preset, from a bound state. After each burst the page agrees with itself and with a model of
    the state moved by the same inputs."""
    values = STORM_STARTS[start]
    page, log = open_app("?" + "&".join(f"{key}={value}" for key, value in values.items()))
    _, inputs = storm(
        page, random.Random(f"issue-22-{start}"), ExplorerState(**values), BURSTS, BURST_KEYS
    )
    assert inputs >= 160
    assert log.relevant_errors() == []

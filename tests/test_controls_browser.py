"""The controls in the served app: after any keys, at and past their bounds, each slider shows
the state, and the URL, the compare caption and the readouts show the same one (issue 22)."""

import random
import re
import time
from urllib.parse import parse_qs

import pytest
from browser_support import wait_until

from components import encoding
from components.state import ExplorerState

pytestmark = pytest.mark.browser

# The sliders the keys go to, by state name: their css class is pe-control-<class name>.
SLIDER_CLASSES = {
    "pos": "pos",
    "offset": "offset",
    "d_model": "d-model",
    "n_positions": "n-positions",
}
CAPTION = re.compile(r"pos = (-?\d+) · pos \+ k = (-?\d+) · k = (-?\d+)")

# What the page shows: each slider's title value, the compare caption and readouts, the URL.
SHOWN_JS = """(classes) => {
  const found = [];
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    found.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(document);
  const first = (name) => found.find((e) => e.classList && e.classList.contains(name));
  const textOf = (name) => {
    const element = first(name);
    return element ? element.textContent.trim() : null;
  };
  const titles = {};
  for (const [key, name] of Object.entries(classes)) {
    const host = first('pe-control-' + name);
    const value = host && (host.shadowRoot || host).querySelector('.bk-slider-value');
    titles[key] = value ? value.textContent.trim() : null;
  }
  return {
    titles,
    caption: textOf('pe-pos-readout'),
    dot: textOf('pe-readout-dot'),
    cosine: textOf('pe-readout-cosine'),
    distance: textOf('pe-readout-distance'),
    search: window.location.search,
  };
}"""


def shown(page) -> dict:
    return page.evaluate(SHOWN_JS, SLIDER_CLASSES)


def readouts(state: dict) -> dict:
    """The compare readouts encoding.py gives for a state (default base and layout)."""
    rows = encoding.encode_positions(
        [state["pos"], state["pos"] + state["offset"]], state["d_model"], encoding.DEFAULT_BASE
    )
    comparison = encoding.compare(rows[0], rows[1])
    return {
        name: f"{getattr(comparison, name) + 0.0:.9f}" for name in ("dot", "cosine", "distance")
    }


def agreed_state(page) -> dict | None:
    """The state the page shows if its slider titles, URL, caption and readouts all agree."""
    seen = shown(page)
    query = parse_qs(seen["search"].lstrip("?"))
    try:
        url = {key: int(query[key][0]) for key in SLIDER_CLASSES}
        titles = {key: int(value) for key, value in seen["titles"].items()}
    except (KeyError, TypeError, ValueError):
        return None
    caption = CAPTION.fullmatch(seen["caption"] or "")
    if titles != url or caption is None:
        return None
    pos, second, offset = map(int, caption.groups())
    if (pos, offset, second) != (url["pos"], url["offset"], url["pos"] + url["offset"]):
        return None
    if {name: seen[name] for name in ("dot", "cosine", "distance")} != readouts(url):
        return None
    return url


def settled_state(page, what: str = "the page agreeing") -> dict:
    """Wait until the page agrees with itself and stays so for a moment; return that state."""
    deadline = time.monotonic() + 20
    while True:
        state = wait_until(page, lambda: agreed_state(page), timeout_s=20, what=what)
        page.wait_for_timeout(250)
        if agreed_state(page) == state:
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: the page kept moving ({shown(page)})")


def focus(page, name: str) -> None:
    page.locator(f".pe-control-{SLIDER_CLASSES[name]} .noUi-handle").first.focus()


def press(page, name: str, keys) -> None:
    focus(page, name)
    for key in keys:
        page.keyboard.press(key)


@pytest.mark.parametrize(
    ("keys", "offset"),
    [
        (["End"], 255),
        (["ArrowLeft", "End"], 255),
        (["ArrowLeft", *["ArrowRight"] * 3], 3),
        (["Home", *["ArrowRight"] * 5], 5),
    ],
    ids=["End", "ArrowLeft-End", "ArrowLeft-ArrowRight3", "Home-ArrowRight5"],
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


# A key's step on a slider: noUiSlider moves by one step (Page: five) and stops at the ends.
KEY_STEPS = {"ArrowLeft": -1, "ArrowRight": 1, "PageDown": -5, "PageUp": 5}
KEYS = [*KEY_STEPS, "Home", "End"]


def expected_after(state: ExplorerState, name: str, key: str) -> None:
    """Move the model state as the key on the slider called name moves the page's."""
    parameter = state.param[name]
    low, high = state.limits().get(name, parameter.bounds)
    step = parameter.step or 1
    value = getattr(state, name)
    if key == "Home":
        value = low
    elif key == "End":
        value = high
    else:
        value = min(max(value + KEY_STEPS[key] * step, low), high)
    setattr(state, name, value)


STORM_STARTS = {
    "pos-0-k-0": {"pos": 0, "offset": 0, "d_model": 64, "n_positions": 128},
    "k-minus-pos": {"pos": 90, "offset": -90, "d_model": 64, "n_positions": 128},
    "pos-last": {"pos": 127, "offset": 0, "d_model": 64, "n_positions": 128},
}
BURSTS = 20
BURST_KEYS = 10


@pytest.mark.parametrize("start", list(STORM_STARTS))
def test_a_random_storm_of_keys_leaves_sliders_url_and_readouts_agreeing(open_app, start):
    """200 key steps in bursts of 10 on pos, k, d_model and the length, from a bound state;
    three starts make 600. After each burst the page agrees with itself and with a model of
    the state moved by the same keys."""
    values = STORM_STARTS[start]
    page, log = open_app("?" + "&".join(f"{key}={value}" for key, value in values.items()))
    model = ExplorerState(**values)
    rng = random.Random(f"issue-22-{start}")
    # The big sizes only now and then: each step at d_model 2048 × 2048 rows redraws a lot.
    weights = {"pos": 4, "offset": 4, "d_model": 1, "n_positions": 1}
    for burst in range(BURSTS):
        (name,) = rng.choices(list(weights), weights=list(weights.values()))
        keys = [rng.choice(KEYS) for _ in range(BURST_KEYS)]
        press(page, name, keys)
        for key in keys:
            expected_after(model, name, key)
        expected = {key: getattr(model, key) for key in SLIDER_CLASSES}
        state = settled_state(page, f"burst {burst} ({name}: {keys})")
        assert state == expected, f"burst {burst} ({name}: {keys})"
    assert log.relevant_errors() == []

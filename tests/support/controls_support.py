"""What the page shows of the state, read through Panel's shadow roots, and what it should show:
the slider titles, the URL, the compare caption and readouts, and each view's figure (issue 22).
Shared by the served tests and those of the Pyodide build."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs

from browser_support import EVERY_ELEMENT_JS, look_at, next_frame, page_idle, wait_until
from pe_explorer import encoding
from pe_explorer.plotkit.numbers import readout_number
from pe_explorer.state import ExplorerState
from pe_explorer.ui.controls import D_MODEL_PRESETS
from pe_explorer.views import VIEWS

# The sliders the keys go to, by state name: their css class is pe-control-<class name>.
SLIDER_CLASSES = {
    "pos": "pos",
    "offset": "offset",
    "d_model": "d-model",
    "n_positions": "n-positions",
}
CAPTION = re.compile(r"pos = (-?\d+) · pos \+ k = (-?\d+) · k = (-?\d+)")

# What the page shows: each slider's title value, the compare caption and readouts, the URL.
SHOWN_JS = (
    "(classes) => {"
    + EVERY_ELEMENT_JS
    + """  const first = (name) => found.find((e) => e.classList && e.classList.contains(name));
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
)

# Each drawn view's figure, by view name: its title, its shapes' and row markers' places.
VIEW_PRINTS_JS = """(names) => {
  const inside = (root, test) => {
    const hits = [];
    const walk = (r) => r.querySelectorAll('*').forEach((e) => {
      if (test(e)) hits.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    });
    walk(root);
    return hits;
  };
  const has = (name) => (e) => e.classList && e.classList.contains(name);
  const prints = {};
  for (const name of names) {
    const card = inside(document, has('pe-view-' + name))[0];
    const plot = card && inside(card.shadowRoot || card, has('js-plotly-plot'))[0];
    if (!plot || !plot.layout) { prints[name] = null; continue; }
    const layout = plot.layout;
    prints[name] = {
      title: layout.title ? layout.title.text || '' : '',
      shapes: (layout.shapes || []).map((s) => [s.name || '', s.x0, s.x1, s.y0, s.y1]),
      images: (layout.images || []).map((i) => [i.name || '', i.x, i.y]),
    };
  }
  return prints;
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
        name: readout_number(getattr(comparison, name)) for name in ("dot", "cosine", "distance")
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


def settled_state(page, what: str = "the page agreeing", timeout_s: float = 60) -> dict:
    """Wait until the page agrees with itself, with nothing left for Python to apply or send
    (page_idle: right after start-up it may still be building the page's later cards, which took
    over 20 s once in a loaded CI run), and still agrees on the same state; return that state."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = wait_until(page, lambda: agreed_state(page), timeout_s=timeout_s, what=what)
        page_idle(page, timeout_s=timeout_s, what=f"{what}: idle")
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


def _number(value):
    return round(float(value), 6) if isinstance(value, int | float) else value


def figure_print(figure: dict) -> dict:
    """What VIEW_PRINTS_JS reads of a figure, from the figure dict a view's function returns."""
    layout = figure.get("layout", {})
    title = layout.get("title") or {}
    return {
        "title": title.get("text", "") if isinstance(title, dict) else str(title),
        "shapes": [
            [s.get("name") or "", *(_number(s.get(k)) for k in ("x0", "x1", "y0", "y1"))]
            for s in layout.get("shapes") or []
        ],
        "images": [
            [i.get("name") or "", _number(i.get("x")), _number(i.get("y"))]
            for i in layout.get("images") or []
        ],
    }


def shown_prints(page, names) -> dict:
    prints = page.evaluate(VIEW_PRINTS_JS, list(names))
    for seen in prints.values():
        if seen:
            seen["shapes"] = [[s[0], *map(_number, s[1:])] for s in seen["shapes"]]
            seen["images"] = [[i[0], *map(_number, i[1:])] for i in seen["images"]]
    return prints


def expected_prints(values: dict) -> dict:
    """Each view's figure print at the state with these values (defaults for the rest)."""
    state = ExplorerState(**values)
    return {spec.name: figure_print(spec.figure(state)) for spec in VIEWS}


def time_until_drawn(page, name: str, expected: dict, timeout_s: float = 30) -> float:
    """Seconds until the view called name shows the expected figure print."""
    start = time.monotonic()
    while (seen := shown_prints(page, [name])[name]) != expected:
        if time.monotonic() - start > timeout_s:
            raise AssertionError(f"{name} still shows {seen}, not {expected}")
        next_frame(page)
    return time.monotonic() - start


def step_without_scrolling(page, name: str, key: str) -> None:
    """Press key on a slider without scrolling it into view, so the view looked at stays."""
    handle = page.locator(f".pe-control-{SLIDER_CLASSES[name]} .noUi-handle").first
    handle.evaluate("(e) => e.focus({preventScroll: true})")
    page.keyboard.press(key)


def catch_up_and_step_times(page, state: dict, step: bool = True) -> dict:
    """Scroll to each view in turn: the seconds it took to show the state, then (with step),
    still on screen, the seconds one step of pos took to reach it. {name: (catch-up, step or
    None)}; fails naming the view that did not show one of them. (How long is
    benchmarks/catch_up.py's.)"""
    expected = expected_prints(state)
    stepped = expected_prints({**state, "pos": state["pos"] + 1})
    times = {}
    for spec in VIEWS:
        look_at(page, spec.name)
        catch_up = time_until_drawn(page, spec.name, expected[spec.name])
        step_time = None
        if step:
            step_without_scrolling(page, "pos", "ArrowRight")
            step_time = time_until_drawn(page, spec.name, stepped[spec.name])
            step_without_scrolling(page, "pos", "ArrowLeft")
            time_until_drawn(page, spec.name, expected[spec.name])
        times[spec.name] = (catch_up, step_time)
    return times


# States at the bounds a storm starts from (issue 22): pos = 0 and k = 0, k = −pos, pos = n − 1.
STORM_STARTS = {
    "pos-0-k-0": {"pos": 0, "offset": 0, "d_model": 64, "n_positions": 128},
    "k-minus-pos": {"pos": 90, "offset": -90, "d_model": 64, "n_positions": 128},
    "pos-last": {"pos": 127, "offset": 0, "d_model": 64, "n_positions": 128},
}

# The big sizes only now and then: each step at d_model 2048 × 2048 rows redraws a lot.
# "preset" clicks one of the d_model preset buttons.
STORM_WEIGHTS = {"pos": 4, "offset": 4, "d_model": 1, "n_positions": 1, "preset": 1}


def agrees_with_model(state: dict, before: dict, expected: dict, moved: str) -> bool:
    """Whether the state a burst left agrees with the model, when the page may coalesce steps.

    Panel's worker page sends only a control's latest value while Python is busy, so Python
    may never see a burst's intermediate values: a length that went to 1 and back never
    clamped pos to 0. The moved control must end where its keys took it; every other one
    between where it was and where the model says, within its range at the new state."""
    if state[moved] != expected[moved]:
        return False
    limits = ExplorerState(**state).limits()
    for key, value in state.items():
        if key == moved or value == expected[key]:
            continue
        low, high = limits.get(key, ExplorerState.param[key].bounds)
        between = min(before[key], expected[key]) <= value <= max(before[key], expected[key])
        if not between or not low <= value <= high:
            return False
    return True


def storm(
    page,
    rng,
    model: ExplorerState,
    bursts: int,
    burst_keys: int = 10,
    weights=None,
    coalesced: bool = False,
):
    """Bursts of random keys on the sliders (chosen by weight), the model state moved by the
    same keys; after each burst the page must agree with itself and with the model (with
    `coalesced`, as agrees_with_model allows). Returns the last state and the number of inputs
    (key presses and clicks)."""
    weights = weights or STORM_WEIGHTS
    state, inputs = {key: getattr(model, key) for key in SLIDER_CLASSES}, 0
    for burst in range(bursts):
        before = state
        (name,) = rng.choices(list(weights), weights=list(weights.values()))
        if name == "preset":
            keys = [rng.choice(D_MODEL_PRESETS)]
            page.locator(f".pe-preset-{keys[0]} button").first.click()
            model.d_model = keys[0]
        else:
            keys = [rng.choice(KEYS) for _ in range(burst_keys)]
            press(page, name, keys)
            for key in keys:
                expected_after(model, name, key)
        inputs += len(keys)
        expected = {key: getattr(model, key) for key in SLIDER_CLASSES}
        state = settled_state(page, f"burst {burst} ({name}: {keys})", timeout_s=60)
        moved = "d_model" if name == "preset" else name
        agreed = (
            agrees_with_model(state, before, expected, moved) if coalesced else (state == expected)
        )
        assert agreed, f"burst {burst} ({name}: {keys}): page {state}, model {expected}"
        if coalesced:  # the model goes on from what Python saw
            model.param.update(**{key: state[key] for key in ("n_positions", "d_model")})
            model.param.update(pos=state["pos"], offset=state["offset"])
    return state, inputs

"""The controls in the real Pyodide build, offline (issue 22): the reproduction, Home and End
after the range changed, a storm of over 200 inputs from the bounds, and every view catching up when
scrolled to. One browser profile: the first load fills the service worker's cache, so the
other links open as return visits."""

from __future__ import annotations

import random

import pytest
from controls_support import (
    STORM_STARTS,
    catch_up_and_step_times,
    press,
    settled_state,
    storm,
)
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS
from pyodide_support import page_holds, test_console_has_no_errors  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

# The view called name is drawn (nothing in its card stands for something not drawn yet) and the
# worker has nothing left to apply.
VIEW_DRAWN_JS = """(name) => {
  const card = window.__offline.deep(`.pe-view-${name}`)[0];
  if (!card || window.__offline.workerBusy()) return false;
  let pending = 0;
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.classList && e.classList.contains('pe-placeholder')) pending += 1;
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(card.shadowRoot || card);
  return pending === 0;
}"""
# Keys on the offset slider from pos = 0 and k = 0 (issue 22: End left the slider's title at
# k = 0 while the views showed 255), each from where the last left it: k at each step's end.
OFFSET_KEYS = [
    ["End"],
    ["Home", "ArrowLeft", "End"],
    ["Home", "ArrowLeft", *["ArrowRight"] * 3],
    ["Home", *["ArrowRight"] * 5],
]
OFFSET_ENDS = [255, 255, 3, 5]
# The waves view draws a trace of pair 700.
PAIR_700_JS = """() => __offline.deep('.js-plotly-plot').some((plot) =>
  (plot.data || []).some((trace) => String(trace.name || '').includes('i = 700')))"""
# The link of issue 22's reproduction, the module's first.
REPRODUCTION = "n_positions=256&pos=0&offset=0&d_model=128"
# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = "?" + REPRODUCTION
STORM_BURSTS = 5  # of 20 keys or a preset click, from each of the three starts
BURST_KEYS = 20


def query(values: dict) -> str:
    return "&".join(f"{key}={value}" for key, value in values.items())


def steps(site) -> dict:
    """Open several links in one profile; on each, press keys or storm the sliders."""
    record = {"loads": [], "errors": {}}

    def open_link(link: str) -> bool:
        load = site.goto(f"?{link}")
        record["loads"].append((link, load["interactive"], load["error"]))
        return load["interactive"]

    def attempt(name, part):
        """Run part; keep what it returns, or the error that stopped it."""
        try:
            record[name] = part()
        except AssertionError as error:
            record["errors"][name] = str(error)

    def reproduction():  # on START's page
        seen = []
        for keys in OFFSET_KEYS:
            press(site.page, "offset", keys)
            seen.append(settled_state(site.page, f"{keys} on the offset", timeout_s=60))
        return seen

    def home_and_end():
        open_link("n_positions=256&pos=100&d_model=64")
        seen = []
        for slider, key in [("offset", "Home"), ("offset", "End"), ("pos", "End")]:
            press(site.page, slider, [key])
            seen.append(settled_state(site.page, f"{key} on {slider}", timeout_s=60))
        press(site.page, "n_positions", ["PageUp"] * 10)  # 5 steps each: 256 → 306
        seen.append(settled_state(site.page, "the new length", timeout_s=60))
        # Then the new ends: k's both ways, and pos's Home, which pulls k up to 0 (pos + k ≥ 0).
        for slider, key in [("pos", "End"), ("offset", "End"), ("offset", "Home"), ("pos", "Home")]:
            press(site.page, slider, [key])
            seen.append(settled_state(site.page, f"{key} on {slider}", timeout_s=60))
        return seen

    def storms():
        ends = {}
        for start, values in STORM_STARTS.items():
            open_link(query(values))
            model = ExplorerState(**values)
            rng = random.Random(f"pyodide-{start}")
            ends[start] = storm(site.page, rng, model, STORM_BURSTS, BURST_KEYS, coalesced=True)[1]
        return ends

    def catch_up():
        values = STORM_STARTS["pos-0-k-0"]
        open_link(query(values))
        for spec in VIEWS:  # draw every view once, then leave them off screen
            site.page.locator(f".pe-view-{spec.name}").first.scroll_into_view_if_needed()
            page_holds(site.page, VIEW_DRAWN_JS, spec.name, 30)
        site.page.locator(f".pe-view-{VIEWS[0].name}").first.scroll_into_view_if_needed()
        page_holds(site.page, "() => !window.__offline.workerBusy()", None, 30)
        model = ExplorerState(**values)
        weights = {"pos": 1, "offset": 1}
        rng = random.Random("pyodide-catch-up")
        state, _ = storm(site.page, rng, model, 5, weights=weights, coalesced=True)
        return catch_up_and_step_times(site.page, state, step=False)

    def any_pair():
        """At the widest d_model the pair picker lists the first pairs only; typing a pair's
        number finds any other, and the waves view draws it."""
        open_link("d_model=2048&n_positions=64")
        site.page.locator(".pe-view-waves").first.scroll_into_view_if_needed()
        picker = site.page.locator(".pe-control-pairs input[type=search]").first
        picker.click()
        picker.type("700")
        site.page.keyboard.press("Enter")
        drawn = page_holds(site.page, PAIR_700_JS, None, 60)
        return {"drawn": drawn}

    attempt("reproduction", reproduction)
    attempt("home_and_end", home_and_end)
    attempt("storms", storms)
    attempt("catch_up", catch_up)
    attempt("any_pair", any_pair)
    return record


def test_every_link_becomes_interactive(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["loads"] and all(interactive for _, interactive, _ in visit["loads"]), visit[
        "loads"
    ]


def test_offset_keys_from_pos_0_and_k_0_show_one_state_everywhere(visit):
    """End, and keys at the lower bound then up, on the offset slider: the slider, the link, the
    compare caption and the readouts all say the same k."""
    assert "reproduction" not in visit["errors"], visit["errors"].get("reproduction")
    assert visit["reproduction"] == [
        {"pos": 0, "offset": offset, "d_model": 128, "n_positions": 256} for offset in OFFSET_ENDS
    ]


def test_home_and_end_reach_the_ends_of_a_linked_and_of_a_changed_range(visit):
    assert "home_and_end" not in visit["errors"], visit["errors"].get("home_and_end")
    assert [(s["pos"], s["offset"], s["n_positions"]) for s in visit["home_and_end"]] == [
        (100, -100, 256),
        (100, 255, 256),
        (255, 255, 256),
        (255, 255, 306),
        (305, 255, 306),
        (305, 305, 306),
        (305, -305, 306),
        (0, 0, 306),
    ]


def test_a_storm_of_200_inputs_from_the_bounds_leaves_the_page_agreeing(visit):
    assert "storms" not in visit["errors"], visit["errors"].get("storms")
    assert set(visit["storms"]) == set(STORM_STARTS)
    assert sum(visit["storms"].values()) >= 200


def test_after_a_storm_every_view_catches_up_when_scrolled_to(visit):
    # How long each view takes: benchmarks/catch_up.py.
    assert "catch_up" not in visit["errors"], visit["errors"].get("catch_up")
    assert set(visit["catch_up"]) == {spec.name for spec in VIEWS}


def test_any_pair_can_be_picked_by_typing_its_number(visit):
    assert "any_pair" not in visit["errors"], visit["errors"].get("any_pair")
    assert visit["any_pair"] == {"drawn": True}

"""The Transformer-XL view: the four terms of the relative score against the offset i − j."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from pe_explorer.state import ExplorerState
from pe_explorer.views import xl

MINUS = "\u2212"


def sinusoid(offset: int, d_model: int, base: float) -> list[float]:
    """R_offset in the concatenated layout: sin(offset·ω_i) for every pair, then the cosines."""
    omegas = [base ** (-2 * i / d_model) for i in range(d_model // 2)]
    return [math.sin(offset * w) for w in omegas] + [math.cos(offset * w) for w in omegas]


def draws(d_model: int, seed: int):
    """q, the key W_k x_j, u, v and W_R, N(0, 1/d) in that order from the seed."""
    rng = np.random.default_rng(seed)
    q, key, u, v = (rng.standard_normal(d_model) / math.sqrt(d_model) for _ in range(4))
    return q, key, u, v, rng.standard_normal((d_model, d_model)) / math.sqrt(d_model)


def terms_at(state: ExplorerState, offset: int) -> list[float]:
    """(a), (b), (c), (d) and their sum at i − j = offset, as the figure's curves draw them."""
    traces = xl.figure(state)["data"]
    return [float(trace["y"][offset]) for trace in traces[:5]]


@pytest.mark.parametrize(("d_model", "base", "seed"), [(128, 10000.0, 0), (16, 100.0, 7)])
@pytest.mark.parametrize("offset", [0, 1, 5, 63])
def test_the_position_terms_are_q_plus_v_through_w_r_of_the_sinusoid(d_model, base, seed, offset):
    state = ExplorerState(d_model=d_model, base=base, seed=seed)
    q, key, u, v, w_r = draws(d_model, seed)
    expected = float((q + v) @ w_r @ np.array(sinusoid(offset, d_model, base)))
    a, b, c, d, total = terms_at(state, offset)
    assert b + d == pytest.approx(expected, abs=1e-12)
    assert a == pytest.approx(float(q @ key), abs=1e-14)
    assert c == pytest.approx(float(u @ key), abs=1e-14)
    assert total == pytest.approx(a + b + c + d, abs=1e-12)


def test_the_content_terms_do_not_change_with_the_offset():
    traces = xl.figure(ExplorerState())["data"]
    assert np.ptp(traces[0]["y"]) == 0 and np.ptp(traces[2]["y"]) == 0
    assert np.ptp(traces[1]["y"]) > 0 and np.ptp(traces[3]["y"]) > 0


@pytest.mark.parametrize("offset", [3, -3])
def test_the_offset_marked_is_the_distance_of_pos_and_pos_plus_k(offset):
    state = ExplorerState(pos=10, offset=offset)
    figure = xl.figure(state)
    marks = figure["data"][5]
    assert list(marks["x"]) == [3] * 5
    np.testing.assert_allclose(marks["y"], terms_at(state, 3))
    images = {image["name"]: image for image in figure["layout"]["images"]}
    # The dotted line: centred on i − j = 3, across the whole height of the terms' chart.
    line = images["i − j = |k|"]
    assert (line["x"], line["xanchor"], line["xref"]) == (3, "center", "x")
    assert (line["yref"], line["y"], line["sizey"], line["yanchor"]) == ("y domain", 1, 1, "top")
    # The row R_3 outlined, across every column of R's chart.
    row = images["R_|k|"]
    assert (row["y"], row["yanchor"], row["yref"]) == (3, "middle", "y2")
    assert (row["xref"], row["x"], row["sizex"]) == ("x2 domain", 0, 1)


def test_the_readout_lists_the_four_terms_and_their_sum():
    state = ExplorerState(offset=5)
    text = xl.readout(state)
    q, key, u, v, w_r = draws(128, 0)
    r = np.array(sinusoid(5, 128, 10000.0))
    expected = {
        "content": q @ key,
        "content-position": q @ w_r @ r,
        "content-bias": u @ key,
        "position-bias": v @ w_r @ r,
    }
    for css, value in expected.items():
        shown = re.search(rf'class="pe-xl-{css}">([^<]+)<', text).group(1)
        assert float(shown.replace(MINUS, "-")) == pytest.approx(float(value), abs=1e-6)
    total = re.search(r'class="pe-xl-total">([^<]+)<', text).group(1)
    assert float(total.replace(MINUS, "-")) == pytest.approx(sum(expected.values()), abs=1e-6)
    assert "is i − j = |k| = 5 apart" in text


def test_r_is_drawn_in_the_concatenated_layout():
    heatmap = xl.figure(ExplorerState(d_model=16))["data"][6]
    assert heatmap["type"] == "heatmap"
    np.testing.assert_array_equal(heatmap["z"][0], [0.0] * 8 + [1.0] * 8)
    np.testing.assert_allclose(heatmap["z"][9], sinusoid(9, 16, 10000.0), atol=1e-7)


def test_the_view_does_not_follow_the_pair_layout():
    first = xl.figure(ExplorerState(layout="interleaved"))
    second = xl.figure(ExplorerState(layout="concatenated"))
    np.testing.assert_array_equal(first["data"][6]["z"], second["data"][6]["z"])


def test_the_name_gives_the_terms_at_the_offset():
    name = xl.describe(ExplorerState(offset=1))
    a, b, c, d, total = terms_at(ExplorerState(offset=1), 1)
    assert f"(a) content {a:.4f}".replace("-", MINUS) in name
    assert f"add up to {total:.4f}".replace("-", MINUS) in name


def test_show_data_lists_the_offsets_near_k():
    table = xl.data(ExplorerState(offset=20))
    assert [row[0] for row in table.rows] == list(range(17, 24))
    assert table.rows[3][1:] == pytest.approx(terms_at(ExplorerState(offset=20), 20))


def test_the_script_reproduces_the_numbers_the_view_shows():
    for state in (ExplorerState(offset=-4), ExplorerState(d_model=32, base=500.0, seed=3)):
        namespace: dict = {}
        exec(xl.code(state), namespace)
        traces = xl.figure(state)["data"]
        for name, trace in zip("abcd", traces, strict=False):
            np.testing.assert_array_equal(namespace[name], trace["y"])
        np.testing.assert_array_equal(namespace["score"], traces[4]["y"])


def test_the_script_is_numpy_only():
    code = xl.code(ExplorerState())
    assert re.findall(r"^(?:import|from) (\w+)", code, re.MULTILINE) == ["numpy"]

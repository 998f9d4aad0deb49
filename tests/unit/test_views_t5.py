"""The T5 view: buckets of key − query, their runs, the n × n matrix and the NumPy script."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pe_explorer.state import ExplorerState
from pe_explorer.views import t5
from t5_reference import reference_bucket

MINUS = "\u2212"


def shared_distances(bucket, side, bidirectional=True, num_buckets=32, max_distance=128):
    """The distances on one side of the query whose key falls in bucket, by brute force."""
    start = 1 if side > 0 else 0
    found = [
        d
        for d in range(start, 4 * max_distance)
        if reference_bucket(side * d, bidirectional, num_buckets, max_distance) == bucket
    ]
    return found[0], found[-1]


# Buckets of T5's defaults (32 buckets, max_distance 128), key − query = offset.
OFFSETS = (-200, -128, -20, -8, -1, 0, 1, 7, 8, 20, 127, 128, 500)
BIDIRECTIONAL = (15, 15, 10, 8, 1, 0, 17, 23, 24, 26, 31, 31, 31)
CAUSAL = (31, 31, 17, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("bidirectional", "expected"), [(True, BIDIRECTIONAL), (False, CAUSAL)], ids=["enc", "dec"]
)
def test_the_bucket_of_k_is_t5s(bidirectional, expected):
    assert [reference_bucket(k, bidirectional) for k in OFFSETS] == list(expected)
    for k, bucket in zip(OFFSETS, expected, strict=True):
        state = ExplorerState(n_positions=2048, pos=600, offset=k, t5_bidirectional=bidirectional)
        assert t5.readout_values(state).bucket == bucket
        assert f'<span class="pe-t5-bucket">{bucket}</span>' in t5.readout(state)


@pytest.mark.parametrize(
    ("k", "text"),
    [
        (-20, "distances 16…22 before the query share bucket 10"),
        (-3, "distance 3 before the query has bucket 3 to itself"),
        (0, "distance 0 (the query itself) has bucket 0 to itself"),
        (40, "distances 32…45 after the query share bucket 28"),
        (-200, "distances 91 and beyond before the query share bucket 15"),
    ],
)
def test_the_readout_names_the_distances_that_share_ks_bucket(k, text):
    state = ExplorerState(n_positions=1024, pos=300, offset=k)
    shown = t5.readout_values(state)
    side = 1 if k > 0 else -1
    first, last = shared_distances(shown.bucket, side)
    assert shown.run.first == first
    assert shown.run.last == (None if last >= 4 * 128 - 1 else last)
    assert text in t5.readout(state).replace(MINUS, "-")


def test_a_decoder_puts_every_later_key_in_the_querys_bucket():
    state = ExplorerState(offset=5, t5_bidirectional=False)
    assert "every key after the query shares bucket 0 with the query itself" in t5.readout(state)
    state = ExplorerState(offset=0, t5_bidirectional=False)
    assert "shares bucket 0 with every key after it" in t5.readout(state)


@pytest.mark.parametrize(
    ("bidirectional", "exact", "last_first", "last_bucket"),
    [(True, 8, 91, 15), (False, 16, 113, 31)],
)
def test_the_readout_and_name_say_where_exact_buckets_end(
    bidirectional, exact, last_first, last_bucket
):
    # The last bucket starts where max_exact + log(d / max_exact) / log(128 / max_exact) ·
    # max_exact first reaches its top: d ≥ max_exact · (128 / max_exact)^((m − 1) / m).
    assert last_first == math.ceil(exact * (128 / exact) ** ((exact - 1) / exact))
    state = ExplorerState(t5_bidirectional=bidirectional)
    text = t5.readout(state)
    assert f'<span class="pe-t5-exact">{exact}</span> are exact' in text
    assert f'<span class="pe-t5-last-first">{last_first}</span> on shares bucket {last_bucket}' in (
        text
    )
    name = t5.describe(state)
    assert f"distances 0–{exact - 1} have a bucket each" in name
    assert f"every distance from {last_first} on shares bucket {last_bucket}" in name


@pytest.mark.parametrize("bidirectional", [True, False])
def test_the_matrix_is_the_bucket_of_key_minus_query(bidirectional):
    state = ExplorerState(n_positions=48, pos=10, offset=-4, t5_bidirectional=bidirectional)
    heatmap = t5.figure(state)["data"][0]
    assert heatmap["type"] == "heatmap"
    expected = [[reference_bucket(j - i, bidirectional) for j in range(48)] for i in range(48)]
    np.testing.assert_array_equal(heatmap["z"], expected)


def test_a_long_sequence_is_strided_and_says_so():
    state = ExplorerState(n_positions=2048)
    heatmap = t5.figure(state)["data"][0]
    rows = np.asarray(heatmap["x"])
    assert rows.size**2 <= 250_000 and rows[1] - rows[0] == 5
    i, j = 40, 7
    assert heatmap["z"][i, j] == reference_bucket(int(rows[j] - rows[i]))
    captions = " ".join(a["text"] for a in t5.figure(state)["layout"]["annotations"])
    assert "every 5th position" in captions


def test_the_step_curve_holds_one_hoverable_dot_per_run():
    figure = t5.figure(ExplorerState())
    dots = figure["data"][2]
    assert dots["hovertemplate"] == "%{text}<extra></extra>"
    # 16 buckets before the query (with distance 0), 15 after it: bucket 16 would hold
    # distance 0 after the query, which is the query itself, in bucket 0.
    assert len(dots["text"]) == 31
    assert 16 not in list(dots["y"])
    assert "distances 8…11 before the query share bucket 8" in dots["text"]
    assert "distances 8…11 after the query share bucket 24" in dots["text"]
    steps = figure["data"][1]
    assert steps["line"]["shape"] == "hv"
    # Each run spans its distances' cells: the run of 8…11 before the query is −11.5 … −7.5.
    index = list(steps["y"]).index(8)
    assert steps["x"][index] == -11.5 and steps["x"][index + 1] == -7.5


@pytest.mark.parametrize(("bidirectional", "right"), [(True, 7.5), (False, 0.5)])
def test_the_exact_buckets_are_shaded(bidirectional, right):
    shapes = t5.figure(ExplorerState(t5_bidirectional=bidirectional))["layout"]["shapes"]
    exact = [s for s in shapes if s["name"] == "exact buckets"]
    max_exact = 8 if bidirectional else 16
    assert {(s["x0"], s["x1"]) for s in exact} == {(-(max_exact - 0.5), right)}
    lines = {s["x0"] for s in shapes if s["name"] == "max_distance"}
    assert lines == ({-128, 128} if bidirectional else {-128})


def test_k_is_marked_on_both_step_charts_and_in_the_matrix():
    state = ExplorerState(pos=30, offset=-20)
    figure = t5.figure(state)
    marks = [trace for trace in figure["data"] if trace["name"] == "key − query = k"]
    assert [(m["x"][0], m["y"][0]) for m in marks] == [(-20, 10), (-20, 10)]
    # The matrix's marks are layout images: a pick moves them without redrawing the matrix.
    marks = {image["name"]: image for image in figure["layout"]["images"]}
    cell, diagonal = marks["pos, pos+k"], marks["offset k"]
    assert (cell["x"], cell["y"], cell["sizex"], cell["visible"]) == (10, 30, 1, True)
    # Diagonal k = −20 of 64 positions runs from the cell (20, 0) to (63, 43): x − y at its top
    # left corner is k.
    assert (diagonal["x"], diagonal["y"], diagonal["sizex"]) == (-0.5, 41.5, 44)
    assert diagonal["xanchor"] == "left" and diagonal["yanchor"] == "middle"


@settings(max_examples=40, deadline=None)
@given(
    half=st.integers(2, 40),
    max_distance=st.integers(2, 600),
    bidirectional=st.booleans(),
    k=st.integers(-300, 300),
)
def test_every_setting_gives_the_reference_bucket_or_a_clear_message(
    half, max_distance, bidirectional, k
):
    num_buckets = 2 * half
    state = ExplorerState(
        n_positions=601,
        pos=300,
        offset=k,
        t5_buckets=num_buckets,
        t5_max_distance=max_distance,
        t5_bidirectional=bidirectional,
    )
    max_exact = (half if bidirectional else num_buckets) // 2
    if max_distance <= max_exact:
        assert "max_distance" in t5.readout(state)
        assert t5.figure(state)["data"] == []
        return
    assert t5.readout_values(state).bucket == reference_bucket(
        k, bidirectional, num_buckets, max_distance
    )


@pytest.mark.parametrize(
    ("settings_", "message"),
    [
        ({"t5_buckets": 1024}, "max_distance must be at least 257, not 128"),
        ({"t5_buckets": 512, "t5_max_distance": 100, "t5_bidirectional": False}, "at least 257"),
    ],
)
def test_settings_without_buckets_get_a_message_not_a_traceback(settings_, message):
    state = ExplorerState(**settings_)
    figure = t5.figure(state)
    assert figure["data"] == []
    assert message in figure["layout"]["annotations"][0]["text"]
    assert message in t5.readout(state) and message in t5.describe(state)
    assert t5.data(state).rows == ()


def test_show_data_lists_the_runs_around_ks():
    table = t5.data(ExplorerState(offset=40))
    assert len(table.rows) == 16
    assert (28, "after", 32, 45, 14) in table.rows
    assert (15, "before", 91, "unbounded", "unbounded") in table.rows


def test_the_script_reproduces_the_buckets_the_view_shows():
    for state in (
        ExplorerState(pos=20, offset=-20),
        ExplorerState(pos=5, offset=30, t5_bidirectional=False),
        ExplorerState(pos=5, offset=40, t5_buckets=64, t5_max_distance=300, n_positions=70),
    ):
        namespace: dict = {}
        exec(t5.code(state), namespace)
        shown = t5.readout_values(state)
        assert namespace["bucket_of_k"] == shown.bucket
        assert namespace["first"] == shown.run.first
        if shown.run.last is not None:
            assert namespace["last"] == shown.run.last
        heatmap = t5.figure(state)["data"][0]
        np.testing.assert_array_equal(namespace["matrix"], heatmap["z"])


def test_the_script_is_numpy_only():
    imports = re.findall(r"^(?:import|from) (\w+)", t5.code(ExplorerState()), re.MULTILINE)
    assert set(imports) == {"math", "numpy"}

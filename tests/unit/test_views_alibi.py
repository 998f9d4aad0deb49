"""The ALiBi view: the head slopes, each head's bias −m_h·|i − j| and the causal mask."""

# The reference get_slopes below is copied verbatim, comments and all; they run past our lines.
# ruff: noqa: E501

import json
import math
import re

import numpy as np
import plotly.graph_objs as go
import plotly.io
import pytest
from pe_explorer import derived
from pe_explorer.fixes.plotly_patch import same_value
from pe_explorer.state import ExplorerState
from pe_explorer.views import alibi


# Press et al.'s get_slopes, from ofirpress/attention_with_linear_biases,
# fairseq/models/transformer.py (TransformerDecoder.__init__, commit 3b7c2ec), unchanged but for
# its indentation and one trailing space.
# fmt: off
def get_slopes(n):
    def get_slopes_power_of_2(n):
        start = (2**(-2**-(math.log2(n)-3)))
        ratio = start
        return [start*ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)                   #In the paper, we only train models that have 2^a heads for some a. This function has
    else:                                                 #some good properties that only occur when the input is a power of 2. To maintain that even
        closest_power_of_2 = 2**math.floor(math.log2(n))  #when the number of heads is not a power of 2, we use this workaround.
        return get_slopes_power_of_2(closest_power_of_2) + get_slopes(2*closest_power_of_2)[0::2][:n-closest_power_of_2]
# fmt: on


def cells(text: str, css: str) -> list[str]:
    """The contents of the readout's cells of one CSS class."""
    return re.findall(rf'<td class="{css}">(.*?)</td>', text)


def numbers(text: str, css: str) -> list[float]:
    """The numbers in the readout's cells of one CSS class (minus printed as U+2212)."""
    return [float(value.replace("\u2212", "-")) for value in cells(text, css)]


def test_eight_heads_have_the_papers_slopes_one_half_to_one_256th():
    text = alibi.readout(ExplorerState(heads=8))
    assert numbers(text, "pe-alibi-slope") == [2.0**-h for h in range(1, 9)]
    # Nine decimals, as every readout table prints (plotkit.numbers.READOUT_DIGITS).
    assert cells(text, "pe-alibi-slope")[-1] == "0.003906250"
    assert cells(text, "pe-alibi-power") == [f"2<sup>−{h}</sup>" for h in range(1, 9)]


@pytest.mark.parametrize("heads", [12, 1, 2, 3, 6, 7, 8, 16, 24, 48, 63, 64])
def test_slopes_equal_the_reference_get_slopes(heads):
    shown = alibi.readout_values(ExplorerState(heads=heads))
    np.testing.assert_allclose(shown.slopes, get_slopes(heads), rtol=1e-14, atol=0)
    # Each exponent e is exact: m_h = 2^(−e).
    np.testing.assert_allclose(
        [2.0 ** -float(e) for e in shown.exponents], get_slopes(heads), rtol=1e-14, atol=0
    )
    slopes_trace = alibi.figure(ExplorerState(heads=heads))["data"][1]
    np.testing.assert_array_equal(slopes_trace["x"], np.arange(1, heads + 1))
    np.testing.assert_allclose(slopes_trace["y"], get_slopes(heads), rtol=1e-14, atol=0)


def test_twelve_heads_interleave_the_slopes_of_sixteen():
    shown = alibi.readout_values(ExplorerState(heads=12))
    assert [str(e) for e in shown.exponents] == [
        *(str(h) for h in range(1, 9)),
        "1/2",
        "3/2",
        "5/2",
        "7/2",
    ]


def keys_shown(trace: dict, n_positions: int) -> np.ndarray:
    """The band's cells of the keys 0 … n − 1, the ones in view: column c is key x0 + c."""
    start = -trace["x0"]
    return trace["z"][:, start : start + n_positions]


@pytest.mark.parametrize(
    ("n_positions", "pos", "heads"),
    [(64, 7, 8), (64, 0, 8), (10, 9, 12), (100, 50, 3), (1, 0, 1), (2048, 1500, 64)],
)
def test_head_cells_are_minus_slope_times_distance_and_nan_exactly_for_later_keys(
    n_positions, pos, heads
):
    trace = alibi.figure(ExplorerState(n_positions=n_positions, pos=pos, heads=heads))["data"][0]
    # One band for every pos: moving pos moves its start, so the keys in view are pos's row.
    assert trace["z"].dtype == np.float32 and trace["z"].shape == (heads, 2 * n_positions - 1)
    assert (trace["x0"], trace["dx"]) == (pos - (n_positions - 1), 1)
    layout = alibi.figure(ExplorerState(n_positions=n_positions, pos=pos))["layout"]
    assert layout["xaxis"]["range"] == [-0.5, n_positions - 0.5]
    z = keys_shown(trace, n_positions)
    assert z.shape == (heads, n_positions)
    np.testing.assert_array_equal(trace["y"], np.arange(1, heads + 1))
    keys = np.arange(n_positions)
    np.testing.assert_array_equal(np.isnan(z), np.broadcast_to(keys > pos, z.shape))
    slopes = np.array(get_slopes(heads))[:, None]
    expected = np.broadcast_to(-slopes * np.abs(pos - keys), z.shape)
    visible = keys <= pos
    np.testing.assert_allclose(z[:, visible], expected[:, visible], rtol=1e-6, atol=0)
    # The key at pos itself has bias 0, never −0.
    assert not np.signbit(z[:, pos]).any()


@pytest.mark.parametrize(("n_positions", "heads"), [(64, 8), (12, 12), (700, 3), (2048, 64)])
def test_masked_matrix_is_the_steepest_heads_bias_below_the_diagonal(n_positions, heads):
    figure = alibi.figure(ExplorerState(n_positions=n_positions, heads=heads))
    trace = figure["data"][2]
    rows = trace["y"]
    np.testing.assert_array_equal(trace["x"], rows)
    stride = derived.dot_product_stride(n_positions)
    np.testing.assert_array_equal(rows, np.arange(0, n_positions, stride))
    assert trace["z"].size <= derived.MAX_DISPLAY_CELLS
    steepest = max(get_slopes(heads))
    head = get_slopes(heads).index(steepest) + 1
    later = rows[None, :] > rows[:, None]
    np.testing.assert_array_equal(np.isnan(trace["z"]), later)
    expected = -steepest * np.abs(rows[:, None] - rows[None, :])
    np.testing.assert_allclose(trace["z"][~later], expected[~later], rtol=1e-6, atol=0)
    titles = " ".join(note["text"] for note in figure["layout"]["annotations"])
    assert f"Head {head} (steepest, m = {steepest:.4f})" in titles
    assert ("every" in titles) == (stride > 1)


def test_twelve_heads_show_head_nine_the_steepest():
    figure = alibi.figure(ExplorerState(heads=12))
    assert figure["data"][2]["name"] == "head 9 with the causal mask"


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (7, 3), (7, -7), (20, 0)])
def test_readout_gives_each_heads_bias_at_offset_k(pos, offset):
    state = ExplorerState(pos=pos, offset=offset, heads=8)
    text = alibi.readout(state)
    biases = numbers(text, "pe-alibi-bias")
    assert biases == [-(2.0**-h) * abs(offset) for h in range(1, 9)]
    assert "attends only to keys j ≤ i" in text
    masked = f"pos + k = {pos + offset} comes after the query pos = {pos}, so it is masked"
    assert (masked in text) == (offset > 0)
    assert alibi.readout_values(state).masked == (offset > 0)


def test_zero_offset_prints_a_bias_of_zero_without_a_sign():
    text = alibi.readout(ExplorerState(pos=5, offset=0, heads=4))
    assert cells(text, "pe-alibi-bias") == ["0.000000000"] * 4


def test_many_heads_are_listed_up_to_an_ellipsis_and_the_last():
    text = alibi.readout(ExplorerState(heads=64))
    assert cells(text, "pe-alibi-h") == ["1", "2", "3", "4", "5", "6", "64"]
    assert text.count('class="pe-alibi-more"') == 1
    assert cells(text, "pe-alibi-slope")[-1] == "0.003906250"
    assert cells(text, "pe-alibi-power")[0] == "2<sup>−1/8</sup>"
    assert len(alibi.readout_values(ExplorerState(heads=64)).biases) == 64


@pytest.mark.parametrize(("offset", "marked"), [(3, True), (-60, True), (63, False)])
def test_the_key_pos_plus_k_is_marked_when_shown(offset, marked):
    figure = alibi.figure(ExplorerState(n_positions=64, pos=60, offset=offset))
    # Layout images, kept (hidden) when pos + k is past the keys: a pick only moves them.
    marks = {image["name"]: image for image in figure["layout"]["images"]}
    assert set(marks) == {"key pos", "key pos+k", "query pos"}
    assert marks["key pos+k"]["visible"] == marked and marks["key pos+k"]["x"] == 60 + offset
    assert (marks["key pos"]["x"], marks["query pos"]["y"]) == (60, 60)
    assert marks["query pos"]["xref"] == "x3" and marks["key pos"]["yref"] == "y domain"


@pytest.mark.parametrize("heads", [1, 64])
@pytest.mark.parametrize("n_positions", [1, 2048])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_size_draws_a_valid_figure_and_a_readout(heads, n_positions, theme):
    pos = n_positions - 1
    state = ExplorerState(n_positions=n_positions, pos=pos, offset=-pos, heads=heads, theme=theme)
    figure = alibi.figure(state)
    # The page draws figures unvalidated: validation must accept them and change nothing.
    unvalidated = go.Figure(data=figure["data"], layout=figure["layout"], _validate=False)
    validated = go.Figure(data=figure["data"], layout=figure["layout"])
    assert json.loads(plotly.io.to_json(unvalidated, validate=False)) == json.loads(
        plotly.io.to_json(validated)
    )
    assert keys_shown(figure["data"][0], n_positions).shape == (heads, n_positions)
    assert len(cells(alibi.readout(state), "pe-alibi-slope")) == min(heads, 7)


def test_the_same_state_gives_the_same_arrays_so_nan_cells_compare_equal():
    # NaN ≠ NaN: an unchanged figure is recognised (and not resent) only through its cached arrays.
    first = alibi.figure(ExplorerState(pos=9, d_model=64))
    again = alibi.figure(ExplorerState(pos=9, d_model=512, base=1000.0))
    assert same_value(first, again)
    assert not same_value(first, alibi.figure(ExplorerState(pos=8)))


def test_cached_cells_are_read_only():
    with pytest.raises(ValueError):
        alibi.figure(ExplorerState())["data"][0]["z"][0, 0] = 1.0

"""The method comparison view: each method's position-only score against k, one plot."""

import html
import re

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.fixes.plotly_patch import same_value
from pe_explorer.state import ExplorerState
from pe_explorer.views import methods

OFFSETS = [0, 1, 5, 17, 63]


def trace(figure: dict, name_start: str) -> dict:
    """The one trace whose name starts with name_start."""
    (found,) = [t for t in figure["data"] if t["name"].startswith(name_start)]
    return found


def cell(readout: str, css_class: str) -> float:
    """The number in the readout's cell of this class."""
    (text,) = re.findall(rf'class="{css_class}">([^<]*)<', readout)
    return float(text.replace("\u2212", "-"))


@pytest.mark.parametrize(("d_model", "base"), [(128, 10000.0), (2, 10.0), (512, 500.0)])
def test_sinusoidal_curve_is_the_sum_of_cosines(d_model, base):
    state = ExplorerState(d_model=d_model, base=base)
    y = trace(methods.figure(state), "sinusoidal")["y"]
    omega = encoding.angular_frequencies(d_model, base)
    for k in OFFSETS:
        assert y[k] == pytest.approx(np.cos(k * omega).sum(), abs=d_model * 1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize(("d_model", "base", "seed"), [(128, 10000.0, 0), (6, 10.0, 7)])
def test_rope_curve_is_q_with_itself_rotated_by_k(layout, d_model, base, seed):
    """q·R(k)q = Σ_i |(q_a, q_b) of pair i|² cos(k θ_i), θ_i = base^(−2i/d)."""
    state = ExplorerState(d_model=d_model, base=base, seed=seed, layout=layout)
    y = trace(methods.figure(state), "RoPE")["y"]
    q, _ = derived.query_key(d_model, seed)
    half = d_model // 2
    first, second = (q[0::2], q[1::2]) if layout == "interleaved" else (q[:half], q[half:])
    theta = base ** (-2.0 * np.arange(half) / d_model)
    for k in OFFSETS:
        expected = ((first**2 + second**2) * np.cos(k * theta)).sum()
        assert y[k] == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_rope_curve_changes_with_the_layout():
    # The pairs are different entries of q, so the weights |pair|² differ.
    y = {
        layout: trace(methods.figure(ExplorerState(layout=layout)), "RoPE")["y"]
        for layout in ("interleaved", "concatenated")
    }
    assert not np.allclose(y["interleaved"], y["concatenated"])


@pytest.mark.parametrize("heads", [1, 2, 8, 64])
def test_alibi_curves_are_the_steepest_and_gentlest_heads(heads):
    state = ExplorerState(heads=heads)
    figure = methods.figure(state)
    alibi = [t for t in figure["data"] if t["name"].startswith("ALiBi")]
    assert len(alibi) == (1 if heads == 1 else 2)
    k = np.arange(2 * state.train_length + 1)
    # For H a power of two, head h has slope 2^(−8h/H): head 1 is the steepest, head H gentlest.
    assert alibi[0]["name"].startswith("ALiBi, head 1 (m = ")
    np.testing.assert_allclose(alibi[0]["y"], -(2.0 ** (-8 / heads)) * k, rtol=1e-15)
    if heads > 1:
        assert alibi[1]["name"] == f"ALiBi, head {heads} (m = 1/256)"
        np.testing.assert_allclose(alibi[1]["y"], -(2.0**-8) * k, rtol=1e-15)


def test_alibi_slopes_are_named_as_fractions():
    names = [t["name"] for t in methods.figure(ExplorerState(heads=8))["data"]]
    assert "ALiBi, head 1 (m = 1/2)" in names
    assert "ALiBi, head 8 (m = 1/256)" in names


def test_alibi_with_heads_not_a_power_of_two_draws_the_extreme_slopes():
    # H = 3: slopes 1/16, 1/256 (of H = 2), then 1/4 (of H = 4): head 3 is the steepest.
    names = [t["name"] for t in methods.figure(ExplorerState(heads=3))["data"]]
    assert [n for n in names if n.startswith("ALiBi")] == [
        "ALiBi, head 3 (m = 1/4)",
        "ALiBi, head 2 (m = 1/256)",
    ]


def test_no_method_scores_zero_at_every_offset():
    y = trace(methods.figure(ExplorerState()), "none")["y"]
    assert y.size == 65
    assert not y.any()


@pytest.mark.parametrize("method", ["sinusoidal", "rope", "alibi", "none"])
def test_the_current_method_is_emphasised_and_named_in_the_title(method):
    figure = methods.figure(ExplorerState(method=method))
    lines = [t for t in figure["data"] if t["mode"] == "lines"]
    names = {"sinusoidal": "sinusoidal", "rope": "RoPE", "alibi": "ALiBi", "none": "none"}
    for line in lines:
        if line["name"].startswith(names[method]):
            assert line["opacity"] == 1.0
            assert line["line"]["width"] == methods.CURRENT_WIDTH
        else:
            assert line["opacity"] < 1.0
            assert line["line"]["width"] < methods.CURRENT_WIDTH
    assert f"<b>{names[method]}</b>" in figure["layout"]["title"]["text"]


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("sinusoidal", lambda k: encoding.offset_dot(k, 128)),
        ("alibi", lambda k: -0.5 * k),
        ("none", lambda k: 0.0),
    ],
)
def test_negative_offset_is_marked_at_its_absolute_value(method, expected):
    state = ExplorerState(method=method, pos=20, offset=-7)
    marker = methods.figure(state)["data"][-1]
    assert marker["mode"] == "markers"
    assert marker["x"][0] == 7
    assert marker["y"][0] == pytest.approx(expected(7), abs=1e-12)
    assert methods.readout_values(state).offset == 7


def test_alibi_marks_k_on_both_of_its_heads():
    state = ExplorerState(method="alibi", offset=10, heads=8)
    marker = methods.figure(state)["data"][-1]
    np.testing.assert_array_equal(marker["x"], [10, 10])
    np.testing.assert_allclose(marker["y"], [-10 / 2, -10 / 256])


@pytest.mark.parametrize(
    ("n_positions", "train_length", "last"),
    [(64, 32, 64), (2048, 32, 2047), (10, 8, 16), (64, 64, 128), (1, 1, 2)],
)
def test_region_beyond_the_training_length_is_shaded_and_visible(n_positions, train_length, last):
    state = ExplorerState(n_positions=n_positions, train_length=train_length)
    layout = methods.figure(state)["layout"]
    (region,) = [s for s in layout["shapes"] if s["type"] == "rect"]
    assert (region["x0"], region["x1"]) == (train_length, last)
    assert layout["xaxis"]["range"] == [0, last]
    assert last >= 2 * train_length
    (line,) = [s for s in layout["shapes"] if s.get("name") == "training length"]
    assert line["x0"] == line["x1"] == train_length
    label, words = layout["annotations"][:2]
    assert label["text"] == f"training length L = {train_length}"
    assert (words["x"], words["xanchor"]) == (train_length, "left")
    for method, method_words in methods.BEYOND.items():
        for part in method_words:
            assert (part in words["text"]) == (method not in methods.RELATIVE)
    for trace_ in methods.figure(state)["data"][:-1]:
        assert trace_["x"][-1] == last


def test_the_current_methods_words_are_bold_in_the_region():
    text = methods.figure(ExplorerState(method="alibi"))["layout"]["annotations"][1]["text"]
    assert "<b>ALiBi — a linear penalty that keeps growing:</b>" in text
    assert "<b>sinusoidal" not in text


def test_the_sequence_length_is_marked():
    layout = methods.figure(ExplorerState(n_positions=20, train_length=40))["layout"]
    (line,) = [s for s in layout["shapes"] if s.get("name") == "sequence end"]
    assert line["x0"] == 19
    assert any(a["text"] == "n = 20 positions: k ≤ 19" for a in layout["annotations"])


@pytest.mark.parametrize(
    "params",
    [
        {"n_positions": 1},
        {"n_positions": 2048, "pos": 2047, "offset": -2047},
        {"d_model": 2},
        {"d_model": 2048},
        {"heads": 1},
        {"heads": 64},
        {"n_positions": 2048, "d_model": 2048, "heads": 64, "train_length": 2048},
        {"train_length": 1, "n_positions": 1, "theme": "dark", "layout": "concatenated"},
    ],
)
@pytest.mark.parametrize("method", ["sinusoidal", "rope", "alibi", "none"])
def test_every_size_draws_finite_curves_and_a_readout(params, method):
    state = ExplorerState(method=method, **params)
    last = max(state.n_positions - 1, 2 * state.train_length)
    figure = methods.figure(state)
    for line in figure["data"][:-1]:
        assert isinstance(line["y"], np.ndarray)
        assert line["y"].shape == (last + 1,)
        assert np.isfinite(line["y"]).all()
    readout = methods.readout(state)
    assert readout.count('class="pe-current"') == (
        2 if method == "alibi" and state.heads > 1 else 1
    )


def test_readout_gives_each_curve_at_k_and_at_twice_the_training_length():
    state = ExplorerState(offset=5, train_length=20, method="rope", heads=8)
    readout = methods.readout(state)
    q, _ = derived.query_key(128, 0)
    omega = encoding.angular_frequencies(128)
    pair_weights = q[0::2] ** 2 + q[1::2] ** 2
    expected = {
        "sinusoidal": lambda k: np.cos(k * omega).sum(),
        "rope": lambda k: (pair_weights * np.cos(k * omega)).sum(),
        "alibi": lambda k: -k / 2,
        "alibi-gentlest": lambda k: -k / 256,
        "none": lambda k: 0.0,
    }
    for name, value in expected.items():
        assert cell(readout, f"pe-method-{name}-at-k") == pytest.approx(value(5), abs=1e-6)
        assert cell(readout, f"pe-method-{name}-at-2l") == pytest.approx(value(40), abs=1e-6)
    assert 'role="columnheader">at 2L = 40</th>' in readout


def test_readout_highlights_the_current_row_and_says_what_each_method_does_beyond_l():
    readout = methods.readout(ExplorerState(method="sinusoidal"))
    (current,) = re.findall(r'<tr[^>]*class="pe-current">(.*?)</tr>', readout)
    assert 'class="pe-method-sinusoidal-at-k"' in current
    for name, words in methods.BEYOND.items():
        (text,) = re.findall(rf'class="pe-beyond pe-method-{name}-beyond">([^<]*)<', readout)
        assert html.unescape(text) == " ".join(words)


def test_readout_values_match_the_readout():
    state = ExplorerState(offset=3, method="none", heads=4)
    shown = methods.readout_values(state)
    readout = methods.readout(state)
    assert (shown.offset, shown.far_offset, shown.train_length) == (3, 64, 32)
    for row in shown.rows:
        assert cell(readout, f"pe-method-{row.css_name}-at-k") == pytest.approx(
            row.at_offset, abs=1e-6
        )
        assert cell(readout, f"pe-method-{row.css_name}-at-2l") == pytest.approx(
            row.at_far, abs=1e-6
        )


@pytest.mark.parametrize(
    ("parameter", "value"),
    [("pos", 30), ("pairs", [1, 2]), ("rotation_pair", 5), ("similarity", "cosine"), ("text", "x")],
)
def test_view_ignores_parameters_it_does_not_follow(parameter, value):
    before = ExplorerState()
    after = ExplorerState(**{parameter: value})
    assert same_value(methods.figure(before), methods.figure(after))
    assert methods.readout(before) == methods.readout(after)


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("offset", 3),
        ("n_positions", 9),
        ("d_model", 64),
        ("base", 1000.0),
        ("layout", "concatenated"),
        ("seed", 1),
        ("heads", 4),
        ("train_length", 10),
        ("method", "rope"),
        ("theme", "dark"),
    ],
)
def test_view_follows_its_parameters(parameter, value):
    before = methods.figure(ExplorerState())
    after = methods.figure(ExplorerState(**{parameter: value}))
    assert not same_value(before, after)


# --- The relative methods beside them -------------------------------------------------------


def stand_in_rng(seed: int) -> np.random.Generator:
    """The stream of the relative methods' stand-in learned numbers: the seed after the q's."""
    return np.random.default_rng(seed + 1)


@pytest.mark.parametrize(
    ("bidirectional", "exact", "last_bucket"),
    # T5 halves 32 buckets between the two sides when bidirectional: 8 exact distances and
    # bucket 15 from max_distance on; causal: 16 exact ones and bucket 31 (HF's T5Attention).
    [(True, 8, 15), (False, 16, 31)],
)
def test_t5_curve_is_the_bias_of_each_offsets_bucket(bidirectional, exact, last_bucket):
    state = ExplorerState(n_positions=300, t5_bidirectional=bidirectional, seed=3)
    biases = stand_in_rng(3).standard_normal(32)
    scores = trace(methods.figure(state), "T5")["y"]
    assert np.array_equal(scores[:exact], biases[:exact])
    assert np.all(scores[128:] == biases[last_bucket])
    # Between, log-spaced buckets: a run of offsets shares each, so fewer values than offsets.
    assert 1 < len(set(scores[exact:128].tolist())) < 128 - exact


@pytest.mark.parametrize("clip", [1, 4, 16])
def test_shaw_curve_is_q_with_the_clipped_vector(clip):
    state = ExplorerState(shaw_clip=clip, seed=2, d_model=16)
    q = np.random.default_rng(2).standard_normal(16)
    vectors = stand_in_rng(2).standard_normal((2 * clip + 1, 16)) / 4.0
    scores = trace(methods.figure(state), "Shaw")["y"]
    for k in range(len(scores)):
        assert scores[k] == pytest.approx(q @ vectors[clip - min(k, clip)], rel=1e-12)
    assert len(set(scores[clip:].tolist())) == 1


def test_transformer_xl_curve_is_its_two_position_terms():
    d, base, seed = 8, 10000.0, 4
    state = ExplorerState(d_model=d, seed=seed)
    rng = np.random.default_rng(seed)
    q, _, _, v = (rng.standard_normal(d) / np.sqrt(d) for _ in range(4))
    w_r = rng.standard_normal((d, d)) / np.sqrt(d)
    scores = trace(methods.figure(state), "Transformer-XL")["y"]
    omega = base ** (-np.arange(0, d, 2) / d)
    for k in (0, 1, 7, 40):
        sinusoid = np.concatenate([np.sin(k * omega), np.cos(k * omega)])  # R, sin then cos
        assert scores[k] == pytest.approx((q + v) @ (w_r @ sinusoid), rel=1e-9, abs=1e-12)


def test_relative_methods_are_drawn_faded_and_in_the_readout():
    state = ExplorerState()
    figure, readout = methods.figure(state), methods.readout(state)
    for name, css in (("T5", "t5"), ("Shaw", "shaw"), ("Transformer-XL", "xl")):
        line = trace(figure, name)
        assert line["opacity"] == methods.OTHER_OPACITY
        assert cell(readout, f"pe-method-{css}-at-k") == pytest.approx(
            line["y"][abs(state.offset)], abs=5e-7
        )
        assert f"pe-method-{css}-beyond" in readout


def test_no_t5_line_where_its_buckets_are_undefined() -> None:
    """1024 buckets put every distance below max_distance 128 in a bucket of its own: T5's
    buckets are undefined (the T5 view says why), so the methods chart draws no T5 line."""
    state = ExplorerState(t5_buckets=1024)
    names = {curve.method for curve in derived.position_score_curves(state)}
    assert "t5" not in names and {"shaw", "xl", "rope"} <= names
    assert "T5" not in methods.describe(state)

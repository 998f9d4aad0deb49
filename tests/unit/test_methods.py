"""pe_explorer.methods (RoPE, ALiBi, NoPE) against closed forms and published numbers."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pe_explorer import code_templates, encoding, methods

LAYOUTS = list(encoding.LAYOUTS)


def rotate_half(x):
    """GPT-NeoX / LLaMA's rotate_half: (x1, x2) -> (-x2, x1) on the two halves."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def reference_get_slopes(n):
    """get_slopes from ofirpress/attention_with_linear_biases (fairseq/models/transformer.py), as
    the ALiBi snippet quotes it."""
    script = code_templates.method_snippet(
        "alibi", d_model=2, n_positions=1, pos=0, offset=0, n_heads=1, seed=0
    )
    namespace = {}
    exec(compile(script, "<alibi>", "exec"), namespace)
    return namespace["get_slopes"](n)


# --- Validation ---------------------------------------------------------------------------


def test_methods_are_the_four_the_page_offers():
    assert methods.METHODS == ("sinusoidal", "rope", "alibi", "none")
    for method in methods.METHODS:
        assert methods.check_method(method) == method


def test_unknown_method_is_rejected_with_its_name():
    with pytest.raises(
        ValueError, match=r"method must be one of sinusoidal, rope, alibi, none, got 'xyz'"
    ):
        methods.check_method("xyz")


@pytest.mark.parametrize("n_heads", [0, -1, 65, 10**9])
def test_heads_out_of_range_are_rejected(n_heads):
    with pytest.raises(
        ValueError, match=rf"n_heads must be an integer between 1 and 64, got {n_heads}"
    ):
        methods.check_heads(n_heads)


@pytest.mark.parametrize("n_heads", [True, 8.0, "8", None])
def test_heads_that_are_not_integers_are_rejected(n_heads):
    with pytest.raises(ValueError, match=r"n_heads must be an integer between 1 and 64"):
        methods.check_heads(n_heads)


@pytest.mark.parametrize("n_heads", [1, 12, np.int64(64)])
def test_heads_in_range_come_back_as_int(n_heads):
    assert methods.check_heads(n_heads) == n_heads
    assert type(methods.check_heads(n_heads)) is int


@pytest.mark.parametrize("seed", [-1, 2**31, True, 1.5])
def test_bad_seeds_are_rejected(seed):
    with pytest.raises(
        ValueError, match=rf"seed must be an integer between 0 and 2147483647, got {seed!r}"
    ):
        methods.check_seed(seed)


@pytest.mark.parametrize("seed", [0, 2**31 - 1])
def test_seed_bounds_are_accepted(seed):
    assert methods.check_seed(seed) == seed


@pytest.mark.parametrize("slope", [-0.5, math.inf, math.nan, True])
def test_bad_slopes_are_rejected(slope):
    with pytest.raises(ValueError, match=r"slope must be a finite number of at least 0"):
        methods.alibi_bias(4, slope)


def test_rope_rejects_odd_vector_length():
    with pytest.raises(
        ValueError, match=r"d_model must be an even integer between 2 and 2048, got 3"
    ):
        methods.rope_rotate(np.ones(3), 1)


def test_rope_rejects_a_negative_position():
    with pytest.raises(
        ValueError, match=r"positions must be a number between 0 and 10000000, got -1"
    ):
        methods.rope_rotate(np.ones(4), -1)


def test_rope_rejects_mismatched_rows_and_positions():
    with pytest.raises(ValueError, match=r"positions must give one position per row of x"):
        methods.rope_rotate(np.ones((3, 4)), [0, 1])


def test_rope_score_rejects_query_and_key_of_different_lengths():
    with pytest.raises(ValueError, match=r"q and k must have the same length, got 4 and 6"):
        methods.rope_score(np.ones(4), np.ones(6), 0, 1)


def test_bad_layout_is_rejected():
    q, k = methods.random_qk(8, 0)
    with pytest.raises(ValueError, match=r"layout must be one of interleaved, concatenated"):
        methods.rope_scores(q, k, 4, layout="halves")


@pytest.mark.parametrize("offsets", [math.inf, [0, 2e7]])
def test_offsets_out_of_range_are_rejected(offsets):
    with pytest.raises(ValueError, match=r"offsets must be finite and between -10000000 and"):
        methods.alibi_offset_bias(offsets, 0.5)


@pytest.mark.parametrize("tokens", [[], "the cat", ["the", 3], None])
def test_nope_rejects_anything_but_a_list_of_strings(tokens):
    with pytest.raises(ValueError, match=r"tokens must be a non-empty list of strings"):
        methods.nope_scores(tokens, 8)


def test_position_scores_needs_q_for_rope_and_slope_for_alibi():
    with pytest.raises(ValueError, match=r"q must be given for method 'rope'"):
        methods.position_scores("rope", [0, 1], 8)
    with pytest.raises(ValueError, match=r"slope must be given for method 'alibi'"):
        methods.position_scores("alibi", [0, 1], 8)


def test_position_scores_rejects_q_of_another_length():
    with pytest.raises(ValueError, match=r"q must have d_model = 8 entries, got 4"):
        methods.position_scores("rope", [0, 1], 8, q=np.ones(4))


# --- RoPE ---------------------------------------------------------------------------------


def test_random_qk_draws_q_then_k_from_default_rng():
    q, k = methods.random_qk(6, 0)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(q, rng.standard_normal(6))
    np.testing.assert_array_equal(k, rng.standard_normal(6))
    # NumPy's PCG64 standard normals for seed 0 (documented in NumPy's own examples).
    np.testing.assert_allclose(q[:2], [0.12573022, -0.13210486], atol=5e-9)
    assert q.dtype == k.dtype == np.float64


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotation_of_a_unit_pair_follows_the_paper_direction(layout):
    # d_model = 2: one pair, theta_0 = 1, so position p turns (1, 0) to (cos p, sin p).
    np.testing.assert_allclose(
        methods.rope_rotate([1.0, 0.0], 0.5, layout=layout), [math.cos(0.5), math.sin(0.5)]
    )
    np.testing.assert_allclose(
        methods.rope_rotate([0.0, 1.0], 0.5, layout=layout), [-math.sin(0.5), math.cos(0.5)]
    )


def test_interleaved_rotation_turns_pairs_2i_and_2i_plus_1():
    x = np.arange(1.0, 9.0)
    theta = encoding.angular_frequencies(8, 100.0)
    pos = 3.0
    expected = np.empty(8)
    for i, t in enumerate(theta):
        x0, x1 = x[2 * i], x[2 * i + 1]
        expected[2 * i] = x0 * math.cos(pos * t) - x1 * math.sin(pos * t)
        expected[2 * i + 1] = x0 * math.sin(pos * t) + x1 * math.cos(pos * t)
    np.testing.assert_allclose(methods.rope_rotate(x, pos, base=100.0), expected, rtol=1e-14)


@pytest.mark.parametrize("d_model", [2, 8, 64])
def test_concatenated_rotation_is_rotate_half(d_model):
    q, _ = methods.random_qk(d_model, 3)
    positions = np.array([0.0, 1.0, 17.0, 250.0])
    angle = positions[:, None] * encoding.angular_frequencies(d_model)
    cos = np.concatenate([np.cos(angle)] * 2, axis=-1)
    sin = np.concatenate([np.sin(angle)] * 2, axis=-1)
    expected = q * cos + rotate_half(q) * sin
    np.testing.assert_allclose(
        methods.rope_rotate(q, positions, layout="concatenated"), expected, rtol=0, atol=1e-14
    )


def test_concatenated_layout_is_the_interleaved_one_with_columns_permuted():
    q, _ = methods.random_qk(12, 5)
    to_halves = np.concatenate([np.arange(0, 12, 2), np.arange(1, 12, 2)])
    interleaved = methods.rope_rotate(q, [4.0, 9.0])
    concatenated = methods.rope_rotate(q[to_halves], [4.0, 9.0], layout="concatenated")
    np.testing.assert_array_equal(concatenated, interleaved[:, to_halves])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_position_zero_leaves_the_vector_unchanged(layout):
    q, _ = methods.random_qk(16, 1)
    np.testing.assert_array_equal(methods.rope_rotate(q, 0, layout=layout), q)


@pytest.mark.parametrize("layout", LAYOUTS)
@given(seed=st.integers(0, 1000), position=st.floats(0, 5000))
@settings(max_examples=30, deadline=None)
def test_rotation_preserves_the_norm(layout, seed, position):
    q, _ = methods.random_qk(32, seed)
    rotated = methods.rope_rotate(q, position, layout=layout)
    assert np.linalg.norm(rotated) == pytest.approx(np.linalg.norm(q), rel=1e-13)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rows_and_positions_rotate_row_by_row(layout):
    q, k = methods.random_qk(8, 2)
    rows = methods.rope_rotate(np.stack([q, k]), [3.0, 11.0], layout=layout)
    np.testing.assert_array_equal(rows[0], methods.rope_rotate(q, 3.0, layout=layout))
    np.testing.assert_array_equal(rows[1], methods.rope_rotate(k, 11.0, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@given(
    seed=st.integers(0, 1000),
    m=st.integers(0, 2000),
    n=st.integers(0, 2000),
    shift=st.integers(0, 2000),
)
@settings(max_examples=40, deadline=None)
def test_score_depends_only_on_m_minus_n(layout, seed, m, n, shift):
    q, k = methods.random_qk(16, seed)
    score = methods.rope_score(q, k, m, n, layout=layout)
    shifted = methods.rope_score(q, k, m + shift, n + shift, layout=layout)
    assert shifted == pytest.approx(score, abs=1e-10)
    offset_score = methods.rope_offset_scores(q, k, n - m, layout=layout)
    assert offset_score == pytest.approx(score, abs=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d_model", [2, 8, 64])
def test_score_matrix_is_the_score_of_each_pair(layout, d_model):
    q, k = methods.random_qk(d_model, 7)
    scores = methods.rope_scores(q, k, 12, base=500.0, layout=layout)
    expected = (
        methods.rope_rotate(q, np.arange(12.0), 500.0, layout)
        @ methods.rope_rotate(k, np.arange(12.0), 500.0, layout).T
    )
    assert scores.shape == (12, 12)
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-12)
    assert scores[3, 8] == pytest.approx(methods.rope_score(q, k, 3, 8, 500.0, layout), abs=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_score_matrix_is_toeplitz(layout):
    q, k = methods.random_qk(32, 11)
    scores = methods.rope_scores(q, k, 40, layout=layout)
    np.testing.assert_array_equal(scores[1:, 1:], scores[:-1, :-1])
    # And not symmetric: query and key differ, so m - n and n - m give different scores.
    assert not np.allclose(scores, scores.T)


def test_score_matrix_of_one_position_is_the_plain_dot_product():
    q, k = methods.random_qk(10, 4)
    np.testing.assert_allclose(methods.rope_scores(q, k, 1), [[q @ k]], rtol=1e-14)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_offset_scores_keep_the_shape_of_the_offsets(layout):
    q, k = methods.random_qk(8, 0)
    assert isinstance(methods.rope_offset_scores(q, k, 3, layout=layout), float)
    grid = np.arange(6.0).reshape(2, 3)
    assert methods.rope_offset_scores(q, k, grid, layout=layout).shape == (2, 3)


def test_offset_sign_puts_the_key_after_the_query():
    q, k = methods.random_qk(8, 9)
    later_key = methods.rope_score(q, k, 5, 8)
    assert methods.rope_offset_scores(q, k, 3) == pytest.approx(later_key, abs=1e-13)
    assert methods.rope_offset_scores(q, k, -3) != pytest.approx(later_key, abs=1e-3)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d_model", [2, 16, 128, 512])
def test_rope_with_equal_unit_pairs_gives_the_sinusoidal_offset_dot(layout, d_model):
    # Every pair of q = k is (1/sqrt 2, 1/sqrt 2), of squared length 1: the score is
    # sum_i cos(k theta_i), the dot product D(k) of two sinusoidal encodings k apart.
    q = np.full(d_model, 1 / math.sqrt(2))
    offsets = np.arange(-300, 301, dtype=np.float64)
    np.testing.assert_allclose(
        methods.rope_offset_scores(q, q, offsets, layout=layout),
        encoding.offset_dot(offsets, d_model),
        rtol=0,
        atol=1e-12,
    )


def test_decay_at_zero_is_half_of_pairs_plus_one():
    for d_model in (2, 8, 128, 2048):
        assert methods.rope_decay(0, d_model) == (d_model / 2 + 1) / 2


def test_decay_follows_the_definition():
    theta = encoding.angular_frequencies(8)
    r = 37.0
    partial = [sum(np.exp(1j * r * theta[: j + 1])) for j in range(4)]
    expected = sum(abs(s) for s in partial) / 4
    assert methods.rope_decay(r, 8) == pytest.approx(expected, rel=1e-13)


def test_decay_is_even_in_the_offset():
    offsets = np.arange(0.0, 120.0)
    np.testing.assert_allclose(
        methods.rope_decay(-offsets, 64), methods.rope_decay(offsets, 64), rtol=1e-13
    )


def test_decay_trends_down_as_in_roformer_figure_2():
    # Figure 2 of RoFormer: d = 128, base 10000, relative distance 0 … 250.
    decay = methods.rope_decay(np.arange(251.0), 128)
    assert decay[0] == 32.5
    assert decay[200:].mean() < 0.3 * decay[0]
    assert decay[200:].mean() < 0.5 * decay[:11].mean()
    block_means = decay[:250].reshape(5, 50).mean(axis=1)
    assert (np.diff(block_means) < 0).all()


# --- ALiBi --------------------------------------------------------------------------------


def test_eight_heads_give_the_published_slopes():
    np.testing.assert_array_equal(methods.alibi_slopes(8), [2.0**-h for h in range(1, 9)])


def test_sixteen_heads_give_the_published_slopes():
    np.testing.assert_allclose(
        methods.alibi_slopes(16), [2.0 ** (-h / 2) for h in range(1, 17)], rtol=1e-15
    )
    assert methods.alibi_slopes(16)[0] == pytest.approx(1 / math.sqrt(2), rel=1e-15)


@pytest.mark.parametrize("n_heads", [1, 2, 3, 5, 6, 8, 12, 16, 20, 24, 32, 48, 63, 64])
def test_slopes_match_the_reference_get_slopes(n_heads):
    slopes = methods.alibi_slopes(n_heads)
    assert slopes.shape == (n_heads,)
    np.testing.assert_allclose(slopes, reference_get_slopes(n_heads), rtol=1e-14)


def test_twelve_heads_interleave_the_sixteen_head_slopes():
    # The 4 heads beyond 8 take every other slope of 16 heads: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
    np.testing.assert_allclose(
        methods.alibi_slopes(12)[8:], [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5], rtol=1e-15
    )


def test_one_head_has_slope_one_over_two_hundred_fifty_six():
    np.testing.assert_array_equal(methods.alibi_slopes(1), [1 / 256])


def test_bias_is_minus_slope_times_distance():
    bias = methods.alibi_bias(4, 0.25)
    expected = -0.25 * np.array(
        [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]], dtype=np.float64
    )
    np.testing.assert_array_equal(bias, expected)
    assert bias.dtype == np.float64


def test_bias_is_toeplitz_and_zero_on_the_diagonal():
    bias = methods.alibi_bias(50, 0.125)
    np.testing.assert_array_equal(bias[1:, 1:], bias[:-1, :-1])
    np.testing.assert_array_equal(np.diagonal(bias), 0.0)


def test_causal_mask_lets_a_query_see_itself_and_earlier_keys():
    mask = methods.causal_mask(4)
    assert mask.dtype == bool
    np.testing.assert_array_equal(mask, np.tril(np.ones((4, 4))) == 1)
    assert mask[2, 1] and mask[2, 2] and not mask[1, 2]


def test_offset_bias_is_the_bias_along_a_diagonal():
    bias = methods.alibi_bias(20, 0.5)
    offsets = np.arange(-5, 6)
    np.testing.assert_array_equal(
        methods.alibi_offset_bias(offsets, 0.5), [bias[7, 7 + k] for k in offsets]
    )
    assert methods.alibi_offset_bias(-3, 0.5) == -1.5


# --- NoPE ---------------------------------------------------------------------------------


def test_nope_scores_are_scaled_dot_products_of_the_embeddings():
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    embeddings = np.stack([encoding.token_embedding(token, 32) for token in tokens])
    np.testing.assert_allclose(
        methods.nope_scores(tokens, 32), embeddings @ embeddings.T / math.sqrt(32), rtol=1e-13
    )


@given(permutation=st.permutations(range(7)))
@settings(max_examples=30, deadline=None)
def test_permuting_the_tokens_permutes_the_scores_exactly(permutation):
    tokens = ["the", "dog", "saw", "the", "cat", "and", "ran"]
    scores = methods.nope_scores(tokens, 16)
    permuted = methods.nope_scores([tokens[i] for i in permutation], 16)
    p = np.eye(7)[list(permutation)]
    np.testing.assert_array_equal(permuted, p @ scores @ p.T)


def test_the_same_token_scores_the_same_wherever_it_stands():
    scores = methods.nope_scores(["the", "dog", "saw", "the", "cat"], 16)
    np.testing.assert_array_equal(scores[0], scores[3])
    np.testing.assert_array_equal(scores[:, 0], scores[:, 3])


# --- Comparison ---------------------------------------------------------------------------


def test_position_scores_of_each_method():
    offsets = np.arange(-20, 21)
    q, _ = methods.random_qk(16, 0)
    np.testing.assert_array_equal(
        methods.position_scores("sinusoidal", offsets, 16), encoding.offset_dot(offsets, 16)
    )
    np.testing.assert_array_equal(
        methods.position_scores("rope", offsets, 16, layout="concatenated", q=q),
        methods.rope_offset_scores(q, q, offsets, layout="concatenated"),
    )
    np.testing.assert_array_equal(
        methods.position_scores("alibi", offsets, 16, slope=0.25),
        -0.25 * np.abs(offsets),
    )
    np.testing.assert_array_equal(methods.position_scores("none", offsets, 16), 0.0)
    assert methods.position_scores("none", offsets, 16).shape == offsets.shape


def test_rope_position_score_peaks_at_offset_zero():
    # q . R(k) q = sum_i |q_i|^2 cos(k theta_i) <= |q|^2, with equality at k = 0.
    q, _ = methods.random_qk(64, 5)
    scores = methods.position_scores("rope", np.arange(-100, 101), 64, q=q)
    assert scores[100] == pytest.approx(q @ q, rel=1e-14)
    assert scores.max() == scores[100]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("n_positions", "d_model", "base", "seed"),
    [(1, 2, 10000.0, 0), (2, 4, 10.0, 1), (64, 128, 10000.0, 2), (257, 6, 100.0, 3)]
    + [(2048, 2048, 10000.0, 4), (1000, 512, 100000.0, 5)],
)
def test_rope_offset_curve_is_the_score_at_every_offset(layout, n_positions, d_model, base, seed):
    q, k = methods.random_qk(d_model, seed)
    offsets = np.arange(-(n_positions - 1), n_positions)
    direct = methods.rope_offset_scores(q, k, offsets, base, layout)
    curve = methods.rope_offset_curve(q, k, n_positions, base, layout)
    assert curve.shape == offsets.shape
    # The angle-addition products round differently from direct cosines: agreement is to
    # rounding, relative to the largest term a score sums, sum_i |a_i|.
    scale = np.abs(q).dot(np.abs(k))
    np.testing.assert_allclose(curve, direct, rtol=0, atol=1e-14 * scale * math.sqrt(n_positions))

"""Relative positions (pe_explorer.relative): T5 buckets, Shaw's clipping, Transformer-XL."""

from __future__ import annotations

import numpy as np
import pytest
from pe_explorer.encoding import positional_encoding
from pe_explorer.relative import (
    shaw_clipped_offsets,
    t5_bucket_runs,
    t5_relative_bucket,
    transformer_xl_terms,
)
from t5_reference import reference_bucket


@pytest.mark.parametrize(
    ("offset", "bucket"),
    [
        (0, 0),  # the query itself
        (-1, 1),  # a key one before: exact bucket 1
        (1, 17),  # one after: the second half (16 + 1)
        (-7, 7),  # the last exact distance (max_exact = 8)
        (-8, 8),  # the first log-spaced: 8 + int(ln(8/8) / ln(128/8) * 8) = 8
        (-20, 10),  # 8 + int(ln 2.5 / ln 16 * 8) = 8 + int(2.64)
        (-127, 15),  # 8 + int(ln 15.875 / ln 16 * 8) = 8 + int(7.98)
        (-128, 15),  # at max_distance: capped at the last bucket of the half
        (-5000, 15),  # past max_distance: the same
        (5000, 31),
    ],
)
def test_bidirectional_buckets_are_t5s(offset, bucket):
    assert t5_relative_bucket(offset) == bucket == reference_bucket(offset)


@pytest.mark.parametrize(
    ("offset", "bucket"),
    [(0, 0), (3, 0), (500, 0), (-15, 15), (-16, 16), (-127, 31), (-128, 31), (-9999, 31)],
)
def test_causal_buckets_see_only_earlier_keys(offset, bucket):
    """Causal: keys after the query all fall in bucket 0; 16 exact buckets, then 16 log ones."""
    assert t5_relative_bucket(offset, bidirectional=False) == bucket
    assert bucket == reference_bucket(offset, bidirectional=False)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (8, 20), (64, 1000)])
def test_every_offset_matches_the_reference_float32_arithmetic(
    bidirectional, num_buckets, max_distance
):
    offsets = np.arange(-3 * max_distance, 3 * max_distance + 1)
    expected = [reference_bucket(int(o), bidirectional, num_buckets, max_distance) for o in offsets]
    actual = t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(actual, expected)


def test_bucket_runs_name_where_exact_buckets_end_and_which_distances_share_one():
    runs = t5_bucket_runs()
    assert [(r.bucket, r.first, r.last) for r in runs[:9]] == [(i, i, i) for i in range(8)] + [
        (8, 8, 11)
    ]
    assert runs[-1].bucket == 15 and runs[-1].last is None
    assert runs[-1].first == min(d for d in range(300) if t5_relative_bucket(-d) == 15)


def test_shaw_clips_distances_beyond_k_to_one_vector():
    index = shaw_clipped_offsets(6, 2)
    assert index.shape == (6, 6)
    assert index[0, 0] == 2 and index[0, 1] == 3 and index[0, 5] == 4 and index[5, 0] == 0
    assert len(np.unique(index)) == 5  # 2k + 1


def test_transformer_xls_terms_add_up_and_use_the_concatenated_sinusoid():
    terms = transformer_xl_terms(np.arange(0, 40), 16, seed=3)
    np.testing.assert_allclose(
        terms.total,
        terms.content + terms.content_position + terms.content_bias + terms.position_bias,
    )
    assert np.ptp(terms.content) == 0 and np.ptp(terms.content_bias) == 0
    # At offset 0, R is sin(0) = 0 for the first half and cos(0) = 1 for the second.
    sinusoid = positional_encoding(1, 16, layout="concatenated")[0]
    np.testing.assert_array_equal(sinusoid, [0.0] * 8 + [1.0] * 8)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: t5_relative_bucket(1.5), "integers"),
        (lambda: t5_relative_bucket([1, float("nan")]), "integers"),
        (lambda: t5_relative_bucket(1, num_buckets=31), "even"),
        (lambda: t5_relative_bucket(1, num_buckets=32, max_distance=4), "max_distance"),
        (lambda: t5_relative_bucket(1, bidirectional="no"), "true or false"),
        (lambda: shaw_clipped_offsets(4, -1), "clip distance"),
        (lambda: transformer_xl_terms([-1, 0], 16, 0), ">= 0"),
    ],
)
def test_bad_arguments_get_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()

"""Positions numbered wrong, against the engine that numbers them: transformers 5.23.0's
position_ids from a mask in generate, and its dynamic rotary run step by step with a cache."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from pe_explorer.mistakes import positions
from transformers import LlamaConfig
from transformers.generation.utils import GenerationMixin
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding


@pytest.mark.parametrize("lengths", [(3, 7, 10), (1, 1), (5,), (2, 9, 4, 9)])
def test_position_ids_from_the_mask_are_transformers_own(lengths):
    mask = positions.left_padding_mask(lengths)
    inputs = torch.zeros(mask.shape, dtype=torch.long)
    theirs = GenerationMixin._prepare_position_ids_for_generation(
        None, inputs, {"attention_mask": torch.from_numpy(mask)}
    )
    np.testing.assert_array_equal(positions.position_ids_from_mask(mask), theirs.numpy())
    arange = GenerationMixin._prepare_position_ids_for_generation(None, inputs, {})
    np.testing.assert_array_equal(
        positions.position_ids_from_arange(mask), np.broadcast_to(arange.numpy(), mask.shape)
    )


def test_the_left_padding_mask_pads_on_the_left():
    mask = positions.left_padding_mask([2, 4])
    np.testing.assert_array_equal(mask, [[0, 0, 1, 1], [1, 1, 1, 1]])


def test_a_padded_row_is_told_positions_shifted_by_its_pads():
    mask = positions.left_padding_mask([3, 10])
    told = positions.position_ids_from_arange(mask)[0, 7:]
    right = positions.position_ids_from_mask(mask)[0, 7:]
    np.testing.assert_array_equal(told - right, [7, 7, 7])


@pytest.mark.parametrize(("prefill", "steps"), [(48, 60), (100, 20), (20, 80)])
def test_dynamic_ntk_with_a_cache_is_transformers_own(prefill, steps):
    """transformers' dynamic rotary run as generate runs it: the prompt in one call, then one
    position per call; each key's cos is what the cache keeps. Ours: dynamic_cache_angles."""
    original, dim, theta, factor = 64, 16, 10000.0, 2.0
    config = LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, head_dim=dim,
                         max_position_embeddings=original,
                         rope_parameters={"rope_type": "dynamic", "factor": factor,
                                          "rope_theta": theta})  # fmt: skip
    rotary = LlamaRotaryEmbedding(config)
    x = torch.zeros(1, 1, dim, dtype=torch.float64)
    cos, sin = rotary(x, torch.arange(prefill)[None])
    cached = [cos[0, :, : dim // 2]]
    for position in range(prefill, prefill + steps):
        cos, _ = rotary(x, torch.tensor([[position]]))
        cached.append(cos[0, :, : dim // 2])
    theirs = torch.cat(cached).double().numpy()
    keys = np.arange(prefill + steps)
    ours = positions.dynamic_cache_angles(keys, theta, dim, factor, original, prefill)
    np.testing.assert_allclose(np.cos(ours), theirs, atol=2e-5)
    # and the query at the end: every key turned with the frequencies of the whole length
    now = positions.dynamic_frequencies(theta, dim, factor, original, [prefill + steps])[0]
    np.testing.assert_allclose(rotary.inv_freq.double().numpy(), now, rtol=1e-6)


def test_a_cache_that_keeps_sinks_and_a_window():
    kept, slots = positions.window_cache(at=100, window=8, sinks=4)
    np.testing.assert_array_equal(kept, [0, 1, 2, 3, *range(93, 101)])
    true, seen = positions.slot_distances(at=100, window=8, sinks=4)
    assert true[-1] == 0 and seen[-1] == 11 - 100  # the newest key, rotated at 100, seen by slot 11
    assert true[0] == 100 and seen[0] == 11


def test_packed_documents_restart_at_zero():
    np.testing.assert_array_equal(positions.packed_position_ids([2, 3]), [0, 1, 0, 1, 2])
    np.testing.assert_array_equal(positions.continued_position_ids([2, 3]), [0, 1, 2, 3, 4])

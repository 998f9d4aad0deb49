"""Conversion and configuration mistakes against their engines: llama.cpp's converter's permute at
the pin (its function's own source, run), transformers' half-split rotation, transformers' ALiBi
slopes (Bloom) and YaRN attention factor."""

from __future__ import annotations

import ast
import math
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from pe_explorer.mistakes import conversion
from pe_explorer.mistakes.scores import scores_at, unit_pairs
from pe_explorer.mistakes.simulate import simulate
from pe_explorer.mistakes.types import Rotary
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

MIRROR = Path("/work/.mirror/unslothai+llama.cpp/repo")
PIN = "d32676d77426540327835040d5d3279728f0b4c8"


def llamacpp_permute():
    """LlamaModel.permute of llama.cpp's converter at the pin, its source taken from the file
    (conversion/llama.py) and run alone, not the whole module."""
    source = subprocess.run(["git", "-C", str(MIRROR), "show", f"{PIN}:conversion/llama.py"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    tree = ast.parse(source)
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LlamaModel")
    function = next(n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "permute")
    namespace = {"Tensor": torch.Tensor}
    exec(textwrap.dedent(ast.get_source_segment(source, function)), namespace)  # noqa: S102
    return namespace["permute"]


@pytest.mark.skipif(not MIRROR.is_dir(), reason="the llama.cpp mirror is not on this machine")
@pytest.mark.parametrize(("n_heads", "head_dim", "columns"), [(4, 8, 3), (2, 16, 1), (8, 64, 5)])
def test_hf_to_meta_is_llama_cpp_s_permute_and_meta_to_hf_its_inverse(n_heads, head_dim, columns):
    weights = np.random.default_rng(1).standard_normal((n_heads * head_dim, columns))
    theirs = llamacpp_permute()(torch.from_numpy(weights), n_heads, None).numpy()
    np.testing.assert_array_equal(conversion.hf_to_meta(weights, n_heads), theirs)
    np.testing.assert_array_equal(conversion.meta_to_hf(theirs, n_heads), weights)
    assert not np.array_equal(theirs, weights)


def transformers_turned(vectors: np.ndarray, inv_freq: np.ndarray, position: float) -> np.ndarray:
    """Vectors (samples, d) turned by transformers' own apply_rotary_pos_emb (half-split)."""
    angles = np.concatenate([position * inv_freq] * 2)
    cos = torch.from_numpy(np.cos(angles))[None, None]
    sin = torch.from_numpy(np.sin(angles))[None, None]
    x = torch.from_numpy(vectors)[:, None, None, :]
    turned, _ = apply_rotary_pos_emb(x, x, cos, sin, unsqueeze_dim=1)
    return turned[:, 0, 0].numpy()


@pytest.mark.parametrize("distance", [0, 1, 37, 900])
def test_permuted_weights_give_transformers_the_interleaved_scores(distance):
    """Meta's interleaved q and k through meta_to_hf, turned by transformers, score as the
    interleaved rotation does; not permuted, they score as the mistake says."""
    d, at = 16, 1000
    inv_freq = 1.0 / 10000 ** (np.arange(0, d, 2) / d)
    q, k = unit_pairs(d // 2, samples=4)
    flat_q, flat_k = q.reshape(4, d), k.reshape(4, d)
    interleaved = scores_at(q, k, inv_freq, inv_freq, [at], [at - distance])[:, 0]
    permuted = (transformers_turned(conversion.meta_to_hf(flat_q.T, 1).T, inv_freq, at)
                * transformers_turned(conversion.meta_to_hf(flat_k.T, 1).T, inv_freq, at - distance)
                ).sum(axis=1)  # fmt: skip
    np.testing.assert_allclose(permuted, interleaved, atol=1e-12)
    forgotten = (transformers_turned(flat_q, inv_freq, at)
                 * transformers_turned(flat_k, inv_freq, at - distance)).sum(axis=1)  # fmt: skip
    ours = scores_at(conversion.as_pairs(flat_q, "half-split"),
                     conversion.as_pairs(flat_k, "half-split"), inv_freq, inv_freq, [at],
                     [at - distance])[:, 0]  # fmt: skip
    np.testing.assert_allclose(ours, forgotten, atol=1e-12)
    if distance:
        assert np.abs(forgotten - interleaved).max() > 1e-3


def test_component_frequencies_of_each_layout():
    inv_freq = np.array([1.0, 0.1])
    np.testing.assert_array_equal(conversion.component_frequencies(inv_freq, "interleaved"),
                                  [1.0, 1.0, 0.1, 0.1])  # fmt: skip
    np.testing.assert_array_equal(conversion.component_frequencies(inv_freq, "half-split"),
                                  [1.0, 0.1, 1.0, 0.1])  # fmt: skip


def bloom_slopes(n_heads: int) -> np.ndarray:
    alibi = build_alibi_tensor(torch.ones(1, 3, dtype=torch.long), n_heads, torch.float32)
    return alibi[:, 0, 1].double().numpy()  # the bias at position 1 is the slope


@pytest.mark.parametrize("n_heads", [1, 8, 12, 16, 20, 32, 40])
def test_alibi_slopes_are_transformers_bloom_s(n_heads):
    np.testing.assert_allclose(conversion.right_slopes(n_heads), bloom_slopes(n_heads), rtol=1e-6)


def test_twelve_heads_given_sixteen_s_slopes_differ_at_every_head():
    wrong, right = conversion.slopes_as_for(12, 16), bloom_slopes(12)
    np.testing.assert_allclose(wrong, bloom_slopes(16)[:12], rtol=1e-6)
    assert not np.isclose(wrong, right, rtol=1e-6).any()  # 16's halve the exponent of 8's
    assert simulate("alibi_slopes").x.tolist() == list(range(1, 13))


@pytest.mark.parametrize(("factor", "once", "twice"), [(40, 1.3689, 1.8739), (128, 1.4852, 2.2058)])
def test_yarn_attention_factor_squared(factor, once, twice):
    """sglang PR #33558: YaRN's attention factor applied twice squares it, 1.4852 → 2.2058 at
    factor 128 (at 40: 1.3689 → 1.8739). transformers' _compute_yarn_parameters gives once."""
    config = LlamaConfig(hidden_size=256, num_attention_heads=2, max_position_embeddings=4096,
                         rope_parameters={"rope_type": "yarn", "factor": float(factor),
                                          "rope_theta": 10000.0,
                                          "original_max_position_embeddings": 4096})  # fmt: skip
    inv_freq, attention = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    assert attention == pytest.approx(once, abs=1e-4) == 0.1 * math.log(factor) + 1
    scaling = {"type": "yarn", "factor": factor}
    rotary = Rotary(inv_freq.double().numpy(), 10000.0, attention, scaling, 4096, 4096 * factor)
    found = simulate("scaling", rotary, at=8192, how="twice")
    assert f"attention factor {twice:.4f} instead of {once:.4f}" in found.summary
    dropped = simulate("scaling", rotary, at=8192, how="dropped")
    np.testing.assert_allclose(dropped.wrong, 1.0 / 10000 ** (np.arange(0, 128, 2) / 128))


def test_the_wrong_theta_keeps_the_pairs_scaling():
    inv_freq = 1.0 / 500000 ** (np.arange(0, 8, 2) / 8) / np.array([1, 1, 2, 8])
    wrong = conversion.theta_frequencies(inv_freq, 500000.0, 10000.0)
    np.testing.assert_allclose(wrong, 1.0 / 10000 ** (np.arange(0, 8, 2) / 8) / [1, 1, 2, 8])

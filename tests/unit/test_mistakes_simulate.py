"""pe_explorer.simulate: each mistake on a model's layer, its arrays shaped for a view, its numbers
against closed forms, and `pe-explorer model --precision`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pe_explorer
import pytest
from pe_explorer.mistakes.scores import wrapped
from pe_explorer.mistakes.simulate import MISTAKES, simulate
from pe_explorer.model.reader import read_model

SCALED = {"scaling": "qwen3-yarn-4x"}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_mistake_gives_arrays_a_view_can_plot(mistake):
    found = simulate(mistake, SCALED.get(mistake, "llama-3.1-8b"), at="4k")
    assert found.mistake == mistake and found.summary
    assert found.right.shape == found.wrong.shape and found.error.ndim == 1
    assert found.error.size == found.right.shape[-1] or found.error.size == found.x.size
    assert found.score_right.shape == found.score_wrong.shape
    assert found.score_right.shape[-1] == found.distances.size == found.score_error.size
    assert np.isfinite(found.worst_score)


def test_the_public_name_is_the_function():
    assert pe_explorer.simulate is simulate


def test_a_model_read_by_read_model_is_simulated_with_its_own_frequencies():
    model = read_model("llama-3.1-8b")
    found = simulate("wrong_theta", model, at="32k")
    np.testing.assert_array_equal(found.right, model.layers[0].inv_freq)
    assert found.settings == {"theta": 10000.0, "at": 32768}
    assert simulate("low_precision", model).settings["at"] == 131072  # its maximum context


def test_bf16_positions_lose_half_the_spacing_at_65536():
    """65 792 = 65 536 + 256 is a tie between two bf16 512 apart: it rounds to even, 65 536."""
    found = simulate("low_precision", positions=[65792], at="128k", place="positions")
    inv_freq = found.right[0] / 65792
    np.testing.assert_allclose(found.angle_error[0], wrapped(-256 * inv_freq), atol=1e-9)


def test_llama3_bf16_product_at_32k_scrambles_the_fast_pairs_and_spares_the_slow():
    found = simulate("low_precision", "llama-3-8b-instruct", at="32k")
    per_pair = np.abs(found.angle_error).max(axis=0)
    assert per_pair[0] > 1 and per_pair[-1] < 1e-3
    assert 0.1 < found.worst_score < 1


def test_the_cache_mistake_in_bf16_is_small_and_the_product_large():
    cache = simulate("low_precision", at="32k", place="cache")
    product = simulate("low_precision", at="32k", place="product")
    assert cache.worst_angle < 0.01 < product.worst_angle


def test_a_shift_of_every_position_leaves_rope_scores_alone():
    for mistake in ("left_padding", "positions_from_1", "packed_documents"):
        assert simulate(mistake).worst_score < 1e-10, mistake


def test_a_cache_numbered_by_slot_sees_its_newest_key_in_the_future():
    found = simulate("cache_window", at=8192, window=1024, sinks=4)
    assert found.wrong[-1] == 1027 - 8192 and found.right[-1] == 0
    assert found.worst_score > 0.1


def test_dynamic_ntk_with_a_cache_is_exact_inside_the_original_context():
    found = simulate("dynamic_ntk_cache", at=4096)
    assert found.worst_score < 1e-12
    assert simulate("dynamic_ntk_cache", at=8192).worst_score > 0.1


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"mistake": "typo"}, "mistake must be one of"),
        ({"mistake": "low_precision", "at": "64q"}, "at must be"),
        ({"mistake": "scaling", "model": "llama-2-7b"}, "no RoPE scaling"),
        ({"mistake": "low_precision", "precision": "fp8"}, "precision must be"),
        ({"mistake": "cache_window", "at": 100}, r"at least sinks \+ window"),
        ({"mistake": "low_precision", "model": "gpt-2"}, "no layer that rotates"),
    ],
)
def test_what_cannot_be_simulated_says_why(arguments, says):
    with pytest.raises(ValueError, match=says):
        simulate(**arguments)


def run_cli(*args: str) -> str:
    code = "import sys; from pe_explorer import cli; sys.exit(cli.main(sys.argv[1:]))"
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                            check=False, timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def test_the_command_notes_the_worst_errors_per_layer_type():
    out = run_cli("model", "gemma-3-27b-it", "--precision", "bf16", "--fail-on", "never")
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("precision: RoPE in bf16"))
    notes = [line for line in lines[head:] if line.startswith("  note")]
    assert len(notes) == 2 and "sliding_attention" in notes[0] and "full_attention" in notes[1]
    found = simulate("low_precision", "gemma-3-27b-it", precision="bf16", place="cache")
    assert f"cos and sin cached {found.worst_angle:.3g} / {found.worst_score:.3g}" in out
    assert max(len(line) for line in lines) <= 100


def test_the_command_loads_the_mistakes_only_when_asked():
    code = (
        "import sys; from pe_explorer import cli; cli.main(['model', 'qwen3-8b']);"
        "print(any(m.startswith('pe_explorer.mistakes') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_fp16_past_65504_is_an_overflow_not_a_number():
    found = simulate("low_precision", "llama-3.1-8b", precision="fp16")
    assert np.isnan(found.worst_score) and np.isfinite(found.worst_angle)
    assert "every score overflows" in found.summary and "overflow fp16 (inf)" in found.summary
    out = run_cli("model", "llama-3.1-8b", "--precision", "fp16")
    assert "position × inv_freq 3.14 / overflow" in out

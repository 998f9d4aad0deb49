"""diagnose_rope: each known implementation mistake, built by hand (rope_reference), is named."""

from __future__ import annotations

import numpy as np
import pytest
from pe_explorer.rope_diagnosis import (
    InvFreqError,
    diagnose_rope,
    example_mistake,
    load_inv_freq,
    read_inv_freq_text,
)
from rope_reference import BASE, D, L, llama3, plain, yarn


def test_the_right_array_is_ok_even_in_float32():
    theirs = np.asarray(yarn(), dtype=np.float32)
    report = diagnose_rope(theirs, "yarn", D, BASE, 32, L)
    assert report and report.ok and report.bug is None
    assert "matches yarn" in report.text


def test_ignored_scaling_is_named():
    report = diagnose_rope(plain(), "pi", D, BASE, 4, L)
    assert not report and "scaling was ignored" in report.text
    assert report.pairs == tuple(range(64))  # PI divides every pair, pair 0 too


def test_ntk_without_the_raised_base_is_named():
    report = diagnose_rope(plain(), "ntk", D, BASE, 8, L)
    assert report.bug == "the base was not raised (NTK skipped)"
    assert report.pairs[0] == 1  # pair 0 turns at 1 either way


def test_the_factor_inside_the_exponent_is_named():
    theirs = [1.0 / BASE ** (2 * i * 4 / D) for i in range(D // 2)]
    assert "inside the exponent" in diagnose_rope(theirs, "pi", D, BASE, 4, L).text


def test_yarns_truncate_flipped_is_named():
    report = diagnose_rope(yarn(truncate=False), "yarn", D, BASE, 32, L)
    assert report.bug == "YaRN's truncate was False where the config says True"
    assert set(report.pairs) <= set(range(20, 47))  # only the ramped pairs move


def test_yarns_high_bound_at_half_is_named():
    """With beta_slow small enough, the reference's high bound passes d/2 - 1."""
    theirs = yarn(clamp=D // 2 - 1, beta_slow=0.05)
    report = diagnose_rope(theirs, "yarn", D, BASE, 32, L, beta_slow=0.05)
    assert report.bug == "YaRN's high bound was clamped at d/2 - 1 instead of d - 1"


def test_llama3_smoothed_in_wavelength_is_named():
    d, base, s, context = 128, 500000.0, 8.0, 8192
    theirs = llama3(in_wavelength=True, d=d, base=base, s=s, context=context)
    report = diagnose_rope(theirs, "llama3", d, base, s, context)
    assert "in wavelength, not frequency" in report.text
    assert report.pairs == (29, 30, 31, 32, 33, 34)  # exactly the smoothed band


def test_half_split_and_interleaved_pairing_confused_is_named():
    per_pair = plain()
    half_split = per_pair + per_pair  # GPT-NeoX: cat(freqs, freqs)
    interleaved = [f for f in per_pair for _ in (0, 1)]  # GPT-J: repeat_interleave
    assert diagnose_rope(interleaved, "none", D, BASE, 1, L, layout="interleaved")
    report = diagnose_rope(half_split, "none", D, BASE, 1, L, layout="interleaved")
    assert "pairing confused" in report.text and "half-split" in report.text


def test_an_unexplained_array_says_so_and_where():
    theirs = plain()
    theirs[10] *= 1.01
    report = diagnose_rope(theirs, "none", D, BASE, 1, L)
    assert not report and report.pairs == (10,) and "no known mistake" in report.text


@pytest.mark.parametrize(
    ("theirs", "message"),
    [([1.0] * 63, "64 numbers"), ([1.0] * 63 + [float("nan")], "positive finite"),
     ("abc", "numbers")],
)  # fmt: skip
def test_bad_arrays_get_a_clear_value_error(theirs, message):
    with pytest.raises(ValueError, match=message):
        diagnose_rope(theirs, "none", D, BASE, 1, L)


def test_a_mistake_that_overflows_says_nothing_and_does_not_match():
    import warnings

    theirs = 1.0 / 10000.0 ** (np.arange(0, 2048, 2) / 2048)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would fail the test
        report = diagnose_rope(theirs, "yarn", 2048, 10000.0, 128.0, 4096)
    assert not report.ok and "inside the exponent" not in report.text


def test_a_printed_tensor_is_read_as_the_numbers_it_holds():
    text = f"tensor([{', '.join(map(repr, plain()))}], dtype=torch.float64)"
    np.testing.assert_array_equal(read_inv_freq_text(text), plain())
    np.testing.assert_array_equal(load_inv_freq(text.encode(), "inv_freq.txt"), plain())


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"1, 0, 0.5", "number 2 is 0"), (b"PK\x03\x04", "never opened"), (b"", "empty file")],
)
def test_an_unreadable_inv_freq_says_why(data, message):
    with pytest.raises(InvFreqError, match=message):
        load_inv_freq(data, "f.txt")


@pytest.mark.parametrize(
    ("method", "params", "bug"),
    [("none", {}, "exponent i/d, not 2i/d"), ("ntk", {}, "NTK's base not raised"),
     ("yarn", {"beta_fast": 32.0, "beta_slow": 1.0, "truncate": True}, "YaRN's truncate off")],
)  # fmt: skip
def test_the_example_mistake_is_one_the_check_names(method, params, bug):
    label, buggy = example_mistake(method, D, BASE, 8.0, L, **params)
    assert label == bug
    assert not diagnose_rope(buggy, method, D, BASE, 8.0, L, **params)


def test_no_example_mistake_shows_with_one_pair():
    assert example_mistake("none", 2, BASE, 1.0, L) is None


def test_an_unexplained_array_is_described_in_words():
    """No known mistake: the verdict says the fitted base, the divisors and the closest method."""
    from pe_explorer.scaling import rope_scaled_frequencies

    llama3, _ = rope_scaled_frequencies("llama3", 128, 500000.0, 8.0, 8192)
    text = diagnose_rope(llama3, "none", 128, 500000.0, 1.0, 8192).text
    assert "fit base 500000" in text and "1 for pairs 0–28" in text and "8 for pairs 35–63" in text
    assert "closest to Llama 3 at s = 8" in text
    other_base = 1 / 20000 ** (np.arange(0, 64, 2) / 64)
    assert (
        "fit base 20000 (the config: 10000)"
        in diagnose_rope(other_base, "none", 64, 1e4, 1.0, 4096).text
    )
    reversed_text = diagnose_rope(other_base[::-1], "none", 64, 1e4, 1.0, 4096).text
    assert "pair 0 is not first" in reversed_text

"""The RoPE config checker view: the visitor's inv_freq in; the verdict, escaped, and evidence out.

Every array is built from the published formulas (math, per pair: tests/support/rope_reference.py),
never with the functions the view uses.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from checker_support import npy
from pe_explorer.state import ExplorerState
from pe_explorer.views import ropecheck, view_spec
from rope_reference import BASE, D, L, llama3, ntk, plain, theta, yarn

TOLERANCE = 1e-5


def relative(theirs, expected) -> np.ndarray:
    theirs, expected = np.asarray(theirs, dtype=float), np.asarray(expected, dtype=float)
    return np.abs(theirs - expected) / expected


def pasted(values) -> str:
    return ", ".join(repr(float(v)) for v in values)


def make(pairing: str = "auto", **state):
    view = view_spec("ropecheck").make(ExplorerState(**state))
    view.pairing = pairing
    return view


def verdict(view) -> str:
    return view._verdict.object


def traces(view) -> dict:
    return {trace["name"]: trace for trace in view.figure()["data"]}


def test_before_any_array_it_explains_and_draws_the_expected_inv_freq():
    view = make(scaling="pi", factor=4.0)
    assert "No inv_freq yet" in verdict(view)
    assert "Position Interpolation, d_head 128, base 10000, s = 4, L = 4096" in verdict(view)
    figure = view.figure()
    assert figure["layout"]["title"]["text"].startswith("The expected inv_freq")
    shown = {trace["name"]: trace for trace in figure["data"]}
    assert np.allclose(shown["expected θ′ᵢ"]["y"], [t / 4 for t in plain()], rtol=1e-12)
    assert np.allclose(shown["unscaled θᵢ"]["y"], plain(), rtol=1e-12)
    assert view._right_example.label == "Try a correct array"


# Each bug diagnose_rope knows, built here, found through the view: the state, the pairing, their
# array, the expected array and the bug the verdict names (as the page escapes it).
PI4 = {"scaling": "pi", "factor": 4.0}
LLAMA31 = {"scaling": "llama3", "factor": 8.0, "base": 500000.0, "original_context": 8192}
YARN_LONG = {"scaling": "yarn", "factor": 16.0, "original_context": 65536}
BUGS = [
    pytest.param(
        PI4, "auto", plain(), [t / 4 for t in plain()], "the scaling was ignored", id="ignored"
    ),
    pytest.param(
        PI4,
        "auto",
        [1 / BASE ** (2 * i * 4 / D) for i in range(D // 2)],
        [t / 4 for t in plain()],
        "the factor was applied inside the exponent",
        id="factor-in-exponent",
    ),
    pytest.param(
        {"scaling": "ntk", "factor": 8.0},
        "auto",
        plain(),
        ntk(8.0),
        "the base was not raised (NTK skipped)",
        id="ntk-base-not-raised",
    ),
    pytest.param(
        {"scaling": "dynamic", "factor": 2.0, "seq_len": 3 * L},
        "auto",
        plain(),
        ntk(2.0 * 3 - 1),  # s·n/L − (s − 1) = 5
        "the base was not raised (NTK skipped)",
        id="dynamic-base-not-raised",
    ),
    pytest.param(
        {"scaling": "yarn", "factor": 32.0},
        "auto",
        yarn(32.0, truncate=False),
        yarn(32.0),
        "YaRN&#x27;s truncate was False where the config says True",
        id="yarn-truncate",
    ),
    pytest.param(
        YARN_LONG,
        "auto",
        yarn(16.0, clamp=D // 2 - 1, context=65536),
        yarn(16.0, context=65536),
        "YaRN&#x27;s high bound was clamped at d/2 - 1 instead of d - 1",
        id="yarn-high-bound",
    ),
    pytest.param(
        LLAMA31,
        "auto",
        llama3(True),
        llama3(False),
        "Llama 3&#x27;s smoothing was interpolated linearly in wavelength",
        id="llama3-wavelength",
    ),
    pytest.param(
        {"scaling": "none"},
        "interleaved",
        plain() + plain(),  # GPT-NeoX: cat(freqs, freqs)
        plain(),
        "NeoX (half-split) and interleaved pairing confused: the vector is half-split, "
        "the model pairs interleaved",
        id="pairing",
    ),
    pytest.param(
        {"scaling": "none"},
        "auto",
        [1 / BASE ** (i / D) for i in range(D // 2)],
        plain(),
        "the exponent uses i / d instead of 2i / d",
        id="exponent-i",
    ),
]


@pytest.mark.parametrize(("state", "pairing", "theirs", "expected", "named"), BUGS)
def test_each_known_bug_is_named_with_the_pairs_where_it_shows(
    state, pairing, theirs, expected, named
):
    view = make(pairing, **state)
    view.check_text(pasted(theirs))
    assert "pe-ropecheck-mistake" in verdict(view)
    assert f"Likely bug: {named}" in verdict(view)
    per_pair = theirs[: D // 2] if len(theirs) == D else theirs
    differs = np.flatnonzero(relative(per_pair, expected) > TOLERANCE)
    shown = traces(view)
    assert np.allclose(shown["expected θ′ᵢ"]["y"], expected, rtol=1e-9)
    assert np.allclose(shown["yours"]["y"], per_pair, rtol=1e-12)
    if differs.size:
        ringed = shown[f"pairs where it differs ({differs.size})"]
        assert list(ringed["x"]) == list(differs)
        assert f"it shows in pairs {differs[0]}, " in verdict(view)


def test_a_correct_array_matches_even_in_float32():
    view = make(scaling="yarn", factor=32.0)
    view.check_file(npy(np.asarray(yarn(32.0), dtype=np.float32)), "inv_freq.npy")
    assert "pe-ropecheck-match" in verdict(view) and "It matches the config." in verdict(view)
    assert "64 numbers (float32)" in verdict(view)
    error = relative(np.asarray(yarn(32.0), dtype=np.float32), yarn(32.0))
    assert np.allclose(traces(view)["relative error |yours − expected| / expected"]["customdata"],
                       error, rtol=1e-6, atol=1e-12)  # fmt: skip


def test_the_verdict_follows_the_config():
    view = make(scaling="pi", factor=4.0)
    view.check_text(pasted([t / 4 for t in plain()]))
    assert "It matches the config." in verdict(view)
    view.state.factor = 8.0
    assert "It does not match" in verdict(view)
    view.state.factor = 4.0
    assert "It matches the config." in verdict(view)


@pytest.mark.parametrize("shape", [(1, 64), (64, 1), (1, 1, 64)])
def test_a_npy_upload_of_a_vector_with_extra_axes_is_read(shape):
    view = make(scaling="none")
    view._file.param.update(value=npy(np.asarray(plain()).reshape(shape)), filename="f.npy")
    assert "It matches the config." in verdict(view)


def test_a_per_dimension_vector_is_read_in_the_pairing_chosen():
    interleaved = [t for t in plain() for _ in (0, 1)]  # GPT-J: repeat_interleave
    view = make(scaling="none")
    view.check_text(pasted(interleaved))
    assert "It matches the config." in verdict(view)
    assert "128 numbers (float64), read as one per dimension" in verdict(view)
    view.pairing = "half-split"
    assert "pairing confused: the vector is interleaved, the model pairs half-split" in verdict(
        view
    )


BAD_PASTES = [
    (pasted(plain()[:63]), "d_head / 2 = 64 numbers (one per pair), or d_head = 128"),
    (pasted(plain()[:63] + [float("nan")]), "NaN or infinity at number 64"),
    ("1.0, abc, 0.5", "not numeric: number 2 is &#x27;abc&#x27;"),
    ("1.0, 0, 0.5", "number 2 is 0: every frequency must be positive"),
    ("tensor([1.0000, 0.8660, ...])", "not the whole array"),
]


@pytest.mark.parametrize(("text", "message"), BAD_PASTES)
def test_a_bad_paste_gets_its_message_and_the_expected_figure(text, message):
    view = make()
    view._text.value = text
    assert "pe-ropecheck-error" in verdict(view)
    assert "Not checked: " in verdict(view) and message in verdict(view)
    assert view.figure()["layout"]["title"]["text"].startswith("The expected inv_freq")
    assert not view._error.visible
    assert "yours was not read" in view._plot.label


@pytest.mark.parametrize(
    "text", ["<img src=x onerror=alert(1)>", "1, <b>2</b>", "<script>alert(1)</script>"]
)
def test_hostile_text_is_shown_as_text(text):
    view = make()
    view.check_text(text)
    shown = verdict(view) + view._data.object
    assert "&lt;" in verdict(view) and "<img" not in shown and "<script" not in shown
    assert "<b>2" not in shown


def test_a_huge_paste_is_refused_with_a_message():
    view = make()
    view.check_text("0.5, " * 100_000)
    assert "over the size cap: the text has 500,000 characters" in verdict(view)
    view.check_text("0.5 " * 5000)
    assert "over the size cap: 5,000 numbers" in verdict(view)


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"", "f.npy", "empty file"),
        (npy(np.ones((8, 64))), "f.npy", "wrong shape (8, 64): give a vector"),
        (npy(np.ones(4096)), "f.npy", "over the size cap: 4,096 numbers"),
        (npy(np.array([1.0, "a"], dtype=object), allow_pickle=True), "f.npy", "never unpickled"),
        (npy(np.ones(64))[:-16], "f.npy", "cut short"),
        (b"PK\x03\x04 zip", "f.npz", "never opened"),
        (b"\xff\xfe\x00binary", "f.bin", "never opened"),
        (b"\xff\xfe\x00binary", "f.txt", "neither a .npy file nor text"),
        (b"0" * (2 << 20), "f.txt", "over the size cap: the file has 2,097,152 bytes"),
    ],
)
def test_a_bad_file_gets_its_message(data, filename, message):
    view = make()
    view.check_file(data, filename)
    assert "Not checked: " in verdict(view) and message in verdict(view)
    assert not view._error.visible


def test_a_text_file_with_a_header_is_read():
    view = make(scaling="none")
    view.check_file(("inv_freq\n" + "\n".join(map(repr, plain()))).encode(), "inv_freq.csv")
    assert "It matches the config." in verdict(view)


def test_a_printed_tensor_is_read():
    view = make(scaling="none")
    view.check_text(f"tensor([{pasted(plain())}], dtype=torch.float64)")
    assert "It matches the config." in verdict(view)


def test_an_empty_box_clears_the_check():
    view = make()
    view._text.value = pasted(plain())
    assert "Checked: 64 numbers" in verdict(view)
    view._text.value = ""
    assert "No inv_freq yet" in verdict(view)


@pytest.mark.parametrize(
    ("state", "label", "named"),
    [
        ({"scaling": "none"}, "exponent i/d, not 2i/d", "the exponent uses i / d"),
        ({"scaling": "pi"}, "the scaling ignored", "the scaling was ignored"),
        ({"scaling": "ntk"}, "NTK&#x27;s base not raised", "the base was not raised"),
        ({"scaling": "dynamic"}, "NTK&#x27;s base not raised", "the base was not raised"),
        ({"scaling": "yarn"}, "YaRN&#x27;s truncate off", "YaRN&#x27;s truncate was False"),
        ({"scaling": "llama3"}, "the scaling ignored", "the scaling was ignored"),
        ({"scaling": "longrope", "longrope_factors": "2 " * 64}, "the scaling ignored",
         "the scaling was ignored"),
    ],
)  # fmt: skip
def test_the_examples_show_both_verdicts_under_honest_labels(state, label, named):
    view = make(**state)
    view._right_example.clicks += 1
    assert "It matches the config." in verdict(view)
    assert view._text.value.count(",") == D // 2 - 1
    assert view._buggy_example.label == f"Try a buggy one ({label.replace('&#x27;', chr(39))})"
    view._buggy_example.clicks += 1
    assert f"Likely bug: {named}" in verdict(view)


def test_no_buggy_example_is_offered_when_none_shows():
    """With d_head 2 every inv_freq is [1]: no mistake changes it."""
    view = make(scaling="none", d_model=2)
    assert view._buggy_example.disabled and view._buggy_example.label == "Try a buggy one"
    view.try_example(buggy=True)
    assert "No inv_freq yet" in verdict(view)


@pytest.mark.parametrize(
    ("factors", "message"),
    [("", "LongRoPE needs 64 per-pair factors (d_head / 2)"),
     ("1 2 3", "factors must be 64 numbers"), ("1e", "LongRoPE factor 1 is not a number")],
)  # fmt: skip
def test_a_config_that_cannot_be_computed_says_why(factors, message):
    view = make(scaling="longrope", longrope_factors=factors)
    view.check_text(pasted(plain()))
    assert "Not checked: the config cannot be computed" in verdict(view)
    assert message in verdict(view)
    assert view.figure()["layout"]["title"]["text"] == "The config cannot be computed"
    assert view._plot.label.startswith("No chart: the RoPE config cannot be computed")
    assert view._right_example.disabled and view._buggy_example.disabled
    assert view._data.object


def test_the_name_gives_the_verdict_the_worst_pair_and_the_largest_error():
    view = make(scaling="ntk", factor=8.0)
    view.check_text(pasted(plain()))
    error = relative(plain(), ntk(8.0))
    worst = int(np.argmax(error))
    label = view._plot.label
    assert label.startswith("Your inv_freq, 64 numbers, against NTK-aware, d_head 128")
    assert "likely bug: the base was not raised (NTK skipped)" in label
    assert label.endswith(f"worst at pair {worst}, max relative error {error.max():.3g}")
    assert "\n" not in label


def test_the_name_before_any_array_gives_the_expected_ends():
    name = view_spec("ropecheck").describe(ExplorerState(scaling="pi", factor=2.0))
    assert f"from {1 / 2:.6g} (pair 0) to {theta(63) / 2:.6g} (pair 63)" in name


def test_the_data_lists_yours_the_expected_and_the_relative_error():
    view = make(scaling="ntk", factor=8.0)
    view.check_text(pasted(plain()))
    table = view.data_table()
    assert table.columns == ("pair", "yours", "expected", "relative error")
    error, expected = relative(plain(), ntk(8.0)), ntk(8.0)
    assert 0 < len(table.rows) <= 16
    assert int(np.argmax(error)) in [row[0] for row in table.rows]
    for pair, theirs, wanted, rel in table.rows:
        assert float(theirs) == pytest.approx(plain()[pair], rel=1e-7)
        assert float(wanted) == pytest.approx(expected[pair], rel=1e-7)
        assert float(rel) == pytest.approx(error[pair], rel=1e-2, abs=1e-15)


def run(script: str) -> dict:
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(script, "<code>", "exec"), namespace)
    return namespace


CODE_STATES = {
    "none": ({"scaling": "none"}, plain()),
    "pi": ({"scaling": "pi", "factor": 4.0}, [t / 4 for t in plain()]),
    "ntk": ({"scaling": "ntk", "factor": 8.0}, ntk(8.0)),
    "dynamic": ({"scaling": "dynamic", "factor": 2.0, "seq_len": 3 * L}, ntk(5.0)),
    "yarn": ({"scaling": "yarn", "factor": 32.0}, yarn(32.0)),
    "yarn-untruncated": ({"scaling": "yarn", "factor": 32.0, "truncate": False},
                         yarn(32.0, truncate=False)),
    "llama3": ({"scaling": "llama3", "factor": 8.0, "base": 500000.0, "original_context": 8192},
               llama3(False)),
    "longrope": ({"scaling": "longrope", "longrope_factors": ", ".join(["1.5"] * 32 + ["3"] * 32)},
                 [t / (1.5 if i < 32 else 3) for i, t in enumerate(plain())]),
}  # fmt: skip


@pytest.mark.parametrize("case", CODE_STATES)
def test_the_code_computes_the_expected_inv_freq_from_the_published_formulas(case):
    state, expected = CODE_STATES[case]
    script = ropecheck.code(ExplorerState(**state))
    assert "pe_explorer" not in script and script.startswith("import math\n\nimport numpy as np\n")
    namespace = run(script)
    assert np.allclose(namespace["expected"], expected, rtol=1e-12)
    shown = traces(make(**state))["expected θ′ᵢ"]["y"]
    assert np.allclose(namespace["expected"], shown, rtol=1e-12)
    assert namespace["differs"].size == 0


def test_the_code_compares_the_array_given():
    view = make(scaling="ntk", factor=8.0)
    view.check_text(pasted(plain()))
    namespace = run(view.code())
    error = relative(plain(), ntk(8.0))
    assert np.allclose(namespace["relative_error"], error, rtol=1e-9)
    shown = traces(view)["relative error |yours − expected| / expected"]["customdata"]
    assert np.allclose(namespace["relative_error"], shown, rtol=1e-9)
    assert list(namespace["differs"]) == list(np.flatnonzero(error > TOLERANCE))


def test_a_published_models_layer_type_sets_the_reference():
    """Choosing a model sets the card's controls to its layer type, as transformers reads it."""
    from pe_explorer.views import VIEWS

    spec = next(s for s in VIEWS if s.name == "ropecheck")
    state = ExplorerState()
    view = spec.make(state)
    reference = view._reference
    reference._model.value = "llama-3.1-8b"
    assert (state.scaling, state.factor, state.base, state.d_model) == ("llama3", 8.0, 5e5, 128)
    assert state.original_context == 8192 and "full_attention" in reference._note.object
    reference._model.value = "gemma-3-4b-it"
    assert reference._layer.visible and len(reference._layer.options) == 2
    reference._layer.value = next(o for o in reference._layer.options if o.startswith("full"))
    assert (state.scaling, state.factor, state.base, state.d_model) == ("pi", 8.0, 1e6, 256)
    reference._model.value = "llama-4-scout-17b-16e"
    assert "Not applied" in reference._note.object
    reference._model.value = "phi-3-mini-128k-instruct"
    assert state.scaling == "longrope" and len(state.longrope_factors.split(",")) == 48

"""The RoPE scaling view: each pair's divisor, the bands, the score curves and the presets.

Expected numbers are closed forms computed here with math, from the published formulas
(transformers' modeling_rope_utils.py, Meta's apply_scaling, the YaRN authors' code), never
with the functions the view calls.
"""

from __future__ import annotations

import contextlib
import html
import io
import math
import re

import numpy as np
import panel as pn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pe_explorer import derived
from pe_explorer.plotkit.frame import data_html
from pe_explorer.scaling import SCALING_LABELS, SCALINGS
from pe_explorer.state import ExplorerState
from pe_explorer.views import scaling, view_spec

# 0.1 ln 32 + 1: YaRN's attention factor at s = 32 (NousResearch/Yarn-Llama-2-7b-128k).
YARN_128K_ATTENTION = 1.3465735902799727


def theta(d: int, base: float) -> list[float]:
    """RoPE's θ_i = base^(−2i/d)."""
    return [base ** (-2 * i / d) for i in range(d // 2)]


def longrope_text(d: int) -> str:
    """d/2 valid LongRoPE factors: 1, 1.5, 2, … (pair i divided by 1 + i/2)."""
    return ", ".join(str(1 + i / 2) for i in range(d // 2))


def trace(figure: dict, name: str) -> dict:
    (found,) = [t for t in figure["data"] if t["name"] == name]
    return found


def score_traces(figure: dict) -> list[dict]:
    return [t for t in figure["data"] if t.get("xaxis") == "x3"]


def readout_number(text: str, css: str) -> float:
    (value,) = re.findall(rf'<span class="{css}">([^<]*)</span>', text)
    return float(value.replace("\u2212", "-"))


def counts(text: str) -> tuple[int, int, int]:
    return tuple(
        int(readout_number(text, f"pe-scaling-{band}"))
        for band in ("kept", "ramped", "interpolated")
    )


# The divisor and the wavelengths against closed forms.


@pytest.mark.parametrize("factor", [1.5, 4.0, 32.0, 128.0])
@pytest.mark.parametrize("d_model", [8, 128])
def test_position_interpolation_divides_every_pair_by_s(factor, d_model):
    state = ExplorerState(scaling="pi", factor=factor, d_model=d_model)
    divisor = trace(scaling.figure(state), "θ_i / θ'_i, Position Interpolation")["y"]
    np.testing.assert_allclose(divisor, [factor] * (d_model // 2), rtol=1e-12)
    assert counts(scaling.readout(state)) == (0, 0, d_model // 2)


@pytest.mark.parametrize(
    ("d_model", "base", "factor"), [(128, 10000.0, 4.0), (64, 500000.0, 8.0), (4, 10.0, 2.0)]
)
def test_ntk_raises_the_base_to_base_times_s_to_the_d_over_d_minus_2(d_model, base, factor):
    state = ExplorerState(scaling="ntk", d_model=d_model, base=base, factor=factor)
    new_base = base * factor ** (d_model / (d_model - 2))
    expected = [2 * math.pi / t for t in theta(d_model, new_base)]
    figure = scaling.figure(state)
    np.testing.assert_allclose(trace(figure, "λ'_i after NTK-aware")["y"], expected, rtol=1e-12)
    before = [2 * math.pi / t for t in theta(d_model, base)]
    np.testing.assert_allclose(trace(figure, "λ_i before")["y"], before, rtol=1e-12)
    # The fastest pair keeps its frequency; the slowest is divided by s exactly.
    divisor = trace(figure, "θ_i / θ'_i, NTK-aware")["y"]
    assert divisor[0] == 1.0
    assert divisor[-1] == pytest.approx(factor, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    d_model=st.integers(2, 64).map(lambda half: 2 * half),
    base=st.floats(10.0, 1e6),
    factor=st.floats(1.0, 128.0),
)
def test_ntk_divisor_is_s_to_the_2i_over_d_minus_2(d_model, base, factor):
    state = ExplorerState(scaling="ntk", d_model=d_model, base=base, factor=factor)
    divisor = derived.scaled_rope(state).divisor
    expected = [factor ** (2 * i / (d_model - 2)) for i in range(d_model // 2)]
    np.testing.assert_allclose(divisor, expected, rtol=1e-9)


@pytest.mark.parametrize(("seq_len", "factor"), [(16384, 4.0), (5000, 4.0), (1000, 8.0)])
def test_dynamic_ntk_grows_the_base_with_the_sequence_length(seq_len, factor):
    state = ExplorerState(scaling="dynamic", seq_len=seq_len, factor=factor)
    n = max(seq_len, 4096)
    new_base = 10000.0 * (factor * n / 4096 - (factor - 1)) ** (128 / 126)
    np.testing.assert_allclose(derived.scaled_rope(state).scaled, theta(128, new_base), rtol=1e-12)


def yarn_range(d: int, base: float, context: int, beta_fast: float, beta_slow: float):
    """YaRN's find_correction_range with truncate: d·ln(L / (2π·β)) / (2 ln base), floored for
    β_fast and ceiled for β_slow, clamped to 0 … d − 1."""

    def dim(turns):
        return d * math.log(context / (2 * math.pi * turns)) / (2 * math.log(base))

    return max(math.floor(dim(beta_fast)), 0), min(math.ceil(dim(beta_slow)), d - 1)


@pytest.mark.parametrize(
    ("d_model", "base", "context", "beta_fast", "beta_slow"),
    [
        (128, 10000.0, 4096, 32.0, 1.0),
        (128, 500000.0, 8192, 32.0, 1.0),
        (64, 10000.0, 2048, 16.0, 2.0),
        (256, 1000.0, 65536, 64.0, 0.5),
    ],
)
def test_yarn_bands_follow_the_correction_range(d_model, base, context, beta_fast, beta_slow):
    state = ExplorerState(
        scaling="yarn",
        d_model=d_model,
        base=base,
        original_context=context,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        factor=8.0,
    )
    low, high = yarn_range(d_model, base, context, beta_fast, beta_slow)
    pairs = d_model // 2
    # ramp_i = clip((i − low) / (high − low), 0, 1): 0 (kept) up to low, 1 (÷ s) from high.
    left_alone = min(low + 1, pairs)
    divided = max(pairs - high, 0)
    expected = (left_alone, pairs - left_alone - divided, divided)
    assert counts(scaling.readout(state)) == expected
    name = scaling.describe(state)
    assert (
        f"{expected[0]} pairs left alone, {expected[1]} ramped, {expected[2]} interpolated" in name
    )
    ramp = [min(max((i - low) / (high - low), 0.0), 1.0) for i in range(pairs)]
    scaled = [t / 8.0 * r + t * (1 - r) for t, r in zip(theta(d_model, base), ramp, strict=True)]
    np.testing.assert_allclose(derived.scaled_rope(state).scaled, scaled, rtol=1e-12)


def test_the_default_yarn_bands_are_named_on_the_chart():
    # d 128, base 10 000, L 4096: low = floor(20.9) = 20, high = ceil(45.03) = 46.
    state = ExplorerState()
    figure = scaling.figure(state)
    names = [a["text"] for a in figure["layout"]["annotations"] if a.get("xref") == "x"]
    assert names == ["left alone", "ramped", "interpolated"]
    bands = [s for s in figure["layout"]["shapes"] if s["type"] == "rect"]
    assert len(bands) == 3 and all(s["yref"] == "y domain" for s in bands)
    assert counts(scaling.readout(state)) == (21, 25, 18)
    # The ramped band spans the wavelengths λ_i / L of pairs 21 … 45.
    ratio = [2 * math.pi / t / 4096 for t in theta(128, 10000.0)]
    assert bands[1]["x0"] == pytest.approx(math.sqrt(ratio[20] * ratio[21]))
    assert bands[1]["x1"] == pytest.approx(math.sqrt(ratio[45] * ratio[46]))


def test_without_truncate_the_ramp_ends_at_fractional_pairs():
    state = ExplorerState(scaling="yarn", truncate=False)
    dim = [128 * math.log(4096 / (2 * math.pi * b)) / (2 * math.log(10000)) for b in (32, 1)]
    ramp = [min(max((i - dim[0]) / (dim[1] - dim[0]), 0.0), 1.0) for i in range(64)]
    expected = [1 / (r / 4 + (1 - r)) for r in ramp]
    np.testing.assert_allclose(derived.scaled_rope(state).divisor, expected, rtol=1e-12)


def test_llama_31_8b_keeps_short_wavelengths_and_divides_long_ones_by_8():
    view = view_spec("scaling").make(ExplorerState(scaling="none"))
    view.apply_preset(scaling.PRESETS[1])
    state = view.state
    wavelengths = [2 * math.pi / t for t in theta(128, 500000.0)]
    short = [i for i, w in enumerate(wavelengths) if w < 8192 / 4]
    long = [i for i, w in enumerate(wavelengths) if w > 8192]
    assert (len(short), len(long)) == (29, 29)
    divisor = trace(view.figure(), "θ_i / θ'_i, Llama 3")["y"]
    np.testing.assert_allclose(divisor[short], 1.0, rtol=1e-12)
    np.testing.assert_allclose(divisor[long], 8.0, rtol=1e-12)
    # Between: θ' = (1 − σ) θ / 8 + σ θ, σ = (L / λ − 1) / (4 − 1).
    for i in sorted(set(range(64)) - set(short) - set(long)):
        smooth = (8192 / wavelengths[i] - 1) / 3
        assert 1 / divisor[i] == pytest.approx((1 - smooth) / 8 + smooth, rel=1e-12)
    assert counts(scaling.readout(state)) == (29, 64 - 58, 29)


@pytest.mark.parametrize("factor", [2.0, 32.0])
def test_longrope_divides_each_pair_by_its_factor(factor):
    state = ExplorerState(scaling="longrope", d_model=16, longrope_factors=longrope_text(16))
    state.factor = factor
    shown = derived.scaled_rope(state)
    np.testing.assert_allclose(shown.divisor, [1 + i / 2 for i in range(8)], rtol=1e-12)
    assert shown.attention_factor == pytest.approx(
        math.sqrt(1 + math.log(factor) / math.log(4096)), rel=1e-12
    )


# Presets.


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (0, {"d_model": 128, "base": 10000.0, "original_context": 4096, "scaling": "ntk"}),
        (
            1,
            {
                "d_model": 128,
                "base": 500000.0,
                "original_context": 8192,
                "scaling": "llama3",
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
            },
        ),
        (
            2,
            {
                "d_model": 128,
                "base": 10000.0,
                "original_context": 4096,
                "scaling": "yarn",
                "factor": 32.0,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "truncate": True,
            },
        ),
    ],
    ids=["llama2", "llama31", "yarn128k"],
)
def test_a_preset_button_sets_what_it_says_in_one_update(index, expected):
    # Start away from every preset: the Llama 2 preset leaves the scaling method as chosen.
    state = ExplorerState(
        d_model=64, base=1000.0, original_context=2048, scaling="ntk", factor=2.0, beta_slow=2.0
    )
    view = view_spec("scaling").make(state)
    updates = []
    state.param.watch(lambda *events: updates.append(events), list(expected))
    button = view._presets[index]
    button.clicks += 1
    assert {name: getattr(state, name) for name in expected} == expected
    assert len(updates) == 1
    assert button.description and scaling.PRESETS[index].label == button.label


def test_the_yarn_128k_preset_has_its_published_attention_factor():
    state = ExplorerState()
    view = view_spec("scaling").make(state)
    view.apply_preset(scaling.PRESETS[2])
    assert 0.1 * math.log(32) + 1 == YARN_128K_ATTENTION
    assert derived.scaled_rope(state).attention_factor == pytest.approx(YARN_128K_ATTENTION, 1e-15)
    text = view._readout.object
    assert readout_number(text, "pe-scaling-attention") == pytest.approx(YARN_128K_ATTENTION)
    multiplier = readout_number(text, "pe-scaling-logit-multiplier")
    # The readout prints nine decimals (plotkit.numbers.READOUT_DIGITS).
    assert multiplier == pytest.approx(YARN_128K_ATTENTION**2, abs=5e-10)
    assert view.description().endswith("attention factor 1.3466")


def test_the_presets_name_their_sources_in_the_card():
    view = view_spec("scaling").make(ExplorerState())
    page = "".join(pane.object for pane in view.__panel__().select(pn.pane.HTML))
    assert "NousResearch/Yarn-Llama-2-7b-128k" in page
    assert "meta-llama/Llama-3.1-8B" in page
    assert html.escape('{"type": "yarn", "factor": 32.0') in page


# The attention factor on a row of logits.


def test_the_logits_are_multiplied_by_the_attention_factor_squared():
    state = ExplorerState(scaling="yarn", factor=16.0)
    a = 0.1 * math.log(16) + 1
    logits = [2 - 4 * j / 15 for j in range(16)]

    def softmax(values):
        top = max(values)
        weights = [math.exp(v - top) for v in values]
        return [w / sum(weights) for w in weights]

    before, after = softmax(logits), softmax([z * a * a for z in logits])
    figure = scaling.figure(state)
    np.testing.assert_allclose(trace(figure, "softmax of the logits")["y"], before, rtol=1e-12)
    bars = trace(figure, f"softmax of logits × {a * a:.4f}")["y"]
    np.testing.assert_allclose(bars, after, rtol=1e-12)
    text = scaling.readout(state)
    assert readout_number(text, "pe-scaling-peak-after") == round(after[0], 4)
    entropy = -sum(w * math.log(w) for w in after)
    assert readout_number(text, "pe-scaling-entropy-after") == round(entropy, 4)
    assert readout_number(text, "pe-scaling-entropy-before") > round(entropy, 4)


@pytest.mark.parametrize("method", ["none", "pi", "ntk", "dynamic", "llama3"])
def test_methods_without_a_temperature_leave_the_logits_alone(method):
    state = ExplorerState(scaling=method)
    assert readout_number(scaling.readout(state), "pe-scaling-logit-multiplier") == 1.0


# The score curves.


@pytest.mark.parametrize("chosen", SCALINGS)
def test_every_methods_score_is_one_at_offset_zero(chosen):
    state = ExplorerState(scaling=chosen, longrope_factors=longrope_text(128))
    traces = score_traces(scaling.figure(state))
    assert [t["name"].removesuffix(" (chosen)") for t in traces] == [
        "original (none)",
        *(SCALING_LABELS[m] for m in SCALINGS[1:]),
    ]
    for curve in traces:
        assert curve["x"][0] == 0 and curve["y"][0] == pytest.approx(1.0, abs=1e-6)
    (highlighted,) = [t for t in traces if t["name"].endswith("(chosen)")]
    assert highlighted["line"]["width"] > max(
        t["line"]["width"] for t in traces if t is not highlighted
    )


@pytest.mark.parametrize("method", ["pi", "ntk", "yarn"])
def test_a_score_curve_is_the_mean_cosine_of_the_scaled_angles(method):
    state = ExplorerState(scaling=method, factor=8.0)
    curve = next(t for t in score_traces(scaling.figure(state)) if t["name"].endswith("(chosen)"))
    scaled = derived.scaled_rope(state).scaled  # checked against the closed forms above
    for index in (1, 7, 100, len(curve["x"]) - 1):
        m = curve["x"][index]
        expected = sum(math.cos(m * t) for t in scaled) / 64
        assert curve["y"][index] == pytest.approx(expected, abs=1e-5)
    # Position Interpolation reads offset m as the original model read m / s.
    if method == "pi":
        original = [sum(math.cos(m / 8 * t) for t in theta(128, 10000.0)) / 64 for m in (8, 80)]
        at = [list(curve["x"]).index(m) for m in (8, 80)]
        np.testing.assert_allclose(curve["y"][at], original, atol=1e-5)


@pytest.mark.parametrize(
    ("factor", "context", "d_model"), [(4.0, 4096, 128), (128.0, 1 << 20, 2048), (1.0, 16, 2)]
)
def test_the_offsets_run_from_0_to_s_l_with_l_marked_in_few_points(factor, context, d_model):
    state = ExplorerState(factor=factor, original_context=context, d_model=d_model)
    figure = scaling.figure(state)
    offsets = score_traces(figure)[0]["x"]
    end = math.ceil(factor * context)
    assert offsets[0] == 0 and offsets[-1] == end and context in offsets
    assert len(offsets) <= 2048 and np.all(np.diff(offsets) > 0)
    assert np.array_equal(offsets, np.rint(offsets))
    # Every offset while they are close: 0, 1, 2, … 10 at least.
    assert list(offsets[: min(11, end + 1)]) == list(range(min(11, end + 1)))
    lines = [s for s in figure["layout"]["shapes"] if s.get("xref") == "x3"]
    assert [line["x0"] for line in lines] == [context]


def test_the_wavelength_panel_marks_l_and_s_l():
    figure = scaling.figure(ExplorerState(factor=4.0, original_context=4096))
    lines = [s for s in figure["layout"]["shapes"] if s.get("yref") == "y2"]
    assert [line["y0"] for line in lines] == [4096, 16384]
    texts = [a["text"] for a in figure["layout"]["annotations"] if a.get("yref") == "y2"]
    assert texts == ["L = 4\u2009096", "s·L = 16\u2009384"]


# Bad settings: a message, never a traceback.


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "LongRoPE needs 64 per-pair factors"),
        ("1, 2, 3", "factors must be 64 numbers (one per pair: d_head / 2), got 3"),
        (", ".join(["1"] * 63 + ["1e"]), "LongRoPE factor 64 is not a number: '1e'"),
        (", ".join(["1"] * 63 + ["--2"]), "is not a number: '--2'"),
        (", ".join(["1"] * 10 + ["0"] + ["1"] * 53), "factor 11 is 0: each must be a finite"),
        (", ".join(["1"] * 63 + ["1e999"]), "LongRoPE factor 64 is 1e999: each must be"),
        (", ".join(["1"] * 63 + ["-1"]), "LongRoPE factor 64 is -1: each must be"),
    ],
)
def test_bad_longrope_factors_get_a_message_and_draw_the_model_unscaled(text, message):
    state = ExplorerState(scaling="longrope", longrope_factors=text)
    view = view_spec("scaling").make(state)
    assert not view._error.visible
    readout = view._readout.object
    assert 'role="alert"' in readout and html.escape(message) in readout
    assert "LongRoPE (not applied: " in view.description()
    names = [t["name"] for t in score_traces(view.figure())]
    assert "LongRoPE (chosen)" not in names and "LongRoPE" not in names
    assert np.array_equal(derived.scaled_rope(state).divisor, np.ones(64))


def test_invalid_method_settings_are_named_not_raised():
    state = ExplorerState(scaling="yarn", beta_fast=1.0, beta_slow=2.0)
    readout = scaling.readout(state)
    assert "beta_fast (1) must be greater than beta_slow (2)" in readout
    state = ExplorerState(scaling="llama3", low_freq_factor=8.0, high_freq_factor=4.0)
    assert "must be greater than low_freq_factor" in scaling.readout(state)
    # NTK needs d_head ≥ 4; the other curves are still drawn.
    state = ExplorerState(scaling="ntk", d_model=2)
    assert "d_head must be &gt;= 4" in scaling.readout(state)
    assert len(score_traces(scaling.figure(state))) == 4  # none, PI, YaRN, Llama 3


def test_other_methods_that_cannot_be_drawn_are_listed_under_the_chart():
    readout = scaling.readout(ExplorerState(scaling="yarn"))
    assert "LongRoPE is not drawn: LongRoPE needs 64 per-pair factors" in readout
    assert "LongRoPE is not drawn" not in scaling.readout(
        ExplorerState(longrope_factors=longrope_text(128))
    )


# The accessible name, the data table and the code.


@pytest.mark.parametrize("method", ["pi", "yarn"])
def test_the_name_gives_method_factor_bands_slowest_wavelength_and_attention(method):
    state = ExplorerState(scaling=method, factor=4.0)
    name = scaling.describe(state)
    slowest = 2 * math.pi * 10000 ** (126 / 128) * 4  # both interpolate the slowest pair
    attention = 0.1 * math.log(4) + 1 if method == "yarn" else 1.0
    assert name.startswith(f"RoPE scaling by {SCALING_LABELS[method]}, factor s = 4 over a trained")
    assert "L = 4096" in name
    assert f"becomes {slowest:.4f} positions" in name
    assert name.endswith(f"attention factor {attention:.4f}")
    assert "\n" not in name and "<" not in name


def test_the_table_lists_every_pair_and_marks_each_band_edge():
    state = ExplorerState()
    table = scaling.data(state)
    pairs = [row[0] for row in table.rows]
    assert pairs == list(range(64))
    assert table.marked == {0, 1, 20, 21, 45, 46, 62, 63}
    t = theta(128, 10000.0)
    for row in table.rows:
        i, theta_i, _, divisor, wavelength, _, band = row
        assert float(theta_i) == pytest.approx(t[i], rel=1e-5)
        assert float(wavelength) == pytest.approx(2 * math.pi / t[i], rel=1e-5)
        assert band == ("kept" if i <= 20 else "interpolated" if i >= 46 else "ramped")
        assert divisor == pytest.approx(1.0 if i <= 20 else 4.0 if i >= 46 else divisor)
    assert table.note.startswith("Marked: ")
    assert "<table" in data_html(table)


def test_a_head_of_more_than_512_dimensions_lists_16_pairs_with_each_band_edge():
    table = scaling.data(ExplorerState(d_model=1024))
    pairs = [row[0] for row in table.rows]
    assert len(pairs) == 16 and pairs == sorted(set(pairs))
    assert {0, 1, 510, 511} <= set(pairs)
    assert "16 of 512 pairs shown" in table.note and not table.marked


def test_a_small_model_lists_every_pair():
    table = scaling.data(ExplorerState(d_model=8, scaling="pi", factor=2.0))
    assert [row[0] for row in table.rows] == [0, 1, 2, 3]
    assert [row[3] for row in table.rows] == [2.0] * 4


def run(script: str) -> dict:
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(script, "<scaling code>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize(
    "values",
    [
        {"scaling": "none"},
        {"scaling": "pi", "factor": 8.0},
        {"scaling": "ntk", "base": 500000.0},
        {"scaling": "dynamic", "seq_len": 50000},
        {"scaling": "yarn"},
        {"scaling": "yarn", "truncate": False, "factor": 32.0},
        {"scaling": "llama3", "base": 500000.0, "original_context": 8192, "factor": 8.0},
        {"scaling": "longrope", "d_model": 16, "longrope_factors": longrope_text(16)},
        {"scaling": "longrope", "longrope_factors": "1, 2"},
    ],
    ids=lambda values: "-".join(str(v) for v in values.values())[:30],
)
def test_the_code_recomputes_the_views_numbers_with_numpy_alone(values):
    state = ExplorerState(**values)
    script = scaling.code(state)
    imports = re.findall(r"^(?:import|from) .*$", script, re.MULTILINE)
    assert imports == ["import math", "import numpy as np"]
    namespace = run(script)
    shown = derived.scaled_rope(state)
    np.testing.assert_allclose(namespace["inv_freq"], shown.scaled, rtol=1e-12)
    np.testing.assert_allclose(namespace["divisor"], shown.divisor, rtol=1e-12)
    assert namespace["attention_factor"] == pytest.approx(shown.attention_factor, rel=1e-12)


def test_the_view_follows_the_method_parameters_of_every_curve():
    # Each curve is drawn whatever the chosen method, so its parameters change the chart.
    before = scaling.figure(ExplorerState(scaling="yarn"))
    after = scaling.figure(ExplorerState(scaling="yarn", seq_len=3 * 16384))
    dynamic = [score_traces(f)[3]["y"] for f in (before, after)]
    assert not np.array_equal(*dynamic)
    assert "seq_len" in view_spec("scaling").follows

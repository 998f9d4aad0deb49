"""The table of rope types (pe_explorer.rope_types) against transformers' own functions
(`ROPE_INIT_FUNCTIONS` of modeling_rope_utils.py, and the default of LlamaRotaryEmbedding) run on
the same config, and the exported scripts showing the table's own text.

inv_freq agrees to FLOAT32 (transformers computes it in float32: tests/support/transformers_rope.py
says why 1e-5); the attention factor, which it computes in Python floats, to 1e-12.
"""

from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pe_explorer import rope_types_source
from pe_explorer.code_templates import rope_check_program, rope_type_source
from pe_explorer.model import reader
from pe_explorer.model.code import model_program
from pe_explorer.rope_types import ROPE_INIT_FUNCTIONS, default_frequencies
from pe_explorer.scaling import SCALINGS, rope_type_call
from pe_explorer.state import ExplorerState
from pe_explorer.views import scaling as scaling_view

pytest.importorskip("transformers")
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS as THEIRS  # noqa: E402
from transformers_rope import FLOAT32, config, theirs  # noqa: E402

dims = st.integers(2, 128).map(lambda n: 2 * n)
bases = st.floats(100.0, 1e7)
factors = st.floats(1.0, 64.0)
contexts = st.integers(64, 1 << 17)


def same(ours: tuple, expected: tuple, rtol: float = FLOAT32) -> None:
    np.testing.assert_allclose(ours[0], expected[0], rtol=rtol, atol=0)
    assert ours[1] == pytest.approx(expected[1], rel=1e-12)


# ---- Each rope type against transformers' own function -------------------------------------


@given(dim=dims, base=bases)
def test_default_is_transformers_default(dim, base):
    expected = theirs("default", config({"rope_type": "default"}, dim, base, 4096))
    same(ROPE_INIT_FUNCTIONS["default"]({}, dim, base, 4096, 4096), expected)


@given(dim=dims, base=bases, factor=factors)
def test_linear_is_transformers_linear(dim, base, factor):
    rope = {"rope_type": "linear", "factor": factor}
    ours = ROPE_INIT_FUNCTIONS["linear"](rope, dim, base, 4096, 4096)
    same(ours, theirs("linear", config(rope, dim, base, 4096)))


@given(dim=dims.filter(lambda d: d >= 4), base=bases, factor=factors, top=contexts,
       grown=st.floats(0.25, 16.0))  # fmt: skip
def test_dynamic_is_transformers_dynamic_at_each_length(dim, base, factor, top, grown):
    """transformers' dynamic NTK grows from max_position_embeddings: ours from `original`."""
    rope, seq_len = {"rope_type": "dynamic", "factor": factor}, int(top * grown)
    ours = ROPE_INIT_FUNCTIONS["dynamic"](rope, dim, base, top, seq_len)
    same(ours, theirs("dynamic", config(rope, dim, base, top), seq_len))


yarn_extras = st.fixed_dictionaries(
    {},
    optional={
        "beta_fast": st.floats(2.0, 128.0),
        "beta_slow": st.floats(0.01, 2.0),
        "truncate": st.booleans(),
        "mscale": st.floats(0.1, 2.0),
        "mscale_all_dim": st.floats(0.1, 2.0),
        "attention_factor": st.floats(0.5, 2.0),
    },
)


@given(dim=dims, base=bases, factor=st.one_of(st.none(), factors), original=contexts,
       longer=st.integers(1, 64), extras=yarn_extras)  # fmt: skip
def test_yarn_is_transformers_yarn(dim, base, factor, original, longer, extras):
    """Its parameters drawn or left out (defaults); no factor: max_position_embeddings/original."""
    rope = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": original}
    rope |= extras
    top = original * longer
    ours = ROPE_INIT_FUNCTIONS["yarn"](rope, dim, base, original, top)
    same(ours, theirs("yarn", config(rope, dim, base, top)))


@given(dim=dims, base=bases, factor=st.one_of(st.none(), factors), original=contexts,
       attention=st.one_of(st.none(), st.floats(0.5, 2.0)), longer=st.integers(2, 64),
       seed=st.integers(0, 2**32 - 1))  # fmt: skip
def test_longrope_is_transformers_longrope_within_and_past_the_original(
    dim, base, factor, original, attention, longer, seed
):
    """A model run at its max_position_embeddings (top): the short factors when that is the
    original context, the long ones past it; no factor: top / original."""
    rng = np.random.default_rng(seed)
    rope = {
        "rope_type": "longrope",
        "factor": factor,
        "attention_factor": attention,
        "original_max_position_embeddings": original,
        "long_factor": rng.uniform(1.0, 64.0, dim // 2).tolist(),
        "short_factor": rng.uniform(0.5, 2.0, dim // 2).tolist(),
    }
    for top in (original, original * longer):
        ours = ROPE_INIT_FUNCTIONS["longrope"](rope, dim, base, original, top)
        same(ours, theirs("longrope", config(rope, dim, base, top), seq_len=top))


@given(dim=dims, base=bases, factor=factors, original=contexts,
       low=st.floats(0.5, 4.0), span=st.floats(0.0, 16.0))  # fmt: skip
def test_llama3_is_transformers_llama3_away_from_the_band_edges(
    dim, base, factor, original, low, span
):
    """low == high (span 0) as Llama 4 publishes it too. A pair whose wavelength is within 1e-5
    of a band's edge may fall in the other band in float32: it is left out."""
    rope = {
        "rope_type": "llama3",
        "factor": factor,
        "low_freq_factor": low,
        "high_freq_factor": low + span,
        "original_max_position_embeddings": original,
    }
    ours = ROPE_INIT_FUNCTIONS["llama3"](rope, dim, base, original, original)
    expected = theirs("llama3", config(rope, dim, base, original * 2))
    wavelength = 2 * math.pi / default_frequencies(dim, base)
    edges = np.array([original / low, original / (low + span)])
    clear = np.all(np.abs(wavelength[:, None] / edges - 1) > 1e-5, axis=1)
    same((ours[0][clear], ours[1]), (expected[0][clear], expected[1]))


@given(head_dim=st.integers(1, 64).map(lambda n: 8 * n), base=bases, factor=factors,
       part=st.sampled_from([0.25, 0.5, 0.75, 1.0]))  # fmt: skip
def test_proportional_is_transformers_proportional(head_dim, base, factor, part):
    rope = {"rope_type": "proportional", "factor": factor}
    rotary = int(head_dim * part)
    ours = ROPE_INIT_FUNCTIONS["proportional"](rope, rotary, base, 0, 0, head_dim)
    given_config = config(rope, head_dim, base, 4096, partial_rotary_factor=part)
    same(ours, theirs("proportional", given_config))


def test_every_transformers_rope_type_has_its_function_here():
    assert set(THEIRS) <= set(ROPE_INIT_FUNCTIONS)


# ---- The exported scripts show the table's own text -------------------------------------------


def test_the_functions_text_is_not_stale():
    from scripts.rope_sources import OUT, generate

    assert OUT.read_text(encoding="utf-8") == generate(), "run: python -m scripts.rope_sources"


def test_the_functions_text_defines_the_same_functions():
    """Run alone (NumPy and math), the shown text computes what the table computes."""
    namespace: dict = {"np": np, "math": math}
    exec(rope_type_source(*ROPE_INIT_FUNCTIONS), namespace)
    rope = {"factor": 8.0, "long_factor": [2.0] * 32, "short_factor": [1.0] * 32}
    for kind, function in ROPE_INIT_FUNCTIONS.items():
        if kind in ("proportional", "rope_freqs"):
            continue
        shown = namespace[function.__name__](rope, 64, 10000.0, 4096, 32768)
        np.testing.assert_array_equal(shown[0], function(rope, 64, 10000.0, 4096, 32768)[0])


@pytest.mark.parametrize("method", SCALINGS)
def test_the_scaling_and_checker_scripts_show_the_methods_function(method):
    state = ExplorerState(scaling=method, longrope_factors=", ".join(["2"] * 32), d_model=64)
    params = scaling_view.derived.scaling_parameters(state, method)
    arguments = (state.d_model, state.base, state.factor, state.original_context)
    kind = rope_type_call(method, *arguments, **params)[0]
    shown = rope_types_source.SOURCES[ROPE_INIT_FUNCTIONS[kind].__name__]
    assert shown in scaling_view.code(state)
    assert shown in rope_check_program(method, (method, *arguments), params)


@pytest.mark.parametrize("name", ["llama-3.1-8b", "gpt-oss-20b", "phi-3.5-mini-instruct"])
def test_the_model_script_shows_each_layer_types_function_and_agrees(name):
    model = reader.read_model(name)
    script = model_program(model)
    for layer, _ in model.layer_types():
        kind = layer.scaling.get("type", "default")
        assert rope_types_source.SOURCES[ROPE_INIT_FUNCTIONS[kind].__name__] in script
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(script, {})
    assert "same as the page: True" in out.getvalue()
    assert "same as the page: False" not in out.getvalue()

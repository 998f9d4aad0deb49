"""The NumPy scripts of Export / Code (pe_explorer.code_templates) reproduce the page's numbers."""

import numpy as np
import pytest
from pe_explorer import code_templates, encoding, methods


def run_snippet(method, **state):
    namespace = {}
    script = code_templates.method_snippet(method, **state)
    exec(compile(script, f"<{method}>", "exec"), namespace)
    return namespace


def test_snippet_rejects_a_second_position_before_zero():
    with pytest.raises(ValueError, match=r"offset must be an integer between -3 and"):
        code_templates.method_snippet(
            "rope", d_model=8, n_positions=8, pos=3, offset=-4, n_heads=8, seed=0
        )


STATES = [
    dict(d_model=8, n_positions=12, base=10000.0, layout="interleaved", pos=3, offset=4),
    dict(d_model=16, n_positions=20, base=500.0, layout="concatenated", pos=7, offset=-5),
    dict(d_model=2, n_positions=5, base=10.0, layout="concatenated", pos=0, offset=9),
    dict(d_model=64, n_positions=40, base=10000.0, layout="interleaved", pos=39, offset=0),
]


@pytest.mark.parametrize("state", STATES)
def test_sinusoidal_snippet_reproduces_the_encoding(state):
    names = run_snippet("sinusoidal", **state, n_heads=8, seed=0)
    expected = encoding.positional_encoding(
        state["n_positions"], state["d_model"], state["base"], layout=state["layout"]
    )
    np.testing.assert_allclose(names["pe"], expected, rtol=0, atol=1e-12)
    assert names["score"] == pytest.approx(
        methods.position_scores("sinusoidal", state["offset"], state["d_model"], state["base"]),
        abs=1e-12,
    )


@pytest.mark.parametrize("seed", [0, 12345])
@pytest.mark.parametrize("state", STATES)
def test_rope_snippet_reproduces_the_scores(state, seed):
    names = run_snippet("rope", **state, n_heads=8, seed=seed)
    d_model, base, layout = state["d_model"], state["base"], state["layout"]
    pos, second = state["pos"], state["pos"] + state["offset"]
    q, k = methods.random_qk(d_model, seed)
    np.testing.assert_array_equal(names["q"], q)
    np.testing.assert_array_equal(names["k"], k)
    np.testing.assert_allclose(
        names["q_rot"], methods.rope_rotate(q, pos, base, layout), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        names["k_rot"], methods.rope_rotate(k, second, base, layout), rtol=0, atol=1e-12
    )
    assert names["score"] == pytest.approx(
        methods.rope_score(q, k, pos, second, base, layout), abs=1e-12
    )
    assert names["score"] == pytest.approx(
        methods.rope_offset_scores(q, k, state["offset"], base, layout), abs=1e-12
    )
    np.testing.assert_allclose(
        names["scores"],
        methods.rope_scores(q, k, state["n_positions"], base, layout),
        rtol=0,
        atol=1e-12,
    )


@pytest.mark.parametrize("n_heads", [1, 3, 6, 8, 12, 16, 20])
def test_alibi_snippet_reproduces_the_slopes_and_biases(n_heads):
    state = STATES[1]
    names = run_snippet("alibi", **state, n_heads=n_heads, seed=0)
    slopes = methods.alibi_slopes(n_heads)
    np.testing.assert_allclose(names["slopes"], slopes, rtol=1e-12)
    assert names["bias"].shape == (n_heads, state["n_positions"], state["n_positions"])
    for head, slope in enumerate(slopes):
        np.testing.assert_allclose(
            names["bias"][head], methods.alibi_bias(state["n_positions"], slope), atol=1e-12
        )
    np.testing.assert_array_equal(names["causal"], methods.causal_mask(state["n_positions"]))
    np.testing.assert_allclose(
        names["offset_bias"],
        [methods.alibi_offset_bias(state["offset"], slope) for slope in slopes],
        atol=1e-12,
    )


@pytest.mark.parametrize("state", STATES)
def test_none_snippet_shows_a_score_free_of_position(state):
    names = run_snippet("none", **state, n_heads=8, seed=3)
    q, k = methods.random_qk(state["d_model"], 3)
    assert names["score"] == pytest.approx(q @ k, abs=1e-12)
    assert names["position_score"] == methods.position_scores(
        "none", state["offset"], state["d_model"]
    )


@pytest.mark.parametrize(
    "tokens", [["the", "cat", "sat", "on", "the", "mat"], ["a"], [], ["<b>", "'\"", "é", "a b"]]
)
def test_none_snippet_shows_reordering_only_reorders_the_scores(tokens):
    names = run_snippet(
        "none", d_model=16, n_positions=8, pos=1, offset=2, n_heads=8, seed=0, tokens=tokens
    )
    assert names["words"] == tokens
    if not tokens:
        assert "scores" not in names
        return
    np.testing.assert_array_equal(names["scores"], methods.nope_scores(tokens, 16))
    np.testing.assert_array_equal(names["reordered_scores"], methods.nope_scores(tokens[::-1], 16))
    assert names["only_reordered"] is True or names["only_reordered"] == np.True_


def test_none_snippet_refuses_tokens_that_are_not_strings():
    with pytest.raises(ValueError, match=r"tokens must be a list of strings"):
        code_templates.method_snippet(
            "none", d_model=8, n_positions=8, pos=1, offset=2, n_heads=8, seed=0, tokens=[1]
        )


@pytest.mark.parametrize("method", methods.METHODS)
def test_snippets_import_only_numpy_and_the_standard_library(method):
    snippet = code_templates.method_snippet(
        method, d_model=8, n_positions=8, pos=1, offset=2, n_heads=6, seed=0
    )
    imports = {line for line in snippet.splitlines() if line.startswith(("import", "from"))}
    assert imports <= {"import numpy as np", "import math", "import hashlib"}
    assert "import numpy as np" in imports

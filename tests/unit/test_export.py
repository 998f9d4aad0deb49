"""Downloads and the reproduce-in-code snippets recreate exactly what the page shows."""

import contextlib
import io

import numpy as np
import pytest
from pe_explorer import derived, encoding, methods
from pe_explorer.state import ExplorerState
from pe_explorer.ui import export

STATES = [
    ExplorerState(),
    ExplorerState(d_model=64, n_positions=50, pos=9, offset=-3, base=500.0),
    ExplorerState(d_model=16, n_positions=30, pos=29, offset=40, layout="concatenated"),
]


def run(code: str) -> dict:
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<snippet>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("state", STATES)
def test_numpy_snippet_recreates_the_matrix_and_the_numbers(state):
    result = run(export.numpy_code(state))
    expected = encoding.positional_encoding(
        state.n_positions, state.d_model, state.base, layout=state.layout
    )
    np.testing.assert_array_equal(result["pe"], expected)
    shown = derived.offset_comparisons(state).pairs[0].comparison
    assert result["dot"] == pytest.approx(shown.dot, abs=1e-12)
    assert result["cosine"] == pytest.approx(shown.cosine, abs=1e-12)
    assert result["distance"] == pytest.approx(shown.distance, abs=1e-12)


@pytest.mark.parametrize("state", STATES)
def test_torch_snippet_recreates_the_matrix(state):
    import torch  # a test extra: the exported script is run, never skipped

    result = run(export.torch_code(state))
    expected = encoding.positional_encoding(
        state.n_positions, state.d_model, state.base, layout=state.layout
    )
    np.testing.assert_allclose(result["pe"].numpy(), expected, atol=1e-12)
    shown = derived.offset_comparisons(state).pairs[0].comparison
    assert result["dot"].item() == pytest.approx(shown.dot)
    assert isinstance(result["pe"], torch.Tensor)


@pytest.mark.parametrize("state", STATES)
def test_csv_holds_every_digit(state):
    table = np.loadtxt(io.StringIO(export.matrix_csv(state)), delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table[:, 0], np.arange(state.n_positions))
    np.testing.assert_array_equal(table[:, 1:], derived.shown_pe_matrix(state))
    header = export.matrix_csv(state).splitlines()[0]
    assert header.startswith("pos,dim0,dim1,") and header.count(",") == state.d_model


def test_npy_loads_back_to_the_matrix():
    state = STATES[1]
    np.testing.assert_array_equal(
        np.load(io.BytesIO(export.matrix_npy(state))), derived.shown_pe_matrix(state)
    )


def test_file_names_describe_the_matrix():
    assert export.file_stem(STATES[0]) == "pe-d128-n64"
    assert export.file_stem(STATES[1]) == "pe-d64-n50-base500"
    assert export.file_stem(STATES[2]) == "pe-d16-n30-concatenated"


@pytest.mark.parametrize("state", STATES)
def test_method_arrays_hold_each_methods_numbers(state):
    loaded = np.load(io.BytesIO(export.methods_npz(state)))
    arrays = {name: loaded[name] for name in loaded.files}
    n, d, base = state.n_positions, state.d_model, state.base
    offsets = np.arange(n)
    np.testing.assert_array_equal(arrays["offsets"], offsets)
    np.testing.assert_array_equal(arrays["sinusoidal_pe"], derived.shown_pe_matrix(state))
    omega = base ** (-np.arange(0, d, 2) / d)
    np.testing.assert_allclose(
        arrays["sinusoidal_offset_dots"], np.cos(offsets[:, None] * omega).sum(axis=1), atol=1e-9
    )
    q, k = methods.random_qk(d, state.seed)
    np.testing.assert_array_equal(arrays["rope_q"], q)
    np.testing.assert_array_equal(arrays["rope_k"], k)
    scores = methods.rope_scores(q, k, n, base, state.layout)
    rows, columns = np.indices((n, n))
    np.testing.assert_allclose(
        arrays["rope_offset_scores"][columns - rows + n - 1], scores, atol=1e-9
    )
    np.testing.assert_array_equal(arrays["rope_offsets"], np.arange(-(n - 1), n))
    assert arrays["rope_decay"][0] == pytest.approx((d / 2 + 1) / 2)
    slopes = methods.alibi_slopes(state.heads)
    np.testing.assert_array_equal(arrays["alibi_slopes"], slopes)
    np.testing.assert_allclose(
        arrays["alibi_offset_bias"][:, np.abs(rows - columns)],
        np.stack([methods.alibi_bias(n, slope) for slope in slopes]),
    )
    words = state.text.split()[: min(32, n)]
    assert arrays["none_tokens"].tolist() == words
    np.testing.assert_array_equal(arrays["none_scores"], methods.nope_scores(words, d))


@pytest.mark.parametrize("method", ["rope", "alibi", "none"])
@pytest.mark.parametrize("state", STATES)
def test_method_code_reproduces_the_methods_numbers(state, method):
    names = run(export.method_code(state, method))
    if method == "rope":
        q, k = methods.random_qk(state.d_model, state.seed)
        assert names["score"] == pytest.approx(
            methods.rope_offset_scores(q, k, state.offset, state.base, state.layout), abs=1e-9
        )
    elif method == "alibi":
        np.testing.assert_allclose(
            names["offset_bias"], -methods.alibi_slopes(state.heads) * abs(state.offset)
        )
    else:
        np.testing.assert_array_equal(
            names["scores"], methods.nope_scores(state.text.split()[:32], state.d_model)
        )
        assert names["only_reordered"]


def test_export_panel_shows_each_methods_code_and_opens_the_current_one():
    state = ExplorerState(method="alibi", text="<b>bold</b> words")
    panel = export.ExportPanel(state=state)
    text = panel.code.object
    for method in ("rope", "alibi", "none"):
        assert f'class="pe-{method}-code"' in text
    assert "<details open><summary>ALiBi in NumPy" in text
    assert "<b>bold" not in text and "&lt;b&gt;bold" in text
    assert panel.npz.filename == "pe-d128-n64-methods.npz"


# --- RoPE scaling and the relative methods ---------------------------------------------------


def test_long_context_arrays_hold_the_scaled_frequencies_and_the_relative_indices():
    state = ExplorerState(scaling="pi", factor=8.0, d_model=16, base=100.0, n_positions=40)
    arrays = dict(np.load(io.BytesIO(export.long_context_npz(state))))
    theta = 100.0 ** (-np.arange(0, 16, 2) / 16)
    np.testing.assert_allclose(arrays["scaling_original_inv_freq"], theta, rtol=1e-15)
    np.testing.assert_allclose(arrays["scaling_inv_freq"], theta / 8, rtol=1e-15)
    assert arrays["scaling_attention_factor"] == 1.0
    # T5, 32 buckets, max_distance 128, bidirectional: a key 3 after the query is bucket 16 + 3,
    # one 3 before it bucket 3; Shaw at k = 16: clip(j − i, −16, 16) + 16.
    assert arrays["t5_buckets"][10, 13] == 19 and arrays["t5_buckets"][13, 10] == 3
    assert arrays["shaw_vector"][0, 39] == 32 and arrays["shaw_vector"][39, 0] == 0
    assert arrays["shaw_vector"][5, 7] == 18
    total = sum(arrays[f"xl_{name}"] for name in ("content", "content_bias"))
    assert np.ptp(total) == 0  # the content terms do not depend on the offset
    assert arrays["xl_position_bias"].shape == (40,)


def test_long_context_arrays_leave_out_t5_when_its_settings_have_no_buckets():
    state = ExplorerState(t5_buckets=64, t5_max_distance=10)  # 16 exact distances > 10
    assert "t5_buckets" not in export.long_context_arrays(state)


def test_export_shows_every_new_views_numpy_script():
    page = export.ExportPanel(state=ExplorerState())
    for name in ("scaling", "t5", "shaw", "xl", "learned", "ropecheck"):
        assert f'class="pe-{name}-code"' in page.code.object, name
    assert page.long_context.filename == "pe-d128-n64-long-context.npz"

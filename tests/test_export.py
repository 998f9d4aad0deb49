"""Downloads and the reproduce-in-code snippets recreate exactly what the page shows."""

import contextlib
import io

import numpy as np
import pytest

from components import encoding, export
from components.state import ExplorerState
from components.views import compare

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
    shown = compare.readouts(state)[0].comparison
    assert result["dot"] == pytest.approx(shown.dot, abs=1e-12)
    assert result["cosine"] == pytest.approx(shown.cosine, abs=1e-12)
    assert result["distance"] == pytest.approx(shown.distance, abs=1e-12)


@pytest.mark.parametrize("state", STATES)
def test_torch_snippet_recreates_the_matrix(state):
    torch = pytest.importorskip("torch")
    result = run(export.torch_code(state))
    expected = encoding.positional_encoding(
        state.n_positions, state.d_model, state.base, layout=state.layout
    )
    np.testing.assert_allclose(result["pe"].numpy(), expected, atol=1e-12)
    assert result["dot"].item() == pytest.approx(compare.readouts(state)[0].comparison.dot)
    assert isinstance(result["pe"], torch.Tensor)


@pytest.mark.parametrize("state", STATES)
def test_csv_holds_every_digit(state):
    table = np.loadtxt(io.StringIO(export.matrix_csv(state)), delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table[:, 0], np.arange(state.n_positions))
    np.testing.assert_array_equal(table[:, 1:], state.matrix)
    header = export.matrix_csv(state).splitlines()[0]
    assert header.startswith("pos,dim0,dim1,") and header.count(",") == state.d_model


def test_npy_loads_back_to_the_matrix():
    state = STATES[1]
    np.testing.assert_array_equal(np.load(io.BytesIO(export.matrix_npy(state))), state.matrix)


def test_file_names_describe_the_matrix():
    assert export.file_stem(STATES[0]) == "pe-d128-n64"
    assert export.file_stem(STATES[1]) == "pe-d64-n50-base500"
    assert export.file_stem(STATES[2]) == "pe-d16-n30-concatenated"

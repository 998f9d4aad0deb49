"""The waves view: the sine and cosine of each chosen pair, sampled at whole positions."""

import numpy as np
import pytest
from pe_explorer import encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import waves


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_waves_draw_each_chosen_pair_with_the_formula(layout):
    state = ExplorerState(pairs=[0, 5], pos=9, offset=4, layout=layout)
    figure = waves.figure(state)
    omega = encoding.angular_frequencies(128)
    lines = [t for t in figure["data"] if t["mode"] == "lines"]
    dots = [t for t in figure["data"] if t["mode"] == "markers"]
    assert len(lines) == 4 and len(dots) == 4
    sin_line = lines[2]
    np.testing.assert_allclose(sin_line["y"], np.sin(sin_line["x"] * omega[5]), atol=1e-15)
    pe = encoding.positional_encoding(64, 128, layout=layout)
    sin_column, cos_column = encoding.pair_columns(128, layout, 5)
    np.testing.assert_allclose(dots[2]["y"], pe[:, sin_column])
    np.testing.assert_allclose(dots[3]["y"], pe[:, cos_column])
    assert "λ = 6.283" in lines[0]["name"]
    assert [s["x0"] for s in figure["layout"]["shapes"]] == [9, 13]


def test_waves_curves_resolve_the_shortest_wavelength():
    state = ExplorerState(n_positions=2048, d_model=512)
    lines = [t for t in waves.figure(state)["data"] if t["mode"] == "lines"]
    wavelength = encoding.wavelengths(512)
    for pair, (sin_line, cos_line) in zip(
        state.chosen_pairs, zip(lines[::2], lines[1::2], strict=True), strict=True
    ):
        for trace in (sin_line, cos_line):
            assert trace["x"][1] - trace["x"][0] <= wavelength[pair] / 8

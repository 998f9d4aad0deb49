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
    assert [image["x"] for image in figure["layout"]["images"]] == [9, 13]
    assert [image["visible"] for image in figure["layout"]["images"]] == [True, True]


def test_pos_plus_k_beyond_the_waves_is_named_and_its_line_hidden():
    state = ExplorerState(n_positions=40, pos=30, offset=25)
    figure = waves.figure(state)
    pos_line, second_line = figure["layout"]["images"]
    assert (pos_line["x"], pos_line["visible"]) == (30, True)
    assert (second_line["x"], second_line["visible"]) == (39, False)
    assert "pos + k = 55 (beyond the positions drawn)" in figure["layout"]["title"]["text"]
    assert "pos + k = 55 (beyond the positions drawn)" in waves.describe(state)
    # The waves stay over the 40 positions shown, whatever pos + k.
    for trace in figure["data"]:
        assert trace["x"][-1] == 39
    assert figure["layout"]["xaxis"]["range"] == [-0.5, 39.5]


def test_waves_curves_resolve_the_shortest_wavelength():
    state = ExplorerState(n_positions=2048, d_model=512)
    lines = [t for t in waves.figure(state)["data"] if t["mode"] == "lines"]
    wavelength = encoding.wavelengths(512)
    for pair, (sin_line, cos_line) in zip(
        state.chosen_pairs, zip(lines[::2], lines[1::2], strict=True), strict=True
    ):
        for trace in (sin_line, cos_line):
            assert trace["x"][1] - trace["x"][0] <= wavelength[pair] / 8

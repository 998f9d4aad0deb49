"""The frequency view: ω_i and λ_i of every pair on log axes, and the wavelengths' extremes."""

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import frequency


def test_frequency_panel_plots_omega_and_lambda_and_marks_chosen_pairs():
    state = ExplorerState(d_model=512, pairs=[1, 100])
    figure = frequency.figure(state)
    # Top: ω and its chosen pairs; below: λ and its chosen pairs, in the legend.
    omega, chosen_omega, wavelength, chosen_lambda = figure["data"]
    np.testing.assert_allclose(omega["y"], encoding.angular_frequencies(512))
    np.testing.assert_allclose(wavelength["y"], encoding.wavelengths(512))
    assert list(chosen_lambda["x"]) == list(chosen_omega["x"]) == [1, 100]
    assert (omega["yaxis"], wavelength["yaxis"]) == ("y", "y2")
    assert figure["layout"]["yaxis"]["type"] == "log"


def test_frequency_readout_gives_the_shortest_and_longest_wavelengths():
    state = ExplorerState(d_model=512, pairs=[1, 100])
    lengths = derived.wavelengths(512, 10000.0)
    assert lengths[0] == pytest.approx(2 * np.pi)
    assert lengths[-1] == pytest.approx(60611.477, abs=5e-4)
    assert "60611.477" in frequency.readout(state)

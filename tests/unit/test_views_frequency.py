"""The frequency view: ω_i and λ_i of every pair on log axes, and the wavelengths' extremes."""

import numpy as np
import pytest
from pe_explorer import encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import frequency


def test_frequency_panel_plots_omega_and_lambda_and_marks_chosen_pairs():
    state = ExplorerState(d_model=512, pairs=[1, 100])
    figure = frequency.figure(state)
    omega, wavelength, chosen_lambda, chosen_omega = figure["data"]
    np.testing.assert_allclose(omega["y"], encoding.angular_frequencies(512))
    np.testing.assert_allclose(wavelength["y"], encoding.wavelengths(512))
    assert list(chosen_lambda["x"]) == [1, 100]
    assert figure["layout"]["yaxis"]["type"] == "log"


def test_frequency_readout_gives_the_shortest_and_longest_wavelengths():
    state = ExplorerState(d_model=512, pairs=[1, 100])
    extremes = frequency.summary(state)
    assert extremes.shortest == pytest.approx(2 * np.pi)
    assert extremes.longest == pytest.approx(60611.477, abs=5e-4)
    assert "60611.477" in frequency.readout(state)

"""The compare view: PE(pos) and PE(pos + k), and numbers that depend on k alone."""

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import compare


def test_compare_readouts_equal_the_encoding_functions():
    state = ExplorerState(pos=7, offset=1, d_model=512)
    first = derived.offset_comparisons(state).pairs[0]
    pe = encoding.encode_positions([7, 8], 512)
    assert first.comparison == encoding.compare(pe[0], pe[1])
    assert first.comparison.dot == pytest.approx(249.102097827363, abs=1e-9)


@pytest.mark.parametrize(("pos", "offset"), [(7, 1), (22, 1), (5, -5), (0, 79)])
def test_other_pairs_at_the_same_offset_give_the_same_numbers(pos, offset):
    state = ExplorerState(pos=pos, offset=offset, d_model=512, n_positions=128)
    rows = derived.offset_comparisons(state).pairs
    assert len(rows) == 4
    assert len({row.first for row in rows}) == 4
    for row in rows:
        assert row.second - row.first == offset
        assert row.comparison.dot == pytest.approx(encoding.offset_dot(offset, 512), abs=1e-10)
        assert row.comparison.cosine == pytest.approx(rows[0].comparison.cosine, abs=1e-12)


def test_compare_readout_shows_the_current_numbers():
    state = ExplorerState(pos=7, offset=1, d_model=512)
    text = compare.readout(state)
    assert 'data-label="dot product" class="pe-readout-dot">249.102097827</td>' in text
    assert "pos = 7 · pos + k = 8" in text


def test_compare_figure_draws_both_vectors():
    state = ExplorerState(pos=3, offset=10, d_model=16)
    first, second = compare.figure(state)["data"]
    pe = encoding.encode_positions([3, 13], 16)
    np.testing.assert_array_equal(first["y"], pe[0])
    np.testing.assert_array_equal(second["y"], pe[1])
    assert first["name"] == "PE(3)" and second["name"] == "PE(13)"

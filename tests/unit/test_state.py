"""ExplorerState keeps its invariants and caches the PE matrix."""

import numpy as np
import pytest
from pe_explorer import derived, encoding
from pe_explorer.state import ExplorerState, default_pairs


def test_defaults_are_the_documented_ones():
    state = ExplorerState()
    assert (state.d_model, state.n_positions, state.pos, state.offset) == (128, 64, 7, 1)
    assert state.base == 10000.0 and state.layout == "interleaved"


@pytest.mark.parametrize("value", [7, 0, -2, 2050, 4096])
def test_d_model_rejects_odd_and_out_of_range_values(value):
    state = ExplorerState()
    with pytest.raises(ValueError, match="d_model"):
        state.d_model = value
    assert state.d_model == 128


def test_pos_is_bounded_by_the_sequence_length():
    state = ExplorerState()
    with pytest.raises(ValueError, match="pos"):
        state.pos = 64
    state.pos = 63
    state.n_positions = 10
    assert state.pos == 9
    assert state.param.pos.bounds == (0, 9)


def test_second_position_is_never_negative():
    state = ExplorerState(pos=10, offset=-10)
    assert state.second_pos == 0
    state.pos = 3
    assert state.offset == -3 and state.second_pos == 0
    state.offset = -20
    assert state.offset == -3


def test_offset_may_reach_beyond_the_shown_rows():
    state = ExplorerState(pos=60, offset=30)
    assert state.second_pos == 90


def test_moving_pos_or_offset_does_not_recompute_the_matrix():
    state = ExplorerState(n_positions=100, d_model=64)
    matrix = derived.shown_pe_matrix(state)
    misses = derived.pe_matrix.cache_info().misses
    for pos in range(0, 100, 7):
        state.pos = pos
        state.offset = 3
        assert derived.shown_pe_matrix(state) is matrix
    assert derived.pe_matrix.cache_info().misses == misses


def test_matrix_follows_size_and_base_changes():
    state = ExplorerState(n_positions=20, d_model=8)
    np.testing.assert_array_equal(
        derived.shown_pe_matrix(state), encoding.positional_encoding(20, 8)
    )
    state.base = 100.0
    np.testing.assert_array_equal(
        derived.shown_pe_matrix(state), encoding.positional_encoding(20, 8, 100.0)
    )
    assert not derived.shown_pe_matrix(state).flags.writeable


def test_chosen_pairs_fall_back_to_a_spread_and_are_clamped():
    state = ExplorerState(d_model=128)
    assert state.chosen_pairs == [0, 8, 16, 32]
    state.pairs = [3, 60]
    assert state.chosen_pairs == [3, 60]
    state.d_model = 16
    assert state.pairs == [3]
    assert state.chosen_pairs == [3]


@pytest.mark.parametrize("d_model", [2, 4, 6, 64, 2048])
def test_default_pairs_are_valid_and_distinct(d_model):
    pairs = default_pairs(d_model)
    assert pairs == sorted(set(pairs))
    assert all(0 <= i < d_model // 2 for i in pairs)


def test_limits_are_the_ranges_the_state_keeps_its_dependent_parameters_in():
    state = ExplorerState(n_positions=10, d_model=16, pos=4, offset=2)
    assert state.limits() == {
        "pos": (0, 9),
        "offset": (-4, 9),
        "rotation_pair": (0, 7),
        "pairs": (0, 7),
        "train_length": (1, 10),
    }
    state.offset = -9
    assert state.offset == -4
    state.train_length = 50
    assert state.train_length == 10


def test_method_parameters_are_validated_and_the_training_length_follows_the_length():
    state = ExplorerState()
    assert (state.method, state.heads, state.seed, state.train_length) == ("sinusoidal", 8, 0, 32)
    for name, value in [("method", "xyz"), ("heads", 0), ("heads", 65), ("seed", -1)]:
        with pytest.raises(ValueError):
            setattr(state, name, value)
    state.n_positions = 20
    assert state.train_length == 20
    state.apply({"n_positions": 100, "train_length": 80})
    assert state.train_length == 80


def test_the_groups_hold_every_parameter_once() -> None:
    """Each state parameter belongs to one group, and the state holds nothing else."""
    from pe_explorer.state import GROUPS

    grouped = [name for group in GROUPS for name in group.param if name != "name"]
    assert len(grouped) == len(set(grouped))
    assert set(grouped) == set(ExplorerState.param) - {"name"}


def test_a_group_checks_its_own_parameters() -> None:
    from pe_explorer.state import ScalingParams

    with pytest.raises(ValueError):
        ScalingParams(factor=0.5)

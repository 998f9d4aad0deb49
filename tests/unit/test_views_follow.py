"""Every view × every state parameter: a view redraws for exactly the parameters it follows.

A change to a parameter a view does not follow leaves its figure and readout as they were (so
not redrawing it is right); a change to one it follows changes what it shows (so the table's
`follows` names nothing it could skip).
"""

from __future__ import annotations

import pytest
from pe_explorer.fixes.plotly_patch import same_value
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS
from state_values import mistake_values

# For each parameter, a value other than the default that changes every view that follows it.
CHANGED = {
    "pos": 9,
    "offset": 3,
    "d_model": 64,
    "n_positions": 9,  # still holds pos + k = 8
    "base": 1000.0,
    "layout": "concatenated",
    "pairs": [1, 3],
    "rotation_pair": 3,
    "similarity": "cosine",
    "text": "a rose is a rose",
    "method": "alibi",
    "heads": 12,
    "seed": 5,
    "train_length": 20,
    "theme": "dark",
    "scaling": "ntk",
    "factor": 8.0,
    "original_context": 8192,
    "seq_len": 3 * 16384,
    "beta_fast": 16.0,
    "beta_slow": 2.0,
    "truncate": False,
    "low_freq_factor": 2.0,
    "high_freq_factor": 8.0,
    "longrope_factors": ", ".join(["1.5"] * 32 + ["3"] * 32),
    "t5_buckets": 16,
    "t5_max_distance": 32,
    "t5_bidirectional": False,
    "shaw_clip": 3,
    "model": "phi-2",
    "mistake": "wrong_theta",
    "precision": "fp16",
    "precision_place": "cache",
    "scaling_mistake": "twice",
    "query_at": "4k",
    "mistake_on": "rope",
    **mistake_values(),
}
# A method's own parameter changes nothing under another method: it is changed under its own.
UNDER = {
    "seq_len": {"scaling": "dynamic"},
    "low_freq_factor": {"scaling": "llama3"},
    "high_freq_factor": {"scaling": "llama3"},
    "longrope_factors": {"scaling": "longrope"},
    "scaling_mistake": {"mistake": "scaling"},
    "visitor_model": {"mistake_on": "upload"},
    "window": {"mistake": "cache_window"},
    "sinks": {"mistake": "cache_window"},
    "padded_lengths": {"mistake": "left_padding"},
    "packed_lengths": {"mistake": "packed_documents"},
    "alibi_heads": {"mistake": "alibi_slopes"},
    "alibi_as_heads": {"mistake": "alibi_slopes"},
    "theta_read": {"mistake": "wrong_theta"},
    "prefill": {"mistake": "dynamic_ntk_cache"},
}


def shown(spec, state: ExplorerState):
    """What the view shows for state: its figure, the text of its readout panes (the tokens
    view's equation line too) and its method note."""
    view = spec.make(state)
    panes = [view._note, *view._extras, *([view._step] if hasattr(view, "_step") else [])]
    return view.figure(), [pane.object for pane in panes]


def test_every_state_parameter_has_a_changed_value():
    assert set(CHANGED) == {name for name in ExplorerState.param if name != "name"}


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.name)
@pytest.mark.parametrize("parameter", sorted(CHANGED))
def test_a_view_changes_exactly_for_the_parameters_it_follows(spec, parameter):
    under = UNDER.get(parameter, {})
    before = shown(spec, ExplorerState(**under))
    after = shown(spec, ExplorerState(**under, **{parameter: CHANGED[parameter]}))
    if parameter in spec.follows:
        assert not same_value(before, after), f"{spec.name} follows {parameter} but did not change"
    else:
        assert same_value(before, after), f"{spec.name} changed with {parameter}, not in follows"

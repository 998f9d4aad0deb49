"""The table of views: every row follows the base and names controls that exist."""

import plotly.io
import pytest
from pe_explorer.state import ExplorerState
from pe_explorer.ui.controls import Controls
from pe_explorer.views import VIEWS, view_spec


def strings_in(figure: dict) -> str:
    """Every string a figure sends to Plotly, as one JSON text."""
    return plotly.io.to_json(figure, validate=False)


# Their pictures have no frequency in them: ALiBi's bias and the scores without position.
# The model view reads each layer's base from the model, not from the base slider; so does the
# mistakes view (or it runs on plain RoPE, θ 10 000).
BASE_FREE_VIEWS = {"alibi", "nope", "t5", "shaw", "model", "mistakes"}


def test_only_views_without_frequencies_ignore_the_base():
    assert {spec.name for spec in VIEWS if "base" not in spec.follows} == BASE_FREE_VIEWS


@pytest.mark.parametrize(
    "spec", [spec for spec in VIEWS if spec.name not in BASE_FREE_VIEWS], ids=lambda s: s.name
)
def test_every_view_with_frequencies_follows_the_base(spec):
    # Pair 0 has ω_0 = 1 whatever the base, so the rotation view is shown at pair 5.
    state = ExplorerState(pos=3, offset=2, text="a b c d e", rotation_pair=5)
    assert "base" in spec.follows
    before = strings_in(spec.figure(state))
    state.base = 100.0
    assert strings_in(spec.figure(state)) != before


@pytest.mark.parametrize(
    "name",
    ["dotproduct", "rotation", "tokens", "properties", "scaling", "ropecheck", "learned", "t5"]
    + ["shaw", "xl", "mistakes"],
)
def test_new_views_are_registered_with_known_controls(name):
    spec = view_spec(name)
    controls = Controls(state=ExplorerState())
    assert len(controls.widgets(spec.controls)) >= len(spec.controls)
    sentences = [s for s in spec.explanation.replace("e.g.", "eg").split(". ") if s.strip()]
    assert 2 <= len(sentences) <= 3


def test_no_control_sits_in_two_cards():
    """A widget is drawn in one place: a control a view holds in its card is no other card's."""
    carded = [name for spec in VIEWS for name in spec.card_controls]
    assert len(carded) == len(set(carded))

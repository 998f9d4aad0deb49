"""The explorer's views: one entry each, giving its ?view= name, title, explanation and controls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import panel as pn

from .compare import CompareView
from .frequency import FrequencyView
from .gram import GramView
from .heatmap import HeatmapView
from .properties import PropertiesView
from .rotation import RotationView
from .state import ExplorerState
from .tokens import TokensView
from .waves import WavesView


@dataclass(frozen=True)
class ViewSpec:
    """A view of the explorer, as the page and the single-view embeds show it."""

    name: str  # the value of ?view= that shows this view alone
    title: str
    explanation: str  # two or three sentences, trusted HTML written by us
    make: Callable[[ExplorerState], pn.viewable.Viewer]
    controls: tuple[str, ...]  # names of the Controls widgets this view needs
    height: int  # about how tall the view is drawn (px): its placeholder's height until then
    # Of those, the ones the full page shows in this view's card instead of the sidebar: they
    # serve this view, and follow the state only while the card is on screen.
    card_controls: tuple[str, ...] = ()


VIEWS: tuple[ViewSpec, ...] = (
    ViewSpec(
        name="heatmap",
        title="The encoding matrix",
        explanation="Each row is the vector PE(pos) added to the token at position pos; each "
        "column is one dimension. Left columns oscillate fast, right ones slowly: together "
        "they give every position a distinct pattern.",
        make=lambda state: HeatmapView(state=state),
        controls=("pos", "offset", "d_model", "n_positions", "base", "layout"),
        height=460,
    ),
    ViewSpec(
        name="compare",
        title="Two positions k apart",
        explanation="The dot product, cosine similarity and distance of PE(pos) and PE(pos + k) "
        "depend only on the offset k, not on pos: compare the rows below.",
        make=lambda state: CompareView(state=state),
        controls=("pos", "offset", "d_model", "base"),
        height=630,
    ),
    ViewSpec(
        name="waves",
        title="Sines and cosines",
        explanation="Each pair i is a sine and a cosine of the same frequency ω<sub>i</sub>; the "
        "encoding samples them at whole positions (dots). Pick the pairs to compare below; the "
        "frequency view marks them too.",
        make=lambda state: WavesView(state=state),
        controls=("pos", "offset", "d_model", "n_positions", "base", "pairs"),
        height=640,
        card_controls=("pairs",),
    ),
    ViewSpec(
        name="frequency",
        title="Frequencies and wavelengths",
        explanation="Frequencies fall geometrically with i, so wavelengths grow from 2π to "
        "base·2π: short ones tell neighbours apart, long ones place a token in a long text.",
        make=lambda state: FrequencyView(state=state),
        controls=("d_model", "base", "pairs"),
        height=530,
    ),
    ViewSpec(
        name="dotproduct",
        title="Dot products depend only on the offset",
        explanation="Entry (i, j) of PE·PEᵀ is D(j − i), the sum of cos((j − i)·ω) over the "
        "frequencies: every diagonal is constant (a Toeplitz matrix), and the curve beside it "
        "gives D(k) for the dotted diagonal k. The concatenated layout only reorders the columns "
        "of PE, so the encoding matrix changes but these dot products and similarities do not.",
        make=lambda state: GramView(state=state),
        controls=("pos", "offset", "d_model", "n_positions", "base", "layout", "similarity"),
        height=525,
    ),
    ViewSpec(
        name="rotation",
        title="Moving by k is a rotation",
        explanation="Each pair (sin pos·ω<sub>i</sub>, cos pos·ω<sub>i</sub>) is a point on the "
        "unit circle; moving k positions turns it by the angle k·ω<sub>i</sub>. The matrix "
        "R(k) that does this for every pair depends on k alone, which is why a model can learn "
        "to attend by relative position.",
        make=lambda state: RotationView(state=state),
        controls=("pos", "offset", "d_model", "base", "rotation_pair"),
        height=650,
    ),
    ViewSpec(
        name="tokens",
        title="From words to model input",
        explanation="The model receives TokenEmbedding(word) + PE(pos) for each word. The "
        "embedding here is a fixed random vector per word (a learned one in a real model); "
        "PE(pos) is what tells the same word at two places apart.",
        make=lambda state: TokensView(state=state),
        controls=("text", "d_model", "base"),
        height=910,
    ),
    ViewSpec(
        name="properties",
        title="Unique, bounded, smooth",
        explanation="Every position gets a different vector, every entry stays between −1 "
        "and 1 however long the text, and neighbours are close. With few dimensions, far "
        "positions can come back close: the curve shows the distance from pos to each of "
        "10 000 positions.",
        make=lambda state: PropertiesView(state=state),
        controls=("pos", "d_model", "n_positions", "base"),
        height=570,
    ),
)

VIEW_NAMES = tuple(spec.name for spec in VIEWS)


def view_spec(name: str) -> ViewSpec:
    """The spec of the view called name (ValueError naming the known ones otherwise)."""
    for spec in VIEWS:
        if spec.name == name:
            return spec
    raise ValueError(f"view must be one of {', '.join(VIEW_NAMES)}, got {name!r}")

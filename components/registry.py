"""The explorer's views: one entry each, giving its ?view= name, title, explanation and controls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import panel as pn

from .compare import CompareView
from .frequency import FrequencyView
from .heatmap import HeatmapView
from .state import ExplorerState
from .waves import WavesView


@dataclass(frozen=True)
class ViewSpec:
    """A view of the explorer, as the page and the single-view embeds show it."""

    name: str  # the value of ?view= that shows this view alone
    title: str
    explanation: str  # two or three sentences, trusted HTML written by us
    make: Callable[[ExplorerState], pn.viewable.Viewer]
    controls: tuple[str, ...]  # names of the Controls widgets this view needs


VIEWS: tuple[ViewSpec, ...] = (
    ViewSpec(
        name="heatmap",
        title="The encoding matrix",
        explanation="Each row is the vector PE(pos) added to the token at position pos; each "
        "column is one dimension. Left columns oscillate fast, right ones slowly: together "
        "they give every position a distinct pattern.",
        make=lambda state: HeatmapView(state=state),
        controls=("pos", "offset", "d_model", "n_positions"),
    ),
    ViewSpec(
        name="compare",
        title="Two positions k apart",
        explanation="The dot product, cosine similarity and distance of PE(pos) and PE(pos + k) "
        "depend only on the offset k, not on pos: compare the rows below.",
        make=lambda state: CompareView(state=state),
        controls=("pos", "offset", "d_model"),
    ),
    ViewSpec(
        name="waves",
        title="Sines and cosines",
        explanation="Each pair i is a sine and a cosine of the same frequency ω<sub>i</sub>; the "
        "encoding samples them at whole positions (dots). Pick the pairs to compare.",
        make=lambda state: WavesView(state=state),
        controls=("pos", "offset", "d_model", "n_positions", "pairs"),
    ),
    ViewSpec(
        name="frequency",
        title="Frequencies and wavelengths",
        explanation="Frequencies fall geometrically with i, so wavelengths grow from 2π to "
        "base·2π: short ones tell neighbours apart, long ones place a token in a long text.",
        make=lambda state: FrequencyView(state=state),
        controls=("d_model", "pairs"),
    ),
)

VIEW_NAMES = tuple(spec.name for spec in VIEWS)


def view_spec(name: str) -> ViewSpec:
    """The spec of the view called name (ValueError naming the known ones otherwise)."""
    for spec in VIEWS:
        if spec.name == name:
            return spec
    raise ValueError(f"view must be one of {', '.join(VIEW_NAMES)}, got {name!r}")

"""No position information (NoPE): reversing a sentence only reorders its attention scores."""

from __future__ import annotations

import html

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import message_figure, panel_caption
from ..plotkit.frame import DATA_COLUMNS, ChartData, span_text
from ..plotkit.numbers import number
from ..plotkit.subplots import Subplot, axis_names, compose, heatmap_axis
from ..state import ExplorerState

TITLE = "No position information"
PANEL_TITLES = (
    "<b>The sentence</b>: S = E·Eᵀ/√d<sub>model</sub>",
    "<b>Reversed</b>: P·S·Pᵀ, the same numbers reordered",
)

# Longer words are cut in tick labels and hover text, so one long word cannot squash the plot.
MAX_LABEL_CHARS = 12
MAX_HOVER_CHARS = 40
# The gap between the two panels holds the second panel's word labels.
DOMAINS = ([0.0, 0.42], [0.58, 1.0])
# With more words than this the labels get smaller and the key labels stand upright.
MANY_WORDS = 16

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
p.pe-nope-readout { margin: 0.3em 0; line-height: 1.5; font-variant-numeric: tabular-nums; }
"""


def _quoted(words) -> str:
    return "“" + html.escape(" ".join(words)) + "”"


def readout(state: ExplorerState) -> str:
    """The two differences as text; the visitor's words escaped."""
    words = tuple(state.words)
    if not words:
        return (
            '<p class="pe-nope-readout pe-nope-empty">No words: type a sentence to compare its '
            "scores with those of the same words in reverse.</p>"
        )
    if len(words) == 1:
        return (
            f'<p class="pe-nope-readout pe-nope-one-word">One word, {_quoted(words)}: reversed it '
            "is the same sentence, so there is no order to tell; type two or more words.</p>"
        )
    shown = derived.reversed_scores(words, state.d_model)
    return (
        f'<p class="pe-nope-readout"><span class="pe-nope-count">{len(words)}</span> words: '
        f"{_quoted(words)}, reversed {_quoted(words[::-1])}.<br>"
        "No position information: max |S<sub>reversed</sub> − P·S·Pᵀ| = "
        f'<span class="pe-nope-difference">{shown.without_position + 0.0:.9g}</span> (P reverses '
        "the order). The scores of the reversed sentence are the same numbers with rows and "
        "columns reordered: without a causal mask or a position encoding, attention cannot tell "
        "the order.<br>"
        f"With the sinusoidal encoding added (E + PE(0 … n − 1), base {derived.CONTRAST_BASE:g}): "
        "max |…| = "
        f'<span class="pe-nope-encoded-difference">{shown.with_encoding:.6g}</span>: '
        "now the order changes the scores.</p>"
    )


def plotly_label(word: str, limit: int) -> str:
    """A visitor's word for a Plotly label: cut to limit characters, then escaped (Plotly draws
    some HTML in labels)."""
    cut = word if len(word) <= limit else word[: limit - 1] + "…"
    return html.escape(cut, quote=False)


def scores_subplot(state: ExplorerState, panel: int, order, largest: float) -> Subplot:
    """The scores of the words in order (the sentence, panel 0, or reversed, panel 1)."""
    many = len(order) > MANY_WORDS
    positions = np.arange(len(order))
    hover = [plotly_label(word, MAX_HOVER_CHARS) for word in order]
    heatmap = {
        "type": "heatmap",
        "x": positions,
        "y": positions,
        "z": derived.nope_scores(tuple(order), state.d_model),
        "text": [[f"“{row}” · “{column}”" for column in hover] for row in hover],
        "zmin": -largest,
        "zmid": 0.0,
        "zmax": largest,
        "colorscale": theme.DIVERGING_SCALE,
        "showscale": panel == 1,
        "colorbar": theme.colorbar(thickness=10, title={"text": "score"}),
        "name": "reversed" if panel else "sentence",
        "hovertemplate": "query %{y}, key %{x}: %{text}<br>score = %{z:.6f}<extra></extra>",
    }
    ticks = {
        "tickmode": "array",
        "tickvals": positions.tolist(),
        "ticktext": [plotly_label(word, MAX_LABEL_CHARS) for word in order],
        "tickfont": {"size": 10 if many else 12},
    }
    x_axis = heatmap_axis("key", tickangle=-90 if many else -45, **ticks)
    # Square cells: the rows scale with the panel's own x axis.
    y_axis = heatmap_axis(
        "" if panel else "query",
        autorange="reversed",
        scaleanchor=axis_names(panel + 1)[0],
        constrain="domain",
        **ticks,
    )
    caption = panel_caption(PANEL_TITLES[panel], DOMAINS[panel][0], 1.0)
    return Subplot([heatmap], x_axis, y_axis, (DOMAINS[panel], (0.0, 1.0)), annotations=[caption])


def figure(state: ExplorerState) -> dict:
    """The scores S = E·Eᵀ/√d_model of the sentence and of its reverse, side by side."""
    words = state.words
    if not words:
        return message_figure(state, "nope-message", TITLE, "No words: type a sentence.")
    if len(words) == 1:
        text = "One word: reversed it is the same; type two or more."
        return message_figure(state, "nope-message", TITLE, text)
    largest = max(float(np.abs(derived.nope_scores(tuple(words), state.d_model)).max()), 1e-12)
    layout = theme.base_layout(state.theme, uirevision=f"nope-{len(words)}")
    layout.update(
        title={
            "text": f"{TITLE}: {len(words)} words and the same words reversed",
            "x": 0,
            "font": {"size": 15},
        },
        margin={"l": 88, "r": 24, "t": 72, "b": 88},
        showlegend=False,
    )
    sentences = enumerate((words, words[::-1]))
    return compose(state, layout, [scores_subplot(state, i, s, largest) for i, s in sentences])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name (plain text, the visitor's words as typed): the two score
    matrices and how far apart they are once reordered."""
    words = tuple(state.words)
    if len(words) < 2:
        return f"No position information: {len(words)} word{'' if words else 's'}, no order to tell"
    shown = derived.reversed_scores(words, state.d_model)
    return (
        f"Attention scores with no position information of {len(words)} words, "
        f"“{' '.join(words)}”, and of the same words reversed: max |S_reversed − P·S·Pᵀ| = "
        f"{number(shown.without_position)}; with the sinusoidal encoding added "
        f"{number(shown.with_encoding)}"
    )


def data(state: ExplorerState) -> ChartData:
    """The scores S = E·Eᵀ/√d_model of the sentence, at most DATA_COLUMNS words each way."""
    words = tuple(state.words)
    if not words:
        return ChartData("No words: type a sentence", ("query \\ key",), ())
    shown = range(min(len(words), DATA_COLUMNS))
    scores = derived.nope_scores(words, state.d_model)
    return ChartData(
        caption="Scores with no position information, query word by key word",
        columns=("query \\ key", *(f"{j} {words[j]}" for j in shown)),
        rows=tuple((f"{i} {words[i]}", *scores[i, : len(shown)]) for i in shown),
        note=f"Words {span_text(shown)} of {len(words)} shown; the reversed sentence's scores are "
        "the same numbers, rows and columns reversed."
        if len(shown) < len(words)
        else "The reversed sentence's scores are the same numbers, rows and columns reversed.",
    )

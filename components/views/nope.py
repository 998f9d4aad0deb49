"""No position information (NoPE): reversing a sentence only reorders its attention scores."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .. import derived
from ..plotkit import theme
from ..plotkit.charts import matrix_axis, message_figure
from ..plotkit.frame import DATA_COLUMNS, ChartData, span_text
from ..plotkit.numbers import number
from ..state import ExplorerState

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


def reversal_difference(forward: np.ndarray, backward: np.ndarray) -> float:
    """max |backward − P·forward·Pᵀ|, P the permutation that reverses the order."""
    return float(np.abs(backward - forward[::-1, ::-1]).max())


@dataclass(frozen=True)
class NopeReadout:
    """The sentence, and how far the reversed sentence's scores are from reordered ones."""

    words: tuple[str, ...]
    difference: float | None  # no position information: exactly 0 (None without words)
    encoded_difference: float | None  # with PE(0 … n − 1) added to the embeddings


def numbers(state: ExplorerState) -> NopeReadout:
    """max |S_reversed − P S Pᵀ| without and with the sinusoidal encoding added."""
    words = tuple(state.words)
    if not words:
        return NopeReadout(words, None, None)
    backward = words[::-1]
    d = state.d_model
    return NopeReadout(
        words,
        reversal_difference(derived.nope_scores(words, d), derived.nope_scores(backward, d)),
        reversal_difference(
            derived.encoded_nope_scores(words, d), derived.encoded_nope_scores(backward, d)
        ),
    )


def _quoted(words) -> str:
    return "“" + html.escape(" ".join(words)) + "”"


def readout(state: ExplorerState) -> str:
    """The two differences as text; the visitor's words escaped."""
    shown = numbers(state)
    words = shown.words
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
    return (
        f'<p class="pe-nope-readout"><span class="pe-nope-count">{len(words)}</span> words: '
        f"{_quoted(words)}, reversed {_quoted(words[::-1])}.<br>"
        "No position information: max |S<sub>reversed</sub> − P·S·Pᵀ| = "
        f'<span class="pe-nope-difference">{shown.difference + 0.0:.9g}</span> (P reverses the '
        "order). The scores of the reversed sentence are the same numbers with rows and columns "
        "reordered: without a causal mask or a position encoding, attention cannot tell the "
        "order.<br>"
        f"With the sinusoidal encoding added (E + PE(0 … n − 1), base {derived.CONTRAST_BASE:g}): "
        "max |…| = "
        f'<span class="pe-nope-encoded-difference">{shown.encoded_difference:.6g}</span>: '
        "now the order changes the scores.</p>"
    )


def plotly_label(word: str, limit: int) -> str:
    """A visitor's word for a Plotly label: cut to limit characters, then escaped (Plotly draws
    some HTML in labels)."""
    cut = word if len(word) <= limit else word[: limit - 1] + "…"
    return html.escape(cut, quote=False)


def _message_figure(state: ExplorerState, message: str) -> dict:
    """A figure with no traces that says why in its middle."""
    return message_figure(state, "nope-message", "No position information", message)


def figure(state: ExplorerState) -> dict:
    """The scores S = E·Eᵀ/√d_model of the sentence and of its reverse, side by side."""
    words = state.words
    if not words:
        return _message_figure(state, "No words: type a sentence.")
    if len(words) == 1:
        return _message_figure(state, "One word: reversed it is the same; type two or more.")
    d = state.d_model
    backward = words[::-1]
    matrices = (derived.nope_scores(tuple(words), d), derived.nope_scores(tuple(backward), d))
    largest = max(float(np.abs(matrices[0]).max()), 1e-12)
    positions = np.arange(len(words))
    traces, annotations = [], []
    layout = theme.base_layout(state.theme, uirevision=f"nope-{len(words)}")
    titles = (
        "<b>The sentence</b>: S = E·Eᵀ/√d<sub>model</sub>",
        "<b>Reversed</b>: P·S·Pᵀ, the same numbers reordered",
    )
    for panel, (order, scores) in enumerate(zip((words, backward), matrices, strict=True)):
        suffix = "" if panel == 0 else "2"
        hover = [plotly_label(word, MAX_HOVER_CHARS) for word in order]
        traces.append(
            {
                "type": "heatmap",
                "x": positions,
                "y": positions,
                "z": scores,
                "text": [[f"“{row}” · “{column}”" for column in hover] for row in hover],
                "zmin": -largest,
                "zmid": 0.0,
                "zmax": largest,
                "colorscale": theme.DIVERGING_SCALE,
                "showscale": panel == 1,
                "colorbar": theme.colorbar(thickness=10, title={"text": "score"}),
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "name": "reversed" if panel else "sentence",
                "hovertemplate": "query %{y}, key %{x}: %{text}<br>score = %{z:.6f}<extra></extra>",
            }
        )
        labels = [plotly_label(word, MAX_LABEL_CHARS) for word in order]
        ticks = {
            "tickmode": "array",
            "tickvals": positions.tolist(),
            "ticktext": labels,
            "tickfont": {"size": 10 if len(words) > MANY_WORDS else 12},
        }
        layout[f"xaxis{suffix}"] = matrix_axis(
            state,
            "key",
            domain=DOMAINS[panel],
            anchor=f"y{suffix}",
            tickangle=-90 if len(words) > MANY_WORDS else -45,
            **ticks,
        )
        layout[f"yaxis{suffix}"] = matrix_axis(
            state,
            "query" if panel == 0 else "",
            anchor=f"x{suffix}",
            autorange="reversed",
            scaleanchor=f"x{suffix}",
            constrain="domain",
            **ticks,
        )
        annotations.append(
            {
                "text": titles[panel],
                "xref": "paper",
                "yref": "paper",
                "x": DOMAINS[panel][0],
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    layout.update(
        title={
            "text": f"No position information: {len(words)} words and the same words reversed",
            "x": 0,
            "font": {"size": 15},
        },
        margin={"l": 88, "r": 24, "t": 72, "b": 88},
        showlegend=False,
        annotations=annotations,
    )
    return {"data": traces, "layout": layout}


def describe(state: ExplorerState) -> str:
    """The chart's accessible name (plain text, the visitor's words as typed): the two score
    matrices and how far apart they are once reordered."""
    shown = numbers(state)
    words = shown.words
    if len(words) < 2:
        return f"No position information: {len(words)} word{'' if words else 's'}, no order to tell"
    return (
        f"Attention scores with no position information of {len(words)} words, "
        f"“{' '.join(words)}”, and of the same words reversed: max |S_reversed − P·S·Pᵀ| = "
        f"{number(shown.difference)}; with the sinusoidal encoding added "
        f"{number(shown.encoded_difference)}"
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

"""A sentence as tokens: what the Transformer receives is TokenEmbedding(token) + PE(pos)."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import panel as pn
import param

from .. import encoding, theme
from ..state import ExplorerState
from ..view import PlotView

CHIP_MAX_WIDTH = 220
# How many leading numbers of each vector the table prints.
SHOWN_NUMBERS = 4
CLICK_MODES = {"pos (first word)": "pos", "pos + k (second word)": "second"}

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
table.pe-token-table { border-collapse: collapse; font-variant-numeric: tabular-nums; width: 100%; }
.pe-token-table th, .pe-token-table td { padding: 0.2em 0.5em; text-align: right;
                                         border-bottom: 1px solid var(--pe-grid, #e5e7eb); }
.pe-token-table th:nth-child(2), .pe-token-table td:nth-child(2) { text-align: left; }
.pe-token-table tr.pe-token-current { font-weight: 600; }
.pe-token-table tr.pe-token-second { font-style: italic; }
p.pe-tokens-note { margin: 0.4em 0; line-height: 1.45; }
"""


def plotly_text(text: str) -> str:
    """Visitor text for a Plotly name or title: Plotly draws some HTML there, so escape it."""
    return html.escape(text, quote=False)


@dataclass(frozen=True)
class TokenStep:
    """One token on its way in: its embedding, PE(position) and their sum."""

    position: int
    token: str | None  # None when the sentence has no word at this position
    embedding: np.ndarray | None
    pe: np.ndarray  # PE(position)
    total: np.ndarray | None


def step(state: ExplorerState, position: int) -> TokenStep:
    """TokenEmbedding(token at position) + PE(position), or PE alone when there is no word."""
    words = state.words
    pe = encoding.encode_positions([position], state.d_model, state.base, layout=state.layout)[0]
    if position >= len(words):
        return TokenStep(position, None, None, pe, None)
    embedding = encoding.token_embedding(words[position], state.d_model)
    return TokenStep(position, words[position], embedding, pe, embedding + pe)


def steps(state: ExplorerState) -> list[TokenStep]:
    """The step of every word of the sentence."""
    words = state.words
    if not words:
        return []
    pe = encoding.encode_positions(
        np.arange(len(words)), state.d_model, state.base, layout=state.layout
    )
    result = []
    for position, word in enumerate(words):
        embedding = encoding.token_embedding(word, state.d_model)
        result.append(TokenStep(position, word, embedding, pe[position], embedding + pe[position]))
    return result


def _numbers(values: np.ndarray) -> str:
    shown = ", ".join(f"{value + 0.0:.3f}" for value in values[:SHOWN_NUMBERS])
    return shown + (", …" if values.size > SHOWN_NUMBERS else "")


def table_html(state: ExplorerState) -> str:
    """Every word with the first numbers of its embedding and of its sum; words escaped."""
    rows = steps(state)
    if not rows:
        return '<p class="pe-tokens-note">Type a sentence: its words become the tokens.</p>'
    lines = [
        '<table class="pe-token-table"><thead><tr><th>pos</th><th>word</th>'
        "<th>TokenEmbedding(word)</th><th>TokenEmbedding(word) + PE(pos)</th></tr></thead><tbody>"
    ]
    for row in rows:
        css = (
            "pe-token-current"
            if row.position == state.pos
            else "pe-token-second"
            if row.position == state.second_pos
            else "pe-token-other"
        )
        lines.append(
            f'<tr class="pe-token-row {css}"><td>{row.position}</td>'
            f"<td>{html.escape(row.token)}</td><td>{_numbers(row.embedding)}</td>"
            f"<td>{_numbers(row.total)}</td></tr>"
        )
    lines.append("</tbody></table>")
    lines.append(
        '<p class="pe-tokens-note">A word has the same embedding wherever it stands; only '
        "PE(pos) differs. Reorder the words and every embedding stays the same while the sums "
        "change: that is how the model can tell “dog bites man” from “man bites dog”.</p>"
    )
    return "".join(lines)


def step_html(state: ExplorerState) -> str:
    """The equation for the word at pos, with the word escaped."""
    current = step(state, state.pos)
    if current.token is None:
        count = len(state.words)
        return (
            f'<p class="pe-tokens-step">No word at pos = {state.pos}: the sentence has {count} '
            f"word{'s' if count != 1 else ''}. Click a word to move pos there.</p>"
        )
    return (
        f'<p class="pe-tokens-step">output = TokenEmbedding(“<span class="pe-token-word">'
        f"{html.escape(current.token)}</span>”) + PE({state.pos})</p>"
    )


# Columns of the figure: x domains, and the title over each (embedding + PE = input).
COLUMN_DOMAINS = ([0.0, 0.29], [0.355, 0.645], [0.71, 1.0])
COLUMN_TITLES = ("TokenEmbedding(word)", "+ PE(pos)", "= model input")
TOP_DOMAIN, BOTTOM_DOMAIN = [0.44, 0.94], [0.0, 0.28]


def _panel_axes(layout: dict, panel: int, column: int, top: bool, state: ExplorerState) -> str:
    """Add the axes of one panel to layout; return the axis suffix ("" for the first)."""
    suffix = "" if panel == 1 else str(panel)
    layout[f"xaxis{suffix}"] = theme.axis(
        state.theme,
        domain=COLUMN_DOMAINS[column],
        anchor=f"y{suffix}",
        showgrid=False,
        title={"text": "" if top else "dimension"},
        **({} if panel == 1 else {"matches": "x"}),
    )
    layout[f"yaxis{suffix}"] = theme.axis(
        state.theme, domain=TOP_DOMAIN if top else BOTTOM_DOMAIN, anchor=f"x{suffix}"
    )
    return suffix


def _panel_note(text: str, column: int, top: bool) -> dict:
    """A small caption over a panel (paper coordinates: an empty panel draws no axes)."""
    return {
        "text": text,
        "xref": "paper",
        "yref": "paper",
        "x": COLUMN_DOMAINS[column][0],
        "y": TOP_DOMAIN[1] if top else BOTTOM_DOMAIN[1],
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 12},
    }


def figure(state: ExplorerState) -> dict:
    """Top: embedding, PE and their sum for every word. Bottom: the three for the word at pos."""
    rows = steps(state)
    current = step(state, state.pos)
    dimension = np.arange(state.d_model)
    palette = theme.colours(state.theme)
    positions = np.arange(len(rows))
    labels = [f"{row.position} {plotly_text(row.token)}" for row in rows]
    word = "" if current.token is None else plotly_text(current.token)
    layout = theme.base_layout(state.theme, uirevision=f"tokens-{state.d_model}")
    traces, annotations, shapes = [], [], []
    tops = (
        [row.embedding for row in rows],
        [row.pe for row in rows],
        [row.total for row in rows],
    )
    bottoms = (
        (current.embedding, f"TokenEmbedding(“{word}”)", theme.PAIR_COLOURS[2]),
        (current.pe, f"PE({state.pos})", theme.PAIR_COLOURS[0]),
        (current.total, f"input at pos {state.pos}", palette["text"]),
    )
    for column in range(3):
        top = _panel_axes(layout, 1 + column, column, True, state)
        layout[f"yaxis{top}"].update(
            autorange="reversed",
            tickmode="array",
            # Small layout arrays as lists: only trace arrays travel as binary buffers.
            tickvals=positions.tolist(),
            ticktext=labels if column == 0 else [""] * len(labels),
            showgrid=False,
        )
        annotations.append(_panel_note(f"<b>{COLUMN_TITLES[column]}</b>", column, True))
        if rows:
            z = np.asarray(tops[column], dtype=np.float32)
            traces.append(
                {
                    "type": "heatmap",
                    "x": dimension,
                    "y": positions,
                    "z": z,
                    "zmid": 0.0,
                    "colorscale": theme.DIVERGING_SCALE,
                    "showscale": False,
                    "xaxis": f"x{top}",
                    "yaxis": f"y{top}",
                    "name": COLUMN_TITLES[column],
                    "hovertemplate": "pos %{y}, dim %{x}<br>%{z:.4f}<extra>%{fullData.name}"
                    "</extra>",
                }
            )
            for position, colour, dash in (
                (state.pos, palette["pos"], "solid"),
                (state.second_pos, palette["second"], "dot"),
            ):
                if position < len(rows):
                    shapes.append(
                        {
                            "type": "rect",
                            "xref": f"x{top} domain",
                            "yref": f"y{top}",
                            "x0": 0,
                            "x1": 1,
                            "y0": position - 0.5,
                            "y1": position + 0.5,
                            "line": {"color": colour, "width": 2, "dash": dash},
                            "fillcolor": "rgba(0,0,0,0)",
                            "name": "pos" if dash == "solid" else "pos+k",
                        }
                    )
        values, label, colour = bottoms[column]
        bottom = _panel_axes(layout, 4 + column, column, False, state)
        layout[f"yaxis{bottom}"].update(range=[-2.2, 2.2] if column == 2 else [-1.1, 1.1])
        if values is None:
            annotations.append(_panel_note(f"no word at pos = {state.pos}", column, False))
            continue
        annotations.append(_panel_note(label, column, False))
        traces.append(
            {
                "type": "bar",
                "x": dimension,
                "y": values,
                "xaxis": f"x{bottom}",
                "yaxis": f"y{bottom}",
                "marker": {"color": colour, "line": {"width": 0}},
                "name": label,
                "hovertemplate": "dim %{x}<br>%{y:.6f}<extra>%{fullData.name}</extra>",
            }
        )
    layout.update(
        title={
            "text": f"{len(rows)} word{'' if len(rows) == 1 else 's'}: embedding + PE(pos) = "
            "input; pos solid, pos + k dotted",
            "x": 0,
            "font": {"size": 14},
        },
        bargap=0.05,
        showlegend=False,
        annotations=annotations,
        shapes=shapes,
        margin={"l": 88, "r": 16, "t": 64, "b": 48},
    )
    return {"data": traces, "layout": layout}


class TokensView(PlotView):
    """Words as chips (a click sets pos or pos + k), and the sum the model receives."""

    click_sets = param.Selector(
        default="pos", objects=list(CLICK_MODES.values()), doc="What a click on a word sets."
    )

    def __init__(self, **params):
        super().__init__(**params)
        self._mode = pn.widgets.RadioButtonGroup.from_param(
            self.param.click_sets,
            options=CLICK_MODES,
            css_classes=["pe-token-mode"],
            margin=(4, 8),
        )
        self._chips = pn.FlexBox(
            sizing_mode="stretch_width", css_classes=["pe-token-chips"], margin=(0, 4)
        )
        self._chip_words: list[str] = []
        self._show_chips()
        self.state.param.watch(self._show_chips, ["text", "n_positions", "pos", "offset"])

    def extra_panes(self):
        # The equation line goes above the plot (see content), the table below it.
        self._step = pn.pane.HTML(
            "", sizing_mode="stretch_width", stylesheets=[READOUT_STYLE], margin=(4, 8)
        )
        self._table = pn.pane.HTML(
            "", sizing_mode="stretch_width", stylesheets=[READOUT_STYLE], margin=(4, 8)
        )
        return [self._table]

    def update_extras(self):
        self._step.object = step_html(self.state)
        self._table.object = table_html(self.state)

    def _chip_clicked(self, position: int) -> None:
        state = self.state
        if self.click_sets == "second":
            state.offset = position - state.pos
            return
        # Keep the second word where it is when there is one; otherwise keep k.
        words = len(state.words)
        if state.second_pos < words:
            state.param.update(pos=position, offset=state.second_pos - position)
        else:
            state.pos = position

    def _show_chips(self, *events) -> None:
        """One button per word (rebuilt when the words change), pos and pos + k highlighted."""
        words = self.state.words
        if words != self._chip_words:
            self._chip_words = words
            chips = []
            for position, word in enumerate(words):
                chip = pn.widgets.Button(
                    label=word,
                    color="light",
                    sizing_mode="fixed",
                    width=min(CHIP_MAX_WIDTH, 28 + 8 * len(word)),
                    height=32,
                    margin=(2, 4),
                    css_classes=["pe-token-chip", f"pe-token-chip-{position}"],
                )
                chip.on_click(lambda event, position=position: self._chip_clicked(position))
                chips.append(chip)
            self._chips.objects = chips
        for position, chip in enumerate(self._chips.objects):
            chip.color = (
                "primary"
                if position == self.state.pos
                else "warning"
                if position == self.state.second_pos
                else "light"
            )

    def content(self) -> pn.Column:
        label = pn.pane.HTML("<span>A click on a word sets</span>", margin=(10, 0, 0, 8))
        return pn.Column(
            pn.FlexBox(label, self._mode, flex_wrap="wrap", sizing_mode="stretch_width"),
            self._chips,
            self._step,
            super().content(),
            sizing_mode="stretch_width",
        )

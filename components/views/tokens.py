"""A sentence as tokens: what the Transformer receives is TokenEmbedding(token) + PE(pos)."""

from __future__ import annotations

import html
import time
from dataclasses import dataclass

import numpy as np
import panel as pn
import param

from .. import encoding
from ..plotkit import theme
from ..plotkit.charts import panel_caption
from ..plotkit.frame import DATA_COLUMNS, ChartData, PlotView, span_text
from ..plotkit.numbers import number
from ..state import ExplorerState

# Dark text on the amber chip of pos + k: Bootstrap's white on #f0ad4e is 1.9:1 (WCAG asks 4.5).
CHIP_STYLE = ".bk-btn-warning { color: #1f2328; }"
CHIP_MAX_WIDTH = 220
# How many leading numbers of each vector the table prints.
SHOWN_NUMBERS = 4
CLICK_MODES = {"pos (first word)": "pos", "pos + k (second word)": "second"}
# The stages of the pipeline a word goes through on its way into the model, in order. The
# figure's columns (embedding, PE, sum) are stages 1, 2 and 3.
STAGES = ("the token", "embedding lookup", "position encoding PE(pos)", "their sum, the input")
LAST_STAGE = len(STAGES) - 1
PLAY_PERIOD_MS = 1000
# On a phone the click mode's two buttons share the card's width, their labels wrapping.
PHONE_WRAP_STYLE = """
@media (max-width: 600px) {
  :host { max-width: calc(100% - 16px); }
  .bk-btn { white-space: normal; }
}
"""
# Columns of the figure the pipeline has not reached yet are drawn this faint.
FADED_OPACITY = 0.25
# Outlines: the copies of the repeated word in the embedding bars' green, the stage in orange
# (the colour that marks the current stage in the HTML too, see READOUT_STYLE).
COPY_COLOUR = theme.PAIR_COLOURS[2]
STAGE_COLOUR = theme.PAIR_COLOURS[4]

READOUT_STYLE = """
:host { overflow-x: auto; max-width: 100%; }
table.pe-token-table { border-collapse: collapse; font-variant-numeric: tabular-nums; width: 100%; }
.pe-token-table th, .pe-token-table td { padding: 0.2em 0.5em; text-align: right;
                                         border-bottom: 1px solid var(--pe-grid, #e5e7eb); }
.pe-token-table th:nth-child(2), .pe-token-table td:nth-child(2) { text-align: left; }
.pe-token-table tr.pe-token-current { font-weight: 600; }
.pe-token-table tr.pe-token-second { font-style: italic; }
p.pe-tokens-note { margin: 0.4em 0; line-height: 1.45; }
.pe-pipeline-current { outline: 2px solid #E69F00; outline-offset: 1px; border-radius: 3px;
                       background: rgba(230, 159, 0, 0.14); }
.pe-pipeline-later { opacity: 0.45; }
p.pe-pipeline-note, p.pe-pipeline-verdict { margin: 0.4em 0; line-height: 1.45;
                                            font-variant-numeric: tabular-nums; }
table.pe-pipeline-copies { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.pe-pipeline-copies caption { text-align: left; padding-bottom: 0.3em; }
.pe-pipeline-copies th, .pe-pipeline-copies td { padding: 0.2em 0.5em; text-align: right;
                                                 border-bottom: 1px solid var(--pe-grid, #e5e7eb); }
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


def stage_class(part: int, stage: int | None) -> str:
    """The CSS class of the part of the pipeline reached at stage part: the current one is
    marked, later ones are faded ("" before the current stage, or with no stage)."""
    if stage is None or part < stage:
        return ""
    return "pe-pipeline-current" if part == stage else "pe-pipeline-later"


def _cell(tag: str, text: str, part: int | None, stage: int | None) -> str:
    css = "" if part is None else stage_class(part, stage)
    return f'<{tag} class="{css}">{text}</{tag}>' if css else f"<{tag}>{text}</{tag}>"


def table_html(state: ExplorerState, stage: int | None = None) -> str:
    """Every word with the first numbers of its embedding, PE(pos) and their sum; words escaped.

    With a stage, the column of that stage is marked and the later ones faded.
    """
    rows = steps(state)
    if not rows:
        return '<p class="pe-tokens-note">Type a sentence: its words become the tokens.</p>'
    headers = ("pos", "word", "TokenEmbedding(word)", "PE(pos)", "TokenEmbedding(word) + PE(pos)")
    parts = (None, 0, 1, 2, 3)
    lines = [
        '<table class="pe-token-table"><thead><tr>',
        *(_cell("th", text, part, stage) for text, part in zip(headers, parts, strict=True)),
        "</tr></thead><tbody>",
    ]
    for row in rows:
        css = (
            "pe-token-current"
            if row.position == state.pos
            else "pe-token-second"
            if row.position == state.second_pos
            else "pe-token-other"
        )
        cells = (
            str(row.position),
            html.escape(row.token),
            _numbers(row.embedding),
            _numbers(row.pe),
            _numbers(row.total),
        )
        lines.append(f'<tr class="pe-token-row {css}">')
        lines.extend(
            _cell("td", text, part, stage) for text, part in zip(cells, parts, strict=True)
        )
        lines.append("</tr>")
    lines.append("</tbody></table>")
    lines.append(
        '<p class="pe-tokens-note">A word has the same embedding wherever it stands; only '
        "PE(pos) differs. Reorder the words and every embedding stays the same while the sums "
        "change: that is how the model can tell “dog bites man” from “man bites dog”.</p>"
    )
    return "".join(lines)


def _no_word(state: ExplorerState) -> str:
    """Why pos has no word: the sentence is shorter."""
    count = len(state.words)
    return f"No word at pos = {state.pos}: the sentence has {count} word{'s' if count != 1 else ''}"


def step_html(state: ExplorerState, stage: int | None = None) -> str:
    """The equation for the word at pos, with the word escaped; with a stage, its part marked."""
    current = step(state, state.pos)
    if current.token is None:
        return f'<p class="pe-tokens-step">{_no_word(state)}. Click a word to move pos there.</p>'
    word = html.escape(current.token)
    if stage is None:
        return (
            f'<p class="pe-tokens-step">output = TokenEmbedding(“<span class="pe-token-word">'
            f"{word}</span>”) + PE({state.pos})</p>"
        )

    def part(index: int, text: str, css: str = "pe-pipeline-part") -> str:
        classes = " ".join(filter(None, (css, stage_class(index, stage))))
        return f'<span class="{classes}" data-stage="{index}">{text}</span>'

    token = part(0, word, "pe-token-word pe-pipeline-part")
    return (
        f'<p class="pe-tokens-step">{part(3, "output")} = '
        f"{part(1, f'TokenEmbedding(“{token}”)')} + {part(2, f'PE({state.pos})')}</p>"
    )


def check_stage(stage: object) -> int:
    """Return stage as an int, or raise ValueError unless it is one of 0 … LAST_STAGE."""
    return encoding.check_integer("stage", stage, 0, LAST_STAGE)


def stage_label(stage: int) -> str:
    """The stage indicator: "Stage 2 of 4: embedding lookup"."""
    return f"Stage {check_stage(stage) + 1} of {len(STAGES)}: {STAGES[stage]}"


def repeated_word(state: ExplorerState) -> tuple[str, list[int]] | None:
    """A word of the sentence that stands at several places, and those places: the word at pos
    when it recurs, else the first word that does; None when no word recurs."""
    words = state.words
    places: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        places.setdefault(word, []).append(position)
    first = [words[state.pos]] if state.pos < len(words) else []
    for word in first + words:
        if len(places[word]) > 1:
            return word, places[word]
    return None


def copies(state: ExplorerState) -> list[TokenStep]:
    """The steps of every copy of the repeated word (empty when no word recurs)."""
    repeated = repeated_word(state)
    if repeated is None:
        return []
    rows = steps(state)
    return [rows[position] for position in repeated[1]]


def _places(positions: list[int]) -> str:
    shown = [str(position) for position in positions]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _stage_note(state: ExplorerState, stage: int) -> str:
    """What the word at pos looks like at this stage, in one sentence with its numbers."""
    current = step(state, state.pos)
    if current.token is None:
        return f"{_no_word(state)}, so there is only PE({state.pos}) = [{_numbers(current.pe)}]."
    word = f"“{html.escape(current.token)}”"
    notes = (
        f"The word at pos = {state.pos} is {word}: the model starts from the token, not yet "
        "from any numbers.",
        f"The embedding is a table lookup: TokenEmbedding({word}) = [{_numbers(current.embedding)}"
        "]. It depends on the word alone, not on where it stands.",
        f"PE({state.pos}) = [{_numbers(current.pe)}] depends on the position alone, not on the "
        "word.",
        f"The model receives the sum: TokenEmbedding({word}) + PE({state.pos}) = "
        f"[{_numbers(current.total)}].",
    )
    return notes[stage]


def pipeline_html(state: ExplorerState, stage: int) -> str:
    """The readout of a pipeline stage: the word at pos at that stage, then every copy of a
    repeated word with its embedding (identical), PE(pos) and sum (different); words escaped."""
    stage = check_stage(stage)
    lines = [f'<p class="pe-pipeline-note">{_stage_note(state, stage)}</p>']
    same = copies(state)
    if not same:
        lines.append(
            '<p class="pe-pipeline-verdict">No word recurs in this sentence: type one twice to '
            "see one embedding give two different sums.</p>"
        )
        return "".join(lines)
    word = f"“{html.escape(same[0].token)}”"
    positions = [row.position for row in same]
    headers = ("pos", f"TokenEmbedding({word})", "PE(pos)", "sum")
    lines.append(
        f'<table class="pe-pipeline-copies"><caption>{word} stands at positions '
        f"{_places(positions)}</caption><thead><tr>"
    )
    lines.extend(_cell("th", text, part, stage) for part, text in enumerate(headers))
    lines.append("</tr></thead><tbody>")
    for row in same:
        cells = (str(row.position), _numbers(row.embedding), _numbers(row.pe), _numbers(row.total))
        lines.append(f'<tr class="pe-pipeline-copy" data-pos="{row.position}">')
        lines.extend(_cell("td", text, part, stage) for part, text in enumerate(cells))
        lines.append("</tr>")
    lines.append("</tbody></table>")
    identical = all(np.array_equal(row.embedding, same[0].embedding) for row in same)
    closest = min(
        encoding.compare(a.total, b.total).distance
        for index, a in enumerate(same)
        for b in same[index + 1 :]
    )
    embeddings = (
        f"the same {state.d_model} numbers at every place, bit for bit"
        if identical
        else "not all the same"
    )
    sums = (
        f"all different, because PE(pos) differs (the closest two are {closest:.3f} apart)"
        if closest > 0
        else "two of them equal"
    )
    lines.append(
        f'<p class="pe-pipeline-verdict">Embeddings of {word}: '
        f"{_cell('span', embeddings, 1, stage)}. Sums: {_cell('span', sums, 3, stage)}.</p>"
    )
    return "".join(lines)


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
    return panel_caption(
        text, COLUMN_DOMAINS[column][0], TOP_DOMAIN[1] if top else BOTTOM_DOMAIN[1]
    )


def _outline(name: str, colour: str, dash: str, shown: bool, **place) -> dict:
    """A layout image outlining a box: moving or hiding it redraws no heatmap (see heatmap.py)."""
    return {
        "source": theme.outline_source(colour, "5 3" if dash == "dash" else ""),
        "sizing": "stretch",
        "layer": "above",
        "visible": shown,
        "name": name,
        **place,
    }


def stage_outlines(state: ExplorerState, stage: int | None) -> list[dict]:
    """The outline of the figure column a stage fills, then one per copy of the repeated word in
    that column's top panel; hidden at the token stage and with no stage.

    Their number depends on the sentence alone, so stepping through the stages only edits them.
    """
    reached = stage is not None and stage >= 1
    column = stage - 1 if reached else 0
    left, right = COLUMN_DOMAINS[column]
    pad = 0.012
    outlines = [
        _outline(
            "stage",
            STAGE_COLOUR,
            "solid",
            reached,
            xref="paper",
            yref="paper",
            x=left - pad,
            y=1.0,
            sizex=right - left + 2 * pad,
            sizey=1.06,
            xanchor="left",
            yanchor="top",
        )
    ]
    suffix = "" if column == 0 else str(1 + column)
    repeated = repeated_word(state)
    for position in repeated[1] if repeated else []:
        outlines.append(
            _outline(
                "copy",
                COPY_COLOUR,
                "dash",
                reached,
                xref=f"x{suffix} domain",
                yref=f"y{suffix}",
                x=0,
                y=position,
                sizex=1,
                sizey=1,
                xanchor="left",
                yanchor="middle",
            )
        )
    return outlines


def figure(state: ExplorerState, stage: int | None = LAST_STAGE) -> dict:
    """Top: embedding, PE and their sum for every word. Bottom: the three for the word at pos.

    With a pipeline stage, the columns it has not reached are faded, the one it fills is
    outlined, and so are the copies of the repeated word in it.
    """
    if stage is not None:
        stage = check_stage(stage)
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
        opacity = 1.0 if stage is None or stage > column else FADED_OPACITY
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
                    "opacity": opacity,
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
                "opacity": opacity,
                "hovertemplate": "dim %{x}<br>%{y:.6f}<extra>%{fullData.name}</extra>",
            }
        )
    title = (
        f"{len(rows)} word{'' if len(rows) == 1 else 's'}: embedding + PE(pos) = input; pos "
        "solid, pos + k dotted"
    )
    if stage is not None:
        title = f"{stage_label(stage)}<br><sub>{title}</sub>"
    layout.update(
        title={
            "text": title,
            "x": 0,
            "font": {"size": 14},
        },
        bargap=0.05,
        showlegend=False,
        annotations=annotations,
        shapes=shapes,
        images=stage_outlines(state, stage),
        margin={"l": 88, "r": 16, "t": 64 if stage is None else 84, "b": 48},
    )
    return {"data": traces, "layout": layout}


class TokensView(PlotView):
    """Words as chips (a click sets pos or pos + k), the sum the model receives, and its pipeline
    stage by stage (Prev, Play, Next)."""

    click_sets = param.Selector(
        default="pos", objects=list(CLICK_MODES.values()), doc="What a click on a word sets."
    )
    # The stage is the visitor's place in this view, like click_sets: not URL state.
    # It opens on the whole picture, the sum; Prev and Play step through how it was made.
    stage = param.Integer(
        LAST_STAGE,
        bounds=(0, LAST_STAGE),
        doc="The pipeline stage shown: token, embedding, PE, sum.",
    )
    playing = param.Boolean(False, doc="Whether Play is stepping through the stages.")
    play_period = param.Integer(
        PLAY_PERIOD_MS, bounds=(1, None), doc="Milliseconds between two stages while playing."
    )

    def __init__(self, **params):
        self._player = None  # the periodic callback while playing
        self._last_move = 0.0  # time.monotonic() of the last stage change Play made or began at
        super().__init__(**params)
        self._mode = pn.widgets.RadioButtonGroup.from_param(
            self.param.click_sets,
            options=CLICK_MODES,
            css_classes=["pe-token-mode"],
            margin=(4, 8),
            stylesheets=[PHONE_WRAP_STYLE],
        )
        self._chips = pn.FlexBox(
            sizing_mode="stretch_width", css_classes=["pe-token-chips"], margin=(0, 4)
        )
        self._chip_words: list[str] = []
        self._show_chips()
        self.state.param.watch(self._show_chips, ["text", "n_positions", "pos", "offset"])
        buttons = {"prev": "Prev", "play": "Play", "next": "Next"}
        self._prev, self._play, self._next = self.step_buttons("pipeline", buttons)
        self._prev.on_click(lambda event: self.step_by(-1))
        self._next.on_click(lambda event: self.step_by(1))
        self._play.on_click(lambda event: self.toggle_play())
        self.param.watch(self._stage_changed, "stage")
        self.param.watch(self._playing_changed, "playing")

    def extra_panes(self):
        # The equation line and the pipeline readout go above the plot, the table below it
        # (see content).
        self._step = self.text_pane(READOUT_STYLE)
        self._stage_indicator = self.step_indicator(self._indicator_html(), "pe-pipeline-stage")
        self._pipeline = self.text_pane(READOUT_STYLE, (0, 8), "pe-pipeline-readout")
        self._table = self.text_pane(READOUT_STYLE)
        return [self._pipeline, self._table]

    def update_extras(self):
        self._step.object = step_html(self.state, self.stage)
        self._pipeline.object = pipeline_html(self.state, self.stage)
        self._table.object = table_html(self.state, self.stage)

    def figure(self) -> dict:
        drawn = figure(self.state, self.stage)
        drawn["layout"].setdefault("height", self.spec.plot_height)
        return drawn

    def _indicator_html(self) -> str:
        label = stage_label(self.stage)
        return f'<span class="pe-pipeline-stage-text" aria-live="polite">{label}</span>'

    def step_by(self, delta: int) -> None:
        """Go delta stages on (Next: 1, Prev: −1), staying within the stages; stops Play."""
        self.stop_playing()
        self.stage = min(max(self.stage + delta, 0), LAST_STAGE)

    def toggle_play(self) -> None:
        """Play: one stage on every play_period ms until the last (from the first when there
        already); pressed while playing, it pauses."""
        if self.playing:
            self.stop_playing()
            return
        if self.stage == LAST_STAGE:
            self.stage = 0
        self._last_move = time.monotonic()
        self.playing = True
        self._player = pn.state.add_periodic_callback(self.advance, period=self.play_period)

    def advance(self) -> None:
        """One tick of Play: the next stage, stopping at the last."""
        if not self.playing:
            return
        now = time.monotonic()
        # Under asyncio (Pyodide, no server) the first tick comes the moment Play starts: each
        # stage still lasts a whole period.
        if now - self._last_move < 0.5 * self.play_period / 1000:
            return
        self._last_move = now
        self.stage = min(self.stage + 1, LAST_STAGE)
        if self.stage == LAST_STAGE:
            self.stop_playing()

    def stop_playing(self) -> None:
        """Stop Play (nothing happens when it is not playing)."""
        player, self._player = self._player, None
        if player is not None:
            player.stop()
        self.playing = False

    def _stage_changed(self, event) -> None:
        self._stage_indicator.object = self._indicator_html()
        self._refresh()

    def _playing_changed(self, event) -> None:
        self._play.label = "Pause" if self.playing else "Play"

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
                    stylesheets=[CHIP_STYLE],
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
        stepper = self.step_bar(
            "pe-pipeline-controls", self._prev, self._play, self._next, self._stage_indicator
        )
        return pn.Column(
            pn.FlexBox(label, self._mode, flex_wrap="wrap", sizing_mode="stretch_width"),
            self._chips,
            self._step,
            stepper,
            self._pipeline,
            self._error,
            self._plot,
            self._table,
            self._data,
            sizing_mode="stretch_width",
        )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name (plain text, the visitor's word as typed): the words and the
    three vectors of the word at pos."""
    current = step(state, state.pos)
    count = len(state.words)
    if current.token is None:
        return (
            f"Model input of {count} words over {state.d_model} dimensions; no word at pos = "
            f"{state.pos}, PE({state.pos}) starts {number(current.pe[0])}"
        )
    return (
        f"Model input of {count} words over {state.d_model} dimensions; word at pos = "
        f"{state.pos}, “{current.token}”: dimension 0 is TokenEmbedding "
        f"{number(current.embedding[0])} + PE({state.pos}) {number(current.pe[0])} = "
        f"{number(current.total[0])}"
    )


def data(state: ExplorerState) -> ChartData:
    """The embedding, PE(pos) and their sum for the word at pos, first DATA_COLUMNS dimensions."""
    current = step(state, state.pos)
    dimensions = range(min(state.d_model, DATA_COLUMNS))
    note = f"Dimensions {span_text(dimensions)} of {state.d_model} shown."
    if current.token is None:
        return ChartData(
            caption=f"PE({state.pos}): no word at pos = {state.pos}",
            columns=("dimension", f"PE({state.pos})"),
            rows=tuple((c, current.pe[c]) for c in dimensions),
            note=note,
        )
    return ChartData(
        caption=f"“{current.token}” at pos = {state.pos}: TokenEmbedding + PE = model input",
        columns=("dimension", "TokenEmbedding", f"PE({state.pos})", "model input"),
        rows=tuple((c, current.embedding[c], current.pe[c], current.total[c]) for c in dimensions),
        note=note,
    )

"""A sentence as tokens: what the Transformer receives is TokenEmbedding(token) + PE(pos)."""

from __future__ import annotations

import html
import time

import numpy as np
import panel as pn
import param

from .. import derived, encoding
from ..derived import TokenStep
from ..plotkit import theme
from ..plotkit.charts import panel_caption
from ..plotkit.frame import DATA_COLUMNS, ChartData, PlotView, span_text
from ..plotkit.numbers import number
from ..plotkit.subplots import Subplot, compose
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
# On a narrow screen each row of the two tables is a block: one line per cell, with its
# column's name.
READOUT_STYLE += theme.rows_as_blocks_style("pe-token-table", "pe-pipeline-copies")


def plotly_text(text: str) -> str:
    """Visitor text for a Plotly name or title: Plotly draws some HTML there, so escape it."""
    return html.escape(text, quote=False)


def step(state: ExplorerState, position: int) -> TokenStep:
    """TokenEmbedding(token at position) + PE(position), or PE alone when there is no word."""
    words = tuple(state.words)
    return derived.token_step(words, position, state.d_model, float(state.base), state.layout)


def steps(state: ExplorerState) -> tuple[TokenStep, ...]:
    """The step of every word of the sentence."""
    words = tuple(state.words)
    return derived.token_steps(words, state.d_model, float(state.base), state.layout)


def leading_numbers(values: np.ndarray) -> str:
    """The first SHOWN_NUMBERS numbers of a vector, 3 decimals, and "…" when it has more."""
    shown = ", ".join(number(value, 3) for value in values[:SHOWN_NUMBERS])
    return shown + (", …" if values.size > SHOWN_NUMBERS else "")


def step_numbers(row: TokenStep) -> tuple[str, str, str]:
    """The leading numbers of a word's embedding, PE(pos) and their sum."""
    return leading_numbers(row.embedding), leading_numbers(row.pe), leading_numbers(row.total)


def stage_class(part: int, stage: int | None) -> str:
    """The CSS class of the part of the pipeline reached at stage part: the current one is
    marked, later ones are faded ("" before the current stage, or with no stage)."""
    if stage is None or part < stage:
        return ""
    return "pe-pipeline-current" if part == stage else "pe-pipeline-later"


def _cell(tag: str, text: str, part: int | None, stage: int | None, label: str = "") -> str:
    """A cell of a table (th, td) or a span: its stage's class, and for a table's cells the
    roles and the column's name (label) that a phone's block layout shows (READOUT_STYLE)."""
    css = "" if part is None else stage_class(part, stage)
    attributes = f' class="{css}"' if css else ""
    if tag == "th":
        attributes += ' scope="col" role="columnheader"'
    elif tag == "td":
        attributes += f' role="cell" data-label="{label}"'
    return f"<{tag}{attributes}>{text}</{tag}>"


def _rows_open(css_class: str, caption: str = "") -> str:
    """A table's start, with the roles that keep its meaning under a phone's display: block."""
    caption = f"<caption>{caption}</caption>" if caption else ""
    return (
        f'<table class="{css_class}" role="table">{caption}<thead role="rowgroup"><tr role="row">'
    )


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
        _rows_open("pe-token-table"),
        *(_cell("th", text, part, stage) for text, part in zip(headers, parts, strict=True)),
        '</tr></thead><tbody role="rowgroup">',
    ]
    for row in rows:
        css = (
            "pe-token-current"
            if row.position == state.pos
            else "pe-token-second"
            if row.position == state.second_pos
            else "pe-token-other"
        )
        cells = (str(row.position), html.escape(row.token), *step_numbers(row))
        lines.append(f'<tr class="pe-token-row {css}" role="row">')
        lines.extend(
            _cell("td", text, part, stage, label)
            for text, part, label in zip(cells, parts, headers, strict=True)
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
        pe = leading_numbers(current.pe)
        return f"{_no_word(state)}, so there is only PE({state.pos}) = [{pe}]."
    embedding, pe, total = step_numbers(current)
    word = f"“{html.escape(current.token)}”"
    notes = (
        f"The word at pos = {state.pos} is {word}: the model starts from the token, not yet "
        "from any numbers.",
        f"The embedding is a table lookup: TokenEmbedding({word}) = [{embedding}]. It depends on "
        "the word alone, not on where it stands.",
        f"PE({state.pos}) = [{pe}] depends on the position alone, not on the word.",
        f"The model receives the sum: TokenEmbedding({word}) + PE({state.pos}) = [{total}].",
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
    labels = ("pos", "TokenEmbedding", "PE(pos)", "sum")
    caption = f"{word} stands at positions {_places(positions)}"
    lines.append(_rows_open("pe-pipeline-copies", caption))
    lines.extend(_cell("th", text, part, stage) for part, text in enumerate(headers))
    lines.append('</tr></thead><tbody role="rowgroup">')
    for row in same:
        cells = (str(row.position), *step_numbers(row))
        lines.append(f'<tr class="pe-pipeline-copy" data-pos="{row.position}" role="row">')
        lines.extend(
            _cell("td", text, part, stage, label)
            for part, (text, label) in enumerate(zip(cells, labels, strict=True))
        )
        lines.append("</tr>")
    lines.append("</tbody></table>")
    compared = derived.compare_copies(same)
    embeddings = (
        f"the same {state.d_model} numbers at every place, bit for bit"
        if compared.same_embedding
        else "not all the same"
    )
    sums = (
        f"all different, because PE(pos) differs (the closest two are "
        f"{number(compared.closest, 3)} apart)"
        if compared.closest > 0
        else "two of them equal"
    )
    lines.append(
        f'<p class="pe-pipeline-verdict">Embeddings of {word}: '
        f"{_cell('span', embeddings, 1, stage)}. Sums: {_cell('span', sums, 3, stage)}.</p>"
    )
    return "".join(lines)


# Columns of the figure: x domains, and the title over each (embedding + PE = input).
COLUMN_DOMAINS = ((0.0, 0.29), (0.355, 0.645), (0.71, 1.0))
COLUMN_TITLES = ("TokenEmbedding(word)", "+ PE(pos)", "= model input")
TOP_DOMAIN, BOTTOM_DOMAIN = (0.44, 0.94), (0.0, 0.28)


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


def _faded(stage: int | None, column: int) -> float:
    """The opacity of a figure column: faded until the pipeline reaches it."""
    return 1.0 if stage is None or stage > column else FADED_OPACITY


def _row_outlines(state: ExplorerState, n_words: int) -> list[dict]:
    """Rows pos (solid) and pos + k (dotted) outlined across a panel of every word."""
    palette = theme.colours(state.theme)
    return [
        {
            "type": "rect",
            "xref": "x domain",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": position - 0.5,
            "y1": position + 0.5,
            "line": {"color": colour, "width": 2, "dash": dash},
            "fillcolor": "rgba(0,0,0,0)",
            "name": name,
        }
        for position, colour, dash, name in (
            (state.pos, palette["pos"], "solid", "pos"),
            (state.second_pos, palette["second"], "dot", "pos+k"),
        )
        if position < n_words
    ]


def _words_subplot(
    state: ExplorerState, rows: tuple[TokenStep, ...], column: int, stage: int | None
) -> Subplot:
    """One column's vectors (embedding, PE or sum) of every word, a row each."""
    positions = np.arange(len(rows))
    labels = [f"{row.position} {plotly_text(row.token)}" for row in rows]
    traces = []
    if rows:
        vectors = [(row.embedding, row.pe, row.total)[column] for row in rows]
        traces.append(
            {
                "type": "heatmap",
                "x": np.arange(state.d_model),
                "y": positions,
                "z": np.asarray(vectors, dtype=np.float32),
                "zmid": 0.0,
                "colorscale": theme.DIVERGING_SCALE,
                "showscale": False,
                "name": COLUMN_TITLES[column],
                "opacity": _faded(stage, column),
                "hovertemplate": "pos %{y}, dim %{x}<br>%{z:.4f}<extra>%{fullData.name}</extra>",
            }
        )
    return Subplot(
        traces=traces,
        x_axis={"showgrid": False, "title": {"text": ""}, **({"matches": "x"} if column else {})},
        y_axis={
            "autorange": "reversed",
            "tickmode": "array",
            # Small layout arrays as lists: only trace arrays travel as binary buffers.
            "tickvals": positions.tolist(),
            "ticktext": labels if column == 0 else [""] * len(labels),
            "showgrid": False,
        },
        domain=(COLUMN_DOMAINS[column], TOP_DOMAIN),
        shapes=_row_outlines(state, len(rows)) if rows else [],
        annotations=[_panel_note(f"<b>{COLUMN_TITLES[column]}</b>", column, True)],
    )


def _word_subplot(state: ExplorerState, current: TokenStep, column: int, stage: int | None):
    """One column's vector of the word at pos as bars (a note when pos has no word)."""
    word = "" if current.token is None else plotly_text(current.token)
    values, label, colour = (
        (current.embedding, f"TokenEmbedding(“{word}”)", theme.PAIR_COLOURS[2]),
        (current.pe, f"PE({state.pos})", theme.PAIR_COLOURS[0]),
        (current.total, f"input at pos {state.pos}", theme.colours(state.theme)["text"]),
    )[column]
    bars = {
        "type": "bar",
        "x": np.arange(state.d_model),
        "y": values,
        "marker": {"color": colour, "line": {"width": 0}},
        "name": label,
        "opacity": _faded(stage, column),
        "hovertemplate": "dim %{x}<br>%{y:.6f}<extra>%{fullData.name}</extra>",
    }
    note = f"no word at pos = {state.pos}" if values is None else label
    return Subplot(
        traces=[] if values is None else [bars],
        x_axis={"showgrid": False, "title": {"text": "dimension"}, "matches": "x"},
        y_axis={"range": [-2.2, 2.2] if column == 2 else [-1.1, 1.1]},
        domain=(COLUMN_DOMAINS[column], BOTTOM_DOMAIN),
        annotations=[_panel_note(note, column, False)],
    )


def figure(state: ExplorerState, stage: int | None = LAST_STAGE) -> dict:
    """Top: embedding, PE and their sum for every word. Bottom: the three for the word at pos.

    With a pipeline stage, the columns it has not reached are faded, the one it fills is
    outlined, and so are the copies of the repeated word in it.
    """
    if stage is not None:
        stage = check_stage(stage)
    rows, current = steps(state), step(state, state.pos)
    title = (
        f"{len(rows)} word{'' if len(rows) == 1 else 's'}: embedding + PE(pos) = input; pos "
        "solid, pos + k dotted"
    )
    if stage is not None:
        title = f"{stage_label(stage)}<br><sub>{title}</sub>"
    layout = theme.base_layout(state.theme, uirevision=f"tokens-{state.d_model}")
    layout.update(
        title={"text": title, "x": 0, "font": {"size": 14}},
        bargap=0.05,
        showlegend=False,
        images=stage_outlines(state, stage),
        margin={"l": 88, "r": 16, "t": 64 if stage is None else 84, "b": 48},
    )
    subplots = [_words_subplot(state, rows, column, stage) for column in range(3)]
    subplots += [_word_subplot(state, current, column, stage) for column in range(3)]
    return compose(state, layout, subplots)


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

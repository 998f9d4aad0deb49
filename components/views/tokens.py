"""A sentence as tokens: what the Transformer receives is TokenEmbedding(token) + PE(pos)."""

from __future__ import annotations

import html
import time

import numpy as np
import panel as pn
import param

from .. import derived, encoding
from ..derived import TokenStep
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import panel_caption
from ..plotkit.frame import DATA_COLUMNS, ChartData, PlotView, span_text
from ..plotkit.numbers import number, numbers_of
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


def leading_text(shown, size: int) -> str:
    """The first SHOWN_NUMBERS of a vector's printed numbers (shown), and "…" when it has more
    (size in all)."""
    return ", ".join(shown[:SHOWN_NUMBERS]) + (", …" if size > SHOWN_NUMBERS else "")


def leading_numbers(values: np.ndarray) -> str:
    """The first SHOWN_NUMBERS numbers of a vector, 3 decimals, and "…" when it has more."""
    return leading_text([number(value, 3) for value in values[:SHOWN_NUMBERS]], values.size)


def step_numbers(row: TokenStep) -> tuple[str, str, str]:
    """The leading numbers of a word's embedding, PE(pos) and their sum ("" where there is no
    word)."""
    vectors = (row.embedding, row.pe, row.total)
    return tuple("" if vector is None else leading_numbers(vector) for vector in vectors)


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


# The marks a row of the words table takes: at pos, at pos + k, elsewhere (READOUT_STYLE).
MARKS = ("current", "second", "other")


def marks_of(position: int, firsts: np.ndarray, seconds: np.ndarray) -> list[str]:
    """How the row of the word at position is marked for each pos (firsts) and pos + k
    (seconds): "current" at pos, "second" at pos + k, "other" elsewhere."""
    codes = np.where(firsts == position, 0, np.where(seconds == position, 1, 2))
    return np.array(MARKS)[codes].tolist()


def one_text(pieces: list) -> str:
    """The text of pieces made for one value (picks_kit.joined's pieces)."""
    return picks_kit.joined(1, *pieces).at(0)


def table_pieces(rows: tuple[TokenStep, ...], stage: int | None, marks: list) -> list:
    """The table of every word as picks_kit.joined's pieces, with marks[r] (marks_of) the mark
    of row r at each value: the rows' numbers and words (escaped) stay, only the marks move.

    With a stage, the column of that stage is marked and the later ones faded.
    """
    if not rows:
        return ['<p class="pe-tokens-note">Type a sentence: its words become the tokens.</p>']
    headers = ("pos", "word", "TokenEmbedding(word)", "PE(pos)", "TokenEmbedding(word) + PE(pos)")
    parts = (None, 0, 1, 2, 3)
    pieces = [
        _rows_open("pe-token-table"),
        *(_cell("th", text, part, stage) for text, part in zip(headers, parts, strict=True)),
        '</tr></thead><tbody role="rowgroup">',
    ]
    for row, mark in zip(rows, marks, strict=True):
        cells = (str(row.position), html.escape(row.token), *step_numbers(row))
        pieces += ['<tr class="pe-token-row pe-token-', mark, '" role="row">']
        pieces.extend(
            _cell("td", text, part, stage, label)
            for text, part, label in zip(cells, parts, headers, strict=True)
        )
        pieces.append("</tr>")
    pieces.append("</tbody></table>")
    pieces.append(
        '<p class="pe-tokens-note">A word has the same embedding wherever it stands; only '
        "PE(pos) differs. Reorder the words and every embedding stays the same while the sums "
        "change: that is how the model can tell “dog bites man” from “man bites dog”.</p>"
    )
    return pieces


def table_html(state: ExplorerState, stage: int | None = None) -> str:
    """Every word with the first numbers of its embedding, PE(pos) and their sum; words escaped;
    the rows pos and pos + k marked."""
    rows = steps(state)
    firsts, seconds = np.array([state.pos]), np.array([state.second_pos])
    return one_text(
        table_pieces(rows, stage, [marks_of(r.position, firsts, seconds) for r in rows])
    )


def no_word_text(pos: int, count: int) -> str:
    """Why pos has no word: the sentence of count words is shorter."""
    return f"No word at pos = {pos}: the sentence has {count} word{'s' if count != 1 else ''}"


def step_text(pos: int, count: int, token: str | None, stage: int | None) -> str:
    """The equation for token, the word at pos (None: none there, of count), with the word
    escaped; with a stage, its part marked."""
    if token is None:
        missing = no_word_text(pos, count)
        return f'<p class="pe-tokens-step">{missing}. Click a word to move pos there.</p>'
    word = html.escape(token)
    if stage is None:
        return (
            f'<p class="pe-tokens-step">output = TokenEmbedding(“<span class="pe-token-word">'
            f"{word}</span>”) + PE({pos})</p>"
        )

    def part(index: int, text: str, css: str = "pe-pipeline-part") -> str:
        classes = " ".join(filter(None, (css, stage_class(index, stage))))
        return f'<span class="{classes}" data-stage="{index}">{text}</span>'

    word = part(0, word, "pe-token-word pe-pipeline-part")
    return (
        f'<p class="pe-tokens-step">{part(3, "output")} = '
        f"{part(1, f'TokenEmbedding(“{word}”)')} + {part(2, f'PE({pos})')}</p>"
    )


def step_html(state: ExplorerState, stage: int | None = None) -> str:
    """The equation for the word at pos, with the word escaped; with a stage, its part marked."""
    token = step(state, state.pos).token
    return step_text(state.pos, len(state.words), token, stage)


def check_stage(stage: object) -> int:
    """Return stage as an int, or raise ValueError unless it is one of 0 … LAST_STAGE."""
    return encoding.check_integer("stage", stage, 0, LAST_STAGE)


def stage_label(stage: int) -> str:
    """The stage indicator: "Stage 2 of 4: embedding lookup"."""
    return f"Stage {check_stage(stage) + 1} of {len(STAGES)}: {STAGES[stage]}"


def recurring(words: list[str]) -> dict[str, list[int]]:
    """Each word that stands at several places, and those places, in the order they first
    appear."""
    places: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        places.setdefault(word, []).append(position)
    return {word: where for word, where in places.items() if len(where) > 1}


def chosen_word(words: list[str], pos: int) -> str | None:
    """The repeated word the pipeline shows: the word at pos when it recurs, else the first
    word that does; None when no word recurs."""
    repeats = recurring(words)
    if pos < len(words) and words[pos] in repeats:
        return words[pos]
    return next(iter(repeats), None)


def chosen_words(words: list[str], positions: np.ndarray) -> np.ndarray:
    """The chosen word (chosen_word) at each of positions, "" where no word recurs."""
    # Past the sentence's end, every pos has the same repeated word.
    places = np.minimum(positions, len(words))
    distinct, at = np.unique(places, return_inverse=True)
    chosen = np.array([chosen_word(words, place) or "" for place in distinct.tolist()])
    return chosen[at.ravel()]


def repeated_word(state: ExplorerState) -> tuple[str, list[int]] | None:
    """A word of the sentence that stands at several places, and those places: the word at pos
    when it recurs, else the first word that does; None when no word recurs."""
    word = chosen_word(state.words, state.pos)
    return None if word is None else (word, recurring(state.words)[word])


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


def stage_note(stage: int, count: int, pos: int, token: str | None, leading) -> str:
    """What token, the word at pos (None: none there, of count), looks like at this stage, in
    one sentence with its numbers (leading: step_numbers)."""
    embedding, pe, total = leading
    if token is None:
        return f"{no_word_text(pos, count)}, so there is only PE({pos}) = [{pe}]."
    word = f"“{html.escape(token)}”"
    notes = (
        f"The word at pos = {pos} is {word}: the model starts from the token, not yet "
        "from any numbers.",
        f"The embedding is a table lookup: TokenEmbedding({word}) = [{embedding}]. It depends on "
        "the word alone, not on where it stands.",
        f"PE({pos}) = [{pe}] depends on the position alone, not on the word.",
        f"The model receives the sum: TokenEmbedding({word}) + PE({pos}) = [{total}].",
    )
    return notes[stage]


def copies_html(same: list[TokenStep], stage: int, d_model: int) -> str:
    """Every copy of one word with its embedding (identical), PE(pos) and sum (different), and
    the verdict on them; the word escaped."""
    word = f"“{html.escape(same[0].token)}”"
    positions = [row.position for row in same]
    headers = ("pos", f"TokenEmbedding({word})", "PE(pos)", "sum")
    labels = ("pos", "TokenEmbedding", "PE(pos)", "sum")
    caption = f"{word} stands at positions {_places(positions)}"
    lines = [_rows_open("pe-pipeline-copies", caption)]
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
        f"the same {d_model} numbers at every place, bit for bit"
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


def pipeline_pieces(notes: list, groups: list[str], hidden: list) -> list:
    """The pipeline's readout as picks_kit.joined's pieces: the note (notes: its pieces), then the
    copies of every repeated word (copies_html), each hidden (hidden[g]: " hidden" or "" at
    each value) unless it is the chosen word's, so that a move of pos only shows another."""
    pieces = ['<p class="pe-pipeline-note">', *notes, "</p>"]
    if not groups:
        pieces.append(
            '<p class="pe-pipeline-verdict">No word recurs in this sentence: type one twice to '
            "see one embedding give two different sums.</p>"
        )
    for group, attribute in zip(groups, hidden, strict=True):
        pieces += ['<div class="pe-pipeline-group"', attribute, ">", group, "</div>"]
    return pieces


def hidden_of(word: str | None, chosen: np.ndarray) -> list[str]:
    """Whether the copies of word are hidden (" hidden") or not ("") at each value, whose
    chosen word (chosen_word) is chosen[v]."""
    return np.where(chosen == word, "", " hidden").tolist()


def copy_groups(state: ExplorerState, stage: int) -> dict[str, str]:
    """Each repeated word's copies (copies_html), by word."""
    rows = steps(state)
    return {
        word: copies_html([rows[position] for position in places], stage, state.d_model)
        for word, places in recurring(state.words).items()
    }


def pipeline_html(state: ExplorerState, stage: int) -> str:
    """The readout of a pipeline stage: the word at pos at that stage, then every copy of the
    repeated word with its embedding (identical), PE(pos) and sum (different); the copies of the
    other repeated words are there, hidden. Words escaped."""
    stage = check_stage(stage)
    current = step(state, state.pos)
    note = stage_note(stage, len(state.words), state.pos, current.token, step_numbers(current))
    groups = copy_groups(state, stage)
    chosen = chosen_words(state.words, np.array([state.pos]))
    hidden = [hidden_of(word, chosen) for word in groups]
    return one_text(pipeline_pieces([note], list(groups.values()), hidden))


# Columns of the figure: x domains, and the title over each (embedding + PE = input).
COLUMN_DOMAINS = ((0.0, 0.29), (0.355, 0.645), (0.71, 1.0))
COLUMN_TITLES = ("TokenEmbedding(word)", "+ PE(pos)", "= model input")
TOP_DOMAIN, BOTTOM_DOMAIN = (0.44, 0.94), (0.0, 0.28)


def _panel_note(text: str, column: int, top: bool) -> dict:
    """A small caption over a panel (paper coordinates: an empty panel draws no axes)."""
    return panel_caption(
        text, COLUMN_DOMAINS[column][0], TOP_DOMAIN[1] if top else BOTTOM_DOMAIN[1]
    )


# The dash patterns of the outlines (theme.outline_source), "solid" none.
DASHES = {"dash": "5 3", "dot": "2 3"}


def _outline(name: str, colour: str, dash: str, shown: bool, **place) -> dict:
    """A layout image outlining a box: moving or hiding it redraws no heatmap (see heatmap.py)."""
    return {
        "source": theme.outline_source(colour, DASHES.get(dash, "")),
        "sizing": "stretch",
        "layer": "above",
        "visible": shown,
        "name": name,
        **place,
    }


def stage_outlines(state: ExplorerState, stage: int | None) -> list[dict]:
    """The outline of the figure column a stage fills, then one per place of a repeated word in
    that column's top panel, shown for the copies of the repeated word (repeated_word); hidden
    at the token stage and with no stage.

    Their number and places depend on the sentence alone, so stepping through the stages or
    moving pos only edits them.
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
    chosen = chosen_word(state.words, state.pos)
    for word, places in recurring(state.words).items():
        outlines.extend(
            _outline(
                "copy",
                COPY_COLOUR,
                "dash",
                reached and word == chosen,
                xref=f"x{suffix} domain",
                yref=f"y{suffix}",
                x=0,
                y=position,
                sizex=1,
                sizey=1,
                xanchor="left",
                yanchor="middle",
            )
            for position in places
        )
    return outlines


def copy_words(words: list[str]) -> list[str]:
    """The word of each copy outline after the stage's (stage_outlines), in their order."""
    return [word for word, places in recurring(words).items() for _ in places]


def _faded(stage: int | None, column: int) -> float:
    """The opacity of a figure column: faded until the pipeline reaches it."""
    return 1.0 if stage is None or stage > column else FADED_OPACITY


def marked_rows(positions, n_words: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the outlines of rows at positions sit and whether they show: each word's row, or
    (hidden, when the sentence has no word there) the last one."""
    positions = np.asarray(positions)
    return np.minimum(positions, n_words - 1), positions < n_words


def row_outlines(state: ExplorerState, n_words: int) -> list[dict]:
    """Rows pos (solid) and pos + k (dotted) outlined across each top panel of every word, as
    layout images: a move of pos or k moves them, and never redraws the heatmaps."""
    palette = theme.colours(state.theme)
    outlines = []
    for column in range(3):
        suffix = "" if column == 0 else str(1 + column)
        for position, colour, dash, name in (
            (state.pos, palette["pos"], "solid", "pos"),
            (state.second_pos, palette["second"], "dot", "pos+k"),
        ):
            row, shown = marked_rows(position, n_words)
            outlines.append(
                _outline(
                    name,
                    colour,
                    dash,
                    bool(shown),
                    xref=f"x{suffix} domain",
                    yref=f"y{suffix}",
                    x=0,
                    y=int(row),
                    sizex=1,
                    sizey=1,
                    xanchor="left",
                    yanchor="middle",
                )
            )
    return outlines


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
        annotations=[_panel_note(f"<b>{COLUMN_TITLES[column]}</b>", column, True)],
    )


def bar_names(pos: int, token: str | None) -> tuple[str, str, str]:
    """The names of the bars of token, the word at pos (None: none there): its embedding,
    PE(pos) and their sum."""
    word = "" if token is None else plotly_text(token)
    return f"TokenEmbedding(“{word}”)", f"PE({pos})", f"input at pos {pos}"


def bar_notes(pos: int, token: str | None) -> tuple[str, str, str]:
    """The captions over the bars: their names, or that pos has no word (PE(pos) it has)."""
    names = bar_names(pos, token)
    if token is not None:
        return names
    missing = f"no word at pos = {pos}"
    return missing, names[1], missing


def _word_subplot(state: ExplorerState, current: TokenStep, column: int, stage: int | None):
    """One column's vector of the word at pos as bars; hidden (zeros) when pos has no word, so
    that the figure keeps its traces whatever pos is."""
    values = (current.embedding, current.pe, current.total)[column]
    colour = (theme.PAIR_COLOURS[2], theme.PAIR_COLOURS[0], theme.colours(state.theme)["text"])
    bars = {
        "type": "bar",
        "x": np.arange(state.d_model),
        "y": np.zeros(state.d_model) if values is None else values,
        "visible": values is not None,
        "marker": {"color": colour[column], "line": {"width": 0}},
        "name": bar_names(state.pos, current.token)[column],
        "opacity": _faded(stage, column),
        "hovertemplate": "dim %{x}<br>%{y:.6f}<extra>%{fullData.name}</extra>",
    }
    note = bar_notes(state.pos, current.token)[column]
    return Subplot(
        traces=[bars],
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
        images=stage_outlines(state, stage) + (row_outlines(state, len(rows)) if rows else []),
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
        self._step = self.text_pane(READOUT_STYLE, css_class="pe-tokens-step-pane")
        self._stage_indicator = self.step_indicator(self._indicator_html(), "pe-pipeline-stage")
        self._pipeline = self.text_pane(READOUT_STYLE, (0, 8), "pe-pipeline-readout")
        self._table = self.text_pane(READOUT_STYLE, css_class="pe-tokens-table-pane")
        return [self._pipeline, self._table]

    def update_extras(self):
        self._step.object = step_html(self.state, self.stage)
        self._pipeline.object = pipeline_html(self.state, self.stage)
        self._table.object = table_html(self.state, self.stage)

    def figure(self) -> dict:
        drawn = figure(self.state, self.stage)
        drawn["layout"].setdefault("height", self.spec.plot_height)
        return drawn

    def picks(self) -> picks_kit.Picks | None:
        # The stage is the view's own: it shapes what a move of pos shows.
        return picks(self.state, self.stage)

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
        # The controls in a column of their own: the panes a drag of pos or k changes stay the
        # chart's siblings, where the page's picker finds them (plotkit/picks.py).
        controls = pn.Column(
            pn.FlexBox(label, self._mode, flex_wrap="wrap", sizing_mode="stretch_width"),
            self._chips,
            stepper,
            sizing_mode="stretch_width",
        )
        return pn.Column(
            controls,
            self._step,
            self._pipeline,
            self._error,
            self._plot,
            self._table,
            self._data,
            sizing_mode="stretch_width",
        )


def describe_of(count: int, d_model: int, pos: int, token: str | None, first) -> str:
    """The accessible name for token, the word at pos (None: none there) of count words (plain
    text, the word as typed); first: dimension 0 of its embedding, PE(pos) and their sum,
    printed ("" where there is no word)."""
    embedding, pe, total = first
    if token is None:
        return (
            f"Model input of {count} words over {d_model} dimensions; no word at pos = "
            f"{pos}, PE({pos}) starts {pe}"
        )
    return (
        f"Model input of {count} words over {d_model} dimensions; word at pos = "
        f"{pos}, “{token}”: dimension 0 is TokenEmbedding {embedding} + PE({pos}) {pe} = {total}"
    )


def first_numbers(current: TokenStep) -> tuple[str, str, str]:
    """Dimension 0 of the step's embedding, PE(pos) and their sum, printed ("" where there is
    no word)."""
    vectors = (current.embedding, current.pe, current.total)
    return tuple("" if vector is None else number(vector[0]) for vector in vectors)


def describe(state: ExplorerState) -> str:
    """The chart's accessible name (plain text, the visitor's word as typed): the words and the
    three vectors of the word at pos."""
    current = step(state, state.pos)
    count = len(state.words)
    return describe_of(count, state.d_model, state.pos, current.token, first_numbers(current))


def caption_of(pos: int, token: str | None) -> str:
    """The Show data table's caption, for token, the word at pos (None: none there)."""
    if token is None:
        return f"PE({pos}): no word at pos = {pos}"
    return f"“{token}” at pos = {pos}: TokenEmbedding + PE = model input"


def data(state: ExplorerState) -> ChartData:
    """The embedding, PE(pos) and their sum for the word at pos, first DATA_COLUMNS dimensions."""
    current = step(state, state.pos)
    dimensions = range(min(state.d_model, DATA_COLUMNS))
    note = f"Dimensions {span_text(dimensions)} of {state.d_model} shown."
    caption = caption_of(state.pos, current.token)
    if current.token is None:
        return ChartData(
            caption=caption,
            columns=("dimension", f"PE({state.pos})"),
            rows=tuple((c, current.pe[c]) for c in dimensions),
            note=note,
        )
    return ChartData(
        caption=caption,
        columns=("dimension", "TokenEmbedding", f"PE({state.pos})", "model input"),
        rows=tuple((c, current.embedding[c], current.pe[c], current.total[c]) for c in dimensions),
        note=note,
    )


# ---- What a drag of pos or k changes (plotkit/picks.py) ---------------------------------------


def _moves(values) -> bool:
    """Whether values (one per value of an axis) are not all the same."""
    if isinstance(values, np.ndarray):
        return bool(values.size) and not bool(np.all(values == values[0]))
    return not picks_kit.single(values)


def changing(updates: list[picks_kit.Update]) -> list[picks_kit.Update]:
    """The updates whose value changes along the axis: the others stay as Python drew them."""
    return [
        update
        for update in updates
        if (
            bool(update.text.slots)
            if update.text is not None
            else _moves(np.asarray(update.index) if update.rows else update.each)
        )
    ]


def compressed(texts: list[str]) -> picks_kit.Text:
    """picks_kit.compressed(texts), found sooner: texts all alike are one text, and texts whose
    first and last differ in their words are kept whole (as compressed keeps them) without
    splitting the others."""
    if picks_kit.single(texts):
        return picks_kit.joined(len(texts), texts)
    first, last = (picks_kit.NUMBER.split(texts[end]) for end in (0, -1))
    if len(first) != len(last) or first[::2] != last[::2]:
        return picks_kit.joined(len(texts), list(texts))
    return picks_kit.compressed(texts)


def text_pieces(text: picks_kit.Text) -> list:
    """A Text as picks_kit.joined's pieces (its parts, and its slots between them)."""
    pieces = [text.parts[0]]
    for slot, part in zip(text.slots, text.parts[1:], strict=True):
        pieces += [slot, part]
    return pieces


def printed_steps(rows: tuple[TokenStep, ...], pe: np.ndarray, positions: np.ndarray) -> dict:
    """For each position, its step's numbers as the view prints them: (step_numbers,
    first_numbers). Past the sentence's end there is PE(pos) alone, printed in one call per
    column (derived.token_step's PE(pos) is the PE matrix's row, to the bit)."""
    n_words, d_model = len(rows), pe.shape[1]
    past = positions[positions >= n_words]
    leading = [numbers_of(pe[past, c], 3) for c in range(min(SHOWN_NUMBERS, d_model))]
    first = numbers_of(pe[past, 0])
    shown = {
        position: (("", leading_text([c[j] for c in leading], d_model), ""), ("", first[j], ""))
        for j, position in enumerate(past.tolist())
    }
    for position in positions[positions < n_words].tolist():
        shown[position] = (step_numbers(rows[position]), first_numbers(rows[position]))
    return shown


def _image_updates(state: ExplorerState, stage: int, moved: picks_kit.Moved) -> list:
    """The copy outlines shown (the repeated word follows pos) and the rows pos and pos + k
    outlined, at each value."""
    words = state.words
    n_words = len(words)
    chosen = chosen_words(words, moved.firsts)
    reached = stage >= 1
    updates = [
        picks_kit.Update(
            "layout",
            f"images[{1 + index}].visible",
            each=tuple((reached & (chosen == word)).tolist()),
        )
        for index, word in enumerate(copy_words(words))
    ]
    first = 1 + len(copy_words(words))
    for column in range(3 if words else 0):
        for place, positions in enumerate((moved.firsts, moved.seconds)):
            index = first + 2 * column + place
            rows, visible = marked_rows(positions, n_words)
            updates += [
                picks_kit.Update("layout", f"images[{index}].y", each=rows.astype(np.float64)),
                picks_kit.Update(
                    "layout", f"images[{index}].visible", each=tuple(visible.tolist())
                ),
            ]
    return updates


def axis_updates(
    state: ExplorerState, stage: int, moved: picks_kit.Moved, groups: dict[str, str]
) -> list:
    """The bars of the word at pos, their names and captions, the outlines, the chart's name,
    the caption and the three panes at each value of one axis (tables: picks; groups:
    copy_groups)."""
    rows = steps(state)
    pe = derived.shown_pe_matrix(state)
    n_words, count, d_model = len(rows), moved.count, state.d_model
    firsts, seconds = moved.firsts, moved.seconds
    texts = {}
    for position, (leading, first) in printed_steps(rows, pe, np.unique(firsts)).items():
        token = rows[position].token if position < n_words else None
        texts[position] = (
            describe_of(n_words, d_model, position, token, first),
            caption_of(position, token),
            step_text(position, n_words, token, stage),
            stage_note(stage, n_words, position, token, leading),
            *bar_names(position, token),
            *bar_notes(position, token),
        )
    label, caption, equation, notes, *names_notes = (
        compressed(column) for column in zip(*(texts[p] for p in firsts.tolist()), strict=True)
    )
    names, captions = names_notes[:3], names_notes[3:]
    chosen = chosen_words(state.words, firsts)
    pipeline = pipeline_pieces(
        text_pieces(notes), list(groups.values()), [hidden_of(word, chosen) for word in groups]
    )
    marks = [marks_of(row.position, firsts, seconds) for row in rows]
    word_rows = np.minimum(firsts, n_words)  # the blank row past the sentence's end
    has_word = tuple((firsts < n_words).tolist())
    bars = 3 if rows else 0  # the bars' traces follow the heatmaps'
    updates = [
        picks_kit.Update("trace", "y", bars, rows="embedding", index=word_rows),
        picks_kit.Update("trace", "y", bars + 1, rows="pe", index=firsts),
        picks_kit.Update("trace", "y", bars + 2, rows="total", index=word_rows),
        picks_kit.Update("trace", "visible", bars, each=has_word),
        picks_kit.Update("trace", "visible", bars + 2, each=has_word),
        *(picks_kit.Update("trace", "name", bars + c, text=names[c]) for c in range(3)),
        # The captions over the bars follow the three over the heatmaps.
        *(
            picks_kit.Update("layout", f"annotations[{3 + c}].text", text=captions[c])
            for c in range(3)
        ),
        *_image_updates(state, stage, moved),
        picks_kit.Update("label", text=label),
        picks_kit.Update("caption", text=caption),
        picks_kit.Update("pane", "pe-tokens-step-pane", text=equation),
        picks_kit.Update("pane", "pe-pipeline-readout", text=picks_kit.joined(count, *pipeline)),
        picks_kit.Update(
            "pane",
            "pe-tokens-table-pane",
            text=picks_kit.joined(count, *table_pieces(rows, stage, marks)),
        ),
    ]
    return changing(updates)


def picks(state: ExplorerState, stage: int = LAST_STAGE) -> picks_kit.Picks | None:
    """What a drag of pos or k moves at pipeline stage stage: the bars of the word at pos (rows
    of the tables "embedding", "pe" and "total"; a blank row past the sentence's end), their
    names and captions, the outlines, the chart's name, the caption, the equation, the pipeline
    readout and the words table; nothing when the PE matrix is too large to send."""
    stage = check_stage(stage)
    rows = steps(state)
    pe = derived.shown_pe_matrix(state)
    blank = np.zeros((1, state.d_model))
    embeddings = np.concatenate([*(row.embedding[None, :] for row in rows), blank])
    totals = np.concatenate([*(row.total[None, :] for row in rows), blank])
    if not picks_kit.fits(pe, embeddings, totals):
        return None
    tables = {"pe": pe, "embedding": embeddings, "total": totals}
    groups = copy_groups(state, stage)
    axes = tuple(
        m.picks(axis_updates(state, stage, m, groups)) for m in picks_kit.moved_positions(state)
    )
    return picks_kit.Picks(tables, axes)

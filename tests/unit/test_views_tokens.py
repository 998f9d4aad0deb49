"""The tokens view: each word's input is TokenEmbedding(word) + PE(pos), visitor text escaped."""

import math
import re

import numpy as np
import plotly.io
import pytest
from pe_explorer import encoding
from pe_explorer.fixes.plotly_patch import CONTAINER_ARRAYS, FigurePatcher, flatten, same_value
from pe_explorer.plotkit.picks import pick
from pe_explorer.state import MAX_TEXT_CHARS, MAX_TOKENS, ExplorerState
from pe_explorer.views import tokens, view_spec

HOSTILE = "<img src=x onerror=alert(1)>"


def strings_in(figure: dict) -> str:
    """Every string a figure sends to Plotly, as one JSON text."""
    return plotly.io.to_json(figure, validate=False)


def test_token_embedding_is_deterministic_and_scaled():
    first = encoding.token_embedding("park", 2048)
    assert first.shape == (2048,) and first.dtype == np.float64
    np.testing.assert_array_equal(first, encoding.token_embedding("park", 2048))
    assert not np.allclose(first, encoding.token_embedding("Park", 2048))
    assert first.std() == pytest.approx(1 / math.sqrt(2048), rel=0.1)


@pytest.mark.parametrize("bad", [None, 3, b"park"])
def test_token_embedding_rejects_non_strings(bad):
    with pytest.raises(ValueError, match="token must be a string"):
        encoding.token_embedding(bad, 8)


def test_same_word_at_two_positions_has_one_embedding_and_two_sums():
    state = ExplorerState(text="park by the park", d_model=16)
    first, _, _, last = tokens.steps(state)
    np.testing.assert_array_equal(first.embedding, last.embedding)
    assert not np.allclose(first.total, last.total)


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_each_sum_is_the_embedding_plus_pe(layout):
    state = ExplorerState(text="I sleep in my park", d_model=32, layout=layout)
    pe = encoding.encode_positions(np.arange(5), 32, layout=layout)
    for position, (word, row) in enumerate(
        zip(["I", "sleep", "in", "my", "park"], tokens.steps(state), strict=True)
    ):
        assert (row.position, row.token) == (position, word)
        np.testing.assert_array_equal(row.embedding, encoding.token_embedding(word, 32))
        np.testing.assert_array_equal(row.total, encoding.token_embedding(word, 32) + pe[position])


def test_reordering_words_changes_sums_not_embeddings():
    forward = {r.token: r for r in tokens.steps(ExplorerState(text="dog bites man"))}
    backward = {r.token: r for r in tokens.steps(ExplorerState(text="man bites dog"))}
    for word in ("dog", "man"):
        np.testing.assert_array_equal(forward[word].embedding, backward[word].embedding)
        assert not np.allclose(forward[word].total, backward[word].total)
    np.testing.assert_array_equal(forward["bites"].total, backward["bites"].total)


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
def test_tokens_figure_bars_add_up_for_the_word_at_pos(layout):
    state = ExplorerState(text="I sleep in my park", pos=4, offset=-2, d_model=64, layout=layout)
    figure = tokens.figure(state)
    heatmaps = [t for t in figure["data"] if t["type"] == "heatmap"]
    embedding, pe, total = [t for t in figure["data"] if t["type"] == "bar"]
    embedding_z, pe_z, sum_z = heatmaps
    np.testing.assert_allclose(sum_z["z"], embedding_z["z"] + pe_z["z"], atol=1e-6)
    np.testing.assert_array_equal(embedding["y"], encoding.token_embedding("park", 64))
    np.testing.assert_array_equal(pe["y"], encoding.encode_positions([4], 64, layout=layout)[0])
    np.testing.assert_array_equal(total["y"], embedding["y"] + pe["y"])
    marks = [image for image in figure["layout"]["images"] if image["name"] in ("pos", "pos+k")]
    assert {(mark["name"], mark["y"], mark["visible"]) for mark in marks} == {
        ("pos", 4, True),
        ("pos+k", 2, True),
    }
    assert sorted(mark["yref"] for mark in marks) == ["y", "y", "y2", "y2", "y3", "y3"]


def test_step_line_names_the_word_at_pos():
    state = ExplorerState(text="I sleep in my park", pos=4, offset=-2, d_model=64)
    assert "output = TokenEmbedding(“<span" in tokens.step_html(state)


def test_the_default_sentence_has_a_word_at_pos_that_recurs_elsewhere():
    """The tokens view opens on a word at pos, and on that word at other places too."""
    state = ExplorerState()
    rows = tokens.steps(state)
    assert len(rows) > state.second_pos
    word = rows[state.pos].token
    assert [row.position for row in rows if row.token == word] == [0, 4, 7]
    assert "no word" not in strings_in(tokens.figure(state))
    same = [row.total for row in rows if row.token == word]
    assert not np.allclose(same[0], same[1])


def test_pos_beyond_the_sentence_shows_pe_alone_and_says_so():
    state = ExplorerState(text="I sleep in my park", pos=7)
    figure = tokens.figure(state)
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    # The embedding's and the sum's bars stay in the figure, hidden, so that it keeps one
    # structure whatever pos is.
    assert [bar["visible"] for bar in bars] == [False, True, False]
    np.testing.assert_array_equal(bars[1]["y"], encoding.encode_positions([7], 128)[0])
    marks = [image for image in figure["layout"]["images"] if image["name"] == "pos"]
    assert not any(mark["visible"] for mark in marks)
    assert "no word at pos = 7" in strings_in(figure)
    assert "No word at pos = 7: the sentence has 5 words" in tokens.step_html(state)


def test_tokens_are_capped_by_count_and_sequence_length():
    words = " ".join(f"w{i}" for i in range(50))
    assert len(ExplorerState(text=words, n_positions=2048).words) == MAX_TOKENS
    assert ExplorerState(text=words, n_positions=3).words == ["w0", "w1", "w2"]
    assert ExplorerState(text="  spaced\tout\nwords  ").words == ["spaced", "out", "words"]
    with pytest.raises(ValueError, match="text"):
        ExplorerState(text="x" * (MAX_TEXT_CHARS + 1))


def test_hostile_text_is_escaped_in_html_and_in_plotly():
    state = ExplorerState(text=f"{HOSTILE} & <b>bold</b>", pos=0, offset=1)
    for text in (tokens.table_html(state), tokens.step_html(state)):
        assert "<img" not in text and "<b>bold" not in text
        assert "&lt;img" in text
    figure_json = strings_in(tokens.figure(state))
    assert "<img" not in figure_json and "<b>bold" not in figure_json
    assert "&lt;img" in figure_json and "&amp;" in figure_json


def test_clicking_chips_sets_pos_and_the_second_word():
    state = ExplorerState(text="dog bites man", pos=7, offset=1)
    view = view_spec("tokens").make(state)
    assert isinstance(view, tokens.TokensView)
    chips = view._chips.objects
    assert [chip.label for chip in chips] == ["dog", "bites", "man"]
    chips[2].clicks += 1
    assert state.pos == 2
    view.click_sets = "second"
    chips[0].clicks += 1
    assert (state.pos, state.offset, state.second_pos) == (2, -2, 0)
    # With a second word chosen, a new pos keeps it.
    view.click_sets = "pos"
    chips[1].clicks += 1
    assert (state.pos, state.second_pos) == (1, 0)
    assert [chip.color for chip in chips] == ["warning", "primary", "light"]
    state.text = "a b"
    assert [chip.label for chip in view._chips.objects] == ["a", "b"]


# The pipeline, stage by stage: token, embedding lookup, PE(pos), their sum.


def tokens_view(**state) -> tokens.TokensView:
    return view_spec("tokens").make(ExplorerState(**state))


def test_the_stages_are_the_four_of_the_pipeline_in_order():
    assert [tokens.stage_label(stage) for stage in range(4)] == [
        "Stage 1 of 4: the token",
        "Stage 2 of 4: embedding lookup",
        "Stage 3 of 4: position encoding PE(pos)",
        "Stage 4 of 4: their sum, the input",
    ]


@pytest.mark.parametrize("bad", [-1, 4, 1.0, True, None])
def test_a_stage_outside_the_pipeline_is_refused(bad):
    with pytest.raises(ValueError, match="stage must be an integer between 0 and 3"):
        tokens.check_stage(bad)


@pytest.mark.parametrize("bad", [-1, 4, 2.5, None])
def test_the_view_refuses_a_stage_outside_the_pipeline(bad):
    with pytest.raises(ValueError):
        tokens_view().stage = bad


def test_prev_and_next_step_within_the_stages_and_the_indicator_follows():
    view = tokens_view()
    assert view.stage == 3  # it opens on the sum
    # The view table's figure is the one the view opens with (the page's before-Python frame
    # and the storm tests compare with it).
    opening, drawn = tokens.figure(view.state), view.figure()
    assert same_value(opening["data"], drawn["data"])
    assert opening["layout"]["title"] == drawn["layout"]["title"]
    view.stage = 0
    view._prev.clicks += 1
    assert view.stage == 0
    seen = []
    for _ in range(5):
        view._next.clicks += 1
        seen.append(view.stage)
    assert seen == [1, 2, 3, 3, 3]
    assert "Stage 4 of 4: their sum, the input" in view._stage_indicator.object
    view._prev.clicks += 1
    assert view.stage == 2
    assert "Stage 3 of 4" in view._stage_indicator.object
    assert {"pe-pipeline-prev", "pe-pipeline-next", "pe-pipeline-play"} <= {
        css for button in (view._prev, view._next, view._play) for css in button.css_classes
    }
    assert "pe-pipeline-stage" in view._stage_indicator.css_classes


def test_the_stage_is_the_views_own_not_url_state():
    assert "stage" not in ExplorerState.param
    view = tokens_view()
    view.stage = 2
    assert tokens_view().stage == 3


class Clock:
    """A stand-in for time.monotonic that moves only when told."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(tokens.time, "monotonic", clock)
    return clock


def test_a_play_tick_at_once_after_the_press_does_not_skip_a_stage(clock):
    """Under asyncio (Pyodide) the first tick comes the moment Play starts."""
    view = tokens_view()
    view.stage = 0
    view.play_period = 1000
    view.toggle_play()
    view.advance()
    assert view.stage == 0
    clock.now += 1.0
    view.advance()
    assert view.stage == 1 and view.playing
    view.stop_playing()


def test_play_from_the_last_stage_starts_again_from_the_first(clock):
    view = tokens_view()
    view.stage = 3
    view.toggle_play()
    assert view.stage == 0 and view.playing
    for _ in range(5):
        clock.now += 1.0
        view.advance()
    assert view.stage == 3 and not view.playing


@pytest.mark.parametrize("button", ["_prev", "_next", "_play"])
def test_pressing_prev_next_or_play_again_stops_play(clock, button):
    view = tokens_view()
    view.stage = 1
    view.toggle_play()
    player = view._player
    getattr(view, button).clicks += 1
    assert not view.playing and view._player is None and not player.running
    clock.now += 5.0
    stage = view.stage
    view.advance()
    assert view.stage == stage


def test_repeated_word_is_the_word_at_pos_when_it_recurs():
    assert tokens.repeated_word(ExplorerState()) == ("the", [0, 4, 7])
    state = ExplorerState(text="a dog saw a dog", pos=1)
    assert tokens.repeated_word(state) == ("dog", [1, 4])
    state.pos = 2  # "saw" does not recur: the first word that does
    assert tokens.repeated_word(state) == ("a", [0, 3])
    assert tokens.repeated_word(ExplorerState(text="no word here recurs")) is None


def test_copies_of_a_word_share_their_embedding_bit_for_bit_and_differ_in_sum():
    state = ExplorerState(text="park by the park", d_model=64, pos=0)
    first, last = tokens.copies(state)
    assert (first.position, last.position) == (0, 3)
    assert first.embedding.tobytes() == last.embedding.tobytes()
    assert np.abs(first.total - last.total).max() > 0.1


def shown_copies(text: str) -> str:
    """The copies a pipeline readout shows: those of the repeated word, the other words' hidden."""
    groups = text.split('<div class="pe-pipeline-group"')[1:]
    (shown,) = [group for group in groups if not group.startswith(" hidden")]
    return shown


def copy_rows(text: str) -> list[list[str]]:
    """The cells of each row of the copies table of a pipeline readout."""
    table = shown_copies(text).split('class="pe-pipeline-copies"')[1].split("</table>")[0]
    rows = table.split('<tr class="pe-pipeline-copy"')[1:]
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in rows]


def test_the_sum_stage_shows_one_embedding_and_different_sums_for_a_repeated_word():
    state = ExplorerState()
    text = tokens.pipeline_html(state, 3)
    rows = copy_rows(text)
    assert [row[0] for row in rows] == ["0", "4", "7"]
    assert len({row[1] for row in rows}) == 1  # embedding
    assert len({row[3] for row in rows}) == 3  # sum
    # The sum column is the stage's; its cells are marked.
    assert len(re.findall(r'<td class="pe-pipeline-current"[^>]*>', shown_copies(text))) == 3
    # Two sums of one word differ by PE alone: at i and j they are offset_distance(j − i) apart.
    closest = min(encoding.offset_distance(k, 128) for k in (4, 7, 3))
    assert f"the closest two are {closest:.3f} apart" in text


def test_the_embedding_stage_names_the_repeated_word_and_its_identical_numbers():
    text = shown_copies(tokens.pipeline_html(ExplorerState(), 1))
    assert "“the” stands at positions 0, 4 and 7" in text
    assert "the same 128 numbers at every place, bit for bit" in text
    (header,) = re.findall(r'<th class="pe-pipeline-current"[^>]*>([^<]*)</th>', text)
    assert header == "TokenEmbedding(“the”)"
    # Sums are there, faded until their stage.
    assert 'class="pe-pipeline-later">all different' in text


def test_the_readout_shows_the_copies_of_the_repeated_word_and_hides_the_others():
    """Every repeated word's copies are in the readout, so that a move of pos only shows
    another's: "the" (0, 4, 7) at pos 7, "sat" (2, 9) at pos 2."""
    state = ExplorerState(pos=7)
    text = tokens.pipeline_html(state, 3)
    assert text.count('<div class="pe-pipeline-group"') == 2
    assert [row[0] for row in copy_rows(text)] == ["0", "4", "7"]
    state.pos = 2
    assert [row[0] for row in copy_rows(tokens.pipeline_html(state, 3))] == ["2", "9"]


def test_a_sentence_without_repeats_says_so():
    text = tokens.pipeline_html(ExplorerState(text="dog bites man", pos=0), 1)
    assert "No word recurs" in text and "pe-pipeline-copies" not in text


@pytest.mark.parametrize("stage", range(4))
def test_the_figure_fades_the_columns_not_reached_and_outlines_the_current_one(stage):
    state = ExplorerState()
    figure = tokens.figure(state, stage)
    heatmaps = [t for t in figure["data"] if t["type"] == "heatmap"]
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    for column, (heatmap, bar) in enumerate(zip(heatmaps, bars, strict=True)):
        expected = 1.0 if column < stage else tokens.FADED_OPACITY
        assert heatmap["opacity"] == bar["opacity"] == expected
    outline, *others = figure["layout"]["images"]
    # One outline per place of a repeated word ("the": 0, 4, 7; "sat": 2, 9), those of the
    # repeated word at pos shown once the pipeline reaches a column.
    copies = [image for image in others if image["name"] == "copy"]
    assert [image["y"] for image in copies] == [0, 4, 7, 2, 9]
    assert [image["y"] for image in copies if image["visible"]] == ([0, 4, 7] if stage else [])
    assert outline["visible"] == (stage > 0)
    if stage:
        left, right = tokens.COLUMN_DOMAINS[stage - 1]
        assert outline["x"] < left < right < outline["x"] + outline["sizex"]
        axis = "" if stage == 1 else str(stage)
        assert {image["yref"] for image in copies} == {f"y{axis}"}
    assert figure["layout"]["title"]["text"].startswith(tokens.stage_label(stage))


def test_stepping_the_stages_edits_the_figure_without_resending_the_matrices():
    view = tokens_view(d_model=256)
    patcher = FigurePatcher()
    patcher.reset(view.figure())
    for stage in (1, 2, 3):
        view.stage = stage
        restyle, relayout, _ = patcher.patch(view.figure())
        assert set(restyle) == {"opacity"}
        assert all(path.startswith(("images[", "title.")) for path in relayout)


def test_the_stage_marks_its_part_of_the_equation_and_its_table_column():
    state = ExplorerState()
    equation = tokens.step_html(state, 2)
    assert re.findall(r'class="pe-pipeline-part pe-pipeline-current"[^>]*>([^<]*)<', equation) == [
        "PE(7)"
    ]
    table = tokens.table_html(state, 1)
    assert re.findall(r'<th class="pe-pipeline-current"[^>]*>([^<]*)</th>', table) == [
        "TokenEmbedding(word)"
    ]
    assert len(re.findall(r'<th class="pe-pipeline-later"[^>]*>', table)) == 2


@pytest.mark.parametrize("stage", range(4))
def test_hostile_repeated_text_is_escaped_in_the_pipeline_readout(stage):
    state = ExplorerState(text=f"{HOSTILE} & {HOSTILE}", pos=0, offset=1)
    for text in (tokens.pipeline_html(state, stage), tokens.step_html(state, stage)):
        assert "<img" not in text
        assert "&lt;img" in text
    assert "<img" not in strings_in(tokens.figure(state, stage))


@pytest.mark.parametrize("stage", range(4))
def test_a_pick_of_pos_is_what_the_view_draws_at_each_stage(stage):
    """Python computes, the page picks, at every stage of the pipeline: the bars, the outlines,
    the name, the equation, the pipeline readout (its repeated word following pos) and the
    table, at a repeated word, a word seen once and past the sentence's end."""
    view = tokens_view(text="a dog saw a dog", pos=1, offset=2)
    view.stage = stage
    view.__panel__()
    picks = view.picks()
    panes = {"pe-tokens-step-pane": view._step, "pe-pipeline-readout": view._pipeline}
    panes["pe-tokens-table-pane"] = view._table
    for pos in (2, 3, 9):
        picked = pick(picks, "pos", pos)
        view.state.pos = pos
        figure = view._plot.object
        layout = flatten(figure["layout"], items=CONTAINER_ARRAYS)
        assert picked["label"] == view._plot.label
        assert all(picked["pane"][name] == pane.object for name, pane in panes.items())
        for index, attributes in picked["trace"].items():
            trace = flatten(figure["data"][index])
            assert all(
                same_value(np.asarray(v).tolist(), np.asarray(trace[path]).tolist())
                for path, v in attributes.items()
            )
        assert all(same_value(value, layout[path]) for path, value in picked["layout"].items())
    assert "No word at pos = 9" in view._step.object

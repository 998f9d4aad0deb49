"""The tokens view: each word's input is TokenEmbedding(word) + PE(pos), visitor text escaped."""

import math

import numpy as np
import plotly.io
import pytest

from components import encoding
from components.state import MAX_TEXT_CHARS, MAX_TOKENS, ExplorerState
from components.views import tokens, view_spec

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
    marked = {s["name"]: (s["y0"] + s["y1"]) / 2 for s in figure["layout"]["shapes"]}
    assert marked == {"pos": 4, "pos+k": 2}


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
    (bar,) = [t for t in figure["data"] if t["type"] == "bar"]
    np.testing.assert_array_equal(bar["y"], encoding.encode_positions([7], 128)[0])
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

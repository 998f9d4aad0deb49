"""The NoPE view: with no position information, reversing a sentence only reorders its scores."""

import json
import math

import numpy as np
import plotly.graph_objs as go
import plotly.io
import pytest
from pe_explorer import derived, encoding
from pe_explorer.state import ExplorerState
from pe_explorer.views import nope

HOSTILE = "<img src=x onerror=alert(1)> <script>alert(2)</script> & <b>bold</b>"
SENTENCES = [
    "the cat sat on the mat and the dog sat",
    "dog bites man",
    "a rose is a rose",
    "a b a",
    "x y",
]


def strings(value) -> list[str]:
    """Every string in a figure, however deeply nested."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in strings(item)]
    return []


def reversal(n: int) -> np.ndarray:
    """P: the permutation matrix that reverses n positions."""
    return np.eye(n)[::-1]


def scores(words, d_model: int, with_pe: bool = False) -> np.ndarray:
    """E·Eᵀ/√d_model from the token embeddings, or the same with PE(0 … n − 1) added."""
    rows = np.stack([encoding.token_embedding(word, d_model) for word in words])
    if with_pe:
        rows = rows + encoding.positional_encoding(len(words), d_model)
    return rows @ rows.T / math.sqrt(d_model)


@pytest.mark.parametrize("text", SENTENCES)
@pytest.mark.parametrize("d_model", [2, 16, 512, 2048])
def test_reversed_scores_are_exactly_p_s_p_transposed(text, d_model):
    state = ExplorerState(text=text, d_model=d_model)
    forward, backward = (trace["z"] for trace in nope.figure(state)["data"])
    words = text.split()
    p = reversal(len(words))
    # Multiplying by a permutation matrix only moves numbers: the identity holds bit for bit.
    np.testing.assert_array_equal(backward, p @ forward @ p.T)
    np.testing.assert_allclose(forward, scores(words, d_model), rtol=0, atol=1e-12)
    np.testing.assert_allclose(backward, scores(words[::-1], d_model), rtol=0, atol=1e-12)
    assert derived.reversed_scores(tuple(words), d_model).without_position == 0.0
    assert '<span class="pe-nope-difference">0</span>' in nope.readout(state)


@pytest.mark.parametrize("text", SENTENCES)
@pytest.mark.parametrize("d_model", [2, 16, 512, 2048])
def test_with_the_encoding_added_the_reversed_scores_differ(text, d_model):
    state = ExplorerState(text=text, d_model=d_model, base=100.0, layout="concatenated")
    words = text.split()
    p = reversal(len(words))
    expected = np.abs(
        scores(words[::-1], d_model, with_pe=True) - p @ scores(words, d_model, with_pe=True) @ p.T
    ).max()
    shown = derived.reversed_scores(tuple(words), d_model).with_encoding
    # The contrast uses the paper's encoding (base 10 000, interleaved), not the state's.
    assert shown == pytest.approx(expected, rel=1e-9)
    assert shown > 1e-3
    assert f'<span class="pe-nope-encoded-difference">{shown:.6g}</span>' in nope.readout(state)


def test_figure_labels_the_rows_and_columns_with_the_words_in_each_order():
    figure = nope.figure(ExplorerState(text="dog bites man"))
    layout = figure["layout"]
    for suffix, words in (("", ["dog", "bites", "man"]), ("2", ["man", "bites", "dog"])):
        assert layout[f"xaxis{suffix}"]["ticktext"] == words
        assert layout[f"yaxis{suffix}"]["ticktext"] == words
        assert layout[f"yaxis{suffix}"]["tickvals"] == [0, 1, 2]
    assert figure["data"][1]["text"][0][2] == "“man” · “dog”"


def test_visitor_html_is_escaped_in_the_readout_and_the_figure():
    state = ExplorerState(text=HOSTILE)
    text = nope.readout(state)
    assert "<img" not in text and "<script" not in text and "<b>bold" not in text
    assert "&lt;img" in text and "&lt;script&gt;" in text and "&amp;" in text
    shown = " ".join(strings(nope.figure(state)))
    assert "<img" not in shown and "<script" not in shown and "<b>bold" not in shown
    assert "&lt;script&gt;" in shown and "&amp;" in shown


def test_long_words_are_cut_in_labels():
    word = "w" * 100
    figure = nope.figure(ExplorerState(text=f"{word} short"))
    assert figure["layout"]["xaxis"]["ticktext"] == ["w" * 11 + "…", "short"]


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_an_empty_sentence_gives_a_message_and_a_valid_figure(text):
    state = ExplorerState(text=text)
    figure = nope.figure(state)
    assert figure["data"] == []
    assert "No words" in figure["layout"]["annotations"][0]["text"]
    go.Figure(data=figure["data"], layout=figure["layout"])
    assert 'class="pe-nope-readout pe-nope-empty">No words' in nope.readout(state)
    assert nope.describe(state) == "No position information: 0 words, no order to tell"


def test_one_word_gives_a_message_and_a_valid_figure():
    state = ExplorerState(text="<i>solo</i>")
    figure = nope.figure(state)
    assert figure["data"] == []
    assert "One word" in figure["layout"]["annotations"][0]["text"]
    go.Figure(data=figure["data"], layout=figure["layout"])
    text = nope.readout(state)
    assert "pe-nope-one-word" in text and "&lt;i&gt;solo" in text and "<i>" not in text


def test_the_sentence_is_cut_by_the_sequence_length():
    state = ExplorerState(text="a b c d e f", n_positions=4, pos=0, offset=0)
    assert tuple(state.words) == ("a", "b", "c", "d")
    assert nope.figure(state)["data"][0]["z"].shape == (4, 4)


@pytest.mark.parametrize(
    "state",
    [{}, {"text": HOSTILE, "theme": "dark"}, {"d_model": 2048, "n_positions": 2048}, {"text": ""}],
    ids=["default", "hostile-dark", "largest", "empty"],
)
def test_figure_follows_plotlys_schema_unchanged(state):
    figure = nope.figure(ExplorerState(**state))
    unvalidated = go.Figure(data=figure["data"], layout=figure["layout"], _validate=False)
    validated = go.Figure(data=figure["data"], layout=figure["layout"])
    assert json.loads(plotly.io.to_json(unvalidated, validate=False)) == json.loads(
        plotly.io.to_json(validated)
    )


def test_cached_scores_are_read_only():
    with pytest.raises(ValueError):
        nope.figure(ExplorerState())["data"][0]["z"][0, 0] = 1.0

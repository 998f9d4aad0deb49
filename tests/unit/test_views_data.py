"""Each view's "Show data": a table of the numbers its chart draws, near the selection."""

import html
import math
import re
from html.parser import HTMLParser

import pytest
from pe_explorer.plotkit.frame import ALL_PAIRS, ChartData, data_html, indices_near
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS, alibi, dotproduct, heatmap, rope, tokens, view_spec

MINUS = "\u2212"


def shown(value: float) -> str:
    """value as the tables print it: 4 decimals, minus as U+2212."""
    text = f"{value:.4f}"
    return text.replace("-", MINUS) if text != "-0.0000" else "0.0000"


class TableReader(HTMLParser):
    """The caption, header cells (with their scope) and body rows of a data_html table."""

    def __init__(self):
        super().__init__()
        self.caption, self.headers, self.rows, self.summary = "", [], [], ""
        self._tag, self._in_body, self._row = None, False, None

    def handle_starttag(self, tag, attrs):
        self._tag = tag
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self._row = []
            self.rows.append(self._row)
        elif tag == "th" and not self._in_body:
            self.headers.append([dict(attrs).get("scope"), ""])
        elif tag in ("th", "td") and self._row is not None:
            self._row.append("")

    def handle_data(self, data):
        if self._tag == "caption":
            self.caption += data
        elif self._tag == "summary":
            self.summary += data
        elif self._tag == "th" and not self._in_body:
            self.headers[-1][1] += data
        elif self._tag in ("th", "td") and self._row is not None:
            self._row[-1] += data

    def handle_endtag(self, tag):
        self._tag = None


def read(table: ChartData) -> TableReader:
    reader = TableReader()
    reader.feed(data_html(table))
    return reader


def cell(reader: TableReader, row_label: str, column_label: str) -> str:
    column = [label for _, label in reader.headers].index(column_label)
    (row,) = [row for row in reader.rows if row[0] == row_label]
    return row[column]


PAIR_COLUMNS = ("pair i", "layer type")


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.name)
@pytest.mark.parametrize(
    "state",
    [{}, {"d_model": 4, "n_positions": 10, "pos": 9, "offset": -9}, {"pos": 60, "offset": 20}],
    ids=["default", "small", "beyond-rows"],
)
def test_every_view_lists_its_numbers_in_a_captioned_table(spec, state):
    table = spec.data(ExplorerState(**state))
    reader = read(table)
    assert reader.summary == "Show data"
    assert reader.caption == table.caption
    assert [scope for scope, _ in reader.headers] == ["col"] * len(table.columns)
    assert all(len(row) == len(table.columns) for row in reader.rows)
    # A table of pairs lists every pair up to ALL_PAIRS; any other, a window of 16 rows at most.
    assert 0 < len(reader.rows) <= (ALL_PAIRS if table.columns[0] in PAIR_COLUMNS else 16)
    numbers = [text for row in reader.rows for text in row[1:]]
    # Four decimals, or a word for what is not drawn (masked, not filled yet).
    assert all(re.fullmatch(r"−?\d+\.\d{4}|–|masked|[\w.+−-]+", text) for text in numbers)


def test_every_table_scrolls_sideways_on_its_own():
    page = data_html(VIEWS[0].data(ExplorerState()))
    assert '<div class="pe-data-scroll" role="region" tabindex="0"' in page
    assert page.startswith('<details class="pe-data"><summary>Show data</summary>')


@pytest.mark.parametrize(
    ("pos", "n_positions", "rows"),
    [(7, 64, "4–10"), (0, 64, "0–6"), (63, 64, "57–63"), (2, 3, "0–2")],
)
def test_the_heatmap_lists_the_rows_near_pos_and_says_so(pos, n_positions, rows):
    table = heatmap.data(ExplorerState(pos=pos, n_positions=n_positions, offset=0))
    reader = read(table)
    first, last = (int(x) for x in rows.split("–"))
    assert [row[0] for row in reader.rows] == [str(r) for r in range(first, last + 1)]
    assert table.note.startswith(f"Rows {rows} of {n_positions}")
    assert "Export has the whole matrix" in table.note
    assert len(reader.headers) == 1 + 16


def test_the_heatmap_table_holds_the_worked_example():
    reader = read(heatmap.data(ExplorerState(pos=7)))
    assert cell(reader, "7", "dim 6") == shown(math.sin(7 / 10000 ** (6 / 128)))
    assert cell(reader, "7", "dim 6") == f"{MINUS}0.9861"
    assert cell(reader, "10", "dim 1") == shown(math.cos(10))


def test_the_heatmap_table_follows_pos():
    state = ExplorerState(pos=7)
    view = view_spec("heatmap").make(state)
    assert ">10</th>" in view._data.object and ">11</th>" not in view._data.object
    state.pos = 8
    assert ">11</th>" in view._data.object
    assert view._plot.label.endswith(shown(math.sin(8 / 10000 ** (6 / 128))))


@pytest.mark.parametrize("similarity", ["dot", "cosine"])
def test_the_dot_products_list_entries_near_pos_and_pos_plus_k(similarity):
    reader = read(dotproduct.data(ExplorerState(pos=7, offset=3, similarity=similarity)))
    d_of_3 = sum(math.cos(3 / 10000 ** (2 * i / 128)) for i in range(64))
    expected = 2 * d_of_3 / 128 if similarity == "cosine" else d_of_3
    assert cell(reader, "7", "10") == shown(expected)
    assert cell(reader, "4", "7") == shown(expected)
    assert cell(reader, "7", "7") == shown(1.0 if similarity == "cosine" else 64.0)


def test_the_rope_table_is_constant_along_its_diagonals():
    reader = read(rope.data(ExplorerState(pos=7, offset=2)))
    assert cell(reader, "7", "9") == cell(reader, "8", "10") == cell(reader, "5", "7")


def test_the_alibi_table_lists_biases_and_masks_later_keys():
    reader = read(alibi.data(ExplorerState(pos=7, offset=1, heads=8)))
    assert cell(reader, "1", "key 4") == shown(-1.5)
    assert cell(reader, "8", "key 5") == shown(-2 / 256)
    assert cell(reader, "1", "key 8") == "masked"


def test_visitor_text_is_escaped_in_the_table_and_plain_in_the_name():
    state = ExplorerState(text="<b>x</b> y", pos=0, d_model=8)
    page = data_html(tokens.data(state))
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>" not in page
    assert "“<b>x</b>”" in tokens.describe(state)
    nope_page = data_html(view_spec("nope").data(state))
    assert "<b>" not in nope_page and html.escape("0 <b>x</b>") in nope_page


def test_the_tokens_table_holds_pe_of_pos_beside_the_embedding_and_the_sum():
    reader = read(tokens.data(ExplorerState(text="a b c", pos=1, d_model=8)))
    assert cell(reader, "0", "PE(1)") == shown(math.sin(1.0))
    embedding, pe, total = (
        float(cell(reader, "1", c).replace(MINUS, "-"))
        for c in ("TokenEmbedding", "PE(1)", "model input")
    )
    assert pe == float(shown(math.cos(1.0)).replace(MINUS, "-"))
    assert abs(embedding + pe - total) <= 2e-4


@pytest.mark.parametrize(
    ("center", "count", "size", "expected"),
    [
        (7, 64, 7, range(4, 11)),
        (0, 64, 7, range(0, 7)),
        (70, 64, 7, range(57, 64)),
        (1, 3, 7, range(0, 3)),
        (8, 64, 16, range(1, 17)),
    ],
)
def test_a_window_keeps_its_size_inside_the_range(center, count, size, expected):
    assert indices_near(center, count, size) == expected


@pytest.mark.parametrize("view", ["scaling", "frequency"])
@pytest.mark.parametrize("d_model", [128, 512])
def test_a_table_of_pairs_lists_every_pair_and_marks_the_charts_ones(view, d_model):
    state = ExplorerState(d_model=d_model, scaling="yarn", pairs=[0, 3, 40])
    table = view_spec(view).data(state)
    reader = read(table)
    assert [row[0] for row in reader.rows] == [str(i) for i in range(d_model // 2)]
    marked = re.findall(r'<tr class="pe-data-marked"><th scope="row">(\d+)<span', data_html(table))
    assert marked and sorted(map(int, marked)) == sorted(table.marked)
    assert html.unescape(data_html(table)).count("(marked)") == len(table.marked)
    if view == "frequency":
        assert table.marked == {0, 3, 40}
    else:  # the band ends: where the ramp begins and ends, and the first and last two pairs
        bands = [row[-1] for row in reader.rows]
        starts = {i for i in range(1, len(bands)) if bands[i] != bands[i - 1]}
        assert {0, 1, len(bands) - 2, len(bands) - 1} | starts <= set(table.marked)


@pytest.mark.parametrize("view", ["scaling", "frequency"])
def test_a_table_of_more_pairs_shows_a_window_and_says_so(view):
    table = view_spec(view).data(ExplorerState(d_model=1024, scaling="yarn"))
    assert 2 < len(table.rows) <= 16
    assert "of 512" in table.note

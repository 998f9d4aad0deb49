"""Each chart's accessible name: one sentence of what it shows, with its numbers now.

The numbers are checked against closed forms computed here with math, not with the functions the
views use. The names print 4 decimals with U+2212 for the minus, as the hover labels do.
"""

import math

import pytest
from pe_explorer import encoding, methods
from pe_explorer.state import ExplorerState
from pe_explorer.views import VIEWS, code, view_spec

BASE = 10000.0


def accessible_name(view: str, state: ExplorerState) -> str:
    """The view's describe: its chart's accessible name for state."""
    return view_spec(view).describe(state)


def shown(value: float) -> str:
    """value as the names print it: 4 decimals, minus as U+2212."""
    text = f"{value:.4f}"
    return text.replace("-", "\u2212") if text != "-0.0000" else "0.0000"


def omega(i: int, d_model: int, base: float = BASE) -> float:
    """ω_i = 1 / base^(2i / d_model)."""
    return 1.0 / base ** (2 * i / d_model)


def dot(k: int, d_model: int, base: float = BASE) -> float:
    """D(k) = Σ_i cos(k·ω_i)."""
    return sum(math.cos(k * omega(i, d_model, base)) for i in range(d_model // 2))


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.name)
def test_every_view_names_its_chart_in_one_plain_sentence(spec):
    name = spec.describe(ExplorerState())
    assert isinstance(name, str) and name
    assert "\n" not in name and "<sub>" not in name


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.name)
def test_every_view_shows_its_name_on_its_chart(spec):
    view = spec.make(ExplorerState(pos=3, offset=2))
    assert view._plot.label == view.description()
    assert view._plot.label


@pytest.mark.parametrize(
    ("pos", "d_model", "n_positions"), [(7, 128, 64), (20, 64, 100), (0, 16, 10)]
)
def test_the_heatmap_names_its_size_its_row_and_the_example_cell(pos, d_model, n_positions):
    state = ExplorerState(pos=pos, d_model=d_model, n_positions=n_positions, offset=1)
    name = accessible_name("heatmap", state)
    assert f"PE matrix, {n_positions} positions by {d_model} dimensions" in name
    assert f"row {pos} highlighted" in name
    # Dimension 6 is the sine of pair 3 in the interleaved layout.
    assert name.endswith(f"PE({pos}, 6) = {shown(math.sin(pos * omega(3, d_model)))}")


def test_the_worked_example_reads_as_the_paper_prints_it():
    assert accessible_name("heatmap", ExplorerState(pos=7)).endswith("PE(7, 6) = \u22120.9861")


@pytest.mark.parametrize(
    ("view", "values", "parameter", "value"),
    [
        ("heatmap", {"pos": 7}, "pos", 8),
        ("compare", {"pos": 7, "offset": 1}, "offset", 5),
        ("rotation", {"pos": 7, "offset": 1}, "pos", 9),
        ("properties", {"pos": 7, "d_model": 4}, "pos", 30),
    ],
)
def test_the_name_follows_what_moves(view, values, parameter, value):
    state = ExplorerState(**values)
    before = accessible_name(view, state)
    setattr(state, parameter, value)
    assert accessible_name(view, state) != before


def test_the_heatmap_name_gives_the_example_cell_at_pos():
    assert shown(math.sin(8 * omega(3, 128))) in accessible_name("heatmap", ExplorerState(pos=8))


@pytest.mark.parametrize(("pos", "offset", "d_model"), [(7, 1, 128), (7, 5, 128), (30, 12, 64)])
def test_the_comparison_names_dot_product_cosine_and_distance(pos, offset, d_model):
    name = accessible_name("compare", ExplorerState(pos=pos, offset=offset, d_model=d_model))
    d = dot(offset, d_model)
    assert f"PE({pos}) and PE({pos + offset})" in name
    assert f"dot product {shown(d)}" in name
    assert f"cosine similarity {shown(2 * d / d_model)}" in name
    assert f"distance {shown(math.sqrt(d_model - 2 * d))}" in name


@pytest.mark.parametrize("pos", [7, 33])
def test_the_waves_name_the_sine_and_cosine_of_each_pair_at_pos(pos):
    state = ExplorerState(pos=pos, pairs=[0, 5])
    name = accessible_name("waves", state)
    assert f"lines at pos = {pos} and pos + k = {state.second_pos}" in name
    for i in (0, 5):
        angle = pos * omega(i, 128)
        assert f"pair {i}: sin {shown(math.sin(angle))}, cos {shown(math.cos(angle))}" in name


@pytest.mark.parametrize(("d_model", "base"), [(128, 10000.0), (16, 500.0)])
def test_the_frequencies_name_the_shortest_and_longest_wavelength(d_model, base):
    name = accessible_name("frequency", ExplorerState(d_model=d_model, base=base))
    longest = 2 * math.pi * base ** ((d_model - 2) / d_model)
    assert f"wavelengths from {shown(2 * math.pi)} to {shown(longest)} positions" in name


@pytest.mark.parametrize(("offset", "similarity"), [(1, "dot"), (9, "dot"), (4, "cosine")])
def test_the_dot_products_name_diagonal_k_and_its_value(offset, similarity):
    state = ExplorerState(pos=3, offset=offset, similarity=similarity)
    name = accessible_name("dotproduct", state)
    d = dot(offset, 128)
    assert f"diagonal k = {offset} marked" in name
    assert f"all {64 - offset} entries" in name
    expected = f"cosine {shown(2 * d / 128)}" if similarity == "cosine" else f"D({offset})"
    assert expected in name
    if similarity == "dot":
        assert f"D({offset}) = {shown(d)}" in name


@pytest.mark.parametrize(("pos", "offset", "pair"), [(7, 1, 0), (10, 25, 3)])
def test_the_rotation_names_both_points_and_the_angle(pos, offset, pair):
    state = ExplorerState(pos=pos, offset=offset, rotation_pair=pair)
    name = accessible_name("rotation", state)
    w = omega(pair, 128)
    assert f"turned by k·ω_{pair} = {shown(offset * w)} rad" in name
    first, second = (
        f"({shown(math.sin(p * w))}, {shown(math.cos(p * w))})" for p in (pos, pos + offset)
    )
    assert f"PE({pos}) at (sin, cos) = {first}" in name
    assert f"to PE({pos + offset}) at {second}" in name


def test_the_tokens_name_the_word_at_pos_as_typed_and_its_sum():
    state = ExplorerState(text="<b>x</b> & y", pos=0, d_model=8)
    name = accessible_name("tokens", state)
    assert "“<b>x</b>”" in name and "&lt;" not in name
    embedding = encoding.token_embedding("<b>x</b>", 8)[0]  # a fixed random vector: data
    assert f"TokenEmbedding {shown(embedding)} + PE(0) 0.0000 = {shown(embedding)}" in name


def test_the_tokens_name_follows_pos():
    state = ExplorerState(text="a b c d", pos=1)
    assert "“b”" in accessible_name("tokens", state)
    assert f"PE(1) {shown(math.sin(1.0))}" in accessible_name("tokens", state)
    state.pos = 2
    assert "“c”" in accessible_name("tokens", state)


def test_the_tokens_name_says_when_pos_has_no_word():
    name = accessible_name("tokens", ExplorerState(text="one two", pos=5))
    assert f"no word at pos = 5, PE(5) starts {shown(math.sin(5.0))}" in name


@pytest.mark.parametrize("d_model", [128, 16])
def test_the_properties_name_neighbour_distance_and_bounds(d_model):
    name = accessible_name("properties", ExplorerState(pos=7, d_model=d_model))
    assert f"neighbours are {shown(math.sqrt(d_model - 2 * dot(1, d_model)))} apart" in name
    assert "Distance from PE(7) to PE(q)" in name


@pytest.mark.parametrize(("step", "filled"), [(1, 0), (3, 64), (4, 128)])
def test_the_code_names_its_step_and_the_cell_it_follows(step, filled):
    state = ExplorerState(pos=7)
    name = code.describe(state, step)
    # The example pair is d_model/4 = 32; its sine sits in column 64 (interleaved).
    assert name.startswith(f"Step {step} of 5")
    assert f"{filled} columns filled" in name
    assert name.endswith(f"pe[7, 64] = {shown(math.sin(7 * omega(32, 128)))}")


def test_the_code_view_names_the_step_it_shows():
    view = code.CodeView(state=ExplorerState(), spec=next(s for s in VIEWS if s.name == "code"))
    view.step = 3
    assert view._plot.label.startswith("Step 3 of 5")


@pytest.mark.parametrize("offset", [1, -6])
def test_the_methods_name_each_score_at_k(offset):
    name = accessible_name("methods", ExplorerState(pos=10, offset=offset))
    k = abs(offset)
    assert f"at k = {k}:" in name
    assert f"D(k) = Σ cos(k·ω_i): {shown(dot(k, 128))}" in name
    assert f"head 1 (m = 1/2): {shown(-k / 2)}" in name
    assert f"head 8 (m = 1/256): {shown(-k / 256)}" in name


def rope_score(q, key, m, n, base=BASE):
    """q rotated by m·θ_i and key by n·θ_i, pair (2i, 2i + 1), then their dot product."""
    total = 0.0
    for i in range(q.size // 2):
        theta = 1.0 / base ** (2 * i / q.size)

        def turned(x, position, i=i, theta=theta):
            c, s = math.cos(position * theta), math.sin(position * theta)
            return x[2 * i] * c - x[2 * i + 1] * s, x[2 * i] * s + x[2 * i + 1] * c

        a, b = turned(q, m), turned(key, n)
        total += a[0] * b[0] + a[1] * b[1]
    return total


@pytest.mark.parametrize(("pos", "offset", "seed"), [(7, 1, 0), (20, -5, 3)])
def test_the_rope_name_the_score_of_pos_and_pos_plus_k(pos, offset, seed):
    state = ExplorerState(pos=pos, offset=offset, seed=seed)
    q, key = methods.random_qk(128, seed)  # seeded random vectors: data
    score = rope_score(q, key, pos, pos + offset)
    assert f"q_{pos}·k_{pos + offset} = {shown(score)}" in accessible_name("rope", state)


@pytest.mark.parametrize(("heads", "offset"), [(8, 1), (8, -3), (4, 2)])
def test_the_alibi_name_the_slopes_and_the_biases_at_k(heads, offset):
    name = accessible_name("alibi", ExplorerState(pos=10, offset=offset, heads=heads))
    first, last = 2.0 ** (-8 / heads), 2.0 ** (-8)
    assert f"slopes from {shown(first)} to {shown(last)}" in name
    assert f"head 1 adds {shown(-first * abs(offset))}" in name
    assert f"head {heads} adds {shown(-last * abs(offset))}" in name
    assert ("causal mask hides" in name) == (offset > 0)


def test_the_nope_name_the_sentence_as_typed_and_the_differences():
    name = accessible_name("nope", ExplorerState(text="dog <i>bites</i> man"))
    assert "“dog <i>bites</i> man”" in name
    assert "max |S_reversed − P·S·Pᵀ| = 0.0000" in name


def test_the_checker_names_the_reference_before_any_matrix():
    name = accessible_name("checker", ExplorerState())
    assert f"PE(1, 0) = {shown(math.sin(1.0))}" in name


def test_the_checker_names_the_verdict_of_a_matrix():
    spec = next(s for s in VIEWS if s.name == "checker")
    view = spec.make(ExplorerState())
    matrix = encoding.positional_encoding(12, 8, BASE)
    view.check_text("\n".join(", ".join(f"{v:.6f}" for v in row) for row in matrix))
    assert view._plot.label.startswith("Your matrix, 12 positions by 8 dimensions")


@pytest.mark.parametrize("method", ["rope", "alibi", "none"])
def test_a_view_that_means_nothing_under_a_method_names_its_note(method):
    spec = next(s for s in VIEWS if s.name == "heatmap")
    state = ExplorerState(method=method)
    name = spec.description(state)
    assert name.startswith("Under" if method != "none" else "With no position method")
    assert "<" not in name
    assert spec.description(ExplorerState()) == spec.describe(ExplorerState())

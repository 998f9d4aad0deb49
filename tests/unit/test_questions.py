"""The guided questions: valid shareable states, and answers whose numbers are computed."""

import html
import math
import re

import numpy as np
import pytest
from pe_explorer import derived, encoding, urlstate
from pe_explorer.state import ExplorerState
from pe_explorer.ui import questions
from pe_explorer.views import VIEW_NAMES, dotproduct, view_spec
from pe_explorer.views import methods as methods_view

QUESTIONS = questions.QUESTIONS
NAMES = [q.name for q in QUESTIONS]
NUMBER = re.compile(r'<span class="pe-question-number" data-number="([a-z_]+)">([^<]*)</span>')
# Digits the templates may hold outside the computed numbers: they belong to formulas.
FORMULA_DIGITS = ("2π", "2i", "2/d", "model/2")
# Numbers that are the same at every state by their nature, and why.
FIXED_NUMBERS = {
    ("why-base", "shortest"): "λ_0 = 2π whatever the base and d_model",
    ("why-base", "small_base"): "the base compared with is fixed",
    ("layout", "pair"): "the pair named is fixed",
    ("layout", "sin_interleaved"): "pair 1's sine is column 2 interleaved at every d_model",
    ("layout", "cos_interleaved"): "pair 1's cosine is column 3 interleaved at every d_model",
    ("layout", "sin_concatenated"): "pair 1's sine is column 1 concatenated at every d_model",
    ("small-d-model", "wide_d_model"): "the width compared with is fixed",
    ("small-d-model", "horizon"): "the search horizon is fixed",
    ("interpolation-nearby", "fast"): "θ_0 = base^0 = 1 whatever the base and d_model",
    ("interpolation-nearby", "top"): "a query's score with itself is the mean of cos 0 = 1",
}
# Each card is also checked away from its own state: its numbers are functions of the state.
OTHER_STATE = {"d_model": 64, "base": 500.0}


def shown_numbers(answer: str) -> list[tuple[str, str]]:
    return NUMBER.findall(answer)


def text_of(answer: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", answer))


def tolerance(text: str) -> float:
    """Half a unit in the last digit shown."""
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def card_state(q, **changes) -> ExplorerState:
    return ExplorerState(**{**q.values, **changes})


def omega(d_model: int, base: float, pair: int) -> float:
    return base ** (-2 * pair / d_model)


def dot_at(offset: int, d_model: int, base: float) -> float:
    return sum(math.cos(offset * omega(d_model, base, i)) for i in range(d_model // 2))


def dots_up_to(n: int, d_model: int, base: float) -> np.ndarray:
    """D(k) for k = 0 … n − 1 as a plain sum of cosines (no blocking, unlike offset_dots)."""
    frequencies = np.array([omega(d_model, base, i) for i in range(d_model // 2)])
    return np.cos(np.outer(np.arange(n), frequencies)).sum(axis=1)


# --- What each card's numbers must be, from closed forms and brute force ---------------------


def expected_base(s):
    d, base, n = s.d_model, s.base, s.n_positions
    lengths = [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]
    small = [2 * math.pi * questions.SMALL_BASE ** (2 * i / d) for i in range(d // 2)]
    return {
        "d_model": d,
        "pairs": d // 2,
        "shortest": 2 * math.pi,
        "longest": 2 * math.pi * base ** ((d - 2) / d),
        "n_positions": n,
        "slow_pairs": sum(length > n for length in lengths),
        "small_base": questions.SMALL_BASE,
        "small_longest": 2 * math.pi * questions.SMALL_BASE ** ((d - 2) / d),
        "small_slow_pairs": sum(length > n for length in small),
    }


def expected_exp_log(s):
    return {"ratio": s.base ** (-2 / s.d_model), "pairs": s.d_model // 2}


def expected_sine_cosine(s):
    w = omega(s.d_model, s.base, s.rotation_pair)
    first, second = s.pos, s.pos + s.offset
    return {
        "pos": first,
        "second": second,
        "pair": s.rotation_pair,
        "sin_first": math.sin(first * w),
        "sin_second": math.sin(second * w),
        "cos_first": math.cos(first * w),
        "cos_second": math.cos(second * w),
        "angle": s.offset * w,
    }


def expected_linear_shift(s):
    far = s.pos + questions.FAR_START
    return {
        "pos": s.pos,
        "offset": s.offset,
        "second": s.pos + s.offset,
        "d_model": s.d_model,
        "far": far,
        "far_second": far + s.offset,
        "pair": s.rotation_pair,
    }


def expected_not_periodic(s):
    d, base, n, k = s.d_model, s.base, s.n_positions, abs(s.offset)
    highest = dots_up_to(n, d, base)[k:].max()
    return {
        "half": d / 2,
        "offset": k,
        "at_offset": dot_at(k, d, base),
        "highest": highest,
        "highest_cosine": highest / (d / 2),
        "last": n - 1,
    }


def expected_layout(s):
    d, pair = s.d_model, questions.LAYOUT_PAIR
    return {
        "pair": pair,
        "sin_interleaved": 2 * pair,
        "cos_interleaved": 2 * pair + 1,
        "sin_concatenated": pair,
        "cos_concatenated": pair + d // 2,
        "positions": min(s.n_positions, questions.MAX_COMPARED_POSITIONS),
    }


def expected_small_d_model(s):
    d, base, pos = s.d_model, s.base, s.pos
    horizon = encoding.NEAREST_HORIZON

    def nearest(width):
        rows = encoding.encode_positions(np.arange(horizon), width, base)
        distances = np.linalg.norm(rows - rows[pos], axis=1)
        distances[pos] = np.inf
        return int(np.argmin(distances)), float(distances.min())

    q, distance = nearest(d)
    wide_q, wide_distance = nearest(128)
    apart = abs(q - pos)
    return {
        "d_model": d,
        "pairs": d // 2,
        "apart": apart,
        "turns_fast": apart / (2 * math.pi),
        "turns_slow": apart * omega(d, base, d // 2 - 1) / (2 * math.pi),
        "pos": pos,
        "nearest_pos": q,
        "nearest": distance,
        "neighbour_pos": pos + 1,
        "neighbour": math.sqrt(d - 2 * dot_at(1, d, base)),
        "wide_d_model": 128,
        "horizon": horizon,
        "wide_nearest_pos": wide_q,
        "wide_nearest": wide_distance,
    }


def expected_beyond_training(s):
    d, base, n, length, k = s.d_model, s.base, s.n_positions, s.train_length, abs(s.offset)
    dots = dots_up_to(n, d, base)
    # ALiBi with H heads, H a power of two: slopes 2^(-8h/H), the steepest 2^(-8/H).
    slope = 2.0 ** (-8 / s.heads)
    return {
        "offset": k,
        "train_length": length,
        "at_offset": dot_at(k, d, base),
        "trained_low": dots[: length + 1].min(),
        "half": d / 2,
        "beyond_low": dots[length + 1 :].min(),
        "last": n - 1,
        "slope": slope,
        "alibi": -slope * k,
    }


def expected_interpolation(s):
    thetas = [omega(s.d_model, s.base, i) for i in range(s.d_model // 2)]
    return {
        "factor": s.factor,
        "fast": 1.0,
        "fast_scaled": 1.0 / s.factor,
        "near": sum(math.cos(t) for t in thetas) / len(thetas),
        "near_scaled": sum(math.cos(t / s.factor) for t in thetas) / len(thetas),
        "top": 1.0,
    }


def expected_yarn(s):
    """YaRN's kept pairs from its correction range (Peng et al., jquesnelle/yarn): pairs up to
    floor(d ln(L / (2π β_fast)) / (2 ln base)) keep θ_i; from ceil(… β_slow …) on, θ_i / s."""
    d, base, length = s.d_model, s.base, s.original_context

    def pair_turning(turns):
        return d * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(pair_turning(s.beta_fast)), 0)
    high = min(math.ceil(pair_turning(s.beta_slow)), d - 1)
    wavelength = 2 * math.pi * base ** (2 * low / d)
    attention = 0.1 * math.log(s.factor) + 1
    return {
        "beta_fast": s.beta_fast,
        "beta_slow": s.beta_slow,
        "context": length,
        "factor": s.factor,
        "kept": low + 1,
        "kept_wavelength": wavelength,
        "kept_turns": length / wavelength,
        "interpolated": max(d // 2 - high, 0),
        "attention": attention,
        "attention_squared": attention**2,
    }


EXPECTED = {
    "why-base": expected_base,
    "exp-and-log": expected_exp_log,
    "sine-and-cosine": expected_sine_cosine,
    "linear-shift": expected_linear_shift,
    "not-periodic": expected_not_periodic,
    "layout": expected_layout,
    "small-d-model": expected_small_d_model,
    "beyond-training": expected_beyond_training,
    "interpolation-nearby": expected_interpolation,
    "yarn-pairs": expected_yarn,
}
# Numbers that are rounding error: the bound they must stay under.
ROUNDING = {
    ("exp-and-log", "difference"): 1e-15,
    ("linear-shift", "error"): 1e-13,
    ("linear-shift", "far_difference"): 1e-13,
    ("layout", "difference"): 1e-12,
}


# --- The list of cards ----------------------------------------------------------------------


def test_every_card_has_its_expected_numbers():
    assert set(EXPECTED) == set(NAMES)


def test_names_are_unique_slugs_and_titles_unique_short_questions():
    assert len(set(NAMES)) == len(NAMES)
    assert len({q.title for q in QUESTIONS}) == len(QUESTIONS)
    for q in QUESTIONS:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", q.name)
        assert len(q.title) <= 60 and q.title.endswith("?")


def test_there_are_about_ten_cards():
    assert 6 <= len(QUESTIONS) <= 10


def test_question_finds_a_card_by_name():
    for q in QUESTIONS:
        assert questions.question(q.name) is q


def test_unknown_question_names_the_known_ones():
    with pytest.raises(ValueError) as raised:
        questions.question("why-not")
    for name in NAMES:
        assert name in str(raised.value)
    assert "'why-not'" in str(raised.value)


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_focus_is_a_view_that_means_something_at_the_cards_state(q):
    assert q.focus in VIEW_NAMES
    assert view_spec(q.focus).method_note(q.state().method) == ""


# --- States and links -----------------------------------------------------------------------


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_values_make_a_state_that_keeps_them_unadjusted(q):
    state = q.state()
    for key, value in q.values.items():
        assert getattr(state, key) == value, key


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_link_round_trips_to_the_cards_state_without_notices(q):
    query = q.query()
    assert "view=" not in query and "embed=" not in query
    parsed = urlstate.parse_query(query, VIEW_NAMES)
    assert parsed.notices == []
    assert parsed.view == "" and parsed.embed is False
    for key, value in q.values.items():
        assert parsed.values[key] == value, key
    assert parsed.values == {key: getattr(q.state(), key) for key in urlstate.state_keys()}


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_page_values_turn_any_page_into_the_cards_state_but_theme_and_text(q):
    page = ExplorerState(
        n_positions=2048,
        pos=2000,
        offset=-40,
        d_model=512,
        base=20.0,
        layout="concatenated",
        rotation_pair=200,
        method="alibi",
        train_length=1500,
        heads=5,
        seed=9,
        similarity="cosine",
        pairs=[3, 4],
        text="my own words",
        theme="dark",
    )
    page.apply(q.page_values())
    card = q.state()
    for key in urlstate.state_keys():
        if key in questions.VISITOR_KEYS:
            continue
        assert getattr(page, key) == getattr(card, key), key
    assert (page.text, page.theme) == ("my own words", "dark")
    assert q.answer(page) == q.answer(card)


# --- Answers --------------------------------------------------------------------------------


@pytest.mark.parametrize("changes", [{}, OTHER_STATE], ids=["own state", "other state"])
@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_numbers_equal_closed_forms_at_the_state(q, changes):
    state = card_state(q, **changes)
    numbers = q.numbers(state)
    expected = EXPECTED[q.name](state)
    rounding = {name: bound for (card, name), bound in ROUNDING.items() if card == q.name}
    assert set(numbers) == set(expected) | set(rounding)
    for name, value in expected.items():
        assert numbers[name] == pytest.approx(value, rel=1e-9, abs=1e-9), name
    for name, bound in rounding.items():
        assert 0.0 <= numbers[name] <= bound, name


@pytest.mark.parametrize("changes", [{}, OTHER_STATE], ids=["own state", "other state"])
@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_every_number_shown_reads_back_as_its_computed_value(q, changes):
    state = card_state(q, **changes)
    numbers = q.numbers(state)
    shown = shown_numbers(q.answer(state))
    assert {name for name, _ in shown} == set(numbers)
    for name, text in shown:
        assert float(text) == pytest.approx(numbers[name], abs=tolerance(text) * (1 + 1e-9)), name


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_no_digit_is_typed_outside_the_computed_numbers(q):
    answer = NUMBER.sub("", q.answer(q.state()))
    text = text_of(answer)
    for fragment in FORMULA_DIGITS:
        text = text.replace(fragment, "")
    assert re.findall(r"[0-9]", text) == []


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_answer_has_two_to_four_sentences(q):
    text = text_of(q.answer(q.state()))
    sentences = re.findall(r"[.!?](?=\s|$)", text.strip())
    assert 2 <= len(sentences) <= 4, text


PERTURBATIONS = [
    ("pos", lambda s: s.pos + 1),
    ("offset", lambda s: s.offset + 1),
    ("base", lambda s: s.base / 2),
    ("d_model", lambda s: 2 * s.d_model),
    ("n_positions", lambda s: s.n_positions // 2),
    ("n_positions", lambda s: min(2 * s.n_positions, encoding.MAX_N_POSITIONS)),
    ("rotation_pair", lambda s: s.rotation_pair + 1),
    ("train_length", lambda s: s.train_length // 2),
    ("heads", lambda s: 4),
    ("factor", lambda s: 2 * s.factor),
    ("original_context", lambda s: 2 * s.original_context),
    ("beta_fast", lambda s: s.beta_fast / 2),
    ("beta_slow", lambda s: s.beta_slow * 2),
]


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_every_number_changes_with_the_state(q):
    own = q.state()
    before = q.numbers(own)
    changed = set()
    for key, new_value in PERTURBATIONS:
        value = new_value(own)
        values = {k: getattr(own, k) for k in urlstate.state_keys()} | {key: value}
        state = ExplorerState(**values)
        if any(getattr(state, k) != v for k, v in values.items()):
            continue  # the state would move it: not a state this card can be in
        after = q.numbers(state)
        changed |= {name for name in before if after[name] != before[name]}
    fixed = {name for card, name in FIXED_NUMBERS if card == q.name}
    rounding = {name for card, name in ROUNDING if card == q.name}
    assert set(before) - fixed - rounding <= changed
    assert changed.isdisjoint(fixed)


# --- What each answer says is true at its state -----------------------------------------------


def numbers_of(name):
    q = questions.question(name)
    return q.numbers(q.state())


def test_why_base_the_small_base_leaves_no_pair_slower_than_the_text():
    shown = numbers_of("why-base")
    assert shown["slow_pairs"] > 0
    assert shown["small_slow_pairs"] == 0
    assert shown["small_longest"] < shown["n_positions"] < shown["longest"]


def test_sine_and_cosine_the_sines_nearly_agree_and_the_cosines_do_not():
    shown = numbers_of("sine-and-cosine")
    assert abs(shown["sin_first"] - shown["sin_second"]) < 0.01
    assert shown["cos_first"] * shown["cos_second"] < 0
    assert min(abs(shown["cos_first"]), abs(shown["cos_second"])) > 0.8


def test_not_periodic_the_similarity_stays_far_below_its_start():
    shown = numbers_of("not-periodic")
    assert shown["highest"] < 0.55 * shown["half"]
    assert shown["at_offset"] <= shown["highest"]


def test_small_d_model_a_far_position_is_nearer_than_the_neighbour():
    shown = numbers_of("small-d-model")
    assert shown["nearest"] < shown["neighbour"] / 10
    assert shown["nearest_pos"] > 1000
    assert shown["wide_nearest_pos"] == shown["neighbour_pos"]
    assert abs(shown["turns_fast"] - round(shown["turns_fast"])) < 0.01
    assert abs(shown["turns_slow"] - round(shown["turns_slow"])) < 0.01


def test_layout_changes_the_matrix_but_not_its_products():
    state = questions.question("layout").state()
    matrices = [
        encoding.positional_encoding(state.n_positions, state.d_model, layout=layout)
        for layout in encoding.LAYOUTS
    ]
    assert np.abs(matrices[0] - matrices[1]).max() > 1.0
    assert numbers_of("layout")["difference"] < 1e-12


def test_beyond_training_offsets_beyond_l_reach_values_training_never_had():
    shown = numbers_of("beyond-training")
    assert shown["offset"] > shown["train_length"]
    assert shown["beyond_low"] < shown["trained_low"]
    assert shown["alibi"] == -shown["slope"] * shown["offset"]


# --- The card agrees with the readout of the view it points to --------------------------------


def test_cards_quote_what_their_views_readouts_show():
    base = questions.question("why-base")
    longest = derived.wavelengths(base.state().d_model, base.state().base)[-1]
    assert numbers_of("why-base")["longest"] == longest

    linear = questions.question("linear-shift")
    shown = derived.pair_rotation(linear.state())
    assert numbers_of("linear-shift")["error"] == shown.error
    assert linear.state().pos + questions.FAR_START == shown.far_start

    periodic = questions.question("not-periodic")
    assert numbers_of("not-periodic")["at_offset"] == dotproduct.diagonal(periodic.state()).dot

    small = questions.question("small-d-model")
    q, distance = derived.position_properties(small.state()).nearest
    assert (numbers_of("small-d-model")["nearest_pos"], numbers_of("small-d-model")["nearest"]) == (
        q,
        distance,
    )

    beyond = questions.question("beyond-training")
    rows = {row.css_name: row for row in methods_view.readout_values(beyond.state()).rows}
    assert numbers_of("beyond-training")["at_offset"] == pytest.approx(
        rows["sinusoidal"].at_offset, abs=1e-9
    )
    assert numbers_of("beyond-training")["alibi"] == pytest.approx(rows["alibi"].at_offset)


# --- The card's HTML ------------------------------------------------------------------------


@pytest.mark.parametrize("q", QUESTIONS, ids=NAMES)
def test_card_html_holds_title_answer_and_escaped_link(q):
    card = questions.card_html(q)
    assert f'<h3 class="pe-question-title">{html.escape(q.title)}</h3>' in card
    assert q.answer(q.state()) in card
    link = re.search(r'<a class="pe-question-link" href="([^"]*)">', card)
    assert link is not None
    assert html.unescape(link.group(1)) == f"?{q.query()}#{q.focus}"
    assert "&" not in link.group(1).replace("&amp;", "")
    assert f'data-focus="{q.focus}"' in card and f'id="pe-question-{q.name}"' in card


def test_values_cannot_be_changed_through_a_card():
    with pytest.raises(TypeError):
        QUESTIONS[0].values["d_model"] = 2

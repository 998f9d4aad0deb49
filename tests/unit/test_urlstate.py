"""Query string → state → query string: forgiving on the way in, canonical on the way out."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pe_explorer.state import ExplorerState
from pe_explorer.urlstate import MAX_KEYS, MAX_NOTICE_CHARS, parse_query, to_query
from pe_explorer.views import VIEW_NAMES


def parsed(query):
    return parse_query(query, VIEW_NAMES)


def keys_noticed(result):
    return [notice.key for notice in result.notices]


def test_a_full_query_restores_the_state_without_notices():
    result = parsed("?pos=20&offset=-5&d_model=64&n_positions=100&base=500&pairs=1,3")
    values = result.values
    assert (values["pos"], values["offset"], values["d_model"], values["n_positions"]) == (
        20,
        -5,
        64,
        100,
    )
    assert values["base"] == 500.0 and values["pairs"] == [1, 3]
    assert result.notices == []


@pytest.mark.parametrize(
    "state",
    [
        ExplorerState(),
        ExplorerState(pos=20, offset=-5, d_model=64, pairs=[1, 2], base=500.0),
        ExplorerState(n_positions=2048, d_model=2048, pos=2000, offset=-2000, theme="dark"),
        ExplorerState(layout="concatenated", base=12345.678, n_positions=1, pos=0, offset=0),
        ExplorerState(
            scaling="llama3",
            base=500000.0,
            original_context=8192,
            factor=8.0,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            t5_bidirectional=False,
            shaw_clip=3,
        ),  # fmt: skip
        ExplorerState(
            scaling="longrope", longrope_factors="1, 1.5e0, 2", truncate=False, t5_buckets=8
        ),
    ],
)
@pytest.mark.parametrize(("view", "embed"), [("", False), ("waves", True), ("compare", False)])
def test_state_to_query_to_state_round_trips(state, view, embed):
    result = parsed(to_query(state, view, embed))
    assert result.notices == []
    assert (result.view, result.embed) == (view, embed)
    for key, value in result.values.items():
        assert getattr(state, key) == value, key


def test_the_default_query_is_short_and_pins_the_main_controls():
    assert to_query(ExplorerState()) == "d_model=128&n_positions=64&pos=7&offset=1"


@pytest.mark.parametrize(
    ("query", "key", "expected"),
    [
        ("d_model=abc", "d_model", 128),
        ("d_model=7", "d_model", 8),
        ("d_model=2049", "d_model", 2048),
        ("d_model=-4", "d_model", 2),
        ("d_model=", "d_model", 128),
        ("pos=-3", "pos", 0),
        ("pos=1e2", "pos", 63),
        ("n_positions=1000000000", "n_positions", 2048),
        ("n_positions=0", "n_positions", 1),
        ("base=nan", "base", 10000.0),
        ("base=inf", "base", 10000.0),
        ("base=1", "base", 10.0),
        ("layout=diagonal", "layout", "interleaved"),
        ("theme=DARK", "theme", "dark"),
        ("pos=<img src=x onerror=alert(1)>", "pos", 7),
        ("method=xyz", "method", "sinusoidal"),
        ("method=<script>", "method", "sinusoidal"),
        ("heads=0", "heads", 1),
        ("heads=1000000000", "heads", 64),
        ("heads=1e9", "heads", 64),
        ("heads=many", "heads", 8),
        ("seed=-1", "seed", 0),
        ("seed=99999999999", "seed", 2**31 - 1),
        ("train_length=0", "train_length", 1),
        ("train_length=500", "train_length", 64),
    ],
)
def test_bad_values_fall_back_to_the_nearest_valid_value_or_default(query, key, expected):
    result = parsed(query)
    assert result.values[key] == expected
    if query != "theme=DARK":
        assert key in keys_noticed(result)


def test_a_method_link_is_read_without_notices_whatever_its_case():
    result = parsed("method=RoPE&heads=12&seed=7&train_length=40")
    assert result.notices == []
    assert (result.values["method"], result.values["heads"]) == ("rope", 12)
    assert (result.values["seed"], result.values["train_length"]) == (7, 40)
    state = ExplorerState(method="alibi", heads=12, seed=7, train_length=40)
    assert "method=alibi" in to_query(state, "", False)


def test_offset_is_raised_so_that_the_second_position_is_not_negative():
    result = parsed("pos=10&offset=-50")
    assert result.values["offset"] == -10
    assert "offset" in keys_noticed(result)


def test_unknown_repeated_and_empty_keys_are_noticed():
    result = parsed("pos=3&pos=4&foo=1&offset=")
    assert result.values["pos"] == 3
    messages = [str(notice) for notice in result.notices]
    assert any("more than once" in m for m in messages)
    assert any("'foo'" in m and "unknown" in m for m in messages)
    assert any(m.startswith("offset: empty") for m in messages)


def test_view_and_embed_are_read_and_checked():
    assert (parsed("view=heatmap&embed=1").view, parsed("view=heatmap&embed=1").embed) == (
        "heatmap",
        True,
    )
    result = parsed("view=<script>&embed=maybe")
    assert (result.view, result.embed) == ("", False)
    assert set(keys_noticed(result)) == {"view", "embed"}


def test_long_junk_is_bounded():
    result = parsed("&".join(f"k{i}={'x' * 5000}" for i in range(500)))
    assert len(result.notices) <= MAX_KEYS + 3
    assert all(len(str(notice)) < 200 for notice in result.notices)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_yields_a_valid_state(query):
    result = parsed(query)
    state = ExplorerState(**{k: v for k, v in result.values.items() if k not in ("pos", "offset")})
    state.apply({"pos": result.values["pos"], "offset": result.values["offset"]})
    assert state.pos == result.values["pos"] and state.offset == result.values["offset"]
    assert 0 <= state.pos < state.n_positions and state.pos + state.offset >= 0
    assert state.d_model % 2 == 0
    assert result.view in ("", *VIEW_NAMES)


KEYS = st.sampled_from(
    [
        "pos",
        "offset",
        "d_model",
        "n_positions",
        "base",
        "layout",
        "pairs",
        "theme",
        "view",
        "embed",
        "x",
        "scaling",
        "factor",
        "original_context",
        "truncate",
        "t5_buckets",
        "longrope_factors",
    ]
)
VALUES = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(max_size=30),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(KEYS, VALUES), max_size=12))
def test_any_mix_of_known_keys_yields_a_valid_state_that_round_trips(items):
    from urllib.parse import urlencode

    result = parsed(urlencode(items))
    state = ExplorerState()
    state.apply(result.values)
    assert {key: getattr(state, key) for key in result.values} == result.values
    again = parsed(to_query(state, result.view, result.embed))
    assert again.notices == [] and again.values == result.values


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("d_model=1_000", "d_model"),
        ("n_positions=1_000", "n_positions"),
        ("d_model=６４", "d_model"),
    ],
)
def test_numbers_python_would_read_generously_are_refused_with_a_notice(query, key):
    parsed = parse_query(query, VIEW_NAMES)
    assert parsed.values[key] == ExplorerState.param[key].default
    assert [n.key for n in parsed.notices] == [key]


def test_full_width_pair_indices_are_dropped_with_a_notice():
    parsed = parse_query("pairs=1,７", VIEW_NAMES)
    assert parsed.values["pairs"] == [1]
    assert "ignored '７'" in str(parsed.notices[0])


@pytest.mark.parametrize("query", ["offset=-1e308", "text=" + "x" * 400, "d_model=" + "9" * 40])
def test_every_notice_is_one_short_line(query):
    notices = parse_query(query, VIEW_NAMES).notices
    assert notices
    assert all(len(str(n)) <= MAX_NOTICE_CHARS and "\n" not in str(n) for n in notices)


def test_a_scaling_link_reads_transformers_names_and_published_numbers():
    result = parsed("view=scaling&scaling=Linear&factor=8&original_context=8192&base=500000")
    values = result.values
    assert result.notices == [] and result.view == "scaling"
    assert (values["scaling"], values["factor"], values["original_context"]) == ("pi", 8.0, 8192)
    assert values["base"] == 500000.0


@pytest.mark.parametrize(
    ("query", "key", "expected", "says"),
    [
        ("factor=0.5", "factor", 1.0, "outside 1.0 … 128.0"),
        ("original_context=-4096", "original_context", 16, "outside 16"),
        ("scaling=rope2", "scaling", "yarn", "not one of none, pi, ntk"),
        ("t5_buckets=33", "t5_buckets", 34, "is odd"),
        ("truncate=maybe", "truncate", True, "not 0 or 1"),
        ("longrope_factors=%3Cscript%3E", "longrope_factors", "", "characters other than numbers"),
        ("shaw_clip=100000", "shaw_clip", 512, "outside 1 … 512"),
    ],
)
def test_bad_scaling_and_relative_values_get_a_notice_and_a_safe_value(query, key, expected, says):
    result = parsed(query)
    assert result.values[key] == expected
    [notice] = result.notices
    assert notice.key == key and says in notice.message


@pytest.mark.parametrize(
    ("factors", "says"),
    [
        (",".join(["1e308"] * 64), "LongRoPE factor 1 is 1e308: each must be a finite number"),
        (",".join(["1"] * 63 + ["1e5"]), "LongRoPE factor 64 is 1e5"),
        ("1, 0, 2", "LongRoPE factor 2 is 0: each must be a finite number of at least 0.001"),
        ("1 -1", "LongRoPE factor 2 is -1"),
    ],
)
def test_longrope_factors_outside_their_range_get_a_notice_and_the_default(factors, says):
    result = parsed(f"view=scaling&scaling=longrope&longrope_factors={factors}")
    assert result.values["longrope_factors"] == ""
    assert (result.values["scaling"], result.view) == ("longrope", "scaling")
    [notice] = result.notices
    assert notice.key == "longrope_factors" and says in notice.message
    assert notice.message.endswith("kept the default")


def test_longrope_factors_at_the_ends_of_their_range_are_kept():
    factors = ",".join(["0.001", "10000"] * 32)
    result = parsed(f"scaling=longrope&longrope_factors={factors}")
    assert result.notices == [] and result.values["longrope_factors"] == factors

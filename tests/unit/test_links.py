"""Every link the page knows opens the state it opened before the state was split into groups.

The table was recorded from the code of 9e18a63 (one ExplorerState of 29 parameters): for each
link, the values it sets that differ from the defaults, the view, whether it is embedded, the
notices the page shows, and the canonical link the page then writes. The state is read through
the page's own path (UrlSync.apply_query) and by URL key, so a refactor that keeps the keys
keeps every row. One link opens differently on purpose since: LongRoPE factors past their range
(the last test).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pe_explorer.state import ExplorerState
from pe_explorer.ui.page_options import PageOptions
from pe_explorer.ui.urlsync import UrlSync
from pe_explorer.urlstate import PAGE_KEYS, parse_query, state_keys
from pe_explorer.views import VIEW_NAMES


@dataclass(frozen=True)
class Link:
    """A link and what it opened: the values unlike DEFAULTS, the page options, the notices
    (as the page shows them) and the link written back."""

    query: str
    values: dict
    view: str
    embed: bool
    notices: list[str]
    written: str


DEFAULTS = {
    "d_model": 128,
    "n_positions": 64,
    "base": 10000.0,
    "layout": "interleaved",
    "pairs": [],
    "rotation_pair": 0,
    "similarity": "dot",
    "text": "the cat sat on the mat and the dog sat",
    "method": "sinusoidal",
    "heads": 8,
    "seed": 0,
    "train_length": 32,
    "scaling": "yarn",
    "factor": 4.0,
    "original_context": 4096,
    "seq_len": 16384,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "truncate": True,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "longrope_factors": "",
    "t5_buckets": 32,
    "t5_max_distance": 128,
    "t5_bidirectional": True,
    "shaw_clip": 16,
    "model": "llama-3.1-8b",  # added with the model view (issue 41), after the links below
    "mistake": "low_precision",  # the mistakes view (issue 59)
    "precision": "bf16",
    "precision_place": "product",
    "scaling_mistake": "dropped",
    "query_at": "32k",
    "mistake_on": "model",
    "window": 1024,
    "sinks": 4,
    "padded_lengths": "3,7,10",
    "packed_lengths": "512,1024,2048,512",
    "alibi_heads": 12,
    "alibi_as_heads": 16,
    "theta_read": None,
    "prefill": None,
    "theme": "light",
    "pos": 7,
    "offset": 1,
}

LINKS = [
    Link("", {}, "", False, [], "d_model=128&n_positions=64&pos=7&offset=1"),
    Link(
        "?pos=20&offset=-5&d_model=64&n_positions=100&base=500&pairs=1,3",
        {
            "d_model": 64,
            "n_positions": 100,
            "base": 500.0,
            "pairs": [1, 3],
            "pos": 20,
            "offset": -5,
        },
        "",
        False,
        [],
        "d_model=64&n_positions=100&base=500&pairs=1,3&pos=20&offset=-5",
    ),
    Link(
        "?pos=12&k=3&d_model=256",
        {"d_model": 256, "pos": 12},
        "",
        False,
        ["'k': unknown parameter, ignored"],
        "d_model=256&n_positions=64&pos=12&offset=1",
    ),
    Link(
        (
            "?view=scaling&pos=100&d_model=64&scaling=yarn&factor=8&"
            "beta_fast=16&beta_slow=2&truncate=0"
        ),
        {
            "d_model": 64,
            "factor": 8.0,
            "beta_fast": 16.0,
            "beta_slow": 2.0,
            "truncate": False,
            "pos": 63,
        },
        "scaling",
        False,
        ["pos: 100 is outside 0 … 63; used the nearest value 63"],
        (
            "d_model=64&n_positions=64&factor=8&beta_fast=16&beta_slow=2&"
            "truncate=0&pos=63&offset=1&view=scaling"
        ),
    ),
    Link(
        "?view=heatmap&embed=1&theme=dark",
        {"theme": "dark"},
        "heatmap",
        True,
        [],
        ("d_model=128&n_positions=64&theme=dark&pos=7&offset=1&view=heatmap&embed=1"),
    ),
    Link(
        "?view=dotproduct&layout=concatenated&similarity=cosine",
        {"layout": "concatenated", "similarity": "cosine"},
        "dotproduct",
        False,
        [],
        (
            "d_model=128&n_positions=64&layout=concatenated&similarity=cosine&"
            "pos=7&offset=1&view=dotproduct"
        ),
    ),
    Link(
        "?view=rotation&d_model=32&rotation_pair=5&offset=4",
        {"d_model": 32, "rotation_pair": 5, "offset": 4},
        "rotation",
        False,
        [],
        ("d_model=32&n_positions=64&rotation_pair=5&pos=7&offset=4&view=rotation"),
    ),
    Link(
        "?view=tokens&text=the+quick+brown+fox+jumps&pos=2&offset=1",
        {"text": "the quick brown fox jumps", "pos": 2},
        "tokens",
        False,
        [],
        (
            "d_model=128&n_positions=64&text=the%20quick%20brown%20fox%20jumps&"
            "pos=2&offset=1&view=tokens"
        ),
    ),
    Link(
        "?view=alibi&method=alibi&heads=12&seed=7&train_length=40",
        {"method": "alibi", "heads": 12, "seed": 7, "train_length": 40},
        "alibi",
        False,
        [],
        (
            "d_model=128&n_positions=64&method=alibi&heads=12&seed=7&"
            "train_length=40&pos=7&offset=1&view=alibi"
        ),
    ),
    Link(
        "?view=rope&method=rope&seed=3&n_positions=128",
        {"n_positions": 128, "method": "rope", "seed": 3},
        "rope",
        False,
        [],
        ("d_model=128&n_positions=128&method=rope&seed=3&pos=7&offset=1&view=rope"),
    ),
    Link(
        ("?view=scaling&scaling=Linear&factor=8&original_context=8192&base=500000"),
        {"base": 500000.0, "scaling": "pi", "factor": 8.0, "original_context": 8192},
        "scaling",
        False,
        [],
        (
            "d_model=128&n_positions=64&base=500000&scaling=pi&factor=8&"
            "original_context=8192&pos=7&offset=1&view=scaling"
        ),
    ),
    Link(
        ("?view=scaling&scaling=dynamic&factor=2&seq_len=20000&original_context=4096"),
        {"scaling": "dynamic", "factor": 2.0, "seq_len": 20000},
        "scaling",
        False,
        [],
        (
            "d_model=128&n_positions=64&scaling=dynamic&factor=2&seq_len=20000&"
            "pos=7&offset=1&view=scaling"
        ),
    ),
    Link(
        (
            "?view=scaling&scaling=llama3&factor=8&original_context=8192&"
            "base=500000&low_freq_factor=1&high_freq_factor=4"
        ),
        {"base": 500000.0, "scaling": "llama3", "factor": 8.0, "original_context": 8192},
        "scaling",
        False,
        [],
        (
            "d_model=128&n_positions=64&base=500000&scaling=llama3&factor=8&"
            "original_context=8192&pos=7&offset=1&view=scaling"
        ),
    ),
    Link(
        ("?view=scaling&scaling=longrope&d_model=8&factor=16&longrope_factors=1,1.5,2,4"),
        {"d_model": 8, "scaling": "longrope", "factor": 16.0, "longrope_factors": "1,1.5,2,4"},
        "scaling",
        False,
        [],
        (
            "d_model=8&n_positions=64&scaling=longrope&factor=16&"
            "longrope_factors=1,1.5,2,4&pos=7&offset=1&view=scaling"
        ),
    ),
    Link(
        "?view=scaling&scaling=ntk&factor=16&d_model=128",
        {"scaling": "ntk", "factor": 16.0},
        "scaling",
        False,
        [],
        ("d_model=128&n_positions=64&scaling=ntk&factor=16&pos=7&offset=1&view=scaling"),
    ),
    Link(
        "?view=t5&t5_buckets=16&t5_max_distance=64&t5_bidirectional=0",
        {"t5_buckets": 16, "t5_max_distance": 64, "t5_bidirectional": False},
        "t5",
        False,
        [],
        (
            "d_model=128&n_positions=64&t5_buckets=16&t5_max_distance=64&"
            "t5_bidirectional=0&pos=7&offset=1&view=t5"
        ),
    ),
    Link(
        "?view=shaw&shaw_clip=4&n_positions=40",
        {"n_positions": 40, "shaw_clip": 4},
        "shaw",
        False,
        [],
        "d_model=128&n_positions=40&shaw_clip=4&pos=7&offset=1&view=shaw",
    ),
    Link(
        "?view=xl&n_positions=200&seed=11",
        {"n_positions": 200, "seed": 11},
        "xl",
        False,
        [],
        "d_model=128&n_positions=200&seed=11&pos=7&offset=1&view=xl",
    ),
    Link(
        "?view=methods&method=none&train_length=16",
        {"method": "none", "train_length": 16},
        "methods",
        False,
        [],
        ("d_model=128&n_positions=64&method=none&train_length=16&pos=7&offset=1&view=methods"),
    ),
    Link(
        "?view=waves&pairs=0,2,5&d_model=16",
        {"d_model": 16, "pairs": [0, 2, 5]},
        "waves",
        False,
        [],
        "d_model=16&n_positions=64&pairs=0,2,5&pos=7&offset=1&view=waves",
    ),
    Link(
        "?view=compare&pos=30&offset=-10&train_length=20",
        {"train_length": 20, "pos": 30, "offset": -10},
        "compare",
        False,
        [],
        ("d_model=128&n_positions=64&train_length=20&pos=30&offset=-10&view=compare"),
    ),
    Link(
        "?view=frequency&base=20000&d_model=512",
        {"d_model": 512, "base": 20000.0},
        "frequency",
        False,
        [],
        "d_model=512&n_positions=64&base=20000&pos=7&offset=1&view=frequency",
    ),
    Link(
        "?view=nope&text=a+b+c+a&method=none",
        {"text": "a b c a", "method": "none"},
        "nope",
        False,
        [],
        ("d_model=128&n_positions=64&text=a%20b%20c%20a&method=none&pos=7&offset=1&view=nope"),
    ),
    Link(
        "?view=ropecheck&d_model=64&base=500000",
        {"d_model": 64, "base": 500000.0},
        "ropecheck",
        False,
        [],
        "d_model=64&n_positions=64&base=500000&pos=7&offset=1&view=ropecheck",
    ),
    Link(
        "?view=learned&embed=true&n_positions=32",
        {"n_positions": 32},
        "learned",
        True,
        [],
        "d_model=128&n_positions=32&pos=7&offset=1&view=learned&embed=1",
    ),
    Link(
        "?view=checker&view=heatmap&theme=light",
        {},
        "checker",
        False,
        ["view: given more than once; used the first value"],
        "d_model=128&n_positions=64&pos=7&offset=1&view=checker",
    ),
    Link(
        "?view=properties&code=1&embed=0",
        {},
        "properties",
        False,
        ["'code': unknown parameter, ignored"],
        "d_model=128&n_positions=64&pos=7&offset=1&view=properties",
    ),
    Link(
        "?d_model=7&n_positions=0&base=1",
        {"d_model": 8, "n_positions": 1, "base": 10.0, "train_length": 1, "pos": 0, "offset": 0},
        "",
        False,
        [
            "d_model: 7 is odd; used 8 (d_model must be even)",
            "n_positions: 0 is outside 1 … 2048; used the nearest value 1",
            "base: 1.0 is outside 10.0 … 1000000.0; used the nearest value 10.0",
        ],
        "d_model=8&n_positions=1&base=10&train_length=1&pos=0&offset=0",
    ),
    Link(
        "?pos=1e2&offset=-50",
        {"pos": 63, "offset": -50},
        "",
        False,
        [
            "pos: '1e2' is not written as a whole number; used 100",
            "pos: 100 is outside 0 … 63; used the nearest value 63",
        ],
        "d_model=128&n_positions=64&pos=63&offset=-50",
    ),
    Link(
        "?theme=DARK&layout=diagonal&method=xyz",
        {"theme": "dark"},
        "",
        False,
        [
            (
                "layout: 'diagonal' is not one of interleaved, concatenated; used "
                "the default interleaved"
            ),
            (
                "method: 'xyz' is not one of sinusoidal, rope, alibi, none; used "
                "the default sinusoidal"
            ),
        ],
        "d_model=128&n_positions=64&theme=dark&pos=7&offset=1",
    ),
    Link(
        (
            "?factor=0.5&original_context=-4096&scaling=rope2&t5_buckets=33&"
            "truncate=maybe&shaw_clip=100000"
        ),
        {"factor": 1.0, "original_context": 16, "t5_buckets": 34, "shaw_clip": 512},
        "",
        False,
        [
            (
                "scaling: 'rope2' is not one of none, pi, ntk, dynamic, yarn, "
                "llama3, longrope; used the default yarn"
            ),
            "factor: 0.5 is outside 1.0 … 128.0; used the nearest value 1.0",
            ("original_context: -4096 is outside 16 … 1048576; used the nearest value 16"),
            "truncate: 'maybe' is not 0 or 1; used the default",
            "t5_buckets: 33 is odd; used 34 (t5_buckets must be even)",
            "shaw_clip: 100000 is outside 1 … 512; used the nearest value 512",
        ],
        (
            "d_model=128&n_positions=64&factor=1&original_context=16&"
            "t5_buckets=34&shaw_clip=512&pos=7&offset=1"
        ),
    ),
    Link(
        "?longrope_factors=%3Cscript%3E&scaling=longrope",
        {"scaling": "longrope"},
        "",
        False,
        [
            (
                "longrope_factors: '<script>' holds characters other than numbers, "
                "commas and spaces, or more than 20000; kept the default"
            )
        ],
        "d_model=128&n_positions=64&scaling=longrope&pos=7&offset=1",
    ),
    Link(
        "?pairs=1,x,-2,7&view=waves",
        {"pairs": [1, 7]},
        "waves",
        False,
        ["pairs: ignored 'x,-2': pair indices are whole numbers"],
        "d_model=128&n_positions=64&pairs=1,7&pos=7&offset=1&view=waves",
    ),
    Link(
        "?view=nosuch&embed=maybe",
        {},
        "",
        False,
        [
            (
                "view: 'nosuch' is not one of heatmap, compare, waves, frequency, "
                "dotproduct, rotation, tokens, properties, code, methods, rope, "
                "alibi, nope, t5, shaw, xl, scal…"
            ),
            "embed: 'maybe' is not 0 or 1; used 0",
        ],
        "d_model=128&n_positions=64&pos=7&offset=1",
    ),
    Link(
        "?pos=3&pos=4&foo=1&offset=",
        {"pos": 3},
        "",
        False,
        [
            "pos: given more than once; used the first value",
            "'foo': unknown parameter, ignored",
            "offset: empty value; used the default 1",
        ],
        "d_model=128&n_positions=64&pos=3&offset=1",
    ),
    Link(
        "?heads=1e9&seed=-1&train_length=500",
        {"heads": 64, "train_length": 64},
        "",
        False,
        [
            "heads: '1e9' is not written as a whole number; used 1000000000",
            "heads: 1000000000 is outside 1 … 64; used the nearest value 64",
            "seed: -1 is outside 0 … 2147483647; used the nearest value 0",
            "train_length: 500 was adjusted to 64 to fit the other values",
        ],
        "d_model=128&n_positions=64&heads=64&train_length=64&pos=7&offset=1",
    ),
    Link(
        "?base=nan&beta_fast=inf&low_freq_factor=abc",
        {},
        "",
        False,
        [
            "base: 'nan' is not a number; used the default 10000.0",
            "beta_fast: 'inf' is not a number; used the default 32.0",
            "low_freq_factor: 'abc' is not a number; used the default 1.0",
        ],
        "d_model=128&n_positions=64&pos=7&offset=1",
    ),
    Link(
        "?t5_bidirectional=yes&truncate=off&t5_max_distance=1",
        {"truncate": False, "t5_max_distance": 2},
        "",
        False,
        ["t5_max_distance: 1 is outside 2 … 65536; used the nearest value 2"],
        ("d_model=128&n_positions=64&truncate=0&t5_max_distance=2&pos=7&offset=1"),
    ),
    Link(
        "?scaling=yarn&beta_fast=1&beta_slow=2",
        {"beta_fast": 1.0, "beta_slow": 2.0},
        "",
        False,
        [],
        "d_model=128&n_positions=64&beta_fast=1&beta_slow=2&pos=7&offset=1",
    ),
    Link(
        "?d_model=16&rotation_pair=100&pairs=3,9",
        {"d_model": 16, "pairs": [3], "rotation_pair": 7},
        "",
        False,
        [
            "pairs: [3, 9] was adjusted to [3] to fit the other values",
            "rotation_pair: 100 was adjusted to 7 to fit the other values",
        ],
        "d_model=16&n_positions=64&pairs=3&rotation_pair=7&pos=7&offset=1",
    ),
    Link(
        ("?seq_len=0&high_freq_factor=1000&n_positions=2048&pos=2047&offset=-2047"),
        {
            "n_positions": 2048,
            "seq_len": 1,
            "high_freq_factor": 128.0,
            "pos": 2047,
            "offset": -2047,
        },
        "",
        False,
        [
            "seq_len: 0 is outside 1 … 134217728; used the nearest value 1",
            ("high_freq_factor: 1000.0 is outside 0.25 … 128.0; used the nearest value 128.0"),
        ],
        ("d_model=128&n_positions=2048&seq_len=1&high_freq_factor=128&pos=2047&offset=-2047"),
    ),
    Link(
        "?d_model=1_000&n_positions=%EF%BC%96%EF%BC%94",
        {},
        "",
        False,
        [
            "d_model: '1_000' is not a number; used the default 128",
            "n_positions: '６４' is not a number; used the default 64",
        ],
        "d_model=128&n_positions=64&pos=7&offset=1",
    ),
    Link(
        "?text=" + "x" * 201,
        {},
        "",
        False,
        [
            (
                "text: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is longer than "
                "200 characters; kept the default"
            )
        ],
        "d_model=128&n_positions=64&pos=7&offset=1",
    ),
    # Added with the model view: a preset in the link; an unknown one keeps the default.
    Link(
        "?view=model&model=phi-2",
        {"model": "phi-2"},
        "model",
        False,
        [],
        "d_model=128&n_positions=64&model=phi-2&pos=7&offset=1&view=model",
    ),
    Link(
        "?view=model&model=<b>gpt-5</b>",
        {},
        "model",
        False,
        [
            "model: '<b>gpt-5</b>' is not one of llama-2-7b, code-llama-7b, "
            "llama-3-8b-instruct, llama-3.1-8b, llama-3.2-1b-instruct, llama-4-scout-17b-16e, "
            "mistral-7b-v0.1…"
        ],
        "d_model=128&n_positions=64&pos=7&offset=1&view=model",
    ),
    Link(
        "?view=mistakes&mistake=low_precision&precision=fp16&precision_place=cache&query_at=128k"
        "&mistake_on=rope&scaling_mistake=twice",
        {
            "mistake": "low_precision",
            "precision": "fp16",
            "precision_place": "cache",
            "query_at": "128k",
            "mistake_on": "rope",
            "scaling_mistake": "twice",
        },  # fmt: skip
        "mistakes",
        False,
        [],
        (
            "d_model=128&n_positions=64&precision=fp16&precision_place=cache&"
            "scaling_mistake=twice&query_at=128k&mistake_on=rope&pos=7&offset=1&view=mistakes"
        ),
    ),
    Link(
        "?view=mistakes&mistake=rounding&precision=FP32&query_at=64k&mistake_on=Rope",
        {"mistake_on": "rope"},
        "mistakes",
        False,
        [
            "mistake: 'rounding' is not one of low_precision, left_padding, cache_window, "
            "dynamic_ntk_cache, pairing_swapped, positions_from_1, wrong_theta, scaling, packed…",
            "precision: 'FP32' is not one of bf16, fp16; used the default bf16",
            "query_at: '64k' is not one of 4k, 32k, 128k, context; used the default 32k",
        ],
        "d_model=128&n_positions=64&mistake_on=rope&pos=7&offset=1&view=mistakes",
    ),
    # The visitor's model is never in a link: opened elsewhere, upload runs on the preset (the
    # view says so), and a key naming the model is unknown.
    Link(
        "?view=mistakes&mistake_on=upload&visitor_model=mine",
        {"mistake_on": "upload"},
        "mistakes",
        False,
        ["'visitor_model': unknown parameter, ignored"],
        "d_model=128&n_positions=64&mistake_on=upload&pos=7&offset=1&view=mistakes",
    ),
    # Each mistake's own settings (a cache's window and sinks, the lengths, ALiBi's heads, the θ
    # read instead, the prompt), then the same keys out of their bounds or not numbers at all.
    Link(
        "?view=mistakes&mistake=cache_window&window=512&sinks=8&padded_lengths=5,2"
        "&packed_lengths=100,200,300&alibi_heads=8&alibi_as_heads=32&theta_read=1000000"
        "&prefill=2048",
        {
            "mistake": "cache_window",
            "window": 512,
            "sinks": 8,
            "padded_lengths": "5,2",
            "packed_lengths": "100,200,300",
            "alibi_heads": 8,
            "alibi_as_heads": 32,
            "theta_read": 1e6,
            "prefill": 2048,
        },
        "mistakes",
        False,
        [],
        "d_model=128&n_positions=64&mistake=cache_window&window=512&sinks=8&padded_lengths=5,2"
        "&packed_lengths=100,200,300&alibi_heads=8&alibi_as_heads=32&theta_read=1000000"
        "&prefill=2048&pos=7&offset=1&view=mistakes",
    ),
    Link(
        "?view=mistakes&mistake=alibi_slopes&padded_lengths=abc&packed_lengths=0,5&alibi_heads=0"
        "&alibi_as_heads=500&window=9999999&sinks=-1&theta_read=huge&prefill=2.5",
        {
            "mistake": "alibi_slopes",
            "window": 1 << 20,
            "sinks": 0,
            "alibi_heads": 1,
            "alibi_as_heads": 128,
            "prefill": 2,
        },
        "mistakes",
        False,
        [
            "window: 9999999 is outside 1 … 1048576; used the nearest value 1048576",
            "sinks: -1 is outside 0 … 1024; used the nearest value 0",
            "padded_lengths: 'abc' is not 1 to 8 whole numbers from 1 to 65,536, separated by "
            "commas; kept the default",
            "packed_lengths: '0,5' is not 1 to 8 whole numbers from 1 to 65,536, separated by "
            "commas; kept the default",
            "alibi_heads: 0 is outside 1 … 128; used the nearest value 1",
            "alibi_as_heads: 500 is outside 1 … 128; used the nearest value 128",
            "theta_read: 'huge' is not a number; used the default None",
            "prefill: '2.5' is not a whole number; used 2",
        ],
        "d_model=128&n_positions=64&mistake=alibi_slopes&window=1048576&sinks=0&alibi_heads=1"
        "&alibi_as_heads=128&prefill=2&pos=7&offset=1&view=mistakes",
    ),
]


def opened(query: str) -> tuple[ExplorerState, PageOptions, UrlSync]:
    """The state and page options a fresh page shows for a link, read as the page reads it."""
    state, options = ExplorerState(), PageOptions()
    sync = UrlSync(state=state, options=options)
    sync.apply_query(query)
    return state, options, sync


def by_key(state: ExplorerState) -> dict:
    """The state's value for each URL key."""
    return {key: getattr(state, key) for key in DEFAULTS}


def test_the_defaults_and_the_url_keys_are_as_recorded():
    assert by_key(ExplorerState()) == DEFAULTS
    assert sorted(state_keys()) == sorted(DEFAULTS)
    assert PAGE_KEYS == ("view", "embed")


def test_the_table_uses_every_url_key():
    used = {part.split("=")[0].lstrip("?") for link in LINKS for part in link.query.split("&")}
    assert used >= {*DEFAULTS, *PAGE_KEYS}


@pytest.mark.parametrize("link", LINKS, ids=[link.query[:60] or "(none)" for link in LINKS])
def test_a_link_opens_the_state_it_opened_before(link):
    state, options, sync = opened(link.query)
    expected = DEFAULTS | link.values
    values = by_key(state)
    assert values == expected
    assert {key: type(value) for key, value in values.items()} == {
        key: type(value) for key, value in expected.items()
    }
    assert (options.view, options.embed) == (link.view, link.embed)
    assert sync.query() == link.written


@pytest.mark.parametrize("link", LINKS, ids=[link.query[:60] or "(none)" for link in LINKS])
def test_a_link_gives_the_notices_it_gave_before(link):
    assert [str(notice) for notice in parse_query(link.query, VIEW_NAMES).notices] == link.notices


@pytest.mark.parametrize("link", LINKS, ids=[link.query[:60] or "(none)" for link in LINKS])
def test_the_link_written_back_opens_the_same_state_without_notices(link):
    state, options, _ = opened("?" + link.written)
    assert by_key(state) == DEFAULTS | link.values
    assert parse_query(link.written, VIEW_NAMES).notices == []


def test_longrope_factors_past_their_range_now_get_a_notice_and_the_default():
    """Before, this link was read without a notice and every wavelength overflowed (issue 40)."""
    link = "?view=scaling&scaling=longrope&longrope_factors=" + ",".join(["1e308"] * 64)
    state, options, sync = opened(link)
    assert by_key(state) == DEFAULTS | {"scaling": "longrope"}
    assert options.view == "scaling"
    assert sync.query() == "d_model=128&n_positions=64&scaling=longrope&pos=7&offset=1&view=scaling"
    assert [str(notice) for notice in parse_query(link, VIEW_NAMES).notices] == [
        "longrope_factors: LongRoPE factor 1 is 1e308: each must be a finite number of at least "
        "0.001 and at most 10000; kept the default"
    ]

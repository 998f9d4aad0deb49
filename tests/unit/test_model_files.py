"""model_files: GGUF and safetensors headers read in bounded pieces, checked against files that
llama.cpp's own writer (gguf-py's GGUFWriter) made, and refused plainly when hostile."""

from __future__ import annotations

import json
import os
import struct
import tracemalloc

import gguf
import numpy as np
import pytest
from pe_explorer.model import files as mf

TOKENS = [f"tok{i}" for i in range(50_000)]
ROPE_FREQS = np.linspace(1.0, 8.0, 64, dtype=np.float32)
SCALARS = [  # (key, GGUFWriter method, value written)
    ("test.u8", "add_uint8", 200),
    ("test.i8", "add_int8", -100),
    ("test.u16", "add_uint16", 60_000),
    ("test.i16", "add_int16", -30_000),
    ("test.u32", "add_uint32", 4_000_000_000),
    ("test.i32", "add_int32", -2_000_000_000),
    ("test.f32", "add_float32", 0.1),
    ("test.u64", "add_uint64", 2**63 + 5),
    ("test.i64", "add_int64", -(2**62)),
    ("test.f64", "add_float64", 0.1),
    ("test.bool", "add_bool", True),
    ("test.str", "add_string", "héllo wörld"),
]


def write_gguf(path, build=None, arch="llama", tensors=None, **writer_options):
    """A GGUF file written by llama.cpp's GGUFWriter: build(writer) adds keys, then tensors."""
    writer = gguf.GGUFWriter(path, arch, **writer_options)
    if build is not None:
        build(writer)
    default = {"rope_freqs.weight": ROPE_FREQS, "token_embd.weight": np.ones((4, 8), np.float16)}
    for name, tensor in (default if tensors is None else tensors).items():
        writer.add_tensor(name, tensor)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path.read_bytes()


def llama_keys(writer, scaling="yarn"):
    """The position keys llama.cpp's converter writes for a Llama-like model."""
    writer.add_context_length(131_072)
    writer.add_embedding_length(4096)
    writer.add_block_count(32)
    writer.add_head_count(32)
    writer.add_head_count_kv(8)
    writer.add_key_length(128)
    writer.add_rope_dimension_count(128)
    writer.add_rope_freq_base(500_000.0)
    writer.add_sliding_window(4096)
    writer.add_rope_scaling_type(gguf.RopeScalingType(scaling))
    writer.add_rope_scaling_factor(4.0)
    if scaling == "yarn":
        writer.add_rope_scaling_orig_ctx_len(8192)
        writer.add_rope_scaling_attn_factors(1.2)
        writer.add_rope_scaling_yarn_beta_fast(32.0)
        writer.add_rope_scaling_yarn_beta_slow(1.0)
        writer.add_rope_scaling_yarn_log_mul(0.1)


def every_kind_of_key(writer, n_tokens=50_000, n_long=70_000):
    for key, method, value in SCALARS:
        getattr(writer, method)(key, value)
    writer.add_array("test.ints", [1, -2, 3])
    writer.add_array("test.floats", [0.5, 1.5])
    writer.add_array("test.bools", [True, False])
    writer.add_key_value(
        "test.long", list(range(n_long)), gguf.GGUFValueType.ARRAY, gguf.GGUFValueType.UINT32
    )
    writer.add_token_list(TOKENS[:n_tokens])
    llama_keys(writer)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "model.gguf"
    write_gguf(path, every_kind_of_key)
    return path


@pytest.fixture(scope="module")
def model_bytes(model_path):
    return model_path.read_bytes()


def small_gguf(tmp_path) -> bytes:
    """A GGUF file of a few hundred bytes: every kind of value, two tensors."""

    def build(writer):
        writer.add_uint32("test.u32", 7)
        writer.add_float32("llama.rope.freq_base", 10_000.0)
        writer.add_array("test.ints", [1, 2, 3])
        writer.add_array("test.names", ["a", "bc"])

    tensors = {
        "rope_freqs.weight": ROPE_FREQS[:4],
        "token_embd.weight": np.ones((2, 2), np.float16),
    }
    return write_gguf(tmp_path / "small.gguf", build, tensors=tensors)


def at_key(data: bytes, key: str) -> int:
    """The offset of the value type that follows a key in a GGUF file."""
    return data.index(key.encode()) + len(key)


def patched(data: bytes, offset: int, fmt: str, value) -> bytes:
    packed = struct.pack(fmt, value)
    return data[:offset] + packed + data[offset + len(packed) :]


def refused(data: bytes, reader=mf.read_gguf) -> str:
    """The one plain message a hostile file gets, read without a large allocation."""
    tracemalloc.start()
    try:
        with pytest.raises(mf.ModelFileError) as caught:
            reader(mf.ByteSource.from_bytes(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert peak < 4 << 20, f"{peak:,} bytes allocated to refuse: {message}"
    assert "\n" not in message and len(message) < 400
    return message


# ByteSource and the restartable loop ----------------------------------------------------------


def test_a_source_reads_across_chunks_and_asks_for_the_first_byte_it_lacks():
    data = bytes(range(256)) * 2
    source = mf.ByteSource(len(data))
    source.add(0, data[:100])
    source.add(200, data[200:300])
    assert source.read(50, 40) == data[50:90]
    with pytest.raises(mf.NeedBytes) as need:
        source.read(50, 200)
    assert (need.value.offset, need.value.length) == (100, 150)
    source.add(50, data[50:250])  # overlaps both chunks held
    assert source.read(0, 300) == data[:300]
    assert source.fetched == 100 + 100 + 200


def test_reading_past_the_end_says_where_the_file_ends():
    source = mf.ByteSource.from_bytes(b"x" * 10)
    with pytest.raises(mf.ModelFileError, match="ends at byte 10 but its header says"):
        source.read(8, 4, "the tensor list")


@pytest.mark.parametrize(
    ("offset", "length", "size", "window"),
    [
        (0, 4, 10 << 20, (0, 1 << 20)),
        (3_000_000, 10, 10 << 20, (2 << 20, 1 << 20)),
        ((1 << 20) - 2, 4, 10 << 20, (0, 2 << 20)),
        (100, 5 << 20, 10 << 20, (0, 6 << 20)),
        (9_000_000, 8, 9_000_100, (8 << 20, 9_000_100 - (8 << 20))),
    ],
)
def test_a_fetch_is_whole_mebibytes_inside_the_file(offset, length, size, window):
    assert mf.ByteSource(size).window(mf.NeedBytes(offset, length)) == window


def test_the_loop_reads_as_a_direct_read_does_in_few_fetches(model_bytes):
    fetches = []

    def fetch(offset, length):
        fetches.append((offset, length))
        return model_bytes[offset : offset + length]

    source = mf.ByteSource(len(model_bytes))
    header = mf.parse_with(source, mf.read_gguf, fetch)
    assert header == mf.read_gguf(mf.ByteSource.from_bytes(model_bytes))
    assert len(fetches) <= 2
    assert all(offset % mf.MIN_FETCH == 0 for offset, _ in fetches)


@pytest.mark.parametrize(("n_tokens", "piece"), [(2, 7), (2000, 4093)])
def test_pieces_of_any_size_at_any_offset_read_as_a_direct_read(tmp_path, n_tokens, piece):
    data = write_gguf(tmp_path / "m.gguf", lambda writer: writer.add_token_list(TOKENS[:n_tokens]))
    source = mf.ByteSource(len(data))
    while True:  # a driver that adds just what was asked, cut into odd pieces
        try:
            header = mf.read_gguf(source)
            break
        except mf.NeedBytes as need:
            source.add(need.offset, data[need.offset : need.offset + piece])
    assert header == mf.read_gguf(mf.ByteSource.from_bytes(data))
    assert header.metadata["tokenizer.ggml.tokens"] == mf.ArraySummary("string", n_tokens)


def test_a_fetch_that_returns_too_little_is_refused(model_bytes):
    source = mf.ByteSource(len(model_bytes))
    with pytest.raises(mf.ModelFileError, match="stopped at byte 10,"):
        mf.parse_with(source, mf.read_gguf, lambda offset, length: model_bytes[:10])


def test_a_header_that_needs_more_than_the_cap_is_refused(model_bytes, monkeypatch):
    monkeypatch.setattr(mf, "MAX_HEADER_BYTES", 100_000)
    source = mf.ByteSource(len(model_bytes))
    with pytest.raises(mf.ModelFileError, match="more than a model file's header needs"):
        mf.parse_with(source, mf.read_gguf, lambda offset, n: model_bytes[offset : offset + n])


# GGUF written by llama.cpp's writer -----------------------------------------------------------


def test_every_scalar_reads_back_as_written(model_path):
    header = mf.read_gguf(mf.ByteSource.from_path(model_path))
    for key, method, value in SCALARS:
        expected = float(np.float32(value)) if method == "add_float32" else value
        assert header.metadata[key] == expected, key
        assert type(header.metadata[key]) is type(value), key
        assert header.metadata_types[key] == method.removeprefix("add_")


def test_short_numeric_arrays_are_kept_and_long_or_string_ones_summarised(model_path):
    header = mf.read_gguf(mf.ByteSource.from_path(model_path))
    assert header.metadata["test.ints"] == [1, -2, 3]
    assert header.metadata["test.floats"] == [0.5, 1.5]
    assert header.metadata["test.bools"] == [True, False]
    assert header.metadata["test.long"] == mf.ArraySummary("uint32", 70_000)
    assert header.metadata["tokenizer.ggml.tokens"] == mf.ArraySummary("string", 50_000)


def test_keys_and_tensors_are_those_of_llamacpps_reader(tmp_path):
    # GGUFReader walks arrays item by item, so this file's arrays are short.
    path = tmp_path / "reference.gguf"
    write_gguf(path, lambda writer: every_kind_of_key(writer, n_tokens=100, n_long=100))
    header = mf.read_gguf(mf.ByteSource.from_path(path))
    reference = gguf.GGUFReader(path)
    fields = {k: f for k, f in reference.fields.items() if not k.startswith("GGUF.")}
    assert list(header.metadata) == list(fields)
    for key, field in fields.items():
        if key != "tokenizer.ggml.tokens":
            assert header.metadata[key] == field.contents(), key
    assert header.architecture == "llama" and header.version == 3
    assert header.data_offset == reference.data_offset
    for tensor in reference.tensors:
        info = header.tensors[tensor.name]
        assert (info.offset, info.n_bytes, info.ggml_type) == (
            tensor.data_offset,
            tensor.n_bytes,
            int(tensor.tensor_type),
        )
        assert info.shape == tuple(reversed(tensor.shape.tolist()))


def test_a_rope_tensor_reads_back_as_written(model_path):
    source = mf.ByteSource.from_path(model_path)
    header = mf.read_gguf(source)
    assert np.array_equal(mf.read_gguf_tensor(source, header, "rope_freqs.weight"), ROPE_FREQS)
    embedding = mf.read_gguf_tensor(source, header, "token_embd.weight")
    assert embedding.shape == (4, 8) and embedding.dtype == np.float64 and (embedding == 1).all()
    assert source.fetched < 2 << 20


def test_a_big_endian_file_reads_as_written(tmp_path):
    data = write_gguf(tmp_path / "be.gguf", llama_keys, endianess=gguf.GGUFEndian.BIG)
    source = mf.ByteSource.from_bytes(data)
    header = mf.read_gguf(source)
    assert header.byte_order == ">" and header.metadata["llama.context_length"] == 131_072
    assert np.array_equal(mf.read_gguf_tensor(source, header, "rope_freqs.weight"), ROPE_FREQS)


def test_a_custom_alignment_places_the_tensors(tmp_path):
    data = write_gguf(tmp_path / "a.gguf", lambda writer: writer.add_custom_alignment(64))
    header = mf.read_gguf(mf.ByteSource.from_bytes(data))
    assert header.alignment == 64
    assert all(info.offset % 64 == 0 for info in header.tensors.values())
    reference = gguf.GGUFReader(tmp_path / "a.gguf")
    assert [t.data_offset for t in reference.tensors] == [
        info.offset for info in header.tensors.values()
    ]


@pytest.mark.parametrize(
    ("name", "words"),
    [("token_embd.weight", "stored as Q8_0"), ("rope_freqs.weight", "at most 10")],
)
def test_only_small_float_tensors_are_decoded(tmp_path, name, words, monkeypatch):
    writer = gguf.GGUFWriter(tmp_path / "q.gguf", "llama")
    quantized = np.zeros((2, 34), np.uint8)  # two rows of one Q8_0 block each
    writer.add_tensor("token_embd.weight", quantized, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("rope_freqs.weight", ROPE_FREQS)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    source = mf.ByteSource.from_path(tmp_path / "q.gguf")
    header = mf.read_gguf(source)
    assert header.tensors["token_embd.weight"].shape == (2, 32)
    monkeypatch.setattr(mf, "MAX_TENSOR_ELEMENTS", 10)
    with pytest.raises(mf.ModelFileError, match=words):
        mf.read_gguf_tensor(source, header, name)


def test_a_missing_tensor_is_named(model_bytes):
    source = mf.ByteSource.from_bytes(model_bytes)
    with pytest.raises(mf.ModelFileError, match="no tensor named 'missing'"):
        mf.read_gguf_tensor(source, mf.read_gguf(source), "missing")


def test_the_ggml_and_value_type_tables_are_gguf_pys():
    assert {
        code: (gguf.GGMLQuantizationType(code).name, block, size)
        for code, (block, size) in (
            (int(kind), sizes) for kind, sizes in gguf.GGML_QUANT_SIZES.items()
        )
    } == mf.GGML_TYPES
    assert {int(kind): kind.name.lower() for kind in gguf.GGUFValueType} == {
        code: name for code, (name, _) in mf.GGUF_VALUE_TYPES.items()
    }


# A sparse file of 5 GiB ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sparse_path(tmp_path_factory):
    """5 GiB on paper, a few MB on disk: a 4 GiB F32 tensor before the rope tensor."""
    path = tmp_path_factory.mktemp("sparse") / "big.gguf"
    writer = gguf.GGUFWriter(path, "llama")
    llama_keys(writer, "linear")
    writer.add_token_list(TOKENS)
    writer.add_tensor_info("token_embd.weight", (1 << 17, 1 << 13), np.dtype(np.float32), 4 << 30)
    writer.add_tensor_info("rope_freqs.weight", (64,), np.dtype(np.float32), 256)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    rope_at = -(-path.stat().st_size // 32) * 32 + (4 << 30)
    with open(path, "r+b") as file:
        file.truncate(5 << 30)
        file.seek(rope_at)
        file.write(ROPE_FREQS.tobytes())
    return path, rope_at


def test_a_sparse_five_gib_file_is_read_from_its_path_in_a_few_mib(sparse_path):
    path, rope_at = sparse_path
    assert os.stat(path).st_blocks * 512 < 64 << 20  # sparse: the test writes no 5 GiB
    source = mf.ByteSource.from_path(path)
    header = mf.read_gguf(source)
    assert header.tensors["rope_freqs.weight"].offset == rope_at > 4 << 30
    assert header.tensors["token_embd.weight"].shape == (1 << 17, 1 << 13)
    assert np.array_equal(mf.read_gguf_tensor(source, header, "rope_freqs.weight"), ROPE_FREQS)
    assert source.fetched < 8 << 20


def test_a_sparse_five_gib_file_is_read_through_the_loop_in_a_few_fetches(sparse_path):
    path, _ = sparse_path
    fetched = []

    def fetch(offset, length):
        fetched.append(length)
        with open(path, "rb") as file:
            file.seek(offset)
            return file.read(length)

    source = mf.ByteSource(path.stat().st_size)
    positions, facts = mf.parse_with(source, mf.read_gguf_positions, fetch)
    assert np.array_equal(facts.rope_freqs, ROPE_FREQS)
    assert positions["rope_scaling"] == {"rope_type": "linear", "factor": 4.0}
    assert sum(fetched) < 8 << 20 and len(fetched) <= 3


# Positions as config.json names ---------------------------------------------------------------

LLAMA_CONFIG = {
    "max_position_embeddings": 131_072,
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "rope_theta": 500_000.0,
    "sliding_window": 4096,
    "rotary_dim": 128,
}
SCALING = {
    "linear": {"rope_type": "linear", "factor": 4.0},
    "yarn": {
        "rope_type": "yarn",
        "factor": 4.0,
        "original_max_position_embeddings": 8192,
        "attention_factor": float(np.float32(1.2)),
        "beta_fast": 32.0,
        "beta_slow": 1.0,
    },
}


@pytest.mark.parametrize("scaling", ["linear", "yarn"])
def test_positions_are_the_config_names_of_the_gguf_keys(tmp_path, scaling):
    data = write_gguf(tmp_path / "m.gguf", lambda writer: llama_keys(writer, scaling))
    positions, facts = mf.read_gguf_positions(mf.ByteSource.from_bytes(data))
    assert positions == {**LLAMA_CONFIG, "rope_scaling": SCALING[scaling]}
    assert facts.architecture == "llama"
    assert facts.keys["rope_theta"] == "llama.rope.freq_base"
    assert facts.keys["rope_scaling.factor"] == "llama.rope.scaling.factor"
    assert set(facts.keys) == set(LLAMA_CONFIG) | {f"rope_scaling.{k}" for k in SCALING[scaling]}
    assert np.array_equal(facts.rope_freqs, ROPE_FREQS)
    assert facts.metadata.get("rope.scaling.yarn_log_multiplier") == (
        float(np.float32(0.1)) if scaling == "yarn" else None
    )


def test_phi3_factors_make_a_longrope_scaling(tmp_path):
    long, short = np.full(48, 2.0, np.float32), np.ones(48, np.float32)

    def build(writer):
        writer.add_context_length(131_072)
        writer.add_rope_scaling_orig_ctx_len(4096)
        writer.add_rope_scaling_attn_factors(1.5)

    tensors = {"rope_factors_long.weight": long, "rope_factors_short.weight": short}
    data = write_gguf(tmp_path / "phi3.gguf", build, arch="phi3", tensors=tensors)
    scaling = mf.read_gguf_positions(mf.ByteSource.from_bytes(data))[0]["rope_scaling"]
    assert scaling == {
        "rope_type": "longrope",
        "original_max_position_embeddings": 4096,
        "attention_factor": 1.5,
        "long_factor": long.tolist(),
        "short_factor": short.tolist(),
    }


def test_qwen2vl_sections_are_its_mrope_section(tmp_path):
    data = write_gguf(
        tmp_path / "q.gguf",
        lambda writer: writer.add_rope_dimension_sections([16, 24, 24, 0]),
        arch="qwen2vl",
    )
    positions, _ = mf.read_gguf_positions(mf.ByteSource.from_bytes(data))
    assert positions["rope_scaling"] == {"rope_type": "default", "mrope_section": [16, 24, 24]}


def test_a_partial_rotation_gives_its_factor(tmp_path):
    def build(writer):
        writer.add_embedding_length(2560)
        writer.add_head_count(32)
        writer.add_rope_dimension_count(32)

    data = write_gguf(tmp_path / "phi2.gguf", build, arch="phi2")
    positions, _ = mf.read_gguf_positions(mf.ByteSource.from_bytes(data))
    assert positions["partial_rotary_factor"] == 0.4 and positions["rotary_dim"] == 32


def test_a_file_without_an_architecture_has_only_its_rope_tensors():
    data = raw_gguf([], [tensor("rope_freqs.weight", [4])])
    positions, facts = mf.read_gguf_positions(mf.ByteSource.from_bytes(data))
    assert positions == {} and facts.architecture == "" and facts.keys == {}
    assert np.array_equal(facts.rope_freqs, np.zeros(4))


# Hostile GGUF files ---------------------------------------------------------------------------


def test_a_file_that_is_not_gguf_is_refused():
    assert "not a GGUF file" in refused(b"PK\x03\x04" + bytes(60))
    assert "too short" in refused(b"GGUF")


@pytest.mark.parametrize(("version", "words"), [(1, "version 1"), (99, "version 99")])
def test_other_versions_are_refused(tmp_path, version, words):
    assert words in refused(patched(small_gguf(tmp_path), 4, "<I", version))


def test_a_file_cut_at_any_byte_is_refused(tmp_path):
    data = small_gguf(tmp_path)
    header = mf.read_gguf(mf.ByteSource.from_bytes(data))
    data_end = max(info.offset + info.n_bytes for info in header.tensors.values())
    assert mf.read_gguf(mf.ByteSource.from_bytes(data[:data_end])) == header  # padding cut off
    for end in range(data_end):
        with pytest.raises(mf.ModelFileError):
            mf.read_gguf(mf.ByteSource.from_bytes(data[:end]))


@pytest.mark.parametrize(
    ("offset", "value", "words"),
    [
        (8, 2**63, "this page reads at most 1,000,000"),  # tensor count
        (16, 2**63, "this page reads at most 100,000"),  # key count
        (16, 90_000, "more than its"),  # key count within the cap, beyond the file
        (24, 2**40, "string of 1,099,511,627,776 bytes"),  # the first key's length
        (24, 10_000, "ends at byte"),  # within the cap, beyond the file
    ],
)
def test_counts_and_lengths_beyond_the_file_are_refused(tmp_path, offset, value, words):
    assert words in refused(patched(small_gguf(tmp_path), offset, "<Q", value))


@pytest.mark.parametrize(
    ("after", "fmt", "value", "words"),
    [
        (0, "<I", 13, "value type 13"),  # the value's type
        (4, "<I", 99, "value type 99"),  # the array's item type
        (4, "<I", 9, "array of arrays"),
        (8, "<Q", 2**40, "reads arrays of at most 16,777,216"),  # the array's length
        (8, "<Q", 1000, "claims 1,000 items"),
    ],
)
def test_bad_types_and_array_lengths_are_refused(tmp_path, after, fmt, value, words):
    data = small_gguf(tmp_path)
    assert words in refused(patched(data, at_key(data, "test.ints") + after, fmt, value))


@pytest.mark.parametrize(
    ("length", "words"), [(2**33, "at most 16,777,216 bytes"), (1000, "ends at byte")]
)
def test_a_string_in_an_array_longer_than_allowed_is_refused(tmp_path, length, words):
    data = small_gguf(tmp_path)
    message = refused(patched(data, at_key(data, "test.names") + 16, "<Q", length))
    assert words in message and "an item of the array 'test.names'" in message


def test_a_bad_alignment_is_refused(tmp_path):
    data = write_gguf(tmp_path / "a.gguf", lambda writer: writer.add_custom_alignment(64))
    assert "power of two" in refused(patched(data, at_key(data, "general.alignment") + 4, "<I", 48))
    assert "power of two" in refused(patched(data, at_key(data, "general.alignment"), "<I", 5))


def raw_gguf(keys: list[bytes], tensors: list[bytes], data_bytes: int = 64) -> bytes:
    """A GGUF file put together by hand, for what GGUFWriter refuses to write."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(keys))
    body = head + b"".join(keys) + b"".join(tensors)
    return body + bytes(-len(body) % 32 + data_bytes)


def text(value: str) -> bytes:
    return struct.pack("<Q", len(value.encode())) + value.encode()


def tensor(name: str, dims: list[int], ggml_type: int = 0, offset: int = 0) -> bytes:
    shape = struct.pack(f"<I{len(dims)}Q", len(dims), *dims)
    return text(name) + shape + struct.pack("<IQ", ggml_type, offset)


U32_KEY = text("a") + struct.pack("<II", 4, 1)


@pytest.mark.parametrize(
    ("keys", "tensors", "words"),
    [
        ([U32_KEY, U32_KEY], [], "'a' appears twice"),
        ([text("") + struct.pack("<II", 4, 1)], [], "empty"),
        ([], [tensor("t", [4]), tensor("t", [4], offset=32)], "'t' appears twice"),
        ([], [tensor("t", [1, 1, 1, 1, 1])], "5 dimensions"),
        ([], [tensor("t", [4], offset=8)], "not a multiple of the file's alignment"),
        ([], [tensor("t", [1000])], "tensor 't' runs to byte"),
        ([], [tensor("t", [2**32, 2**32])], "too many"),
        ([], [tensor("t", [20], ggml_type=8)], "not a multiple of its block of 32"),
    ],
)
def test_hand_made_bad_headers_are_refused(keys, tensors, words):
    assert words in refused(raw_gguf(keys, tensors))


def test_a_tensor_of_a_type_unknown_here_is_kept_without_its_size():
    header = mf.read_gguf(mf.ByteSource.from_bytes(raw_gguf([], [tensor("t", [4], 77)])))
    assert header.tensors["t"].type_name == "type 77" and header.tensors["t"].n_bytes is None


def test_a_long_name_is_cut_in_the_message():
    message = refused(raw_gguf([text("k" * 5000) + struct.pack("<II", 13, 0)], []))
    assert "k" * 60 + "…" in message and "k" * 61 not in message


# safetensors -----------------------------------------------------------------------------------


def safetensors_bytes(tensors: dict, metadata: dict | None = None) -> bytes:
    """A safetensors file laid out as the safetensors library lays it out."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, array) in tensors.items():
        blob = array.tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape)}
        header[name]["data_offsets"] = [offset, offset + len(blob)]
        blobs.append(blob)
        offset += len(blob)
    if metadata is not None:
        header["__metadata__"] = metadata
    return header_bytes(json.dumps(header).encode()) + b"".join(blobs)


def header_bytes(text: bytes) -> bytes:
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


INV_FREQ = (1.0 / 10_000 ** (np.arange(0, 64, 2) / 64)).astype(np.float32)
BF16 = (INV_FREQ.view(np.uint32) >> 16).astype(np.uint16)
CHECKPOINT = {
    "model.embed_tokens.weight": ("F32", np.ones((3, 4), np.float32)),
    "model.layers.0.self_attn.rotary_emb.inv_freq": ("F32", INV_FREQ),
    "model.layers.1.self_attn.rotary_emb.inv_freq": ("F16", INV_FREQ.astype(np.float16)),
    "model.layers.2.self_attn.rotary_emb.inv_freq": ("BF16", BF16),
}


def test_a_safetensors_header_and_its_inv_freqs_read_back():
    data = safetensors_bytes(CHECKPOINT, {"format": "pt"})
    source = mf.ByteSource.from_bytes(data)
    header = mf.read_safetensors(source)
    assert header.metadata == {"format": "pt"}
    embed = header.tensors["model.embed_tokens.weight"]
    assert (embed.dtype, embed.shape, embed.offset, embed.n_bytes) == (
        "F32",
        (3, 4),
        header.data_offset,
        48,
    )
    found = mf.safetensors_inv_freq(source, header)
    expected = [
        INV_FREQ,
        INV_FREQ.astype(np.float16),
        (BF16.astype(np.uint32) << 16).view(np.float32),
    ]
    assert list(found) == list(CHECKPOINT)[1:]
    for name, values in zip(found, expected, strict=True):
        assert found[name].dtype == np.float64 and np.array_equal(found[name], values), name


def test_a_safetensors_file_is_read_through_the_loop_by_slices():
    data = safetensors_bytes(CHECKPOINT)
    asked = []

    def fetch(offset, length):
        asked.append((offset, length))
        return data[offset : offset + length]

    def parser(source):
        return mf.safetensors_inv_freq(source, mf.read_safetensors(source))

    found = mf.parse_with(mf.ByteSource(len(data)), parser, fetch)
    assert len(found) == 3 and asked == [(0, len(data))]


def test_read_header_tells_gguf_from_safetensors(tmp_path):
    assert isinstance(mf.read_header(mf.ByteSource.from_bytes(small_gguf(tmp_path))), mf.GGUFHeader)
    safetensors = mf.ByteSource.from_bytes(safetensors_bytes(CHECKPOINT))
    assert isinstance(mf.read_header(safetensors), mf.SafetensorsHeader)


ENTRY = '{"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (struct.pack("<Q", 2**40) + bytes(64), "at most 100,000,000"),
        (struct.pack("<Q", 1000) + b"{}" + bytes(20), "ends at byte 30"),
        (b"\x01\x00", "too short"),
        (header_bytes(b"not json"), "not valid JSON"),
        (header_bytes(b"[1, 2]"), "a JSON list, not an object"),
        (header_bytes(b"\xff\xfe{}"), "not UTF-8"),
        (header_bytes(b"[" * 100_000), "cannot read"),
        (header_bytes(b'{"a": NaN}'), "holds NaN"),
        (header_bytes(b'{"a": -Infinity}'), "holds -Infinity"),
        (header_bytes(ENTRY.encode()), "tensor 't' runs to byte"),
        (header_bytes(ENTRY.encode()[:-1] + b', "t": 1}') + bytes(8), "names 't' twice"),
        (header_bytes(ENTRY.replace("F32", "F31").encode()) + bytes(8), "dtype 'F31'"),
        (header_bytes(ENTRY.replace("[2]", "[-2]").encode()) + bytes(8), "shape"),
        (header_bytes(ENTRY.replace("[2]", "[true]").encode()) + bytes(8), "shape"),
        (header_bytes(ENTRY.replace("[0, 8]", "[8, 0]").encode()) + bytes(8), "[begin, end]"),
        (header_bytes(ENTRY.replace("[0, 8]", "[0, 4]").encode()) + bytes(8), "does not fill"),
        (header_bytes(ENTRY.replace("[2]", str([2**63] * 50)).encode()) + bytes(8), "not fill"),
        (header_bytes(ENTRY.replace("[0, 8]", f"[0, {2**70}]").encode()), "[begin, end]"),
        (header_bytes(b'{"__metadata__": {"a": 1}}'), "__metadata__"),
        (header_bytes(b'{"t": [1]}'), "not an object"),
    ],
)
def test_hostile_safetensors_headers_are_refused(data, words):
    assert words in refused(data, mf.read_safetensors)


@pytest.mark.parametrize(
    ("dtype", "array", "words"),
    [("I64", np.arange(4), "I64"), ("F32", np.ones(70_000, np.float32), "70,000 values")],
)
def test_an_inv_freq_that_is_not_one_is_refused(dtype, array, words):
    data = safetensors_bytes({"rotary_emb.inv_freq": (dtype, array)})
    source = mf.ByteSource.from_bytes(data)
    with pytest.raises(mf.ModelFileError, match=words):
        mf.safetensors_inv_freq(source, mf.read_safetensors(source))

"""The model readers against random and broken input (hypothesis): GGUF and safetensors headers,
random bytes and valid headers with one field changed (counts, lengths, types, offsets), and
config.json objects of any shape. Only the reader's own error may come out (a ValueError with one
short sentence), never another exception, and memory stays within the readers' caps."""

from __future__ import annotations

import json
import struct
import tracemalloc

import gguf
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pe_explorer.model.reader import read_model
from pe_explorer.model.sources import load

# Far above what a header needs (MAX_KEPT_ARRAY items, 16 MiB strings …), far below a runaway.
MEMORY_CAP = 64 << 20
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read(data) -> None:
    """Read as the page and the command do; the reader's error is the only way out."""
    tracemalloc.start()
    try:
        read_model(load(data) if isinstance(data, (bytes, dict)) else data)
    except ValueError as error:
        text = str(error)
        assert text and "\n" not in text.strip() and len(text) < 600, text
        assert "Traceback" not in text
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_CAP, f"{peak >> 20} MiB"


def gguf_header(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("fuzz") / "valid.gguf"
    writer = gguf.GGUFWriter(str(path), "gemma3")
    writer.add_context_length(8192)
    writer.add_embedding_length(2560)
    writer.add_block_count(12)
    writer.add_head_count(8)
    writer.add_head_count_kv([4] * 12)
    writer.add_rope_freq_base(1e6)
    writer.add_sliding_window(1024)
    writer.add_tensor("rope_freqs.weight", np.ones(64, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path.read_bytes()


@pytest.fixture(scope="module")
def valid_gguf(tmp_path_factory) -> bytes:
    return gguf_header(tmp_path_factory)


def safetensors_header() -> bytes:
    data = np.ones(64, dtype="<f4").tobytes()
    name = "model.layers.0.self_attn.rotary_emb.inv_freq"
    header = json.dumps({name: {"dtype": "F32", "shape": [64], "data_offsets": [0, len(data)]}})
    return struct.pack("<Q", len(header)) + header.encode() + data


@FUZZ
@given(st.binary(max_size=512))
def test_random_bytes_after_the_gguf_magic(tail: bytes) -> None:
    read(b"GGUF" + tail)


@FUZZ
@given(st.binary(max_size=512))
def test_random_bytes_of_any_kind(data: bytes) -> None:
    read(data)


@FUZZ
@given(offset=st.integers(0, 10_000), value=st.integers(0, 255))
def test_a_valid_gguf_with_one_byte_changed(valid_gguf: bytes, offset: int, value: int) -> None:
    data = bytearray(valid_gguf)
    data[offset % len(data)] = value
    read(bytes(data))


# The header's counts and lengths: version (4), tensor count (8), key count (16), then the first
# key's length (24); each set to extremes.
@FUZZ
@given(
    field=st.sampled_from([(4, "<I"), (8, "<Q"), (16, "<Q"), (24, "<Q")]),
    value=st.sampled_from([0, 1, 2, 3, 255, 2**31 - 1, 2**32 - 1, 2**63 - 1, 2**64 - 1]),
)
def test_a_valid_gguf_with_a_count_or_length_changed(valid_gguf: bytes, field, value) -> None:
    offset, fmt = field
    data = bytearray(valid_gguf)
    size = struct.calcsize(fmt)
    data[offset : offset + size] = struct.pack(fmt, value % (256**size))
    read(bytes(data))


@FUZZ
@given(offset=st.integers(0, 400), value=st.integers(0, 255), length=st.integers(0, 2**64 - 1))
def test_a_safetensors_header_with_a_byte_or_its_length_changed(offset, value, length) -> None:
    data = bytearray(safetensors_header())
    data[offset % len(data)] = value
    read(bytes(data))
    data[:8] = struct.pack("<Q", length)
    read(bytes(data))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=30,
)
KEYS = st.sampled_from(
    ["model_type", "num_hidden_layers", "hidden_size", "num_attention_heads", "head_dim",
     "rope_theta", "rope_scaling", "rope_parameters", "layer_types", "sliding_window",
     "partial_rotary_factor", "max_position_embeddings", "text_config", "no_rope_layers",
     "original_max_position_embeddings", "rotary_emb_base", "n_embd"]
)  # fmt: skip
NAMES = ["gemma3", "llama", "gpt_neox", "gemma4_text", "deepseek_v3", "cohere2", "smollm3",
         "qwen2_vl", "yarn", "longrope", -1, 0]  # fmt: skip
VALUES = JSON | st.sampled_from(NAMES)


@FUZZ
@given(st.dictionaries(KEYS, VALUES, max_size=8))
# Found once: rope_parameters nested for a class whose default is flat.
@example({"model_type": "llama", "num_hidden_layers": 2, "rope_parameters": {"": {}}})
def test_a_config_of_any_shape(config: dict) -> None:
    read(dict(config))


@FUZZ
@given(st.text(max_size=300))
def test_config_text_of_any_kind(text: str) -> None:
    read(text if text.lstrip()[:1] in ("{", "[") else "{" + text)

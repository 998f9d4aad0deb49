"""The header of a GGUF or safetensors model file, read in bounded pieces from any byte source.

A parser reads through a `ByteSource`, which holds the parts of the file read so far. When it
needs bytes the source lacks, it raises `NeedBytes(offset, length)`; the caller reads them (in
the browser, `File.slice` in the Web Worker), adds them and calls the parser again from the
start, which is cheap because headers are small. `parse_with` is that loop. A browser driver
starts with an empty source of the file's size and goes round the same loop:

    source = ByteSource(file.size)
    while True:
        try:
            header = read_gguf(source)
            break
        except NeedBytes as need:
            offset, length = source.window(need)
            source.add(offset, await read_slice(offset, length))

Every malformed file gives one `ModelFileError` with one plain sentence.
"""

from __future__ import annotations

import json
import math
import os
import struct
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .types import GGUFFacts

MIN_FETCH = 1 << 20  # a fetch is at least one aligned MiB, so a header takes few round-trips
MAX_HEADER_BYTES = 256 << 20  # GGUF headers with a tokenizer's vocabulary are about 10 MB
MAX_GGUF_TENSORS = 1_000_000
MAX_GGUF_KEYS = 100_000
MAX_GGUF_NAME = 65_535  # the spec's limit on a key; llama.cpp keeps tensor names under 64
MAX_GGUF_STRING = 16 << 20
MAX_GGUF_ARRAY = 1 << 24  # items walked in one array; vocabularies have about 250,000
MAX_KEPT_ARRAY = 65_536  # longer arrays are summarised, not stored
GGML_MAX_DIMS = 4
MAX_TENSOR_ELEMENTS = 1_000_000  # the most `read_gguf_tensor` decodes
MAX_SAFETENSORS_HEADER = 100_000_000  # the safetensors library's own limit
MAX_INV_FREQ = 65_536
QUOTE_CHARS = 60
GGUF_DEFAULT_ALIGNMENT = 32
ROPE_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")

# GGUF metadata value types: id -> (name, struct format); string and array have none.
GGUF_VALUE_TYPES = {
    0: ("uint8", "B"),
    1: ("int8", "b"),
    2: ("uint16", "H"),
    3: ("int16", "h"),
    4: ("uint32", "I"),
    5: ("int32", "i"),
    6: ("float32", "f"),
    7: ("bool", "?"),
    8: ("string", None),
    9: ("array", None),
    10: ("uint64", "Q"),
    11: ("int64", "q"),
    12: ("float64", "d"),
}
STRING, ARRAY = 8, 9

# ggml tensor types: id -> (name, elements per block, bytes per block), as gguf-py 0.19.0 has them.
GGML_TYPES = {
    0: ("F32", 1, 4),
    1: ("F16", 1, 2),
    2: ("Q4_0", 32, 18),
    3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34),
    9: ("Q8_1", 32, 40),
    10: ("Q2_K", 256, 84),
    11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176),
    14: ("Q6_K", 256, 210),
    15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66),
    17: ("IQ2_XS", 256, 74),
    18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50),
    20: ("IQ4_NL", 32, 18),
    21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82),
    23: ("IQ4_XS", 256, 136),
    24: ("I8", 1, 1),
    25: ("I16", 1, 2),
    26: ("I32", 1, 4),
    27: ("I64", 1, 8),
    28: ("F64", 1, 8),
    29: ("IQ1_M", 256, 56),
    30: ("BF16", 1, 2),
    34: ("TQ1_0", 256, 54),
    35: ("TQ2_0", 256, 66),
    39: ("MXFP4", 32, 17),
    40: ("NVFP4", 64, 36),
    41: ("Q1_0", 128, 18),
}
FLOAT_TYPES = {"F16": "f2", "F32": "f4", "F64": "f8", "BF16": "u2"}

# safetensors dtypes and their bits per element.
SAFETENSORS_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "U16": 16,
    "I16": 16,
    "F16": 16,
    "BF16": 16,
    "U32": 32,
    "I32": 32,
    "F32": 32,
    "U64": 64,
    "I64": 64,
    "F64": 64,
    "C64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}


class ModelFileError(ValueError):
    """A model file this module cannot read, with one plain sentence saying why."""


class NeedBytes(Exception):
    """The parser needs `length` bytes at `offset` that the source does not hold yet."""

    def __init__(self, offset: int, length: int):
        super().__init__(f"need {length:,} bytes at offset {offset:,}")
        self.offset = offset
        self.length = length


def _quote(text: Any) -> str:
    """Text from the file, cut to QUOTE_CHARS characters, quoted for a message."""
    text = str(text)
    return repr(text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "…")


def _file_ends(size: int, what: str, end: int) -> ModelFileError:
    return ModelFileError(
        f"The file ends at byte {size:,} but its header says {what} runs to byte {end:,}: "
        "is the file complete?"
    )


class ByteSource:
    """The bytes of one file read so far; `read` raises NeedBytes for the others.

    With a `fetch(offset, length) -> bytes`, the source reads what it lacks itself.
    `fetched` counts the bytes added, which may not pass MAX_HEADER_BYTES.
    """

    def __init__(self, size: int, fetch: Callable[[int, int], bytes] | None = None):
        if size < 0:
            raise ValueError(f"a file's size is not negative: {size}")
        self.size = int(size)
        self.fetched = 0
        self._fetch = fetch
        self._starts: list[int] = []
        self._chunks: list[bytes] = []

    @classmethod
    def from_bytes(cls, data: bytes) -> ByteSource:
        """A source holding all of `data`."""
        source = cls(len(data))
        source._store(0, bytes(data))
        return source

    @classmethod
    def from_path(cls, path: str | os.PathLike) -> ByteSource:
        """A source that reads a file on disk as the parser needs it, never all of it."""
        path = os.fspath(path)

        def fetch(offset: int, length: int) -> bytes:
            with open(path, "rb") as file:
                file.seek(offset)
                return file.read(length)

        return cls(os.path.getsize(path), fetch)

    def add(self, offset: int, data: bytes) -> None:
        """Hold `data`, the file's bytes from `offset`."""
        data = bytes(data)
        if offset < 0 or offset + len(data) > self.size:
            raise ValueError(f"bytes {offset:,}+{len(data):,} lie outside a file of {self.size:,}")
        self.fetched += len(data)
        if self.fetched > MAX_HEADER_BYTES:
            raise ModelFileError(
                f"Reading this file's header took more than {MAX_HEADER_BYTES >> 20} MiB, "
                "more than a model file's header needs: is it a model file?"
            )
        self._store(offset, data)

    def window(self, need: NeedBytes) -> tuple[int, int]:
        """(offset, length) to fetch for `need`: whole MIBs around it, inside the file."""
        start = need.offset - need.offset % MIN_FETCH
        end = max(need.offset + need.length, start + MIN_FETCH)
        end = min(-(-end // MIN_FETCH) * MIN_FETCH, self.size)
        return start, end - start

    def fill(self, need: NeedBytes, fetch: Callable[[int, int], bytes]) -> None:
        """Fetch and hold the window around `need`."""
        offset, length = self.window(need)
        data = fetch(offset, length)
        if len(data) != length:
            raise ModelFileError(
                f"Reading the file stopped at byte {offset + len(data):,}, before byte "
                f"{offset + length:,}: was it changed or moved while it was read?"
            )
        self.add(offset, data)

    def check(self, offset: int, length: int, what: str) -> None:
        """Refuse a range that runs past the end of the file."""
        if offset + length > self.size:
            raise _file_ends(self.size, what, offset + length)

    def read(self, offset: int, length: int, what: str = "the header") -> bytes:
        """The file's bytes [offset, offset + length); `what` names them in a message."""
        self.check(offset, length, what)
        while True:
            try:
                return self._held(offset, offset + length)
            except NeedBytes as need:
                if self._fetch is None:
                    raise
                self.fill(need, self._fetch)

    def held_at(self, offset: int) -> tuple[int, bytes]:
        """(start, chunk) of the held bytes around `offset`, or (offset, b"") if not held."""
        i = bisect_right(self._starts, offset) - 1
        if i >= 0 and offset < self._starts[i] + len(self._chunks[i]):
            return self._starts[i], self._chunks[i]
        return offset, b""

    def _held(self, offset: int, end: int) -> bytes:
        pieces, pos = [], offset
        i = bisect_right(self._starts, offset) - 1
        while pos < end:
            if i < 0 or i >= len(self._starts) or not self._covers(i, pos):
                raise NeedBytes(pos, end - pos)
            start, chunk = self._starts[i], self._chunks[i]
            stop = min(len(chunk), end - start)
            pieces.append(chunk[pos - start : stop])
            pos, i = start + stop, i + 1
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def _covers(self, i: int, pos: int) -> bool:
        return self._starts[i] <= pos < self._starts[i] + len(self._chunks[i])

    def _store(self, offset: int, data: bytes) -> None:
        """Keep the parts of `data` not held yet, so that chunks never overlap."""
        end, pos = offset + len(data), offset
        i = bisect_right(self._starts, pos)
        if i and self._starts[i - 1] + len(self._chunks[i - 1]) > pos:
            pos = self._starts[i - 1] + len(self._chunks[i - 1])
        while pos < end:
            next_start = self._starts[i] if i < len(self._starts) else end
            if next_start > pos:
                stop = min(next_start, end)
                self._starts.insert(i, pos)
                self._chunks.insert(i, data[pos - offset : stop - offset])
                pos = stop
            else:
                pos = self._starts[i] + len(self._chunks[i])
            i += 1


def parse_with(
    source: ByteSource, parser: Callable[[ByteSource], Any], fetch: Callable[[int, int], bytes]
) -> Any:
    """parser(source), fetching what it lacks with fetch(offset, length) -> bytes."""
    while True:
        try:
            return parser(source)
        except NeedBytes as need:
            source.fill(need, fetch)


def _decode_floats(data: bytes, dtype: str, order: str) -> np.ndarray:
    """float64 values of F16, BF16, F32 or F64 bytes in the byte order '<' or '>'."""
    values = np.frombuffer(data, dtype=order + FLOAT_TYPES[dtype])
    if dtype == "BF16":  # bfloat16 is the high half of a float32
        values = (values.astype(np.uint32) << 16).view(np.float32)
    return values.astype(np.float64)


# GGUF ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArraySummary:
    """A GGUF array walked over but not stored: its item type and length."""

    type: str
    length: int


@dataclass(frozen=True)
class TensorInfo:
    """One GGUF tensor: shape in NumPy's order (the file stores it reversed), absolute offset."""

    name: str
    shape: tuple[int, ...]
    ggml_type: int
    type_name: str
    offset: int
    n_bytes: int | None  # None for a ggml type this module does not know


@dataclass(frozen=True)
class GGUFHeader:
    """What a GGUF file's header says."""

    version: int
    byte_order: str  # "<" little-endian (nearly all files) or ">" big-endian
    metadata: dict[str, Any]
    metadata_types: dict[str, str]
    tensors: dict[str, TensorInfo]
    architecture: str | None
    alignment: int
    data_offset: int


class _Cursor:
    """Reads a GGUF file forward from `pos`, in its byte order."""

    def __init__(self, source: ByteSource):
        self.source = source
        self.order = "<"
        self.pos = 0

    def take(self, length: int, what: str) -> bytes:
        data = self.source.read(self.pos, length, what)
        self.pos += length
        return data

    def number(self, fmt: str, what: str) -> Any:
        return struct.unpack(self.order + fmt, self.take(struct.calcsize(fmt), what))[0]

    def skip(self, length: int, what: str) -> None:
        self.source.check(self.pos, length, what)
        self.pos += length

    def string_length(self, what: str, limit: int) -> int:
        length = self.number("Q", what)
        self.check_string(length, self.pos, what, limit)
        return length

    def check_string(self, length: int, start: int, what: str, limit: int) -> None:
        if length > limit:
            raise ModelFileError(
                f"The header says {what} is a string of {length:,} bytes; "
                f"this page reads strings of at most {limit:,} bytes."
            )
        self.source.check(start, length, what)

    def string(self, what: str, limit: int = MAX_GGUF_STRING) -> str:
        length = self.string_length(what, limit)
        return self.take(length, what).decode("utf-8", errors="replace")

    def skip_strings(self, count: int, what: str) -> None:
        """Walk over `count` strings, reading only their lengths."""
        unpack = struct.Struct(self.order + "Q").unpack_from
        while count:
            start, chunk = self.source.held_at(self.pos)
            p = self.pos - start
            while count and p + 8 <= len(chunk):  # within held bytes: no call per string
                length = unpack(chunk, p)[0]
                self.check_string(length, start + p + 8, what, MAX_GGUF_STRING)
                p, count = p + 8 + length, count - 1
            self.pos = start + p
            if count:  # a length across a chunk's end, or not held: read it the slow way
                self.skip(self.string_length(what, MAX_GGUF_STRING), what)
                count -= 1


def _gguf_version(cursor: _Cursor) -> int:
    """Check the magic and the version, and learn the file's byte order."""
    if cursor.source.size < 24:
        raise ModelFileError(
            f"The file is {cursor.source.size:,} bytes long, too short for a GGUF header."
        )
    magic = cursor.take(4, "the magic number")
    if magic != b"GGUF":
        raise ModelFileError(
            f"This is not a GGUF file: one starts with the letters GGUF, this one with the "
            f"bytes {magic.hex(' ')}."
        )
    raw = cursor.take(4, "the version")
    for order in "<>":
        version = struct.unpack(order + "I", raw)[0]
        if version in (2, 3):
            cursor.order = order
            return version
    version = struct.unpack("<I", raw)[0]
    if version == 1:
        raise ModelFileError(
            "This is a GGUF file of version 1 (2023), which stored counts in 32 bits; this page "
            "reads versions 2 and 3: convert the model again with a current llama.cpp."
        )
    raise ModelFileError(f"This GGUF file says it is version {version:,}; this page reads 2 and 3.")


def _gguf_count(cursor: _Cursor, what: str, limit: int, min_bytes: int) -> int:
    """A count of the header, refused if above `limit` or beyond what the file can hold."""
    count = cursor.number("Q", f"the number of {what}")
    if count > limit:
        raise ModelFileError(
            f"The header says the file has {count:,} {what}; this page reads at most {limit:,}."
        )
    if count * min_bytes > cursor.source.size - cursor.pos:
        raise ModelFileError(
            f"The header says the file has {count:,} {what}, more than its "
            f"{cursor.source.size:,} bytes can hold."
        )
    return count


def _gguf_scalar_format(vtype: int, what: str) -> str:
    if vtype not in GGUF_VALUE_TYPES:
        raise ModelFileError(
            f"{what} has value type {vtype:,}, which GGUF does not define (it has types 0 to 12)."
        )
    if vtype == ARRAY:
        raise ModelFileError(f"{what} is an array of arrays, which llama.cpp does not read either.")
    return GGUF_VALUE_TYPES[vtype][1]


def _gguf_array(cursor: _Cursor, key: str) -> Any:
    """A numeric array up to MAX_KEPT_ARRAY items as a list; others as an ArraySummary."""
    what = f"the array {_quote(key)}"
    item_type = cursor.number("I", f"the item type of {what}")
    length = cursor.number("Q", f"the length of {what}")
    fmt = _gguf_scalar_format(item_type, f"The array {_quote(key)}")
    item_size = 8 if fmt is None else struct.calcsize(fmt)
    if length > MAX_GGUF_ARRAY:
        raise ModelFileError(
            f"The array {_quote(key)} claims {length:,} items; this page reads arrays of at "
            f"most {MAX_GGUF_ARRAY:,}."
        )
    if length * item_size > cursor.source.size - cursor.pos:
        raise ModelFileError(
            f"The array {_quote(key)} claims {length:,} items, more than the file holds."
        )
    type_name = GGUF_VALUE_TYPES[item_type][0]
    if fmt is None:
        cursor.skip_strings(length, f"an item of {what}")
        return ArraySummary(type_name, length)
    if length > MAX_KEPT_ARRAY:
        cursor.skip(length * item_size, what)
        return ArraySummary(type_name, length)
    data = cursor.take(length * item_size, what)
    return np.frombuffer(data, dtype=cursor.order + fmt).tolist()


def _gguf_value(cursor: _Cursor, vtype: int, key: str) -> Any:
    what = f"the value of {_quote(key)}"
    if vtype == STRING:
        return cursor.string(what)
    if vtype == ARRAY:
        return _gguf_array(cursor, key)
    return cursor.number(_gguf_scalar_format(vtype, f"The key {_quote(key)}"), what)


def _gguf_metadata(cursor: _Cursor, count: int) -> tuple[dict[str, Any], dict[str, str]]:
    """The key-value pairs and each one's GGUF type name."""
    metadata: dict[str, Any] = {}
    types: dict[str, str] = {}
    for _ in range(count):
        key = cursor.string("a metadata key", MAX_GGUF_NAME)
        if not key:
            raise ModelFileError("A metadata key of this GGUF file is empty.")
        if key in metadata:
            raise ModelFileError(f"The metadata key {_quote(key)} appears twice.")
        vtype = cursor.number("I", f"the type of {_quote(key)}")
        metadata[key] = _gguf_value(cursor, vtype, key)
        types[key] = GGUF_VALUE_TYPES[vtype][0]
    return metadata, types


def _gguf_alignment(metadata: dict[str, Any], types: dict[str, str]) -> int:
    alignment = metadata.get("general.alignment", GGUF_DEFAULT_ALIGNMENT)
    valid = isinstance(alignment, int) and alignment > 0 and alignment & (alignment - 1) == 0
    if not valid or types.get("general.alignment", "uint32") != "uint32":
        raise ModelFileError(
            f"general.alignment is {_quote(alignment)}; it must be a power of two, as uint32."
        )
    return alignment


def _gguf_tensor_info(cursor: _Cursor) -> tuple[str, tuple[int, ...], int, int]:
    """(name, shape in NumPy's order, ggml type, offset in the data section) of one tensor."""
    name = cursor.string("a tensor name", MAX_GGUF_NAME)
    what = f"the shape of tensor {_quote(name)}"
    n_dims = cursor.number("I", what)
    if n_dims > GGML_MAX_DIMS:
        raise ModelFileError(
            f"Tensor {_quote(name)} has {n_dims:,} dimensions; ggml tensors have at most 4."
        )
    dims = [cursor.number("Q", what) for _ in range(n_dims)]
    ggml_type = cursor.number("I", f"the type of tensor {_quote(name)}")
    offset = cursor.number("Q", f"the offset of tensor {_quote(name)}")
    return name, tuple(reversed(dims)), ggml_type, offset


def _ggml_bytes(name: str, shape: tuple[int, ...], ggml_type: int) -> int | None:
    """The bytes of a tensor's data, or None for an unknown type; refuses impossible shapes."""
    n_elements = math.prod(shape)
    if n_elements >= 2**63:
        raise ModelFileError(f"Tensor {_quote(name)} claims {n_elements:,} elements, too many.")
    if ggml_type not in GGML_TYPES:
        return None
    type_name, block, block_bytes = GGML_TYPES[ggml_type]
    if shape and shape[-1] % block:
        raise ModelFileError(
            f"Tensor {_quote(name)} of type {type_name} has rows of {shape[-1]:,} elements, "
            f"not a multiple of its block of {block}."
        )
    return n_elements // block * block_bytes


def _gguf_tensors(infos: list, data_offset: int, alignment: int, size: int) -> dict:
    """TensorInfo by name, with absolute offsets checked against the alignment and the file."""
    tensors: dict[str, TensorInfo] = {}
    for name, shape, ggml_type, relative in infos:
        if name in tensors:
            raise ModelFileError(f"The tensor name {_quote(name)} appears twice.")
        n_bytes = _ggml_bytes(name, shape, ggml_type)
        if relative % alignment:
            raise ModelFileError(
                f"Tensor {_quote(name)} starts at {relative:,} in the data section, "
                f"not a multiple of the file's alignment ({alignment})."
            )
        offset = data_offset + relative
        if offset + (n_bytes or 0) > size:
            raise _file_ends(size, f"tensor {_quote(name)}", offset + (n_bytes or 0))
        type_name = GGML_TYPES.get(ggml_type, (f"type {ggml_type}",))[0]
        tensors[name] = TensorInfo(name, shape, ggml_type, type_name, offset, n_bytes)
    return tensors


def read_gguf(source: ByteSource) -> GGUFHeader:
    """The header of a GGUF file (spec: ggml's docs/gguf.md); long arrays are summarised."""
    cursor = _Cursor(source)
    version = _gguf_version(cursor)
    n_tensors = _gguf_count(cursor, "tensors", MAX_GGUF_TENSORS, 8 + 4 + 4 + 8)
    n_keys = _gguf_count(cursor, "metadata keys", MAX_GGUF_KEYS, 8 + 1 + 4 + 1)
    metadata, types = _gguf_metadata(cursor, n_keys)
    alignment = _gguf_alignment(metadata, types)
    infos = [_gguf_tensor_info(cursor) for _ in range(n_tensors)]
    data_offset = -(-cursor.pos // alignment) * alignment if n_tensors else cursor.pos
    tensors = _gguf_tensors(infos, data_offset, alignment, source.size)
    architecture = metadata.get("general.architecture")
    return GGUFHeader(
        version=version,
        byte_order=cursor.order,
        metadata=metadata,
        metadata_types=types,
        tensors=tensors,
        architecture=architecture if isinstance(architecture, str) else None,
        alignment=alignment,
        data_offset=data_offset,
    )


def read_gguf_tensor(source: ByteSource, header: GGUFHeader, name: str) -> np.ndarray:
    """A small float tensor (F32, F16, BF16 or F64) of a GGUF file, as float64."""
    info = header.tensors.get(name)
    if info is None:
        raise ModelFileError(f"The file has no tensor named {_quote(name)}.")
    if info.type_name not in FLOAT_TYPES:
        raise ModelFileError(
            f"Tensor {_quote(name)} is stored as {info.type_name}; this page reads F32 and F16 "
            "tensors (and BF16, F64) only."
        )
    n_elements = math.prod(info.shape)
    if n_elements > MAX_TENSOR_ELEMENTS:
        raise ModelFileError(
            f"Tensor {_quote(name)} has {n_elements:,} elements; this page reads at most "
            f"{MAX_TENSOR_ELEMENTS:,}."
        )
    data = source.read(info.offset, info.n_bytes, f"tensor {_quote(name)}")
    return _decode_floats(data, info.type_name, header.byte_order).reshape(info.shape)


def read_gguf_rope_tensors(source: ByteSource, header: GGUFHeader) -> dict[str, np.ndarray]:
    """The RoPE tensors llama.cpp writes (ROPE_TENSORS) that this file has."""
    return {
        name: read_gguf_tensor(source, header, name)
        for name in ROPE_TENSORS
        if name in header.tensors
    }


# Hugging Face config.json name -> GGUF key after "{arch}." (gguf-py's constants.Keys).
GGUF_CONFIG_KEYS = (
    ("max_position_embeddings", "context_length"),
    ("hidden_size", "embedding_length"),
    ("num_hidden_layers", "block_count"),
    ("num_attention_heads", "attention.head_count"),
    ("num_key_value_heads", "attention.head_count_kv"),
    ("head_dim", "attention.key_length"),
    ("rope_theta", "rope.freq_base"),
    ("rope_local_base_freq", "rope.freq_base_swa"),
    ("sliding_window", "attention.sliding_window"),
    ("rotary_dim", "rope.dimension_count"),
)
GGUF_ROPE_SCALING_KEYS = (
    ("factor", "rope.scaling.factor"),
    ("original_max_position_embeddings", "rope.scaling.original_context_length"),
    ("attention_factor", "rope.scaling.attn_factor"),
    ("beta_fast", "rope.scaling.yarn_beta_fast"),
    ("beta_slow", "rope.scaling.yarn_beta_slow"),
)


def _copy_keys(metadata: dict, prefix: str, pairs: tuple, into: dict, keys: dict, tag: str = ""):
    """Copy each present, stored GGUF key to its config name; note where it came from."""
    for config_key, suffix in pairs:
        value = metadata.get(prefix + suffix)
        if value is not None and not isinstance(value, ArraySummary):
            into[config_key] = value
            keys[tag + config_key] = prefix + suffix


def _gguf_rope_scaling(header: GGUFHeader, tensors: dict, keys: dict) -> dict:
    """The config's rope_scaling, from the scaling keys, longrope factors and mrope sections."""
    prefix = f"{header.architecture}."
    scaling: dict[str, Any] = {}
    rope_type = header.metadata.get(prefix + "rope.scaling.type")
    if isinstance(rope_type, str) and rope_type != "none":
        scaling["rope_type"] = rope_type
        keys["rope_scaling.rope_type"] = prefix + "rope.scaling.type"
    elif "rope_factors_long.weight" in tensors:  # Phi-3's converters write only the factors
        scaling["rope_type"] = "longrope"
        keys["rope_scaling.rope_type"] = "rope_factors_long.weight"
    sections = header.metadata.get(prefix + "rope.dimension_sections")
    if isinstance(sections, list):  # Qwen2-VL's mrope, padded with zeros by llama.cpp
        while sections and sections[-1] == 0:
            sections = sections[:-1]
        scaling.setdefault("rope_type", "default")
        scaling["mrope_section"] = sections
        keys["rope_scaling.mrope_section"] = prefix + "rope.dimension_sections"
    if not scaling:
        return {}
    _copy_keys(header.metadata, prefix, GGUF_ROPE_SCALING_KEYS, scaling, keys, "rope_scaling.")
    if scaling["rope_type"] == "longrope":
        for side in ("long", "short"):
            if f"rope_factors_{side}.weight" in tensors:
                scaling[f"{side}_factor"] = tensors[f"rope_factors_{side}.weight"].tolist()
                keys[f"rope_scaling.{side}_factor"] = f"rope_factors_{side}.weight"
    return scaling


def partial_rotary_factor(config: dict) -> float | None:
    """rotary_dim / head_dim when RoPE turns only part of each head."""
    rotary_dim, head_dim = config.get("rotary_dim"), config.get("head_dim")
    heads, hidden = config.get("num_attention_heads"), config.get("hidden_size")
    if head_dim is None and isinstance(heads, int) and isinstance(hidden, int) and heads:
        head_dim = hidden // heads
    if isinstance(rotary_dim, int) and isinstance(head_dim, int) and 0 < rotary_dim < head_dim:
        return rotary_dim / head_dim
    return None


def gguf_positions(header: GGUFHeader, tensors: dict[str, np.ndarray]) -> tuple[dict, GGUFFacts]:
    """The position settings of a GGUF file as config.json names, and its GGUFFacts.

    `tensors` are the file's RoPE tensors (`read_gguf_rope_tensors`). The facts hold the
    architecture, its own keys (as llama.cpp's rules read them: its converters write
    yarn_log_multiplier as 0.1 * mscale_all_dim for DeepSeek, mscale_all_dim itself for
    Ministral, so it is not turned into a config name), the GGUF key each value came from
    ("rope_scaling.factor": "llama.rope…") and the rope_freqs tensor or None. Keys the file lacks
    are absent.
    """
    config: dict[str, Any] = {}
    keys: dict[str, str] = {}
    prefix = f"{header.architecture}."
    if header.architecture is not None:
        _copy_keys(header.metadata, prefix, GGUF_CONFIG_KEYS, config, keys)
        scaling = _gguf_rope_scaling(header, tensors, keys)
        if scaling:
            config["rope_scaling"] = scaling
        partial = partial_rotary_factor(config)
        if partial is not None:
            config["partial_rotary_factor"] = partial
            keys["partial_rotary_factor"] = prefix + "rope.dimension_count"
    own = {
        key[len(prefix) :]: value
        for key, value in header.metadata.items()
        if header.architecture is not None
        and key.startswith(prefix)
        and isinstance(value, (int, float, str, list))
    }
    facts = GGUFFacts(header.architecture or "", own, keys, tensors.get("rope_freqs.weight"))
    return config, facts


def read_gguf_positions(source: ByteSource) -> tuple[dict, GGUFFacts]:
    """`gguf_positions` of a GGUF file: its header, then its RoPE tensors."""
    header = read_gguf(source)
    return gguf_positions(header, read_gguf_rope_tensors(source, header))


# safetensors -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SafetensorsTensor:
    """One safetensors tensor, its offset absolute in the file."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    offset: int
    n_bytes: int


@dataclass(frozen=True)
class SafetensorsHeader:
    """What a safetensors file's JSON header says."""

    metadata: dict[str, str]
    tensors: dict[str, SafetensorsTensor]
    data_offset: int


def _refuse_constant(name: str) -> None:
    raise ModelFileError(f"The safetensors header holds {name}, which JSON does not allow.")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ModelFileError(f"The safetensors header names {_quote(key)} twice.")
        seen.add(key)
    return dict(pairs)


def _json_header(data: bytes) -> dict[str, Any]:
    """The JSON object of a safetensors header; NaN, Infinity and repeated names refused."""
    try:
        value = json.loads(
            data.decode("utf-8"), parse_constant=_refuse_constant, object_pairs_hook=_unique_keys
        )
    except ModelFileError:
        raise
    except UnicodeDecodeError:
        raise ModelFileError("The safetensors header is not UTF-8 text.") from None
    except json.JSONDecodeError as error:
        raise ModelFileError(
            f"The safetensors header is not valid JSON ({error.msg} at character {error.pos:,})."
        ) from None
    except (ValueError, RecursionError):  # ints of over 4,300 digits, nesting past the stack
        raise ModelFileError("The safetensors header is JSON this page cannot read.") from None
    if not isinstance(value, dict):
        raise ModelFileError(
            f"The safetensors header is a JSON {type(value).__name__}, not an object of tensors."
        )
    return value


def _whole_numbers(value: Any) -> bool:
    """A list of unsigned 64-bit integers, as safetensors' shapes and offsets are."""
    return isinstance(value, list) and all(
        isinstance(item, int) and not isinstance(item, bool) and 0 <= item < 2**64 for item in value
    )


def _safetensors_metadata(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ModelFileError("The safetensors __metadata__ is not an object of strings.")
    return value


def _safetensors_tensor(name: str, entry: Any, data_offset: int, size: int) -> SafetensorsTensor:
    """One entry of the header, checked as the safetensors library checks it."""
    quoted = _quote(name)
    if not isinstance(entry, dict):
        raise ModelFileError(f"The safetensors entry {quoted} is not an object.")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in SAFETENSORS_BITS:
        raise ModelFileError(f"Tensor {quoted} has dtype {_quote(dtype)}, not a safetensors one.")
    if not _whole_numbers(shape):
        raise ModelFileError(f"Tensor {quoted} has a shape that is not a list of whole numbers.")
    if not _whole_numbers(offsets) or len(offsets) != 2 or offsets[0] > offsets[1]:
        raise ModelFileError(f"Tensor {quoted} has data_offsets that are not [begin, end].")
    begin, end = offsets
    if data_offset + end > size:
        raise _file_ends(size, f"tensor {quoted}", data_offset + end)
    if math.prod(shape) * SAFETENSORS_BITS[dtype] != (end - begin) * 8:
        raise ModelFileError(
            f"Tensor {quoted}'s shape of {dtype} values does not fill the {end - begin:,} "
            "bytes of its data_offsets."
        )
    return SafetensorsTensor(name, dtype, tuple(shape), data_offset + begin, end - begin)


def read_safetensors(source: ByteSource) -> SafetensorsHeader:
    """The header of a safetensors file: an 8-byte length N, then N bytes of JSON."""
    if source.size < 8:
        raise ModelFileError(
            f"The file is {source.size:,} bytes long, too short for a safetensors header."
        )
    length = struct.unpack("<Q", source.read(0, 8, "the header's length"))[0]
    if length > MAX_SAFETENSORS_HEADER:
        raise ModelFileError(
            f"The file says its JSON header is {length:,} bytes; safetensors allows at most "
            f"{MAX_SAFETENSORS_HEADER:,}."
        )
    entries = _json_header(source.read(8, length, "its JSON header"))
    metadata = _safetensors_metadata(entries.pop("__metadata__", None))
    tensors = {
        name: _safetensors_tensor(name, entry, 8 + length, source.size)
        for name, entry in entries.items()
    }
    return SafetensorsHeader(metadata, tensors, 8 + length)


def safetensors_inv_freq(source: ByteSource, header: SafetensorsHeader) -> dict[str, np.ndarray]:
    """The float64 values of every tensor named "…rotary_emb.inv_freq", read by its slice."""
    found = {}
    for name, tensor in header.tensors.items():
        if not name.endswith("rotary_emb.inv_freq"):
            continue
        if tensor.dtype not in FLOAT_TYPES:
            raise ModelFileError(
                f"Tensor {_quote(name)} is {tensor.dtype}; an inv_freq is F32, F16, BF16 or F64."
            )
        if math.prod(tensor.shape) > MAX_INV_FREQ:
            raise ModelFileError(
                f"Tensor {_quote(name)} has {math.prod(tensor.shape):,} values, more than an "
                f"inv_freq has (at most {MAX_INV_FREQ:,})."
            )
        data = source.read(tensor.offset, tensor.n_bytes, f"tensor {_quote(name)}")
        found[name] = _decode_floats(data, tensor.dtype, "<").reshape(tensor.shape)
    return found


def read_header(source: ByteSource) -> GGUFHeader | SafetensorsHeader:
    """The header of a GGUF file (it starts with b"GGUF") or else of a safetensors file."""
    if source.size >= 4 and source.read(0, 4, "the magic number") == b"GGUF":
        return read_gguf(source)
    return read_safetensors(source)

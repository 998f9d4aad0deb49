"""SliceFile: a file chooser whose file is read by the slices Python asks for (File.slice in the
browser), never whole: a GGUF of several GiB is read by its header and a few small tensors.

The reading is a loop: parse what has arrived; where the parser needs bytes it does not hold
(model.files.NeedBytes), ask the browser for that slice; when it arrives, parse again.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from pathlib import Path

import param
from panel.custom import JSComponent

from ..model.files import ByteSource, ModelFileError, NeedBytes

# Slices are asked for in pieces of at least this many bytes, so that a header takes few trips.
MIN_SLICE = 1 << 20
# And never more in all than this: a header with a tokenizer's vocabulary is about 10 MB.
MAX_READ = 64 << 20


class SliceReader(JSComponent):
    """The browser's side: a file input; `chosen` when a file is picked, `chunk` per slice."""

    label = param.String(default="A file", doc="The chooser's visible label.")
    accept = param.String(default="", doc="The file types offered, as an input's accept.")
    chosen = param.Dict(default={}, doc="The file picked: name, size and a serial number.")
    request = param.Dict(default={}, doc="The slice Python asks for: serial, id, offset, length.")
    chunk = param.Dict(default={}, doc="The slice read: serial, id, offset and base64 data.")

    _esm = Path(__file__).parents[1] / "js" / "slice_reader.js"
    # In the component's own shadow root: a page's stylesheet does not reach it.
    _stylesheets = [
        ".pe-slice-label { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center;"
        " margin: 4px 8px; }"
    ]


class SliceFile:
    """A SliceReader and the loop that parses its file with parse(source) -> result; done(name,
    result or ModelFileError) is called once per file chosen."""

    def __init__(self, reader: SliceReader, parse: Callable, done: Callable):
        self.reader, self._parse, self._done = reader, parse, done
        self._source: ByteSource | None = None
        self._fetched = 0
        self.last_read = (0, 0)  # (bytes read, file size) of the last file finished
        reader.param.watch(self._chosen, "chosen")
        reader.param.watch(self._arrived, "chunk")

    def _chosen(self, event) -> None:
        chosen = event.new or {}
        size = chosen.get("size")
        if not isinstance(size, int) or size < 0:
            return
        self._source, self._fetched = ByteSource(size), 0
        self._step()

    def _arrived(self, event) -> None:
        chunk = event.new or {}
        if self._source is None or chunk.get("serial") != self.reader.chosen.get("serial"):
            return  # a slice of a file since replaced
        if "error" in chunk:
            return self._finish(ModelFileError("the browser could not read this file"))
        try:
            data = base64.b64decode(str(chunk.get("data", "")), validate=True)
        except (binascii.Error, ValueError):
            return self._finish(ModelFileError("a slice of the file arrived garbled"))
        self._fetched += len(data)
        self._source.add(int(chunk.get("offset", 0)), data)
        self._step()

    def _step(self) -> None:
        try:
            result = self._parse(self._source)
        except NeedBytes as need:
            return self._ask(need.offset, need.length)
        except ValueError as error:  # ModelFileError and ModelError: one plain message
            return self._finish(error)
        self._finish(result)

    def _ask(self, offset: int, length: int) -> None:
        size = self._source.size
        start = max(0, min(offset, size))
        length = min(max(length, MIN_SLICE), size - start)
        if self._fetched + length > MAX_READ:
            return self._finish(
                ModelFileError(
                    f"this file's header is larger than {MAX_READ >> 20} MiB, "
                    "more than a model's header holds"
                )
            )
        serial = self.reader.chosen.get("serial")
        self.reader.request = {
            "serial": serial,
            "id": self._fetched,
            "offset": start,
            "length": length,
        }

    def _finish(self, result) -> None:
        name = str(self.reader.chosen.get("name", ""))
        self.last_read = (self._fetched, self._source.size if self._source else 0)
        self._source = None
        self._done(name, result)

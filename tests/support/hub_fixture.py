"""A stand-in for the Hugging Face Hub on localhost, for tests ($HF_ENDPOINT points at it): files
served at /OWNER/NAME/resolve/main/PATH with HTTP range requests, a gated repository (401), and
one file whose answer stops in the middle of a range. It counts the bytes it sends."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RESOLVE = re.compile(r"^/([^/]+/[^/]+)/resolve/main/(.+)$")


class HubFixture:
    """files: {"owner/name/path": Path}; gated: repositories that answer 401."""

    def __init__(self, files: dict[str, Path], gated: set[str] = frozenset(),
                 cut: set[str] = frozenset()) -> None:  # fmt: skip
        self.files, self.gated, self.cut = files, set(gated), set(cut)
        self.sent = 0
        self.requests: list[str] = []
        fixture = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                fixture.answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> HubFixture:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        self.requests.append(handler.path)
        match = RESOLVE.match(handler.path)
        if not match:
            return handler.send_error(404)
        repo, path = match[1], match[2]
        if repo in self.gated:
            return handler.send_error(401)
        file = self.files.get(f"{repo}/{path}")
        if file is None:
            return handler.send_error(404)
        size = file.stat().st_size
        start, end = 0, size - 1
        ranged = re.match(r"bytes=(\d+)-(\d*)", handler.headers.get("Range", ""))
        if ranged:
            start = int(ranged[1])
            end = min(int(ranged[2]) if ranged[2] else size - 1, size - 1)
        length = max(end - start + 1, 0)
        handler.send_response(206 if ranged else 200)
        handler.send_header("Content-Length", str(length))
        handler.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        handler.end_headers()
        with file.open("rb") as data:
            data.seek(start)
            body = data.read(length)
        if f"{repo}/{path}" in self.cut:
            body = body[: len(body) // 2]  # the server stops in the middle of the range
        handler.wfile.write(body)
        self.sent += len(body)

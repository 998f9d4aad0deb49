"""A stand-in for the Hugging Face Hub on localhost, for tests ($HF_ENDPOINT points at it): files
served at /OWNER/NAME/resolve/REVISION/PATH with HTTP range requests, a gated repository (401),
one file whose answer stops in the middle of a range, and files the Hub redirects to its CDN: a
second server on another port, which refuses (403) a request that carries Authorization, as a
presigned CDN URL does. It counts the bytes it sends and keeps each request's headers."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

RESOLVE = re.compile(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")
CDN = re.compile(r"^/cdn/(.+)$")


class Server:
    """One HTTP server on 127.0.0.1 and a free port, answering GETs with answer(handler)."""

    def __init__(self, answer) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                answer(self)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


class HubFixture:
    """files: {"owner/name/path": Path} at main, {"owner/name@revision/path": Path} at another
    revision; gated: repositories that answer 401; cut: files whose answer stops halfway;
    redirected: files the Hub answers with a 302 to its CDN (self.cdn, another port)."""

    def __init__(
        self,
        files: dict[str, Path],
        gated: set[str] = frozenset(),
        cut: set[str] = frozenset(),
        redirected: set[str] = frozenset(),
    ) -> None:
        self.files, self.gated, self.cut = files, set(gated), set(cut)
        self.redirected = set(redirected)
        self.sent = 0
        self.requests: list[str] = []  # the Hub's paths, as sent
        self.headers: list[dict[str, str]] = []  # the Hub's requests' headers
        self.cdn_requests: list[str] = []
        self.cdn_headers: list[dict[str, str]] = []
        self.hub, self.cdn = Server(self.answer), Server(self.answer_cdn)

    @property
    def url(self) -> str:
        return self.hub.url

    def __enter__(self) -> HubFixture:
        self.hub.start()
        self.cdn.start()
        return self

    def __exit__(self, *exc) -> None:
        self.hub.stop()
        self.cdn.stop()

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        self.requests.append(handler.path)
        self.headers.append(dict(handler.headers))
        match = RESOLVE.match(handler.path)
        if not match:
            return handler.send_error(404)
        repo, revision, path = match[1], unquote(match[2]), unquote(match[3])
        if repo in self.gated:
            return handler.send_error(401)
        key = f"{repo}/{path}" if revision == "main" else f"{repo}@{revision}/{path}"
        if key not in self.files:
            return handler.send_error(404)
        if key in self.redirected:
            handler.send_response(302)
            handler.send_header("Location", f"{self.cdn.url}/cdn/{key}")
            handler.send_header("Content-Length", "0")
            return handler.end_headers()
        self.send_file(handler, key)

    def answer_cdn(self, handler: BaseHTTPRequestHandler) -> None:
        self.cdn_requests.append(handler.path)
        self.cdn_headers.append(dict(handler.headers))
        match = CDN.match(handler.path)
        if not match or match[1] not in self.files:
            return handler.send_error(404)
        if "Authorization" in handler.headers:  # a presigned URL takes no second credential
            return handler.send_error(403)
        self.send_file(handler, match[1])

    def send_file(self, handler: BaseHTTPRequestHandler, key: str) -> None:
        file = self.files[key]
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
        if key in self.cut:
            body = body[: len(body) // 2]  # the server stops in the middle of the range
        handler.wfile.write(body)
        self.sent += len(body)

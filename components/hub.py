"""Files on the Hugging Face Hub for the command: a model's config.json, or a GGUF or safetensors
file read by its header only, through HTTP range requests (a 20 GB GGUF costs a few MB). The
endpoint is $HF_ENDPOINT (https://huggingface.co by default), the token $HF_TOKEN when set.

    SOURCE = hf://owner/name[@revision][/path/in/repo]  (a config.json when no path)
             owner/name[@revision]                     (the command's bare form: cli.py)

The revision is a branch, tag or commit (refs/pr/N too, or any of them URL-quoted); main when
none is given. The token goes to the endpoint's own origin only: the Hub answers a file's resolve
URL with a redirect to its CDN, and a redirect to another scheme, host or port is followed
without it (as huggingface_hub does; a presigned CDN URL refuses a second credential).
"""

from __future__ import annotations

import http.client
import os
import re
import urllib.error
import urllib.request
from urllib.parse import quote, unquote, urlsplit

# A revision: a branch, tag or commit, refs/pr/N, or any of them URL-quoted (refs%2Fpr%2F1).
REVISION = r"(?:@(refs/pr/\d+|[\w.%-]{1,255}))?"
# A Hub id, as the page's Hub field accepts it (plotkit.hub_fetch.ID_PATTERN), then a revision
# and a path in the repository.
HUB_SOURCE = re.compile(
    rf"(?:hf://)?([A-Za-z0-9][\w.-]{{0,95}})/([\w.-]{{1,96}}){REVISION}((?:/[\w.-]+)*)"
)
# The command's bare form, owner/name[@revision]: each part starts and ends with a letter or digit.
_PART = r"[A-Za-z0-9](?:[\w.-]{0,94}[A-Za-z0-9])?"
BARE_HUB_ID = re.compile(rf"({_PART})/({_PART}){REVISION}")
MAX_JSON = 4 << 20
TIMEOUT_S = 30


class HubError(ValueError):
    """A Hub file that cannot be read: one plain sentence."""


def split(source: str) -> tuple[str, str, str]:
    """(owner/name, revision, path in the repository): main and config.json when not given."""
    match = HUB_SOURCE.fullmatch(source)
    if not match or ".." in unquote(source):
        raise HubError(
            f"{source[:80]} is not a Hub id (owner/name, owner/name@revision, or "
            "hf://owner/name/path)"
        )
    revision = unquote(match[3]) if match[3] else "main"
    return f"{match[1]}/{match[2]}", revision, match[4].lstrip("/") or "config.json"


def endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def file_url(repo: str, path: str, revision: str = "main") -> str:
    return f"{endpoint()}/{repo}/resolve/{quote(revision, safe='')}/{quote(path)}"


def origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port: the token is sent to one origin only."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default


class TokenForOneOrigin(urllib.request.HTTPRedirectHandler):
    """Follows redirects, with Authorization only where the redirect stays on the token's origin.

    The token is an unredirected header, which urllib never copies to a redirect; it is put back
    on a redirect to the same scheme, host and port."""

    def __init__(self, token_origin: tuple, authorization: str) -> None:
        self.token_origin, self.authorization = token_origin, authorization

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and origin(new.full_url) == self.token_origin:
            new.add_unredirected_header("Authorization", self.authorization)
        return new


def authorized(request: urllib.request.Request) -> urllib.request.OpenerDirector:
    """An opener for request, which carries $HF_TOKEN (when set) to its own origin only."""
    token = os.environ.get("HF_TOKEN")
    if not token:
        return urllib.request.build_opener()
    authorization = f"Bearer {token}"
    request.add_unredirected_header("Authorization", authorization)
    return urllib.request.build_opener(TokenForOneOrigin(origin(request.full_url), authorization))


def fetch(url: str, start: int, end: int, what: str) -> tuple[bytes, int]:
    """Bytes start … end (inclusive) of the file at url, and the file's whole size."""
    request = urllib.request.Request(url, headers={"Range": f"bytes={start}-{end}",
                                                   "User-Agent": "pe-explorer"})  # fmt: skip
    try:
        with authorized(request).open(request, timeout=TIMEOUT_S) as answer:
            size = _total(answer.headers.get("Content-Range"), answer.headers)
            wanted = end - start + 1
            data = answer.read(wanted if answer.status == 206 else min(wanted, size))
    except urllib.error.HTTPError as error:
        raise HubError(_refusal(error.code, what)) from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise HubError(f"{what}: the Hub at {endpoint()} did not answer ({reason})") from None
    except http.client.HTTPException as error:  # IncompleteRead: the server stopped mid-range
        raise HubError(
            f"{what}: the Hub stopped sending in the middle ({type(error).__name__})"
        ) from None
    if len(data) < min(end - start + 1, max(size - start, 0)):
        raise HubError(f"{what}: the Hub stopped sending in the middle of a range")
    return data, size


def _total(content_range: str | None, headers) -> int:
    if content_range and "/" in content_range:
        total = content_range.rsplit("/", 1)[1]
        if total.isdigit():
            return int(total)
    length = headers.get("Content-Length")
    return int(length) if length and length.isdigit() else 0


def _refusal(status: int, what: str) -> str:
    if status in (401, 403):
        return (f"{what} is gated or private on the Hub: log in (set HF_TOKEN) and accept its "
                "terms on its page")  # fmt: skip
    if status == 404:
        return f"{what} does not exist on the Hub"
    return f"{what}: the Hub answered HTTP {status}"


def load_hub(source: str):
    """A Loaded of the model reader from a Hub source: JSON read whole (up to 4 MiB), a GGUF or
    safetensors file by the slices its header needs."""
    from .model.files import ByteSource, parse_with
    from .model.sources import Loaded, from_source
    from .model.values import parse_json

    repo, revision, path = split(source)
    what = f"{repo}/{path}" + (f" at {revision}" if revision != "main" else "")
    url = file_url(repo, path, revision)
    head, size = fetch(url, 0, (1 << 20) - 1, what)
    if path.endswith(".json") or head.lstrip()[:1] == b"{":
        if size > MAX_JSON:
            raise HubError(f"{what} is {size:,} bytes; a config.json is far smaller")
        if size > len(head):
            head += fetch(url, len(head), size - 1, what)[0]
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError:
            raise HubError(f"{what} is not UTF-8 text, so not a config.json") from None
        return Loaded(parse_json(text), name=repo, kind=f"config.json of {repo}")
    source_bytes = ByteSource(size)
    source_bytes.add(0, head)

    def slice_of(offset: int, length: int) -> bytes:
        return fetch(url, offset, offset + length - 1, what)[0]

    loaded = parse_with(source_bytes, lambda s: from_source(s, path), slice_of)
    loaded.name = loaded.name or what
    loaded.sources["fetched"] = f"{source_bytes.fetched:,} of {size:,} bytes from the Hub"
    return loaded

"""The command's Hub reads (components/hub.py): $HF_TOKEN goes to the Hub's own origin and never
follows a redirect to its CDN, and a revision goes into the resolve URL. Answered by a fixture
Hub on localhost whose CDN is a second port: no test reaches the network."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from hub_fixture import HubFixture
from pe_explorer import hub
from pe_explorer.model.presets import PRESETS

TOKEN = "hf_secret"


@pytest.fixture
def server(tmp_path, monkeypatch):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(PRESETS["qwen3-8b"]["config"]), encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps(PRESETS["llama-3.1-8b"]["config"]), encoding="utf-8")
    files = {"Qwen/Qwen3-8B/config.json": config, "someone/on-cdn/config.json": config,
             "someone/model@v1.0/config.json": other,
             "someone/model@refs/pr/1/config.json": other}  # fmt: skip
    with HubFixture(files, redirected={"someone/on-cdn/config.json"}) as fixture:
        monkeypatch.setenv("HF_ENDPOINT", fixture.url)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        yield fixture


def test_the_token_reaches_the_hub_but_not_the_cdn_it_redirects_to(server) -> None:
    loaded = hub.load_hub("someone/on-cdn")
    assert loaded.config["model_type"] == "qwen3"
    assert [h.get("Authorization") for h in server.headers] == [f"Bearer {TOKEN}"]
    assert server.cdn_requests == ["/cdn/someone/on-cdn/config.json"]
    assert all("Authorization" not in h for h in server.cdn_headers)
    assert all(h.get("Range") for h in server.cdn_headers)  # the range request follows


def test_the_cdn_refuses_a_request_that_carries_the_token(server) -> None:
    """The fixture catches the bug: urllib's plain headers follow every redirect."""
    url = hub.file_url("someone/on-cdn", "config.json")
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)  # noqa: S310 (localhost)
    assert refused.value.code == 403
    assert "someone/on-cdn" in hub.load_hub("someone/on-cdn").name


def test_without_a_token_nothing_is_sent(server, monkeypatch) -> None:
    monkeypatch.delenv("HF_TOKEN")
    hub.load_hub("someone/on-cdn")
    assert all("Authorization" not in h for h in server.headers + server.cdn_headers)


@pytest.mark.parametrize(
    ("redirect", "keeps_token"),
    [
        ("https://huggingface.co/api/resolve-cache/x", True),
        ("https://HuggingFace.co:443/other/repo/resolve/main/config.json", True),
        ("https://cdn-lfs.hf.co/repos/x?X-Amz-Signature=y", False),
        ("https://huggingface.co:8443/x", False),
        ("http://huggingface.co/x", False),
        ("https://huggingface.co.evil.example/x", False),
    ],
    ids=["same-origin", "same-origin-spelled-out", "cdn", "other-port", "http", "lookalike"],
)
def test_a_redirect_carries_the_token_only_to_the_same_origin(redirect, keeps_token) -> None:
    url = "https://huggingface.co/o/n/resolve/main/config.json"
    handler = hub.TokenForOneOrigin(hub.origin(url), "Bearer t")
    request = urllib.request.Request(url, headers={"Range": "bytes=0-9"})
    request.add_unredirected_header("Authorization", "Bearer t")
    new = handler.redirect_request(request, None, 302, "Found", {}, redirect)
    assert new.has_header("Authorization") is keeps_token
    assert new.get_header("Range") == "bytes=0-9"


@pytest.mark.parametrize(
    ("source", "path"),
    [
        ("someone/model@v1.0", "/someone/model/resolve/v1.0/config.json"),
        ("hf://someone/model@refs/pr/1/config.json",
         "/someone/model/resolve/refs%2Fpr%2F1/config.json"),
        ("someone/model@refs%2Fpr%2F1", "/someone/model/resolve/refs%2Fpr%2F1/config.json"),
    ],
    ids=["tag", "pull-request", "quoted"],
)  # fmt: skip
def test_a_revision_goes_into_the_resolve_url_quoted(server, source, path) -> None:
    loaded = hub.load_hub(source)
    assert server.requests == [path]
    assert loaded.config["model_type"] == "llama"  # the file at that revision, not main's


def test_a_file_missing_at_a_revision_says_which(server) -> None:
    with pytest.raises(hub.HubError, match="Qwen/Qwen3-8B/config.json at v9 does not exist"):
        hub.load_hub("Qwen/Qwen3-8B@v9")


@pytest.mark.parametrize(
    ("source", "parts"),
    [
        ("Qwen/Qwen3-8B", ("Qwen/Qwen3-8B", "main", "config.json")),
        ("hf://o/n/sub/model-Q4.gguf", ("o/n", "main", "sub/model-Q4.gguf")),
        ("hf://o/n@abc123/model.gguf", ("o/n", "abc123", "model.gguf")),
        ("o/n@refs/pr/12", ("o/n", "refs/pr/12", "config.json")),
    ],
)
def test_a_source_splits_into_repository_revision_and_path(source, parts) -> None:
    assert hub.split(source) == parts


@pytest.mark.parametrize(
    "source", ["o", "hf://o/../etc/passwd", "o/n@", "o/n@a b", "o/n@%2e%2e%2F%2e%2e"]
)
def test_what_is_not_a_hub_id_is_refused_in_one_sentence(source) -> None:
    with pytest.raises(hub.HubError, match="is not a Hub id"):
        hub.split(source)

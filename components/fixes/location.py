"""Works around Panel's Location failing on a URL with a second `?`, such as `?text=why?`.

Upstream: none found; report text: docs/upstream.md, "Location". `panel.io.location.
_get_location_params` splits the request URI on every `?` and unpacks two parts, so under
`panel serve` such a link raised "too many values to unpack" and the page never loaded. Every
`?` after the first is sent on percent-encoded, which is what the visitor's text meant.
"""

from __future__ import annotations

import panel.io.location

_original = panel.io.location._get_location_params


def _get_location_params(protocol, host, uri):
    if uri and uri.count("?") > 1:
        path, _, query = uri.partition("?")
        uri = f"{path}?{query.replace('?', '%3F')}"
    return _original(protocol, host, uri)


def install() -> None:
    """Use the tolerant reading for every session (once per process)."""
    panel.io.location._get_location_params = _get_location_params

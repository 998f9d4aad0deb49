"""Bokeh's keep-alive no longer pings a socket that is closing (fixes/keep_alive.py)."""

from __future__ import annotations

import types

import bokeh.server.views.ws as ws
from pe_explorer.fixes.keep_alive import ping_open_sockets_only


def handler(closing: bool):
    """A socket handler whose connection is, or is not, closing."""
    connection = types.SimpleNamespace(is_closing=lambda: closing)
    return types.SimpleNamespace(ws_connection=connection)


def test_a_closing_socket_is_not_pinged_and_an_open_one_is(monkeypatch):
    pinged = []
    monkeypatch.setattr(ws.WSHandler, "ping", lambda self, data=b"": pinged.append(self))
    ping_open_sockets_only()
    leaving, staying = handler(closing=True), handler(closing=False)
    ws.WSHandler.ping(leaving)
    ws.WSHandler.ping(staying)
    assert pinged == [staying]


def test_the_ping_is_wrapped_once(monkeypatch):
    monkeypatch.setattr(ws.WSHandler, "ping", lambda self, data=b"": None)
    ping_open_sockets_only()
    wrapped = ws.WSHandler.ping
    ping_open_sockets_only()
    assert ws.WSHandler.ping is wrapped

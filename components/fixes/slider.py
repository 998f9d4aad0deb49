"""Works around Panel merging served slider steps: its 50 ms debounce (`Syncable._debounce`) and its
retry of a change while the socket is busy (https://github.com/holoviz/panel/pull/6052).

Upstream: none found; report text: docs/upstream.md, "Debounce" and "Busy socket".

Under `panel serve` (./build.sh dev) a burst of keys on a slider left the page in another state
than the same keys taken one by one (k kept where a length the keys passed through would have
bounded it): tests/browser/test_controls_browser.py's storm from k = −pos failed at d_model 2044
× 2048 without these, and with the debounce off alone. Here each step reaches Python at once,
and is handled once the reply to the page's own message is written (well under a millisecond),
so that Panel sends each view's change as it is made (`panel.io.document._dispatch_msgs`)
instead of retrying it 10 ms later.
"""

from __future__ import annotations

import panel as pn


def connections(doc) -> list:
    """The websocket connections of doc's `panel serve` session (none without a session)."""
    session = getattr(getattr(doc, "session_context", None), "session", None)
    return list(getattr(session, "_subscribed_connections", ()))


async def reply_written(doc) -> None:
    """Wait until every socket of doc's session has written what it is writing."""
    for connection in connections(doc):
        lock = getattr(connection._socket, "write_lock", None)
        if lock is not None:
            async with lock:
                pass


class Slider(pn.widgets.IntSlider):
    """An IntSlider whose steps reach Python one by one, each once its reply is written."""

    _debounce = 0

    async def _change_coroutine(self, doc=None, event_id=None):
        await reply_written(doc)
        await super()._change_coroutine(doc, event_id)

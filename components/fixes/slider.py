"""Works around Panel holding every served widget change for 50 ms (`Syncable._debounce`).

Upstream: none found; report text: docs/upstream.md, "Debounce".

A keyboard step is one change, and changes arriving while one is handled are merged anyway.
"""

from __future__ import annotations

import panel as pn

from .serving import reply_written


class Slider(pn.widgets.IntSlider):
    """An IntSlider whose steps reach Python at once, and whose views reach the page one by one."""

    _debounce = 0

    async def _change_coroutine(self, doc=None, event_id=None):
        await reply_written(doc)
        await super()._change_coroutine(doc, event_id)

"""Announcer: a polite live region saying what the views show once a drag or key press settles."""

from __future__ import annotations

from pathlib import Path

import param
from panel.custom import JSComponent

# How long the message must stay the same before it is read: a drag or a held arrow key sends
# a message per step, and a screen reader should hear only where it ended.
SETTLE_MS = 750


class Announcer(JSComponent):
    """Reads `message` out (role="status", aria-live="polite") once it has stopped changing.

    The message is set as text, never as HTML: it may quote the sentence a visitor typed.
    """

    message = param.String(default="", doc="What the views show now, in one plain sentence.")
    settle_ms = param.Integer(default=SETTLE_MS, bounds=(0, None), constant=True, doc="Quiet time.")

    _esm = Path(__file__).parents[1] / "js" / "announcer.js"

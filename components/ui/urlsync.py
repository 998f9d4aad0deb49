"""Keeping the URL and the state in step: read the link the page was opened with, say what was
adjusted, and write every change back with history.replaceState."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode

import panel as pn
import param
from panel.custom import JSComponent

from ..state import ExplorerState
from ..urlstate import ALWAYS_WRITTEN, MAX_KEYS, MAX_VALUE_LENGTH, Notice, parse_query, to_query
from ..views import VIEW_NAMES
from .page_options import PageOptions

NOTICE_STYLE = """
:host { width: 100%; }
.pe-notices { border: 1px solid #b45309; background: #fffbeb; color: #78350f;
              padding: 0.4em 0.8em; border-radius: 6px; }
.pe-notices ul { margin: 0.2em 0 0; padding-left: 1.2em; }
"""


class UrlWriter(JSComponent):
    """Writes the query string with history.replaceState: no reload, no new history entries;
    and, in a frame, talks with the host page (the protocol is in the README).

    Panel's own Location uses pushState, so every slider step would add a Back entry.
    Nothing is written until ``active`` is set, after the page has read the URL it was
    opened with (in the Pyodide worker that URL arrives only after the first render).
    Then the frame tells its host `pe-explorer:ready`, and `pe-explorer:state` after every
    change; a host's `pe-explorer:set` reaches Python (``on_host_values``) as a dict of
    strings, which the page reads as it reads a link.
    """

    query = param.String(default="", doc="The query string to show, without '?'.")
    active = param.Boolean(default=False, doc="Whether the URL may be written yet.")
    # A host's values beyond a link's limits are refused in the browser, before Python.
    max_keys = param.Integer(default=MAX_KEYS, constant=True, doc="The most keys a host may set.")
    max_chars = param.Integer(
        default=MAX_VALUE_LENGTH, constant=True, doc="The longest key or value a host may send."
    )

    picked = param.List(
        default=[name for name in ALWAYS_WRITTEN if name in ("pos", "offset")],
        constant=True,
        doc="The values the page picks (pos and k): always in the link, as Python writes them.",
    )

    _esm = Path(__file__).parents[1] / "js" / "url_writer.js"

    def __init__(self, on_host_values=None, **params):
        super().__init__(**params)
        self._on_host_values = on_host_values

    def _handle_msg(self, data) -> None:
        values = data.get("values") if isinstance(data, dict) else None
        if self._on_host_values is not None and isinstance(values, dict):
            self._on_host_values({str(k): str(v) for k, v in values.items()})


def page_url(query: str) -> str:
    """The absolute URL of this page with the given query (relative when unknown)."""
    location = pn.state.location
    if location is None or not location.hostname:
        return f"?{query}"
    port = f":{location.port}" if location.port else ""
    return f"{location.protocol}//{location.hostname}{port}{location.pathname}?{query}"


def notices_html(notices: list[Notice]) -> str:
    """The URL notices as escaped text: nothing from the URL is ever rendered as HTML."""
    items = "".join(f"<li>{html.escape(str(notice))}</li>" for notice in notices)
    return (
        '<div class="pe-notices" role="status"><strong>Some link parameters were adjusted:'
        f"</strong><ul>{items}</ul></div>"
    )


class UrlSync(pn.viewable.Viewer):
    """The URL ⇄ state and page options, and the dismissable notice of what was adjusted."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    options = param.ClassSelector(class_=PageOptions, doc="Which views, and whether embedded.")

    def __init__(self, **params):
        super().__init__(**params)
        self.writer = UrlWriter(on_host_values=self.apply_host_values)
        self._notices = pn.pane.HTML(
            "", visible=False, sizing_mode="stretch_width", stylesheets=[NOTICE_STYLE]
        )
        self._dismiss = pn.widgets.Button(label="Dismiss", color="light", visible=False, width=90)
        self._dismiss.on_click(self._hide_notices)
        # After the views' own watchers (precedence 0): the URL is written once they are drawn.
        self.state.param.watch(
            self._state_changed, [n for n in self.state.param if n != "name"], precedence=1
        )

    def read_location(self) -> None:
        """Apply the URL now (served app) or when the browser reports it (Pyodide worker)."""
        location = pn.state.location
        if location is None:
            return
        location.param.watch(self._location_changed, ["href", "search"])
        if location.href:
            self.apply_query(location.search)

    def _location_changed(self, *events) -> None:
        location = pn.state.location
        if not self.writer.active or location.search.lstrip("?") != self.writer.query:
            self.apply_query(location.search)

    def apply_query(self, query: str) -> None:
        """Show the state a query string asks for, in one update, and say what was adjusted."""
        parsed = parse_query(query or "", VIEW_NAMES)
        # Layout first: views the link leaves off the page are paused before the state moves.
        self.options.param.update(view=parsed.view, embed=parsed.embed)
        self.state.apply(parsed.values)
        self._show_notices(parsed.notices)
        self.writer.query = self.query()
        self.writer.active = True

    def apply_host_values(self, values: dict[str, str]) -> None:
        """Values a host page sent (UrlWriter): read as the current link with them in it, so
        they are checked exactly like a link's, with the same notices."""
        if not self.writer.active:
            return  # before the page has read its own URL; the host waits for ready
        merged = dict(parse_qsl(self.query(), keep_blank_values=True)) | values
        self.apply_query(urlencode(merged, quote_via=quote, safe=","))

    def query(self, view: str | None = None, embed: bool | None = None) -> str:
        """The canonical query of the state, for this page's options or the ones given."""
        return to_query(
            self.state,
            self.options.view if view is None else view,
            self.options.embed if embed is None else embed,
        )

    def _show_notices(self, notices: list[Notice]) -> None:
        self._notices.object = notices_html(notices) if notices else ""
        self._notices.visible = self._dismiss.visible = bool(notices)

    def _hide_notices(self, event=None) -> None:
        self._notices.visible = self._dismiss.visible = False

    def _state_changed(self, *events) -> None:
        if self.writer.active:
            self.writer.query = self.query()

    def __panel__(self):
        return pn.Row(self._notices, self._dismiss, sizing_mode="stretch_width")

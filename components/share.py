"""Keeping the URL in step with the state, and the Share / Embed panel."""

from __future__ import annotations

import html

import panel as pn
import param
from panel.custom import JSComponent

from .page_options import PageOptions
from .state import ExplorerState
from .urlstate import to_query

EMBED_HEIGHTS = {"": 900, "heatmap": 560, "waves": 760, "frequency": 600, "compare": 820}
DEFAULT_EMBED_HEIGHT = 640


class UrlWriter(JSComponent):
    """Writes the query string with history.replaceState: no reload, no new history entries.

    Panel's own Location uses pushState, so every slider step would add a Back entry.
    Nothing is written until ``active`` is set, after the page has read the URL it was
    opened with (in the Pyodide worker that URL arrives only after the first render).
    """

    query = param.String(default="", doc="The query string to show, without '?'.")
    active = param.Boolean(default=False, doc="Whether the URL may be written yet.")

    _esm = """
    export function render({ model }) {
      const write = () => {
        if (!model.active) return;
        const search = model.query ? '?' + model.query : '';
        if (window.location.search === search) return;
        try {
          const url = window.location.pathname + search + window.location.hash;
          window.history.replaceState(window.history.state, '', url);
        } catch (error) {
          // A sandboxed iframe may forbid it; the page works the same without it.
        }
      };
      model.on('query', write);
      model.on('active', write);
      write();
      const element = document.createElement('span');
      element.hidden = true;
      return element;
    }
    """


def page_url(query: str) -> str:
    """The absolute URL of this page with the given query (relative when unknown)."""
    location = pn.state.location
    if location is None or not location.hostname:
        return f"?{query}"
    port = f":{location.port}" if location.port else ""
    return f"{location.protocol}//{location.hostname}{port}{location.pathname}?{query}"


def iframe_snippet(url: str, view: str, title: str) -> str:
    """A ready <iframe> for course pages: titled, lazy, full width."""
    height = EMBED_HEIGHTS.get(view, DEFAULT_EMBED_HEIGHT)
    return (
        f'<iframe src="{html.escape(url)}" title="{html.escape(title)}" loading="lazy" '
        f'width="100%" height="{height}" style="border:0; max-width:100%"></iframe>'
    )


COPY_JS = """
const text = source.value;
const done = () => { button.label = 'Copied'; setTimeout(() => { button.label = label; }, 1500); };
if (navigator.clipboard && window.isSecureContext) {
  navigator.clipboard.writeText(text).then(done, () => { button.label = 'Select and copy'; });
} else {
  button.label = 'Select and copy';
}
"""


class SharePanel(pn.viewable.Viewer):
    """The current link and an <iframe> snippet for the chosen view, with copy buttons."""

    state = param.ClassSelector(class_=ExplorerState)
    options = param.ClassSelector(class_=PageOptions)
    view_titles = param.Dict(default={}, doc="?view= name → title, for the view picker.")

    def __init__(self, **params):
        super().__init__(**params)
        choices = {"Whole page": ""} | {title: name for name, title in self.view_titles.items()}
        self.embed_view = pn.widgets.Select(
            label="View to embed", options=choices, value=self.options.view, width=260
        )
        self.link = pn.widgets.TextInput(label="Link to this state", sizing_mode="stretch_width")
        self.snippet = pn.widgets.TextAreaInput(
            label="Embed in a course page", rows=3, sizing_mode="stretch_width"
        )
        self.copy_link = pn.widgets.Button(label="Copy link", color="primary", width=140)
        self.copy_snippet = pn.widgets.Button(label="Copy iframe", color="primary", width=140)
        for button, source in ((self.copy_link, self.link), (self.copy_snippet, self.snippet)):
            button.js_on_click(
                args={"source": source, "button": button, "label": button.label}, code=COPY_JS
            )
        self.embed_view.param.watch(self.refresh, "value")
        self.refresh()

    def refresh(self, *events):
        """Recompute the link and snippet (the page calls this when the state changes)."""
        link_query = to_query(self.state, self.options.view, self.options.embed)
        self.link.value = page_url(link_query)
        view = self.embed_view.value
        embed_url = page_url(to_query(self.state, view, True))
        title = "Positional Encoding Explorer" + (
            f": {self.view_titles[view]}" if view in self.view_titles else ""
        )
        self.snippet.value = iframe_snippet(embed_url, view, title)

    def __panel__(self):
        return pn.Column(
            self.link,
            self.copy_link,
            self.embed_view,
            self.snippet,
            self.copy_snippet,
            sizing_mode="stretch_width",
            css_classes=["pe-share"],
        )

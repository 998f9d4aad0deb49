"""The Share / Embed panel: the link to this state and an <iframe> snippet for any view."""

from __future__ import annotations

import html
from urllib.parse import urljoin

import panel as pn
import param

from ..state import ExplorerState
from ..urlstate import to_query
from ..views import VIEWS, view_spec
from .page_options import PageOptions
from .urlsync import page_url

# The whole page's <iframe> height; a single view's is its row of the view table.
PAGE_EMBED_HEIGHT = 900


def iframe_snippet(url: str, view: str, title: str) -> str:
    """A ready <iframe> for course pages: titled, lazy, full width, and fitted to its content
    by the site's static/pe-embed.js (or by the browser, where frame-sizing is supported)."""
    height = view_spec(view).embed_height if view else PAGE_EMBED_HEIGHT
    resizer = urljoin(url, "static/pe-embed.js")
    return (
        f'<iframe data-pe-explorer src="{html.escape(url)}" title="{html.escape(title)}" '
        f'loading="lazy" width="100%" height="{height}" '
        'style="border:0; max-width:100%; frame-sizing:content-height"></iframe>\n'
        f'<script src="{html.escape(resizer)}" defer></script>'
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

    def __init__(self, **params):
        super().__init__(**params)
        self.view_titles = {spec.name: spec.title for spec in VIEWS}
        choices = {"Whole page": ""} | {spec.title: spec.name for spec in VIEWS}
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

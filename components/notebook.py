"""The explorer in a Jupyter notebook: show() draws it with Panel, iframe() frames a hosted site.

Both read their keyword arguments the way the page reads a link: they are written into a query
string and parsed by urlstate.parse_query, so a bad value becomes the nearest valid one or the
default, with the notice the page shows for such a link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import panel as pn

from .fixes.notebook_location import without_notebook_location
from .state import ExplorerState
from .ui.page import TITLE, ExplorerPage
from .ui.share import PAGE_EMBED_HEIGHT, iframe_snippet
from .ui.urlsync import notices_html
from .urlstate import parse_query, state_keys, to_query
from .views import VIEW_NAMES, view_spec

if TYPE_CHECKING:
    from IPython.display import HTML

# Where iframe() points unless told otherwise: the site `./build.sh serve` builds and serves.
DEFAULT_SITE_URL = "http://localhost:8000/"

_extension_loaded = False


def _query_text(value) -> str:
    """A keyword argument as a link carries it: a list comma-separated, as the page writes it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value)
    return str(value)


def query_string(view: str | None = None, **state) -> str:
    """The query string of a link asking for this view and state (unknown names raise).

    Only the names are checked here; the values are left for parse_query to judge, as a link's.
    """
    if view:
        view_spec(view)  # ValueError naming the views
    keys = state_keys()
    unknown = sorted(set(state) - set(keys))
    if unknown:
        raise ValueError(
            f"unknown state key(s) {', '.join(unknown)}; valid keys are {', '.join(keys)}"
        )
    items = [(key, _query_text(value)) for key, value in state.items()]
    if view:
        items.append(("view", view))
    return urlencode(items, quote_via=quote, safe=",")


def show(view: str | None = None, model=None, **state) -> ExplorerPage:
    """The explorer, or the one view named, with the given state, to display in a notebook.

    E.g. ``show(view="compare", d_model=64)``. The keys are ExplorerState's parameters, read
    like URL values; what was adjusted is said above the views. Change the returned page's
    ``.state`` from Python and its views follow. ``model`` opens the model view on a model: a
    config.json, GGUF or safetensors path, a config dict, a preset's name, or the
    ModelPositions that ``read_model`` returned (``show(model="config.json")``).
    """
    global _extension_loaded
    given = None if model is None else _loaded(model)
    if given is not None:
        view = view or "model"
    query = query_string(view, **state)
    if not _extension_loaded:
        pn.extension("plotly", sizing_mode="stretch_width")
        _extension_loaded = True
    with without_notebook_location():
        page = ExplorerPage()
    page.apply_query(query)
    # Never rewrite the notebook's address (history.replaceState): the page has no link here.
    page.url.writer.active = False
    if given is not None:
        page.view("model").show_given(given)
    return page


def _loaded(model):
    """A model given to show(), as the model view holds a chosen file (ModelError if unreadable)."""
    from .model.sources import Loaded, load
    from .model.types import ModelPositions

    if isinstance(model, ModelPositions):
        given = (dict(model.config), dict(model.sources), model.name, "model from Python")
        return Loaded(*given, gguf=model.gguf)
    return load(model)


def site_root(site_url: str) -> str:
    """site_url without query or fragment, ending in "/" unless it names a page like index.html.

    The share snippet finds the site's static/pe-embed.js relative to it.
    """
    scheme, host, path, _, _ = urlsplit(site_url)
    if not path.endswith("/") and "." not in path.rsplit("/", 1)[-1]:
        path += "/"
    return urlunsplit((scheme, host, path, "", ""))


def iframe_html(
    view: str | None = None,
    site_url: str = DEFAULT_SITE_URL,
    height: int | None = None,
    **state,
) -> str:
    """The notices and the share panel's <iframe> of the hosted site at site_url, as HTML."""
    parsed = parse_query(query_string(view, **state), VIEW_NAMES)
    explorer_state = ExplorerState()
    explorer_state.apply(parsed.values)
    url = f"{site_root(site_url)}?{to_query(explorer_state, parsed.view, embed=True)}"
    title = TITLE + (f": {view_spec(parsed.view).title}" if parsed.view else "")
    snippet = iframe_snippet(url, parsed.view, title)
    if height is not None:
        default = view_spec(parsed.view).embed_height if parsed.view else PAGE_EMBED_HEIGHT
        snippet = snippet.replace(f'height="{default}"', f'height="{int(height)}"', 1)
    notices = notices_html(parsed.notices) if parsed.notices else ""
    return notices + snippet


def iframe(
    view: str | None = None,
    site_url: str = DEFAULT_SITE_URL,
    height: int | None = None,
    **state,
) -> HTML:
    """An IPython HTML display of the hosted explorer at site_url with this view and state.

    For notebooks where Panel's extension cannot load (e.g. some hosted viewers): the site runs
    on its own, in the frame. The height defaults to the view's embed height.
    """
    from IPython.display import HTML

    return HTML(iframe_html(view, site_url, height, **state))

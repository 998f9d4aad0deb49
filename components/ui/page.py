"""ExplorerPage: the shell of the explorer: header, toolbar, controls and the cards of its views."""

from __future__ import annotations

import html

import panel as pn
import param

from .. import urlstate
from ..fixes import location
from ..fixes.browser import BrowserFixes
from ..fixes.departed_pages import quiet_departed_pages
from ..fixes.design_theme import apply_theme, use_design
from ..fixes.keep_alive import ping_open_sockets_only
from ..plotkit import theme
from ..state import ExplorerState
from ..views import VIEWS, view_spec
from .announcer import Announcer
from .controls import Controls
from .export import ExportPanel
from .lazy_views import EAGER_VIEWS, LazyViews, PageShown
from .navigation import (
    HEADING_STYLE,
    PHONE_TEXT_STYLE,
    SIDEBAR_PHONE_STYLE,
    THUMB_CONTROLS,
    THUMB_ROOM_STYLE,
    CardNavigator,
    card_heading,
    thumb_bar,
)
from .page_options import PageOptions
from .placeholder import (
    CARD_BASIS_PX,
    CARD_FRAMES_STYLESHEETS,
    CARD_STYLE,
    PAGE_HEADING,
    SIDEBAR_BASIS_PX,
    SIDEBAR_MIN_PX,
    VIEWS_BASIS_PX,
    before_python_frames,
    card_frames_html,
)
from .share import SharePanel
from .tour import QuestionsPanel
from .urlsync import UrlSync, page_url

TITLE = "Positional Encoding Explorer"

# The equations as MathML: browsers render it natively, so no maths library is downloaded.
EQUATIONS = """
<div class="pe-equations" role="group" aria-label="The positional encoding equations">
<math display="block"><mrow>
  <mi>PE</mi><mo>(</mo><mi>pos</mi><mo>,</mo><mn>2</mn><mi>i</mi><mo>)</mo><mo>=</mo>
  <mi>sin</mi><mo>(</mo><mfrac><mi>pos</mi>
  <msup><mn>10000</mn><mrow><mn>2</mn><mi>i</mi><mo>/</mo><msub><mi>d</mi><mtext>model</mtext></msub></mrow></msup>
  </mfrac><mo>)</mo></mrow></math>
<math display="block"><mrow>
  <mi>PE</mi><mo>(</mo><mi>pos</mi><mo>,</mo><mn>2</mn><mi>i</mi><mo>+</mo><mn>1</mn><mo>)</mo><mo>=</mo>
  <mi>cos</mi><mo>(</mo><mfrac><mi>pos</mi>
  <msup><mn>10000</mn><mrow><mn>2</mn><mi>i</mi><mo>/</mo><msub><mi>d</mi><mtext>model</mtext></msub></mrow></msup>
  </mfrac><mo>)</mo></mrow></math>
</div>
"""

INTRODUCTION = f"""
<a class="pe-skip" href="#{VIEWS[0].name}">Skip to the views</a>
<header class="pe-header">
<h1>{TITLE}</h1>
<p>A Transformer sees its input as a set; the sinusoidal positional encoding of
<cite>Attention Is All You Need</cite> (Vaswani et al., 2017) tells it where each token
stands. Position <var>pos</var> becomes a vector of <var>d</var><sub>model</sub> numbers:
pairs of a sine and a cosine whose wavelengths grow geometrically from 2π to
10000·2π (the paper's base of 10000; the <em>Base</em> control changes it). Move the controls:
every view below follows.</p>
{EQUATIONS}
</header>
"""

PAGE_STYLE = f"""
:host {{ width: 100%; }}
.pe-skip {{ position: absolute; left: -10000px; top: auto; width: 1px; height: 1px;
           overflow: hidden; }}
.pe-skip:focus {{ position: static; width: auto; height: auto; display: inline-block;
                 padding: 0.4em 0.8em; margin: 0.3em 0; border-radius: 4px;
                 background: var(--pe-focus, #1d4ed8); color: #ffffff; }}
.pe-header h1 {{ {PAGE_HEADING} }}
.pe-header p {{ max-width: 60em; line-height: 1.5; margin: 0.3em 0; }}
.pe-equations {{ display: flex; flex-wrap: wrap; gap: 0.5em 3em; font-size: 1.15em;
                margin: 0.6em 0; justify-content: flex-start; }}
.pe-equations math {{ margin: 0.2em 0; }}
"""

SIDEBAR_STYLES = {
    "flex": f"0 1 {SIDEBAR_BASIS_PX}px",
    "min-width": f"{SIDEBAR_MIN_PX}px",
    "position": "sticky",
    "top": "0",
    "align-self": "flex-start",
    "max-height": "100vh",
    "overflow-y": "auto",
}

VIEW_CARD = {"flex": f"1 1 {CARD_BASIS_PX}px", "min-width": "0", "max-width": "100%"}
# Embedded, the card is in the page's column, where a flex basis would be its height: as tall
# as its content instead, which the frame fits.
EMBED_CARD = {"flex": "0 0 auto", "min-width": "0", "max-width": "100%"}


class ExplorerPage(pn.viewable.Viewer):
    """The explorer: controls and the linked views of one ExplorerState, kept in the URL."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    options = param.ClassSelector(class_=PageOptions, doc="Which views, and whether embedded.")
    defer_cards = param.Boolean(
        default=False,
        constant=True,
        doc="Start the cards below the first row as one frame of their titles, and build them "
        "once a browser shows the page: the app's start-up builds half as much.",
    )

    def __init__(self, **params):
        params.setdefault("state", ExplorerState())
        params.setdefault("options", PageOptions())
        super().__init__(**params)
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            # Under `panel serve` (./build.sh dev), what a served session needs to be right.
            location.install()
            quiet_departed_pages()
            ping_open_sockets_only()
        use_design(self.state.theme)
        self.controls = Controls(state=self.state)
        self.lazy = LazyViews(self.state, self.controls)
        # A deferring page's first views send their picks once it is shown (PlotView.picks_held):
        # nothing is dragged before, and start-up does not wait for them.
        self.lazy.picks_held = self.defer_cards
        self.lazy.on_ask = self.show_view
        self.url = UrlSync(state=self.state, options=self.options)
        self._browser_fixes = BrowserFixes()
        self._announcer = Announcer()
        self._toolbar_controls()
        self._full_link = pn.pane.HTML("", margin=(4, 10), css_classes=["pe-full-link"])
        self._root = pn.Column(
            sizing_mode="stretch_width", css_classes=["pe-page"], stylesheets=[PHONE_TEXT_STYLE]
        )
        self._shown = PageShown(shown=not self.defer_cards)
        self._shown.param.watch(self._build_deferred_cards, "shown")
        self._shown.param.watch(lambda event: self.lazy.set_narrow(event.new), "narrow")
        self._views_box = pn.FlexBox(
            flex_wrap="wrap", styles={"flex": f"1 1 {VIEWS_BASIS_PX}px", "min-width": "0"}
        )
        # The cards below the first row while deferred: their own box, so that building them
        # leaves the first row's (and its plots) untouched.
        self._later_box = pn.FlexBox(
            flex_wrap="wrap",
            margin=0,
            styles={"flex": "1 1 100%", "min-width": "0"},
            css_classes=["pe-later-cards"],
        )
        self._deferred: list = []
        self.url.read_location()
        self._rebuild()
        self.options.param.watch(self._rebuild, ["view", "embed"])
        self.state.param.watch(
            self._state_changed, [n for n in self.state.param if n != "name"], precedence=1
        )

    def _toolbar_controls(self) -> None:
        """The theme and the toggles of the share, export and questions panels, and the boxes
        the panels open in."""
        self._theme = pn.widgets.RadioButtonGroup.from_param(
            self.state.param.theme, label="Theme", width=140, css_classes=["pe-theme"]
        )
        self._share_toggle = pn.widgets.Toggle(
            label="Share / Embed", width=140, css_classes=["pe-share-toggle"]
        )
        self._export_toggle = pn.widgets.Toggle(
            label="Export / Code", width=140, css_classes=["pe-export-toggle"]
        )
        self._questions_toggle = pn.widgets.Toggle(
            label="Questions", width=140, css_classes=["pe-questions-toggle"]
        )
        # Built when first opened: most visits never open them, and start-up builds less.
        self._share: SharePanel | None = None
        self._export: ExportPanel | None = None
        self._questions: QuestionsPanel | None = None
        self._share_box = pn.Column(visible=False, sizing_mode="stretch_width")
        self._export_box = pn.Column(visible=False, sizing_mode="stretch_width")
        self._questions_box = pn.Column(visible=False, sizing_mode="stretch_width")
        for toggle in (self._share_toggle, self._export_toggle, self._questions_toggle):
            toggle.param.watch(self._toggle_panels, "value")

    def view(self, name: str):
        """The view called name, made on first use."""
        return self.lazy.view(name)

    def show_view(self, name: str) -> None:
        """Show the view called name alone, as its ?view= link would, in place: the page is not
        loaded again (the model view's what-if: a load would lose the visitor's file)."""
        self.options.view = name
        if self.url.writer.active:
            self.url.writer.query = self.url.query()

    def probe(self, name: str):
        """The probe saying whether the card of the view called name is on screen."""
        return self.lazy.probe(name)

    def apply_query(self, query: str) -> None:
        """Show the state a query string asks for (see UrlSync.apply_query)."""
        self.url.apply_query(query)

    def _state_changed(self, *events):
        self._announcer.message = self._announcement()
        if any(event.name == "theme" for event in events):
            self._root.styles = self._root_styles()
            self._restyle()
        self._refresh_panels()
        if self.options.embed:
            self._full_link.object = self._full_link_html()

    def _restyle(self) -> None:
        """Give every component the theme's stylesheets. Served, in a tick of its own: sent with
        the same change's other updates, the new stylesheets' models were sometimes unknown to
        the page ("reference … isn't known"); in the Pyodide worker, at once."""
        pn.state.execute(lambda: apply_theme(self._root, self.state.theme), schedule=True)

    def _announcement(self) -> str:
        """What the page's first view shows now, for the live region."""
        spec = view_spec(self.options.view) if self.options.view else VIEWS[0]
        return spec.describe(self.state)

    def _root_styles(self) -> dict:
        # An embed is as tall as its content, which its frame fits (static/frame-size.js). Its
        # min-height is set, not left out: a style dropped from `styles` stays on the element.
        height = "0" if self.options.embed else "100vh"
        return theme.page_styles(self.state.theme) | {"min-height": height}

    def _toggle_panels(self, event=None):
        if self._share_toggle.value and self._share is None:
            self._share = SharePanel(state=self.state, options=self.options)
            self._share_box.objects = [self._share]
        if self._export_toggle.value and self._export is None:
            self._export = ExportPanel(state=self.state)
            self._export_box.objects = [self._export]
        if self._questions_toggle.value and self._questions is None:
            self._questions = QuestionsPanel(state=self.state)
            self._questions_box.objects = [self._questions]
        self._share_box.visible = self._share_toggle.value
        self._export_box.visible = self._export_toggle.value
        self._questions_box.visible = self._questions_toggle.value
        self._refresh_panels()

    def _refresh_panels(self) -> None:
        """Bring the open share and export panels up to date with the state."""
        if self._share_box.visible:
            self._share.refresh()
        if self._export_box.visible:
            self._export.refresh()

    def _full_link_html(self) -> str:
        url = page_url(self.url.query(view="", embed=False))
        return (
            f'<a href="{html.escape(url)}" target="_blank" rel="noopener">'
            "Open in the Positional Encoding Explorer ↗</a>"
        )

    def view_card(self, spec, embed: bool) -> pn.Column:
        """A view with its title and explanation (just the view when embedded)."""
        parts = [self.lazy.slot(spec), self.lazy.probe(spec.name)]
        if not embed:
            parts[:0] = self.controls.widgets(spec.card_controls)
            intro = pn.pane.HTML(
                f"{card_heading(spec.name, spec.title)}<p>{spec.explanation}</p>",
                sizing_mode="stretch_width",
                stylesheets=[CARD_STYLE, HEADING_STYLE],
                margin=(0, 8),
            )
            parts.insert(0, intro)
        styles = EMBED_CARD if embed else VIEW_CARD
        return pn.Column(*parts, styles=styles, css_classes=[f"pe-view-{spec.name}"])

    def _rebuild(self, *events):
        """Lay the page out for the current view and embed options."""
        specs = [view_spec(self.options.view)] if self.options.view else list(VIEWS)
        self.lazy.select(specs, self.options.embed)
        control_names = sorted(
            {c for spec in specs for c in spec.controls} - self.lazy.carded.keys()
        )
        # The full page's sidebar holds pos and k in the bar a phone keeps at the bottom.
        bar = {} if self.options.embed else {"together": THUMB_CONTROLS, "box": thumb_bar}
        widgets = self.controls.widgets(control_names, **bar)
        cards = self._cards(specs)
        if self.options.embed:
            objects = self._embedded_page(widgets, cards)
        else:
            objects = self._full_page(specs, widgets, cards)
        self._root.styles = self._root_styles()
        self._root.objects = [
            *objects,
            self.url.writer,
            self._browser_fixes,
            self._announcer,
            self.controls.player.clock,
            self._shown,
        ]
        self.lazy.follow_card_controls()
        apply_theme(self._root, self.state.theme)

    def _cards(self, specs) -> list:
        """The cards of specs: each drawn, or, until the page is shown (defer_cards), those
        below the first row as the frames of their titles."""
        eager, self._deferred = specs, []
        if not (self._shown.shown or self.options.embed):
            eager, self._deferred = specs[:EAGER_VIEWS], specs[EAGER_VIEWS:]
        cards = [self.view_card(spec, self.options.embed) for spec in eager]
        if self._deferred:
            self._later_box.objects = [self._card_frames(self._deferred)]
            cards.append(self._later_box)
        return cards

    def _embedded_page(self, widgets: list, cards: list) -> list:
        """An embed: the link's notices, the controls in a wrapping row, the cards and a link to
        the full page."""
        self._full_link.object = self._full_link_html()
        controls = pn.FlexBox(
            *[pn.Column(w, styles={"flex": "1 1 240px", "min-width": "0"}) for w in widgets],
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            css_classes=["pe-controls"],
        )
        return [self.url, controls, *cards, self._full_link]

    def _full_page(self, specs, widgets: list, cards: list) -> list:
        """The full page: header, toolbar and its panels, the link's notices, and the sidebar of
        the cards' names and controls beside the cards."""
        header = pn.pane.HTML(
            INTRODUCTION,
            sizing_mode="stretch_width",
            stylesheets=[PAGE_STYLE],
            margin=(0, 10),
        )
        toolbar = pn.FlexBox(
            self._theme,
            self._share_toggle,
            self._export_toggle,
            self._questions_toggle,
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            css_classes=["pe-toolbar"],
        )
        sidebar = self._sidebar(specs, widgets)
        self._views_box.objects = cards
        body = pn.FlexBox(
            sidebar,
            self._views_box,
            flex_wrap="wrap",
            align_items="flex-start",
            stylesheets=[THUMB_ROOM_STYLE],
        )
        panels = [self._share_box, self._export_box, self._questions_box]
        return [header, toolbar, *panels, self.url, body]

    def _sidebar(self, specs, widgets: list) -> pn.Column:
        """The names of the cards (the table of contents) above the controls they share."""
        return pn.Column(
            CardNavigator(
                views=[{"name": spec.name, "short": spec.short} for spec in specs],
                css_classes=["pe-navigator"],
            ),
            *widgets,
            # Sticky, so the controls stay at hand next to whichever view is being read.
            styles=SIDEBAR_STYLES,
            stylesheets=[SIDEBAR_PHONE_STYLE],
            css_classes=["pe-controls"],
        )

    def _card_frames(self, specs) -> pn.pane.HTML:
        """The cards of specs as they look before their view is drawn (title, explanation,
        placeholder), in one pane, until the page is shown (defer_cards)."""
        return pn.pane.HTML(
            card_frames_html(specs),
            sizing_mode="stretch_width",
            stylesheets=CARD_FRAMES_STYLESHEETS,
            styles={"flex": "1 1 100%", "min-width": "0"},
            margin=0,
            css_classes=["pe-deferred-cards"],
        )

    def _build_deferred_cards(self, event=None) -> None:
        """The page is on screen: the cards below the first row take the place of their frames.
        Then the page may change its height again (PageShown held it), deferred cards or not."""
        if self._deferred:
            specs, self._deferred = self._deferred, []
            cards = [self.view_card(spec, self.options.embed) for spec in specs]
            self._later_box.objects = cards
            self.lazy.follow_card_controls()
            # Their controls were made with the page, maybe before a link's theme was read.
            self._restyle()
        self._shown.built = True
        self.lazy.release_picks()

    def __panel__(self):
        return self._root


def serve_page() -> ExplorerPage:
    """The explorer as app.py serves it and the site's worker builds it for each frame."""
    pn.extension("plotly", sizing_mode="stretch_width")
    # The cards below the first row are built once the page is shown: start-up builds half as much.
    return ExplorerPage(defer_cards=True).servable(title=TITLE)


def before_python_facts() -> dict:
    """What static/startup.js needs to draw the page a link asks for before Python runs: the
    query values the prerendered page shows, the themes, and the frames of the page and of each
    view (components/ui/placeholder.py)."""
    defaults = urlstate.to_query_values(ExplorerState()) | {"view": "", "embed": "0"}
    return {
        "title": TITLE,
        "defaults": defaults,
        "true_words": sorted(urlstate.TRUE_WORDS),
        "themes": sorted(theme.THEMES),
    } | before_python_frames(TITLE)

"""ExplorerPage: the whole explorer (header, explanation, controls and linked views)."""

from __future__ import annotations

import html

import panel as pn
import param

from .controls import Controls
from .export import ExportPanel
from .page_options import PageOptions
from .registry import VIEW_NAMES, VIEWS, view_spec
from .serving import prepare_session
from .share import SharePanel, UrlWriter, page_url
from .state import ExplorerState
from .urlstate import Notice, parse_query, to_query
from .viewport import RedrawGuard, ViewportProbe

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

PAGE_STYLE = """
:host { width: 100%; }
.pe-header h1 { margin: 0.2em 0 0.3em; font-size: 1.7em; }
.pe-header p { max-width: 60em; line-height: 1.5; margin: 0.3em 0; }
.pe-equations { display: flex; flex-wrap: wrap; gap: 0.5em 3em; font-size: 1.15em;
                margin: 0.6em 0; justify-content: flex-start; }
.pe-equations math { margin: 0.2em 0; }
"""

CARD_STYLE = """
h2 { font-size: 1.15em; margin: 0.8em 0 0.2em; }
p { margin: 0 0 0.3em; line-height: 1.45; max-width: 48em; }
"""

SIDEBAR_STYLES = {
    "flex": "0 1 300px",
    "min-width": "260px",
    "position": "sticky",
    "top": "0",
    "align-self": "flex-start",
    "max-height": "100vh",
    "overflow-y": "auto",
}

VIEW_CARD = {"flex": "1 1 520px", "min-width": "0", "max-width": "100%"}

# Views built with the page: the first row, which a wide first screen shows. The others are
# built when they first come on screen, which keeps start-up (and the prerendered page) to two
# plots instead of eight.
EAGER_VIEWS = 2

PLACEHOLDER_STYLE = """
:host { width: 100%; }
.pe-placeholder { display: flex; align-items: center; justify-content: center;
                  height: 100%; color: #6b7280; border: 1px dashed #d1d5db; border-radius: 6px; }
"""

NOTICE_STYLE = """
:host { width: 100%; }
.pe-notices { border: 1px solid #b45309; background: #fffbeb; color: #78350f;
              padding: 0.4em 0.8em; border-radius: 6px; }
.pe-notices ul { margin: 0.2em 0 0; padding-left: 1.2em; }
"""

# Panel's design variables cascade into every widget's shadow root.
THEME_STYLES = {
    "light": {
        "background-color": "#ffffff",
        "color": "#1f2328",
        "--panel-background-color": "#ffffff",
        "--panel-on-background-color": "#1f2328",
        "--panel-surface-color": "#f6f8fa",
        "--panel-on-surface-color": "#1f2328",
        "--pe-code-bg": "#f6f8fa",
        "--pe-grid": "#e5e7eb",
    },
    "dark": {
        "background-color": "#111827",
        "color": "#e5e7eb",
        "--panel-background-color": "#111827",
        "--panel-on-background-color": "#e5e7eb",
        "--panel-surface-color": "#1f2937",
        "--panel-on-surface-color": "#e5e7eb",
        "--pe-code-bg": "#1f2937",
        "--pe-grid": "#374151",
        "color-scheme": "dark",
    },
}


def notices_html(notices: list[Notice]) -> str:
    """The URL notices as escaped text: nothing from the URL is ever rendered as HTML."""
    items = "".join(f"<li>{html.escape(str(notice))}</li>" for notice in notices)
    return (
        '<div class="pe-notices" role="status"><strong>Some link parameters were adjusted:'
        f"</strong><ul>{items}</ul></div>"
    )


class ExplorerPage(pn.viewable.Viewer):
    """The explorer: controls and the linked views of one ExplorerState, kept in the URL."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    options = param.ClassSelector(class_=PageOptions, doc="Which views, and whether embedded.")

    def __init__(self, **params):
        params.setdefault("state", ExplorerState())
        params.setdefault("options", PageOptions())
        super().__init__(**params)
        prepare_session()
        self.controls = Controls(state=self.state)
        self._views: dict = {}
        self._probes: dict[str, ViewportProbe] = {}
        self._slots: dict[str, pn.Column] = {}
        self._selected: set[str] = set()
        self._carded: dict[str, str] = {}
        self._url_writer = UrlWriter()
        self._redraw_guard = RedrawGuard()
        self._notices = pn.pane.HTML(
            "", visible=False, sizing_mode="stretch_width", stylesheets=[NOTICE_STYLE]
        )
        self._dismiss = pn.widgets.Button(label="Dismiss", color="light", visible=False, width=90)
        self._dismiss.on_click(self._hide_notices)
        self._theme = pn.widgets.RadioButtonGroup.from_param(
            self.state.param.theme, label="Theme", width=140, css_classes=["pe-theme"]
        )
        self._share_toggle = pn.widgets.Toggle(
            label="Share / Embed", width=140, css_classes=["pe-share-toggle"]
        )
        self._export_toggle = pn.widgets.Toggle(
            label="Export / Code", width=140, css_classes=["pe-export-toggle"]
        )
        # Built when first opened: most visits never open them, and start-up builds less.
        self._share: SharePanel | None = None
        self._export: ExportPanel | None = None
        self._share_box = pn.Column(visible=False, sizing_mode="stretch_width")
        self._export_box = pn.Column(visible=False, sizing_mode="stretch_width")
        self._share_toggle.param.watch(self._toggle_panels, "value")
        self._export_toggle.param.watch(self._toggle_panels, "value")
        self._full_link = pn.pane.HTML("", margin=(4, 10), css_classes=["pe-full-link"])
        self._root = pn.Column(sizing_mode="stretch_width", css_classes=["pe-page"])
        self._read_location()
        self._rebuild()
        self.options.param.watch(self._rebuild, ["view", "embed"])
        self.state.param.watch(self._state_changed, [n for n in self.state.param if n != "name"])

    # --- the URL -------------------------------------------------------------------------

    def _read_location(self):
        """Apply the URL now (served app) or when the browser reports it (Pyodide worker)."""
        location = pn.state.location
        if location is None:
            return
        location.param.watch(self._location_changed, ["href", "search"])
        if location.href:
            self.apply_query(location.search)

    def _location_changed(self, *events):
        location = pn.state.location
        if not self._url_writer.active or location.search.lstrip("?") != self._url_writer.query:
            self.apply_query(location.search)

    def apply_query(self, query: str):
        """Show the state a query string asks for, in one update, and say what was adjusted."""
        parsed = parse_query(query or "", VIEW_NAMES)
        # Layout first: views the link leaves off the page are paused before the state moves.
        self.options.param.update(view=parsed.view, embed=parsed.embed)
        self.state.apply(parsed.values)
        self._show_notices(parsed.notices)
        self._url_writer.query = to_query(self.state, self.options.view, self.options.embed)
        self._url_writer.active = True

    def _show_notices(self, notices):
        self._notices.object = notices_html(notices) if notices else ""
        self._notices.visible = self._dismiss.visible = bool(notices)

    def _hide_notices(self, event=None):
        self._notices.visible = self._dismiss.visible = False

    def _state_changed(self, *events):
        query = to_query(self.state, self.options.view, self.options.embed)
        if self._url_writer.active:
            self._url_writer.query = query
        if any(event.name == "theme" for event in events):
            self._root.styles = THEME_STYLES[self.state.theme] | {"min-height": "100vh"}
        self._refresh_panels()
        if self.options.embed:
            self._full_link.object = self._full_link_html()

    def _toggle_panels(self, event=None):
        if self._share_toggle.value and self._share is None:
            self._share = SharePanel(
                state=self.state,
                options=self.options,
                view_titles={spec.name: spec.title for spec in VIEWS},
            )
            self._share_box.objects = [self._share]
        if self._export_toggle.value and self._export is None:
            self._export = ExportPanel(state=self.state)
            self._export_box.objects = [self._export]
        self._share_box.visible = self._share_toggle.value
        self._export_box.visible = self._export_toggle.value
        self._refresh_panels()

    def _refresh_panels(self) -> None:
        """Bring the open share and export panels up to date with the state."""
        if self._share_box.visible:
            self._share.refresh()
        if self._export_box.visible:
            self._export.refresh()

    def _full_link_html(self) -> str:
        url = page_url(to_query(self.state))
        return (
            f'<a href="{html.escape(url)}" target="_blank" rel="noopener">'
            "Open in the Positional Encoding Explorer ↗</a>"
        )

    # --- the layout ----------------------------------------------------------------------

    def view(self, name: str):
        """The view called name, made on first use."""
        if name not in self._views:
            self._views[name] = view_spec(name).make(self.state)
            if name in self._slots:
                self._slots[name].objects = [self._views[name]]
            self._show_view(name)
        return self._views[name]

    def probe(self, name: str) -> ViewportProbe:
        """The probe saying whether the card of the view called name is on screen.

        It starts on screen for a view built with the page (the browser then says if it is
        not), and off screen for one not built yet, which the browser's first report builds.
        """
        if name not in self._probes:
            probe = self._probes[name] = ViewportProbe(on_screen=name in self._views)
            probe.param.watch(lambda event: self._came_into_view(name), "on_screen")
        return self._probes[name]

    def _came_into_view(self, name: str) -> None:
        if self._probes[name].on_screen and name in self._selected:
            self.view(name)
        self._show_view(name)
        self._follow_card_controls()

    def _follow_card_controls(self) -> None:
        """The pair picker follows the state while it is on screen: always in the sidebar, and
        while its card is on screen when it sits in a card."""
        card = self._carded.get("pairs")
        self.controls.follow_pairs(card is None or self.probe(card).on_screen)

    def _show_view(self, name: str) -> None:
        """A view redraws while it is on the page and on screen; otherwise it waits."""
        if name in self._views:
            on_screen = self.probe(name).on_screen
            self._views[name].set_shown(name in self._selected and on_screen)

    def view_slot(self, spec) -> pn.Column:
        """Where the view goes in its card: the view once built, a placeholder of about its
        height until then."""
        if spec.name in self._views:
            content = self._views[spec.name]
        else:
            content = pn.pane.HTML(
                f'<div class="pe-placeholder">{spec.title}: drawn when it comes into view</div>',
                height=spec.height,
                margin=0,
                sizing_mode="stretch_width",
                stylesheets=[PLACEHOLDER_STYLE],
                css_classes=["pe-placeholder-pane"],
            )
        slot = pn.Column(content, sizing_mode="stretch_width", margin=0, css_classes=["pe-slot"])
        self._slots[spec.name] = slot
        return slot

    def view_card(self, spec, embed: bool) -> pn.Column:
        """A view with its title and explanation (just the view when embedded)."""
        parts = [self.view_slot(spec), self.probe(spec.name)]
        if not embed:
            parts[:0] = self.controls.widgets(spec.card_controls)
            intro = pn.pane.HTML(
                f"<h2>{spec.title}</h2><p>{spec.explanation}</p>",
                sizing_mode="stretch_width",
                stylesheets=[CARD_STYLE],
                margin=(0, 8),
            )
            parts.insert(0, intro)
        return pn.Column(*parts, styles=VIEW_CARD, css_classes=[f"pe-view-{spec.name}"])

    def _rebuild(self, *events):
        """Lay the page out for the current view and embed options."""
        specs = [view_spec(self.options.view)] if self.options.view else list(VIEWS)
        self._selected = {spec.name for spec in specs}
        self._slots = {}
        for spec in specs[:EAGER_VIEWS]:
            self.view(spec.name)
        for name in self._views:
            self._show_view(name)
        # Embedded, every control sits above the view; on the page, a card holds its own.
        self._carded = (
            {}
            if self.options.embed
            else {name: spec.name for spec in specs for name in spec.card_controls}
        )
        control_names = sorted({c for spec in specs for c in spec.controls} - self._carded.keys())
        widgets = self.controls.widgets(control_names)
        toolbar = pn.FlexBox(
            self._theme,
            self._share_toggle,
            self._export_toggle,
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            css_classes=["pe-toolbar"],
        )
        notices = pn.Row(self._notices, self._dismiss, sizing_mode="stretch_width")
        cards = [self.view_card(spec, self.options.embed) for spec in specs]
        if self.options.embed:
            self._full_link.object = self._full_link_html()
            controls = pn.FlexBox(
                *[pn.Column(w, styles={"flex": "1 1 240px", "min-width": "0"}) for w in widgets],
                flex_wrap="wrap",
                sizing_mode="stretch_width",
                css_classes=["pe-controls"],
            )
            objects = [notices, controls, *cards, self._full_link]
        else:
            header = pn.pane.HTML(
                INTRODUCTION,
                sizing_mode="stretch_width",
                stylesheets=[PAGE_STYLE],
                margin=(0, 10),
            )
            sidebar = pn.Column(
                pn.pane.HTML("<h2>Controls</h2>", margin=(0, 10)),
                *widgets,
                # Sticky, so the controls stay at hand next to whichever view is being read.
                styles=SIDEBAR_STYLES,
                css_classes=["pe-controls"],
            )
            views = pn.FlexBox(
                *cards, flex_wrap="wrap", styles={"flex": "1 1 560px", "min-width": "0"}
            )
            body = pn.FlexBox(sidebar, views, flex_wrap="wrap", align_items="flex-start")
            objects = [header, toolbar, self._share_box, self._export_box, notices, body]
        self._root.styles = THEME_STYLES[self.state.theme] | {"min-height": "100vh"}
        self._root.objects = [*objects, self._url_writer, self._redraw_guard]
        self._follow_card_controls()

    def __panel__(self):
        return self._root

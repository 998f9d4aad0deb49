"""The views of a page, drawn lazily: built when first on screen, paused while off screen."""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param
from panel.custom import JSComponent

from ..plotkit.frame import PlotView
from ..plotkit.narrow import NARROW_PX
from ..state import ExplorerState
from ..views import ViewSpec, view_spec
from .controls import Controls
from .placeholder import PLACEHOLDER_STYLE, placeholder_html

# How far outside the window a view still counts as on screen. Zero: a view just below the fold
# is not redrawn on every step, and catches up as it scrolls in (one round trip).
NEAR_PX = 0
ROOT_MARGIN = f"{NEAR_PX}px 0px {NEAR_PX}px 0px"


class ViewportProbe(JSComponent):
    """Reports whether the layout it sits in (a view's card) is on screen or near it.

    Put it last in the card. Views that are off screen stop redrawing on every slider step
    and catch up when they come back: with eight views on a page, a step redraws the two or
    three that can be seen instead of all of them. Views below the first row are not even
    built until their probe first reports them on screen (LazyViews).
    """

    on_screen = param.Boolean(default=True, doc="Whether the card is on screen or near it.")
    root_margin = param.String(
        default=ROOT_MARGIN, constant=True, doc="How far off screen still counts as on it."
    )

    _esm = Path(__file__).parents[1] / "js" / "viewport_probe.js"


class PageShown(JSComponent):
    """Says once that the page is on screen in a browser, so the page can build then what a
    first screen does not show (ExplorerPage.defer_cards); and whether the page is narrow, as
    it is and whenever that changes."""

    shown = param.Boolean(default=False, doc="Whether a browser has shown the page.")
    built = param.Boolean(default=False, doc="Whether the page has built what it deferred.")
    narrow = param.Boolean(
        default=False, doc="Whether the page is narrow (a phone, a narrow frame): its views stack."
    )
    narrow_px = param.Integer(
        default=NARROW_PX, constant=True, doc="The widest page that counts as narrow (px)."
    )

    _esm = Path(__file__).parents[1] / "js" / "page_shown.js"


# Views built with the page: the first row, which a wide first screen shows. The others are
# built when they first come on screen, which keeps start-up (and the prerendered page) to two
# plots instead of eight.
EAGER_VIEWS = 2


class LazyViews:
    """The page's views: each built when it first comes on screen, and redrawn only while it is
    on the page and on screen (off screen it waits, and catches up when it is back)."""

    def __init__(self, state: ExplorerState, controls: Controls):
        self.state = state
        self.controls = controls
        self.views: dict[str, PlotView] = {}
        self.probes: dict[str, ViewportProbe] = {}
        self.slots: dict[str, pn.Column] = {}
        self.selected: set[str] = set()
        self.narrow = False
        # Controls shown in a view's card instead of the sidebar: control name → view name.
        self.carded: dict[str, str] = {}
        # Until the page is shown, views are made without their picks (release_picks).
        self.picks_held = False
        # What the page does when a view asks for another (PlotView.asks_for): its ?view= name.
        self.on_ask = None

    def select(self, specs: list[ViewSpec], embed: bool) -> None:
        """Put these views on the page: the first row drawn now, the others when on screen."""
        self.selected = {spec.name for spec in specs}
        self.slots = {}
        for spec in specs[:EAGER_VIEWS]:
            self.view(spec.name)
        for name in self.views:
            self._show_view(name)
        # Embedded, every control sits above the view; on the page, a card holds its own.
        self.carded = (
            {} if embed else {name: spec.name for spec in specs for name in spec.card_controls}
        )

    def view(self, name: str) -> PlotView:
        """The view called name, made on first use."""
        if name not in self.views:
            self.views[name] = view_spec(name).make(self.state, picks_held=self.picks_held)
            self.views[name].narrow = self.narrow
            self.views[name].param.watch(self._asked, "asks_for")
            if name in self.slots:
                self.slots[name].objects = [self.views[name]]
            self._show_view(name)
        return self.views[name]

    def _asked(self, event) -> None:
        if event.new and self.on_ask is not None:
            self.on_ask(event.new)

    def release_picks(self) -> None:
        """The page is shown: every view sends its picks (PlotView.picks_held), from now on."""
        self.picks_held = False
        for view in self.views.values():
            view.picks_held = False

    def set_narrow(self, narrow: bool) -> None:
        """Every view drawn for a narrow page, or a wide one (PlotView.narrow)."""
        self.narrow = narrow
        for view in self.views.values():
            view.narrow = narrow

    def probe(self, name: str) -> ViewportProbe:
        """The probe saying whether the card of the view called name is on screen.

        It starts on screen for a view built with the page (the browser then says if it is
        not), and off screen for one not built yet, which the browser's first report builds.
        """
        if name not in self.probes:
            probe = self.probes[name] = ViewportProbe(on_screen=name in self.views)
            probe.param.watch(lambda event: self._came_into_view(name), "on_screen")
        return self.probes[name]

    def slot(self, spec: ViewSpec) -> pn.Column:
        """Where the view goes in its card: the view once built, a placeholder of about its
        height until then."""
        if spec.name in self.views:
            content = self.views[spec.name]
        else:
            content = pn.pane.HTML(
                placeholder_html(spec),
                height=spec.height,
                margin=0,
                sizing_mode="stretch_width",
                stylesheets=[PLACEHOLDER_STYLE],
                css_classes=["pe-placeholder-pane"],
            )
        slot = pn.Column(content, sizing_mode="stretch_width", margin=0, css_classes=["pe-slot"])
        self.slots[spec.name] = slot
        return slot

    def follow_card_controls(self) -> None:
        """The pair picker follows the state while it is on screen: always in the sidebar, and
        while its card is on screen when it sits in a card."""
        card = self.carded.get("pairs")
        self.controls.follow_pairs(card is None or self.probe(card).on_screen)

    def _came_into_view(self, name: str) -> None:
        if self.probes[name].on_screen and name in self.selected:
            self.view(name)
        self._show_view(name)
        self.follow_card_controls()

    def _show_view(self, name: str) -> None:
        """A view redraws while it is on the page and on screen; otherwise it waits."""
        if name in self.views:
            on_screen = self.probe(name).on_screen
            self.views[name].set_shown(name in self.selected and on_screen)

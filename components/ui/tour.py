"""The Questions panel: the guided question cards, one by one as a tour or all as a list."""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param
from panel.custom import JSComponent

from ..state import ExplorerState
from .questions import QUESTION_NAMES, QUESTIONS, Question, card_html, question

CARD_STYLE = """
:host { width: 100%; }
section.pe-question { max-width: 48em; line-height: 1.45; }
h3.pe-question-title { font-size: 1.05em; margin: 0.4em 0 0.2em; }
p.pe-question-answer { margin: 0.2em 0 0.4em; }
p.pe-tour-step { margin: 0.4em 0 0; font-weight: 600; }
"""
# While touring, the card floats at the bottom of the window: the page scrolls to the view each
# card is about, and Next stays at hand.
TOUR_STYLES = {
    "position": "fixed",
    "bottom": "12px",
    "right": "12px",
    "width": "min(460px, calc(100vw - 24px))",
    "max-height": "60vh",
    "overflow-y": "auto",
    "z-index": "20",
    "padding": "4px 8px",
    "background": "var(--panel-background-color, #ffffff)",
    "border": "1px solid var(--pe-grid, #d1d5db)",
    "border-radius": "8px",
    "box-shadow": "0 6px 20px rgba(0, 0, 0, 0.25)",
}


class TourKeys(JSComponent):
    """The browser's side of the tour: Escape leaves it, a card's view is scrolled to, and a
    card's link, clicked, shows its state here instead of loading the page again."""

    escapes = param.Integer(default=0, doc="Times Escape was pressed while the tour was open.")
    touring = param.Boolean(default=False, doc="Whether the tour is open (Escape listens).")
    focus = param.String(default="", doc="The view to scroll to: its ?view= name.")
    move_focus = param.Boolean(
        default=True,
        doc="Whether the view's heading takes the focus (not in the tour: Next keeps it).",
    )
    focus_requests = param.Integer(default=0, doc="Raised to scroll to focus again.")

    _esm = Path(__file__).parents[1] / "js" / "tour_keys.js"

    def __init__(self, on_link=None, **params):
        super().__init__(**params)
        self._on_link = on_link

    def _handle_msg(self, data) -> None:
        if self._on_link and isinstance(data, dict) and data.get("question") in QUESTION_NAMES:
            self._on_link(question(data["question"]))


class QuestionsPanel(pn.viewable.Viewer):
    """Eight questions learners ask, each a card that sets the page to the state answering it.

    "Show me" and the card's link set the state (every parameter but the visitor's theme and
    text, so the page shows what the card's link opens) and take the reader to the view to look
    at. The tour steps through
    the cards in order: Next, Back, and Escape or Close to leave it.
    """

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")
    index = param.Integer(default=-1, bounds=(-1, len(QUESTIONS) - 1), doc="Tour card; −1: none.")

    def __init__(self, **params):
        super().__init__(**params)
        self.keys = TourKeys(on_link=self.apply)
        self.keys.param.watch(lambda event: self.close_tour(), "escapes")
        self._start = pn.widgets.Button(
            label="Start the tour", color="primary", css_classes=["pe-tour-start"]
        )
        self._start.on_click(lambda event: self.show(0))
        self._back = pn.widgets.Button(label="← Back", css_classes=["pe-tour-back"])
        self._back.on_click(lambda event: self.show(self.index - 1))
        self._next = pn.widgets.Button(label="Next →", css_classes=["pe-tour-next"])
        self._next.on_click(lambda event: self.show(self.index + 1))
        self._close = pn.widgets.Button(label="Close the tour (Esc)", css_classes=["pe-tour-close"])
        self._close.on_click(lambda event: self.close_tour())
        self._card = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[CARD_STYLE])
        self._tour = pn.Column(
            self._card,
            pn.Row(self._back, self._next, self._close),
            visible=False,
            styles=TOUR_STYLES,
            css_classes=["pe-tour"],
        )
        self._list = pn.Column(
            *[self._list_card(q) for q in QUESTIONS],
            sizing_mode="stretch_width",
            css_classes=["pe-question-list"],
        )

    def _list_card(self, q: Question) -> pn.Column:
        button = pn.widgets.Button(label="Show me", css_classes=[f"pe-question-show-{q.name}"])
        button.on_click(lambda event, q=q: self.apply(q))
        card = pn.pane.HTML(card_html(q), sizing_mode="stretch_width", stylesheets=[CARD_STYLE])
        return pn.Column(card, button, sizing_mode="stretch_width")

    def apply(self, q: Question, move_focus: bool = True) -> None:
        """Set the page to the card's state and take the reader to the view that shows its
        answer (its heading takes the focus unless move_focus is false)."""
        self.state.apply(q.page_values())
        self.keys.param.update(
            focus=q.focus, move_focus=move_focus, focus_requests=self.keys.focus_requests + 1
        )

    def show(self, index: int) -> None:
        """Open the tour at card index (kept inside the cards) and show its state."""
        self.index = min(max(index, 0), len(QUESTIONS) - 1)
        q = QUESTIONS[self.index]
        step = f'<p class="pe-tour-step">Question {self.index + 1} of {len(QUESTIONS)}</p>'
        self._card.object = step + card_html(q)
        self._back.disabled = self.index == 0
        self._next.disabled = self.index == len(QUESTIONS) - 1
        self._tour.visible, self._list.visible = True, False
        self.keys.touring = True
        self.apply(q, move_focus=False)

    def close_tour(self) -> None:
        """Leave the tour: back to the list, the page left at the last card's state."""
        self.index = -1
        self._tour.visible, self._list.visible = False, True
        self.keys.touring = False

    def __panel__(self):
        return pn.Column(
            pn.pane.HTML(
                "<h2>Questions learners ask</h2><p>Each card sets the page to the state that "
                "answers it; its link is that state, to share.</p>",
                margin=(0, 10),
            ),
            self._start,
            self._tour,
            self._list,
            self.keys,
            sizing_mode="stretch_width",
            css_classes=["pe-questions"],
        )

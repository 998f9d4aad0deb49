"""The Questions panel: Show me and the tour set the card's state; Escape leaves the tour."""

from pe_explorer.state import ExplorerState
from pe_explorer.ui.questions import QUESTIONS
from pe_explorer.ui.tour import QuestionsPanel


def test_show_me_sets_the_cards_state_keeping_the_visitors_theme_and_text():
    state = ExplorerState(theme="dark", text="a b c", n_positions=2048, pos=2000, method="alibi")
    panel = QuestionsPanel(state=state)
    card = QUESTIONS[-1]
    panel.apply(card)
    assert {key: getattr(state, key) for key in card.page_values()} == card.page_values()
    assert (state.theme, state.text) == ("dark", "a b c")
    assert panel.keys.focus == card.focus and panel.keys.focus_requests == 1
    assert panel.keys.move_focus  # the view's heading takes the focus


def test_a_cards_link_clicked_in_the_page_shows_its_state_and_takes_the_reader_to_its_view():
    state = ExplorerState(theme="dark")
    panel = QuestionsPanel(state=state)
    card = QUESTIONS[2]
    panel.keys._handle_msg({"question": card.name})
    assert {key: getattr(state, key) for key in card.page_values()} == card.page_values()
    assert (panel.keys.focus, panel.keys.move_focus, panel.keys.focus_requests) == (
        card.focus,
        True,
        1,
    )


def test_a_message_naming_no_card_changes_nothing():
    state = ExplorerState()
    panel = QuestionsPanel(state=state)
    for message in ({"question": "nope"}, {"question": None}, "why-10000", None):
        panel.keys._handle_msg(message)
    assert panel.keys.focus_requests == 0 and state.pos == ExplorerState().pos


def test_the_tour_steps_through_the_cards_in_order_and_escape_leaves_it():
    state = ExplorerState()
    panel = QuestionsPanel(state=state)
    panel._start.clicks += 1
    assert panel.index == 0 and panel.keys.touring and panel._back.disabled
    assert f'data-question="{QUESTIONS[0].name}"' in panel._card.object
    assert panel.keys.focus == QUESTIONS[0].focus and not panel.keys.move_focus  # Next keeps it
    assert f"Question 1 of {len(QUESTIONS)}" in panel._card.object
    for expected in range(1, len(QUESTIONS)):
        panel._next.clicks += 1
        assert panel.index == expected
        assert {k: getattr(state, k) for k in QUESTIONS[expected].page_values()} == dict(
            QUESTIONS[expected].page_values()
        )
    assert panel._next.disabled
    panel._back.clicks += 1
    assert panel.index == len(QUESTIONS) - 2
    panel.keys.escapes += 1
    assert panel.index == -1 and not panel.keys.touring
    assert panel._list.visible and not panel._tour.visible

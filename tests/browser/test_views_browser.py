"""The "see why it works" views in Chromium: drive each one's control, read what changed."""

import pytest
from browser_support import (
    look_at,
    next_frame,
    page_idle,
    plots,
    text,
    wait_for_text,
    wait_until,
)
from pe_explorer import encoding

pytestmark = pytest.mark.browser

# How many elements of the page, through open shadow roots, match a CSS selector (and hold
# exactly the given text, when one is given).
COUNT_JS = """([selector, content]) => {
  let count = 0;
  const walk = (root) => root.querySelectorAll('*').forEach((element) => {
    if (element.matches(selector) && (content === null || element.textContent === content)) {
      count += 1;
    }
    if (element.shadowRoot) walk(element.shadowRoot);
  });
  walk(document);
  return count;
}"""


def count(page, selector: str, content: str | None = None) -> int:
    return page.evaluate(COUNT_JS, [selector, content])


def plot_titled(page, start: str) -> dict:
    (plot,) = [p for p in plots(page) if p["title"].startswith(start)]
    return plot


def press(page, selector: str, key: str, times: int = 1) -> None:
    page.locator(selector).first.focus()
    for _ in range(times):
        page.keyboard.press(key)


def type_a_sentence(page, sentence: str, chips: int) -> None:
    """Type a sentence into the text box, press Enter, and wait for its chips in the tokens view."""
    field = page.locator(".pe-control-text input")
    field.fill(sentence)
    field.press("Enter")
    look_at(page, "tokens")
    wait_until(page, lambda: count(page, ".pe-token-chip") == chips, what=f"{chips} chips")


def test_offset_keys_move_the_dotproduct_diagonal_and_its_numbers(open_app):
    page, log = open_app()
    look_at(page, "dotproduct")
    wait_for_text(page, ".pe-gram-offset", lambda t: t == "1")
    press(page, ".pe-control-offset .noUi-handle", "ArrowRight", 2)
    wait_for_text(page, ".pe-gram-offset", lambda t: t == "3")
    dot = encoding.offset_dot(3, 128)
    assert text(page, ".pe-gram-dot") == f"{dot:.9f}"
    assert text(page, ".pe-gram-cosine") == f"{2 * dot / 128:.9f}"
    assert text(page, ".pe-gram-distance") == f"{encoding.offset_distance(3, 128):.9f}"
    assert float(text(page, ".pe-gram-spread")) <= 1e-12
    (line,) = [s for s in plot_titled(page, "PE·PEᵀ")["shapes"] if s["name"] == "offset k"]
    assert line["x0"] - line["y0"] == 3
    page.locator(".pe-control-similarity button", has_text="Cosine similarity").click()
    wait_until(page, lambda: [p for p in plots(page) if "cosine" in p["title"]], what="cosines")
    assert log.relevant_errors() == []
    assert log.dialogs == []


def test_layout_toggle_changes_the_heatmap_but_not_the_dot_products(open_app):
    page, log = open_app(viewport=(1400, 3200))
    # The first plot is drawn before every readout is: wait for this one.
    dot = wait_for_text(page, ".pe-gram-dot", lambda t: t != "")
    page.locator(".pe-control-layout button", has_text="concatenated").click()
    wait_until(
        page,
        lambda: [p for p in plots(page) if p["title"].endswith("(concatenated)")],
        what="the concatenated heatmap",
    )
    assert text(page, ".pe-gram-dot") == dot
    assert text(page, ".pe-readout-dot") == dot
    assert log.relevant_errors() == []
    assert log.dialogs == []


def test_base_slider_steps_on_a_log_scale_and_every_view_follows(open_app):
    # Tall enough for every view to be on screen at once.
    page, log = open_app(viewport=(1400, 3200))
    press(page, ".pe-control-base .noUi-handle", "ArrowLeft")
    longest = encoding.wavelengths(128, 5000.0)[-1]
    wait_for_text(page, ".pe-longest", lambda t: t == f"{longest:.3f}")
    dot = encoding.offset_dot(1, 128, 5000.0)
    wait_for_text(page, ".pe-gram-dot", lambda t: t == f"{dot:.9f}")
    assert text(page, ".pe-readout-dot") == f"{dot:.9f}"
    assert log.relevant_errors() == []
    assert log.dialogs == []


def test_rotation_pair_keys_turn_by_k_omega_and_r_does_not_follow_pos(open_app):
    page, log = open_app()
    look_at(page, "rotation")
    press(page, ".pe-control-rotation-pair .noUi-handle", "ArrowRight", 3)
    omega = encoding.angular_frequencies(128)[3]
    wait_for_text(page, ".pe-rotation-angle", lambda t: t == f"{omega:.6f}")
    assert float(text(page, ".pe-rotation-error")) <= 1e-12
    matrix = text(page, ".pe-rotation-matrix")
    press(page, ".pe-control-pos .noUi-handle", "ArrowRight", 5)
    wait_for_text(page, ".pe-control-pos .bk-slider-value", lambda t: t == "12")
    wait_until(page, lambda: plot_titled(page, "Pair i = 3")["title"].endswith("is PE(13)"))
    assert text(page, ".pe-rotation-matrix") == matrix
    assert text(page, ".pe-rotation-matrix-other") == matrix
    assert float(text(page, ".pe-rotation-error")) <= 1e-12
    assert log.relevant_errors() == []
    assert log.dialogs == []


def test_typing_a_sentence_makes_chips_and_a_click_sets_pos(open_app):
    page, log = open_app()
    type_a_sentence(page, "dog bites man", chips=3)
    page.locator(".pe-token-chip-2 button").click()
    wait_for_text(page, ".pe-tokens-step", lambda t: "“man”" in t and "PE(2)" in t)
    assert text(page, ".pe-control-pos .bk-slider-value") == "2"
    page.locator(".pe-token-mode button", has_text="pos + k").click()
    page.locator(".pe-token-chip-0 button").focus()
    page.keyboard.press("Enter")
    wait_for_text(page, ".pe-control-offset .bk-slider-value", lambda t: t == "-2")
    assert text(page, ".pe-control-pos .bk-slider-value") == "2"
    assert "pe-token-current" in page.locator(".pe-token-row").nth(2).get_attribute("class")
    assert log.relevant_errors() == []
    assert log.dialogs == []


def test_hostile_sentence_is_shown_as_text_and_never_runs(open_app):
    page, log = open_app()
    type_a_sentence(page, "<img src=x onerror=alert(1)> <b>bold</b>", chips=4)
    page.locator(".pe-token-chip-3 button").click()
    wait_for_text(page, ".pe-tokens-step", lambda t: "“<b>bold</b>”" in t)
    assert text(page, ".pe-token-chip-0 button") == "<img"
    assert page.locator(".pe-token-row").nth(0).inner_text().split("\t")[1] == "<img"
    # All the server sent is on the page, and drawn: any element made of the text is there.
    page_idle(page, what="the server after the sentence")
    next_frame(page)
    assert count(page, 'img[src="x"]') == 0
    assert count(page, "b", "bold") == 0
    assert log.dialogs == []
    assert log.relevant_errors() == []


def test_d_model_4_shows_position_1885_coming_back_near_position_0(open_app):
    page, log = open_app()
    page.locator(".pe-preset-4 button").click()
    press(page, ".pe-control-pos .noUi-handle", "ArrowLeft", 7)
    look_at(page, "properties")
    wait_for_text(page, ".pe-prop-nearest", lambda t: t == "PE(1885)")
    distance = float(text(page, ".pe-prop-nearest-distance"))
    assert distance < 0.045
    assert distance == pytest.approx(encoding.offset_distance(1885, 4), abs=1e-6)
    plot = plot_titled(page, "‖PE(q) − PE(0)‖")
    assert "nearest is PE(1885)" in plot["title"]
    assert log.relevant_errors() == []
    assert log.dialogs == []

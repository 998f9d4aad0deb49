"""Finding one's way in the real Pyodide build, offline: the table of contents takes a reader to
each card (scrolled to, its heading focused, its view drawn), a link's #name lands on its card,
a question's link shows its state and its card; on a phone the contents are a menu, the
controls a block that opens and closes, nothing scrolls sideways and text is at least 14 px."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from pe_explorer.ui.navigation import PHONE_MAX_PX
from pe_explorer.ui.questions import QUESTIONS
from pe_explorer.views import VIEWS
from pyodide_support import on_the_shared_site, wait_for

pytestmark = pytest.mark.pyodide

TOC = "nav[aria-label=Views]"
# The element that has the focus, through the shadow roots it sits in: its id and tag.
FOCUS_JS = """() => {
  let element = document.activeElement;
  while (element && element.shadowRoot && element.shadowRoot.activeElement) {
    element = element.shadowRoot.activeElement;
  }
  return element ? [element.id, element.tagName] : null;
}"""
# The focused element (through shadow roots): its class, text and focus ring.
FOCUSED_LOOK_JS = """() => {
  let element = document.activeElement;
  while (element && element.shadowRoot && element.shadowRoot.activeElement) {
    element = element.shadowRoot.activeElement;
  }
  const style = getComputedStyle(element);
  return {class: element.className, text: element.textContent.trim(),
          outline: [style.outlineStyle, style.outlineWidth]};
}"""
# Where the card's heading is (its top in the window), and whether the card drew its view: a
# Plotly chart in the card, and no placeholder left.
CARD_JS = """(name) => {
  const inside = (root, selector) => {
    const found = [];
    const walk = (node) => node.querySelectorAll('*').forEach((element) => {
      if (element.matches(selector)) found.push(element);
      if (element.shadowRoot) walk(element.shadowRoot);
    });
    walk(root);
    return found;
  };
  const card = inside(document, `.pe-view-${name}`)[0];
  const heading = inside(document, '.pe-card-heading').find((h) => h.id === name &&
    !h.closest('.pe-card-frame'));
  return {
    top: heading ? Math.round(heading.getBoundingClientRect().top) : null,
    drawn: Boolean(card) && inside(card.shadowRoot, '.js-plotly-plot').some((p) => p._fullLayout)
      && inside(card.shadowRoot, '.pe-placeholder').length === 0,
  };
}"""
# The smallest font size (px) of the text shown, and the texts below 14 px.
SMALL_TEXT_JS = """() => {
  const small = [];
  let smallest = Infinity;
  for (const element of window.__offline.deep('*')) {
    const text = [...element.childNodes].filter((n) => n.nodeType === 3)
      .map((n) => n.textContent.trim()).join('');
    const box = element.getBoundingClientRect();
    if (!text || box.width < 2 || box.height < 2) continue;
    // Text moved out of sight, as an icon button's (the pair chips' "Remove item").
    if (parseFloat(getComputedStyle(element).textIndent) < -100) continue;
    // The charts' own text, and sub- and superscripts (d_model's 'model', 10000's '2i/d').
    if (element.closest('.js-plotly-plot, svg, sub, sup, math msub, math msup')) continue;
    if (element.checkVisibility && !element.checkVisibility({visibilityProperty: true})) continue;
    const size = parseFloat(getComputedStyle(element).fontSize);
    smallest = Math.min(smallest, size);
    if (size < 14) small.push(`${text.slice(0, 30)}: ${size}px`);
  }
  return {smallest, small};
}"""
HANDLE_JS = """(name) => {
  const slider = window.__offline.deep(`.pe-control-${name}`)[0];
  const handle = slider.shadowRoot.querySelector('.noUi-handle');
  const box = handle.getBoundingClientRect();
  return [box.width, box.height, getComputedStyle(handle).touchAction];
}"""
SCROLL_WIDTH_JS = "document.documentElement.scrollWidth"
QUESTION = next(q for q in QUESTIONS if q.focus not in ("heatmap", "compare"))


def query_of(url: str) -> dict:
    return {key: values[0] for key, values in parse_qs(urlparse(url).query).items()}


def settle_on(site, name: str, timeout_s: float = 60) -> dict:
    """Wait until the card called name is drawn and its heading has stopped moving."""
    wait_for(site, f"() => ({CARD_JS})('{name}').drawn", timeout_s=timeout_s)
    # Time-based by design: the navigator keeps the card's place until its heading has not moved
    # for a second (card_navigator.js SETTLED_TICKS); read where it is after that.
    site.page.wait_for_timeout(1500)
    return {
        **site.page.evaluate(CARD_JS, name),
        "focus": site.page.evaluate(FOCUS_JS),
        "hash": site.page.evaluate("location.hash"),
    }


def on_a_wide_screen(site) -> dict:
    """From the top of the default page: the skip link, the contents, a hash, a question's link;
    then links to a card's hash."""
    record = {}
    page = site.page
    # From the top, the first Tab reaches the skip link, drawn with the focus ring.
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("Tab")
    record["first_tab"] = page.evaluate(FOCUSED_LOOK_JS)
    page.keyboard.press("Enter")
    record["skip"] = settle_on(site, "heatmap")
    toc = page.locator(f"{TOC} a")
    record["toc"] = [(a.get_attribute("href"), a.inner_text()) for a in toc.all()]
    record["toc_visible"] = page.locator(TOC).first.is_visible()
    page.evaluate("window.__samePage = true")
    for name in ("code", "frequency"):
        page.locator(f'{TOC} a[href="#{name}"]').click()
        record[f"toc_{name}"] = settle_on(site, name)
    page.evaluate("location.hash = '#alibi'")
    record["hashchange"] = settle_on(site, "alibi")

    page.locator(".pe-questions-toggle button").first.click()
    link = page.locator(f'[data-question="{QUESTION.name}"] .pe-question-link').first
    link.click()
    record["question"] = settle_on(site, QUESTION.focus)
    record["question_query"] = query_of(page.url)
    record["same_page"] = page.evaluate("window.__samePage === true")

    for name in ("compare", "checker"):  # a first row's card, and a deferred one
        page.goto("about:blank")
        load = site.goto(f"#{name}")
        record[f"load_{name}"] = {"load": load, **settle_on(site, name)}
    return record


def on_a_phone(site) -> dict:
    """The contents as a menu, the controls folded and open; then an embed at 320 and 480 px."""
    record = {}
    page = site.page
    views, controls = page.locator(".pe-views-toggle"), page.locator(".pe-controls-toggle")
    # pos stays in the bar at the bottom of the screen; d_model is folded with the controls.
    pos = page.locator(".pe-control-pos").first
    folded = page.locator(".pe-control-d-model").first
    record["menu_closed"] = (
        views.get_attribute("aria-expanded"),
        page.locator(TOC).first.is_visible(),
    )
    views.click()
    entry = page.locator(f'{TOC} a[href="#rotation"]')
    record["menu_open"] = (
        views.get_attribute("aria-expanded"),
        page.locator(TOC).first.is_visible(),
        entry.bounding_box()["height"],
    )
    entry.click()
    record["menu_entry"] = settle_on(site, "rotation")
    record["menu_after"] = page.locator(TOC).first.is_visible()

    record["pos_in_the_bar"] = pos.is_visible()
    record["controls_closed"] = (controls.get_attribute("aria-expanded"), folded.is_visible())
    controls.click()
    record["controls_open"] = (controls.get_attribute("aria-expanded"), folded.is_visible())
    record["handle"] = page.evaluate(HANDLE_JS, "pos")
    record["text_open"] = page.evaluate(SMALL_TEXT_JS)
    record["scroll_width_open"] = page.evaluate(SCROLL_WIDTH_JS)
    controls.click()
    record["controls_closed_again"] = (
        controls.get_attribute("aria-expanded"),
        folded.is_visible(),
    )
    page.evaluate("window.scrollTo(0, 0)")
    record["text"] = page.evaluate(SMALL_TEXT_JS)
    record["scroll_width"] = page.evaluate(SCROLL_WIDTH_JS)

    site.goto("?view=compare&embed=1")
    wait_for(site, "() => window.__offline.deep('.noUi-handle').length > 0")
    for width in (320, 480):
        page.set_viewport_size({"width": width, "height": 800})
        # Laid out again at the new width (the page as wide as the screen, or failing so).
        wait_for(
            site,
            f"() => window.innerWidth === {width} "
            f"&& document.documentElement.scrollWidth <= {width}",
            timeout_s=30,
        )
        record[f"embed_{width}"] = {
            "scroll_width": page.evaluate(SCROLL_WIDTH_JS),
            "handle": page.evaluate(HANDLE_JS, "pos"),
            "text": page.evaluate(SMALL_TEXT_JS),
        }
    return record


@pytest.fixture(scope="module")
def wide(shared_site) -> dict:
    """The default page, 1280 × 900, in the run's shared browser."""
    return shared_site.run(lambda site: on_the_shared_site(site, on_a_wide_screen))


@pytest.fixture(scope="module")
def phone(shared_phone) -> dict:
    """The default page on a phone (390 × 844, touch), in the run's shared phone."""
    return shared_phone.run(lambda site: on_the_shared_site(site, on_a_phone))


def lands_on(card: dict, name: str, heading_top: tuple[int, int]) -> bool:
    low, high = heading_top
    return (
        card["drawn"]
        and low <= card["top"] <= high
        and card["focus"] == [name, "H2"]
        and card["hash"] == f"#{name}"
    )


WIDE_TOP = (0, 20)  # the heading's scroll margin is 8 px
PHONE_TOP = (60, 90)  # below the phone's bar


def test_the_first_tab_reaches_a_visible_skip_link_to_the_views(wide):
    first = wide["first_tab"]
    assert first["class"] == "pe-skip" and first["text"] == "Skip to the views"
    assert first["outline"] == ["solid", "3px"]
    assert wide["skip"]["focus"] == ["heatmap", "H2"]


def test_the_contents_list_every_card_by_its_short_name(wide):
    assert wide["load"]["interactive"], wide["load"]["error"]
    assert wide["toc"] == [(f"#{spec.name}", spec.short) for spec in VIEWS]
    assert wide["toc_visible"]


@pytest.mark.parametrize("name", ["code", "frequency"])
def test_an_entry_scrolls_to_its_card_focuses_its_heading_and_draws_it(wide, name):
    assert lands_on(wide[f"toc_{name}"], name, WIDE_TOP), wide[f"toc_{name}"]


def test_a_new_hash_takes_the_reader_to_its_card(wide):
    assert lands_on(wide["hashchange"], "alibi", WIDE_TOP), wide["hashchange"]


def test_a_questions_link_shows_its_state_and_its_card_without_loading_the_page(wide):
    assert lands_on(wide["question"], QUESTION.focus, WIDE_TOP), wide["question"]
    assert wide["same_page"]
    wanted = query_of("?" + QUESTION.query())
    assert {key: wide["question_query"].get(key) for key in wanted} == wanted


@pytest.mark.parametrize("name", ["compare", "checker"], ids=["first-row", "deferred"])
def test_a_link_to_a_cards_hash_lands_on_it_drawn_and_focused(wide, name):
    visit = wide[f"load_{name}"]
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert lands_on(visit, name, WIDE_TOP), visit


def test_wide_screen_console_has_no_errors(wide):
    errors = wide["console_errors"]
    assert errors == []


def test_on_a_phone_the_contents_are_a_menu_whose_entries_take_the_reader_to_a_card(phone):
    assert phone["load"]["interactive"], phone["load"]["error"]
    assert phone["menu_closed"] == ("false", False)
    expanded, visible, entry_height = phone["menu_open"]
    assert (expanded, visible) == ("true", True) and entry_height >= 44
    assert lands_on(phone["menu_entry"], "rotation", PHONE_TOP), phone["menu_entry"]
    assert not phone["menu_after"]  # the menu closed behind the reader


def test_on_a_phone_the_controls_open_and_close_while_pos_stays_in_its_bar(phone):
    assert phone["pos_in_the_bar"]
    assert phone["controls_closed"] == ("false", False)
    assert phone["controls_open"] == ("true", True)
    assert phone["controls_closed_again"] == ("false", False)


def test_on_a_phone_slider_handles_are_big_enough_to_touch(phone):
    width, height, touch_action = phone["handle"]
    assert width >= 24 and height >= 24 and touch_action == "none"


@pytest.mark.parametrize("when", ["", "_open"], ids=["controls-closed", "controls-open"])
def test_on_a_phone_nothing_scrolls_sideways_and_text_is_at_least_14_px(phone, when):
    assert phone[f"scroll_width{when}"] <= 390
    assert phone[f"text{when}"]["small"] == [], phone[f"text{when}"]


@pytest.mark.parametrize("width", [320, 480])
def test_an_embed_is_usable_on_a_narrow_phone(phone, width):
    embed = phone[f"embed_{width}"]
    assert embed["scroll_width"] <= width
    assert embed["text"]["small"] == [], embed["text"]
    assert min(embed["handle"][:2]) >= 24 and width <= PHONE_MAX_PX


def test_phone_console_has_no_errors(phone):
    errors = phone["console_errors"]
    assert errors == []

"""The dark theme in the real Pyodide build, offline: by link, by toggle and by the visitor's
system; remembered for the next visit; readable (text against its background, 4.5:1) in every
part of the page, including the components Panel draws in shadow roots; and the controls' names."""

from __future__ import annotations

import re

import pytest
from pe_explorer.plotkit.theme import THEMES
from pyodide_support import (  # noqa: F401 (test_console_has_no_errors: collected here)
    on_the_shared_site,
    on_the_site,
    test_console_has_no_errors,
    visit_offline,
    wait_for,
)

pytestmark = pytest.mark.pyodide

DARK = {"color_scheme": "dark"}

# The colour of a piece of text and of what is behind it: the first element up the tree (through
# shadow roots) with a background that is not transparent, else the page's.
COLOURS_JS = """(selector) => {
  const element = __offline.deep(selector)[0];
  if (!element) return null;
  const up = (node) => node.parentElement || (node.getRootNode() && node.getRootNode().host);
  let back = element;
  let background = 'rgba(0, 0, 0, 0)';
  while (back) {
    const colour = getComputedStyle(back).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(colour) && colour !== 'transparent') {
      background = colour;
      break;
    }
    back = up(back);
  }
  if (!back) background = getComputedStyle(document.documentElement).backgroundColor;
  return {text: getComputedStyle(element).color, background};
}"""
# Text the page shows in its own panes and in Panel's widgets (each in its own shadow root).
TEXTS = {
    "title": ".pe-header h1",
    "intro": ".pe-header p",
    "slider label": ".bk-slider-title",
    "button": ".bk-btn",
    "heading": "h2",
}
THEME_OF_PAGE_JS = "() => document.documentElement.getAttribute('data-pe-theme')"
STORED_JS = "() => window.localStorage.getItem('pe-explorer-theme')"


def luminance(colour: str) -> float:
    """WCAG relative luminance of a CSS rgb()/rgba() colour."""
    red, green, blue = (int(x) / 255 for x in re.findall(r"[\d.]+", colour)[:3])

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def look(site) -> dict:
    """The theme the page says it shows, the link, the stored choice and the colours of TEXTS."""
    site.settle(settle_ms=1500)
    return {
        "theme": site.page.evaluate(THEME_OF_PAGE_JS),
        "search": site.page.evaluate("() => location.search"),
        "stored": site.page.evaluate(STORED_JS),
        "page": site.page.evaluate(
            "() => getComputedStyle(document.documentElement).backgroundColor"
        ),
        "colours": {
            name: site.page.evaluate(COLOURS_JS, selector) for name, selector in TEXTS.items()
        },
    }


def click_theme(site, label: str) -> None:
    site.page.locator(".pe-theme button", has_text=label).first.click()
    assert wait_for(
        site, f"() => document.documentElement.getAttribute('data-pe-theme') === '{label}'"
    )


def on_a_dark_system(site) -> dict:
    """A visitor whose system prefers dark, with no theme in the link: toggle, come back."""
    record = {"system dark": look(site)}
    click_theme(site, "light")
    record["toggled light"] = look(site)
    site.revisit()
    record["next visit"] = look(site)
    return record


def with_a_dark_link(site) -> dict:
    """A light system, and a link that asks for dark: toggle, step pos, read the names."""
    record = {"link dark": look(site)}
    click_theme(site, "light")
    record["link toggled light"] = look(site)
    site.press(".pe-control-pos .noUi-handle", "ArrowRight", 2)
    site.settle(settle_ms=1500)
    record["names"] = site.page.evaluate(
        """() => __offline.deep('.noUi-handle').map((handle) => [
             handle.getAttribute('aria-label'), handle.getAttribute('aria-valuetext')])"""
    )
    record["spin buttons"] = site.page.evaluate(
        "() => __offline.deep('.bk-spin-btn').map((b) => b.getAttribute('aria-label'))"
    )
    return record


@pytest.fixture(scope="module")
def visit(request, shared_site) -> dict:
    """Two visitors: one on a dark system (a browser of its own, as its return visit opens a new
    page of that profile), one on a light system with a dark link (the run's shared browser)."""
    dark = visit_offline(
        request, lambda site_dir: on_the_site(site_dir, on_a_dark_system, context_options=DARK)
    )
    light = shared_site.run(lambda site: on_the_shared_site(site, with_a_dark_link, "?theme=dark"))
    return {
        **dark,
        **light,
        "loads": [dark["load"], light["load"]],
        "console_errors": dark["console_errors"] + light["console_errors"],
    }


def assert_readable(look: dict, theme: str) -> None:
    assert look["page"] == css_rgb(THEMES[theme]["paper"])
    for name, colours in look["colours"].items():
        assert colours is not None, f"no {name} on the page"
        ratio = contrast(colours["text"], colours["background"])
        assert ratio >= 4.5, f"{name} in the {theme} theme: {colours} is {ratio:.2f}:1"


def css_rgb(hex_colour: str) -> str:
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_every_visit_becomes_interactive(visit):
    assert all(load["interactive"] for load in visit["loads"]), visit["loads"]


def test_a_dark_system_gets_the_dark_theme_without_a_theme_in_the_link(visit):
    seen = visit["system dark"]
    assert seen["theme"] == "dark"
    assert "theme=dark" in seen["search"]  # so that Python drew it, and a shared link keeps it
    assert_readable(seen, "dark")


def test_the_toggle_switches_every_part_of_the_page_to_light(visit):
    seen = visit["toggled light"]
    assert seen["theme"] == "light"
    assert "theme" not in seen["search"]
    assert_readable(seen, "light")


def test_the_toggle_is_remembered_for_the_next_visit(visit):
    assert visit["toggled light"]["stored"] == "light"
    seen = visit["next visit"]
    assert seen["theme"] == "light"  # though the system still prefers dark
    assert_readable(seen, "light")


def test_a_dark_link_is_dark_and_readable(visit):
    assert_readable(visit["link dark"], "dark")


def test_a_dark_link_toggled_to_light_is_readable(visit):
    assert_readable(visit["link toggled light"], "light")


def test_every_slider_handle_is_named_and_reads_its_value_in_words(visit):
    names = visit["names"]
    assert names and all(label for label, _ in names), names
    assert ["Position pos", "position pos 9"] in names  # 7, then two steps right
    assert any(label.startswith("Base") and text == "base 10000" for label, text in names), names


def test_spin_buttons_say_what_they_do(visit):
    assert "Increase Seed of q and k" in visit["spin buttons"]
    assert "Decrease Seed of q and k" in visit["spin buttons"]

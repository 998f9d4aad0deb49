"""The themes' colours against their backgrounds: 4.5:1 for text, 3:1 for the marks a chart is
read by (WCAG 2.2, 1.4.3 and 1.4.11), checked with WCAG's formula written out here."""

import base64
import re

import pytest
from pe_explorer.plotkit import theme

MARKS = ("pos", "second", "focus")


def luminance(colour: str) -> float:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ratio(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def hex_of(rgb: str) -> str:
    return "#" + "".join(f"{int(c):02x}" for c in re.findall(r"\d+", rgb))


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_text_reaches_4_5_to_1_on_paper_plot_and_surface(name):
    palette = theme.THEMES[name]
    for background in ("paper", "plot", "surface"):
        assert ratio(palette["text"], palette[background]) >= 4.5, background


@pytest.mark.parametrize("name", list(theme.THEMES))
@pytest.mark.parametrize("colour", theme.PAIR_COLOURS)
def test_every_line_colour_reaches_3_to_1_on_both_backgrounds(name, colour):
    assert ratio(colour, theme.THEMES[name]["plot"]) >= 3


@pytest.mark.parametrize("name", list(theme.THEMES))
@pytest.mark.parametrize("mark", MARKS)
def test_the_marks_of_pos_and_focus_reach_3_to_1(name, mark):
    palette = theme.THEMES[name]
    assert ratio(palette[mark], palette["plot"]) >= 3


@pytest.mark.parametrize("name", list(theme.THEMES))
@pytest.mark.parametrize("mark", ("pos", "second"))
def test_a_row_outline_stands_out_from_every_cell_colour(name, mark):
    colour = theme.THEMES[name][mark]
    svg = base64.b64decode(theme.outline_source(colour).split(",", 1)[1]).decode()
    strokes = re.findall(r'stroke="(#[0-9a-fA-F]{6})"', svg)
    assert colour in strokes and {"#ffffff", "#111111"} <= set(strokes)
    for _, cell in theme.DIVERGING_SCALE:
        assert max(ratio(stroke, hex_of(cell)) for stroke in strokes) >= 3, cell


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_hover_labels_are_in_the_theme_and_readable(name):
    label = theme.base_layout(name, "x")["hoverlabel"]
    assert ratio(label["font"]["color"], label["bgcolor"]) >= 4.5
    assert label["bgcolor"] == theme.THEMES[name]["surface"]


def test_the_contrast_helper_agrees_with_the_formula():
    assert theme.contrast("#000000", "#ffffff") == pytest.approx(21)
    assert theme.contrast("#777777", "#ffffff") == pytest.approx(ratio("#777777", "#ffffff"))


def test_the_page_css_names_each_theme_colour():
    css = theme.document_css()
    for name, palette in theme.THEMES.items():
        assert f'data-pe-theme="{name}"' in css
        assert palette["paper"] in css and palette["text"] in css

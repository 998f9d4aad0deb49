"""The served app in Debian Chromium, driven from the keyboard like a visitor would."""

import pytest
from browser_support import heatmap, text, wait_for_text, wait_until
from pe_explorer import encoding

pytestmark = pytest.mark.browser


def row_marked(plot, name):
    (shape,) = [s for s in plot["shapes"] if s["name"] == name]
    return (shape["y0"] + shape["y1"]) / 2


def test_page_loads_with_title_equations_and_default_state(open_app):
    page, log = open_app()
    assert page.title() == "Positional Encoding Explorer"
    assert page.locator("math").count() == 2
    assert text(page, ".pe-pos-readout") == "pos = 7 · pos + k = 8 · k = 1"
    plot = heatmap(page)
    assert (plot["rows"], plot["columns"]) == (64, 128)
    assert row_marked(plot, "pos") == 7
    assert log.relevant_errors() == []


def test_d_model_slider_and_presets_change_the_heatmap_width(open_app):
    page, log = open_app()
    page.locator(".pe-control-d-model .noUi-handle").focus()
    page.keyboard.press("ArrowLeft")
    wait_until(page, lambda: heatmap(page)["columns"] == 126, what="126 heatmap columns")
    page.locator(".pe-preset-16 button").click()
    wait_until(page, lambda: heatmap(page)["columns"] == 16, what="16 heatmap columns")
    dot = encoding.offset_dot(1, 16)
    wait_for_text(page, ".pe-readout-dot", lambda t: t == f"{dot:.9f}")
    assert log.relevant_errors() == []

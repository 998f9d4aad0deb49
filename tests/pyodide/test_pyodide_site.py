"""The static site running in Pyodide, offline: the page as it opens, then each view driven as a
visitor would (keys, clicks, the layout and presets) on the same page, read through the worker,
with the console clean and no dialog opened. Uses the harness in ../shared/pyodide-offline."""

from __future__ import annotations

import re
import time

import pytest
from browser_support import (
    heatmap,
    look_at,
    page_idle,
    plots,
    tab_to,
    text,
    wait_for_text,
    wait_until,
)
from pe_explorer import encoding
from pyodide_support import test_console_has_no_errors  # noqa: F401 (collected here)
from views_support import (
    CELL_JS,
    STAGE,
    cell_function,
    formula_value,
    plot_titled,
    point_at_cell,
    press_on,
    row_marked,
    title_when_drawn,
)

pytestmark = pytest.mark.pyodide

POS_HANDLE = ".pe-control-pos .noUi-handle"
POS_READOUT = ".pe-pos-readout"
PRESSES = 3
# Text of the first match of a selector, looking through shadow roots (Panel renders a pane's
# content in its shadow root, where textContent does not reach) and skipping <style>/<script>.
DEEP_TEXT_JS = """(selector) => {
  const element = window.__offline.deep(selector)[0];
  if (!element) return null;
  const parts = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { parts.push(node.data); return; }
    if (node.nodeName === 'STYLE' || node.nodeName === 'SCRIPT') return;
    if (node.shadowRoot) walk(node.shadowRoot);
    node.childNodes.forEach(walk);
  };
  walk(element);
  return parts.join(' ').replace(/\\s+/g, ' ').trim();
}"""
# How long a view may take to catch up in the worker (a served test waits 10 s).
WAIT_S = 60
# The cells clicked in each layout, as (row, column) at d_model 16.
CELLS = [(7, 6), (3, 1), (11, 9), (0, 15)]
# Plotly takes a press within 300 ms of the last click for a double click (which resets the
# zoom): two clicks are at least this far apart.
DOUBLE_CLICK_MS = 400
# Where the steps leave the state for the parts that follow (pos 7 and k = 1 at first).
POS_AFTER_KEYS = 7 + PRESSES
OFFSET_AFTER_KEYS = 1 + 2
POS_AFTER_ROTATION = POS_AFTER_KEYS + 5
OMEGA_3 = encoding.angular_frequencies(128)[3]


def first_look(page) -> dict:
    """The page as it opens: its title, equations, compare caption and heatmap."""
    look_at(page, "heatmap")
    plot = wait_until(
        page,
        lambda: [p for p in plots(page) if p["rows"] and p["title"].startswith("PE matrix")],
        WAIT_S,
        what="the heatmap",
    )[0]
    return {
        "title": page.title(),
        "equations": page.locator("math").count(),
        "caption": wait_for_text(page, POS_READOUT, bool, WAIT_S),
        "size": (plot["rows"], plot["columns"]),
        "pos_row": row_marked(plot, "pos"),
    }


def pipeline(page) -> dict:
    """Step the tokens view's pipeline back to the embeddings and on to the sum, by keyboard."""
    look_at(page, "tokens")
    seen = {"opened": wait_for_text(page, STAGE, lambda t: t.startswith("Stage 4 of 4"), WAIT_S)}
    # From the last word's chip, Tab goes on to the pipeline's buttons.
    page.locator(".pe-token-chip button").last.focus()
    tab_to(page, "pe-pipeline-prev")
    stages = []
    for stage in (3, 2):
        page.keyboard.press("Enter")
        stages.append(
            wait_for_text(page, STAGE, lambda t, s=stage: t.startswith(f"Stage {s}"), WAIT_S)
        )
    seen["back"] = stages
    # "the" stands at 0, 4 and 7: the same embedding numbers in each row (the copies of "sat",
    # the other repeated word, are there too, hidden).
    rows = page.locator("tr.pe-pipeline-copy:visible")
    wait_until(page, lambda: rows.count() == 3, WAIT_S, what="three copies of “the”")
    seen["embeddings"] = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(3)]
    seen["verdict"] = text(page, ".pe-pipeline-verdict:visible")
    tab_to(page, "pe-pipeline-next")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    seen["on"] = wait_for_text(page, STAGE, lambda t: t.startswith("Stage 4 of 4"), WAIT_S)
    seen["sums"] = [rows.nth(i).locator("td").nth(3).inner_text() for i in range(3)]
    return seen


def dotproduct(page) -> dict:
    """Two ArrowRight presses on the offset, read in the dot-product view; then Cosine."""
    look_at(page, "dotproduct")
    wait_for_text(page, ".pe-gram-offset", lambda t: t == "1", WAIT_S)
    press_on(page, ".pe-control-offset .noUi-handle", "ArrowRight", 2)
    seen = {"offset": wait_for_text(page, ".pe-gram-offset", lambda t: t == "3", WAIT_S)}
    for name in ("dot", "cosine", "distance", "spread"):
        seen[name] = text(page, f".pe-gram-{name}")
    (line,) = [s for s in plot_titled(page, "PE·PEᵀ")["shapes"] if s["name"] == "offset k"]
    seen["diagonal"] = line["x0"] - line["y0"]
    page.locator(".pe-control-similarity button", has_text="Cosine similarity").click()
    seen["cosine_title"] = wait_until(
        page,
        lambda: [p["title"] for p in plots(page) if "cosine" in p["title"]],
        WAIT_S,
        what="cosines",
    )[0]
    return seen


def rotation(page) -> dict:
    """Pair 3 by the keys, then pos 5 further: R(k) stays the same."""
    look_at(page, "rotation")
    press_on(page, ".pe-control-rotation-pair .noUi-handle", "ArrowRight", 3)
    angle = f"{OFFSET_AFTER_KEYS * OMEGA_3:.6f}"
    seen = {"angle": wait_for_text(page, ".pe-rotation-angle", lambda t: t == angle, WAIT_S)}
    seen["error"] = text(page, ".pe-rotation-error")
    seen["matrix"] = text(page, ".pe-rotation-matrix")
    press_on(page, POS_HANDLE, "ArrowRight", 5)
    pos = str(POS_AFTER_ROTATION)
    seen["pos"] = wait_for_text(
        page, ".pe-control-pos .bk-slider-value", lambda t: t == pos, WAIT_S
    )
    second = f"is PE({POS_AFTER_ROTATION + OFFSET_AFTER_KEYS})"
    seen["title"] = wait_until(
        page,
        lambda: [
            t
            for p in plots(page)
            if (t := p["title"]).startswith("Pair i = 3") and t.endswith(second)
        ],
        WAIT_S,
        what=f"the pair's title ending {second}",
    )[0]
    page_idle(page, WAIT_S, what="the worker after pos moved")
    seen["matrix_after"] = text(page, ".pe-rotation-matrix")
    seen["matrix_other"] = text(page, ".pe-rotation-matrix-other")
    seen["error_after"] = text(page, ".pe-rotation-error")
    return seen


def d_model_width(page) -> dict:
    """ArrowLeft on d_model, then the preset 16: the heatmap's width follows."""
    look_at(page, "heatmap")
    press_on(page, ".pe-control-d-model .noUi-handle", "ArrowLeft")
    columns = lambda n: lambda: heatmap(page)["columns"] == n  # noqa: E731
    seen = {"slider": wait_until(page, columns(126), WAIT_S, what="126 heatmap columns")}
    page.locator(".pe-preset-16 button").click()
    seen["preset"] = wait_until(page, columns(16), WAIT_S, what="16 heatmap columns")
    look_at(page, "compare")
    dot = f"{encoding.offset_dot(OFFSET_AFTER_KEYS, 16):.9f}"
    seen["dot"] = wait_for_text(page, ".pe-readout-dot", lambda t: t == dot, WAIT_S)
    return seen


def click_cells(page, layout: str) -> dict:
    """Click each of CELLS on the heatmap (d_model 16): the formula under it, and its value."""
    look_at(page, "heatmap")
    wait_until(page, lambda: heatmap(page)["title"].endswith(f"({layout})"), WAIT_S, what=layout)
    page_idle(page, WAIT_S, what="the heatmap drawn")
    seen = {"hint": text(page, ".pe-cell-formula-text"), "cells": []}
    last_click = 0.0
    for row, column in CELLS:
        cell = page.evaluate(CELL_JS, {"row": row, "column": column})
        # A click reports the point last hovered: the pointer goes onto the cell first.
        x, y = point_at_cell(page, cell, row, WAIT_S)
        # Time-based by design: a press within 300 ms of the last click is a double click.
        wait_ms = DOUBLE_CLICK_MS - (time.monotonic() - last_click) * 1000
        if wait_ms > 0:
            page.wait_for_timeout(wait_ms)
        page.mouse.click(x, y)
        last_click = time.monotonic()
        formula = wait_for_text(
            page,
            ".pe-cell-formula-text",
            lambda t, r=row, c=column: t.startswith(f"PE({r}, {c})"),
            WAIT_S,
        )
        seen["cells"].append(
            {"row": row, "column": column, "value": cell["value"], "formula": formula}
        )
    return seen


def layout_toggle(page) -> dict:
    """The concatenated layout: the heatmap changes, the dot products do not."""
    look_at(page, "compare")
    page_idle(page, WAIT_S, what="the compare view")
    seen = {"before": text(page, ".pe-readout-dot")}
    page.locator(".pe-control-layout button", has_text="concatenated").click()
    look_at(page, "heatmap")
    seen["title"] = title_when_drawn(
        page, lambda t: t.endswith("(concatenated)"), WAIT_S, "the concatenated heatmap"
    )
    look_at(page, "dotproduct")
    page_idle(page, WAIT_S, what="the dot-product view")
    seen["gram"] = text(page, ".pe-gram-dot")
    look_at(page, "compare")
    page_idle(page, WAIT_S, what="the compare view")
    seen["after"] = text(page, ".pe-readout-dot")
    return seen


def code_walkthrough(page) -> dict:
    """Step the code view from step 1 to 3 by keyboard (concatenated, d_model 16)."""
    look_at(page, "code")
    seen = {
        "first": wait_for_text(
            page, ".pe-code-step-text", lambda t: t.startswith("Step 1 of 5"), WAIT_S
        )
    }
    page.locator(".pe-code-prev button").focus()
    tab_to(page, "pe-code-next")
    for step in (2, 3):
        page.keyboard.press("Enter")
        wait_for_text(
            page, ".pe-code-step-text", lambda t, s=step: t.startswith(f"Step {s} of 5"), WAIT_S
        )
    # The highlighted line is its own pane: it may follow the step's text by a message.
    seen["current"] = wait_for_text(
        page, ".pe-code-current", lambda t: "pe[:, :d_model // 2]" in t, WAIT_S
    )
    seen["lines"] = text(page, ".pe-code-lines")
    return seen


def nearest(page) -> dict:
    """d_model 4 and pos 0: the properties view finds PE(1885) back near PE(0)."""
    page.locator(".pe-preset-4 button").click()
    press_on(page, POS_HANDLE, "Home")
    wait_for_text(page, ".pe-control-pos .bk-slider-value", lambda t: t == "0", WAIT_S)
    look_at(page, "properties")
    seen = {
        "nearest": wait_for_text(page, ".pe-prop-nearest", lambda t: t == "PE(1885)", WAIT_S),
        "distance": float(text(page, ".pe-prop-nearest-distance")),
    }
    seen["title"] = title_when_drawn(
        page, lambda t: t.startswith("‖PE(q) − PE(0)‖"), WAIT_S, "the distance plot"
    )
    return seen


def base(page) -> dict:
    """One ArrowLeft on the base (10 000 → 5 000): each view follows once seen (d_model 4)."""
    press_on(page, ".pe-control-base .noUi-handle", "ArrowLeft")
    look_at(page, "frequency")
    longest = f"{encoding.wavelengths(4, 5000.0)[-1]:.3f}"
    seen = {"longest": wait_for_text(page, ".pe-longest", lambda t: t == longest, WAIT_S)}
    dot = f"{encoding.offset_dot(OFFSET_AFTER_KEYS, 4, 5000.0):.9f}"
    look_at(page, "dotproduct")
    seen["gram"] = wait_for_text(page, ".pe-gram-dot", lambda t: t == dot, WAIT_S)
    look_at(page, "compare")
    seen["readout"] = wait_for_text(page, ".pe-readout-dot", lambda t: t == dot, WAIT_S)
    return seen


def steps(site) -> dict:
    """The page as it opens; the pipeline; ArrowRight on pos; then the views, one part after
    another, each starting where the last left the state."""
    page = site.page
    record = {"errors": {}, "dialogs": []}

    def dismiss(dialog):
        record["dialogs"].append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)

    def attempt(name, part, *args):
        """Run part; keep what it returns, or the error that stopped it."""
        try:
            record[name] = part(page, *args)
        except Exception as error:  # noqa: BLE001 (kept for the part's test to report)
            record["errors"][name] = f"{type(error).__name__}: {error}"

    attempt("first_look", first_look)
    attempt("pipeline", pipeline)
    look_at(page, "compare")  # back to the readout: a view off screen waits until seen
    record["readout_before"] = page.evaluate(DEEP_TEXT_JS, POS_READOUT)
    site.press(POS_HANDLE, "ArrowRight", PRESSES)
    # Generous: the worker reports idle before Python has run the callbacks.
    record["interaction"] = site.settle(settle_ms=3000)
    record["readout_after"] = page.evaluate(DEEP_TEXT_JS, POS_READOUT)
    attempt("dotproduct", dotproduct)
    attempt("rotation", rotation)
    attempt("d_model_width", d_model_width)
    attempt("cells_interleaved", click_cells, "interleaved")
    attempt("layout", layout_toggle)
    attempt("cells_concatenated", click_cells, "concatenated")
    attempt("code", code_walkthrough)
    attempt("nearest", nearest)
    attempt("base", base)
    return record


def shown_pos(readout: str | None) -> int:
    """The position a readout text shows ("pos = 7 · ...")."""
    match = re.search(r"\bpos\s*=\s*(\d+)", readout or "")
    assert match, f"{POS_READOUT} shows {readout!r}"
    return int(match[1])


def part(visit, name: str) -> dict:
    """What a part of the steps saw, or the error that stopped it (as the test's failure)."""
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert name not in visit["errors"], visit["errors"][name]
    return visit[name]


def test_site_becomes_interactive(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]


def test_page_loads_with_title_equations_and_default_state(visit):
    """The page's title, its two equations, pos 7 and k = 1, and the 64 × 128 matrix with pos 7
    marked."""
    seen = part(visit, "first_look")
    assert seen["title"] == "Positional Encoding Explorer"
    assert seen["equations"] == 2
    assert seen["caption"] == "pos = 7 · pos + k = 8 · k = 1"
    assert seen["size"] == (64, 128)
    assert seen["pos_row"] == 7


def test_stepping_the_pipeline_by_keyboard_shows_one_embedding_for_a_repeated_word(visit):
    """Prev and Next by keyboard: “the” at 0, 4 and 7 has one embedding and three sums."""
    seen = part(visit, "pipeline")
    assert [stage[:7] for stage in seen["back"]] == ["Stage 3", "Stage 2"]
    assert len(set(seen["embeddings"])) == 1
    assert "bit for bit" in seen["verdict"]
    assert len(set(seen["sums"])) == 3


def test_arrow_keys_on_the_pos_slider_move_the_readout(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    interaction = visit["interaction"]
    assert interaction["settled"], interaction["error"]
    assert interaction["patch_after_last_input"], "the worker did not answer the key presses"
    assert shown_pos(visit["readout_after"]) == shown_pos(visit["readout_before"]) + PRESSES


def test_offset_keys_move_the_dotproduct_diagonal_and_its_numbers(visit):
    """k from 1 to 3 by the keys: diagonal 3 and D(3), its cosine and distance; then cosines."""
    seen = part(visit, "dotproduct")
    dot = encoding.offset_dot(3, 128)
    assert seen["dot"] == f"{dot:.9f}"
    assert seen["cosine"] == f"{2 * dot / 128:.9f}"
    assert seen["distance"] == f"{encoding.offset_distance(3, 128):.9f}"
    assert float(seen["spread"]) <= 1e-12
    assert seen["diagonal"] == 3
    assert "cosine" in seen["cosine_title"]


def test_rotation_pair_keys_turn_by_k_omega_and_r_does_not_follow_pos(visit):
    """Pair 3 turns by k·ω₃; moving pos leaves R(k) (both readings of it) as it was."""
    seen = part(visit, "rotation")
    assert seen["angle"] == f"{OFFSET_AFTER_KEYS * OMEGA_3:.6f}"
    assert float(seen["error"]) <= 1e-12
    assert seen["pos"] == str(POS_AFTER_ROTATION)
    assert seen["matrix_after"] == seen["matrix"]
    assert seen["matrix_other"] == seen["matrix"]
    assert float(seen["error_after"]) <= 1e-12


def test_d_model_slider_and_presets_change_the_heatmap_width(visit):
    """ArrowLeft on d_model gives 126 columns, the preset 16 gives 16 and D(k) for 16."""
    seen = part(visit, "d_model_width")
    assert seen["slider"] and seen["preset"]
    assert seen["dot"] == f"{encoding.offset_dot(OFFSET_AFTER_KEYS, 16):.9f}"


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_a_clicked_cells_formula_equals_its_value_to_the_digits_shown(visit, layout):
    """Each clicked cell's formula names its sin or cos and ends in the value the plot holds."""
    seen = part(visit, f"cells_{layout}")
    if layout == "interleaved":
        pos = POS_AFTER_ROTATION
        assert seen["hint"].startswith(f"PE({pos}, 6) = sin({pos} / 10000^(6/16)) = sin(")
    assert [(cell["row"], cell["column"]) for cell in seen["cells"]] == CELLS
    for cell in seen["cells"]:
        row, column, formula = cell["row"], cell["column"], cell["formula"]
        assert formula_value(formula) == f"{cell['value']:.4f}".replace("-0.0000", "0.0000")
        function = cell_function(row, column, 16, layout)
        assert f" = {function}({row} / 10000^(" in formula


def test_layout_toggle_changes_the_heatmap_but_not_the_dot_products(visit):
    """The concatenated layout redraws the heatmap; D(k) stays the same in both views."""
    seen = part(visit, "layout")
    assert seen["title"].endswith("(concatenated)")
    dot = f"{encoding.offset_dot(OFFSET_AFTER_KEYS, 16):.9f}"
    assert seen["before"] == seen["after"] == seen["gram"] == dot


def test_the_code_walkthrough_steps_by_keyboard_and_follows_the_layout(visit):
    """Step 3 of the concatenated layout highlights its sine line, never the interleaved one."""
    seen = part(visit, "code")
    assert "sin" in seen["current"]
    assert "0::2" not in seen["lines"]


def test_d_model_4_shows_position_1885_coming_back_near_position_0(visit):
    """With d_model 4, PE(1885) is within 0.045 of PE(0): the readout and the plot say so."""
    seen = part(visit, "nearest")
    assert seen["nearest"] == "PE(1885)"
    assert seen["distance"] < 0.045
    assert seen["distance"] == pytest.approx(encoding.offset_distance(1885, 4), abs=1e-6)
    assert "nearest is PE(1885)" in seen["title"]


def test_base_slider_steps_on_a_log_scale_and_every_view_follows(visit):
    """One key on the base gives 5 000: the longest wavelength and D(k) in both views follow."""
    seen = part(visit, "base")
    assert seen["longest"] == f"{encoding.wavelengths(4, 5000.0)[-1]:.3f}"
    dot = f"{encoding.offset_dot(OFFSET_AFTER_KEYS, 4, 5000.0):.9f}"
    assert seen["gram"] == seen["readout"] == dot


def test_no_dialog_opens(visit):
    assert visit["load"]["interactive"], visit["load"]["error"]
    assert visit["dialogs"] == []

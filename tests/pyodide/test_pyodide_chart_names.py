"""Chart names and Show data in the real Pyodide build, offline: every view's charts carry their
numbers in their aria-label, which follows a key on a slider the view follows (pos where it has
it), and an open Show data stays open."""

from __future__ import annotations

import math

import pytest
from pe_explorer.views import VIEWS as SPECS
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)

pytestmark = pytest.mark.pyodide

# The slider each view is driven by: pos where it follows pos, else the first it follows.
SLIDERS = ("pos", "offset", "d_model", "n_positions", "base")


def driving_slider(spec) -> str | None:
    return next((c for c in SLIDERS if c in spec.controls and c in spec.follows), None)


# The model view follows no slider (its numbers come from the model): test_pyodide_model.py
# checks its chart's name.
DRIVEN = {spec.name: slider for spec in SPECS if (slider := driving_slider(spec))}
VIEWS = tuple(DRIVEN)
POS_VIEWS = tuple(name for name, slider in DRIVEN.items() if slider == "pos")
CHARTS_JS = """() => __offline.deep('.js-plotly-plot')
  .map((chart) => ({role: chart.getAttribute('role'), label: chart.getAttribute('aria-label')}))"""
DATA_JS = """() => __offline.deep('details.pe-data').map((details) => ({
  open: details.open,
  caption: (details.querySelector('caption') || {}).textContent,
  rows: [...details.querySelectorAll('tbody th')].map((th) => th.textContent),
  scopes: [...details.querySelectorAll('thead th')].map((th) => th.getAttribute('scope')),
  headers: [...details.querySelectorAll('thead th')].map((th) => th.textContent),
}))"""
LABELLED_JS = "() => __offline.deep('.js-plotly-plot[aria-label]').length > 0"


def label_changed_js(before: str) -> str:
    return (
        "() => __offline.deep('.js-plotly-plot[aria-label]')"
        f".some((chart) => chart.getAttribute('aria-label') !== {before!r})"
    )


def steps(site) -> dict:
    """Open each view alone at pos = 7, read its chart's name, open Show data, step pos."""
    record = {}
    for name in VIEWS:
        seen = record[name] = {}
        seen["load"] = site.goto(f"?view={name}&pos=7&offset=1")
        seen["named"] = wait_for(site, LABELLED_JS)
        seen["charts"] = site.page.evaluate(CHARTS_JS)
        site.page.locator("details.pe-data summary").first.click()
        before = seen["charts"][0]["label"] if seen["charts"] else ""
        slider = DRIVEN[name].replace("_", "-")
        key = "ArrowRight" if DRIVEN[name] == "pos" else "ArrowLeft"
        site.press(f".pe-control-{slider} .noUi-handle", key, 1)
        site.settle()
        seen["renamed"] = wait_for(site, label_changed_js(before or ""), timeout_s=60)
        seen["charts_after"] = site.page.evaluate(CHARTS_JS)
        seen["data_after"] = site.page.evaluate(DATA_JS)
    return record


def shown(value: float) -> str:
    text = f"{value:.4f}"
    return text.replace("-", "\u2212")


@pytest.mark.parametrize("name", VIEWS)
def test_each_chart_is_a_named_figure(visit, name):
    seen = visit[name]
    assert seen["load"]["interactive"], seen["load"]["error"]
    assert seen["named"], seen["charts"]
    assert seen["charts"]
    for chart in seen["charts"]:
        assert chart["role"] == "figure" and chart["label"], chart


@pytest.mark.parametrize("name", POS_VIEWS)
def test_the_name_says_pos(visit, name):
    assert any("7" in chart["label"] for chart in visit[name]["charts"])


def test_the_heatmap_name_carries_the_worked_example(visit):
    (chart,) = visit["heatmap"]["charts"]
    assert chart["label"].endswith(f"PE(7, 6) = {shown(math.sin(7 / 10000 ** (6 / 128)))}")
    (after,) = visit["heatmap"]["charts_after"]
    assert after["label"].endswith(f"PE(8, 6) = {shown(math.sin(8 / 10000 ** (6 / 128)))}")


@pytest.mark.parametrize("name", VIEWS)
def test_a_key_on_a_slider_renames_the_chart(visit, name):
    seen = visit[name]
    assert seen["renamed"], (seen["charts"], seen["charts_after"])
    before = {chart["label"] for chart in seen["charts"]}
    assert any(chart["label"] not in before for chart in seen["charts_after"])


@pytest.mark.parametrize("name", ("heatmap", "rope", "alibi"))
def test_show_data_stays_open_and_lists_the_rows_near_the_new_pos(visit, name):
    (data,) = visit[name]["data_after"]
    assert data["open"]
    assert set(data["scopes"]) == {"col"}
    # pos moved from 7 to 8: the rows (ALiBi: the keys) near it are now 5 … 11.
    shown_now = data["headers"][2:] if name == "alibi" else data["rows"]
    expected = (
        [f"key {p}" for p in range(5, 12)] if name == "alibi" else list(map(str, range(5, 12)))
    )
    assert shown_now == expected

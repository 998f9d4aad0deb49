"""The page's picker (components/js/picker.js) under node, against a stand-in BokehJS and plotly.js:
a move of pos is shown from the view's picks at once, in the task of its input (the marker by one
relayout, the name and a pane's text set), only when the picks were made for the figure shown
and for the other axis's value; Python's own relayout gets the pick put back on top; a value
unchanged is not sent again. In the real build: tests/pyodide/test_pyodide_drag*.py."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from pe_explorer.fixes import browser
from pe_explorer.plotkit import picks

# A stand-in page: one Bokeh document, a Plotly view (its chart `gd`) with a readout pane beside
# it, and the view's picks of pos 0 … 9 (k = 1): the marker's y, the name and the readout.
NODE_DRIVER = r"""
const log = [];
class Model {}
const models = {};
function model(name, View) {
  const Class = class extends Model {};
  Class.prototype.default_view = View;
  models[name] = Class;
  return Class;
}
class PlotView { plot() { log.push(['plot']); } }
class HTMLView { set_html() {} }
model('panel.models.plotly.PlotlyPlot', PlotView);
model('panel.models.markup.HTML', HTMLView);
const doc = {};
const listeners = {};
const gd = {
  _fullLayout: {}, layout: {images: [{y: 7}]}, data: [],
  attributes: {},
  setAttribute(name, value) { this.attributes[name] = value; },
  on(event, fn) { (listeners[event] = listeners[event] || []).push(fn); },
};
const readout = {model: new models['panel.models.markup.HTML'](), container: {innerHTML: 'old'}};
readout.model.css_classes = ['pe-readout-pane'];
const parent = {child_views: []};
const view = new PlotView();
Object.assign(view, {container: gd, parent, model: new models['panel.models.plotly.PlotlyPlot']()});
view.model.tags = ['PE at 7', 'heatmap-1', 3];
view.model.document = doc;
view.model.properties = {tags: 'tags'};
view.on_change = () => {};
parent.child_views.push(view, readout);
const setAt = (object, path, value) => {
  const keys = path.split(/[.[\]]+/).filter(Boolean);
  let here = object;
  for (const key of keys.slice(0, -1)) here = here[key];
  here[keys.at(-1)] = value;
};
globalThis.window = globalThis;
const windowEvents = new EventTarget();
window.addEventListener = (...a) => windowEvents.addEventListener(...a);
window.dispatchEvent = (e) => windowEvents.dispatchEvent(e);
window.Bokeh = {
  Models: {get: (name) => models[name]},
  index: {query: (test) => [view, readout].filter(test)},
};
window.Plotly = {
  update(target, data, layout) {
    log.push(['update', layout]);
    for (const [path, value] of Object.entries(layout)) setAt(target.layout, path, value);
  },
  relayout(target, layout) {
    log.push(['relayout', layout]);
    for (const [path, value] of Object.entries(layout)) setAt(target.layout, path, value);
    for (const fn of listeners.plotly_relayout || []) fn(layout);
  },
};
const events = new EventTarget();
globalThis.document = {
  createElement: () => ({}),
  addEventListener: (...a) => events.addEventListener(...a),
  dispatchEvent: (e) => events.dispatchEvent(e),
};
globalThis.requestAnimationFrame = (fn) => setTimeout(() => fn(performance.now()), 0);
const frame = () => new Promise((resolve) => setTimeout(resolve, 5));
const pick = (axis, value) =>
  document.dispatchEvent(new CustomEvent('pe-pick', {detail: {axis, value, doc}}));
const values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
window[Symbol.for('pe-picks')] = new Map([['heatmap-1', {
  drawn: {pos: 7, offset: 1, generation: 3},
  tables: {},
  pos_picks: {start: 0, count: 10, at: 1, updates: [
    {target: 'layout', path: 'images[0].y', trace: -1, each: values},
    {target: 'label', path: '', trace: -1,
     text: {parts: ['PE at ', ''], slots: [values.map(String)]}},
    {target: 'pane', path: 'pe-readout-pane', trace: -1,
     text: {parts: ['pos = ', ''], slots: [values.map(String)]}},
  ]},
}]]);
const [modulePath, script] = process.argv.slice(1);
(async () => {
  const module = await import(modulePath);
  module.render();
  view.plot();
  await new Function('pick', 'frame', 'view', 'gd', 'readout', 'log', 'window',
                     `return (async () => {${script}})()`)(
    pick, frame, view, gd, readout, log, window);
  console.log(JSON.stringify({log, y: gd.layout.images[0].y, label: gd.attributes['aria-label'],
                              readout: readout.container.innerHTML}));
})();
"""


def run_picker(script: str, folder) -> dict:
    node = shutil.which("node")
    assert node, "node is needed by the build (scripts/compile_wheels.py)"
    path = folder / "picker.mjs"
    path.write_text(browser.one_module(browser.HELPER, (picks.SCRIPT,)), encoding="utf-8")
    run = subprocess.run(
        [node, "-e", NODE_DRIVER, path.as_uri(), script], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture
def folder(tmp_path):
    return tmp_path


def test_a_move_is_shown_from_the_picks_at_once(folder):
    shown = run_picker("log.length = 0; pick('pos', 9); await frame();", folder)
    assert shown["y"] == 9
    assert shown["label"] == "PE at 9"
    assert shown["readout"] == "pos = 9"
    assert [entry[0] for entry in shown["log"]] == ["update"]  # one call moves the marker


def test_picks_made_for_another_drawing_are_not_used(folder):
    script = "view.model.tags = ['PE at 7', 'heatmap-1', 4]; pick('pos', 9); await frame();"
    shown = run_picker(script, folder)
    assert (shown["y"], shown["readout"]) == (7, "old")


def test_picks_made_for_another_k_are_not_used(folder):
    shown = run_picker("pick('offset', 3); pick('pos', 9); await frame();", folder)
    assert shown["y"] == 7


def test_pythons_relayout_gets_the_pick_put_back_on_top(folder):
    script = """
      pick('pos', 9); await frame();
      window.Plotly.relayout(gd, {'images[0].y': 8});  // Python's draw of an earlier value
      await frame();
    """
    shown = run_picker(script, folder)
    assert shown["y"] == 9
    assert shown["log"][-1][0] == "update"


def test_a_value_already_shown_is_not_sent_again(folder):
    shown = run_picker("log.length = 0; pick('pos', 7); await frame();", folder)
    assert shown["log"] == []
    assert shown["label"] == "PE at 7"


@pytest.mark.parametrize("at", ["null", "undefined"])
def test_picks_for_any_k_are_used_at_every_k(folder, at):
    """A view that does not follow k sends `at` None: null in a first document, undefined once a
    patch of Panel's has carried it (seen in the Pyodide build)."""
    script = f"""
      window[Symbol.for('pe-picks')].get('heatmap-1').pos_picks.at = {at};
      pick('offset', 3); pick('pos', 9); await frame();
    """
    assert run_picker(script, folder)["y"] == 9

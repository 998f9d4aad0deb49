"""The page's one fixes component (fixes/browser.py): the helper components/js/fixes/patch_view.js
and every fix's script made one module, run under node against a stand-in BokehJS. Each method
is wrapped once for all the fixes that hook it (`_update_slider`: Home and End, and the slider
handles' names), a fix runs only for its own model's views, a fix that throws leaves the view
working, and the views drawn before the fixes are fixed at once. The fixes' effects on the real
page: tests/pyodide/test_pyodide_access.py and test_pyodide_controls.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pe_explorer.fixes import browser
from pe_explorer.plotkit import picks

# A stand-in BokehJS: Slider and RangeSlider views share the prototype that defines render and
# _update_slider (as BokehJS's AbstractSliderView does); Spinner, MultiChoice, Panel's HTML and
# Plotly views have their own. Each original method logs its call. Then the page's module runs
# SCRIPT (`module`, `views`, `log` and `HOOKS` in scope) and prints the log.
NODE_DRIVER = r"""
const log = [];
class Model {}
const models = {};
const views = [];
function model(name, View, Base = Model) {
  const Class = class extends Base {};
  Class.prototype.default_view = View;
  models[name] = Class;
  return Class;
}
class SliderBaseView {
  render() { log.push(['render', this.id]); }
  _update_slider() { log.push(['_update_slider', this.id]); }
  draw() { log.push(['draw', this.id]); }
  async plot() {
    await new Promise((resolve) => setTimeout(resolve, 5));
    log.push(['plot', this.id]);
    return 'drawn';
  }
}
class SliderView extends SliderBaseView {}
class RangeSliderView extends SliderBaseView {}
class OwnView { render() {} set_html() {} async plot() {} }
model('Slider', SliderView);
model('RangeSlider', RangeSliderView);
for (const name of ['Spinner', 'MultiChoice', 'panel.models.markup.HTML',
                    'panel.models.plotly.PlotlyPlot']) {
  model(name, class extends OwnView {});
}
const view = (name, id) => {
  const made = new models[name].prototype.default_view();
  Object.assign(made, {id, model: new models[name]()});
  views.push(made);
  return made;
};
view('Slider', 1);
view('RangeSlider', 2);
globalThis.window = {
  Bokeh: {
    Widgets: {Slider: models.Slider, RangeSlider: models.RangeSlider,
              Spinner: models.Spinner, MultiChoice: models.MultiChoice},
    Models: {get: (name) => models[name]},
    index: {query: (test) => views.filter(test)},
  },
  Plotly: {relayout() {}, Plots: {resize() {}}},
  addEventListener() {},
};
globalThis.document = {createElement: () => ({}), addEventListener() {}};
globalThis.log = log;
const HOOKS = Symbol.for('pe-fixes-hooks');
const [modulePath, script] = process.argv.slice(1);
(async () => {
  const module = await import(modulePath);
  await new Function('module', 'views', 'log', 'HOOKS', 'SliderBaseView',
                     `return (async () => {${script}})()`)(
    module, views, log, HOOKS, SliderBaseView);
  console.log(JSON.stringify(log));
})();
"""


def run_module(module: str, script: str, folder: Path) -> list:
    """What the page's module logged, loaded as an ES module under node, after script."""
    node = shutil.which("node")
    assert node, "node is needed by the build (scripts/compile_wheels.py)"
    path = folder / "fixes.mjs"
    path.write_text(module, encoding="utf-8")
    run = subprocess.run(
        [node, "-e", NODE_DRIVER, path.as_uri(), script], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


# A fix with a hook of each kind on a method the Slider and RangeSlider views share, one whose
# `before` throws, and one around an async method.
TRIAL_FIX = """// A trial fix.
import { addFix, patchView } from './patch_view.js';

addFix(() => {
  patchView({
    name: 'a',
    model: 'Slider',
    method: 'draw',
    before: (view) => {
      log.push(['before a', view.id]);
      return 'kept';
    },
    after: (view, kept) => log.push(['after a', view.id, kept]),
    replay: (view) => log.push(['replay a', view.id]),
  });
  patchView({
    name: 'b',
    model: 'Slider',
    method: 'draw',
    before: () => {
      throw new Error('a broken fix');
    },
    after: (view, kept) => log.push(['after b', view.id, kept ?? null]),
  });
  patchView({
    name: 'c',
    model: 'Slider',
    method: 'plot',
    after: (view) => log.push(['after c', view.id]),
  });
});
"""


@pytest.fixture
def trial_module(tmp_path) -> str:
    script = tmp_path / "trial.js"
    script.write_text(TRIAL_FIX, encoding="utf-8")
    return browser.one_module(browser.HELPER, (script,))


def test_hooks_run_around_the_method_for_their_own_models_views_and_a_broken_one_is_skipped(
    trial_module, tmp_path
):
    log = run_module(trial_module, "module.render(); views[0].draw(); views[1].draw();", tmp_path)
    assert log == [
        ["replay a", 1],  # drawn before the fixes: fixed at once, the RangeSlider's view not
        ["before a", 1],
        ["draw", 1],
        ["after a", 1, "kept"],
        ["after b", 1, None],
        ["draw", 2],
    ]


def test_a_second_render_wraps_and_replays_nothing_again(trial_module, tmp_path):
    log = run_module(trial_module, "module.render(); module.render(); views[0].draw();", tmp_path)
    assert log == [
        ["replay a", 1],
        ["before a", 1],
        ["draw", 1],
        ["after a", 1, "kept"],
        ["after b", 1, None],
    ]


def test_a_method_wrapped_twice_is_wrapped_once(trial_module, tmp_path):
    script = """
      const target = {method: () => log.push('method')};
      const wrap = (method) => () => log.push('wrapped') && method();
      module.wrapOnce(target, 'method', wrap);
      module.wrapOnce(target, 'method', wrap);
      target.method();
    """
    assert run_module(trial_module, script, tmp_path) == ["wrapped", "method"]


def test_after_an_async_method_the_hook_runs_once_it_has_settled(trial_module, tmp_path):
    script = "module.render(); log.length = 0; log.push(['returned', await views[0].plot()]);"
    log = run_module(trial_module, script, tmp_path)
    assert log == [["plot", 1], ["after c", 1], ["returned", "drawn"]]


def test_update_slider_is_wrapped_once_for_both_slider_fixes(tmp_path):
    script = """
      module.render();
      module.render();
      const hooks = SliderBaseView.prototype[HOOKS];
      log.push([...hooks.keys()].sort(), [...hooks.get('_update_slider').keys()]);
      views[0]._update_slider();
    """
    methods, fixes, *calls = run_module(browser.BrowserFixes._esm, script, tmp_path)
    assert methods == ["_update_slider", "render"]
    assert fixes == ["slider-keys:Slider", "control-names:Slider", "control-names:RangeSlider"]
    assert calls == [["_update_slider", 1]]


def test_every_fix_script_is_installed():
    scripts = set((browser.HELPER.parent).glob("*.js")) - {browser.HELPER}
    # and the picker, no fix, which hooks the same views (plotkit/picks.py)
    assert set(browser.SCRIPTS) == scripts | {picks.SCRIPT}


def test_a_fix_that_exports_is_refused(tmp_path):
    script = tmp_path / "exports.js"
    script.write_text("import { addFix } from './patch_view.js';\nexport const x = 1;\n")
    with pytest.raises(ValueError, match="exports.js"):
        browser.one_module(browser.HELPER, (script,))

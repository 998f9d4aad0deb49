"""What makes the site lighter (issue 34), without building it: the partial plotly.js bundle
refused unless it is the pinned one of Panel's version (scripts/plotly_bundle.py), its loader of
the full bundle (static/plotly-on-demand.js), and what the build leaves out of the wheels and the
standard library (scripts/compile_wheels.py) matching only what never runs. The built site's
weight: tests/site/test_built_site_weight.py; the real Pyodide build runs all of it in
tests/pyodide/test_pyodide_lighter.py and every other test of that tier.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from site_support import EVERY_VIEW_AND_CONTROL

from scripts import compile_wheels, plotly_bundle, vendor_runtime

REPO_ROOT = Path(__file__).resolve().parents[2]
PLOTLY_DIR = "runtime/cdn.holoviz.org/panel/1.9.4/dist/bundled/plotlyplot/"


def test_a_partial_bundle_of_another_plotly_version_stops_the_build(tmp_path):
    (tmp_path / PLOTLY_DIR).mkdir(parents=True)
    (tmp_path / PLOTLY_DIR / "plotly-3.2.0.min.js").write_text("/* plotly.js v3.2.0 */")
    with pytest.raises(vendor_runtime.RuntimeMismatch, match="3.2.0"):
        plotly_bundle.vendor_partial(tmp_path)


def test_a_partial_bundle_that_is_not_the_pinned_file_is_refused(tmp_path, monkeypatch):
    (tmp_path / PLOTLY_DIR).mkdir(parents=True)
    (tmp_path / PLOTLY_DIR / "plotly-3.1.0.min.js").write_text("/* plotly.js v3.1.0 */")
    forged = tmp_path / "plotly-cartesian.min.js"
    forged.write_text("window.Plotly = {};")
    monkeypatch.setenv("PE_PLOTLY_PARTIAL", str(forged))
    with pytest.raises(vendor_runtime.RuntimeMismatch, match="sha256"):
        plotly_bundle.vendor_partial(tmp_path)
    monkeypatch.setenv("PE_PLOTLY_PARTIAL", str(tmp_path / "missing.js"))
    with pytest.raises(vendor_runtime.RuntimeUnavailable, match="build.sh setup"):
        plotly_bundle.vendor_partial(tmp_path)


def test_what_is_left_out_matches_only_what_never_runs():
    assert compile_wheels.never_runs("numpy/_core/include/numpy/ndarrayobject.h")
    assert compile_wheels.never_runs("numpy/f2py/crackfortran.py")
    assert compile_wheels.never_runs("numpy/typing/tests/test_typing.py")
    assert compile_wheels.never_runs("numpy/__init__.pyi")
    assert compile_wheels.never_runs("bokeh/sphinxext/bokeh_plot.py")
    assert compile_wheels.never_runs("panel/dist/images/index_background.png")
    assert not compile_wheels.never_runs("numpy/_core/_multiarray_umath.cpython-313.so")
    assert not compile_wheels.never_runs("bokeh/command/util.py")  # Panel imports it
    assert not compile_wheels.never_runs("panel/dist/css/loading.css")
    assert not compile_wheels.never_runs("panel/io/pyodide.py")
    assert compile_wheels.stdlib_never_runs("encodings/cp1252.py")
    assert compile_wheels.stdlib_never_runs("_pyrepl/console.py")
    assert compile_wheels.stdlib_never_runs("pdb.py")
    for kept in ("encodings/__init__.pyc", "encodings/utf_8.py", "email/parser.py", "cProfile.py"):
        assert not compile_wheels.stdlib_never_runs(kept), kept


# Every module imported with every view shown and every control moved, as wheel members and as
# paths in the standard library, that the build leaves out.
LEFT_OUT = (
    EVERY_VIEW_AND_CONTROL.rsplit("print(", 1)[0]
    + """
import json, sysconfig
from scripts import compile_wheels
files = [getattr(module, "__file__", None) or "" for module in list(sys.modules.values())]
paths = sysconfig.get_paths()
wheels = [f[len(paths["purelib"]) + 1:] for f in files if f.startswith(paths["purelib"] + "/")]
stdlib = [f[len(paths["stdlib"]) + 1:] for f in files
          if f.startswith(paths["stdlib"] + "/") and "-packages/" not in f]
print(json.dumps({"wheels": [m for m in wheels if compile_wheels.never_runs(m)],
                  "stdlib": [m for m in stdlib if compile_wheels.stdlib_never_runs(m)],
                  "imported": len(wheels) + len(stdlib)}))
"""
)


def test_the_app_in_full_use_imports_nothing_the_build_leaves_out():
    run = subprocess.run(
        [sys.executable, "-c", LEFT_OUT], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["imported"] > 500  # the check saw the app's modules
    assert found["wheels"] == [] and found["stdlib"] == []


# plotly-on-demand.js under node: a page with the partial bundle's window.Plotly, whose head
# appends a script that "loads" the full bundle (a stand-in that records its calls).
LOADER_DRIVER = r"""
const fs = require('fs');
const vm = require('vm');
const calls = [];
const stand = (name, traces) => ({
  PlotSchema: {get: () => ({traces: Object.fromEntries(traces.map((t) => [t, {}]))})},
  newPlot: async (gd, ...rest) => calls.push([name, 'newPlot', gd]),
  react: async (gd, ...rest) => calls.push([name, 'react', gd]),
});
const window = {Plotly: stand('partial', ['scatter', 'heatmap', 'bar', 'box'])};
const appended = [];
const document = {
  currentScript: {dataset: {full: 'runtime/plotly-3.1.0.min.js'}},
  createElement: () => ({}),
  head: {append: (script) => {
    appended.push(script.src);
    setTimeout(() => {
      if (process.argv[2] === 'offline') return script.onerror();
      window.Plotly = stand('full', ['scatter', 'heatmap', 'bar', 'box', 'scatter3d']);
      script.onload();
    }, 5);
  }},
};
const warnings = [];
const console = {warn: (text) => warnings.push(text)};
vm.runInNewContext(fs.readFileSync(process.argv[1], 'utf8'), {window, document, console});
const partial = window.Plotly;
(async () => {
  await partial.react('a', [{type: 'heatmap'}, {type: 'scatter'}], {});
  await partial.react('b', [{type: 'box'}], {});
  const three = [{type: 'scatter3d'}];
  await Promise.all([partial.react('c', three, {}), partial.newPlot('d', {data: three})]);
  console.log = undefined;
  process.stdout.write(JSON.stringify({calls, appended, warnings}));
})();
"""


def run_loader(mode: str) -> dict:
    node = shutil.which("node")
    assert node, "node is needed by the build (scripts/compile_wheels.py)"
    script = REPO_ROOT / plotly_bundle.ON_DEMAND
    run = subprocess.run(
        [node, "-e", LOADER_DRIVER, str(script), mode], capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


def test_a_figure_with_a_trace_the_partial_bundle_lacks_loads_the_full_one_once():
    result = run_loader("online")
    assert result["calls"][:2] == [["partial", "react", "a"], ["partial", "react", "b"]]
    assert sorted(result["calls"][2:]) == [["full", "newPlot", "d"], ["full", "react", "c"]]
    assert result["appended"] == ["runtime/plotly-3.1.0.min.js"]  # once, for two figures
    assert result["warnings"] == []


def test_without_the_full_bundle_the_other_traces_still_draw_with_a_warning():
    result = run_loader("offline")
    assert [call[:2] for call in result["calls"]] == [["partial", "react"]] * 3 + [
        ["partial", "newPlot"]
    ]
    assert len(result["warnings"]) == 2 and "could not load" in result["warnings"][0]


def test_the_project_reads_no_docstring_and_asserts_nothing_so_its_bytecode_can_drop_both():
    """The site's wheel holds the project's modules compiled with optimize=2
    (scripts/compile_wheels.py): no docstrings, no asserts. That is only the same program if
    none of its code reads a docstring or relies on an assert."""
    import ast

    found = []
    for path in sorted((REPO_ROOT / "components").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assert):
                found.append(f"{path}:{node.lineno}: assert")
            elif isinstance(node, ast.Attribute) and node.attr == "__doc__":
                found.append(f"{path}:{node.lineno}: __doc__")
            elif isinstance(node, ast.Name) and node.id in {"__debug__", "inspect"}:
                found.append(f"{path}:{node.lineno}: {node.id}")
    assert found == []

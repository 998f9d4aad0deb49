"""The site's worker: its Python side (pe_explorer.worker, under CPython: each frame's messages
act on its own document) and its script (static/worker.js, under node with a stand-in for
Pyodide: one message at a time, `idle` only once Python applied the patch, phases by id).
The whole worker runs in Pyodide in tests/pyodide/test_pyodide_storm.py and test_pyodide_embeds.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import panel as pn
import pytest
from bokeh.document import Document
from pe_explorer import worker

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def two_frames(monkeypatch):
    docs = {1: Document(), 2: Document()}
    monkeypatch.setattr(worker, "_documents", dict(docs))
    yield docs
    for doc in docs.values():
        pn.state._locations.pop(doc, None)


def href(search: str) -> str:
    return json.dumps({"href": f"https://x.org/pe/{search}", "pathname": "/pe/", "search": search})


def test_each_frame_has_its_own_url(two_frames):
    worker.location(1, href("?pos=3"))
    worker.location(2, href("?pos=9&view=waves"))
    assert worker.use(1) is two_frames[1] and pn.state.curdoc is two_frames[1]
    assert pn.state.location.search == "?pos=3"
    worker.use(2)
    assert pn.state.curdoc is two_frames[2]
    assert pn.state.location.search == "?pos=9&view=waves"


def test_a_closed_frame_is_forgotten(two_frames):
    worker.location(1, href("?pos=3"))
    assert worker.frames() == 2
    worker.close(1)
    worker.close(1)  # a second goodbye does nothing
    assert worker.frames() == 1
    assert two_frames[1] not in pn.state._locations
    with pytest.raises(KeyError):
        worker.use(1)
    assert worker.use(2) is two_frames[2]


def test_importing_the_worker_leaves_bokeh_models_for_prepare():
    """prepare() builds Bokeh's models without their signatures: it must come first."""
    code = "import sys, pe_explorer.worker; print('bokeh.models' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


# Runs static/worker.js in a node vm context as a dedicated, shared or relaying worker, with a
# stand-in for Pyodide whose pe_explorer.worker logs each call; then plays the page's messages
# (SCRIPT, in the context: `page(data, ports)` posts to the worker, `tick()` lets it run) and
# prints what happened, in order.
NODE_DRIVER = r"""
const vm = require('vm');
const fs = require('fs');
const path = require('path');
const [root, mode, script] = process.argv.slice(1);
const log = [];
const senders = {};
const python = {
  prepare() { log.push(['prepare']); },
  async build(frame, location) {
    log.push(['build', frame, JSON.parse(location).search]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return {toJs: () => ['{}', '[{}]', '[]'], destroy() {}};
  },
  rendered(frame, send) { log.push(['rendered', frame]); senders[frame] = send; },
  patch(frame, patch) {
    if (patch === 'bad') throw new Error('a bad patch');
    log.push(['patch', frame, patch]);
    // 'echo N': Python changes N properties in answer, then one more in a later task of its own.
    const echoes = /^echo (\d+)$/.exec(patch);
    if (echoes) {
      for (let i = 0; i < Number(echoes[1]); i += 1) senders[frame](`change ${i}`, new Map());
      setTimeout(() => senders[frame]('later', new Map()), 1);
    }
  },
  location(frame, href) { log.push(['location', frame, JSON.parse(href).search]); },
  close(frame) { log.push(['close', frame]); },
};
const port = (name) => ({
  name, onmessage: null, close() { log.push(['closed', name]); },
  postMessage(message) {
    if (message.type === 'status') log.push([name, 'status', message.phase, message.msg]);
    else if (message.type === 'runtime-error') log.push([name, message.type, message.msg]);
    else if (message.patches) log.push([name, message.type, message.patches.map((p) => p.patch)]);
    else log.push([name, message.type]);
  },
});
const scope = port('page');
Object.assign(scope, {
  console, URL, setTimeout, Promise,
  location: new URL('https://x.org/pe/app.js'),
  name: mode === 'relay' ? 'pe-relay' : '',
  importScripts(...names) {
    for (const name of names) {
      if (name === 'worker-config.js') {
        scope.PE_WORKER_CONFIG = {pyodide: 'runtime/pyodide.js', runtime: 'runtime/',
          lockFile: 'runtime/pe-lock.json', packages: ['numpy'], env: {}};
      } else if (name === 'runtime/pyodide.js') {
        scope.loadPyodide = async () => ({pyimport: () => python});
      } else {
        vm.runInContext(fs.readFileSync(path.join(root, name), 'utf8'), scope, {filename: name});
      }
    }
  },
});
if (mode === 'shared') scope.onconnect = null;
scope.self = scope;
vm.createContext(scope);
vm.runInContext(fs.readFileSync(path.join(root, 'static/worker.js'), 'utf8'), scope);
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
const page = (data, ports = []) => scope.onmessage({data, ports});
const at = (search) => JSON.stringify({search});
(async () => {
  await new Function('scope', 'page', 'tick', 'port', 'at', `return (async () => {${script}})()`)(
    scope, page, tick, port, at);
  for (let i = 0; i < 5; i++) await tick();  // what the page asked for is done
  console.log(JSON.stringify(log));
})();
"""


def run_worker(mode: str, script: str) -> list[list]:
    """What static/worker.js did, in order, as `mode` ("dedicated", "shared", "relay")."""
    node = shutil.which("node")
    assert node, "node is needed by the build (scripts/compile_wheels.py)"
    run = subprocess.run(
        [node, "-e", NODE_DRIVER, str(REPO_ROOT), mode, script],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_page_hears_each_phase_by_id_then_its_document_built_at_its_url():
    log = run_worker("dedicated", "page({type: 'frame', location: at('?pos=3')});")
    phases = [entry[2:] for entry in log if entry[1:2] == ["status"]]
    assert phases == [
        ["runtime", "Loading Python and packages"],
        ["imports", "Importing Panel and the app"],
        ["build", "Executing code"],
    ]
    assert (
        log.index(["prepare"]) < log.index(["build", 1, "?pos=3"]) < log.index(["page", "render"])
    )


def test_idle_comes_only_once_python_applied_the_patch_and_patches_apply_in_order():
    # Two patches and the location, sent before the first render has even finished.
    log = run_worker(
        "dedicated",
        """page({type: 'frame', location: at('?pos=3')});
        page({type: 'patch', patch: 'first'});
        page({type: 'patch', patch: 'second'});
        page({type: 'location', location: at('?pos=4')});""",
    )
    after_build = log[log.index(["page", "render"]) + 1 :]
    assert after_build == [
        ["patch", 1, "first"],
        ["page", "idle"],
        ["patch", 1, "second"],
        ["page", "idle"],
        ["location", 1, "?pos=4"],
        ["page", "location-applied"],
    ]


def test_what_python_changes_in_one_run_reaches_the_page_as_one_message_before_idle():
    log = run_worker(
        "dedicated",
        """page({type: 'frame', location: at('')}); await tick();
        page({type: 'rendered'}); await tick();
        page({type: 'patch', patch: 'echo 3'});""",
    )
    assert log[log.index(["patch", 1, "echo 3"]) + 1 :] == [
        ["page", "patch", ["change 0", "change 1", "change 2"]],
        ["page", "idle"],
        ["page", "patch", ["later"]],
    ]


def test_a_patch_python_refuses_still_frees_the_page_and_is_reported():
    log = run_worker(
        "dedicated",
        """page({type: 'frame', location: at('')}); await tick();
        page({type: 'patch', patch: 'bad'});""",
    )
    assert log[-2:] == [["page", "idle"], ["page", "runtime-error", "patch: Error: a bad patch"]]


def test_the_shared_worker_keeps_each_frames_messages_to_its_document():
    log = run_worker(
        "shared",
        """const one = port('one'), two = port('two'), control = port('control');
        scope.onconnect({ports: [control]});
        control.onmessage({data: {type: 'frame', location: at('?pos=1')}, ports: [one]});
        const control2 = port('control2');
        scope.onconnect({ports: [control2]});
        control2.onmessage({data: {type: 'frame', location: at('?pos=2')}, ports: [two]});
        await tick();
        two.onmessage({data: {type: 'patch', patch: 'to two'}});
        control.onmessage({data: {type: 'bye'}, ports: []});""",
    )
    assert ["build", 1, "?pos=1"] in log and ["build", 2, "?pos=2"] in log
    assert ["one", "render"] in log and ["two", "render"] in log
    assert (
        log.index(["two", "render"])
        < log.index(["patch", 2, "to two"])
        < log.index(["two", "idle"])
    )
    # The goodbye closes the frame's port at once, and its document after what was queued.
    assert log[-1] == ["close", 1] and ["closed", "one"] in log
    # The phases went to both frames; the one that came later heard the latest at once.
    assert ["two", "status", "imports", "Importing Panel and the app"] in log


def test_the_relay_passes_messages_both_ways_and_runs_python_if_the_shared_worker_fails():
    log = run_worker(
        "relay",
        """const shared = port('shared');
        page({type: 'relay-port'}, [shared]);
        page({type: 'patch', patch: 'relayed'});
        shared.onmessage({data: {type: 'idle'}});
        page({type: 'own-runtime', location: at('?pos=7')});""",
    )
    assert log[:3] == [["shared", "patch"], ["page", "idle"], ["closed", "shared"]]
    assert ["build", 1, "?pos=7"] in log and ["page", "render"] in log

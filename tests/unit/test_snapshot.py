"""The boot from a memory snapshot of Python's core (static/snapshot.js, run by static/worker.js)
under node, with a stand-in for Pyodide and an in-memory Cache Storage that outlives each visit:
the snapshot is made on a cold boot and stored only once the page has rendered, the next visit
boots from it, and every failure (corrupt, stale, the private API changed, a restore that
throws) boots Python cold, with no console error.
The real thing: tests/pyodide/test_pyodide_snapshot.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# Each visit runs static/worker.js afresh as a dedicated worker in a node vm context; the
# caches (CacheStorage-like, with node's Response) are kept between visits. `visit(options)`
# plays a page: its frame, then (once rendered) `rendered`, and returns what happened, in order.
# The stand-in Pyodide: a snapshot is the bytes of SNAPSHOT; a restore of other bytes throws,
# as Pyodide's check of its magic number does.
NODE_DRIVER = r"""
const vm = require('vm');
const fs = require('fs');
const path = require('path');
const [root, script] = process.argv.slice(1);
const SNAPSHOT = new Uint8Array(4096).map((_, i) => (i * 7) % 251);

class MemoryCache {
  constructor() { this.entries = new Map(); }
  async match(url) {
    const entry = this.entries.get(url);
    return entry ? new Response(entry.body.slice(), {headers: entry.headers}) : undefined;
  }
  async put(url, response) {
    const body = new Uint8Array(await response.arrayBuffer());
    this.entries.set(url, {body, headers: Object.fromEntries(response.headers)});
  }
}
const stores = new Map();
const caches = {
  async open(name) {
    if (!stores.has(name)) stores.set(name, new MemoryCache());
    return stores.get(name);
  },
  async keys() { return [...stores.keys()]; },
  async delete(name) { return stores.delete(name); },
};

function standIn(log, variant) {
  let instances = 0;
  return async (options) => {
    const id = ++instances;
    const call = {instance: id, make: Boolean(options._makeSnapshot),
      restore: Boolean(options._loadSnapshot), packages: options.packages || []};
    log.push(['loadPyodide', call]);
    if (options._loadSnapshot && variant !== 'ignores-private-api') {
      const bytes = await options._loadSnapshot;
      if (bytes.length !== SNAPSHOT.length || bytes.some((b, i) => b !== SNAPSHOT[i])) {
        throw new Error('Snapshot has invalid magic number');
      }
      if (variant === 'restore-throws') throw new Error('Snapshot build id mismatch');
    }
    const python = {
      prepare() {
        if (variant === 'imports-fail-after-restore' && call.restore) {
          throw new Error('ImportError: bad local file header');
        }
        log.push(['prepare', id]);
      },
      async build(frame) {
        log.push(['build', id, frame]);
        return {toJs: () => ['{}', '[{}]', '[]'], destroy() {}};
      },
      rendered(frame) { log.push(['rendered', id, frame]); },
    };
    const pyodide = {
      pyimport: () => python,
      async loadPackage(names) { log.push(['loadPackage', id, names]); },
    };
    if (options._makeSnapshot && variant !== 'ignores-private-api') {
      pyodide.makeMemorySnapshot = () => SNAPSHOT.slice();
    }
    return pyodide;
  };
}

async function visit({key = 'v1', variant = 'current', noCaches = false} = {}) {
  const log = [];
  const record = (kind) => (...args) => log.push([kind, args.map(String).join(' ')]);
  const scope = {
    name: '', location: new URL('https://x.org/pe/app.js'),
    console: {log() {}, info: record('info'), warn: record('warn'), error: record('error')},
    URL, Response, setTimeout, Promise, performance, crypto: globalThis.crypto,
    caches: noCaches ? undefined : caches,
    postMessage(message) { log.push(['page', message.type]); },
    importScripts(...names) {
      for (const name of names) {
        if (name === 'worker-config.js') {
          scope.PE_WORKER_CONFIG = {pyodide: 'runtime/pyodide.js', runtime: 'runtime/',
            lockFile: 'runtime/pe-lock.json', packages: ['numpy', 'panel'],
            env: {PANEL_CDN_ROOT: 'cdn/'}, snapshotKey: key};
        } else if (name === 'runtime/pyodide.js') {
          scope.loadPyodide = standIn(log, variant);
        } else {
          vm.runInContext(fs.readFileSync(path.join(root, name), 'utf8'), scope, {filename: name});
        }
      }
    },
  };
  scope.self = scope;
  vm.createContext(scope);
  vm.runInContext(fs.readFileSync(path.join(root, 'static/worker.js'), 'utf8'), scope);
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
  scope.onmessage({data: {type: 'frame', location: JSON.stringify({search: ''})}});
  const rendered = () => log.some(([kind, type]) => kind === 'page' && type === 'render');
  for (let i = 0; i < 10 && !rendered(); i++) await tick();
  log.push(['stored before rendered', await storedNames()]);
  scope.onmessage({data: {type: 'rendered'}});
  for (let i = 0; i < 5; i++) await tick();
  log.push(['stored', await storedNames()]);
  return log;
}

async function storedNames() {
  const names = [];
  for (const [name, cache] of stores) if (cache.entries.size) names.push(name);
  return names.sort();
}

function corrupt() {
  for (const cache of stores.values()) {
    for (const entry of cache.entries.values()) entry.body[100] ^= 0xff;
  }
}

(async () => {
  const visits = await new Function('visit', 'corrupt', `return (async () => {${script}})()`)(
    visit, corrupt);
  console.log(JSON.stringify(visits));
})();
"""


def visits(script: str) -> list[list]:
    """What each visit of `script` (JS returning a list of visit logs) did, in order."""
    node = shutil.which("node")
    assert node, "node is needed by the build (scripts/compile_wheels.py)"
    run = subprocess.run(
        [node, "-e", NODE_DRIVER, str(REPO_ROOT), script],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def boots(log: list) -> list[dict]:
    return [entry[1] for entry in log if entry[0] == "loadPyodide"]


def said(log: list) -> str:
    """Every console.info line of the visit; no visit may log a warning or an error."""
    assert [entry for entry in log if entry[0] in ("warn", "error")] == []
    return "\n".join(entry[1] for entry in log if entry[0] == "info")


def rendered_by(log: list) -> set[int]:
    """The interpreters that built and rendered the page."""
    return {entry[1] for entry in log if entry[0] in ("build", "rendered")}


PACKAGES = ["numpy", "panel"]
NAME = "pe-snapshot-v1"


def test_a_first_visit_snapshots_the_core_before_the_packages_and_stores_it_after_rendering():
    (first,) = visits("return [await visit()];")
    # The instance that made the snapshot is left; Python runs in one restored from it.
    assert boots(first) == [
        {"instance": 1, "make": True, "restore": False, "packages": []},
        {"instance": 2, "make": False, "restore": True, "packages": PACKAGES},
    ]
    assert rendered_by(first) == {2} and ["prepare", 1] not in first
    assert ["stored before rendered", []] in first
    assert first[-1] == ["stored", [NAME]]
    assert "cold boot: no snapshot yet" in said(first)


def test_the_next_visit_boots_from_the_snapshot_with_the_packages():
    _, second = visits("return [await visit(), await visit()];")
    assert boots(second) == [{"instance": 1, "make": False, "restore": True, "packages": PACKAGES}]
    assert rendered_by(second) == {1}
    assert "booted from snapshot" in said(second)


def test_a_corrupt_snapshot_boots_a_fresh_interpreter_cold_and_is_replaced():
    _, after_corruption, next_visit = visits(
        "const logs = [await visit()]; corrupt(); logs.push(await visit(), await visit());"
        "return logs;"
    )
    assert boots(after_corruption) == [
        {"instance": 1, "make": False, "restore": True, "packages": PACKAGES},
        {"instance": 2, "make": True, "restore": False, "packages": []},
        {"instance": 3, "make": False, "restore": True, "packages": PACKAGES},
    ]
    assert rendered_by(after_corruption) == {3}
    assert "the stored snapshot is corrupt" in said(after_corruption)
    assert after_corruption[-1] == ["stored", [NAME]]
    assert [boot["restore"] for boot in boots(next_visit)] == [True]


def test_a_stale_snapshot_is_not_used_and_its_cache_is_deleted_for_the_new_one():
    _, new_build = visits("return [await visit({key: 'v1'}), await visit({key: 'v2'})];")
    assert [boot["make"] for boot in boots(new_build)] == [True, False]
    assert ["stored before rendered", [NAME]] in new_build
    assert new_build[-1] == ["stored", ["pe-snapshot-v2"]]


def test_a_pyodide_without_the_private_api_boots_as_before():
    first, second = visits(
        "return [await visit({variant: 'ignores-private-api'}),"
        " await visit({variant: 'ignores-private-api'})];"
    )
    assert "cannot make memory snapshots" in said(first)
    assert first[-1] == ["stored", []]
    for log in (first, second):
        assert len(boots(log)) == 1 and rendered_by(log) == {1}
        assert ["loadPackage", 1, PACKAGES] in log
        assert ["page", "render"] in log


@pytest.mark.parametrize("variant", ["restore-throws", "imports-fail-after-restore"])
def test_a_restore_that_fails_boots_a_second_interpreter_and_turns_snapshots_off(variant):
    _, failed, later = visits(
        f"return [await visit(), await visit({{variant: '{variant}'}}),"
        f" await visit({{variant: '{variant}'}})];"
    )
    assert boots(failed) == [
        {"instance": 1, "make": False, "restore": True, "packages": PACKAGES},
        {"instance": 2, "make": False, "restore": False, "packages": PACKAGES},
    ]
    assert rendered_by(failed) == {2} and ["prepare", 1] not in failed
    assert "the snapshot failed" in said(failed)
    # This build's snapshot is not tried again.
    assert boots(later) == [{"instance": 1, "make": False, "restore": False, "packages": PACKAGES}]
    assert "snapshots are off for this build" in said(later)


def test_without_cache_storage_python_boots_as_before():
    (log,) = visits("return [await visit({noCaches: true})];")
    assert boots(log) == [{"instance": 1, "make": False, "restore": False, "packages": PACKAGES}]
    assert rendered_by(log) == {1}
    assert "no Cache Storage here" in said(log)

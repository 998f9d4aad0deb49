// A return visit from a memory snapshot of Python's core (issue 34): static/worker.js boots
// Pyodide through PE_SNAPSHOT.boot, which restores the snapshot a first visit kept in Cache
// Storage, or boots cold, takes one and keeps it once the page has rendered (PE_SNAPSHOT.keep).
//
// Pyodide's private API, used here and nowhere else: loadPyodide's `_makeSnapshot` and
// `_loadSnapshot` options and `pyodide.makeMemorySnapshot()` (Pyodide 0.29.3). A snapshot holds
// only the core, taken before any package loads: Pyodide cannot snapshot package state yet
// (https://github.com/pyodide/pyodide/issues/6418, https://github.com/pyodide/pyodide/issues/5195,
// https://github.com/pyodide/pyodide/issues/5729), so the packages load after it, either way.
// Any failure (no Cache Storage, a missing, corrupt or stale snapshot, the private API changed or
// gone) boots Python as before, saying why in one console.info line; never a console error.
((scope) => {
  'use strict';

  // Caches named by the Pyodide version and the build's snapshot key (worker-config.js); the
  // service worker's own are pe-explorer-*, which it deletes.
  const PREFIX = 'pe-snapshot-';
  const HEADER = 'x-pe-snapshot';  // what the bytes are for: {identity, length, sha256}
  const ENTRY = new URL('pe-core-snapshot', scope.location).href;

  // The snapshot this boot made: stored once the page has rendered, off the critical path.
  let made = null;

  function say(text) {
    console.info(`Python: ${text}`);
  }

  function ms(since) {
    return `${Math.round(performance.now() - since)} ms`;
  }

  // A snapshot that must not be used; the cold boot after it makes a new one.
  class Unusable extends Error {}

  async function sha256(bytes) {
    const digest = new Uint8Array(await scope.crypto.subtle.digest('SHA-256', bytes));
    return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  }

  // What the snapshot depends on beyond the runtime's files (the key): os.environ is in it.
  function identityOf(key, options) {
    return JSON.stringify({key, env: options.env || {}});
  }

  // The stored snapshot's bytes, once their length and checksum are right.
  async function verified(response, header) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length !== header.length || (await sha256(bytes)) !== header.sha256) {
      throw new Unusable('the stored snapshot is corrupt');
    }
    return bytes;
  }

  async function lookup(cache, identity) {
    const response = await cache.match(ENTRY);
    if (!response) return {reason: 'no snapshot yet'};
    let header;
    try {
      header = JSON.parse(response.headers.get(HEADER));
    } catch {
      header = null;
    }
    if (!header || header.identity !== identity) {
      return {reason: 'the stored snapshot is stale or corrupt'};
    }
    if (header.disabled) return {disabled: header.disabled};
    return {response, header};
  }

  // A snapshot that failed to boot although intact: not tried again for this build.
  async function disable(cache, identity, error) {
    const header = JSON.stringify({identity, disabled: `${error}`.slice(0, 200)});
    try {
      await cache.put(ENTRY, new Response('', {headers: {[HEADER]: header}}));
    } catch {
      // Next visit tries the snapshot again.
    }
  }

  // Boot cold with the private option and snapshot the core before any package. That instance
  // is not for use (its JS globals are wrapped to record what Python took from them; Panel's
  // start-up fails there, and upstream says as much in #5729): Python runs in a second one,
  // restored from the snapshot as a return visit's is, which checks the snapshot too.
  async function bootAndSnapshot(loadPyodide, options, key, identity) {
    const {packages, ...core} = options;
    const maker = await loadPyodide({...core, _makeSnapshot: true});
    if (typeof maker.makeMemorySnapshot !== 'function') {
      say('this Pyodide cannot make memory snapshots; none kept');
      return maker.loadPackage(packages, {messageCallback() {}}).then(() => maker);
    }
    const started = performance.now();
    let bytes;
    try {
      bytes = maker.makeMemorySnapshot();
    } catch (error) {
      say(`no snapshot made (${error.message || error})`);
      return loadPyodide(options);
    }
    try {
      const pyodide = await loadPyodide({...options, _loadSnapshot: bytes});
      made = {bytes, key, identity};
      say(`snapshot of the core made and restored in ${ms(started)}; kept once rendered`);
      return pyodide;
    } catch (error) {
      say(`the snapshot just made does not restore (${error.message || error}); none kept`);
      return loadPyodide(options);
    }
  }

  // Boot Pyodide with options ({lockFileURL, packages, env}), then start(pyodide), which
  // imports the app and returns what the worker keeps. From the snapshot if there is a good
  // one; else (or should that boot fail anywhere) a fresh interpreter, cold.
  async function boot(loadPyodide, options, key, start) {
    const started = performance.now();
    const identity = identityOf(key, options);
    let cache = null;
    let reason;
    try {
      if (!key) throw new Error('the build gave no snapshot key');
      cache = await scope.caches.open(PREFIX + key);
      const found = await lookup(cache, identity);
      if (found.disabled) {
        reason = `snapshots are off for this build (${found.disabled})`;
        cache = null;
      } else if (found.response) {
        const snapshot = verified(found.response, found.header);
        snapshot.catch(() => {});  // a Pyodide that ignores the option never reads it
        try {
          const pyodide = await loadPyodide({...options, _loadSnapshot: snapshot});
          const result = await start(pyodide);
          say(`booted from snapshot: Python and packages ready in ${ms(started)}`);
          return result;
        } catch (error) {
          if (!(error instanceof Unusable)) {
            await disable(cache, identity, error);
            cache = null;
          }
          reason = `the snapshot failed (${error.message || error})`;
        }
      } else {
        reason = found.reason;
      }
    } catch (error) {
      reason = `no Cache Storage here (${error.message || error})`;
      cache = null;
    }
    say(`cold boot: ${reason}`);
    // A new interpreter: nothing of a failed restore is reused.
    const pyodide = cache
      ? await bootAndSnapshot(loadPyodide, options, key, identity)
      : await loadPyodide(options);
    const result = await start(pyodide);
    say(`cold boot: Python and packages ready in ${ms(started)}`);
    return result;
  }

  // Once the page has rendered: store the snapshot this boot made (if any), replacing any
  // other build's.
  async function keep() {
    if (!made) return;
    const {bytes, key, identity} = made;
    made = null;
    const started = performance.now();
    try {
      const header = JSON.stringify({identity, length: bytes.length, sha256: await sha256(bytes)});
      for (const name of await scope.caches.keys()) {
        if (name.startsWith(PREFIX) && name !== PREFIX + key) await scope.caches.delete(name);
      }
      const cache = await scope.caches.open(PREFIX + key);
      await cache.put(ENTRY, new Response(bytes, {headers: {[HEADER]: header}}));
      say(`snapshot stored (${(bytes.length / 2 ** 20).toFixed(1)} MiB) in ${ms(started)}`);
    } catch (error) {
      say(`snapshot not stored (${error.message || error})`);
    }
  }

  scope.PE_SNAPSHOT = Object.freeze({boot, keep});
})(self);

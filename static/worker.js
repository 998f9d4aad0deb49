// One Python runtime for every frame of the site (issue 21): the page of each frame, or of
// each tab, connects to this shared worker instead of starting Pyodide in a Web Worker of its
// own. The runtime and the packages load once; each frame gets a document of its own
// (components/worker.py), built by the same code Panel's worker runs.
// scripts/shared_runtime.py writes this file as the site's app-shared.js, filling in
// IMPORT_PYODIDE, LOAD_RUNTIME (scripts/runtime.py's loader) and APP_CODE (Panel's).
'use strict';

__IMPORT_PYODIDE__

const APP_CODE = __APP_CODE__;

// Connected frames, by number: the port their page (through app-relay.js) talks on.
const frames = new Map();
let nextFrame = 1;
let lastStatus = null;

// What Panel's loader posts to its page goes to every frame; a frame that connects later
// hears the latest phase.
function broadcast(message) {
  if (message.type === 'status') lastStatus = message;
  for (const port of frames.values()) port.postMessage(message);
}

async function loadRuntime() {
  broadcast({type: 'status', msg: 'Loading Python and packages'});
__LOAD_RUNTIME__
  documents = self.pyodide.pyimport('pe_explorer.worker');
}
// components/worker.py, once the runtime is loaded.
let documents = null;
const runtime = loadRuntime();

// Python runs one message at a time, whichever frame sent it, so that the frame's document is
// the current one for all the message runs, and a drag's patches apply in order.
let pending = Promise.resolve();
function serial(frame, label, job) {
  const run = pending.then(job).catch((error) => {
    const text = `${error}`;
    console.error(`Shared runtime: error while handling '${label}' of frame ${frame}:`, text);
    // A shared worker's console is not the page's: the frame's page logs it (startup.js).
    const port = frames.get(frame);
    if (port) port.postMessage({type: 'runtime-error', msg: `${label}: ${text}`});
  });
  pending = run;
  return run;
}

// Apply a frame's message in Python, then tell its page, whether or not it went well.
function applyThenTell(frame, port, label, apply, reply) {
  serial(frame, label, () => {
    try {
      apply();
    } finally {
      port.postMessage({type: reply});
    }
  });
}

function sendPatchTo(port) {
  return (patch, buffers) => port.postMessage({type: 'patch', patch, buffers});
}

async function build(frame, port, href) {
  await runtime;
  port.postMessage({type: 'status', msg: 'Executing code'});
  let result;
  try {
    result = await documents.build(frame, APP_CODE, href);
  } catch (error) {
    // As Panel's worker does: the traceback's last line is the status.
    const lines = `${error}`.split('\n');
    port.postMessage({type: 'status', msg: lines[lines.length - 2]});
    throw error;
  }
  const [docs_json, render_items, root_ids] = result.toJs();
  result.destroy();
  port.postMessage({type: 'render', docs_json, render_items, root_ids});
}

function connectFrame(port, href) {
  const frame = nextFrame++;
  frames.set(frame, port);
  if (lastStatus) port.postMessage(lastStatus);
  port.onmessage = (event) => {
    const msg = event.data || {};
    if (msg.type === 'rendered') {
      serial(frame, 'rendered', () => documents.rendered(frame, sendPatchTo(port)));
    } else if (msg.type === 'patch') {
      // Only once Python applied it may the page send its next (coalesced) patch.
      applyThenTell(frame, port, 'patch', () => documents.patch(frame, msg.patch), 'idle');
    } else if (msg.type === 'location') {
      applyThenTell(frame, port, 'location', () => documents.location(frame, msg.location),
                    'location-applied');
    }
  };
  serial(frame, 'build', () => build(frame, port, href));
  return frame;
}

// Each page connects once, sending the port its frame talks on and its URL (the document is
// built at the link's state); it says goodbye when it goes, and its document is dropped.
self.onconnect = (event) => {
  const control = event.ports[0];
  let frame = null;
  control.onmessage = (message) => {
    const msg = message.data || {};
    if (msg.type === 'frame' && frame === null && message.ports.length === 1) {
      frame = connectFrame(message.ports[0], String(msg.location));
    } else if (msg.type === 'bye' && frame !== null) {
      const gone = frame;
      frames.get(gone).close();
      frames.delete(gone);
      serial(gone, 'close', () => runtime.then(() => documents.close(gone)));
    }
  };
};

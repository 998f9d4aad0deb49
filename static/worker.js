// The site's worker: Python (Pyodide) for the frames of the site. The build writes it as the
// site's app.js, which Panel's page script starts as its Web Worker; where the browser has
// shared workers, static/startup.js starts it as the site's shared worker too, and the page's
// Web Worker only relays to it. Either way the same code runs: a dedicated worker has one
// frame, the shared worker one per frame or tab of the site (issue 21), each with a document of
// its own (components/worker.py). Python runs one message at a time, in arrival order.
'use strict';

// The messages and phases (static/protocol.js); what only the build knows (worker-config.js:
// the runtime's paths and the packages of the site's lock file).
importScripts('static/protocol.js', 'worker-config.js');
const P = self.PE_PROTOCOL;
const CONFIG = self.PE_WORKER_CONFIG;

// Connected frames, by number: the port their page talks on.
const frames = new Map();
let nextFrame = 1;
let lastStatus = null;

// Start-up phases go to every frame; a frame that connects later hears the latest.
function broadcast(message) {
  if (message.type === P.STATUS) lastStatus = message;
  for (const port of frames.values()) port.postMessage(message);
}

// A phase as the page hears it: its id, and its status text for Panel's loading message.
function phase(id) {
  return {type: P.STATUS, phase: id, msg: P.PHASES.find((known) => known.id === id).status};
}

// The module pe_explorer.worker, once the runtime and the packages are loaded and imported.
let python = null;
async function loadRuntime() {
  broadcast(phase('runtime'));
  importScripts(CONFIG.pyodide);
  // Everything from this site: the runtime and every package of the lock file, at once.
  const runtime = new URL(CONFIG.runtime, self.location).href;
  const pyodide = await loadPyodide({
    lockFileURL: new URL(CONFIG.lockFile, self.location).href,
    packages: CONFIG.packages,
    env: Object.fromEntries(
      Object.entries(CONFIG.env).map(([name, path]) => [name, runtime + path])),
  });
  console.log('Loaded pyodide and packages!');
  // Imports on their own, so that the page (and the benchmark) can tell the phases apart.
  broadcast(phase('imports'));
  python = pyodide.pyimport('pe_explorer.worker');
  python.prepare();
}
let runtime = null;

// One message at a time, whichever frame sent it: the frame's document is the current one for
// all the message runs, and a drag's patches apply in order.
let pending = Promise.resolve();
function serial(frame, label, job) {
  const run = pending.then(job).catch((error) => {
    const text = `${error}`;
    console.error(`Python: error while handling '${label}' of frame ${frame}:`, text);
    // A shared worker's console is not the page's: the frame's page logs it (startup.js).
    const port = frames.get(frame);
    if (port) port.postMessage({type: P.RUNTIME_ERROR, msg: `${label}: ${text}`});
  });
  pending = run;
  return run;
}

// Python's changes to a frame's document, one patch per changed property (Panel's
// _link_docs_worker), go to its page as one message per run of Python: the page applies them in
// one task, so that no frame is painted between a chart's new drawing and the picks made for it
// (components/js/picker.js). A run is a message Python applies, or one of its own later tasks.
const outboxes = new Map();
function flushPatches(frame) {
  const outbox = outboxes.get(frame);
  if (!outbox?.length) return;
  const patches = outbox.splice(0);
  frames.get(frame)?.postMessage({type: P.PATCH, patches});
}
function patchSender(frame) {
  outboxes.set(frame, []);
  return (patch, buffers) => {
    const outbox = outboxes.get(frame);  // none once the frame has gone
    if (outbox && outbox.push({patch, buffers}) === 1) {
      Promise.resolve().then(() => flushPatches(frame));
    }
  };
}

// Apply a frame's message in Python, then tell its page, whether or not it went well: only
// once Python applied a patch may the page send its next (coalesced) one. What Python changed
// in answer goes first.
function applyThenTell(frame, port, label, apply, reply) {
  serial(frame, label, () => {
    try {
      apply();
    } finally {
      flushPatches(frame);
      port.postMessage({type: reply});
    }
  });
}

async function build(frame, port, location) {
  await runtime;
  port.postMessage(phase('build'));
  let result;
  try {
    result = await python.build(frame, location);
  } catch (error) {
    // As Panel's worker does: the traceback's last line is the status.
    const lines = `${error}`.split('\n');
    port.postMessage({type: P.STATUS, msg: lines[lines.length - 2]});
    throw error;
  }
  const [docs_json, render_items, root_ids] = result.toJs();
  result.destroy();
  port.postMessage({type: P.RENDER, docs_json, render_items, root_ids});
}

// A frame: the port its page talks on (a MessagePort, or this worker itself when it is the
// page's own) and its URL, JSON of the page's window.location.
function connectFrame(port, location) {
  if (!runtime) runtime = loadRuntime();
  const frame = nextFrame++;
  frames.set(frame, port);
  if (lastStatus) port.postMessage(lastStatus);
  const sendPatch = patchSender(frame);
  port.onmessage = (event) => {
    const msg = event.data || {};
    if (msg.type === P.RENDERED) {
      serial(frame, msg.type, () => python.rendered(frame, sendPatch));
    } else if (msg.type === P.PATCH) {
      applyThenTell(frame, port, msg.type, () => python.patch(frame, msg.patch), P.IDLE);
    } else if (msg.type === P.LOCATION) {
      applyThenTell(frame, port, msg.type, () => python.location(frame, msg.location),
                    P.LOCATION_APPLIED);
    }
  };
  serial(frame, 'build', () => build(frame, port, String(location)));
  return frame;
}

function closeFrame(frame) {
  frames.get(frame).close();
  frames.delete(frame);
  outboxes.delete(frame);
  serial(frame, 'close', () => runtime.then(() => python.close(frame)));
}

// The page's Web Worker when the shared worker runs Python: it passes messages both ways, and
// runs Python itself should the shared worker fail to start (e.g. storage blocked in a frame).
function relay() {
  let shared = null;
  self.onmessage = (event) => {
    const msg = event.data || {};
    if (msg.type === P.RELAY_PORT) {
      shared = event.ports[0];
      shared.onmessage = (message) => self.postMessage(message.data);
    } else if (msg.type === P.OWN_RUNTIME) {
      if (shared) shared.close();
      connectFrame(self, msg.location);
    } else if (shared) {
      shared.postMessage(msg);
    }
  };
}

// A shared worker's global scope has onconnect; a dedicated worker's has not.
if ('onconnect' in self) {
  runtime = loadRuntime();
  // Each page connects once, with the port its frame talks on and its URL; it says goodbye
  // when it goes, and its document is dropped.
  self.onconnect = (event) => {
    const control = event.ports[0];
    let frame = null;
    control.onmessage = (message) => {
      const msg = message.data || {};
      if (msg.type === P.FRAME && frame === null && message.ports.length === 1) {
        frame = connectFrame(message.ports[0], msg.location);
      } else if (msg.type === P.BYE && frame !== null) {
        closeFrame(frame);
      }
    };
  };
} else if (self.name === P.RELAY_NAME) {
  relay();
} else {
  // The page's own Python: the runtime loads at once; its page's first message is its frame.
  runtime = loadRuntime();
  self.onmessage = (event) => {
    const msg = event.data || {};
    if (msg.type === P.FRAME) connectFrame(self, msg.location);
  };
}

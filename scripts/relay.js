// A page's Web Worker, as Panel's page script expects one, that relays to the site's shared
// runtime (app-shared.js, scripts/shared-worker.js); the build writes it as app-relay.js.
// static/startup.js starts it and hands it the port its page has there. Panel's page code, and
// anything that watches the page's worker, see an ordinary Worker; Python runs once for all.
'use strict';

let runtime = null;
self.onmessage = (event) => {
  const msg = event.data || {};
  if (msg.type === 'pe-shared-runtime') {
    // The first message: the port (static/startup.js sends it before any other).
    runtime = event.ports[0];
    runtime.onmessage = (message) => self.postMessage(message.data);
  } else if (msg.type === 'pe-own-runtime') {
    // The shared worker could not start (e.g. a frame whose storage is blocked): this worker
    // becomes Panel's own, which replaces this handler and starts Python here.
    if (runtime) runtime.close();
    runtime = null;
    importScripts('app.js');
  } else if (runtime) {
    runtime.postMessage(event.data);
  }
};

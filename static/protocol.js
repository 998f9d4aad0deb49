// The messages between the page, its Web Worker and the site's shared worker, and the phases of
// start-up, in one place: static/worker.js imports it, and the page loads it before
// static/startup.js. Panel's own page script (inline in index.html) keeps its literal names,
// which these repeat: render, rendered, patch, idle, location, status.
((scope) => {
  'use strict';
  scope.PE_PROTOCOL = Object.freeze({
    // Worker -> page.
    RENDER: 'render',  // the frame's document, built at the link's state
    // Changes Python made in one run ({patches: [{patch, buffers}]}); page -> worker, one the
    // visitor made ({patch}).
    PATCH: 'patch',
    IDLE: 'idle',  // Python applied the page's patch: the page may send its next one
    STATUS: 'status',  // a start-up phase ({phase, msg}), or the error that stopped it ({msg})
    LOCATION_APPLIED: 'location-applied',  // the page's URL has reached Python
    RUNTIME_ERROR: 'runtime-error',  // Python failed on a message (the page logs it)
    // Page -> worker.
    FRAME: 'frame',  // a frame's first message, with its URL ({location}) and port
    RENDERED: 'rendered',  // the page embedded the document: send its changes
    LOCATION: 'location',  // the page's URL ({location}, JSON of window.location)
    BYE: 'bye',  // the frame's page went away
    // Page -> its Web Worker when that worker relays to the shared worker.
    RELAY_PORT: 'relay-port',  // the port to the shared worker
    OWN_RUNTIME: 'own-runtime',  // the shared worker failed: run Python here ({location})
    // The Web Worker's name when it relays.
    RELAY_NAME: 'pe-relay',
    // Start-up, in order: `status` is what the worker posts as Panel's loading message (and what
    // benchmarks/pyodide_site.py times), `text` is the line the page shows.
    PHASES: Object.freeze([
      {id: 'runtime', status: 'Loading Python and packages',
       text: 'Downloading and starting Python with NumPy, Bokeh and Panel'},
      {id: 'imports', status: 'Importing Panel and the app',
       text: 'Importing Panel and the explorer'},
      {id: 'build', status: 'Executing code', text: 'Building the views'},
    ]),
    READY_TEXT: 'Ready: every control works',
  });
})(self);

// While Python starts in the Web Worker: show what the link asks for (the prerendered page
// shows the default state, so another state gets the frames and titles of its views, with no
// numbers), say which phase start-up is in, keep what the visitor does with the controls
// meanwhile and hand it to Python once it is ready, and, once the page is interactive, let the
// service worker (if the build has one) keep every file for next time.
(function () {
  'use strict';
  if (window.location.protocol === 'file:') return;  // static/file-protocol.js explains

  // Facts written at build time (scripts/postprocess_site.py: pe_explorer.ui.page).
  const factsElement = document.getElementById('pe-before-python');
  const facts = factsElement ? JSON.parse(factsElement.textContent) : null;

  // The theme: the link's, else the visitor's last choice with the toggle (components/ui/urlsync.py
  // stores it), else the system's. One other than the default goes into the link before Python
  // reads it, so the page before Python and the page Python draws are in it from the start.
  const THEME_KEY = 'pe-explorer-theme';
  function storedTheme() {
    try {
      return window.localStorage.getItem(THEME_KEY);
    } catch (error) {
      return null;  // storage blocked (a sandboxed frame, a privacy setting)
    }
  }
  function chooseTheme() {
    const params = new URLSearchParams(window.location.search);
    const known = (name) => Object.prototype.hasOwnProperty.call(facts.themes, name);
    if (params.has('theme')) return params.get('theme');  // Python checks and reports it
    const stored = storedTheme();
    if (known(stored)) return stored;
    const dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
    const theme = dark ? 'dark' : 'light';
    if (theme !== facts.defaults.theme) {
      params.set('theme', theme);
      try {
        const url = `${window.location.pathname}?${params}${window.location.hash}`;
        window.history.replaceState(window.history.state, '', url);
      } catch (error) {
        return facts.defaults.theme;  // the link cannot say it, so Python will not draw it
      }
    }
    return theme;
  }
  if (facts) {
    const theme = chooseTheme();
    document.documentElement.setAttribute('data-pe-theme', facts.themes[theme] ? theme : 'light');
  }

  // What the link asks for: the prerendered page, or the frames of one view or of all.
  function requested() {
    const params = new URLSearchParams(window.location.search);
    const value = (key) => (params.has(key) ? params.get(key) : facts.defaults[key]);
    const prerendered = [...params].every(([key, v]) => facts.defaults[key] === v);
    const view = facts.views.find((spec) => spec.name === value('view')) || null;
    return {
      prerendered,
      view,
      embed: view !== null && facts.true_words.includes(String(value('embed')).toLowerCase()),
      theme: facts.themes[value('theme')] || facts.themes[facts.defaults.theme],
    };
  }

  let placeholder = null;
  function drawRequestedFrames(ask) {
    const colours = ask.theme;
    placeholder = document.createElement('div');
    placeholder.className = 'pe-before-python';
    placeholder.setAttribute('aria-busy', 'true');
    Object.assign(placeholder.style, {
      minHeight: ask.embed ? '0' : '100vh', boxSizing: 'border-box', padding: ask.embed ? '4px' : '8px 18px',
      background: colours.paper, color: colours.text, font: '15px/1.5 system-ui, sans-serif',
    });
    if (!ask.embed) {
      const heading = document.createElement('h1');
      heading.textContent = facts.title;
      heading.style.margin = '0.3em 0';
      placeholder.appendChild(heading);
    }
    const cards = document.createElement('div');
    Object.assign(cards.style, {display: 'flex', flexWrap: 'wrap', gap: '14px'});
    for (const spec of ask.view ? [ask.view] : facts.views) {
      const card = document.createElement('section');
      card.className = `pe-before-python-${spec.name}`;
      Object.assign(card.style, {
        flex: '1 1 520px', minWidth: '0', boxSizing: 'border-box', padding: '8px 12px',
        border: `1px solid ${colours.grid}`, borderRadius: '8px', background: colours.paper,
        height: `${ask.embed ? spec.embed_height - 16 : spec.height}px`,
      });
      const title = document.createElement('h2');
      title.textContent = spec.title;
      title.style.margin = '0 0 0.4em';
      const note = document.createElement('p');
      note.textContent = 'Drawn for the settings in this link as soon as Python has started…';
      note.style.opacity = '0.75';
      card.append(title, note);
      cards.appendChild(card);
    }
    placeholder.appendChild(cards);
    // Over the page Python draws, which stays hidden until it shows the link's state.
    Object.assign(placeholder.style, {position: 'absolute', top: '0', left: '0', right: '0',
                                      zIndex: '5'});
    document.body.prepend(placeholder);
  }
  // The page Python draws stays hidden until it shows the link's state; so does the page's
  // first paint (the default state's header and matrix, components/ui/page.py), from the start.
  let hider = null;
  function hideRoots() {
    hider = document.createElement('style');
    hider.textContent = '[data-root-id] { visibility: hidden; }';
    document.head.appendChild(hider);
  }
  function showPythonsPage() {
    if (hider) hider.remove();
    if (placeholder) placeholder.remove();
    hider = placeholder = null;
  }

  // The prerendered page shows the default state. For any other link it is not embedded at
  // all: Panel's page script embeds it with the first call of Bokeh.embed.embed_items, and
  // the worker's render makes the next one.
  let prerenderSkipped = false;
  if (facts) {
    const ask = requested();
    if (!ask.prerendered) {
      prerenderSkipped = true;
      hideRoots();
      // Drawn once the page is parsed, before Panel's deferred scripts run.
      const draw = () => {
        if (!cannot) drawRequestedFrames(ask);
      };
      if (document.readyState === 'loading') {
        document.addEventListener('readystatechange', draw, {once: true});
      } else {
        draw();
      }
      document.addEventListener('DOMContentLoaded', () => {
        const embed = window.Bokeh && window.Bokeh.embed;
        if (!embed) return;
        const embedItems = embed.embed_items;
        embed.embed_items = () => {
          embed.embed_items = embedItems;
          return Promise.resolve([[]]);
        };
      }, {once: true});
    }
  }

  // The worker's status messages (Panel's, and those of scripts/runtime.py's loader).
  const PHASES = [
    ['Loading Python and packages', 'Downloading and starting Python with NumPy, Bokeh and Panel'],
    ['Importing Panel and the app', 'Importing Panel and the explorer'],
    ['Executing code', 'Building the views'],
  ];

  let panel = null;
  function showPhase(message) {
    const current = PHASES.findIndex(([status]) => message.startsWith(status));
    if (current < 0) return;
    if (!document.body) {
      document.addEventListener('DOMContentLoaded', () => showPhase(message), {once: true});
      return;
    }
    if (panel === null) {
      panel = document.createElement('div');
      panel.className = 'pe-startup';
      panel.setAttribute('role', 'status');
      panel.setAttribute('aria-live', 'polite');
      Object.assign(panel.style, {
        position: 'fixed', bottom: '12px', left: '12px', zIndex: 10000, maxWidth: '22em',
        padding: '0.6em 0.9em', borderRadius: '6px', font: '14px/1.4 system-ui, sans-serif',
        background: '#1f2328', color: '#ffffff', boxShadow: '0 2px 8px rgba(0,0,0,0.3)',
      });
      document.body.appendChild(panel);
    }
    panel.replaceChildren();
    const title = document.createElement('strong');
    title.textContent = `Starting the explorer (${current + 1} of ${PHASES.length + 1})`;
    panel.appendChild(title);
    PHASES.concat([['', 'Ready: every control works']]).forEach(([, text], index) => {
      const line = document.createElement('div');
      line.textContent = `${index < current ? '✓' : index === current ? '…' : '·'} ${text}`;
      if (index === current) line.style.fontWeight = '600';
      panel.appendChild(line);
    });
  }

  // The prerendered controls the visitor moved, by the control's CSS class.
  const pending = new Map();
  function controlClass(model) {
    const classes = (model && model.css_classes) || [];
    return classes.find((name) => name.startsWith('pe-control-'));
  }
  let prerendered = null;
  const loaded = performance.now();
  (function recordStartupInput() {
    if (prerenderSkipped) return;
    // The prerendered page's document, once Bokeh has embedded it.
    const doc = window.Bokeh && window.Bokeh.documents && window.Bokeh.documents[0];
    if (!doc) {
      if (performance.now() - loaded < 60000) setTimeout(recordStartupInput, 50);
      return;
    }
    prerendered = doc;
    doc.on_change((event) => {
      const name = controlClass(event.model);
      // The model itself: its value when Python is ready is the visitor's last one.
      if (prerendered === doc && name && event.attr === 'value') pending.set(name, event.model);
    }, false);
  })();
  function replayStartupInput(worker) {
    if (!pending.size) return;
    const doc = worker.jsdoc;
    for (const model of doc.all_models) {
      const name = controlClass(model);
      if (name && pending.has(name) && 'value' in model) model.value = pending.get(name).value;
    }
    pending.clear();
  }

  // A frame sandboxed without allow-same-origin, or with storage blocked, may forbid even
  // reading navigator.serviceWorker; the page works the same without it.
  function serviceWorkers() {
    try {
      return navigator.serviceWorker || null;
    } catch (error) {
      return null;
    }
  }

  function cacheForNextVisit() {
    const workers = serviceWorkers();
    if (!workers || !workers.controller) return;
    const urls = performance.getEntriesByType('resource').map((entry) => entry.name);
    workers.controller.postMessage({type: 'cache-files', urls});
  }

  const serviceWorker = document.querySelector('meta[name="pe-service-worker"]');
  const workers = serviceWorker ? serviceWorkers() : null;
  if (workers) {
    workers.register(serviceWorker.content).catch(() => {
      // A private window may refuse it; the page works the same.
    });
  }

  // Python runs in a Web Worker, which a frame sandboxed without allow-same-origin cannot
  // start (its origin is opaque: Panel #4163). Say so, and what the host page can do, rather
  // than leave Panel's spinner turning.
  let cannot = false;
  function cannotStart() {
    cannot = true;
    const show = () => {
      if (placeholder) showPythonsPage();
      if (panel) panel.remove();
      document.body.classList.remove('pn-loading');
      const box = document.createElement('div');
      box.className = 'pe-cannot-start';
      box.setAttribute('role', 'alert');
      Object.assign(box.style, {
        margin: '16px', padding: '0.8em 1em', border: '1px solid #b45309', borderRadius: '8px',
        background: '#fffbeb', color: '#78350f', font: '15px/1.5 system-ui, sans-serif',
        position: 'relative', zIndex: '10',
      });
      const title = document.createElement('strong');
      title.textContent = 'The Positional Encoding Explorer cannot start in this frame.';
      const why = document.createElement('p');
      why.textContent = 'It runs Python in a Web Worker, which a frame sandboxed without the ' +
        'allow-same-origin flag may not start. The page that embeds it can allow it with ' +
        'sandbox="allow-scripts allow-same-origin", or leave the sandbox attribute out.';
      box.append(title, why);
      document.body.prepend(box);
    };
    if (document.body) show();
    else document.addEventListener('DOMContentLoaded', show, {once: true});
  }

  function watch(worker) {
    worker.addEventListener('message', (event) => {
      const msg = event.data || {};
      if (msg.type === 'status') showPhase(String(msg.msg));
      // The shared runtime's console is not the page's (scripts/shared-worker.js).
      if (msg.type === 'runtime-error') console.error(`Python: ${msg.msg}`);
      // Python has drawn the state of the link (components/fixes/pyodide_worker.py); let
      // Bokeh lay the changes out first.
      if (msg.type === 'location-applied') {
        requestAnimationFrame(() => requestAnimationFrame(showPythonsPage));
      }
      if (msg.type !== 'render') return;
      prerendered = null;  // what Panel now embeds is Python's document
      if (panel) panel.remove();
      // Panel's handler embeds the new document, then tells the worker the page's location;
      // the visitor's start-up input goes after both, as ordinary changes.
      const started = performance.now();
      (function replayWhenLinked() {
        if (worker.jsdoc) {
          setTimeout(showPythonsPage, 15000);  // should the URL never reach Python
          replayStartupInput(worker);
          setTimeout(cacheForNextVisit, 1000);
        } else if (performance.now() - started < 60000) {
          setTimeout(replayWhenLinked, 20);
        }
      })();
    });
  }

  // One Python for every frame and tab of the site, where the browser has shared workers
  // (app-shared.js, scripts/shared-worker.js): three embeds on a course page start one
  // runtime, not three. The page's Web Worker only relays (app-relay.js, scripts/relay.js).
  const sharedRuntime = document.querySelector('meta[name="pe-shared-runtime"]');
  function connectSharedRuntime() {
    if (!sharedRuntime || typeof SharedWorker !== 'function') return null;
    const build = serviceWorker ? serviceWorker.dataset.build : '';
    try {
      const shared = new SharedWorker(sharedRuntime.content, {name: `pe-explorer-${build}`});
      const channel = new MessageChannel();
      // With the page's URL: the runtime builds the page the link asks for at once.
      const location = JSON.stringify(window.location);
      shared.port.postMessage({type: 'frame', location}, [channel.port1]);
      window.addEventListener('pagehide', (event) => {
        if (!event.persisted) shared.port.postMessage({type: 'bye'});
      });
      return {shared, port: channel.port2};
    } catch (error) {
      return null;  // e.g. an opaque origin; Panel's own worker is tried (and reported below)
    }
  }

  // Panel's page script creates the worker as the body is parsed, before Panel's deferred
  // scripts run (scripts/postprocess_site.py): Python starts while they load and draw the
  // prerendered page. Listen to it alongside Panel's own handler.
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url, ...rest) {
      const connection = connectSharedRuntime();
      let started = true;
      try {
        super(connection ? sharedRuntime.dataset.relay : url, ...rest);
      } catch (error) {
        started = false;
      }
      if (!started) {
        cannotStart();
        // What Panel's page script uses of its worker, doing nothing: no uncaught error.
        return {postMessage() {}, addEventListener() {}, terminate() {}};
      }
      if (connection) {
        // The relay's first message: its page's port to the shared runtime. Should the shared
        // worker fail to start, the relay runs Panel's own worker instead.
        const post = (message, transfer) => NativeWorker.prototype.postMessage.call(this, message, transfer);
        post({type: 'pe-shared-runtime'}, [connection.port]);
        connection.shared.addEventListener('error', () => post({type: 'pe-own-runtime'}, []));
      }
      watch(this);
    }
  };
})();

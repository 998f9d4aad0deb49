// While Python starts in the Web Worker: show what the link asks for (the prerendered page
// shows the default state, so another state gets the frames and titles of its views, with no
// numbers), say which phase start-up is in, keep what the visitor does with the controls
// meanwhile and hand it to Python once it is ready, and, once the page is interactive, let the
// service worker (if the build has one) keep every file for next time.
(() => {
  'use strict';
  if (window.location.protocol === 'file:') return;  // static/file-protocol.js explains

  // Facts written at build time (scripts/panel_output.py: pe_explorer.ui.page).
  const factsElement = document.getElementById('pe-before-python');
  const facts = factsElement ? JSON.parse(factsElement.textContent) : null;

  // The theme: the link's, else the visitor's last choice with the toggle (components/ui/urlsync.py
  // stores it), else the system's. One other than the default goes into the link before Python
  // reads it, so the page before Python and the page Python draws are in it from the start.
  const THEME_KEY = 'pe-explorer-theme';
  function storedTheme() {
    try {
      return window.localStorage.getItem(THEME_KEY);
    } catch {
      return null;  // storage blocked (a sandboxed frame, a privacy setting)
    }
  }
  function chooseTheme() {
    const params = new URLSearchParams(window.location.search);
    const known = (name) => facts.themes.includes(name);
    if (params.has('theme')) return params.get('theme');  // Python checks and reports it
    const stored = storedTheme();
    if (known(stored)) return stored;
    const dark = window.matchMedia?.('(prefers-color-scheme: dark)').matches;
    const theme = dark ? 'dark' : 'light';
    if (theme !== facts.defaults.theme) {
      params.set('theme', theme);
      try {
        const url = `${window.location.pathname}?${params}${window.location.hash}`;
        window.history.replaceState(window.history.state, '', url);
      } catch {
        return facts.defaults.theme;  // the link cannot say it, so Python will not draw it
      }
    }
    return theme;
  }
  if (facts) {
    const theme = chooseTheme();
    const shown = facts.themes.includes(theme) ? theme : 'light';
    document.documentElement.setAttribute('data-pe-theme', shown);
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
    };
  }

  // The frames are HTML our build wrote (components/ui/placeholder.py, from the view table):
  // the link only chooses among them, and nothing of it is written into the page.
  function built(html) {
    const template = document.createElement('template');
    template.innerHTML = html;
    return template.content.firstElementChild;
  }
  let placeholder = null;
  function drawRequestedFrames(ask) {
    const kind = ask.embed ? 'embed' : 'page';
    placeholder = built(facts.frames[kind]);
    const cards = placeholder.querySelector('.pe-card-frames');
    for (const spec of ask.view ? [ask.view] : facts.views) cards.appendChild(built(spec[kind]));
    // Over the page Python draws, which stays hidden until it shows the link's state.
    document.body.prepend(placeholder);
  }
  // The page Python draws stays hidden until it shows the link's state; so does the page's
  // first paint (the default state's header and matrix, scripts/first_paint.py), from the start.
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
        const embed = window.Bokeh?.embed;
        if (!embed) return;
        const embedItems = embed.embed_items;
        embed.embed_items = () => {
          embed.embed_items = embedItems;
          return Promise.resolve([[]]);
        };
      }, {once: true});
    }
  }

  // The worker's messages and start-up phases (static/protocol.js, loaded before this script).
  const P = window.PE_PROTOCOL;
  const PHASES = P.PHASES;

  let panel = null;
  function showPhase(id) {
    const current = PHASES.findIndex((phase) => phase.id === id);
    if (current < 0) return;
    if (!document.body) {
      document.addEventListener('DOMContentLoaded', () => showPhase(id), {once: true});
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
    PHASES.map((phase) => phase.text).concat([P.READY_TEXT]).forEach((text, index) => {
      const line = document.createElement('div');
      line.textContent = `${index < current ? '✓' : index === current ? '…' : '·'} ${text}`;
      if (index === current) line.style.fontWeight = '600';
      panel.appendChild(line);
    });
  }

  // The prerendered controls the visitor moved, by the control's CSS class.
  const pending = new Map();
  function controlClass(model) {
    const classes = model?.css_classes || [];
    return classes.find((name) => name.startsWith('pe-control-'));
  }
  let prerendered = null;
  const loaded = performance.now();
  (function recordStartupInput() {
    if (prerenderSkipped) return;
    // The prerendered page's document, once Bokeh has embedded it.
    const doc = window.Bokeh?.documents?.[0];
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
    } catch {
      return null;
    }
  }

  function cacheForNextVisit() {
    const workers = serviceWorkers();
    if (!workers?.controller) return;
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
      if (msg.type === P.STATUS) showPhase(msg.phase);
      // A shared worker's console is not the page's (static/worker.js).
      if (msg.type === P.RUNTIME_ERROR) console.error(`Python: ${msg.msg}`);
      // Python has drawn the state of the link; let Bokeh lay the changes out first.
      if (msg.type === P.LOCATION_APPLIED) {
        requestAnimationFrame(() => requestAnimationFrame(showPythonsPage));
      }
      if (msg.type !== P.RENDER) return;
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

  // One Python for every frame and tab of the site, where the browser has shared workers: the
  // site's worker script (static/worker.js) started as a shared worker, so three embeds on a
  // course page start one runtime, not three. The page's Web Worker then only relays to it.
  function connectSharedRuntime(url, location) {
    if (typeof SharedWorker !== 'function') return null;
    // A page never joins the shared worker of another build that an open tab still runs.
    const build = serviceWorker ? serviceWorker.dataset.build : '';
    try {
      const shared = new SharedWorker(url, {name: `pe-explorer-${build}`});
      const channel = new MessageChannel();
      shared.port.postMessage({type: P.FRAME, location}, [channel.port1]);
      window.addEventListener('pagehide', (event) => {
        if (!event.persisted) shared.port.postMessage({type: P.BYE});
      });
      return {shared, port: channel.port2};
    } catch {
      return null;  // e.g. an opaque origin; Panel's own worker is tried (and reported below)
    }
  }

  // Panel's deferred scripts (BokehJS, Panel's models) have all run once DOMContentLoaded fires,
  // and Panel then embeds the prerendered page (its first call of Bokeh.embed.embed_items). A
  // worker message may arrive between two of those scripts, and a shared Python already warm (a
  // second page in the same tab) renders at once: Panel's handler then embedded a document of
  // models not registered yet ("could not resolve type 'panel.models.layout.Column'") and the
  // page never became interactive. So its handler gets each message, in order, only once that
  // first embedding has settled.
  let pageEmbedded = false;
  const releases = [];
  function releaseMessages() {
    if (pageEmbedded) return;
    pageEmbedded = true;
    for (const release of releases.splice(0)) release();
  }
  document.addEventListener('DOMContentLoaded', () => {
    const embed = window.Bokeh?.embed;
    if (!embed) {
      releaseMessages();
      return;
    }
    const first = embed.embed_items;
    embed.embed_items = function (...args) {
      embed.embed_items = first;
      const result = first.apply(this, args);
      Promise.resolve(result).finally(releaseMessages);
      return result;
    };
    setTimeout(releaseMessages, 10000);  // should Panel's page never embed anything
  }, {once: true});
  function afterPageEmbedded(worker) {
    let handler = null;
    const held = [];
    // Python's patches of one run (static/worker.js) go to Panel's handler one by one, in this
    // one task: the picker's re-picking (a microtask) runs after the last, before any paint.
    const deliver = (event) => {
      const patches = event.data?.type === P.PATCH ? event.data.patches : null;
      if (!Array.isArray(patches)) {
        handler?.call(worker, event);
        return;
      }
      for (const {patch, buffers} of patches) {
        handler?.call(worker, {data: {type: P.PATCH, patch, buffers}});
      }
    };
    Object.defineProperty(worker, 'onmessage', {
      configurable: true,
      get: () => handler,
      set: (fn) => { handler = fn; },
    });
    worker.addEventListener('message', (event) => {
      if (pageEmbedded && held.length === 0) deliver(event);
      else held.push(event);
    });
    releases.push(() => {
      for (const event of held.splice(0)) deliver(event);
    });
  }

  // Panel's page script creates the worker as the body is parsed, before Panel's deferred
  // scripts run (scripts/panel_output.py): Python starts while they load and draw the
  // prerendered page. Listen to it alongside Panel's own handler.
  const NativeWorker = window.Worker;
  // Called with `new` by Panel's script: the object returned is its worker.
  window.Worker = function PageWorker(url, ...rest) {
    // With the page's URL: Python builds the page the link asks for at once.
    const location = JSON.stringify(window.location);
    const connection = connectSharedRuntime(url, location);
    let worker;
    try {
      worker = new NativeWorker(url, ...(connection ? [{name: P.RELAY_NAME}] : rest));
    } catch {
      cannotStart();
      // What Panel's page script uses of its worker, doing nothing: no uncaught error.
      return {postMessage() {}, addEventListener() {}, terminate() {}};
    }
    if (connection) {
      // The relay's first message: its page's port to the shared worker. Should the shared
      // worker fail to start, the relay runs Python itself.
      worker.postMessage({type: P.RELAY_PORT}, [connection.port]);
      connection.shared.addEventListener('error', () => {
        worker.postMessage({type: P.OWN_RUNTIME, location});
      });
    } else {
      worker.postMessage({type: P.FRAME, location});
    }
    afterPageEmbedded(worker);
    watch(worker);
    return worker;
  };
})();

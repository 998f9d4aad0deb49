// UrlWriter (components/ui/urlsync.py): the address bar, and a host page's messages.

// A host's values: a plain object of at most model.max_keys short strings, numbers or booleans.
function hostValues(values, model) {
  if (!values || typeof values !== 'object' || Array.isArray(values)) return null;
  const entries = Object.entries(values);
  if (entries.length > model.max_keys) return null;
  const clean = {};
  for (const [key, value] of entries) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) return null;
    const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    if (key.length > model.max_chars || text.length > model.max_chars) return null;
    clean[key] = text;
  }
  return clean;
}

// The query string with key's value replaced: the rest as Python wrote it (which writes pos and
// k always, their defaults too: urlstate.ALWAYS_WRITTEN).
function withValue(search, key, value) {
  const segments = search
    .replace(/^\?/, '')
    .split('&')
    .filter((segment) => segment !== '' && !segment.startsWith(`${key}=`));
  segments.push(`${key}=${value}`);
  return `?${segments.join('&')}`;
}

// Whether the query string gives key that value.
function holds(search, key, value) {
  return search.replace(/^\?/, '').split('&').includes(`${key}=${value}`);
}

export function render({ model, view }) {
  const framed = window.parent !== window;
  const tell = (type) => {
    if (!framed) return;
    const state = Object.fromEntries(new URLSearchParams(model.query));
    try {
      window.parent.postMessage({ type, query: model.query, state }, '*');
    } catch {
      // A host that went away.
    }
  };
  let ready = false;
  let theme = null;
  // The values of pos and k the page picked last: the address shows them over Python's query,
  // which may still be an earlier one while a drag is under way.
  const picked = {};
  // The page's colours outside Panel's components (theme.document_css), and the visitor's
  // choice for their next visit (static/startup.js reads it) when the toggle changed it.
  const showTheme = () => {
    const shown = new URLSearchParams(model.query).get('theme') || 'light';
    document.documentElement.setAttribute('data-pe-theme', shown);
    if (theme !== null && shown !== theme) {
      try {
        window.localStorage.setItem('pe-explorer-theme', shown);
      } catch {
        // Storage blocked: the choice lasts for this visit.
      }
    }
    theme = shown;
  };
  const write = () => {
    if (!model.active) return;
    showTheme();
    if (!ready) {
      ready = true;
      tell('pe-explorer:ready');
    } else {
      tell('pe-explorer:state');
    }
    let search = model.query ? `?${model.query}` : '';
    for (const [key, value] of Object.entries(picked)) {
      // Python has caught up with the pick: its query is the address from now on.
      if (holds(search, key, value)) delete picked[key];
      else search = withValue(search, key, value);
    }
    if (window.location.search === search) return;
    try {
      const url = window.location.pathname + search + window.location.hash;
      window.history.replaceState(window.history.state, '', url);
    } catch {
      // A sandboxed iframe may forbid it; the page works the same without it.
    }
  };
  const listen = (event) => {
    const data = event.data;
    if (event.source !== window.parent || !data || data.type !== 'pe-explorer:set') return;
    const values = hostValues(data.values, model);
    if (values) model.send_msg({ values });
    else tell('pe-explorer:refused');
  };
  // A move of pos or k the page picks (components/js/picker.js): the address follows it in the
  // same frame; Python writes its canonical query once the value reaches it.
  const onPick = (event) => {
    const { axis, value, doc } = event.detail ?? {};
    if (!model.picked.includes(axis) || typeof value !== 'number') return;
    if (doc != null && view?.model?.document != null && doc !== view.model.document) return;
    picked[axis] = value;
    if (!model.active) return;
    const search = withValue(window.location.search, axis, value);
    if (window.location.search === search) return;
    try {
      window.history.replaceState(
        window.history.state,
        '',
        window.location.pathname + search + window.location.hash,
      );
    } catch {
      // A sandboxed iframe may forbid it.
    }
  };
  document.addEventListener('pe-pick', onPick);
  if (framed) window.addEventListener('message', listen);
  model.on('query', write);
  model.on('active', write);
  model.on('remove', () => {
    window.removeEventListener('message', listen);
    document.removeEventListener('pe-pick', onPick);
  });
  write();
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

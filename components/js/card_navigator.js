// CardNavigator (components/ui/navigation.py): the page's contents, and going to a card.

const HOLD_MS = 60000; // how long a frame's place is kept for its card
const SETTLED_TICKS = 10; // a card is in place after this many checks (100 ms) unmoved

export function render({ model, el }) {
  const names = model.views.map((view) => view.name);
  const phone = window.matchMedia(`(max-width: ${model.phone_width}px)`);
  const make = (tag, properties = {}) => Object.assign(document.createElement(tag), properties);

  // On a phone the sliders' bar at the bottom covers part of the window: the browser scrolls a
  // focused control clear of it (WCAG 2.2, 2.4.11). (The headings clear the bar at the top with
  // their own scroll margin.)
  if (!document.getElementById('pe-scroll-room')) {
    const room = make('style', { id: 'pe-scroll-room' });
    room.textContent = `@media (max-width: ${model.phone_width}px) {
  html { scroll-padding-bottom: ${model.bottom_room}px; }
}`;
    document.head.append(room);
  }

  const root = make('div');
  const bar = make('div', { className: 'pe-bar' });
  const viewsButton = make('button', { type: 'button', textContent: 'Views' });
  viewsButton.setAttribute('aria-controls', 'pe-toc');
  const controlsButton = make('button', { type: 'button', textContent: 'Controls' });
  controlsButton.className = 'pe-controls-toggle';
  viewsButton.className = 'pe-views-toggle';
  bar.append(viewsButton, controlsButton);
  const nav = make('nav', { id: 'pe-toc', className: 'pe-toc' });
  nav.setAttribute('aria-label', 'Views');
  const list = make('ul');
  for (const view of model.views) {
    const link = make('a', { href: `#${view.name}`, textContent: view.short });
    link.dataset.view = view.name;
    link.addEventListener('click', (event) => {
      const modified = event.ctrlKey || event.metaKey || event.shiftKey || event.altKey;
      if (event.button !== 0 || modified) return;
      event.preventDefault();
      setHash(view.name, false);
      go(view.name, true);
    });
    list.appendChild(make('li')).append(link);
  }
  nav.append(make('h2', { textContent: 'Views' }), list);
  // One card alone (?view=name) needs no contents.
  if (names.length < 2) nav.hidden = viewsButton.hidden = true;
  const heading = make('h2', { className: 'pe-controls-heading', textContent: 'Controls' });
  root.append(bar, nav, heading);

  // The sidebar this sits in: its host, two shadow roots up.
  const sidebar = () => {
    const host = el.getRootNode().host;
    const outer = host?.getRootNode();
    return outer?.host;
  };
  const openViews = (open) => {
    viewsButton.setAttribute('aria-expanded', String(open));
    nav.classList.toggle('pe-open', open);
    if (open) openControls(false);
  };
  const openControls = (open) => {
    controlsButton.setAttribute('aria-expanded', String(open));
    const side = sidebar();
    if (side) side.toggleAttribute('data-pe-open', open);
    if (open) openViews(false);
  };
  openViews(false);
  openControls(false);
  viewsButton.addEventListener('click', () => openViews(!nav.classList.contains('pe-open')));
  controlsButton.addEventListener('click', () =>
    openControls(controlsButton.getAttribute('aria-expanded') !== 'true'),
  );
  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !phone.matches || !nav.classList.contains('pe-open')) return;
    openViews(false);
    viewsButton.focus();
  });

  // The headings of the card called name, in every shadow root: the card's own, or its
  // frame's while the card is not built yet.
  const headings = (name) => {
    const found = [];
    const walk = (node) =>
      node.querySelectorAll('*').forEach((element) => {
        if (element.id === name && element.classList.contains('pe-card-heading')) {
          found.push(element);
        }
        if (element.shadowRoot) walk(element.shadowRoot);
      });
    walk(document);
    return found;
  };
  const locate = (name) => {
    const found = headings(name);
    const card = found.find((heading) => !heading.closest('.pe-card-frame'));
    return { heading: card || found[0] || null, built: Boolean(card) };
  };

  // Where the reader is being taken: kept while the card is a frame or still moving.
  let going = null;
  let timer = null;
  const stop = () => {
    going = null;
    clearInterval(timer);
    timer = null;
  };
  const arrive = () => {
    const { heading, built } = locate(going.name);
    if (!heading) return;
    const top = heading.getBoundingClientRect().top;
    if (heading !== going.heading || Math.abs(top - going.top) > 1) {
      heading.scrollIntoView({ block: 'start', behavior: 'instant' });
      going.heading = heading;
      going.top = heading.getBoundingClientRect().top;
      going.still = 0;
    } else if (built) {
      going.still += 1;
    }
    if (going.focus && built && heading.getRootNode().activeElement !== heading) {
      heading.focus({ preventScroll: true });
    }
  };
  const tick = () => {
    if (!going) return;
    arrive();
    if ((going && going.still >= SETTLED_TICKS) || Date.now() > going.until) stop();
  };
  const go = (name, focus) => {
    if (phone.matches) {
      openViews(false);
      openControls(false);
    }
    going = { name, focus, heading: null, top: 0, still: 0, until: Date.now() + HOLD_MS };
    arrive();
    if (going.heading && going.focus) going.heading.focus({ preventScroll: true });
    if (!timer) timer = setInterval(tick, 100);
  };
  // The reader moving the page themselves ends the wait for a card.
  const interrupt = () => {
    if (going) stop();
  };
  const interruptions = ['wheel', 'touchstart', 'keydown', 'mousedown'];
  for (const type of interruptions) {
    window.addEventListener(type, interrupt, { capture: true, passive: true });
  }

  const setHash = (name, replace) => {
    if (window.location.hash === `#${name}`) return;
    try {
      const url = `${window.location.pathname}${window.location.search}#${name}`;
      if (replace) window.history.replaceState(window.history.state, '', url);
      else window.history.pushState(window.history.state, '', url);
    } catch {
      // A sandboxed frame may forbid it; the card is reached all the same.
    }
  };
  const fromHash = () => {
    let name = '';
    try {
      name = decodeURIComponent(window.location.hash.slice(1));
    } catch {
      return null;
    }
    return names.includes(name) ? name : null;
  };
  const onHash = () => {
    const name = fromHash();
    if (name) go(name, true);
  };
  const onGo = (event) => {
    const { view, focus } = event.detail || {};
    if (!names.includes(view)) return;
    setHash(view, true);
    go(view, Boolean(focus));
  };
  window.addEventListener('hashchange', onHash);
  window.addEventListener('pe-explorer:go', onGo);
  if (fromHash()) requestAnimationFrame(onHash);
  model.on('remove', () => {
    stop();
    window.removeEventListener('hashchange', onHash);
    window.removeEventListener('pe-explorer:go', onGo);
    for (const type of interruptions) {
      window.removeEventListener(type, interrupt, { capture: true });
    }
  });
  return root;
}

// ScrollRegions: its why and its upstream report are in components/fixes/scroll_regions.py.

const PATCHED = Symbol.for('pe-scroll-regions');
const QUEUED = Symbol.for('pe-scroll-regions-queued');
const MARK = 'data-pe-scroll-focus';

function scrolls(element) {
  const overflow = getComputedStyle(element).overflowX;
  return (
    (overflow === 'auto' || overflow === 'scroll') && element.scrollWidth > element.clientWidth + 1
  );
}

// What can scroll sideways in our panes: the pane itself (`:host { overflow-x: auto }`) and
// the code, matrices and tables inside it.
const INSIDE = 'pre, table, .pe-data-scroll';

function mark(view) {
  view[QUEUED] = false;
  if (view.el == null || view.shadow_el == null) return;
  for (const element of [view.el, ...view.shadow_el.querySelectorAll(INSIDE)]) {
    if (scrolls(element)) {
      if (!element.hasAttribute('tabindex')) {
        element.setAttribute('tabindex', '0');
        element.setAttribute(MARK, '');
      }
    } else if (element.hasAttribute(MARK)) {
      element.removeAttribute('tabindex');
      element.removeAttribute(MARK);
    }
  }
}

// Once a frame at most, after the browser has laid the new content out anyway.
function queue(view) {
  if (view[QUEUED]) return;
  view[QUEUED] = true;
  requestAnimationFrame(() => mark(view));
}

function follow(view) {
  if (view[PATCHED] || typeof ResizeObserver !== 'function') return;
  view[PATCHED] = new ResizeObserver(() => queue(view));
  view[PATCHED].observe(view.el);
}

function patch() {
  const models = window.Bokeh?.Models;
  const Model = models?.get('panel.models.markup.HTML');
  const proto = Model?.prototype.default_view?.prototype;
  if (proto == null || proto[PATCHED]) return;
  const setHTML = proto.set_html;
  proto.set_html = function (...args) {
    const result = setHTML.apply(this, args);
    follow(this);
    queue(this);
    return result;
  };
  proto[PATCHED] = true;
  try {
    for (const view of window.Bokeh.index.query((v) => v instanceof proto.constructor)) {
      follow(view);
      mark(view);
    }
  } catch {
    // No index (an unusual embedding): panes are followed from their next content.
  }
}

export function render() {
  patch();
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

// Scroll regions: why, and the upstream report: components/fixes/scroll_regions.py.
import { addFix, patchView } from './patch_view.js';

const FOLLOWED = Symbol.for('pe-scroll-regions');
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
  if (view[FOLLOWED] || typeof ResizeObserver !== 'function') return;
  view[FOLLOWED] = new ResizeObserver(() => queue(view));
  view[FOLLOWED].observe(view.el);
}

addFix(() =>
  patchView({
    name: 'scroll-regions',
    model: 'panel.models.markup.HTML',
    method: 'set_html',
    after: (view) => {
      follow(view);
      queue(view);
    },
    replay: (view) => {
      follow(view);
      mark(view);
    },
  }),
);

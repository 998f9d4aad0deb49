// PageShown (components/ui/lazy_views.py): says once that a browser shows the page, and whether
// the page is narrow (a phone, a narrow frame), now and whenever that changes.

const SETTLE_MS = 500;

export function render({ model }) {
  const page = document.documentElement;
  // A frame after the page is shown: by then Panel's page sends its changes to Python.
  // Until Python has built what waited, the page keeps its height: as the frames give way
  // to the cards, the browser would otherwise pull a reader who scrolled down back up.
  if (!model.shown)
    requestAnimationFrame(() =>
      setTimeout(() => {
        page.style.minHeight = `${page.scrollHeight}px`;
        model.shown = true;
      }, 0),
    );
  model.on('built', () =>
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        page.style.minHeight = '';
      }),
    ),
  );
  const narrow = window.matchMedia(`(max-width: ${model.narrow_px}px)`);
  const report = () => {
    if (model.narrow !== narrow.matches) model.narrow = narrow.matches;
  };
  // Like shown, first said a frame after render, when the page sends its changes to Python.
  requestAnimationFrame(() => setTimeout(report, 0));
  // A change is said once the width has held for SETTLE_MS: a window dragged across the line,
  // or a screenshot beyond the viewport (Chromium resizes the window to 1 × 1 for it), would
  // otherwise redraw every view twice.
  let timer = null;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(report, SETTLE_MS);
  };
  narrow.addEventListener('change', changed);
  model.on('remove', () => {
    clearTimeout(timer);
    narrow.removeEventListener('change', changed);
  });
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

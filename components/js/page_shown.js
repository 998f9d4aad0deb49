// PageShown (components/ui/lazy_views.py): says once that a browser shows the page, and whether
// the page is narrow (a phone, a narrow frame), now and whenever that changes.

const SETTLE_MS = 500;

export function render({ model }) {
  const page = document.documentElement;
  const narrow = window.matchMedia(`(max-width: ${model.narrow_px}px)`);
  const report = () => {
    if (model.narrow !== narrow.matches) model.narrow = narrow.matches;
  };
  // Said a frame after render, when the page sends its changes to Python: the width first, so
  // that the views on screen are drawn for it before Python builds the cards that waited. Until
  // Python has built them, the page keeps its height: as the frames give way to the cards, the
  // browser would otherwise pull a reader who scrolled down back up.
  requestAnimationFrame(() =>
    setTimeout(() => {
      report();
      if (model.shown) return;
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

// PageShown (components/ui/lazy_views.py): says once that a browser shows the page, and whether
// the page is narrow (a phone, a narrow frame), now and whenever that changes.

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
  narrow.addEventListener('change', report);
  model.on('remove', () => narrow.removeEventListener('change', report));
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

// PageShown (components/ui/lazy_views.py): says once that a browser shows the page.

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
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

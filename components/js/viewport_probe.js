// ViewportProbe (components/ui/lazy_views.py): whether its card is on screen.

export function render({ model, el }) {
  const element = document.createElement('span');
  element.hidden = true;
  // el lives in this component's shadow root, whose host sits in the card's shadow root.
  const card = () => {
    const host = el.getRootNode().host;
    const root = host?.getRootNode();
    return root?.host || host;
  };
  // Without an observer, nothing can say a view is off screen: treat every view as on it.
  if (typeof IntersectionObserver !== 'function') {
    model.on_screen = true;
    return element;
  }
  const observer = new IntersectionObserver(
    (entries) => {
      const onScreen = entries[entries.length - 1].isIntersecting;
      if (model.on_screen !== onScreen) model.on_screen = onScreen;
    },
    { rootMargin: model.root_margin },
  );
  // The card exists once this component is attached to it.
  requestAnimationFrame(() => {
    const target = card();
    if (target) observer.observe(target);
  });
  model.on('remove', () => observer.disconnect());
  return element;
}

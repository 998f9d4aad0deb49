// Announcer (components/ui/announcer.py): a live region, read once its message settles.

export function render({ model }) {
  const region = document.createElement('div');
  region.setAttribute('role', 'status');
  region.setAttribute('aria-live', 'polite');
  region.className = 'pe-announcement';
  // Visually hidden, still read: the usual clip pattern.
  Object.assign(region.style, {
    position: 'absolute',
    width: '1px',
    height: '1px',
    margin: '-1px',
    padding: '0',
    overflow: 'hidden',
    clip: 'rect(0 0 0 0)',
    whiteSpace: 'nowrap',
    border: '0',
  });
  let timer = null;
  model.on('message', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      region.textContent = model.message;
    }, model.settle_ms);
  });
  model.on('remove', () => clearTimeout(timer));
  return region;
}

// PlayClock (components/ui/player.py): acknowledges each step drawn, and hears Space.

const TEXT_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON']);
export function render({ model }) {
  const acknowledge = () =>
    requestAnimationFrame(() => {
      model.acked = model.sent;
    });
  model.on('sent', acknowledge);
  const onKey = (event) => {
    if (event.key !== ' ' || event.repeat || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    const target = event.composedPath()[0];
    if (target && (TEXT_TAGS.has(target.tagName) || target.isContentEditable)) return;
    event.preventDefault();
    model.space_presses = model.space_presses + 1;
  };
  window.addEventListener('keydown', onKey);
  model.on('remove', () => window.removeEventListener('keydown', onKey));
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

// ViewPicks (components/plotkit/picks.py): a view's picks, kept where the page's picker
// (components/js/picker.js) finds them by key, and a word to it whenever they change.
const REGISTRY = Symbol.for('pe-picks');

export function render({ model }) {
  if (!window[REGISTRY]) window[REGISTRY] = new Map();
  const registry = window[REGISTRY];
  registry.set(model.key, model);
  const changed = () =>
    window.dispatchEvent(new CustomEvent('pe-picks-changed', { detail: { key: model.key } }));
  model.on('pos_picks', changed);
  model.on('offset_picks', changed);
  model.on('tables', changed);
  model.on('drawn', changed);
  model.on('remove', () => {
    if (registry.get(model.key) === model) registry.delete(model.key);
  });
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

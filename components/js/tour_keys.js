// TourKeys (components/ui/tour.py): Escape, going to a card's view, and a card's link.

export function render({ model }) {
  const onKey = (event) => {
    if (event.key === 'Escape' && model.touring) model.escapes = model.escapes + 1;
  };
  window.addEventListener('keydown', onKey);
  // The page's CardNavigator takes the reader to the card.
  const scroll = () => {
    if (!model.focus) return;
    const detail = { view: model.focus, focus: model.move_focus };
    window.dispatchEvent(new CustomEvent('pe-explorer:go', { detail }));
  };
  // A plain click on a card's link: the card's state, without loading the page again. A
  // link opened in a new tab, or copied, loads it there.
  const onClick = (event) => {
    const modified = event.ctrlKey || event.metaKey || event.shiftKey || event.altKey;
    if (event.defaultPrevented || event.button !== 0 || modified) return;
    const path = event.composedPath();
    const link = path.find((node) => node.classList?.contains('pe-question-link'));
    const card = link && path.find((node) => node.dataset?.question);
    if (!card) return;
    event.preventDefault();
    model.send_msg({ question: card.dataset.question });
  };
  window.addEventListener('click', onClick);
  model.on('focus_requests', scroll);
  model.on('remove', () => {
    window.removeEventListener('keydown', onKey);
    window.removeEventListener('click', onClick);
  });
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

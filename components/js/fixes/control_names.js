// Control names: why, and the upstream report: components/fixes/control_names.py.
import { addFix, patchView } from './patch_view.js';

const PATCHED = Symbol.for('pe-control-names');

// The text an element shows: its own, or its shadow root's, leaving out style sheets.
function text(element) {
  if (element == null) return '';
  const root = element.shadowRoot || element;
  const parts = [...root.childNodes]
    .filter((node) => !['STYLE', 'LINK', 'SCRIPT'].includes(node.nodeName))
    .map((node) => node.textContent || '');
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

// The slider's label and its value as shown: its own title and value, or, for Panel's
// DiscreteSlider (an untitled slider under a "Label: value" text), that text.
function sliderLabel(view) {
  const title = view.model.title;
  if (title) {
    const shown = text(view.shadow_el.querySelector('.bk-slider-value'));
    return [title, shown || String(view.model.value)];
  }
  const [name, ...value] = text(view.el.previousElementSibling).split(':');
  return [name.trim(), value.join(':').trim() || String(view.model.value)];
}

function nameSlider(view) {
  if (view.slider_el == null) return;
  const [name, value] = sliderLabel(view);
  // "Position pos" reads "position pos 7"; "Base (log scale)" reads "base 10000".
  const spoken = name
    .replace(/\s*\(.*?\)\s*/g, ' ')
    .trim()
    .toLowerCase();
  for (const handle of view.slider_el.querySelectorAll('.noUi-handle')) {
    if (name) handle.setAttribute('aria-label', name);
    handle.setAttribute('aria-valuetext', spoken ? `${spoken} ${value}` : value);
  }
}

function followSlider(view) {
  const slider = view._noUiSlider;
  if (slider == null || slider[PATCHED]) return nameSlider(view);
  slider[PATCHED] = true;
  // After noUiSlider's own aria-valuetext, and after the label above it has changed.
  slider.on('update.pe-names', () => requestAnimationFrame(() => nameSlider(view)));
  nameSlider(view);
}

function nameSpinner(view) {
  const title = view.model.title || 'the value';
  const up = view.shadow_el.querySelector('.bk-spin-btn-up');
  const down = view.shadow_el.querySelector('.bk-spin-btn-down');
  if (up) up.setAttribute('aria-label', `Increase ${title}`);
  if (down) down.setAttribute('aria-label', `Decrease ${title}`);
}

function cleanChoices(view) {
  const strip = () => {
    const chosen = view.shadow_el.querySelectorAll('.choices__list--multiple [aria-selected]');
    for (const item of chosen) item.removeAttribute('aria-selected');
  };
  strip();
  if (view[PATCHED]) return;
  view[PATCHED] = new MutationObserver(strip);
  view[PATCHED].observe(view.shadow_el, {
    subtree: true,
    childList: true,
    attributeFilter: ['aria-selected'],
  });
}

// Each widget's fix, after every render; a slider's also after every new range or value.
const FIXES = [
  ['Slider', followSlider, ['render', '_update_slider']],
  ['RangeSlider', followSlider, ['render', '_update_slider']],
  ['Spinner', nameSpinner, ['render']],
  ['MultiChoice', cleanChoices, ['render']],
];

addFix(() => {
  for (const [model, fix, methods] of FIXES) {
    for (const method of methods) {
      patchView({ name: 'control-names', model, method, after: fix, replay: fix });
    }
  }
});

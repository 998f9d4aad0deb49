// Slider keys: why, and the upstream report: components/fixes/slider_keys.py.
import { addFix, patchView } from './patch_view.js';

const KEYED = Symbol.for('pe-slider-keys-listening');

// Home and End on this slider's handle: its model's start and end, sent as BokehJS's
// slider sends a step (value, then value_throttled), and drawn by its own update.
function listen(view) {
  const element = view.slider_el;
  if (element == null || element[KEYED]) return;
  element[KEYED] = true;
  element.addEventListener(
    'keydown',
    (event) => {
      if (event.key !== 'Home' && event.key !== 'End') return;
      const { model } = view;
      if (model.disabled || typeof model.value !== 'number') return;
      // Before noUiSlider's own handler on the handle, which would use the first range.
      event.preventDefault();
      event.stopPropagation();
      const value = view._calc_from([event.key === 'Home' ? model.start : model.end]);
      view._slide([value]);
      view._change([value]);
    },
    true,
  );
}

// A slider's range goes stale only through _update_slider (noUiSlider's updateOptions).
addFix(() =>
  patchView({
    name: 'slider-keys',
    model: 'Slider',
    method: '_update_slider',
    before: listen,
    replay: listen,
  }),
);

// SliderKeys: its why and its upstream report are in components/fixes/slider_keys.py.

const PATCHED = Symbol.for('pe-slider-keys');
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
      if (model.disabled || typeof model.value !== 'number') return; // ranges: untouched
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

function sliderViewClass() {
  const Slider = window.Bokeh?.Widgets?.Slider;
  const View = Slider?.prototype.default_view;
  let proto = View?.prototype;
  while (proto && !Object.hasOwn(proto, '_update_slider')) {
    proto = Object.getPrototypeOf(proto);
  }
  return proto;
}

function patch() {
  const proto = sliderViewClass();
  if (proto == null || proto[PATCHED]) return;
  // A slider's range goes stale only through _update_slider (noUiSlider's updateOptions).
  const update = proto._update_slider;
  proto._update_slider = function (...args) {
    listen(this);
    return update.apply(this, args);
  };
  proto[PATCHED] = true;
  // Sliders updated before this ran.
  try {
    for (const view of window.Bokeh.index.query((v) => v instanceof proto.constructor)) {
      listen(view);
    }
  } catch {
    // No index (an unusual embedding): sliders are still covered from their next update.
  }
}

export function render() {
  patch();
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

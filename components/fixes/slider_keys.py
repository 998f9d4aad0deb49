"""Works around noUiSlider (in BokehJS's sliders) sending Home and End to a slider's first range.

Upstream: none found; report text: docs/upstream.md, "Home and End".

noUiSlider 15's keyboard handler takes Home and End from the range the slider was created with
(`options.spectrum`); `updateOptions`, which BokehJS calls for a new start or end, replaces only
the range that arrows, drags and `aria-valuemax` use (`scope_Spectrum`). After the sequence
length moved from 64 to 264, End on pos gave 63. Here Home and End on a one-handle slider go
to the start and end its model has now, the way a step of BokehJS's own slider is sent.
"""

from __future__ import annotations

from panel.custom import JSComponent


class SliderKeys(JSComponent):
    """Makes Home and End of every one-handle Bokeh slider on the page use its current range."""

    _esm = """
    const PATCHED = Symbol.for('pe-slider-keys');
    const KEYED = Symbol.for('pe-slider-keys-listening');

    // Home and End on this slider's handle: its model's start and end, sent as BokehJS's
    // slider sends a step (value, then value_throttled), and drawn by its own update.
    function listen(view) {
      const element = view.slider_el;
      if (element == null || element[KEYED]) return;
      element[KEYED] = true;
      element.addEventListener('keydown', (event) => {
        if (event.key !== 'Home' && event.key !== 'End') return;
        const { model } = view;
        if (model.disabled || typeof model.value !== 'number') return;  // ranges: untouched
        // Before noUiSlider's own handler on the handle, which would use the first range.
        event.preventDefault();
        event.stopPropagation();
        const value = view._calc_from([event.key === 'Home' ? model.start : model.end]);
        view._slide([value]);
        view._change([value]);
      }, true);
    }

    function sliderViewClass() {
      const Slider = window.Bokeh && window.Bokeh.Widgets && window.Bokeh.Widgets.Slider;
      const View = Slider && Slider.prototype.default_view;
      let proto = View && View.prototype;
      while (proto && !Object.prototype.hasOwnProperty.call(proto, '_update_slider')) {
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
        for (const view of window.Bokeh.index.query((v) => proto.isPrototypeOf(v))) listen(view);
      } catch (error) {
        // No index (an unusual embedding): sliders are still covered from their next update.
      }
    }

    export function render() {
      patch();
      const element = document.createElement('span');
      element.hidden = true;
      return element;
    }
    """

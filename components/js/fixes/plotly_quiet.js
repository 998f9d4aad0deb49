// Quiet relayout: why, and the upstream report: components/fixes/plotly_quiet.py.
import { addFix } from './patch_view.js';

const QUIET = Symbol.for('pe-plotly-quiet');

// Plotly.relayout(gd, update), its plotly_relayout event kept from Panel's listener: plotly.js
// emits it at the end of the call for a layout that needs no waiting (images, annotations).
function quietly(gd, update) {
  const emit = gd.emit;
  gd.emit = function (name, ...rest) {
    if (name === 'plotly_relayout') return undefined;
    return emit.call(this, name, ...rest);
  };
  try {
    return window.Plotly.relayout(gd, update);
  } finally {
    gd.emit = emit;
  }
}

addFix(() => {
  window[QUIET] = quietly;
});

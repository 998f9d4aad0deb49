// ChartNames: its why and its upstream report are in components/fixes/chart_names.py.

const PATCHED = Symbol.for('pe-chart-names');
const LISTENING = Symbol.for('pe-chart-names-listening');

// The name in the model's tags on the Plotly div, or no name when there is none.
function name(view) {
  const chart = view.container;
  if (chart == null) return;
  const label = (view.model.tags || [])[0];
  if (typeof label === 'string' && label !== '') {
    chart.setAttribute('role', 'figure');
    chart.setAttribute('aria-label', label);
  } else {
    chart.removeAttribute('role');
    chart.removeAttribute('aria-label');
  }
}

function listen(view) {
  if (view[LISTENING]) return;
  view[LISTENING] = true;
  view.on_change(view.model.properties.tags, () => name(view));
}

function viewClass(qualified) {
  const models = window.Bokeh?.Models;
  const Model = models?.get(qualified);
  return Model?.prototype.default_view?.prototype;
}

function patchPlotly() {
  const proto = viewClass('panel.models.plotly.PlotlyPlot');
  if (proto == null || proto[PATCHED]) return;
  // Every draw (a new figure, or render's new container) ends in plot().
  const plot = proto.plot;
  proto.plot = async function (...args) {
    listen(this);
    const result = await plot.apply(this, args);
    name(this);
    return result;
  };
  proto[PATCHED] = true;
  // Charts drawn before this ran.
  try {
    for (const view of window.Bokeh.index.query((v) => v instanceof proto.constructor)) {
      listen(view);
      name(view);
    }
  } catch {
    // No index (an unusual embedding): charts are named from their next draw.
  }
}

function patchHTML() {
  const proto = viewClass('panel.models.markup.HTML');
  if (proto == null || proto[PATCHED]) return;
  const setHTML = proto.set_html;
  proto.set_html = function (...args) {
    const container = this.container;
    const open = container != null && container.querySelector('details.pe-data[open]') != null;
    const result = setHTML.apply(this, args);
    const details = open ? this.container.querySelector('details.pe-data') : null;
    if (details != null) details.open = true;
    return result;
  };
  proto[PATCHED] = true;
}

export function render() {
  patchPlotly();
  patchHTML();
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

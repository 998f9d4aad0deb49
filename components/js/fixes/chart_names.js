// Chart names: why, and the upstream report: components/fixes/chart_names.py.
import { addFix, patchView } from './patch_view.js';

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

// Whether the view's "Show data" is open, before Panel's HTML view replaces its innerHTML.
function dataOpen(view) {
  return view.container?.querySelector('details.pe-data[open]') != null;
}

function reopen(view, open) {
  const details = open ? view.container.querySelector('details.pe-data') : null;
  if (details != null) details.open = true;
}

addFix(() => {
  // Every draw (a new figure, or render's new container) ends in plot().
  patchView({
    name: 'chart-names',
    model: 'panel.models.plotly.PlotlyPlot',
    method: 'plot',
    before: listen,
    after: name,
    replay: (view) => {
      listen(view);
      name(view);
    },
  });
  patchView({
    name: 'chart-names',
    model: 'panel.models.markup.HTML',
    method: 'set_html',
    before: dataOpen,
    after: reopen,
  });
});

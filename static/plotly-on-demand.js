// plotly.js on demand (scripts/plotly_bundle.py): the page loads the cartesian partial bundle,
// which draws every view's heatmap, scatter and bar traces. Panel's Plotly pane calls
// window.Plotly.newPlot / react; the first figure with a trace type the partial bundle lacks
// (the learned view's 3D scatter) loads the full bundle of the same version (data-full), which
// then is window.Plotly for every call. Runs after the partial bundle, before Panel's scripts.
'use strict';

(() => {
  const full = document.currentScript?.dataset.full;
  const partial = window.Plotly;
  if (!(full && partial)) return;
  // What every view draws: known without asking plotly.js for its schema.
  const common = new Set(['scatter', 'heatmap', 'bar']);
  let registered = null;
  const known = (type) => {
    if (common.has(type)) return true;
    registered ??= new Set(Object.keys(partial.PlotSchema.get().traces));
    return registered.has(type);
  };
  const traces = (args) => (Array.isArray(args[1]) ? args[1] : args[1]?.data) || [];
  const needsFull = (args) => traces(args).some((trace) => trace?.type && !known(trace.type));

  let loading = null;
  const loadFull = () => {
    loading ??= new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = full;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        loading = null;
        reject(new Error(`plotly.js: could not load ${full}`));
      };
      document.head.append(script);
    });
    return loading;
  };

  for (const name of ['newPlot', 'react']) {
    const draw = partial[name];
    partial[name] = function (...args) {
      if (window.Plotly !== partial || !needsFull(args)) return draw.apply(this, args);
      return loadFull().then(
        (plotly) => plotly[name](...args),
        (error) => {
          // Offline before the full bundle was ever used: the other traces still draw.
          console.warn(`${error.message}; drawing without the traces it would add`);
          return draw.apply(this, args);
        },
      );
    };
  }
})();

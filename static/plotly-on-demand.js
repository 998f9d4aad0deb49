// plotly.js on demand (scripts/plotly_bundle.py): the page loads the cartesian partial bundle,
// which draws every view's heatmap, scatter and bar traces. Panel's Plotly pane calls
// window.Plotly.newPlot / react; the first figure with a trace type the partial bundle lacks
// (the learned view's 3D scatter) loads the full bundle of the same version (data-full), which
// then is window.Plotly for every call. Runs after the partial bundle, before Panel's scripts;
// it also holds a patch for a plot not drawn yet (below).
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

  // A restyle or relayout that reaches a plot before its first draw waits for it, then runs
  // in order. Panel 1.9.4's Plotly model applies a patch as it arrives, and Plotly throws for a
  // plot not drawn yet ("reading '_guiEditing'"), losing the patch. Upstream: none found
  // (nearest, a guard for an undefined container: https://github.com/holoviz/panel/pull/8021).
  const waiting = new WeakMap();
  const undrawn = (gd) => Boolean(gd && typeof gd === 'object' && !gd._fullLayout);
  for (const name of ['restyle', 'relayout']) {
    const call = partial[name];
    partial[name] = function (gd, ...rest) {
      if (!undrawn(gd)) return call.call(this, gd, ...rest);
      if (!waiting.has(gd)) waiting.set(gd, []);
      return new Promise((resolve) => {
        // By then the full bundle may draw every chart: the call goes to it.
        const later = () => (window.Plotly === partial ? call : window.Plotly[name]);
        waiting.get(gd).push(() => resolve(later().call(window.Plotly, gd, ...rest)));
      });
    };
  }
  const drawnNow = (gd) => {
    const calls = waiting.get(gd) ?? [];
    waiting.delete(gd);
    for (const held of calls) {
      try {
        held();
      } catch {
        // One failed patch leaves the next to apply; the next whole figure mends the plot.
      }
    }
  };

  for (const name of ['newPlot', 'react']) {
    const draw = partial[name];
    const drawFirst = function (...args) {
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
    partial[name] = function (gd, ...rest) {
      return Promise.resolve(drawFirst.call(this, gd, ...rest)).then((value) => {
        drawnNow(gd);
        return value;
      });
    };
  }
})();

// RedrawGuard: its why and its upstream report are in components/fixes/redraw_guard.py.

const GUARDED = Symbol.for('pe-redraw-guard');

// Whether gd is drawn at exactly width × height.
const drawnAt = (gd, width, height) => {
  const layout = gd?._fullLayout;
  return Boolean(
    layout &&
      width &&
      height &&
      Math.round(layout.width) === Math.round(width) &&
      Math.round(layout.height) === Math.round(height),
  );
};

function guard(Plotly) {
  if (Plotly[GUARDED]) return;
  const relayout = Plotly.relayout;
  Plotly.relayout = function (gd, update, ...rest) {
    const keys = update && typeof update === 'object' ? Object.keys(update) : [];
    if (
      keys.length === 2 &&
      'width' in update &&
      'height' in update &&
      drawnAt(gd, update.width, update.height)
    ) {
      // What the relayout would have recorded, without drawing the same picture again.
      gd.layout.width = update.width;
      gd.layout.height = update.height;
      return Promise.resolve(gd);
    }
    return relayout.call(this, gd, update, ...rest);
  };
  const resize = Plotly.Plots.resize;
  Plotly.Plots.resize = function (gd, ...rest) {
    if (gd && drawnAt(gd, gd.clientWidth, gd.clientHeight)) return Promise.resolve(gd);
    return resize.call(this, gd, ...rest);
  };
  Plotly[GUARDED] = true;
}

export function render() {
  const element = document.createElement('span');
  element.hidden = true;
  // Plotly arrives with the first Plotly pane; wait for it without blocking the page.
  const start = performance.now();
  const wait = () => {
    if (window.Plotly?.Plots) guard(window.Plotly);
    else if (performance.now() - start < 60000) setTimeout(wait, 50);
  };
  wait();
  return element;
}

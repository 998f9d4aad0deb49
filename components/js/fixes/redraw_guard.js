// Redraw guard: why, and the upstream report: components/fixes/redraw_guard.py.
import { addFix, wrapOnce } from './patch_view.js';

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
  wrapOnce(
    Plotly,
    'relayout',
    (relayout) =>
      function (gd, update, ...rest) {
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
      },
  );
  wrapOnce(
    Plotly.Plots,
    'resize',
    (resize) =>
      function (gd, ...rest) {
        if (gd && drawnAt(gd, gd.clientWidth, gd.clientHeight)) return Promise.resolve(gd);
        return resize.call(this, gd, ...rest);
      },
  );
}

// Plotly arrives with the first Plotly pane; wait for it without blocking the page.
addFix(() => {
  const start = performance.now();
  const wait = () => {
    if (window.Plotly?.Plots) guard(window.Plotly);
    else if (performance.now() - start < 60000) setTimeout(wait, 50);
  };
  wait();
});

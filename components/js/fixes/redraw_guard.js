// Redraw guard: why, and the upstream report: components/fixes/redraw_guard.py.
import { addFix, wrapOnce } from './patch_view.js';

// The restyles and relayouts asked of a plot before its first draw, in order (Panel's model
// applies a patch as it arrives, and Plotly throws for a plot not drawn yet).
const waiting = new WeakMap();

// Call original now if gd has been drawn, else once it is (a plot purged away never is).
function whenDrawn(gd, call) {
  if (!gd || typeof gd !== 'object' || gd._fullLayout) return call();
  if (!waiting.has(gd)) waiting.set(gd, []);
  return new Promise((resolve) => waiting.get(gd).push(() => resolve(call())));
}

// After a first draw (newPlot, or react on a new plot), what waited for it, in order.
function drawThenFlush(draw) {
  return function (gd, ...rest) {
    return Promise.resolve(draw.call(this, gd, ...rest)).then((result) => {
      const calls = waiting.get(gd) ?? [];
      waiting.delete(gd);
      for (const call of calls) {
        try {
          call();
        } catch {
          // One failed patch leaves the next to apply; the next whole figure mends the plot.
        }
      }
      return result;
    });
  };
}

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
        if (!gd?._fullLayout) return whenDrawn(gd, () => relayout.call(this, gd, update, ...rest));
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
    Plotly,
    'restyle',
    (restyle) =>
      function (gd, ...rest) {
        return whenDrawn(gd, () => restyle.call(this, gd, ...rest));
      },
  );
  wrapOnce(Plotly, 'newPlot', drawThenFlush);
  wrapOnce(Plotly, 'react', drawThenFlush);
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

"""Works around Panel's Plotly model redrawing plots whose size did not change.

Upstream: none found (the calls came with https://github.com/holoviz/panel/pull/7483);
report text: docs/upstream.md, "Plotly resize".

Panel 1.9.4's Plotly model calls `Plotly.relayout(plot, {width, height})` after every layout
pass of the page and `Plotly.Plots.resize` after every `Plotly.react`; both redraw every trace
even when the size is the one already drawn. The guard lets them through only for a new size.
"""

from __future__ import annotations

from panel.custom import JSComponent


class RedrawGuard(JSComponent):
    """Wraps the page's Plotly once so that a relayout or resize to the drawn size is skipped."""

    _esm = """
    const GUARDED = Symbol.for('pe-redraw-guard');

    // Whether gd is drawn at exactly width × height.
    const drawnAt = (gd, width, height) => {
      const layout = gd && gd._fullLayout;
      return Boolean(layout && width && height &&
                     Math.round(layout.width) === Math.round(width) &&
                     Math.round(layout.height) === Math.round(height));
    };

    function guard(Plotly) {
      if (Plotly[GUARDED]) return;
      const relayout = Plotly.relayout;
      Plotly.relayout = function (gd, update, ...rest) {
        const keys = update && typeof update === 'object' ? Object.keys(update) : [];
        if (keys.length === 2 && 'width' in update && 'height' in update &&
            drawnAt(gd, update.width, update.height)) {
          // What the relayout would have recorded, without drawing the same picture again.
          gd.layout.width = update.width;
          gd.layout.height = update.height;
          return Promise.resolve(gd);
        }
        return relayout.call(this, gd, update, ...rest);
      };
      const resize = Plotly.Plots.resize;
      Plotly.Plots.resize = function (gd) {
        if (gd && drawnAt(gd, gd.clientWidth, gd.clientHeight)) return Promise.resolve(gd);
        return resize.apply(this, arguments);
      };
      Plotly[GUARDED] = true;
    }

    export function render() {
      const element = document.createElement('span');
      element.hidden = true;
      // Plotly arrives with the first Plotly pane; wait for it without blocking the page.
      const start = performance.now();
      const wait = () => {
        if (window.Plotly && window.Plotly.Plots) guard(window.Plotly);
        else if (performance.now() - start < 60000) setTimeout(wait, 50);
      };
      wait();
      return element;
    }
    """

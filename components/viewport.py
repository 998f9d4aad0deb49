"""What the visitor can see: a probe that reports whether a view is on screen, and a guard that
skips Plotly redraws which change nothing."""

from __future__ import annotations

import param
from panel.custom import JSComponent

# How far outside the window a view still counts as on screen. Zero: a view just below the fold
# is not redrawn on every step, and catches up as it scrolls in (one round trip).
NEAR_PX = 0
ROOT_MARGIN = f"{NEAR_PX}px 0px {NEAR_PX}px 0px"


class ViewportProbe(JSComponent):
    """Reports whether the layout it sits in (a view's card) is on screen or near it.

    Put it last in the card. Views that are off screen stop redrawing on every slider step
    and catch up when they come back: with eight views on a page, a step redraws the two or
    three that can be seen instead of all of them. Views below the first row are not even
    built until their probe first reports them on screen (components/page.py).
    """

    on_screen = param.Boolean(default=True, doc="Whether the card is on screen or near it.")
    root_margin = param.String(
        default=ROOT_MARGIN, constant=True, doc="How far off screen still counts as on it."
    )

    _esm = """
    export function render({ model, el }) {
      const element = document.createElement('span');
      element.hidden = true;
      // el lives in this component's shadow root, whose host sits in the card's shadow root.
      const card = () => {
        const host = el.getRootNode().host;
        const root = host && host.getRootNode();
        return (root && root.host) || host;
      };
      // Without an observer, nothing can say a view is off screen: treat every view as on it.
      if (typeof IntersectionObserver !== 'function') {
        model.on_screen = true;
        return element;
      }
      const observer = new IntersectionObserver((entries) => {
        const onScreen = entries[entries.length - 1].isIntersecting;
        if (model.on_screen !== onScreen) model.on_screen = onScreen;
      }, {rootMargin: model.root_margin});
      // The card exists once this component is attached to it.
      requestAnimationFrame(() => {
        const target = card();
        if (target) observer.observe(target);
      });
      model.on('remove', () => observer.disconnect());
      return element;
    }
    """


class RedrawGuard(JSComponent):
    """Stops Panel's Plotly panes from redrawing figures whose size did not change.

    Panel 1.9.4's Plotly model redraws a whole figure in two cases where nothing changed:
    - after every layout pass of the page (any widget re-rendering, such as a slider getting
      a new end), each pane calls ``Plotly.relayout(plot, {width, height})`` with the size it
      already has, and Plotly redraws every trace for it: one step of d_model redrew all eight
      plots;
    - after every ``Plotly.react`` it calls ``Plotly.Plots.resize``, which 100 ms later draws
      the new figure a second time.
    The guard lets both through only when the size differs from the drawn figure's. (Upstream,
    the model should compare sizes before calling either.) One instance per page is enough: it
    wraps the page's Plotly once.
    """

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

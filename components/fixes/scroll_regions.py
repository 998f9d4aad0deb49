"""Works around Panel's HTML pane offering no way to reach its content by keyboard when it scrolls.

Upstream: none found; report text: docs/upstream.md, "Scroll regions".

Wide readouts, tables and code scroll sideways on a phone (`overflow-x: auto`, on the pane's
host or inside it), and a region that scrolls must take focus so that a keyboard can scroll it
(WCAG 2.1.1; axe-core's scrollable-region-focusable). The pane's host lives in its parent's
shadow root, out of reach of its own HTML. Here every HTML pane, after each new content and
each resize, gives `tabindex="0"` to whichever of its host and its elements scrolls sideways,
and takes it back when it no longer does.
"""

from __future__ import annotations

from panel.custom import JSComponent


class ScrollRegions(JSComponent):
    """Makes each sideways-scrolling part of every HTML pane focusable while it scrolls."""

    _esm = """
    const PATCHED = Symbol.for('pe-scroll-regions');
    const QUEUED = Symbol.for('pe-scroll-regions-queued');
    const MARK = 'data-pe-scroll-focus';

    function scrolls(element) {
      const overflow = getComputedStyle(element).overflowX;
      return (overflow === 'auto' || overflow === 'scroll') &&
        element.scrollWidth > element.clientWidth + 1;
    }

    // What can scroll sideways in our panes: the pane itself (`:host { overflow-x: auto }`) and
    // the code, matrices and tables inside it.
    const INSIDE = 'pre, table, .pe-data-scroll';

    function mark(view) {
      view[QUEUED] = false;
      if (view.el == null || view.shadow_el == null) return;
      for (const element of [view.el, ...view.shadow_el.querySelectorAll(INSIDE)]) {
        if (scrolls(element)) {
          if (!element.hasAttribute('tabindex')) {
            element.setAttribute('tabindex', '0');
            element.setAttribute(MARK, '');
          }
        } else if (element.hasAttribute(MARK)) {
          element.removeAttribute('tabindex');
          element.removeAttribute(MARK);
        }
      }
    }

    // Once a frame at most, after the browser has laid the new content out anyway.
    function queue(view) {
      if (view[QUEUED]) return;
      view[QUEUED] = true;
      requestAnimationFrame(() => mark(view));
    }

    function follow(view) {
      if (view[PATCHED] || typeof ResizeObserver !== 'function') return;
      view[PATCHED] = new ResizeObserver(() => queue(view));
      view[PATCHED].observe(view.el);
    }

    function patch() {
      const models = window.Bokeh && window.Bokeh.Models;
      const Model = models && models.get('panel.models.markup.HTML');
      const proto = Model && Model.prototype.default_view && Model.prototype.default_view.prototype;
      if (proto == null || proto[PATCHED]) return;
      const setHTML = proto.set_html;
      proto.set_html = function (...args) {
        const result = setHTML.apply(this, args);
        follow(this);
        queue(this);
        return result;
      };
      proto[PATCHED] = true;
      try {
        for (const view of window.Bokeh.index.query((v) => proto.isPrototypeOf(v))) {
          follow(view);
          mark(view);
        }
      } catch (error) {
        // No index (an unusual embedding): panes are followed from their next content.
      }
    }

    export function render() {
      patch();
      const element = document.createElement('span');
      element.hidden = true;
      return element;
    }
    """

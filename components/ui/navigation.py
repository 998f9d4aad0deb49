"""Finding one's way: the page's table of contents, the cards' anchors (#heatmap, …), and the
phone's layout: a bar that opens the contents and the controls, and text of at least 14 px."""

from __future__ import annotations

import param
from panel.custom import JSComponent

# The widest screen laid out as a phone: one column, with the controls folded into a bar.
PHONE_MAX_PX = 600

# A card's heading is its anchor: id = its ?view= name, reachable by focus (tabindex=-1).
HEADING_CLASS = "pe-card-heading"


def card_heading(name: str, title: str) -> str:
    """The heading of the card of the view called name: the target of #name and of the
    table of contents."""
    return f'<h2 id="{name}" class="{HEADING_CLASS}" tabindex="-1">{title}</h2>'


# The headings sit below the phone's sticky bar when scrolled to.
HEADING_STYLE = f"""
h2.{HEADING_CLASS} {{ scroll-margin-top: 8px; }}
@media (max-width: {PHONE_MAX_PX}px) {{ h2.{HEADING_CLASS} {{ scroll-margin-top: 76px; }} }}
"""

# Text on a phone: at least 14 px (Bokeh's widgets and panes follow --bokeh-font-size, 12 px by
# default). On the page's root; custom properties reach into every shadow root below it.
PHONE_TEXT_STYLE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{ :host {{ --bokeh-font-size: 14px; }} }}
"""

# The sidebar on a phone: a full-width bar that stays at the top of the window, its controls
# folded away until the bar's Controls button opens them (CardNavigator sets data-pe-open).
# !important: Panel writes the sidebar's wide-screen styles on the element itself.
SIDEBAR_PHONE_STYLE = f"""
@media (max-width: {PHONE_MAX_PX}px) {{
  :host {{ flex: 1 1 100% !important; min-width: 0 !important; z-index: 10;
          background: var(--panel-background-color, #ffffff);
          box-shadow: 0 2px 6px rgba(0, 0, 0, 0.2); }}
  :host(:not([data-pe-open])) > :not(.pe-navigator) {{ display: none !important; }}
  :host([data-pe-open]) {{ max-height: 65vh !important; }}
}}
"""

NAVIGATOR_STYLE = f"""
:host {{ width: 100%; }}
.pe-bar {{ display: none; }}
.pe-toc h2, .pe-controls-heading {{ font-size: 1.15em; margin: 0.6em 10px 0.3em; }}
.pe-toc ul {{ list-style: none; margin: 0 10px; padding: 0; display: flex; flex-wrap: wrap;
             gap: 4px; }}
.pe-toc a {{ display: inline-block; box-sizing: border-box; min-height: 26px; padding: 3px 9px;
            border: 1px solid var(--pe-grid, #d1d5db); border-radius: 13px; color: inherit;
            font-size: 14px; line-height: 18px; text-decoration: none; }}
.pe-toc a:hover {{ text-decoration: underline; }}
@media (max-width: {PHONE_MAX_PX}px) {{
  .pe-bar {{ display: flex; gap: 8px; padding: 6px 10px; }}
  .pe-bar button {{ flex: 1 1 0; min-height: 44px; font: inherit; font-size: 16px;
                    color: inherit; background: var(--panel-surface-color, #f3f4f6);
                    border: 1px solid var(--pe-grid, #d1d5db); border-radius: 6px; }}
  .pe-bar button::after {{ content: " ▾"; }}
  .pe-bar button[aria-expanded="true"]::after {{ content: " ▴"; }}
  .pe-toc, .pe-controls-heading {{ display: none; }}
  .pe-toc.pe-open {{ display: block; }}
  .pe-toc h2 {{ display: none; }}
  .pe-toc ul {{ flex-direction: column; gap: 0; }}
  .pe-toc a {{ display: block; min-height: 44px; padding: 0 12px; border: 0; border-radius: 0;
              border-bottom: 1px solid var(--pe-grid, #d1d5db); font-size: 16px;
              line-height: 44px; }}
}}
"""


class CardNavigator(JSComponent):
    """The table of contents of the page's cards, and what takes a reader to a card.

    A card is reached by its link in the contents, by the address's #name (on load and on
    hashchange: the browser cannot reach an id inside Panel's shadow roots itself), and by a
    `pe-explorer:go` event on window ({view, focus}; the questions and the tour send it). The
    card is scrolled to, at once, so its probe reports it on screen and it draws, and its
    heading takes the focus. A card still a frame (ExplorerPage.defer_cards) is scrolled to,
    and its place kept until the card replaces the frame. On a phone it is a bar: Views opens
    the contents, Controls the sidebar it sits in.
    """

    views = param.List(default=[], doc="{name, short} of each card on the page, in order.")
    phone_width = param.Integer(
        default=PHONE_MAX_PX, constant=True, doc="The widest screen laid out as a phone (px)."
    )

    _stylesheets = [NAVIGATOR_STYLE]

    _esm = """
    const HOLD_MS = 60000;  // how long a frame's place is kept for its card
    const SETTLED_TICKS = 10;  // a card is in place after this many checks (100 ms) unmoved

    export function render({ model, el }) {
      const names = model.views.map((view) => view.name);
      const phone = window.matchMedia(`(max-width: ${model.phone_width}px)`);
      const make = (tag, properties = {}) => Object.assign(document.createElement(tag), properties);

      const root = make('div');
      const bar = make('div', {className: 'pe-bar'});
      const viewsButton = make('button', {type: 'button', textContent: 'Views'});
      viewsButton.setAttribute('aria-controls', 'pe-toc');
      const controlsButton = make('button', {type: 'button', textContent: 'Controls'});
      controlsButton.className = 'pe-controls-toggle';
      viewsButton.className = 'pe-views-toggle';
      bar.append(viewsButton, controlsButton);
      const nav = make('nav', {id: 'pe-toc', className: 'pe-toc'});
      nav.setAttribute('aria-label', 'Views');
      const list = make('ul');
      for (const view of model.views) {
        const link = make('a', {href: `#${view.name}`, textContent: view.short});
        link.dataset.view = view.name;
        link.addEventListener('click', (event) => {
          if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey ||
              event.altKey) return;
          event.preventDefault();
          setHash(view.name, false);
          go(view.name, true);
        });
        list.appendChild(make('li')).append(link);
      }
      nav.append(make('h2', {textContent: 'Views'}), list);
      // One card alone (?view=name) needs no contents.
      if (names.length < 2) nav.hidden = viewsButton.hidden = true;
      const heading = make('h2', {className: 'pe-controls-heading', textContent: 'Controls'});
      root.append(bar, nav, heading);

      // The sidebar this sits in: its host, two shadow roots up.
      const sidebar = () => {
        const host = el.getRootNode().host;
        const outer = host && host.getRootNode();
        return outer && outer.host;
      };
      const openViews = (open) => {
        viewsButton.setAttribute('aria-expanded', String(open));
        nav.classList.toggle('pe-open', open);
        if (open) openControls(false);
      };
      const openControls = (open) => {
        controlsButton.setAttribute('aria-expanded', String(open));
        const side = sidebar();
        if (side) side.toggleAttribute('data-pe-open', open);
        if (open) openViews(false);
      };
      openViews(false);
      openControls(false);
      viewsButton.addEventListener('click', () => openViews(!nav.classList.contains('pe-open')));
      controlsButton.addEventListener('click', () =>
        openControls(controlsButton.getAttribute('aria-expanded') !== 'true'));
      root.addEventListener('keydown', (event) => {
        if (event.key !== 'Escape' || !phone.matches || !nav.classList.contains('pe-open')) return;
        openViews(false);
        viewsButton.focus();
      });

      // The headings of the card called name, in every shadow root: the card's own, or its
      // frame's while the card is not built yet.
      const headings = (name) => {
        const found = [];
        const walk = (node) => node.querySelectorAll('*').forEach((element) => {
          if (element.id === name && element.classList.contains('pe-card-heading')) {
            found.push(element);
          }
          if (element.shadowRoot) walk(element.shadowRoot);
        });
        walk(document);
        return found;
      };
      const locate = (name) => {
        const found = headings(name);
        const card = found.find((heading) => !heading.closest('.pe-card-frame'));
        return {heading: card || found[0] || null, built: Boolean(card)};
      };

      // Where the reader is being taken: kept while the card is a frame or still moving.
      let going = null;
      let timer = null;
      const stop = () => {
        going = null;
        clearInterval(timer);
        timer = null;
      };
      const arrive = () => {
        const {heading, built} = locate(going.name);
        if (!heading) return;
        const top = heading.getBoundingClientRect().top;
        if (heading !== going.heading || Math.abs(top - going.top) > 1) {
          heading.scrollIntoView({block: 'start', behavior: 'instant'});
          going.heading = heading;
          going.top = heading.getBoundingClientRect().top;
          going.still = 0;
        } else if (built) {
          going.still += 1;
        }
        if (going.focus && built && heading.getRootNode().activeElement !== heading) {
          heading.focus({preventScroll: true});
        }
      };
      const tick = () => {
        if (!going) return;
        arrive();
        if ((going && going.still >= SETTLED_TICKS) || Date.now() > going.until) stop();
      };
      const go = (name, focus) => {
        if (phone.matches) {
          openViews(false);
          openControls(false);
        }
        going = {name, focus, heading: null, top: 0, still: 0, until: Date.now() + HOLD_MS};
        arrive();
        if (going.heading && going.focus) going.heading.focus({preventScroll: true});
        if (!timer) timer = setInterval(tick, 100);
      };
      // The reader moving the page themselves ends the wait for a card.
      const interrupt = () => { if (going) stop(); };
      const interruptions = ['wheel', 'touchstart', 'keydown', 'mousedown'];
      for (const type of interruptions) {
        window.addEventListener(type, interrupt, {capture: true, passive: true});
      }

      const setHash = (name, replace) => {
        if (window.location.hash === `#${name}`) return;
        try {
          const url = `${window.location.pathname}${window.location.search}#${name}`;
          if (replace) window.history.replaceState(window.history.state, '', url);
          else window.history.pushState(window.history.state, '', url);
        } catch (error) {
          // A sandboxed frame may forbid it; the card is reached all the same.
        }
      };
      const fromHash = () => {
        let name = '';
        try {
          name = decodeURIComponent(window.location.hash.slice(1));
        } catch (error) {
          return null;
        }
        return names.includes(name) ? name : null;
      };
      const onHash = () => {
        const name = fromHash();
        if (name) go(name, true);
      };
      const onGo = (event) => {
        const {view, focus} = event.detail || {};
        if (!names.includes(view)) return;
        setHash(view, true);
        go(view, Boolean(focus));
      };
      window.addEventListener('hashchange', onHash);
      window.addEventListener('pe-explorer:go', onGo);
      if (fromHash()) requestAnimationFrame(onHash);
      model.on('remove', () => {
        stop();
        window.removeEventListener('hashchange', onHash);
        window.removeEventListener('pe-explorer:go', onGo);
        for (const type of interruptions) {
          window.removeEventListener(type, interrupt, {capture: true});
        }
      });
      return root;
    }
    """

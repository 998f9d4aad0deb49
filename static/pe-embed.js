/*! pe-embed.js: fits <iframe data-pe-explorer> frames of the Positional Encoding Explorer to
 * their content. MIT License. Put it once on the host page:
 *   <script src="https://SITE/static/pe-embed.js" defer></script>
 * It accepts a height only from a frame of this page marked data-pe-explorer, sent from that
 * frame's own origin, and only between 80 and 20000 px. */
(() => {
  'use strict';
  if (window.peExplorerEmbeds) return;
  window.peExplorerEmbeds = true;
  const MIN_HEIGHT = 80;
  const MAX_HEIGHT = 20000;

  function frameOf(event) {
    for (const frame of document.querySelectorAll('iframe[data-pe-explorer]')) {
      if (frame.contentWindow !== event.source) continue;
      let origin;
      try {
        origin = new URL(frame.src, document.baseURI).origin;
      } catch {
        return null;
      }
      return origin === event.origin ? frame : null;
    }
    return null;
  }

  window.addEventListener('message', (event) => {
    const data = event.data;
    if (!data || typeof data !== 'object' || data.type !== 'pe-explorer:resize') return;
    const height = Number(data.height);
    if (!Number.isFinite(height) || height < MIN_HEIGHT || height > MAX_HEIGHT) return;
    const frame = frameOf(event);
    if (frame) frame.style.height = `${Math.ceil(height)}px`;
  });
})();

/*! pe-embed.js: fits <iframe data-pe-explorer> frames of the Positional Encoding Explorer to
 * their content. MIT License. Put it once on the host page:
 *   <script src="https://SITE/static/pe-embed.js" defer></script>
 * It accepts a height only from a frame of this page marked data-pe-explorer, sent from that
 * frame's own origin, and only between 80 and 20000 px. */
(function () {
  'use strict';
  if (window.peExplorerEmbeds) return;
  window.peExplorerEmbeds = true;
  var MIN_HEIGHT = 80;
  var MAX_HEIGHT = 20000;

  function frameOf(event) {
    var frames = document.querySelectorAll('iframe[data-pe-explorer]');
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow !== event.source) continue;
      var origin;
      try {
        origin = new URL(frames[i].src, document.baseURI).origin;
      } catch (error) {
        return null;
      }
      return origin === event.origin ? frames[i] : null;
    }
    return null;
  }

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || typeof data !== 'object' || data.type !== 'pe-explorer:resize') return;
    var height = Number(data.height);
    if (!isFinite(height) || height < MIN_HEIGHT || height > MAX_HEIGHT) return;
    var frame = frameOf(event);
    if (frame) frame.style.height = Math.ceil(height) + 'px';
  });
})();

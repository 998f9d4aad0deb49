// In a frame, tell the host page how tall the explorer's content is, so the frame can fit it:
// no inner scrollbar, no gap below. Two messages: our own {type: 'pe-explorer:resize', height}
// (static/pe-embed.js on the host page listens) and Canvas's {subject: 'lti.frameResize',
// height}. Heights only: nothing of the state leaves the frame this way.
(() => {
  'use strict';
  if (window.parent === window) return;

  // Panel renders each root into a container with `display: contents`; before Python, the
  // page is static/startup.js's frames, over Python's page, which is laid out but hidden.
  const CONTENT = '[data-root-id] > *, .pe-before-python';

  function contentHeight() {
    let bottom = 0;
    const before = document.querySelector('.pe-before-python');
    for (const element of before ? [before] : document.querySelectorAll(CONTENT)) {
      const box = element.getBoundingClientRect();
      if (box.height > 0) bottom = Math.max(bottom, box.bottom + window.scrollY);
    }
    return Math.ceil(bottom);
  }

  let posted = 0;
  let queued = false;
  function post() {
    queued = false;
    const height = contentHeight();
    if (height <= 0 || height === posted) return;
    posted = height;
    for (const message of [
      {type: 'pe-explorer:resize', height},
      {subject: 'lti.frameResize', height},
    ]) {
      try {
        window.parent.postMessage(message, '*');
      } catch {
        // A host that went away; nothing to size.
      }
    }
  }
  function schedule() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(post);
  }

  const sizes = new ResizeObserver(schedule);
  const watched = new WeakSet();
  function watchContent() {
    for (const element of document.querySelectorAll(CONTENT)) {
      if (watched.has(element)) continue;
      watched.add(element);
      sizes.observe(element);
    }
    schedule();
  }
  function start() {
    watchContent();
    // Python's page replaces the roots' content: watch the new elements as they come.
    new MutationObserver(watchContent).observe(document.body, {childList: true, subtree: true});
  }
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, {once: true});
})();

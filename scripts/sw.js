// The site's service worker: every file the explorer loads is kept in one cache per build, so a
// return visit starts without the network, and the site works offline after one visit.
// scripts/service_worker.py writes this file as the site's sw.js, filling in BUILD and SITE_FILES.
'use strict';

const BUILD = '__BUILD__';
const CACHE = `pe-explorer-${BUILD}`;
// The page and what its Web Worker loads (Pyodide and every wheel): cached once the page is
// interactive, since the first visit starts before this service worker controls the page.
const SITE_FILES = __SITE_FILES__;

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    // A new build replaces the old one's cache.
    for (const key of await caches.keys()) {
      if (key.startsWith('pe-explorer-') && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

// Every link to the page (?pos=…&view=…, with or without index.html) is the same file.
function cacheKey(request) {
  if (request.mode !== 'navigate') return request;
  const url = new URL(request.url);
  return url.origin + url.pathname.replace(/\/$/, '/index.html');
}

// Files being fetched, by cache key: frames of several embeds on one course page start at
// the same time and ask for the same runtime files; each is fetched once and shared.
const inFlight = new Map();

async function fromCache(request) {
  const cache = await caches.open(CACHE);
  const key = cacheKey(request);
  const cached = await cache.match(key);
  if (cached) return cached;
  const name = typeof key === 'string' ? key : key.url;
  if (!inFlight.has(name)) {
    const fetched = fetch(request).then(async (response) => {
      if (response.ok && response.type === 'basic') await cache.put(key, response.clone());
      return response;
    });
    inFlight.set(name, fetched);
    fetched.finally(() => inFlight.delete(name)).catch(() => {});
  }
  // Every caller reads its own copy; the first response is never read itself.
  return (await inFlight.get(name)).clone();
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.headers.has('range')) return;
  event.respondWith(fromCache(request));
});

// The page, once interactive, sends the files it loaded before this worker controlled it.
self.addEventListener('message', (event) => {
  if (event.data?.type !== 'cache-files') return;
  // The site's own files first: with the page and the runtime kept, a return visit starts.
  const urls = [...new Set([...SITE_FILES, ...event.data.urls])]
    .map((url) => new URL(url, self.location).href)
    .filter((url) => new URL(url).origin === self.location.origin);
  // From the browser's HTTP cache, which has what the page loaded (force-cache), and through
  // fromCache: several frames of one course page send their lists at once, and a file asked
  // for twice must not be fetched twice.
  event.waitUntil((async () => {
    for (const url of urls) {
      try {
        await fromCache(new Request(url, {cache: 'force-cache'}));
      } catch {
        // One file that cannot be fetched now is fetched (and cached) when it is used.
      }
    }
  })());
});

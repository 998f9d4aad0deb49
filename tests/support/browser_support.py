"""Fixtures for browser tests: the app under `panel serve`, driven in Debian Chromium."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from pyodide_support import unavailable

REPO_ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# The start of a page function's body: every element of the page, through Panel's shadow roots
# (where document.querySelectorAll does not look), in `found`.
EVERY_ELEMENT_JS = """
  const found = [];
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    found.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(document);
"""

# Every Plotly plot on the page, through Panel's shadow roots, as {type, shapes, width}.
PLOTS_JS = (
    "() => {"
    + EVERY_ELEMENT_JS
    + """  const plots = found.filter((e) => e.classList && e.classList.contains('js-plotly-plot'));
  return plots.map((plot) => ({
    type: plot.data && plot.data[0] ? plot.data[0].type : null,
    // Shapes, and the heatmap's row markers (layout images) given the same edges.
    shapes: (plot.layout.shapes || []).map((s) => ({name: s.name, y0: s.y0, y1: s.y1, x0: s.x0}))
      .concat((plot.layout.images || []).map((i) => (
        {name: i.name, y0: i.y - i.sizey / 2, y1: i.y + i.sizey / 2, x0: i.x}))),
    columns: plot.data && plot.data[0] && plot.data[0].z ? plot.data[0].z[0].length : null,
    rows: plot.data && plot.data[0] && plot.data[0].z ? plot.data[0].z.length : null,
    title: plot.layout.title ? plot.layout.title.text : '',
    names: (plot.data || []).map((trace) => trace.name || ''),
  }));
}"""
)


def stop_process(process: subprocess.Popen, timeout_s: float) -> None:
    """Ask a server to stop (SIGTERM), and kill it if it has not after timeout_s."""
    process.terminate()
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerLog:
    """What `panel serve` printed, read as it comes (a pipe nobody read would stop the server once
    its 64 KiB filled, e.g. a run that logs an error per step), with a way to wait for a line."""

    def __init__(self, stream):
        self.lines: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def text(self) -> str:
        with self._changed:
            return "".join(self.lines)

    def wait_for(self, predicate, timeout_s: float = 60, what: str = "a line") -> list[str]:
        """Wait until predicate(lines) holds (or the server's output ends); return the lines."""
        with self._changed:
            self._changed.wait_for(lambda: self.ended or predicate(self.lines), timeout=timeout_s)
            if not predicate(self.lines):
                state = "ended" if self.ended else f"said nothing of it within {timeout_s:.0f} s"
                raise RuntimeError(f"panel serve {state} (waiting for {what}):\n{self.text()}")
            return list(self.lines)

    def close(self) -> None:
        self._reader.join(timeout=10)


class ServedURL(str):
    """The URL of an app under `panel serve`, with the server's log (`.log`)."""

    log: ServerLog


@contextmanager
def panel_serve(app: str = "app.py"):
    """An app of this checkout (or of another one, e.g. an old commit's) under `panel serve`; yields
    its URL (a ServedURL: `.log` is the server's output).

    The server also answers /pe-test-idle (tests/support/idle_route.py), which `page_idle` asks.
    When the block ends without an error of its own, the server's log must hold no traceback:
    an exception in a server callback never reaches the page's console.
    """
    port = free_port()
    # The checkout the app belongs to: this one, or another one's (an old commit's, to compare).
    root = next(d for d in (REPO_ROOT / app).resolve().parents if (d / "components").is_dir())
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "panel",
            "serve",
            app,
            "--port",
            str(port),
            "--address",
            "127.0.0.1",
            "--allow-websocket-origin",
            f"127.0.0.1:{port}",
            "--plugins",
            "idle_route",
        ],
        cwd=root,
        # An app outside the repository's root (benchmarks/) still imports components; the idle
        # route is this checkout's.
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(SUPPORT)])),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log = ServerLog(process.stdout)
    url = ServedURL(f"http://127.0.0.1:{port}/{Path(app).stem}")
    url.log = log
    try:
        wait_until_served(process, log, url)
        yield url
    finally:
        stop_process(process, timeout_s=10)
        log.close()
    output = log.text()
    if "Traceback" in output:
        raise RuntimeError(f"panel serve logged an error:\n{output[output.index('Traceback') :]}")


def wait_until_served(process, log: ServerLog, url: str, timeout_s: float = 60) -> None:
    """Wait until the server says it runs the app, and answers url; fail with the server's log if
    it exits first."""
    log.wait_for(
        lambda lines: any("Bokeh app running at" in line for line in lines),
        timeout_s=timeout_s,
        what="Bokeh app running at",
    )
    if process.poll() is not None:
        raise RuntimeError(f"panel serve exited: {log.text()}")
    # Bound and listening by then: the request waits for the server's loop, it is not refused.
    urllib.request.urlopen(url, timeout=timeout_s).close()


@pytest.fixture(scope="session")
def served_app():
    """The app under `panel serve` on a free port; yields its URL."""
    with panel_serve("app.py") as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium_path):
    try:
        from playwright import sync_api
    except ImportError:
        unavailable("no playwright Python package: run ./build.sh setup (pip install -e .[test])")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class ConsoleLog:
    """Console errors and uncaught exceptions of one page."""

    def __init__(self, page):
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def dismiss(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dismiss)

    def relevant_errors(self) -> list[str]:
        return [e for e in self.errors if "favicon" not in e]


@pytest.fixture
def open_app(browser, served_app):
    """Open the app (with an optional query string); yields (page, console log)."""
    contexts = []

    def open_page(query: str = "", viewport=(1400, 900)):
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        install_probe(context)  # for page_idle
        contexts.append(context)
        page = context.new_page()
        log = ConsoleLog(page)
        page.goto(served_app + query)
        page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        return page, log

    yield open_page
    for context in contexts:
        context.close()


def look_at(page, view: str) -> None:
    """Scroll a view onto the screen, as a visitor does before reading it: views off screen
    wait, and catch up once they are seen."""
    page.locator(f".pe-view-{view}").first.scroll_into_view_if_needed()


def text(page, selector: str) -> str:
    return page.locator(selector).first.inner_text().strip()


NEXT_LOOK_MS = 250
NEXT_FRAME_JS = """(lookMs) => new Promise((resolve) => {
  requestAnimationFrame(() => resolve());
  setTimeout(resolve, lookMs);
})"""


def next_frame(page) -> None:
    """Wait for the page's next animation frame: the pace at which wait_until and wait_for_text
    look again (Playwright's own `polling="raf"`), so that they wait for the page, not a clock."""
    from playwright.sync_api import Error as PlaywrightError

    # A page that navigated meanwhile has no frame to give: look again at the new one. A page
    # that draws no frame (a stalled compositor stops requestAnimationFrame) is looked at again
    # every NEXT_LOOK_MS instead of never.
    with contextlib.suppress(PlaywrightError):
        page.evaluate(NEXT_FRAME_JS, NEXT_LOOK_MS)


def wait_for_text(page, selector: str, predicate, timeout_s: float = 10.0) -> str:
    """Look at the text of selector, a frame at a time, until predicate(text) holds; return it
    (or fail)."""
    deadline = time.monotonic() + timeout_s
    value = text(page, selector)
    while not predicate(value):
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} stayed {value!r}")
        next_frame(page)
        value = text(page, selector)
    return value


def plots(page) -> list[dict]:
    return page.evaluate(PLOTS_JS)


def heatmap(page) -> dict:
    (plot,) = [p for p in plots(page) if p["title"].startswith("PE matrix")]
    return plot


def wait_until(page, condition, timeout_s: float = 10.0, what: str = "condition"):
    """Check condition() after each of the page's frames until it returns a truthy value; return
    it (or fail naming what)."""
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        next_frame(page)
    return value


# Installed in a served page before its scripts (open_app, install_probe): it keeps the page's
# socket to its `panel serve` session (Bokeh's, opened with the protocols ['bokeh', token]),
# counts the patches the server sends on it, and can ask the server for a round trip: Bokeh's
# SERVER-INFO-REQ, answered once the server has handled everything the page sent before it
# (a socket's messages are handled in order). ClientSession.force_roundtrip does the same, but
# the page keeps its session out of reach. A page without that socket (the Pyodide build) is left
# as it is.
SERVER_PROBE_JS = r"""(() => {
  if (window.__peServer || typeof window.WebSocket !== 'function') return;
  const P = window.__peServer = {socket: null, token: '', patches: 0, replies: new Map(), next: 0};
  const NativeSocket = window.WebSocket;
  window.WebSocket = class extends NativeSocket {
    constructor(url, protocols) {
      super(url, protocols);
      if (!Array.isArray(protocols) || protocols[0] !== 'bokeh') return;
      P.socket = this;
      P.token = protocols[1] || '';
      this.addEventListener('message', (event) => {
        // A message is a header, its metadata, its content and its buffers: look at headers.
        const data = event.data;
        if (typeof data !== 'string' || data.length > 4096 || !data.includes('"msgtype"')) return;
        let header = null;
        try {
          header = JSON.parse(data);
        } catch {
          return;
        }
        if (!header || typeof header.msgtype !== 'string') return;
        if (header.msgtype === 'PATCH-DOC') P.patches += 1;
        const reply = header.reqid && P.replies.get(header.reqid);
        if (reply) {
          P.replies.delete(header.reqid);
          reply(true);
        }
      });
      this.addEventListener('close', () => {
        for (const reply of P.replies.values()) reply(false);
        P.replies.clear();
      });
    }
  };
  // One round trip; false without an open socket.
  P.roundTrip = () => new Promise((resolve) => {
    const socket = P.socket;
    if (!socket || socket.readyState !== NativeSocket.OPEN) {
      resolve(false);
      return;
    }
    const msgid = `pe-round-trip-${(P.next += 1)}`;
    P.replies.set(msgid, resolve);
    socket.send(JSON.stringify({msgid, msgtype: 'SERVER-INFO-REQ'}));
    socket.send('{}');
    socket.send('{}');
  });
  // What the server still has to do for this page's session (tests/support/idle_route.py).
  P.pending = async () => {
    const route = `/pe-test-idle?token=${encodeURIComponent(P.token)}`;
    const answer = await fetch(route, {cache: 'no-store'});
    return (await answer.json()).pending;
  };
  // Idle: the server has handled all the page sent, has nothing left to do for its session, and
  // a last round trip brought no patch (so the page has all the server wrote, and what the
  // page did with it reached the server too). 'idle', 'busy' (timeoutMs ran out) or 'closed'.
  P.idle = async (timeoutMs) => {
    const end = performance.now() + timeoutMs;
    while (performance.now() < end) {
      if (!(await P.roundTrip())) return 'closed';
      if ((await P.pending()) > 0) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        continue;
      }
      const patches = P.patches;
      if (!(await P.roundTrip())) return 'closed';
      if (P.patches === patches) return 'idle';
    }
    return 'busy';
  };
})()"""

SERVER_IDLE_JS = """(timeoutMs) => {
  if (window.__peServer && window.__peServer.socket) return window.__peServer.idle(timeoutMs);
  if (window.__offline || typeof pyodideWorker !== 'undefined') return 'worker';
  return window.__peServer ? 'no socket to the server' : 'no probe: see install_probe';
}"""

# The Pyodide build: its worker has applied every patch the page sent (Panel's page script marks
# it busy from sending one until the worker says it is idle; static/worker.js says so once Python
# has applied it), and, under the offline harness, nothing changed for quietMs: the harness's
# settle (../shared/pyodide-offline), as Panel applies a change 50 ms after it came in.
WORKER_IDLE_QUIET_JS = """(quietMs) => {
  const probe = window.__offline;
  if (probe) return !probe.workerBusy() && performance.now() - probe.lastActivity() >= quietMs;
  return typeof pyodideWorker === 'undefined'
    || (!pyodideWorker.busy && !pyodideWorker.queue.length);
}"""


# Why the page is not idle, for a failure to say: the worker still busy, or the page still
# changing (how long ago it last did, and its counts of inputs, messages and DOM changes).
WHY_NOT_IDLE_JS = """() => {
  const probe = window.__offline;
  if (!probe) return null;
  return {worker_busy: probe.workerBusy(), counts: probe.counts(),
          last_change_ms_ago: Math.round(performance.now() - probe.lastActivity())};
}"""


def install_probe(context) -> None:
    """Give every page of a browser context the server probe page_idle needs (open_app does)."""
    context.add_init_script(SERVER_PROBE_JS)


def page_idle(page, timeout_s: float = 30, what: str = "the page", quiet_ms: int = 250) -> None:
    """Wait until the page has nothing more coming: served, until the server has handled all the
    page sent and has nothing left to do for its session, and the page has had all it wrote
    (SERVER_PROBE_JS); in the Pyodide build, until the worker is idle (and, under the offline
    harness, the page quiet for quiet_ms). Fails naming what when time runs out."""
    answer = page.evaluate(SERVER_IDLE_JS, timeout_s * 1000)
    if answer == "idle":
        return
    if answer != "worker":
        raise AssertionError(f"{what}: the server did not go idle ({answer})")
    try:
        page.wait_for_function(
            WORKER_IDLE_QUIET_JS, arg=quiet_ms, timeout=timeout_s * 1000, polling=100
        )
    except Exception as error:
        if type(error).__name__ != "TimeoutError":
            raise
        busy = page.evaluate(WHY_NOT_IDLE_JS)
        raise AssertionError(
            f"{what}: the worker did not go idle in {timeout_s:.0f} s ({busy})"
        ) from None


# What each view shows for pos, read from the page: the slider's own text, the compare
# readout, the heatmap's highlighted row, the waves' pos line and the compare plot's title.
SHOWN_POS_JS = (
    "() => {"
    + EVERY_ELEMENT_JS
    + """  const first = (test) => found.find(test);
  const slider = first((e) => e.classList && e.classList.contains('pe-control-pos'));
  const sliderValue = slider && (slider.shadowRoot || slider).querySelector('.bk-slider-value');
  const caption = first((e) => e.classList && e.classList.contains('pe-pos-readout'));
  const plots = found.filter((e) => e.classList && e.classList.contains('js-plotly-plot'));
  const title = (p) => (p.layout.title && p.layout.title.text) || '';
  const image = (p, name) => (p.layout.images || []).find((i) => i.name === name);
  const heat = plots.find((p) => title(p).startsWith('PE matrix'));
  const waves = plots.find((p) => title(p).startsWith('Waves'));
  const bars = plots.find((p) => title(p).startsWith('PE(pos)') && p.data[0].type === 'bar');
  const pos = (text) => {
    const m = /pos = (\\d+)/.exec(text || '');
    return m ? Number(m[1]) : null;
  };
  return {
    slider: sliderValue ? Number(sliderValue.textContent.trim()) : null,
    readout: caption ? pos(caption.textContent) : null,
    heatmap: heat && image(heat, 'pos') ? image(heat, 'pos').y : null,
    waves: waves && image(waves, 'pos') ? image(waves, 'pos').x : null,
    bars: bars ? Number(/PE\\((\\d+)\\)/.exec(bars.data[0].name)[1]) : null,
  };
}"""
)


# An init script for a host page: keep every message its frames post, in window.peMessages.
RECORD_MESSAGES_JS = """() => {
  if (window.parent !== window) return;
  window.peMessages = [];
  window.addEventListener('message', (event) => window.peMessages.push(event.data));
}"""


def host_messages(page, type_: str) -> list[dict]:
    """The messages of one type (e.g. "pe-explorer:state") the host page has received."""
    return [
        m
        for m in page.evaluate("window.peMessages")
        if isinstance(m, dict) and m.get("type") == type_
    ]


# The focused element's chain of shadow hosts, as their class names.
FOCUS_JS = """() => {
  let element = document.activeElement;
  const classes = [];
  while (element) {
    classes.push(String(element.className || ''));
    if (!element.shadowRoot || !element.shadowRoot.activeElement) break;
    element = element.shadowRoot.activeElement;
  }
  return classes.join(' ');
}"""


def tab_to(page, css_class: str, presses: int = 80) -> None:
    """Press Tab until the element with css_class (or one inside it) has the focus."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if css_class in page.evaluate(FOCUS_JS).split():
            return
    raise AssertionError(f"Tab never reached .{css_class}")


# Each view card's ViewportProbe (components/ui/lazy_views.py) as the page holds it: whether it
# has reported the card on screen, and whether the card is on screen (`seen`, from its box), or
# on the edge (`edge`: within a pixel of it, where either answer is right).
PROBES_JS = (
    "() => {"
    + EVERY_ELEMENT_JS
    + """  const doc = window.Bokeh && window.Bokeh.documents[0];
  if (!doc) return {};
  const report = {};
  for (const card of doc.all_models.values()) {
    const match = (card.css_classes || []).map((c) => /^pe-view-(\\w+)$/.exec(c)).find(Boolean);
    const probe = match && (card.children || []).find((m) => m.class_name === 'ViewportProbe');
    const element = match && found.find((e) => e.classList && e.classList.contains(match[0]));
    if (!probe || !element) continue;
    const box = element.getBoundingClientRect();
    const [width, height] = [window.innerWidth, window.innerHeight];
    const inside = box.bottom > 1 && box.top < height - 1 && box.right > 1 && box.left < width - 1;
    const outside = box.bottom < -1 || box.top > height + 1
      || box.right < -1 || box.left > width + 1;
    report[match[1]] = {reported: probe.data.on_screen, seen: inside, edge: !inside && !outside};
  }
  return report;
}"""
)


def probes_reported(page, timeout_s: float = 30) -> dict:
    """Wait until every view card's probe has reported where the card is (on screen or off it),
    and the server has acted on it (page_idle); return {view: on screen}."""

    def agreed():
        probes = page.evaluate(PROBES_JS)
        right = all(p["edge"] or p["reported"] == p["seen"] for p in probes.values())
        return probes if probes and right else None

    # A probe starts watching its card at the frame after it is drawn, and hears where the card
    # is at the next one (viewport_probe.js): a card just drawn has not reported yet.
    next_frame(page)
    next_frame(page)
    wait_until(page, agreed, timeout_s=timeout_s, what="the views' probes to report")
    page_idle(page, timeout_s=timeout_s, what="the server after the probes' reports")
    return {name: probe["reported"] for name, probe in page.evaluate(PROBES_JS).items()}


def query_of(page) -> dict:
    """The page's query string as {key: first value}."""
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def choose_method(page, label: str) -> None:
    """Click the position method's button called label (Sinusoidal, RoPE, ALiBi, none)."""
    page.locator(".pe-control-method button", has_text=label).first.click()


def is_shown(page, selector: str) -> bool:
    """Whether the first element matching selector (through shadow roots) is on the page and
    visible."""
    locator = page.locator(selector).first
    return locator.count() > 0 and locator.is_visible()


# The PlayClock as the page holds it (components/ui/player.py): the steps Python sent, the last
# one the page has drawn, and the Space presses it heard for Play.
CLOCK_JS = """() => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  const clock = doc && [...doc.all_models.values()].find((m) => m.class_name === 'PlayClock');
  return clock ? {sent: clock.data.sent, acked: clock.data.acked,
                  space_presses: clock.data.space_presses} : null;
}"""
EVERY_VIEW = ("slider", "readout", "heatmap", "bars")


def landed(page, agreeing=EVERY_VIEW) -> dict | None:
    """What the views show for pos, once the page has drawn the last step Play sent and the
    views named in agreeing all show one pos (else None)."""
    clock = page.evaluate(CLOCK_JS)
    views = page.evaluate(SHOWN_POS_JS)
    shown = [views[key] for key in agreeing]
    drawn = clock is not None and clock["acked"] == clock["sent"]
    return views if drawn and shown[0] is not None and len(set(shown)) == 1 else None


def held_pos(page, agreeing=EVERY_VIEW, timeout_s: float = 30) -> int:
    """pos once Play has paused and everything it sent has landed, checked to hold still.

    Waits for the page to be idle (page_idle: served, the server with nothing left to do for
    the session; in the Pyodide build, the worker) and for the views named in agreeing to show
    one pos; then pos must be the same after the page is idle once more."""
    try:
        page_idle(page, timeout_s=timeout_s, what="the page after Play paused")
        views = wait_until(
            page, lambda: landed(page, agreeing), timeout_s=timeout_s, what="the views to agree"
        )
    except AssertionError as error:
        seen = page.evaluate(CLOCK_JS), page.evaluate(SHOWN_POS_JS)
        raise AssertionError(f"{error}: clock {seen[0]}, views {seen[1]}") from None
    page_idle(page, timeout_s=timeout_s, what="the page, once more")
    again = landed(page, agreeing)
    assert again == views, f"pos still moved after Play paused: {views} → {again}"
    return views[agreeing[0]]

"""Fixtures for browser tests: the app under `panel serve`, driven in Debian Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from pyodide_support import unavailable

REPO_ROOT = Path(__file__).resolve().parents[2]
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def panel_serve(app: str = "app.py"):
    """An app of this checkout (or of another one, e.g. an old commit's) under `panel serve`; yields
    its URL.

    When the block ends without an error of its own, the server's log must hold no traceback:
    an exception in a server callback never reaches the page's console.
    """
    port = free_port()
    # The checkout the app belongs to: this one, or another one's (an old commit's, to compare).
    root = next(d for d in (REPO_ROOT / app).resolve().parents if (d / "components").is_dir())
    # The server's log goes to a file: a pipe nobody reads would stop the server once its
    # 64 KiB filled (a run that logs an error per step).
    with tempfile.TemporaryFile("w+") as log:
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
            ],
            cwd=root,
            # An app outside the repository's root (benchmarks/) still imports components.
            env=dict(os.environ, PYTHONPATH=str(root)),
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        url = f"http://127.0.0.1:{port}/{Path(app).stem}"
        try:
            wait_until_served(process, log, url)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        log.seek(0)
        output = log.read()
    if "Traceback" in output:
        raise RuntimeError(f"panel serve logged an error:\n{output[output.index('Traceback') :]}")


def wait_until_served(process, log, url: str, timeout_s: float = 60) -> None:
    """Wait until url answers; fail with the server's log if it exits first."""
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"panel serve exited: {log.read()}")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"panel serve did not answer within {timeout_s:.0f} s") from None
            time.sleep(0.3)


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


def wait_for_text(page, selector: str, predicate, timeout_s: float = 10.0) -> str:
    """Poll the text of selector until predicate(text) holds; return it (or fail)."""
    deadline = time.monotonic() + timeout_s
    value = text(page, selector)
    while not predicate(value):
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} stayed {value!r}")
        page.wait_for_timeout(50)
        value = text(page, selector)
    return value


def plots(page) -> list[dict]:
    return page.evaluate(PLOTS_JS)


def heatmap(page) -> dict:
    (plot,) = [p for p in plots(page) if p["title"].startswith("PE matrix")]
    return plot


def wait_until(page, condition, timeout_s: float = 10.0, what: str = "condition"):
    """Poll condition() until it returns a truthy value; return it (or fail naming what)."""
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(50)
    return value


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
  const shape = (p, name) => (p.layout.shapes || []).find((s) => s.name === name);
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
    waves: waves && shape(waves, 'pos') ? shape(waves, 'pos').x0 : null,
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

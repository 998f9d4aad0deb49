"""Running one offline visit of the built Pyodide site for a test module.

The runtime is the shared mirror beside the checkout (../shared/pyodide-mirror) unless
$PYODIDE_MIRROR names another. With CI=true a missing runtime or browser fails the test
instead of skipping it (`unavailable`): a CI run that skipped these tests would pass without
ever loading the site.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared"
SHARED_OFFLINE = SHARED / "pyodide-offline"
SHARED_MIRROR = SHARED / "pyodide-mirror"
HOW_TO_GET_IT = (
    "./build.sh setup installs chromium, openssl and playwright; the harness and the mirror are "
    "../shared/pyodide-offline and ../shared/pyodide-mirror beside the checkout, or set "
    "$PYODIDE_MIRROR; see ../shared/pyodide-offline/README.md"
)
if SHARED_OFFLINE.is_dir() and str(SHARED_OFFLINE) not in sys.path:
    sys.path.insert(0, str(SHARED_OFFLINE))

try:
    import offline_site
except ImportError:
    offline_site = None


def unavailable(reason: str):
    """A test cannot run here: fail under CI=true, skip on a developer's machine."""
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def mirror() -> Path:
    """$PYODIDE_MIRROR, else the shared mirror beside the checkout (never copied into it)."""
    return Path(os.environ.get("PYODIDE_MIRROR") or SHARED_MIRROR).expanduser()


def visit_offline(request: pytest.FixtureRequest, visit: Callable[[Path], dict]) -> dict:
    """visit(site_dir) once, offline; `unavailable` names what is missing when it can't."""
    if offline_site is None:
        missing = [f"no offline Pyodide harness (offline_site.py) at {SHARED_OFFLINE}"]
    else:
        missing = offline_site.missing_prerequisites(mirror())
    if missing:
        unavailable(f"the Pyodide tests cannot run: {'; '.join(missing)}. To fix: {HOW_TO_GET_IT}")
    site_dir = request.getfixturevalue("site_dir")
    # offline_site starts its own Playwright, which refuses to start in a thread where another
    # one runs (the session's `browser` fixture), so the visit gets a thread of its own.
    with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(max_workers=1) as pool:
        patch.setenv("PYODIDE_MIRROR", str(mirror()))  # open_offline_site's default mirror
        return pool.submit(visit, site_dir).result()


def console_errors(site, since: int = 0) -> list[dict]:
    """The visit's console errors (from entry `since` of site.console on), but for Chromium's
    request of a favicon.ico the site lacks."""
    entries = site.console[since:]
    errors = [entry for entry in entries if entry["type"] in ("error", "pageerror")]
    return [entry for entry in errors if "favicon.ico" not in entry["url"] + entry["text"]]


def on_the_site(site_dir: Path, steps: Callable, page: str = "index.html", **options) -> dict:
    """Open the site offline (options go to open_offline_site), run steps(site) once it is
    interactive, and record the load, what the steps returned and the console's errors."""
    with offline_site.open_offline_site(site_dir, page, **options) as site:
        record = {"load": site.load}
        if site.interactive:
            record.update(steps(site))
        record["console_errors"] = console_errors(site)
    return record


class SharedSite:
    """One browser (options for open_offline_site: a desktop's by default, 1280 × 900) for the
    whole run, for the modules that test what a page does, not how it starts cold: each takes
    its turn there (`in_turn`), its links return visits, a load of about 7 s against 12 s in a
    new browser. Playwright's sync API stays in the thread that started it, so the browser lives
    in a thread of its own and every use of it runs there (`run`)."""

    def __init__(self, site_dir: Path, **options):
        self._pool = ThreadPoolExecutor(max_workers=1)
        self._opened = offline_site.open_offline_site(site_dir, "index.html", mirror(), **options)
        self.site = self._pool.submit(self._opened.__enter__).result()

    def run(self, work: Callable):
        """work(site), in the browser's thread: what it returns."""
        return self._pool.submit(work, self.site).result()

    def close(self) -> None:
        try:
            self._pool.submit(self._opened.__exit__, None, None, None).result()
        finally:
            self._pool.shutdown()


@contextmanager
def in_turn(site, **media):
    """A module's turn on a shared browser: the page dismisses and lists (yields) the dialogs
    it opens, and sees the media features given (Playwright's emulate_media: color_scheme,
    reduced_motion), a visitor's preferences. After it, the window has its size back,
    the page forgets the theme a visitor chose (the one thing it keeps) and goes blank, so
    nothing of it runs while other modules use their own browsers."""
    dialogs = []

    def dismiss(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page = site.page  # a turn never calls revisit(), which opens another page
    size = page.viewport_size
    page.on("dialog", dismiss)
    page.emulate_media(**media)
    try:
        yield dialogs
    finally:
        page.remove_listener("dialog", dismiss)
        page.emulate_media(**dict.fromkeys(media, "null"))
        page.set_viewport_size(size)
        with suppress(Exception):  # a page that died has nothing left to forget
            site.page.evaluate("() => window.localStorage.clear()")
        site.page.goto("about:blank")


def on_the_shared_site(site, steps: Callable, start: str = "") -> dict:
    """On the shared browser, in turn: open the link start, run steps(site) once it is
    interactive, and record the load, what the steps returned, the dialogs and the console's
    errors, of this module alone."""
    since = len(site.console)
    with in_turn(site) as dialogs:
        record = {"load": site.goto(start), "dialogs": dialogs}
        try:
            if site.interactive:
                record.update(steps(site))
        finally:
            record["console_errors"] = console_errors(site, since)
    return record


def test_console_has_no_errors(visit):
    """The visit's console stayed clean: every module with a `visit` imports this test, so pytest
    collects it there, against that module's visit."""
    assert visit["console_errors"] == [], visit["console_errors"]


# A JS function (root, selector): every element inside root (a card) matching selector, through
# shadow roots.
INSIDE_JS = """(root, selector) => {
  const found = [];
  const walk = (node) => node.querySelectorAll('*').forEach((element) => {
    if (element.matches(selector)) found.push(element);
    if (element.shadowRoot) walk(element.shadowRoot);
  });
  walk(root.shadowRoot || root);
  return found;
}"""


def made_by_the_page(paths: list[str]) -> list[str]:
    """The site's request paths a page's steps sent, less the one request Chromium sends of its
    own: after a navigation it checks the service worker's script (/sw.js) for an update once,
    when the worker has been idle a while, at a time of its own that a quick page's steps can
    reach. A second one is the page's, and stays."""
    rest = list(paths)
    if "/sw.js" in rest:
        rest.remove("/sw.js")
    return rest


def wait_for(site, expression: str, timeout_s: float = 90) -> bool:
    """Wait in the offline site's page (Playwright's wait_for_function) until the JS function
    `expression` returns true: whether it did before time ran out. While a page is still being
    drawn an element the expression reads may not exist yet; an exception then means "not yet",
    never a failed wait (a polled predicate that throws ends Playwright's wait at once)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    guarded = f"() => {{ try {{ return ({expression})(); }} catch {{ return false; }} }}"
    try:
        site.page.wait_for_function(guarded, timeout=timeout_s * 1000, polling=100)
    except PlaywrightTimeout:
        return False
    return True


class QuietHandler(SimpleHTTPRequestHandler):
    """A static file server that does not log each request."""

    def log_message(self, *args):
        pass


def page_holds(page, predicate: str, arg=None, timeout_s: float = 90) -> bool:
    """Wait in a page (Playwright's wait_for_function) until the JS function predicate(arg) returns
    something truthy (True), or time runs out (False). An exception while the page is drawn
    means "not yet", as in wait_for."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    guarded = f"(arg) => {{ try {{ return ({predicate})(arg); }} catch {{ return false; }} }}"
    try:
        page.wait_for_function(guarded, arg=arg, timeout=timeout_s * 1000, polling=100)
    except PlaywrightTimeout:
        return False
    return True

"""Every rewrite of what `panel convert app.py --to pyodide-worker` writes (Panel 1.9.4 only).

Panel writes the page `app.html` and its worker `app.js`. The worker is replaced whole by the
site's own (static/worker.js), never edited. The page becomes `index.html`, with:

* In its head: the viewport (a phone lays the page out at its own width), the page's colours in
  both themes, the site's icon inline (browsers then neither ask for a missing `/favicon.ico` nor
  fetch the icon again after each step: components/plotkit/icon.py), the `file://` notice
  (static/file-protocol.js: browsers refuse to start the worker for a page opened from disk, and
  Panel's spinner would turn forever), the facts static/startup.js needs to draw the page a link
  asks for, the worker's protocol (static/protocol.js) and static/startup.js.
* The first paint. Panel's page loads plotly.js, BokehJS and Panel's JS in its head, and paints
  nothing until they have run. They are deferred instead, and the page's header is painted at
  once, until Bokeh shows the prerendered page.
* The CDN URLs of its scripts and stylesheets pointed at the site's copies in runtime/.
* plotly.js's cartesian partial bundle where Panel's page loads the full one, followed by
  static/plotly-on-demand.js, which loads the full bundle for a figure that needs it
  (scripts/plotly_bundle.py).
* The build's id, which names the service worker's cache and the shared worker.
* The prerendered page without the views' picks (components/plotkit/picks.py): they serve a drag,
  and nothing is dragged before Python runs, whose first drawing replaces the page and sends them
  (about 220 kB of the page's JSON, 135 kB gzipped, a first visit would fetch for nothing).

Each rewrite checks that it finds exactly what Panel 1.9.4 writes, and the build stops if not.
"""

from __future__ import annotations

import html as html_text
import json
import re
import shutil
from importlib.metadata import version
from pathlib import Path

PANEL_VERSION = "1.9.4"
if version("panel") != PANEL_VERSION:
    raise SystemExit(
        f"scripts/panel_output.py rewrites the output of Panel {PANEL_VERSION}, not of Panel "
        f"{version('panel')}: check each rewrite against the new output, then PANEL_VERSION"
    )

APP_NAME = "app"
WORKER = Path(__file__).resolve().parents[1] / "static" / "worker.js"
# How Panel's page script (inline in the page) starts its worker.
START_WORKER = f'new Worker("./{APP_NAME}.js")'
HEAD_ADDITIONS = (
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    '<style id="pe-theme-style">{theme_css}</style>\n'
    '<link rel="icon" href="{icon}" type="image/svg+xml">\n'
    '<script src="static/file-protocol.js"></script>\n'
    '<script type="application/json" id="pe-before-python">{facts}</script>\n'
    '<script src="static/protocol.js"></script>\n'
    '<script src="static/startup.js"></script>\n'
    '<meta name="responsive-embedded-sizing">\n'
    '<script src="static/frame-size.js"></script>\n'
)
STARTUP = '<script src="static/startup.js"></script>'
# Panel's scripts in the head (es-module-shims, plotly.js, BokehJS, Panel): deferred, they no
# longer hold back the page's first paint (about 2 s of script on this machine); they still run
# in order, before DOMContentLoaded, which is when Panel's page script embeds the prerendered page.
PANEL_SCRIPT = '<script type="text/javascript" src="'
LOG_LEVEL = 'Bokeh.set_log_level("info");'
# Bokeh's roots: the prerendered page is appended to each; the first gets the first paint.
FIRST_ROOT = re.compile(
    r'(<div id="[^"]+" data-root-id="[^"]+" style="display: contents;">)(</div>)'
)
CDN_HOSTS = ("cdn.jsdelivr.net", "cdn.holoviz.org", "cdn.bokeh.org")


class PanelOutputChanged(RuntimeError):
    """Panel's output is not what these rewrites were written for."""


def expect_once(text: str, part: str, where: Path) -> None:
    if text.count(part) != 1:
        raise PanelOutputChanged(f"{where}: expected one {part!r}, found {text.count(part)}")


def replace_worker(site: Path) -> Path:
    """The site's worker script (static/worker.js), whole, where Panel wrote its own."""
    worker = site / f"{APP_NAME}.js"
    if not worker.is_file():
        raise PanelOutputChanged(f"panel convert wrote no {worker}")
    shutil.copyfile(WORKER, worker)
    return worker


def first_paint(html: str, first_paint_html: str, page: Path) -> str:
    """Paint the page's header before any script runs: Panel's head scripts deferred, its one
    inline call to Bokeh run once they have, and the header in the first root."""
    head, separator, body = html.partition("</head>")
    if head.count(PANEL_SCRIPT) < 2 or head.count(LOG_LEVEL) != 1 or not FIRST_ROOT.search(body):
        raise PanelOutputChanged(f"{page}: not the head and roots of Panel's page")
    head = head.replace(PANEL_SCRIPT, PANEL_SCRIPT.replace(" src=", " defer src="))
    head = head.replace(
        LOG_LEVEL,
        f"document.addEventListener('DOMContentLoaded', () => {{ {LOG_LEVEL} }}, {{once: true}});",
    )
    body = FIRST_ROOT.sub(lambda m: m[1] + first_paint_html + m[2], body, count=1)
    return head + separator + body


def point_at_runtime(html: str, site: Path, page: Path) -> str:
    """Every CDN URL of the page becomes the site's copy, which must exist."""
    for host in CDN_HOSTS:
        html = html.replace(f"https://{host}/", f"runtime/{host}/")
    missing = [
        url
        for url in sorted(set(re.findall(r'(?:src|href)="(runtime/[^"]+)"', html)))
        if not (site / url).is_file()
    ]
    if missing:
        raise PanelOutputChanged(f"{page} names runtime files that were not copied: {missing}")
    left = re.findall(rf"https://(?:{'|'.join(map(re.escape, CDN_HOSTS))})/[^\"' ]+", html)
    if left:
        raise PanelOutputChanged(f"{page} still loads from a CDN: {left[:3]}")
    return html


def make_index_page(
    site: Path, icon: str, facts: dict, first_paint_html: str, theme_css: str
) -> Path:
    """Panel's app page as index.html: the head additions, the first paint, the site's runtime."""
    page = site / f"{APP_NAME}.html"
    html = page.read_text(encoding="utf-8")
    charset = '<meta charset="utf-8">'
    expect_once(html, charset, page)
    expect_once(html, START_WORKER, page)
    html = first_paint(html, first_paint_html, page)
    html = point_at_runtime(html, site, page)
    # First in the head, after the charset: static/startup.js wraps the Worker Panel's script
    # creates, and the file:// notice replaces the spinner before anything else loads.
    # Inside <script>, "</" could end the element: JSON allows "<\/" for it.
    facts_json = json.dumps(facts, ensure_ascii=False).replace("</", "<\\/")
    head = HEAD_ADDITIONS.format(icon=icon, facts=facts_json, theme_css=theme_css)
    index = site / "index.html"
    index.write_text(html.replace(charset, charset + "\n" + head, 1), encoding="utf-8")
    page.unlink()
    return index


# The prerendered page's document, as Panel writes it: Bokeh's JSON in a script element.
DOCS_JSON = re.compile(r'(<script type="application/json" id="p\d+">)(.*?)(</script>)', re.S)
# A view's picks (ViewPicks' parameters): left at their defaults in the prerendered page.
PICKS = ("tables", "pos_picks", "offset_picks")


def without_picks(docs: object) -> int:
    """Take the picks out of every ViewPicks model of Bokeh's docs JSON; how many models."""
    found = 0
    if isinstance(docs, dict):
        if docs.get("type") == "object" and str(docs.get("name", "")).startswith("ViewPicks"):
            attributes = docs.get("attributes", {})
            for name in PICKS:
                attributes.pop(name, None)
            found += 1
        return found + sum(without_picks(value) for value in docs.values())
    if isinstance(docs, list):
        return found + sum(without_picks(value) for value in docs)
    return found


def prerender_without_picks(site: Path) -> int:
    """The prerendered page's views without their picks; how many views had them."""
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    scripts = DOCS_JSON.findall(html)
    if len(scripts) != 1:
        raise PanelOutputChanged(f"{page}: expected one document's JSON, found {len(scripts)}")
    docs = json.loads(html_text.unescape(scripts[0][1]))
    views = without_picks(docs)
    text = html_text.escape(json.dumps(docs, separators=(",", ":")), quote=False)
    html = DOCS_JSON.sub(lambda match: match[1] + text + match[3], html, count=1)
    page.write_text(html, encoding="utf-8")
    return views


def use_partial_plotly(site: Path, full: str, partial: str, on_demand: str) -> None:
    """The page loads plotly.js's partial bundle instead of the full one, then the script that
    loads the full one when a figure needs it."""
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    script = f'<script type="text/javascript" defer src="{full}"></script>'
    expect_once(html, script, page)
    loader = f'<script defer src="{on_demand}" data-full="{full}"></script>'
    html = html.replace(script, script.replace(full, partial) + "\n" + loader)
    page.write_text(html, encoding="utf-8")


def name_build(site: Path, build_id: str, service_worker: str) -> None:
    """Name the build in the page, before static/startup.js, which registers the service
    worker and names the shared worker after the build: a page never joins the shared worker of
    another build that an open tab still runs."""
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    expect_once(html, STARTUP, page)
    meta = f'<meta name="pe-service-worker" content="{service_worker}" data-build="{build_id}">\n'
    page.write_text(html.replace(STARTUP, meta + STARTUP), encoding="utf-8")

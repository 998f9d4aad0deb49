"""Finish the static site that `panel convert app.py --to pyodide-worker` wrote.

Panel 1.9.4 leaves four things to do:

* The project's wheel. Given a local wheel as a requirement, Panel packs it into
  `app.resources.zip` and installs it from Pyodide's in-memory file system. Instead the wheel
  sits in the site as a plain file and the worker installs it from a URL relative to the
  worker script (micropip fetches it with the worker's `fetch`, which resolves relative URLs
  against the worker script's own URL), so the site needs no archive and works under any path.
* The entry page. Panel names the page after the script (`app.html`); `--index` would write a
  separate page of links. The app page becomes `index.html`; its worker stays `app.js`.
* Opening the page from disk. Browsers refuse to start the worker for a `file://` page, and
  Panel's spinner then turns forever. `static/file-protocol.js` replaces it with instructions
  to serve the folder. The page also gets the site's icon, inline: browsers then neither ask
  for a missing `/favicon.ico` nor fetch the icon again after each step (components/ui/icon.py).
* The first paint. Panel's page loads plotly.js, BokehJS and Panel's JS in its head, and paints
  nothing until they have run. They are deferred instead, and the page's header
  (pe_explorer.ui.page.first_paint_html) is painted at once, until Bokeh shows the prerendered page.

Finally it checks that no text file of the site names a path of the build machine.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

APP_NAME = "app"
# The one micropip call of Panel's worker template (panel/_templates/pyodide_worker.js),
# rendered as a Python list of repr()'d requirement strings.
INSTALL_CALL = re.compile(r"(await micropip\.install\(\[)(.*?)(\]\);)", re.DOTALL)
HEAD_ADDITIONS = (
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    '<style id="pe-theme-style">{theme_css}</style>\n'
    '<link rel="icon" href="{icon}" type="image/svg+xml">\n'
    '<script src="static/file-protocol.js"></script>\n'
    '<script type="application/json" id="pe-before-python">{facts}</script>\n'
    '<script src="static/startup.js"></script>\n'
    '<meta name="responsive-embedded-sizing">\n'
    '<script src="static/frame-size.js"></script>\n'
)
# Panel's scripts in the head (es-module-shims, plotly.js, BokehJS, Panel): deferred, they no
# longer hold back the page's first paint (about 2 s of script on this machine); they still run
# in order, before DOMContentLoaded, which is when Panel's page script embeds the prerendered page.
PANEL_SCRIPT = '<script type="text/javascript" src="'
LOG_LEVEL = 'Bokeh.set_log_level("info");'
# Bokeh's roots: the prerendered page is appended to each; the first gets the first paint.
FIRST_ROOT = re.compile(
    r'(<div id="[^"]+" data-root-id="[^"]+" style="display: contents;">)(</div>)'
)
# A file URL naming a path (`file:/work/...`, `file:///tmp/...`, Panel's form for local wheels);
# neither `location.protocol === 'file:'` nor prose about "file://" pages is one.
FILE_URL = re.compile(r"\bfile:/+\w")
BINARY_SUFFIXES = {".whl", ".zip", ".png", ".ico", ".wasm"}


def add_wheel_to_worker(worker: Path, wheel_url: str) -> None:
    """Install `wheel_url` right after the worker's micropip.install([...]) call, deps=False.

    Its own call, without dependencies: the list above already holds every runtime requirement,
    and resolving the wheel's requirements alongside the list's once made micropip download
    the 9.7 MB plotly wheel twice (seen in the offline runner's request log).
    """
    source = worker.read_text(encoding="utf-8")
    calls = INSTALL_CALL.findall(source)
    if len(calls) != 1:
        sys.exit(f"{worker}: expected one micropip.install([...]) call, found {len(calls)}")
    source = INSTALL_CALL.sub(
        lambda m: f"{m[0]}\n      await micropip.install({wheel_url!r}, deps=False);",
        source,
        count=1,
    )
    worker.write_text(source, encoding="utf-8")


def first_paint(html: str, first_paint_html: str, page: Path) -> str:
    """Paint the page's header before any script runs: Panel's head scripts deferred, its one
    inline call to Bokeh run once they have, and the header in the first root."""
    head, separator, body = html.partition("</head>")
    if head.count(PANEL_SCRIPT) < 2 or head.count(LOG_LEVEL) != 1 or not FIRST_ROOT.search(body):
        sys.exit(f"{page}: not the head and roots of Panel 1.9's page, cannot defer its scripts")
    head = head.replace(PANEL_SCRIPT, PANEL_SCRIPT.replace(" src=", " defer src="))
    head = head.replace(
        LOG_LEVEL,
        f"document.addEventListener('DOMContentLoaded', () => {{ {LOG_LEVEL} }}, {{once: true}});",
    )
    body = FIRST_ROOT.sub(lambda m: m[1] + first_paint_html + m[2], body, count=1)
    return head + separator + body


def make_index_page(
    site: Path, icon: str, facts: dict, first_paint_html: str, theme_css: str
) -> Path:
    """Rename the app page to index.html and add to its head the viewport (a phone lays the
    page out at its own width), the page's colours in both themes, the icon, the file:// notice,
    and static/startup.js with the facts it needs to draw the page a link asks for; paint the
    header first (first_paint)."""
    page = site / f"{APP_NAME}.html"
    html = page.read_text(encoding="utf-8")
    charset = '<meta charset="utf-8">'
    if html.count(charset) != 1:
        sys.exit(f"{page}: expected one {charset}")
    html = first_paint(html, first_paint_html, page)
    index = site / "index.html"
    # First in the head, after the charset: static/startup.js wraps the Worker Panel's script
    # creates, and the file:// notice replaces the spinner before anything else loads.
    # Inside <script>, "</" could end the element: JSON allows "<\/" for it.
    facts_json = json.dumps(facts, ensure_ascii=False).replace("</", "<\\/")
    head = HEAD_ADDITIONS.format(icon=icon, facts=facts_json, theme_css=theme_css)
    index.write_text(html.replace(charset, charset + "\n" + head, 1), encoding="utf-8")
    page.unlink()
    return index


def leaked_paths(site: Path, forbidden: list[str]) -> list[str]:
    """`file: reason` for every text file of the site that names a forbidden path or a file URL."""
    problems = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        if path.suffix in BINARY_SUFFIXES:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found = [f for f in forbidden if f in text]
        if FILE_URL.search(text):
            found.append("a file: URL")
        if found:
            problems.append(f"{path.relative_to(site)}: {', '.join(found)}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the folder panel convert wrote")
    parser.add_argument("--wheel", required=True, help="the project's wheel, relative to SITE")
    parser.add_argument("--root", type=Path, required=True, help="the repository root")
    args = parser.parse_args()

    site = args.site
    wheel = site / args.wheel
    if not wheel.is_file():
        sys.exit(f"no wheel at {wheel}")
    # The worker script is at the root of the site, so this URL resolves to the wheel.
    add_wheel_to_worker(site / f"{APP_NAME}.js", f"./{Path(args.wheel).as_posix()}")
    sys.path.insert(0, str(args.root.resolve()))
    from pe_explorer.ui.icon import ICON, icon_data_uri
    from pe_explorer.ui.page import before_python_facts, first_paint_html
    from pe_explorer.ui.theme import document_css

    icon = icon_data_uri()
    if icon is None:
        sys.exit(f"no icon at {ICON}")
    make_index_page(site, icon, before_python_facts(), first_paint_html(), document_css())

    forbidden = sorted({str(args.root.resolve()), str(site.resolve())})
    problems = leaked_paths(site, forbidden)
    if problems:
        sys.exit("the site names paths of this machine:\n  " + "\n  ".join(problems))


if __name__ == "__main__":
    main()

"""Dragging pos in the built Pyodide site against a plain-JavaScript page, in the same run.

The plain page has the same plotly.js bundle, the same PE matrix as a heatmap (N × 128) and a
range input whose `input` event moves an outline over row pos with `Plotly.relayout`: the most a
page can do with no Python at all. The explorer is `?view=heatmap&n_positions=N` (and its full
page, where the comparison view is drawn beside it). Both are dragged the same way, with Chrome's
own mouse events (CDP `Input.dispatchMouseEvent`) at 15 and 60 moves a second for 2 s, and on a
phone profile (390 px, touch events, CPU slowed 4× by CDP). A recorder in the page reads, after
each animation frame is painted, the pos the view marks (the heatmap's row). Measured:

- rows drawn per second: frames whose marked row differs from the frame before, over the drag;
- delay from a move (the input event, timed in the page) to the first frame marking its row,
  p50 and p95 (a value passed over before it could be drawn is counted as skipped);
- after release, how long until Python's own redraw of the final value has landed (its picks
  say so), and whether the heatmap's pixels then differ from what the pick drew.

    python -m benchmarks.drag [--site dist] [--sizes 64,512,2048] [--rates 15,60] [--json PATH]
                              [--view heatmap|mistakes]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from . import pyodide_site

REPO_ROOT = Path(__file__).resolve().parents[1]
PLOTLY = "runtime/cdn.holoviz.org/panel/1.9.4/dist/bundled/plotlyplot/plotly-cartesian-3.1.0.min.js"
PHONE_SIZE = (390, 844)
PHONE = {
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 3,
}
SECONDS = 2.0

PLAIN_HTML = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>plain</title></head><body style="font-family:sans-serif;margin:8px">
<label>pos <input id="pos" type="range" min="0" max="LAST" value="7" style="width:95%"></label>
<div id="plot" style="height:460px"></div>
<script src="PLOTLY"></script>
<script>
const z = ZJSON;
const outline = 'data:image/svg+xml;base64,' + btoa('<svg xmlns="http://www.w3.org/2000/svg" '
  + 'width="10" height="10"><rect width="10" height="10" fill="none" stroke="black" '
  + 'stroke-width="2" vector-effect="non-scaling-stroke"/></svg>');
Plotly.newPlot('plot', [{type: 'heatmap', z, zmin: -1, zmax: 1}], {height: 460,
  images: [{source: outline, xref: 'paper', yref: 'y', x: 0, y: 7, sizex: 1, sizey: 1,
            sizing: 'stretch', xanchor: 'left', yanchor: 'middle', layer: 'above',
            name: 'pos'}]}, {responsive: true});
const input = document.getElementById('pos');
window.__peInputs = [];
input.addEventListener('input', () => {
  const value = Number(input.value);
  window.__peInputs.push({t: performance.now(), value});
  Plotly.relayout('plot', {'images[0].y': value});
});
</script></body></html>"""

# Records every input (the explorer's picker hears each move as a 'pe-pick' event) and, after each
# painted frame, the pos the view marks and the pos Python last drew.
RECORD_JS = """({view}) => {
  window.__peInputs = window.__peInputs || [];
  document.addEventListener('pe-pick', (event) => {
    if (event.detail.axis === 'pos') {
      window.__peInputs.push({t: performance.now(), value: event.detail.value});
    }
  });
  const frames = [];
  window.__peFrames = frames;
  const charts = () => window.__offline ? window.__offline.deep('.js-plotly-plot')
    : [...document.querySelectorAll('.js-plotly-plot')];
  let found = [];
  let foundAt = -1e9;
  const marked = () => {
    // Looking through every shadow root costs the page time: once every half second.
    if (performance.now() - foundAt > 500) {
      found = charts();
      foundAt = performance.now();
    }
    for (const gd of found) {
      // An image spanning the paper across marks a row (y), else a column (x).
      const image = ((gd.layout && gd.layout.images) || []).find((i) => i.name === 'pos');
      if (image) return image.xref === 'paper' ? image.y : image.x;
    }
    return null;
  };
  const drawn = () => {
    const registry = window[Symbol.for('pe-picks')];
    if (!registry) return null;
    for (const [key, model] of registry) {
      if (!key.startsWith(view)) continue;
      const d = model.drawn;
      return d instanceof Map ? d.get('pos') : d && d.pos;
    }
    return null;
  };
  const tick = (stamp) => {
    setTimeout(() => frames.push({t: stamp, row: marked(), python: drawn()}), 0);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return true;
}"""

GEOMETRY_JS = """() => {
  const deep = (s) => window.__offline ? window.__offline.deep(s)
    : [...document.querySelectorAll(s)];
  const range = document.getElementById('pos');
  let track, handle;
  if (range) {
    track = range.getBoundingClientRect();
    const span = Number(range.max) - Number(range.min);
    const fraction = (Number(range.value) - Number(range.min)) / span;
    handle = {x: track.left + 8 + fraction * (track.width - 16), y: track.top + track.height / 2};
  } else {
    const host = deep('.pe-control-pos')[0];
    const knob = (host.shadowRoot || host).querySelector('.noUi-handle');
    knob.scrollIntoView({block: 'center'});
    const base = (host.shadowRoot || host).querySelector('.noUi-base') || knob.parentElement;
    track = base.getBoundingClientRect();
    const box = knob.getBoundingClientRect();
    handle = {x: box.left + box.width / 2, y: box.top + box.height / 2};
  }
  return {left: track.left, width: track.width, x: handle.x, y: handle.y};
}"""


def drag(page, hz: float, touch: bool, to: float = 0.9) -> dict:
    """Drag the pos handle to fraction `to` of its track in SECONDS at hz moves a second."""
    where = page.evaluate(GEOMETRY_JS)
    cdp = page.context.new_cdp_session(page)
    x0, y = where["x"], where["y"]
    x1 = where["left"] + to * where["width"]

    def send(kind: str, x: float) -> None:
        if touch:
            points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
        else:
            buttons = 0 if kind == "mouseReleased" else 1
            cdp.send(
                "Input.dispatchMouseEvent",
                {
                    "type": kind,
                    "x": x,
                    "y": y,
                    "button": "left",
                    "buttons": buttons,
                    "clickCount": 1,
                },
            )

    start_kind, move_kind, end_kind = (
        ("touchStart", "touchMove", "touchEnd")
        if touch
        else ("mousePressed", "mouseMoved", "mouseReleased")
    )
    t_press = page.evaluate("() => performance.now()")
    send(start_kind, x0)
    moves = round(SECONDS * hz)
    begun = time.monotonic()
    for step in range(1, moves + 1):
        send(move_kind, x0 + (x1 - x0) * step / moves)
        wait = begun + step / hz - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    send(end_kind, x1)
    t_release = page.evaluate("() => performance.now()")
    cdp.detach()
    return {"press": t_press, "release": t_release, "moves": moves}


# Every chart of the page that a pick can move has its picks (PlotView.picks_held: a page's first
# views send theirs once the page is shown, just after it is interactive).
PICKS_READY_JS = """() => {
  const picker = window[Symbol.for('pe-picker')];
  if (!picker) return false;
  const charts = [...picker.views].filter((view) => {
    const tags = view.model.tags || [];
    return view.el && view.el.isConnected && typeof tags[1] === 'string' && tags[1] !== '';
  });
  return charts.length > 0 && charts.every((view) => view.model.tags[2] > 0);
}"""


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summarise(frames: list[dict], inputs: list[dict], window: dict) -> dict:
    """Rows drawn per second, the move-to-row delays and what was skipped, in the drag window."""
    during = [f for f in frames if window["press"] <= f["t"] <= window["release"] + 50]
    changes = sum(1 for a, b in zip(during, during[1:], strict=False) if b["row"] != a["row"])
    seconds = (window["release"] - window["press"]) / 1000
    delays, skipped = [], 0
    moves = [i for i in inputs if window["press"] <= i["t"] <= window["release"] + 5]
    for move in moves:
        shown = next(
            (f for f in frames if f["t"] >= move["t"] - 17 and f["row"] == move["value"]), None
        )
        if shown is None:
            skipped += 1
        else:
            delays.append(max(0.0, shown["t"] - move["t"]))
    return {
        "rows_per_s": round(changes / seconds, 1) if seconds else None,
        "inputs": len(moves),
        "skipped": skipped,
        "delay_p50_ms": percentile(delays, 0.5),
        "delay_p95_ms": percentile(delays, 0.95),
    }


def python_landed(page, final: int, release: float, timeout_s: float = 30) -> float | None:
    """ms from release until a painted frame shows Python's own drawing of the final pos."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        frames = page.evaluate("() => window.__peFrames")
        landed = next((f for f in frames if f["t"] >= release and f["python"] == final), None)
        if landed:
            return round(landed["t"] - release, 1)
        page.wait_for_timeout(100)
    return None


# The views a drag is measured on: what marks pos is an image named pos (the heatmap's outline of
# a row, the mistakes view's line at a position).
MARKED = ("heatmap", "mistakes")


def one_drag(site, page, query: str, hz: float, touch: bool, explorer: bool,
             view: str = "heatmap") -> dict:  # fmt: skip
    """Open query (the explorer: a return visit), record, drag, and summarise."""
    if explorer:
        site.goto(query)
        page.wait_for_function(PICKS_READY_JS, timeout=30_000)
    else:
        page.goto(query)
        page.wait_for_function("() => document.querySelector('#plot .main-svg') !== null")
    page.evaluate(RECORD_JS, {"view": view})
    page.wait_for_timeout(300)
    window = drag(page, hz, touch)
    page.wait_for_timeout(400)
    inputs = page.evaluate("() => window.__peInputs")
    frames = page.evaluate("() => window.__peFrames")
    result = summarise(frames, inputs, window)
    if explorer and inputs:
        final = inputs[-1]["value"]
        chart = page.locator(f".pe-view-{view} .js-plotly-plot").first
        picked = chart.screenshot()
        result["python_after_release_ms"] = python_landed(page, final, window["release"])
        page.wait_for_timeout(300)
        result["pixels_changed_by_python"] = chart.screenshot() != picked
    return result


def plain_page(site, folder: Path, options: dict):
    """A page beside the explorer's, in a context of its own, whose host plain.local serves
    folder's files (the plain pages and the site's plotly.js)."""
    context = site.page.context.browser.new_context(**options)
    page = context.new_page()

    def serve(route):
        path = folder / route.request.url.split("plain.local/", 1)[1].split("?")[0]
        if path.is_file():
            kind = "text/html" if path.suffix == ".html" else "text/javascript"
            route.fulfill(body=path.read_bytes(), content_type=kind)
        else:
            route.fulfill(status=404, body="")

    page.route("https://plain.local/**", serve)
    return page


def plain_pages(folder: Path, site_dir: Path, sizes: list[int]) -> None:
    """The plain-JavaScript pages, one per size, beside a link to the site's runtime."""
    sys.path.insert(0, str(REPO_ROOT))
    from pe_explorer import encoding

    (folder / "runtime").symlink_to(site_dir.resolve() / "runtime")
    for n in sizes:
        z = encoding.positional_encoding(n, 128).astype("float32").round(5).tolist()
        text = PLAIN_HTML.replace("LAST", str(n - 1)).replace("PLOTLY", PLOTLY)
        (folder / f"plain-{n}.html").write_text(text.replace("ZJSON", json.dumps(z)))


def measure(site_dir: Path, sizes: list[int], rates: list[float], log=print,
            view: str = "heatmap") -> dict:  # fmt: skip
    offline_site = pyodide_site.harness_or_exit()
    mirror = pyodide_site.mirror_dir()
    results = {"desktop": [], "phone": []}
    with tempfile.TemporaryDirectory() as tmp:
        plain_dir = Path(tmp)
        plain_pages(plain_dir, site_dir, sizes)
        for profile, options in (("desktop", {}), ("phone", PHONE)):
            touch = profile == "phone"
            size = PHONE_SIZE if touch else (1280, 900)
            with offline_site.open_offline_site(
                site_dir, "index.html", mirror, viewport=size, context_options=options or None
            ) as site:
                viewport = {"width": size[0], "height": size[1]}
                plain = plain_page(site, plain_dir, {"viewport": viewport, **options})
                if touch:
                    for page in (site.page, plain):
                        session = page.context.new_cdp_session(page)
                        session.send("Emulation.setCPUThrottlingRate", {"rate": 4})
                for n in sizes:
                    for hz in rates if not touch else rates[-1:]:
                        row = {"positions": n, "hz": hz}
                        row["plain"] = one_drag(
                            None, plain, f"https://plain.local/plain-{n}.html", hz, touch, False
                        )
                        row["explorer"] = one_drag(
                            site, site.page, f"?view={view}&n_positions={n}", hz, touch, True,
                            view,
                        )  # fmt: skip
                        if n == sizes[0] and not touch and view == "heatmap":
                            row["explorer_page"] = one_drag(
                                site, site.page, f"?n_positions={n}", hz, touch, True
                            )
                        log(json.dumps(row))
                        results[profile].append(row)
                plain.context.close()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=REPO_ROOT / "dist")
    parser.add_argument("--sizes", default="64,512,2048")
    parser.add_argument(
        "--view",
        choices=MARKED,
        default="heatmap",
        help="the view dragged alone (?view=NAME), against the same plain page",
    )
    parser.add_argument("--rates", default="15,60")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rates = [float(r) for r in args.rates.split(",")]
    results = measure(args.site, sizes, rates, view=args.view)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Reading every view on every animation frame of a drag, in the real Pyodide build.

`RECORD_JS` starts a recorder in the page: at each animation frame it reads, once the frame has
been painted (a task queued from the frame's callback), what each chart on the page shows of pos
and k (its accessible name, its markers, its traces' names), each readout's and Show data's
caption, and the pos and k sliders' own numbers. `drag_by_cdp` drags a slider's handle with
Chrome's own input events at a steady rate, as a mouse does. `positions_shown` turns a frame's
texts into the (pos, pos + k) each one says, by the wording of each view.
"""

from __future__ import annotations

import re
import time

from benchmarks.drag import PICKS_READY_JS

# Every element matching selector, in the document and in every shadow root.
DEEP_JS = """(selector) => {
  const found = [];
  const walk = (root) => {
    for (const element of root.querySelectorAll('*')) {
      if (element.matches(selector)) found.push(element);
      if (element.shadowRoot) walk(element.shadowRoot);
    }
  };
  walk(document);
  return found;
}"""

RECORD_JS = (
    """() => {
  const deep = """
    + DEEP_JS
    + """;
  const frames = [];
  window.__peFrames = frames;
  window.__peRecording = true;
  const value = (cls) => {
    const slider = deep('.' + cls)[0];
    const shown = slider && (slider.shadowRoot || slider).querySelector('.bk-slider-value');
    return shown ? shown.textContent.trim() : null;
  };
  const read = () => {
    const charts = [];
    for (const gd of deep('.js-plotly-plot')) {
      if (!gd.layout || !gd.getBoundingClientRect().height) continue;
      const images = (gd.layout.images || []).map((i) => ({
        name: i.name, visible: i.visible !== false,
        // A marker spans the paper one way and marks a position the other.
        at: i.xref === 'paper' ? i.y : i.x}));
      const names = (gd.data || []).map((t) => t.name || '');
      charts.push({label: gd.getAttribute('aria-label') || '', images, names});
    }
    const texts = [...deep('.pe-pos-readout'), ...deep('details.pe-data caption')]
      .map((e) => e.textContent);
    frames.push({t: performance.now(), pos: value('pe-control-pos'),
                 offset: value('pe-control-offset'), url: location.search, charts, texts});
  };
  const tick = () => {
    if (!window.__peRecording) return;
    setTimeout(read, 0);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return true;
}"""
)

STOP_JS = """() => { window.__peRecording = false; return window.__peFrames; }"""

TRACK_JS = (
    """(slider) => {
  const host = ("""
    + DEEP_JS
    + """)(slider)[0];
  const handle = (host.shadowRoot || host).querySelector('.noUi-handle');
  handle.scrollIntoView({block: 'center'});
  const track = handle.closest('.noUi-target') || handle.parentElement.parentElement;
  const box = track.getBoundingClientRect();
  const knob = handle.getBoundingClientRect();
  return {left: box.left, width: box.width, x: knob.left + knob.width / 2,
          y: knob.top + knob.height / 2};
}"""
)


# Where the content of the page's iframe number i starts, in the page's viewport.
FRAME_ORIGIN_JS = """(i) => {
  const frame = document.querySelectorAll('iframe')[i];
  const box = frame.getBoundingClientRect();
  return {x: box.left + frame.clientLeft, y: box.top + frame.clientTop};
}"""


def drag_by_cdp(
    page, slider: str, to: float, seconds: float = 2.0, hz: float = 60.0, frame: int | None = None
) -> int:
    """Once the charts have their picks (PICKS_READY_JS), press the handle of the slider (a CSS
    selector of its widget; in the page's iframe number `frame`, if given), move it to fraction
    `to` of its track in `seconds` at `hz` moves a second (Input.dispatchMouseEvent, Chrome's own
    mouse, in the page's coordinates), release: how many moves were sent."""
    document = page if frame is None else page.query_selector_all("iframe")[frame].content_frame()
    document.wait_for_function(PICKS_READY_JS, timeout=30_000)
    where = document.evaluate(TRACK_JS, slider)
    origin = {"x": 0, "y": 0} if frame is None else page.evaluate(FRAME_ORIGIN_JS, frame)
    cdp = page.context.new_cdp_session(page)
    x0, y = origin["x"] + where["x"], origin["y"] + where["y"]
    x1 = origin["x"] + where["left"] + to * where["width"]
    send = lambda kind, x, **extra: cdp.send(  # noqa: E731
        "Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", **extra}
    )
    send("mouseMoved", x0, buttons=0)
    send("mousePressed", x0, clickCount=1, buttons=1)
    moves = max(1, round(seconds * hz))
    start = time.monotonic()
    for step in range(1, moves + 1):
        send("mouseMoved", x0 + (x1 - x0) * step / moves, buttons=1)
        wait = start + step / hz - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    send("mouseReleased", x1, clickCount=1, buttons=0)
    cdp.detach()
    return moves


# What each view's words say of pos and pos + k: (pattern, which group is pos, which pos + k).
SAYINGS = (
    (re.compile(r"row (\d+) highlighted, (?:row )?pos \+ k = (\d+)"), 1, 2),
    (re.compile(r"^PE\((\d+)\) and PE\((\d+)\)"), 1, 2),
    (re.compile(r"^pos = (\d+) · pos \+ k = (\d+)"), 1, 2),
    (re.compile(r"pos = (\d+) and pos \+ k = (\d+)"), 1, 2),
    (re.compile(r"near pos = (\d+)"), 1, None),
)


def said(text: str) -> tuple[int | None, int | None] | None:
    """(pos, pos + k) as a text says them (None for one it does not say), or None."""
    for pattern, first, second in SAYINGS:
        match = pattern.search(text)
        if match:
            return int(match[first]), int(match[second]) if second else None
    return None


def positions_shown(frame: dict) -> dict[str, tuple]:
    """Every (pos, pos + k) a frame shows, by where it was read."""
    shown = {}
    for index, chart in enumerate(frame["charts"]):
        label = said(chart["label"])
        if label:
            shown[f"chart {index} name"] = label
        marked = {image["name"]: image for image in chart["images"]}
        if "pos" in marked:
            second = marked.get("pos+k")
            dotted = second["at"] if second and second["visible"] else None
            shown[f"chart {index} markers"] = (marked["pos"]["at"], dotted)
        traces = [said(f"{name} and PE(0)") for name in chart["names"][:2]]
        if len(traces) == 2 and all(traces):
            shown[f"chart {index} traces"] = (traces[0][0], traces[1][0])
    for index, text in enumerate(frame["texts"]):
        text_said = said(text)
        if text_said:
            shown[f"caption {index}"] = text_said
    return shown


def disagreements(frame: dict) -> list[str]:
    """Where a frame shows another pos or pos + k than its other places and its pos slider."""
    shown = positions_shown(frame)
    slider = int(frame["pos"]) if frame["pos"] is not None else None
    firsts = {where: pair[0] for where, pair in shown.items()}
    seconds = {where: pair[1] for where, pair in shown.items() if pair[1] is not None}
    wrong = []
    if len(set(firsts.values()) | {slider}) > 1:
        wrong.append(f"pos: slider {slider}, {firsts}")
    if len(set(seconds.values())) > 1:
        wrong.append(f"pos + k: {seconds}")
    return wrong

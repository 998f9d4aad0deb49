"""Interaction latency measured inside the page: from a key press on a slider to the last repaint.

A probe records every trusted keydown, every DOM mutation (the document and every shadow root,
which is where Panel renders), every `plotly_afterplot` event and every canvas clear (WebGL
traces repaint without DOM mutations), all with performance.now(). A step is done when the
texts that must change show their new values AND nothing changed for a quiet window; its
latency is the time of the last change minus the time of the keydown.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

QUIET_MS = 150
STEP_TIMEOUT_S = 60

# Installed before the page's scripts (served app, add_init_script) or after load (Pyodide
# site, whose browser context the offline harness owns): existing shadow roots are walked, new
# ones are caught by wrapping attachShadow. Running it twice is harmless.
PROBE_JS = r"""
(() => {
  if (window.__bench) return;
  const now = () => performance.now();
  const B = window.__bench = {
    keydowns: [], mutations: 0, afterplots: 0, repaints: 0,
    lastMutation: 0, lastAfterplot: 0, lastRepaint: 0, unmet: [],
  };
  const observer = new MutationObserver((records) => {
    B.mutations += records.length;
    B.lastMutation = now();
  });
  const options = {subtree: true, childList: true, attributes: true, characterData: true};
  const observed = new WeakSet();
  const observe = (root) => {
    if (observed.has(root)) return;
    observed.add(root);
    observer.observe(root, options);
  };
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) {
    const root = attachShadow.apply(this, args);
    observe(root);
    return root;
  };
  const walk = (root, visit) => root.querySelectorAll('*').forEach((element) => {
    visit(element);
    if (element.shadowRoot) walk(element.shadowRoot, visit);
  });
  observe(document);
  walk(document, (element) => { if (element.shadowRoot) observe(element.shadowRoot); });

  window.addEventListener('keydown', (event) => {
    if (event.isTrusted) B.keydowns.push(now());
  }, {capture: true, passive: true});

  const countRepaints = (proto, method) => {
    const original = proto && proto[method];
    if (!original || original.__benchWrapped) return;
    const wrapped = function (...args) {
      B.repaints += 1;
      B.lastRepaint = now();
      return original.apply(this, args);
    };
    wrapped.__benchWrapped = true;
    proto[method] = wrapped;
  };
  countRepaints(window.WebGLRenderingContext && WebGLRenderingContext.prototype, 'clear');
  countRepaints(window.WebGL2RenderingContext && WebGL2RenderingContext.prototype, 'clear');

  // "host >>> inner" finds inner inside the elements (and their shadow roots) matching host.
  B.deep = (selector, start = document) => {
    const [outer, ...rest] = selector.split(' >>> ');
    const found = [];
    const visit = (root) => {
      root.querySelectorAll(outer).forEach((element) => found.push(element));
      root.querySelectorAll('*').forEach((element) => {
        if (element.shadowRoot) visit(element.shadowRoot);
      });
    };
    visit(start);
    if (!rest.length) return found;
    return found.flatMap((host) => B.deep(rest.join(' >>> '), host.shadowRoot || host));
  };
  const hooked = new WeakSet();
  B.hookPlots = () => {
    for (const plot of B.deep('.js-plotly-plot')) {
      if (hooked.has(plot) || typeof plot.on !== 'function') continue;
      hooked.add(plot);
      plot.on('plotly_afterplot', () => { B.afterplots += 1; B.lastAfterplot = now(); });
    }
  };
  B.lastChange = () => Math.max(B.lastMutation, B.lastAfterplot, B.lastRepaint);
  // A condition holds when some element matching `selector` has text matching `pattern`.
  B.holds = (condition) => {
    const pattern = new RegExp(condition.pattern);
    return B.deep(condition.selector).some(
      (element) => pattern.test(element.textContent.replace(/\s+/g, ' ').trim()));
  };
  B.counts = () => ({keydowns: B.keydowns.length, mutations: B.mutations,
                     afterplots: B.afterplots, repaints: B.repaints});
})();
"""

# Polled by Playwright: cheap until the page has been quiet, so polling does not compete with
# the repaint it is waiting for.
STEP_DONE_JS = """({keydowns, conditions, quietMs, mark}) => {
  const B = window.__bench;
  if (B.keydowns.length < keydowns) return false;
  const last = B.lastChange();
  const t = performance.now();
  if (t - last < quietMs) return false;
  B.unmet = conditions.filter((condition) => !B.holds(condition));
  if (B.unmet.length) return false;
  const keydown = B.keydowns[keydowns - 1];
  return {latency_ms: last - keydown, mutations: B.mutations - mark.mutations,
          afterplots: B.afterplots - mark.afterplots, repaints: B.repaints - mark.repaints};
}"""

QUIET_JS = """(quietMs) => performance.now() - window.__bench.lastChange() >= quietMs"""

HANDLES = {
    "pos": ".pe-control-pos .noUi-handle",
    "offset": ".pe-control-offset .noUi-handle",
    "d_model": ".pe-control-d-model .noUi-handle",
    "n_positions": ".pe-control-n-positions .noUi-handle",
}
POS_READOUT = ".pe-pos-readout"
PLOT_TITLE = ".gtitle"
LEGEND = ".legendtext"
D_MODEL_VALUE = ".pe-control-d-model >>> .bk-slider-value"


def condition(selector: str, pattern: str) -> dict:
    return {"selector": selector, "pattern": pattern}


def literal(text: str) -> str:
    """A regular expression matching text literally (valid in Python and JavaScript)."""
    return re.escape(text).replace("\\ ", " ")


@dataclass
class Position:
    """The slider values a step starts from."""

    pos: int
    offset: int
    d_model: int
    n_positions: int

    @property
    def second(self) -> int:
        return self.pos + self.offset


def expected_after(control: str, state: Position) -> list[dict]:
    """What must be on the page once every view on screen has caught up with `control`.

    At the benchmark's 1400 × 900 window the heatmap and the compare view are on screen; views
    below the fold are not redrawn until they are scrolled to (components/ui/lazy_views.py), so
    they are not waited for (and any redraw they did make would still count, as a mutation).
    """
    pos, second, k, d = state.pos, state.second, state.offset, state.d_model
    legend = [
        condition(LEGEND, "^" + literal(f"PE({pos})") + "$"),
        condition(LEGEND, "^" + literal(f"PE({second})") + "$"),
    ]
    if control == "pos":
        return [
            condition(POS_READOUT, "^" + literal(f"pos = {pos} · pos + k = {second} ·")),
            *legend,
        ]
    if control == "offset":
        return [
            condition(POS_READOUT, literal(f"pos + k = {second} · k = {k}") + "$"),
            *legend,
        ]
    if control == "d_model":
        return [
            condition(D_MODEL_VALUE, "^" + literal(str(d)) + "$"),
            condition(PLOT_TITLE, literal(f"× {d} dimensions")),
            condition(PLOT_TITLE, literal(f"over the {d} dimensions")),
        ]
    raise ValueError(f"control must be pos, offset or d_model, got {control!r}")


def next_step(control: str, state: Position) -> tuple[str, Position]:
    """The key to press and the values after it: ArrowRight, or ArrowLeft at the upper bound.

    Steps go one way, so d_model never returns to a size whose matrix is still cached.
    """
    last = state.n_positions - 1
    if control == "pos":
        if state.pos + 1 <= last and state.pos + 1 + state.offset <= last:
            return "ArrowRight", Position(state.pos + 1, state.offset, state.d_model, last + 1)
        return "ArrowLeft", Position(state.pos - 1, state.offset, state.d_model, last + 1)
    if control == "offset":
        if state.second + 1 <= last:
            return "ArrowRight", Position(state.pos, state.offset + 1, state.d_model, last + 1)
        return "ArrowLeft", Position(state.pos, state.offset - 1, state.d_model, last + 1)
    if control == "d_model":
        if state.d_model + 2 <= 2048:
            return "ArrowRight", Position(state.pos, state.offset, state.d_model + 2, last + 1)
        return "ArrowLeft", Position(state.pos, state.offset, state.d_model - 2, last + 1)
    raise ValueError(f"control must be pos, offset or d_model, got {control!r}")


def read_position(page, n_positions: int) -> Position:
    """The current pos, k and d_model, from the readouts."""
    readout = page.evaluate(
        "(s) => window.__bench.deep(s).map((e) => e.textContent.replace(/\\s+/g, ' ').trim())[0]",
        POS_READOUT,
    )
    match = re.search(r"pos = (\d+) · pos \+ k = (-?\d+) · k = (-?\d+)", readout or "")
    if not match:
        raise RuntimeError(f"{POS_READOUT} shows {readout!r}")
    d_model = slider_value(page, "pe-control-d-model")
    if d_model is None:
        raise RuntimeError("the d_model slider shows no value")
    return Position(int(match[1]), int(match[3]), d_model, n_positions)


def slider_value(page, css_class: str) -> int | None:
    """The value a slider shows next to its label."""
    value = page.evaluate(
        "(s) => window.__bench.deep(s).map((e) => e.textContent.trim())[0]",
        f".{css_class} >>> .bk-slider-value",
    )
    return int(value) if value and value.lstrip("-").isdigit() else None


def wait_quiet(page, quiet_ms: float = 1000, timeout_s: float = 120) -> None:
    """Wait until nothing on the page changed for quiet_ms."""
    page.wait_for_function(QUIET_JS, arg=quiet_ms, polling=100, timeout=timeout_s * 1000)


@dataclass
class ControlResult:
    """Latencies of the steps of one control at one size."""

    control: str
    latencies_ms: list[float] = field(default_factory=list)
    afterplots: list[int] = field(default_factory=list)
    error: str | None = None

    def summary(self) -> dict:
        values = np.asarray(self.latencies_ms)
        return {
            "control": self.control,
            "steps": int(values.size),
            "p50_ms": float(np.percentile(values, 50)) if values.size else None,
            "p95_ms": float(np.percentile(values, 95)) if values.size else None,
            "max_ms": float(values.max()) if values.size else None,
            "plots_repainted_median": (
                statistics.median(self.afterplots) if self.afterplots else None
            ),
            "error": self.error,
            "latencies_ms": [round(v, 1) for v in self.latencies_ms],
        }


def measure_control(
    page, control: str, steps: int, n_positions: int, quiet_ms: float = QUIET_MS
) -> ControlResult:
    """Press arrow keys on the control's slider `steps` times, one repaint at a time."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    result = ControlResult(control)
    state = read_position(page, n_positions)
    handle = page.locator(HANDLES[control]).first
    for _ in range(steps):
        key, state = next_step(control, state)
        conditions = expected_after(control, state)
        page.evaluate("() => window.__bench.hookPlots()")
        # Re-focus each time: a re-rendered slider loses the focus.
        handle.focus(timeout=10_000)
        mark = page.evaluate("() => window.__bench.counts()")
        page.keyboard.press(key)
        started = time.monotonic()
        try:
            done = page.wait_for_function(
                STEP_DONE_JS,
                arg={
                    "keydowns": mark["keydowns"] + 1,
                    "conditions": conditions,
                    "quietMs": quiet_ms,
                    "mark": mark,
                },
                polling=20,
                timeout=STEP_TIMEOUT_S * 1000,
            ).json_value()
        except PlaywrightTimeout:
            unmet = page.evaluate("() => window.__bench.unmet")
            result.error = (
                f"{key} on {control} to {state}: not repainted after "
                f"{time.monotonic() - started:.0f} s; unmet: {unmet}"
            )
            break
        result.latencies_ms.append(done["latency_ms"])
        result.afterplots.append(done["afterplots"])
    return result

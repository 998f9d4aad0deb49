// Picker: a move of pos or k shown in the frame of its input, from the picks Python sent with
// each view (components/plotkit/picks.py says what a pick holds). Python draws the same later;
// whatever it draws, the value the sliders hold now is put back on top, so that no frame shows
// two positions. No arithmetic here: a pick is an index into what Python computed.
import { addFix, patchView } from './patch_view.js';

const REGISTRY = Symbol.for('pe-picks');
const PICKER = Symbol.for('pe-picker');
const OTHER = { pos: 'offset', offset: 'pos' };

// A field of what BokehJS decoded from a Python dict: a Map or a plain object.
function field(object, key) {
  if (object == null) return undefined;
  return object instanceof Map ? object.get(key) : object[key];
}

// Errors in the picker are the page's errors: say so in the console, as the page's own would.
function report(error) {
  console.error('pe-explorer picker:', error);
}

// The one picker of the window: the charts that can be picked, and what each Bokeh document's
// sliders hold now ({pos, offset, last: the axis moved last}).
function picker() {
  if (!window[PICKER]) {
    window[PICKER] = { views: new Set(), wanted: new WeakMap() };
    document.addEventListener('pe-pick', (event) => {
      try {
        wish(event.detail);
      } catch (error) {
        report(error);
      }
    });
    window.addEventListener('pe-picks-changed', (event) => {
      for (const view of picker().views) {
        if (keyOf(view) === event.detail?.key) refresh(view);
      }
    });
  }
  return window[PICKER];
}

function keyOf(view) {
  const tags = view.model.tags || [];
  return typeof tags[1] === 'string' && tags[1] !== '' ? tags[1] : null;
}

// A slider of pos or k moved (its value set by a person, a key, Play or Python): remember it,
// and pick at once, in the task of the input, so that the frame that paints the slider's new
// place paints the views' too.
function wish({ axis, value, doc }) {
  if (!(axis in OTHER) || typeof value !== 'number' || doc == null) return;
  const { wanted, views } = picker();
  const now = wanted.get(doc) ?? {};
  now[axis] = value;
  now.last = axis;
  wanted.set(doc, now);
  for (const view of views) {
    if (view.model.document === doc) pickInto(view);
  }
}

// What update gives at index i: a Text filled in, a table's row, or one value of each.
function valueAt(update, tables, i) {
  const text = field(update, 'text');
  if (text) {
    const parts = field(text, 'parts');
    const slots = field(text, 'slots');
    let out = parts[0];
    for (let j = 0; j < slots.length; j += 1) out += slots[j][i] + parts[j + 1];
    return out;
  }
  const rows = field(update, 'rows');
  if (rows) {
    const table = field(tables, rows);
    const width = table.shape[1];
    const row = field(update, 'index')[i];
    return new Float64Array(table.buffer, table.byteOffset + row * width * 8, width);
  }
  return field(update, 'each')[i];
}

// The value at a Plotly path ('images[1].visible') of object (a layout or a trace).
function at(object, path) {
  let value = object;
  for (const key of path.split(/[.[\]]+/).filter(Boolean)) {
    if (value == null) return undefined;
    value = value[key];
  }
  return value;
}

// Whether two values a pick sets are the same: numbers and text by value, arrays (a table's row,
// or what Python drew) number by number; NaN (a point not drawn) is NaN.
function same(a, b) {
  if (a === b || (Number.isNaN(a) && Number.isNaN(b))) return true;
  const arrays = ArrayBuffer.isView(a) || Array.isArray(a);
  if (!arrays || !(ArrayBuffer.isView(b) || Array.isArray(b)) || a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i += 1) if (!same(a[i], b[i])) return false;
  return true;
}

// The updates that change something: a chart given what it shows already would be drawn again
// for nothing, and Plotly redraws more than it must for some paths (an annotation's text or
// visibility: a 14 ms redraw of a heatmap).
function changed(updates, current) {
  const out = {};
  for (const [path, value] of Object.entries(updates)) {
    if (!same(at(current, path), value)) out[path] = value;
  }
  return out;
}

// The panes under the chart (its card's column), by CSS class.
function pane(view, cssClass) {
  const siblings = view.parent?.child_views ?? [];
  return siblings.find((child) => (child.model.css_classes || []).includes(cssClass));
}

function showTexts(view, texts) {
  const chart = view.container;
  if (texts.label !== undefined && chart) chart.setAttribute('aria-label', texts.label);
  if (texts.caption !== undefined) {
    const caption = pane(view, 'pe-data-pane')?.container?.querySelector('caption');
    if (caption) caption.textContent = texts.caption;
  }
  for (const [cssClass, html] of Object.entries(texts.panes)) {
    const element = pane(view, cssClass)?.container;
    if (element && element.innerHTML !== html) element.innerHTML = html;
  }
}

// The chart's traces and layout at the pick, sent back to Python by neither call: Plotly.update
// fires no restyle or relayout event, and a relayout alone (a tenth of an update's time: it moves
// a marker without recomputing the traces) goes through the quiet relayout of
// components/fixes/plotly_quiet.py.
function showFigure(view, traces, layout) {
  const gd = view.container;
  if (!gd?._fullLayout || !window.Plotly) return;
  layout = changed(layout, gd.layout);
  for (const [index, attributes] of traces) {
    const now = changed(attributes, gd.data[index] ?? {});
    if (Object.keys(now).length) traces.set(index, now);
    else traces.delete(index);
  }
  const indices = [...traces.keys()].sort((a, b) => a - b);
  if (indices.length === 0 && Object.keys(layout).length === 0) return;
  if (indices.length === 0) {
    const quietly = window[Symbol.for('pe-plotly-quiet')];
    if (quietly) quietly(gd, layout);
    else window.Plotly.update(gd, {}, layout, []);
    return;
  }
  const attributes = new Set(indices.flatMap((index) => Object.keys(traces.get(index))));
  const data = {};
  for (const attribute of attributes) {
    data[attribute] = indices.map((index) => traces.get(index)[attribute]);
  }
  window.Plotly.update(gd, data, layout, indices);
}

// The pick of what the sliders hold now, if this view's picks were made for the figure it
// shows (same generation) and for the other axis's value now. After Python has drawn
// (afterPython), nothing is picked where Python drew what the sliders hold: its drawing is the
// view's own, and a message of a larger change (a new d_model) may still be on its way.
function pickInto(view, afterPython = false) {
  const picks = window[REGISTRY]?.get(keyOf(view));
  const wanted = picker().wanted.get(view.model.document);
  if (!picks || !wanted?.last) return;
  const drawn = picks.drawn;
  const held = (axis) => wanted[axis] ?? field(drawn, axis);
  if (afterPython && held('pos') === field(drawn, 'pos')) {
    if (held('offset') === field(drawn, 'offset')) return;
  }
  const generation = (view.model.tags || [])[2];
  if (field(drawn, 'generation') !== generation) return;
  const axis = wanted.last;
  const axisPicks = picks[`${axis}_picks`];
  if (!axisPicks) return;
  const other = held(OTHER[axis]);
  const at = field(axisPicks, 'at');
  // No value (None: null in a first document, undefined once a patch has carried it): any.
  if (at != null && at !== other) return;
  const i = wanted[axis] - field(axisPicks, 'start');
  if (!(i >= 0 && i < field(axisPicks, 'count'))) return;
  const mark = `${generation}:${axis}:${wanted[axis]}:${other}`;
  if (view.pePicked === mark) return;
  const traces = new Map();
  const layout = {};
  const texts = { panes: {} };
  for (const update of field(axisPicks, 'updates')) {
    const target = field(update, 'target');
    const path = field(update, 'path');
    const value = valueAt(update, picks.tables, i);
    if (target === 'trace') {
      const index = field(update, 'trace');
      if (!traces.has(index)) traces.set(index, {});
      traces.get(index)[path] = value;
    } else if (target === 'layout') layout[path] = value;
    else if (target === 'pane') texts.panes[path] = value;
    else texts[target] = value;
  }
  showFigure(view, traces, layout);
  showTexts(view, texts);
  view.pePicked = mark;
}

// Python drew something in this view: put the sliders' values back on top of it, once the
// message that drew it has been applied whole (its chart, its name and its picks are separate
// models, changed one after another in one task), before the frame is painted.
function refresh(view) {
  if (view.pePending) return;
  view.pePending = true;
  queueMicrotask(() => {
    view.pePending = false;
    view.pePicked = undefined;
    try {
      pickInto(view, true);
    } catch (error) {
      report(error);
    }
  });
}

function track(view) {
  if (view.pePickTracked) return;
  view.pePickTracked = true;
  const state = picker();
  state.views.add(view);
  view.on_change(view.model.properties.tags, () => refresh(view));
}

// Panel applies Python's patches with Plotly.restyle and Plotly.relayout, each of which ends in
// its event on the chart: after each, the pick. (The picker's own changes fire neither.)
function listenToChart(view) {
  const gd = view.container;
  if (!gd?.on || gd.pePickListening) return;
  gd.pePickListening = true;
  for (const event of ['plotly_relayout', 'plotly_restyle']) {
    gd.on(event, () => {
      if (picker().views.has(view)) refresh(view);
    });
  }
}

addFix(() => {
  picker();
  patchView({
    name: 'picker',
    model: 'panel.models.plotly.PlotlyPlot',
    method: 'plot',
    after: (view) => {
      track(view);
      listenToChart(view);
      refresh(view);
    },
    replay: (view) => {
      track(view);
      listenToChart(view);
    },
  });
  patchView({
    name: 'picker',
    model: 'panel.models.markup.HTML',
    method: 'set_html',
    after: (htmlView) => {
      for (const view of picker().views) {
        if (view.parent && view.parent === htmlView.parent) refresh(view);
      }
    },
  });
});

// The one scaffold of the page's fixes of BokehJS and Plotly (components/fixes/browser.py puts
// this module and every fix's module together as one component's module): find the view's
// prototype that defines a method, wrap that method once, mark it, and replay the fix over the
// views already drawn. Each fix's why and upstream report: its module in components/fixes/.

const WRAPPED = Symbol.for('pe-fixes-wrapped');
const HOOKS = Symbol.for('pe-fixes-hooks');
const INSTALLS = [];

// Replace target[method] by wrap(original), once: a later call finds the mark and leaves it.
export function wrapOnce(target, method, wrap) {
  if (!Object.hasOwn(target, WRAPPED)) target[WRAPPED] = new Set();
  if (target[WRAPPED].has(method)) return;
  target[method] = wrap(target[method]);
  target[WRAPPED].add(method);
}

// A fix's hook: one that throws leaves the view working, unfixed.
function attempt(hook, ...args) {
  try {
    return hook?.(...args);
  } catch {
    return undefined;
  }
}

// The method called on view with the hooks of every fix of its model around it: each fix's
// `before` (what it returns goes to its `after`), the method, then each fix's `after`, once the
// method's promise has settled if it returns one.
function withFixes(hooks, original, view, args) {
  const fixes = [...hooks.values()].filter((fix) => view.model instanceof fix.Model);
  const kept = fixes.map((fix) => attempt(fix.before, view, args));
  const after = () => {
    for (const [i, fix] of fixes.entries()) attempt(fix.after, view, kept[i]);
  };
  const result = original.apply(view, args);
  if (!(result instanceof Promise)) {
    after();
    return result;
  }
  return result.then((value) => {
    after();
    return value;
  });
}

// The fixes hooked on target[method], by name; the method is wrapped at the first, once for all.
function hooksOn(target, method) {
  if (!Object.hasOwn(target, HOOKS)) target[HOOKS] = new Map();
  if (!target[HOOKS].has(method)) {
    const hooks = new Map();
    target[HOOKS].set(method, hooks);
    wrapOnce(
      target,
      method,
      (original) =>
        function (...args) {
          return withFixes(hooks, original, this, args);
        },
    );
  }
  return target[HOOKS].get(method);
}

// The class of a Bokeh model, by name ('Slider', 'panel.models.markup.HTML'), once loaded.
function modelClass(name) {
  const Bokeh = window.Bokeh;
  return Bokeh?.Widgets?.[name] ?? Bokeh?.Models?.get(name);
}

// The prototype in the chain of Model's view that defines method itself.
function ownerOf(Model, method) {
  let proto = Model?.prototype.default_view?.prototype;
  while (proto && !Object.hasOwn(proto, method)) proto = Object.getPrototypeOf(proto);
  return proto;
}

// The views of Model's instances the page has drawn.
function drawnViews(Model) {
  try {
    return window.Bokeh.index.query((view) => view.model instanceof Model);
  } catch {
    return []; // No index (an unusual embedding): views are fixed from their next call.
  }
}

// Fix the views of the Bokeh model named model: before(view, args) and after(view, kept)
// around their method, and replay(view) at once for the views already drawn. name marks the
// fix: installing it again changes nothing.
export function patchView({ name, model, method, before, after, replay }) {
  const Model = modelClass(model);
  const proto = ownerOf(Model, method);
  if (proto == null) return;
  const hooks = hooksOn(proto, method);
  const key = `${name}:${model}`;
  if (hooks.has(key)) return;
  hooks.set(key, { Model, before, after });
  if (replay) for (const view of drawnViews(Model)) attempt(replay, view);
}

// A fix's install: run at every render of the page's one fixes component.
export function addFix(install) {
  INSTALLS.push(install);
}

// The one component's view: hidden. Every render installs every fix, each of them once.
export function render() {
  for (const install of INSTALLS) install();
  const element = document.createElement('span');
  element.hidden = true;
  return element;
}

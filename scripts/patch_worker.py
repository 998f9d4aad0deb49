"""Fix the message handler of Panel 1.9.4's generated Pyodide worker script.

``panel convert app.py --to pyodide-worker`` writes ``app.html`` and a worker
script ``app.js`` rendered from ``panel/_templates/pyodide_worker.js``.  The
build calls :func:`patch_worker_script` on that ``.js`` text (or runs this file
as a script on the file: ``python patch_worker.py site/app.js``).

The bug (panel 1.9.4, ``panel/_templates/pyodide_worker.js`` lines 59-93)
-------------------------------------------------------------------------
The worker's ``self.onmessage`` handles a ``patch`` message from the page like
this::

    self.pyodide.globals.set('patch', msg.patch)      # (1) one shared global
    self.pyodide.runPythonAsync(`                     # (2) not awaited
    ...
    state.curdoc.apply_json_patch(_convert_json_patch(patch), setter='js')
    `)
    self.postMessage({type: 'idle'})                  # (3) before Python ran

``runPythonAsync`` only *schedules* the Python code: it returns a coroutine
that Pyodide's WebLoop runs in a later macrotask (``scheduler.postTask`` in
Chromium).  The name ``patch`` is looked up when that task runs, not when the
message arrived.  So:

* (1)+(2): if a second ``patch`` message is handled before the first task has
  started, the global is overwritten; both tasks apply the *second* patch and
  the first is lost.  A drag ends with the page sending ``{value: 30}`` and
  then ``{value_throttled: 30}``; losing the first leaves Python with the old
  ``value`` (plot and readout for 26) and the correct ``value_throttled``;
  nothing is sent afterwards, so the view never catches up.
* (3): ``idle`` is posted before Python has applied the patch.  The page
  (``pyodide_handler.js``: ``send_change`` / the ``idle`` branch) uses
  ``idle`` as its flow control: while ``busy`` it coalesces events per
  (model, attr) and only sends the next patch on ``idle``.  Posting it at once
  turns that off: the page sends its next patch as fast as the message
  round-trip, which is what opens the window for (1), and it makes the worker
  run every intermediate slider value instead of the latest one.

The fix
-------
The ``self.onmessage`` block is replaced (and only that block; the rest of the
generated script is untouched) by one that:

* passes each patch to Python in a fresh ``locals`` dict of its own, so no
  message can overwrite another's data (same for ``location``);
* runs all Python work triggered by messages (``rendered``, ``patch``,
  ``location``) strictly one after the other, in arrival order, through one
  promise chain, awaiting each ``runPythonAsync``;
* posts ``idle`` for a patch only after Python has applied it (in ``finally``,
  so an exception in a callback cannot leave the page ``busy`` forever; the
  error is logged with ``console.error``).

No patch is dropped or merged in the worker: every patch is applied in order,
so the last value the page sent is always the last one applied.  Throttling
comes for free from the page's existing queue: while the worker is busy, the
page keeps only the newest event per (model, attr) and sends it with the next
``idle``; the final value is therefore always sent and applied.

If Panel's template changes, the block is not found and
:class:`WorkerTemplateChanged` is raised, so a Panel upgrade fails the build
loudly instead of shipping an unpatched (or wrongly patched) worker.  Running
the patch twice is a no-op (it recognises its own marker).

What upstream Panel should change
---------------------------------
In ``panel/_templates/pyodide_worker.js`` (``self.onmessage``): do not store
message data in Pyodide globals; pass it with ``runPythonAsync(code,
{locals})`` (or call a Python function with it as argument); serialise the
message handling (await each ``runPythonAsync`` through a queue/promise
chain); and ``postMessage({type: 'idle'})`` only after ``apply_json_patch``
has returned (in a ``finally``).  ``pyodide_handler.js`` (page side) needs no
change: its busy/queue protocol is right once ``idle`` means "applied".  The
``_guiEditing`` console error is a separate Panel bug, see REPORT.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["WorkerTemplateChanged", "patch_worker_script", "main"]

#: Marker written into patched scripts; makes the patch idempotent.
MARKER = "/* patched by patch_worker.py: serialised patch queue, idle after apply */"

# The exact ``self.onmessage`` block that panel 1.9.4 renders from
# panel/_templates/pyodide_worker.js (it contains no template variables, so it
# is identical in every generated worker).
ORIGINAL_ONMESSAGE = """self.onmessage = async (event) => {
  const msg = event.data
  if (msg.type === 'rendered') {
    self.pyodide.runPythonAsync(`
    from panel.io.state import state
    from panel.io.pyodide import _link_docs_worker

    _link_docs_worker(state.curdoc, sendPatch, setter='js')
    `)
  } else if (msg.type === 'patch') {
    self.pyodide.globals.set('patch', msg.patch)
    self.pyodide.runPythonAsync(`
    from panel.io.pyodide import _convert_json_patch
    state.curdoc.apply_json_patch(_convert_json_patch(patch), setter='js')
    `)
    self.postMessage({type: 'idle'})
  } else if (msg.type === 'location') {
    self.pyodide.globals.set('location', msg.location)
    self.pyodide.runPythonAsync(`
    import json
    from panel.io.state import state
    from panel.util import edit_readonly
    if state.location:
        loc_data = json.loads(location)
        with edit_readonly(state.location):
            state.location.param.update({
                k: v for k, v in loc_data.items() if k in state.location.param
            })
    `)
  }
}
"""

PATCHED_ONMESSAGE = (
    MARKER
    + """
// Every message that runs Python is handled strictly in arrival order: each
// handler awaits its runPythonAsync before the next one starts.
let pnPending = Promise.resolve()

function pnSerial(label, job) {
  const run = pnPending.then(job).catch((e) => {
    console.error(`Panel worker: error while handling '${label}' message:`, e)
  })
  pnPending = run
  return run
}

// Run `code` with `values` bound as local names in a fresh dict owned by
// this call only (never shared Pyodide globals, which a later message could
// overwrite before this code runs).
async function pnRunWith(code, values) {
  const locals = self.pyodide.toPy({})
  try {
    for (const [key, value] of Object.entries(values)) {
      locals.set(key, value)
    }
    await self.pyodide.runPythonAsync(code, {locals: locals})
  } finally {
    locals.destroy()
  }
}

self.onmessage = (event) => {
  const msg = event.data
  if (msg.type === 'rendered') {
    pnSerial('rendered', () => self.pyodide.runPythonAsync(`
    from panel.io.state import state
    from panel.io.pyodide import _link_docs_worker

    _link_docs_worker(state.curdoc, sendPatch, setter='js')
    `))
  } else if (msg.type === 'patch') {
    pnSerial('patch', async () => {
      try {
        await pnRunWith(`
    from panel.io.state import state
    from panel.io.pyodide import _convert_json_patch
    state.curdoc.apply_json_patch(_convert_json_patch(patch), setter='js')
    `, {patch: msg.patch})
      } finally {
        // Only now has Python applied the patch (and run its callbacks): the
        // page may send its next (coalesced) patch.
        self.postMessage({type: 'idle'})
      }
    })
  } else if (msg.type === 'location') {
    // Same code as the original, wrapped in a function so that the
    // comprehension does not depend on exec()'s separate-locals scoping.
    pnSerial('location', () => pnRunWith(`
    def _pn_sync_location(location):
        import json
        from panel.io.state import state
        from panel.util import edit_readonly
        if state.location:
            loc_data = json.loads(location)
            with edit_readonly(state.location):
                state.location.param.update({
                    k: v for k, v in loc_data.items() if k in state.location.param
                })
    _pn_sync_location(location)
    `, {location: msg.location}))
  }
}
"""
)


class WorkerTemplateChanged(RuntimeError):
    """The worker script does not contain the handler this patch was written for."""


def patch_worker_script(js_text: str) -> str:
    """Return ``js_text`` (a Panel 1.9.4 pyodide-worker script) with its message handler fixed.

    Raises :class:`WorkerTemplateChanged` if the expected original handler is
    not present exactly once (e.g. Panel's template changed). Already-patched
    text is returned unchanged.
    """
    if MARKER in js_text:
        return js_text
    # Generated files may have Windows line endings if written on Windows.
    newline = "\r\n" if "\r\n" in js_text else "\n"
    original = ORIGINAL_ONMESSAGE.replace("\n", newline)
    count = js_text.count(original)
    if count != 1:
        hint = (
            "the handler differs from Panel 1.9.4's pyodide_worker.js"
            if count == 0
            else f"the handler occurs {count} times"
        )
        raise WorkerTemplateChanged(
            f"patch_worker: cannot patch the Pyodide worker script: {hint}. "
            "Panel's template (panel/_templates/pyodide_worker.js) has probably changed; "
            "check whether the upstream fix is in and update or drop patch_worker.py."
        )
    return js_text.replace(original, PATCHED_ONMESSAGE.replace("\n", newline))


def main(argv: list[str] | None = None) -> int:
    """CLI: patch one or more generated worker scripts in place."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "scripts",
        nargs="+",
        type=Path,
        help="worker .js files written by `panel convert --to pyodide-worker`",
    )
    args = parser.parse_args(argv)
    status = 0
    for path in args.scripts:
        try:
            # newline="" keeps the file's line endings as they are.
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            patched = patch_worker_script(text)
        except (OSError, WorkerTemplateChanged) as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            status = 1
            continue
        if patched == text:
            print(f"{path}: already patched")
        else:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(patched)
            print(f"{path}: patched")
    return status


if __name__ == "__main__":
    sys.exit(main())

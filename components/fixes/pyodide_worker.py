"""Works around the race in Panel 1.9.4's Pyodide worker that drops patches during fast drags.

Upstream: none found; report text: docs/upstream.md, "Pyodide worker".

`panel convert --to pyodide-worker` renders `self.onmessage` from
`panel/_templates/pyodide_worker.js`. It stores each incoming patch in one shared Pyodide
global, starts `runPythonAsync` without awaiting it and posts `idle` at once, so a second
patch arriving before the first ran overwrites it (a drag then ends on a stale value), and the
page's own coalescing queue is switched off. The build replaces that one block
(`python -m pe_explorer.fixes.pyodide_worker site/app.js`) with a handler that gives each
message's data its own `locals`, applies messages one at a time in order, and posts `idle`
only after Python applied the patch. It also posts `location-applied` once the page's URL has
reached Python, so that the page before Python (static/startup.js) is kept until the state
the link asks for is drawn. If Panel's template changes, the block is not found and
the build fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["WorkerTemplateChanged", "patch_worker_script", "main"]

#: Marker written into patched scripts; makes the patch idempotent.
MARKER = (
    "/* patched by pe_explorer.fixes.pyodide_worker: serialised patch queue, idle after apply */"
)

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
    `, {location: msg.location}).finally(() => {
      // The worker renders the page before it knows the URL (the first render has no
      // location): tell the page when the URL's state is applied (static/startup.js).
      self.postMessage({type: 'location-applied'})
    }))
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
            "check whether the upstream fix is in, and update or drop "
            "components/fixes/pyodide_worker.py."
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

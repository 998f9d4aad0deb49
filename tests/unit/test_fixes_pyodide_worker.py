"""The fix for Panel 1.9.4's Pyodide worker message handler (components/fixes/pyodide_worker.py)."""

from pathlib import Path

import panel
import pytest
from pe_explorer.fixes import pyodide_worker as patch_worker

TEMPLATE = Path(panel.__file__).parent / "_templates" / "pyodide_worker.js"


def test_panel_template_holds_the_handler_the_patch_replaces():
    assert TEMPLATE.read_text().count(patch_worker.ORIGINAL_ONMESSAGE) == 1


def test_patched_handler_has_no_shared_patch_global_and_idles_after_applying():
    patched = patch_worker.patch_worker_script(TEMPLATE.read_text())
    assert patch_worker.MARKER in patched
    assert "globals.set('patch'" not in patched
    handler = patched[patched.index(patch_worker.MARKER) :]
    apply_at = handler.index("apply_json_patch")
    assert handler.index("postMessage({type: 'idle'})", apply_at) > apply_at


def test_patching_twice_changes_nothing():
    once = patch_worker.patch_worker_script(TEMPLATE.read_text())
    assert patch_worker.patch_worker_script(once) == once


def test_a_changed_template_fails_loudly():
    with pytest.raises(patch_worker.WorkerTemplateChanged, match="template"):
        patch_worker.patch_worker_script("self.onmessage = async (event) => {}")


def test_the_built_worker_is_patched(site_dir):
    worker = (site_dir / "app.js").read_text()
    assert patch_worker.MARKER in worker
    assert patch_worker.ORIGINAL_ONMESSAGE not in worker

"""Files a learner uploads to the checker view, and what the page says of each (issue 19):
shared by the served test and the Pyodide one."""

from __future__ import annotations

import contextlib
import io

import numpy as np
from browser_support import EVERY_ELEMENT_JS, page_idle
from pe_explorer import diagnosis as diagnose


def npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def torch_style(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The float32 code of the PyTorch tutorial, in NumPy."""
    position = np.arange(n, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32) * (-np.log(base) / d))
    pe = np.zeros((n, d), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def csv(array: np.ndarray) -> bytes:
    return "\n".join(",".join(f"{v:.9g}" for v in row) for row in array).encode()


def over_the_cap() -> bytes:
    """An .npy header that claims 4096 × 4096 float64, with no data behind it."""
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (4096, 4096)}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


UPLOADS = {
    "right.npy": npy(torch_style(50, 16)),
    "base1000.csv": csv(torch_style(60, 32, base=1000.0)),
    "empty.csv": b"",
    "words.csv": b"pos,value\nzero,one\n",
    "nan.csv": b"nan,1\n0.5,0.5\n",
    "odd.csv": b"0,1,0\n0.8,0.5,0.1\n0.9,0.4,0.2\n",
    "object.npy": npy(np.array([{"a": 1}, None], dtype=object), allow_pickle=True),
    "huge.npy": over_the_cap(),
    "not-a-matrix.npy": b"\x93NUMPY junk that is not an array",
}

VERDICT_JS = (
    "() => {"
    + EVERY_ELEMENT_JS
    + """  const verdict = found.find((e) => e.classList?.contains('pe-checker-verdict'));
  return verdict ? verdict.textContent.replace(/\\s+/g, ' ').trim() : null;
}"""
)


def expected_error(name: str) -> str | None:
    """The message diagnose gives for a file, or None when it is checked."""
    try:
        diagnose.diagnose(diagnose.load_matrix(UPLOADS[name], name))
    except diagnose.MatrixError as error:
        return str(error)
    return None


VERDICT_CHANGED_JS = f"(before) => ({VERDICT_JS})() !== before"


def upload_each(page, timeout_s: float = 60) -> dict:
    """Upload every file in turn through the file chooser; the verdict the page shows for each."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    chooser = page.locator(".pe-checker-file input[type=file]").first
    shown = {}
    for name, data in UPLOADS.items():
        before = page.evaluate(VERDICT_JS)
        upload = {"name": name, "mimeType": "application/octet-stream", "buffer": data}
        chooser.set_input_files(upload)
        # Still the verdict before it, at worst: check_verdicts says what is wrong with that.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(VERDICT_CHANGED_JS, arg=before, timeout=timeout_s * 1000)
        verdict = page.evaluate(VERDICT_JS)
        # The verdict the page settles on, once Python has nothing more to show (it never shows
        # another on the way: checked here). In the Pyodide build Python's work after a patch
        # is out of the page's sight: nothing may change for as long as the old wait (1.5 s).
        page_idle(page, timeout_s=timeout_s, what=f"the page after {name}", quiet_ms=1500)
        settled = page.evaluate(VERDICT_JS)
        shown[name] = verdict if settled == verdict else f"changed: {verdict!r} → {settled!r}"
    return shown


def check_verdicts(shown: dict) -> list[str]:
    """What is wrong with the verdicts shown for UPLOADS (empty when all is right)."""
    problems = []
    for name, verdict in shown.items():
        error = expected_error(name)
        verdict = verdict or ""
        if error is not None and f"Not checked: {error}" not in verdict:
            problems.append(f"{name}: expected the message {error!r}, page said {verdict!r}")
    if "matches the reference" not in (shown.get("right.npy") or ""):
        problems.append(f"right.npy: {shown.get('right.npy')!r}")
    if "1000" not in (shown.get("base1000.csv") or ""):
        problems.append(f"base1000.csv: {shown.get('base1000.csv')!r}")
    return problems

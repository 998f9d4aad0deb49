"""Downloads of the current PE matrix and the code that reproduces it."""

from __future__ import annotations

import html
import io

import numpy as np
import panel as pn
import param

from . import methods
from .state import ExplorerState

CODE_STYLE = """
pre { background: var(--pe-code-bg, #f6f8fa); padding: 0.6em 0.8em; border-radius: 6px;
      overflow-x: auto; font-size: 0.85em; line-height: 1.4; }
h3 { font-size: 1em; margin: 0.6em 0 0.2em; }
"""


def file_stem(state: ExplorerState) -> str:
    """The base of the download names, e.g. pe-d128-n64 (with base and layout when not default)."""
    stem = f"pe-d{state.d_model}-n{state.n_positions}"
    if state.base != state.param.base.default:
        stem += f"-base{state.base:g}"
    if state.layout != "interleaved":
        stem += f"-{state.layout}"
    return stem


def matrix_csv(state: ExplorerState) -> str:
    """The PE matrix as CSV: a header row, then one row per position, every digit kept."""
    matrix = state.matrix
    buffer = io.StringIO()
    header = "pos," + ",".join(f"dim{j}" for j in range(matrix.shape[1]))
    table = np.column_stack([np.arange(matrix.shape[0]), matrix])
    # %.17g keeps every float64 exactly; the first column is the whole-number position.
    np.savetxt(
        buffer,
        table,
        delimiter=",",
        header=header,
        comments="",
        fmt=["%d"] + ["%.17g"] * matrix.shape[1],
    )
    return buffer.getvalue()


def matrix_npy(state: ExplorerState) -> bytes:
    """The PE matrix in NumPy's .npy format (float64)."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(state.matrix))
    return buffer.getvalue()


def numpy_code(state: ExplorerState) -> str:
    """A standalone NumPy program that recreates the matrix and the comparison numbers."""
    return methods.sinusoidal_program(
        state.n_positions, state.d_model, state.base, state.layout, state.pos, state.offset
    )


def torch_code(state: ExplorerState) -> str:
    """The same in PyTorch, in the style of the PyTorch tutorial (float64 to match)."""
    if state.layout == "interleaved":
        fill = "    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)  # interleaved"
    else:
        half = state.d_model // 2
        fill = (
            f"    pe[:, :{half}], pe[:, {half}:] = torch.sin(angle), torch.cos(angle)"
            "  # concatenated"
        )
    return f"""import torch

n_positions, d_model, base = {state.n_positions}, {state.d_model}, {state.base!r}
pos, k = {state.pos}, {state.offset}
omega = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)


def encode(positions):
    angle = torch.as_tensor(positions, dtype=torch.float64)[:, None] * omega
    pe = torch.empty(len(angle), d_model, dtype=torch.float64)
{fill}
    return pe


pe = encode(torch.arange(n_positions))
u, v = encode([pos, pos + k])
dot = u @ v
cosine = torch.nn.functional.cosine_similarity(u, v, dim=0)
distance = torch.linalg.vector_norm(u - v)
print(pe.shape, dot.item(), cosine.item(), distance.item())
"""


class ExportPanel(pn.viewable.Viewer):
    """CSV and .npy downloads of the matrix, and the NumPy / PyTorch code behind it."""

    state = param.ClassSelector(class_=ExplorerState)

    def __init__(self, **params):
        super().__init__(**params)
        self.csv = pn.widgets.FileDownload(
            callback=lambda: io.StringIO(matrix_csv(self.state)),
            filename=f"{file_stem(self.state)}.csv",
            label="Download matrix (CSV)",
            color="default",
            width=220,
        )
        self.npy = pn.widgets.FileDownload(
            callback=lambda: io.BytesIO(matrix_npy(self.state)),
            filename=f"{file_stem(self.state)}.npy",
            label="Download matrix (.npy)",
            color="default",
            width=220,
        )
        self.code = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[CODE_STYLE])
        self.refresh()

    def refresh(self):
        """Follow the state: file names and code (the page calls this while the panel is open)."""
        stem = file_stem(self.state)
        self.csv.filename = f"{stem}.csv"
        self.npy.filename = f"{stem}.npy"
        self.code.object = (
            "<h3>Reproduce in NumPy</h3>"
            f'<pre><code class="pe-numpy-code">{html.escape(numpy_code(self.state))}</code></pre>'
            "<h3>Reproduce in PyTorch</h3>"
            f'<pre><code class="pe-torch-code">{html.escape(torch_code(self.state))}</code></pre>'
        )

    def __panel__(self):
        return pn.Column(
            pn.FlexBox(self.csv, self.npy, flex_wrap="wrap"),
            self.code,
            sizing_mode="stretch_width",
            css_classes=["pe-export"],
        )

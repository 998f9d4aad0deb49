"""Downloads of the current PE matrix, every method's arrays, and the code behind them."""

from __future__ import annotations

import html
import io

import numpy as np
import panel as pn
import param

from .. import code_templates, derived, methods, relative
from ..state import ExplorerState
from ..views import VIEWS

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
    matrix = derived.shown_pe_matrix(state)
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
    np.save(buffer, np.asarray(derived.shown_pe_matrix(state)))
    return buffer.getvalue()


def method_arrays(state: ExplorerState) -> dict[str, np.ndarray]:
    """Each method's arrays at the state, named method_array (the .npz download).

    Offsets run 0 … n_positions − 1. The n × n score and bias matrices are Toeplitz, so the
    curves against the offset hold them: RoPE's q_m·k_n = rope_offset_scores[n − m + n − 1]
    over rope_offsets −(n − 1) … n − 1, and ALiBi's bias[h, i, j] = alibi_offset_bias[h, |i − j|].
    """
    n, d, base, layout = state.n_positions, state.d_model, float(state.base), state.layout
    offsets = np.arange(n)
    q, k = derived.query_key(d, state.seed)
    slopes = derived.alibi_slopes(state.heads)
    words = state.words
    rope_offsets, rope_scores = derived.rope_offset_curve(n, d, base, layout, state.seed)
    arrays = {
        "offsets": offsets,
        "sinusoidal_pe": derived.shown_pe_matrix(state),
        "sinusoidal_offset_dots": methods.position_scores("sinusoidal", offsets, d, base),
        "rope_q": q,
        "rope_k": k,
        "rope_offsets": rope_offsets,
        "rope_offset_scores": rope_scores,
        "rope_offset_scores_q_q": methods.position_scores("rope", offsets, d, base, layout, q=q),
        "rope_decay": methods.rope_decay(offsets, d, base),
        "alibi_slopes": slopes,
        "alibi_offset_bias": -slopes[:, None] * offsets,
        "none_tokens": np.array(words, dtype=str),
        "none_scores": derived.nope_scores(tuple(words), d) if words else np.zeros((0, 0)),
    }
    return {name: np.asarray(array) for name, array in arrays.items()}


def methods_npz(state: ExplorerState) -> bytes:
    """method_arrays in NumPy's compressed .npz format."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **method_arrays(state))
    return buffer.getvalue()


def method_code(state: ExplorerState, method: str) -> str:
    """The NumPy script that reproduces what the page shows for method at the state."""
    return code_templates.method_snippet(
        method,
        d_model=state.d_model,
        n_positions=state.n_positions,
        base=state.base,
        layout=state.layout,
        pos=state.pos,
        offset=state.offset,
        n_heads=state.heads,
        seed=state.seed,
        tokens=state.words,
    )


def numpy_code(state: ExplorerState) -> str:
    """A standalone NumPy program that recreates the matrix and the comparison numbers."""
    return code_templates.sinusoidal_program(
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


def long_context_arrays(state: ExplorerState) -> dict[str, np.ndarray]:
    """The RoPE scaling and relative views' arrays at the state (the second .npz download).

    scaling_*: per pair, θ_i, θ'_i under the chosen method and its attention factor (the
    inv_freq the RoPE checker takes); t5_buckets[i, j], shaw_vector[i, j]: the bucket and the
    index of the learned vector (0 … 2k) for query i and key j; xl_*: Transformer-XL's four
    terms against the offset i − j = 0 … n − 1.
    """
    n = state.n_positions
    model = derived.scaled_rope(state)
    arrays = {
        "scaling_original_inv_freq": model.original,
        "scaling_inv_freq": model.scaled,
        "scaling_attention_factor": np.float64(model.attention_factor),
        "shaw_vector": relative.shaw_clipped_offsets(n, state.shaw_clip),
    }
    try:
        keys_minus_queries = np.arange(n)[None, :] - np.arange(n)[:, None]
        arrays["t5_buckets"] = relative.t5_relative_bucket(
            keys_minus_queries, state.t5_bidirectional, state.t5_buckets, state.t5_max_distance
        )
    except ValueError:
        pass  # settings without buckets (the T5 view says why): nothing to download
    terms = relative.transformer_xl_terms(np.arange(n), state.d_model, state.seed, state.base)
    for name in ("content", "content_position", "content_bias", "position_bias"):
        arrays[f"xl_{name}"] = getattr(terms, name)
    return {name: np.asarray(array) for name, array in arrays.items()}


def long_context_npz(state: ExplorerState) -> bytes:
    """long_context_arrays in NumPy's compressed .npz format."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **long_context_arrays(state))
    return buffer.getvalue()


def view_scripts(state: ExplorerState) -> str:
    """Each view with a script of its own (RoPE scaling, T5, Shaw, …), folded, in NumPy."""
    return "".join(
        f"<details><summary>{html.escape(spec.short)} in NumPy</summary>"
        f'<pre><code class="pe-{spec.name}-code">{html.escape(spec.code(state))}</code></pre>'
        "</details>"
        for spec in VIEWS
        if spec.code is not None
    )


class ExportPanel(pn.viewable.Viewer):
    """CSV and .npy downloads of the matrix, and the NumPy / PyTorch code behind it."""

    state = param.ClassSelector(class_=ExplorerState)

    def __init__(self, **params):
        super().__init__(**params)
        self._suffixes: dict[pn.widgets.FileDownload, str] = {}
        self.csv = self._download(".csv", "Download matrix (CSV)", matrix_csv, io.StringIO)
        self.npy = self._download(".npy", "Download matrix (.npy)", matrix_npy, io.BytesIO)
        self.npz = self._download(
            "-methods.npz", "Download every method's arrays (.npz)", methods_npz, io.BytesIO, 300
        )
        self.long_context = self._download(
            "-long-context.npz",
            "Download RoPE scaling and relative arrays (.npz)",
            long_context_npz,
            io.BytesIO,
            380,
        )
        self.code = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[CODE_STYLE])
        self.refresh()

    def _download(self, suffix: str, label: str, contents, wrap, width: int = 220):
        """A download button for contents(state), named after the state."""
        download = pn.widgets.FileDownload(
            callback=lambda: wrap(contents(self.state)),
            filename=f"{file_stem(self.state)}{suffix}",
            label=label,
            color="default",
            width=width,
        )
        self._suffixes[download] = suffix
        return download

    def refresh(self):
        """Follow the state: file names and code (the page calls this while the panel is open)."""
        for download, suffix in self._suffixes.items():
            download.filename = f"{file_stem(self.state)}{suffix}"
        other_methods = "".join(
            f"<details{' open' if method == self.state.method else ''}>"
            f"<summary>{methods.METHOD_LABELS[method]} in NumPy</summary>"
            f'<pre><code class="pe-{method}-code">'
            f"{html.escape(method_code(self.state, method))}</code></pre></details>"
            for method in methods.METHODS
            if method != "sinusoidal"
        )
        self.code.object = (
            "<h3>Reproduce in NumPy</h3>"
            f'<pre><code class="pe-numpy-code">{html.escape(numpy_code(self.state))}</code></pre>'
            "<h3>Reproduce in PyTorch</h3>"
            f'<pre><code class="pe-torch-code">{html.escape(torch_code(self.state))}</code></pre>'
            f"<h3>The other position methods</h3>{other_methods}"
            f"<h3>Long context and relative positions</h3>{view_scripts(self.state)}"
        )

    def __panel__(self):
        return pn.Column(
            pn.FlexBox(self.csv, self.npy, self.npz, self.long_context, flex_wrap="wrap"),
            self.code,
            sizing_mode="stretch_width",
            css_classes=["pe-export"],
        )

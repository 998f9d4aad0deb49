"""Shaw et al. 2018: learned vectors a_{j−i} for the distance j − i clipped to [−K, K]."""

from __future__ import annotations

from dataclasses import dataclass

from .. import derived, methods, relative
from ..plotkit import theme
from ..plotkit.charts import offset_shapes, panel_caption, reduced_note, titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.numbers import number, signed
from ..plotkit.subplots import Subplot, compose, heatmap_axis
from ..state import ExplorerState

# The n × n matrix on the left, the 2K + 1 vectors on the right, each with its colour bar.
MATRIX_DOMAIN, VECTORS_DOMAIN = (0.0, 0.38), (0.64, 0.93)
PANEL_HEIGHT = (0.0, 0.82)
# Show data: the vectors near the pair's, with their first few numbers (at most 16 columns).
LISTED_DIMENSIONS = 11

READOUT_STYLE = theme.READOUT_NOTE_STYLE


@dataclass(frozen=True)
class ShawReadout:
    """The vector the pair (pos, pos + k) uses and the pairs that share it."""

    clip: int
    n_positions: int
    d_model: int
    seed: int
    pos: int
    second_pos: int
    offset: int  # j − i
    vector: int  # c = clip(j − i, −K, K)
    sharing: int  # pairs (i, j) using a_c
    first_numbers: tuple[float, ...]  # a_c's first dimensions
    score: float  # q·a_c with the seeded RoPE query
    used: int  # vectors some pair of the sequence uses: min(2K + 1, 2n − 1)


def readout_values(state: ExplorerState) -> ShawReadout:
    """The pair's vector c, how many pairs share it, and a_c's first numbers."""
    clip, n, k = state.shaw_clip, state.n_positions, state.offset
    vectors = derived.shaw_vectors(clip, state.d_model, state.seed)
    vector = relative.shaw_vector(k, clip)
    return ShawReadout(
        clip=clip,
        n_positions=n,
        d_model=state.d_model,
        seed=state.seed,
        pos=state.pos,
        second_pos=state.second_pos,
        offset=k,
        vector=vector,
        sharing=relative.shaw_sharing_pairs(vector, clip, n),
        first_numbers=tuple(float(x) for x in vectors.first_dimensions[vector + clip, :4]),
        score=float(vectors.scores[vector + clip]),
        used=relative.shaw_used_vectors(clip, n),
    )


def _sub(vector: int) -> str:
    return f"a<sub>{signed(vector)}</sub>"


def readout(state: ExplorerState) -> str:
    """Which vector the pair uses, how many pairs share it, and its first numbers."""
    shown = readout_values(state)
    k, c, clip, n = shown.offset, shown.vector, shown.clip, shown.n_positions
    if abs(k) < clip:
        why = f"within ±K = {clip}, so the pair has the vector of its own distance"
        who = f"every pair with j − i = {c}"
    else:
        why = f"{'beyond' if abs(k) > clip else 'at'} the clipping distance K = {clip}"
        low, high = relative.shaw_distance_span(c, clip, n)
        who = f"every pair with j − i from {signed(low)} to {signed(high)}"
    numbers_text = ", ".join(number(x) for x in shown.first_numbers)
    unused = (
        f" Only {shown.used} of them are used here: no two of the {n} positions are more than "
        f"{n - 1} apart."
        if shown.used < 2 * clip + 1
        else ""
    )
    return (
        f'<p class="pe-note pe-shaw-current">(pos, pos + k) = (<span class="pe-shaw-pos">'
        f'{shown.pos}</span>, <span class="pe-shaw-second">{shown.second_pos}</span>): '
        f"j − i = {signed(k)}, {why}: it uses "
        f'<span class="pe-shaw-vector">{_sub(c)}</span>; '
        f'<span class="pe-shaw-sharing">{shown.sharing}</span> pairs of the {n} × {n} share it, '
        f"{who}.</p>"
        f'<p class="pe-note pe-shaw-table">2K + 1 = {2 * clip + 1} vectors {_sub(-clip)} … '
        f"{_sub(clip)} of {shown.d_model} numbers each, drawn at random (seed {shown.seed}) "
        f"as a trained model's would be learned.{unused} {_sub(c)} begins "
        f'<span class="pe-shaw-numbers">{numbers_text}</span> …; with the seeded query q, '
        f'the position score q·{_sub(c)} = <span class="pe-shaw-score">'
        f"{number(shown.score, 6)}</span>.</p>"
    )


def _shared_shapes(state: ExplorerState, vector: int, stride: int) -> list[dict]:
    """The pairs sharing the pair's vector: diagonal k when it is not clipped (offset_shapes),
    else the triangle of every pair at least K apart on its side, outlined and tinted."""
    shapes = offset_shapes(state, stride)
    clip, n = state.shaw_clip, state.n_positions
    if abs(vector) < clip or clip > n - 1:
        return shapes
    far, edge = n - 0.5, n - clip - 0.5
    # Keys j (x) against queries i (y): j − i ≥ K above the diagonal, ≤ −K below it.
    if vector > 0:
        corners = [(clip - 0.5, -0.5), (far, -0.5), (far, edge)]
    else:
        corners = [(-0.5, clip - 0.5), (-0.5, far), (edge, far)]
    path = "M " + " L ".join(f"{x:g},{y:g}" for x, y in corners) + " Z"
    colour = theme.colours(state.theme)["second"]
    # The dotted diagonal k is replaced by the triangle holding it.
    return [
        *[shape for shape in shapes if shape["name"] != "offset k"],
        {
            "type": "path",
            "xref": "x",
            "yref": "y",
            "path": path,
            "line": {"color": colour, "width": 2, "dash": "dot"},
            "fillcolor": "rgba(124,58,237,0.18)",
            "name": f"pairs using a_{vector}",
        },
    ]


def _matrix_subplot(state: ExplorerState, shown: ShawReadout) -> Subplot:
    """clip(j − i, −K, K) for every (query i, key j), the pairs sharing the pair's vector marked."""
    n, clip = state.n_positions, state.shaw_clip
    cells = derived.shaw_offset_cells(n, clip)
    heatmap = {
        "type": "heatmap",
        "x": cells.rows,
        "y": cells.rows,
        "z": cells.clipped,
        "zmin": -clip,
        "zmid": 0.0,
        "zmax": clip,
        "colorscale": theme.DIVERGING_SCALE,
        "colorbar": theme.colorbar(
            x=MATRIX_DOMAIN[1] + 0.01, thickness=8, len=0.8, y=0.4, title={"text": "c"}
        ),
        "hovertemplate": "query i = %{y}, key j = %{x}<br>uses a_%{z}<extra></extra>",
        "name": "clip(j − i, −K, K)",
    }
    size = f"{n} × {n}" if cells.stride == 1 else reduced_note(cells.stride, cells.rows.size, n)
    caption = f"<b>Vector each pair uses</b><br>clip(j − i, −{clip}, {clip}) · {size}"
    return Subplot(
        traces=[heatmap],
        x_axis=heatmap_axis("key j"),
        y_axis=heatmap_axis("query i", autorange="reversed", scaleanchor="x", constrain="domain"),
        domain=(MATRIX_DOMAIN, PANEL_HEIGHT),
        shapes=_shared_shapes(state, shown.vector, cells.stride),
        annotations=[_caption(caption, MATRIX_DOMAIN)],
    )


def _vectors_subplot(state: ExplorerState, shown: ShawReadout) -> Subplot:
    """The 2K + 1 vectors a_c, the pair's outlined."""
    clip, d, c = state.shaw_clip, state.d_model, shown.vector
    vectors = derived.shaw_vectors(clip, d, state.seed)
    heatmap = {
        "type": "heatmap",
        "x": vectors.dimensions,
        "y": vectors.rows,
        "z": vectors.z,
        "zmin": -vectors.largest,
        "zmid": 0.0,
        "zmax": vectors.largest,
        "colorscale": theme.DIVERGING_SCALE,
        "colorbar": theme.colorbar(x=0.95, thickness=8, len=0.8, y=0.4),
        "hovertemplate": "a_%{y}, dimension %{x}<br>%{z:.4f}<extra></extra>",
        "name": "vectors a_c",
    }
    outline = {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": -0.5,
        "x1": vectors.dimensions[-1] + vectors.stride - 0.5,
        "y0": c - vectors.stride / 2,
        "y1": c + vectors.stride / 2,
        "line": {"color": theme.colours(state.theme)["pos"], "width": 2},
        "fillcolor": "rgba(0,0,0,0)",
        "name": f"a_{c}",
    }
    size = f"{2 * clip + 1} × {d}"
    if vectors.stride > 1:
        size = f"every {vectors.stride}th vector and dimension of {size}"
    return Subplot(
        traces=[heatmap],
        x_axis=heatmap_axis("dimension"),
        # Untitled: the caption names the rows a_c, and a phone has no room for more.
        y_axis=heatmap_axis("", autorange="reversed"),
        domain=(VECTORS_DOMAIN, PANEL_HEIGHT),
        shapes=[outline],
        annotations=[_caption(f"<b>The vectors a<sub>c</sub></b><br>{size}", VECTORS_DOMAIN)],
    )


def _caption(text: str, x_domain: tuple[float, float]) -> dict:
    """A caption of two lines over a panel, both aligned left."""
    return panel_caption(text, x_domain[0], 0.92) | {"align": "left"}


def figure(state: ExplorerState) -> dict:
    """Left: clip(j − i, −K, K) for every (query i, key j). Right: the 2K + 1 vectors."""
    n, d, clip = state.n_positions, state.d_model, state.shaw_clip
    shown = readout_values(state)
    title = (
        f"Shaw et al., K = {clip}: (pos, pos + k) uses a<sub>{signed(shown.vector)}</sub>, "
        f"shared by {shown.sharing} pairs"
    )
    layout = titled_layout(state, f"shaw-{n}-{clip}-{d}", title)
    layout.update(margin={"l": 64, "r": 24, "t": 84, "b": 56}, showlegend=False)
    return compose(state, layout, [_matrix_subplot(state, shown), _vectors_subplot(state, shown)])


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the clipping, the pair's vector and how many share it."""
    shown = readout_values(state)
    return (
        f"Shaw et al. relative positions clipped at K = {shown.clip} over {shown.n_positions} "
        f"positions: {2 * shown.clip + 1} learned vectors of {shown.d_model} numbers; the pair "
        f"({shown.pos}, {shown.second_pos}), j − i = {signed(shown.offset)}, uses "
        f"a_{signed(shown.vector)}, shared by {shown.sharing} pairs; q·a_{signed(shown.vector)} "
        f"= {number(shown.score)}"
    )


def data(state: ExplorerState) -> ChartData:
    """The vectors near the pair's: the distances using each, how many pairs, first numbers."""
    clip, n, d = state.shaw_clip, state.n_positions, state.d_model
    vectors = derived.shaw_vectors(clip, d, state.seed)
    c = relative.shaw_vector(state.offset, clip)
    listed = indices_near(c + clip, 2 * clip + 1, DATA_ROWS)
    dims = range(min(d, LISTED_DIMENSIONS))

    def span(vector: int, end: int):
        distances = relative.shaw_distance_span(vector, clip, n)
        return "none" if distances is None else distances[end]

    rows = tuple(
        (
            f"a_{index - clip}",
            span(index - clip, 0),
            span(index - clip, 1),
            relative.shaw_sharing_pairs(index - clip, clip, n),
            float(vectors.scores[index]),
            *vectors.first_dimensions[index, : len(dims)],
        )
        for index in listed
    )
    return ChartData(
        caption=f"Shaw et al.'s vectors near a_{c}, the one (pos, pos + k) uses (K = {clip}, "
        f"seed {state.seed})",
        columns=(
            "vector",
            "j − i from",
            "j − i to",
            "pairs using it",
            "q·a_c",
            *(f"dim {i}" for i in dims),
        ),
        rows=rows,
        note=f"Vectors a_{listed[0] - clip} … a_{listed[-1] - clip} of a_{-clip} … a_{clip} and "
        f"dimensions {span_text(dims)} of {d} shown; q is the seeded RoPE query.",
    )


def code(state: ExplorerState) -> str:
    """A standalone NumPy script: the clipped distances, the seeded vectors, the pair's vector
    and how many pairs share it."""
    return f"""import numpy as np

n_positions, clip, d_model, seed = {state.n_positions}, {state.shaw_clip}, {state.d_model}, \
{state.seed}
pos, k = {state.pos}, {state.offset}

positions = np.arange(n_positions)
distance = positions[None, :] - positions[:, None]  # j - i for query i (rows), key j (columns)
vector_of = np.clip(distance, -clip, clip)  # pair (i, j) uses a[vector_of[i, j]]

# The 2K + 1 vectors a_-K ... a_K, random stand-ins for learned ones (row c + K is a_c), drawn
# from a stream of their own; the query q is the RoPE views' (seed), the first of its stream.
vectors_seed = (seed + {derived.RELATIVE_STREAM}) % {methods.MAX_SEED + 1}
rng = np.random.default_rng(vectors_seed)
vectors = rng.standard_normal((2 * clip + 1, d_model)) / np.sqrt(d_model)
q = np.random.default_rng(seed).standard_normal(d_model)

c = int(np.clip(k, -clip, clip))  # the vector the pair (pos, pos + k) uses
sharing = int(np.count_nonzero(vector_of == c))  # pairs (i, j) that use it too
score = q @ vectors[c + clip]  # the pair's position score q . a_c
print(f"(pos, pos + k) = ({{pos}}, {{pos + k}}) uses a_{{c}}; {{sharing}} pairs share it")
print("a_c begins", vectors[c + clip, :4], "q . a_c =", score)
"""

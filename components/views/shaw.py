"""Shaw et al. 2018: learned vectors a_{j−i} for the distance j − i clipped to [−K, K]."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import derived, methods, relative
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import panel_caption, reduced_note, titled_layout
from ..plotkit.frame import DATA_ROWS, ChartData, indices_near, span_text
from ..plotkit.markers import layout_image, marker_updates, offset_markers
from ..plotkit.numbers import number, signed
from ..plotkit.picked_texts import whole
from ..plotkit.subplots import Subplot, axis_names, compose, heatmap_axis
from ..state import ExplorerState

# The n × n matrix on the left, the 2K + 1 vectors on the right, each with its colour bar.
MATRIX_DOMAIN, VECTORS_DOMAIN = (0.0, 0.38), (0.64, 0.93)
PANEL_HEIGHT = (0.0, 0.82)
# Show data: the vectors near the pair's, with their first few numbers (at most 16 columns).
LISTED_DIMENSIONS = 11
# The layout images: on the matrix, diagonal k, the cell (pos, pos + k) and the triangles of
# pairs sharing a_K and a_−K (one of the three shown); among the vectors, the pair's.
DIAGONAL, CELL, UPPER, LOWER, VECTOR = range(5)
# The triangles' fill, under their dotted edge.
TRIANGLE_FILL = "rgba(124,58,237,0.18)"

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


def _why(offset: int, clip: int) -> str:
    """Why the pair k = offset apart has its vector."""
    if abs(offset) < clip:
        return f"within ±K = {clip}, so the pair has the vector of its own distance"
    return f"{'beyond' if abs(offset) > clip else 'at'} the clipping distance K = {clip}"


def _who(vector: int, clip: int, n_positions: int) -> str:
    """Which pairs share a_vector."""
    if abs(vector) < clip:
        return f"every pair with j − i = {vector}"
    low, high = relative.shaw_distance_span(vector, clip, n_positions)
    return f"every pair with j − i from {signed(low)} to {signed(high)}"


@dataclass(frozen=True)
class Pairs:
    """The pair (pos, pos + k) at each value, printed: its distance j − i, the vector a_c it
    uses, and the pairs sharing a_c."""

    firsts: list[str]
    seconds: list[str]
    offsets: list[str]  # j − i, minus as U+2212
    whys: list[str]
    vectors: list[str]  # c, minus as U+2212
    sharing: list[str]
    whos: list[str]
    numbers: list[str]  # a_c's first numbers
    scores: list[str]  # q·a_c, six decimals
    named_scores: list[str]  # q·a_c as the chart's name gives it

    @classmethod
    def of(cls, state: ExplorerState, firsts, offsets) -> Pairs:
        """The pairs at each pos of firsts and k of offsets: the texts of each distinct vector
        are written once."""
        clip, n = state.shaw_clip, state.n_positions
        firsts, offsets = np.asarray(firsts), np.asarray(offsets)
        table = derived.shaw_vectors(clip, state.d_model, state.seed)
        vectors = relative.shaw_vector(offsets, clip).tolist()
        texts = {}
        for c in dict.fromkeys(vectors):
            texts[c] = (
                signed(c),
                str(relative.shaw_sharing_pairs(c, clip, n)),
                _who(c, clip, n),
                ", ".join(number(x) for x in table.first_dimensions[c + clip, :4]),
                number(table.scores[c + clip], 6),
                number(table.scores[c + clip]),
            )
        whys = {size: _why(size, clip) for size in (clip - 1, clip, clip + 1)}
        sizes = np.clip(np.abs(offsets), clip - 1, clip + 1).tolist()
        (vector, sharing, who, numbers, score, named) = zip(
            *(texts[c] for c in vectors), strict=True
        )
        return cls(
            firsts=whole(firsts),
            seconds=whole(firsts + offsets),
            offsets=[signed(k) for k in offsets.tolist()],
            whys=[whys[size] for size in sizes],
            vectors=list(vector),
            sharing=list(sharing),
            whos=list(who),
            numbers=list(numbers),
            scores=list(score),
            named_scores=list(named),
        )


def readout_text(state: ExplorerState, pairs: Pairs) -> picks_kit.Text:
    """Which vector the pair uses, how many pairs share it, and its first numbers, at each value
    of pairs."""
    clip, n = state.shaw_clip, state.n_positions
    used = relative.shaw_used_vectors(clip, n)
    sub = ["a<sub>", pairs.vectors, "</sub>"]
    unused = (
        f" Only {used} of them are used here: no two of the {n} positions are more than "
        f"{n - 1} apart."
        if used < 2 * clip + 1
        else ""
    )
    return picks_kit.joined(
        len(pairs.firsts),
        '<p class="pe-note pe-shaw-current">(pos, pos + k) = (<span class="pe-shaw-pos">',
        pairs.firsts,
        '</span>, <span class="pe-shaw-second">',
        pairs.seconds,
        "</span>): j − i = ",
        pairs.offsets,
        ", ",
        pairs.whys,
        ': it uses <span class="pe-shaw-vector">',
        *sub,
        '</span>; <span class="pe-shaw-sharing">',
        pairs.sharing,
        f"</span> pairs of the {n} × {n} share it, ",
        pairs.whos,
        ".</p>"
        f'<p class="pe-note pe-shaw-table">2K + 1 = {2 * clip + 1} vectors {_sub(-clip)} … '
        f"{_sub(clip)} of {state.d_model} numbers each, drawn at random (seed {state.seed}) "
        f"as a trained model's would be learned.{unused} ",
        *sub,
        ' begins <span class="pe-shaw-numbers">',
        pairs.numbers,
        "</span> …; with the seeded query q, the position score q·",
        *sub,
        ' = <span class="pe-shaw-score">',
        pairs.scores,
        "</span>.</p>",
    )


def readout(state: ExplorerState) -> str:
    """Which vector the pair uses, how many pairs share it, and its first numbers."""
    return readout_text(state, Pairs.of(state, [state.pos], [state.offset])).at(0)


@lru_cache(maxsize=8)
def triangle_source(colour: str, corners: str) -> str:
    """A triangle of a 100 × 100 box (corners: its points) tinted and edged dotted in colour,
    stretching to any box with its edge staying 2 px wide, as a data URI for a layout image."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" preserveAspectRatio="none">'
        f'<polygon points="{corners}" fill="{TRIANGLE_FILL}" stroke="{colour}" stroke-width="2" '
        'stroke-dasharray="3 3" vector-effect="non-scaling-stroke"/></svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def triangle_shown(vector, clip: int, n_positions: int):
    """Whether the pairs sharing the pair's vector are a triangle of the matrix, every pair at
    least K apart on one side (numbers or arrays): the vector is clipped, and pairs K apart
    exist."""
    return (np.abs(vector) >= clip) & (clip <= n_positions - 1)


def triangle_markers(state: ExplorerState, vector: int) -> list[dict]:
    """The triangles of the pairs using a_K (keys j ≥ i + K, above the diagonal) and a_−K
    (below), the one of the pair's vector shown."""
    clip, n = state.shaw_clip, state.n_positions
    colour = theme.colours(state.theme)["second"]
    shown = bool(triangle_shown(vector, clip, n))
    # Keys j (x) against queries i (y, downwards); the side n − K cells, none when K ≥ n.
    side = max(n - clip, 0)
    upper = layout_image(
        triangle_source(colour, "0,0 100,0 100,100"),
        ("x", "y"),
        "pairs using a_K",
        x=clip - 0.5,
        y=-0.5,
        sizex=side,
        sizey=side,
        xanchor="left",
        yanchor="top",
        visible=shown and vector > 0,
    )
    lower = layout_image(
        triangle_source(colour, "0,0 0,100 100,100"),
        ("x", "y"),
        "pairs using a_−K",
        x=-0.5,
        y=clip - 0.5,
        sizex=side,
        sizey=side,
        xanchor="left",
        yanchor="top",
        visible=shown and vector < 0,
    )
    return [upper, lower]


def vector_marker(state: ExplorerState, vector: int) -> dict:
    """The pair's vector a_c outlined among the vectors (the second chart's rows)."""
    vectors = derived.shaw_vectors(state.shaw_clip, state.d_model, state.seed)
    width = vectors.dimensions[-1] + vectors.stride
    return layout_image(
        theme.outline_source(theme.colours(state.theme)["pos"]),
        axis_names(2),
        "a_c of (pos, pos + k)",
        x=(width - 1) / 2,
        y=vector,
        sizex=width,
        sizey=vectors.stride,
        xanchor="center",
        yanchor="middle",
    )


def markers(state: ExplorerState, vector: int, stride: int) -> list[dict]:
    """The marks of the pair: diagonal k (or, clipped, the triangle holding it) and the cell
    (pos, pos + k) on the matrix, its vector among the vectors."""
    diagonal, cell = offset_markers(state, stride)
    # The dotted diagonal k is replaced by the triangle holding it.
    diagonal["visible"] = not triangle_shown(vector, state.shaw_clip, state.n_positions)
    return [diagonal, cell, *triangle_markers(state, vector), vector_marker(state, vector)]


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
        annotations=[_caption(caption, MATRIX_DOMAIN)],
    )


def _vectors_subplot(state: ExplorerState) -> Subplot:
    """The 2K + 1 vectors a_c (the pair's outlined by an image: vector_marker)."""
    clip, d = state.shaw_clip, state.d_model
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
    size = f"{2 * clip + 1} × {d}"
    if vectors.stride > 1:
        size = f"every {vectors.stride}th vector and dimension of {size}"
    return Subplot(
        traces=[heatmap],
        x_axis=heatmap_axis("dimension"),
        # Untitled: the caption names the rows a_c, and a phone has no room for more.
        y_axis=heatmap_axis("", autorange="reversed"),
        domain=(VECTORS_DOMAIN, PANEL_HEIGHT),
        annotations=[_caption(f"<b>The vectors a<sub>c</sub></b><br>{size}", VECTORS_DOMAIN)],
    )


def _caption(text: str, x_domain: tuple[float, float]) -> dict:
    """A caption of two lines over a panel, both aligned left."""
    return panel_caption(text, x_domain[0], 0.92) | {"align": "left"}


def title_text(clip: int, pairs: Pairs) -> picks_kit.Text:
    """The figure's title at each value of pairs."""
    return picks_kit.joined(
        len(pairs.firsts),
        f"Shaw et al., K = {clip}: (pos, pos + k) uses a<sub>",
        pairs.vectors,
        "</sub>, shared by ",
        pairs.sharing,
        " pairs",
    )


def figure(state: ExplorerState) -> dict:
    """Left: clip(j − i, −K, K) for every (query i, key j). Right: the 2K + 1 vectors."""
    n, d, clip = state.n_positions, state.d_model, state.shaw_clip
    shown = readout_values(state)
    title = title_text(clip, Pairs.of(state, [state.pos], [state.offset])).at(0)
    layout = titled_layout(state, f"shaw-{n}-{clip}-{d}", title)
    layout.update(margin={"l": 64, "r": 24, "t": 84, "b": 56}, showlegend=False)
    layout["images"] = markers(state, shown.vector, derived.dot_product_stride(n))
    return compose(state, layout, [_matrix_subplot(state, shown), _vectors_subplot(state)])


def label_text(state: ExplorerState, pairs: Pairs) -> picks_kit.Text:
    """The chart's accessible name at each value of pairs."""
    clip = state.shaw_clip
    return picks_kit.joined(
        len(pairs.firsts),
        f"Shaw et al. relative positions clipped at K = {clip} over {state.n_positions} "
        f"positions: {2 * clip + 1} learned vectors of {state.d_model} numbers; the pair (",
        pairs.firsts,
        ", ",
        pairs.seconds,
        "), j − i = ",
        pairs.offsets,
        ", uses a_",
        pairs.vectors,
        ", shared by ",
        pairs.sharing,
        " pairs; q·a_",
        pairs.vectors,
        " = ",
        pairs.named_scores,
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the clipping, the pair's vector and how many share it."""
    return label_text(state, Pairs.of(state, [state.pos], [state.offset])).at(0)


def caption_text(state: ExplorerState, offsets) -> picks_kit.Text:
    """The Show data table's caption at each k of offsets."""
    clip = state.shaw_clip
    vectors = relative.shaw_vector(np.asarray(offsets), clip)
    return picks_kit.joined(
        len(vectors),
        "Shaw et al.'s vectors near a_",
        whole(vectors),
        f", the one (pos, pos + k) uses (K = {clip}, seed {state.seed})",
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
        caption=caption_text(state, [state.offset]).at(0),
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


def axis_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """Everything pos and k move, at each value of one axis."""
    clip, n = state.shaw_clip, state.n_positions
    vectors = relative.shaw_vector(moved.offsets, clip)
    triangle = triangle_shown(vectors, clip, n)
    pairs = Pairs.of(state, moved.firsts, moved.offsets)
    return [
        *marker_updates(moved, n, derived.dot_product_stride(n), DIAGONAL),
        picks_kit.Update("layout", f"images[{DIAGONAL}].visible", each=tuple((~triangle).tolist())),
        picks_kit.Update(
            "layout", f"images[{UPPER}].visible", each=tuple((triangle & (vectors > 0)).tolist())
        ),
        picks_kit.Update(
            "layout", f"images[{LOWER}].visible", each=tuple((triangle & (vectors < 0)).tolist())
        ),
        picks_kit.Update("layout", f"images[{VECTOR}].y", each=vectors),
        picks_kit.Update("layout", "title.text", text=title_text(clip, pairs)),
        picks_kit.Update("label", text=label_text(state, pairs)),
        picks_kit.Update("caption", text=caption_text(state, moved.offsets)),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_text(state, pairs)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks:
    """What a drag of pos or k moves: the pair's marks and vector, the title, the chart's name,
    the caption and the readout."""
    moved = picks_kit.moved_positions(state)
    return picks_kit.Picks({}, tuple(m.picks(axis_updates(state, m)) for m in moved))

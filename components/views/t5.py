"""T5's relative attention buckets: one learned bias per bucket of key − query (Raffel et al.)."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .. import derived, relative
from ..plotkit import picks as picks_kit
from ..plotkit import theme
from ..plotkit.charts import message_figure, panel_caption, reduced_note, titled_layout
from ..plotkit.frame import ChartData, span_text
from ..plotkit.markers import marker_updates, offset_markers
from ..plotkit.numbers import signed
from ..plotkit.picked_texts import whole
from ..plotkit.subplots import Subplot, compose, heatmap_axis
from ..relative import BucketRun
from ..state import ExplorerState

# A sequential, colour-blind-safe scale for bucket numbers: viridis, sampled at ten stops and
# spelled out (figures skip the validation that would turn a scale's name into stops).
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779",
           "#6ece58", "#b5de2b", "#fde725")  # fmt: skip
BUCKET_SCALE = [[index / (len(VIRIDIS) - 1), colour] for index, colour in enumerate(VIRIDIS)]
# Panels: the buckets over every offset on top; the n × n matrix and the zoom near the query below.
TOP_DOMAIN, BOTTOM_DOMAIN = (0.6, 1.0), (0.0, 0.42)
MATRIX_DOMAIN, ZOOM_DOMAIN = (0.0, 0.36), (0.62, 1.0)
# The zoom shows this many times max_exact on each side of the query: the exact buckets and the
# first log-spaced ones.
ZOOM_EXACT_SPANS = 3
# Show data lists at most this many runs, around the one holding k.
LISTED_RUNS = 16
# Where the figure keeps what pos and k move: the markers of the matrix (layout images 0 and 1)
# and k's diamond on both step charts (traces).
CURRENT_TRACES = (3, 6)

READOUT_STYLE = theme.READOUT_NOTE_STYLE


@dataclass(frozen=True)
class T5Readout:
    """The bucket of the key pos + k seen from the query pos, and how the buckets are spread."""

    num_buckets: int
    max_distance: int
    bidirectional: bool
    max_exact: int  # distances 0 … max_exact − 1 have a bucket each (on each side)
    side_buckets: int  # buckets per side: num_buckets / 2 bidirectional, num_buckets causal
    pos: int
    second_pos: int
    offset: int  # key − query
    bucket: int
    run: BucketRun  # the distances that share k's bucket, on k's side of the query
    side: int  # −1: the key is at or before the query, +1: after it
    last: BucketRun  # the last bucket before the query: every distance from its first on
    log_runs: int  # how many log-spaced buckets come before the last one


def bucket_settings(state: ExplorerState) -> tuple[int, int, bool]:
    """The state's (num_buckets, max_distance, bidirectional)."""
    return state.t5_buckets, state.t5_max_distance, state.t5_bidirectional


def problem(state: ExplorerState) -> str:
    """Why T5's buckets are undefined for these settings ("" when they are defined)."""
    return relative.t5_problem(*bucket_settings(state))


def readout_values(state: ExplorerState) -> T5Readout:
    """The bucket of k = key − query, its run of distances and the bands of the buckets."""
    nb, md, bidirectional = bucket_settings(state)
    bands = derived.t5_bands(nb, md, bidirectional)
    side, run = derived.t5_run_of(state.offset, nb, md, bidirectional)
    return T5Readout(
        num_buckets=nb,
        max_distance=md,
        bidirectional=bidirectional,
        max_exact=bands.max_exact,
        side_buckets=bands.side_buckets,
        pos=state.pos,
        second_pos=state.second_pos,
        offset=state.offset,
        bucket=run.bucket,
        run=run,
        side=side,
        last=bands.last,
        log_runs=bands.log_runs,
    )


def run_text(run: BucketRun, side: int, bidirectional: bool) -> str:
    """Which distances a run holds, in words: "distances 8…11 before the query share bucket 8"."""
    if side > 0 and not bidirectional:
        return (
            f"every key after the query shares bucket {run.bucket} with the query itself "
            "(a decoder masks them)"
        )
    where = "after the query" if side > 0 else "before the query"
    if run.first == 0 and not bidirectional:
        return (
            f"distance 0 (the query itself) shares bucket {run.bucket} with every key after it "
            "(a decoder masks them)"
        )
    if run.first == 0:
        return f"distance 0 (the query itself) has bucket {run.bucket} to itself"
    if run.last is None:
        return f"distances {run.first} and beyond {where} share bucket {run.bucket}"
    if run.first == run.last:
        return f"distance {run.first} {where} has bucket {run.bucket} to itself"
    return f"distances {run.first}…{run.last} {where} share bucket {run.bucket}"


def _bands_text(shown: T5Readout) -> str:
    """Where the exact buckets end, and how the buckets are split between the two sides."""
    me, last = shown.max_exact, shown.last
    if shown.bidirectional:
        sides = (
            f"An encoder's {shown.num_buckets} buckets are split in two: {shown.side_buckets} "
            f"for keys at or before the query and {shown.side_buckets} (numbered from "
            f"{shown.side_buckets}) for keys after it. Bucket {shown.side_buckets} itself would "
            "hold distance 0 after the query, which is the query: it is never used."
        )
    else:
        sides = (
            f"A decoder's {shown.num_buckets} buckets are all for keys at or before the query; "
            "every key after it falls in bucket 0."
        )
    return (
        f'<p class="pe-note pe-t5-bands">{sides} Of each side\'s buckets, the first '
        f'<span class="pe-t5-exact">{me}</span> are exact: distances 0…{me - 1} have one each. '
        f"From distance {me} on they are log-spaced: {shown.log_runs} bucket"
        f"{'' if shown.log_runs == 1 else 's'} for distances {me}…{last.first - 1}, then every "
        f'distance from <span class="pe-t5-last-first">{last.first}</span> on shares bucket '
        f"{last.bucket}, up to max_distance = {shown.max_distance} and beyond.</p>"
    )


@dataclass(frozen=True)
class Keys:
    """The key pos + k of the query pos at each value, printed: its k, its bucket and the
    distances sharing it."""

    firsts: list[str]
    seconds: list[str]
    offsets: list[str]  # k, minus as U+2212
    buckets: list[str]
    runs: list[str]  # run_text of k's run

    @classmethod
    def of(cls, firsts, offsets, runs: list[tuple[int, BucketRun]], bidirectional: bool) -> Keys:
        """The keys at each pos of firsts and k of offsets, k's (side, run) of runs."""
        firsts, offsets = np.asarray(firsts), np.asarray(offsets)
        texts = {key: run_text(key[1], key[0], bidirectional) for key in dict.fromkeys(runs)}
        return cls(
            firsts=whole(firsts),
            seconds=whole(firsts + offsets),
            offsets=[signed(k) for k in offsets.tolist()],
            buckets=[str(run.bucket) for _, run in runs],
            runs=[texts[key] for key in runs],
        )


def readout_text(shown: T5Readout, keys: Keys) -> picks_kit.Text:
    """The bucket of k and the distances sharing it at each value of keys; where the exact
    buckets end (shown: the buckets' settings)."""
    return picks_kit.joined(
        len(keys.firsts),
        '<p class="pe-note pe-t5-current">Query pos = ',
        keys.firsts,
        ", key pos + k = ",
        keys.seconds,
        ': key − query = k = <span class="pe-t5-offset">',
        keys.offsets,
        '</span> falls in bucket <span class="pe-t5-bucket">',
        keys.buckets,
        '</span>: <span class="pe-t5-run">',
        keys.runs,
        "</span>.</p>",
        _bands_text(shown),
    )


def keys_of(state: ExplorerState, shown: T5Readout) -> Keys:
    """The state's key pos + k."""
    runs = [(shown.side, shown.run)]
    return Keys.of([state.pos], [state.offset], runs, shown.bidirectional)


def readout(state: ExplorerState) -> str:
    """The bucket of k and the distances sharing it; where the exact buckets end."""
    if message := problem(state):
        return f'<p class="pe-note pe-t5-problem">T5 buckets: {html.escape(message)}.</p>'
    shown = readout_values(state)
    return readout_text(shown, keys_of(state, shown)).at(0)


@dataclass(frozen=True)
class Segment:
    """One run drawn on the offset axis: key − query from left to right (cell edges)."""

    left: float
    right: float
    bucket: int
    text: str


def segments(state: ExplorerState, reach: int) -> list[Segment]:
    """Every run of both sides as a span of key − query, left to right, out to ±reach."""
    before, after = derived.t5_runs(*bucket_settings(state))
    drawn = []
    for side, runs in ((-1, before), (1, after)):
        for run in runs:
            last = reach if run.last is None else run.last
            near, far = side * run.first, side * last
            text = run_text(run, side, state.t5_bidirectional)
            drawn.append(Segment(min(near, far) - 0.5, max(near, far) + 0.5, run.bucket, text))
    return sorted(drawn, key=lambda segment: segment.left)


def step_traces(drawn: list[Segment], marker_size: int) -> list[dict]:
    """The bucket against key − query as a step line, with one hoverable dot per run."""
    colour = theme.PAIR_COLOURS[0]
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "x": np.array([s.left for s in drawn] + [drawn[-1].right]),
            "y": np.array([s.bucket for s in drawn] + [drawn[-1].bucket]),
            "line": {"color": colour, "width": 2, "shape": "hv"},
            "hoverinfo": "skip",
            "name": "bucket of key − query",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": np.array([(s.left + s.right) / 2 for s in drawn]),
            "y": np.array([s.bucket for s in drawn]),
            "text": [s.text for s in drawn],
            "marker": {"color": colour, "size": marker_size},
            "hovertemplate": "%{text}<extra></extra>",
            "name": "runs of distances",
        },
    ]


def _current_trace(shown: T5Readout, palette: dict) -> dict:
    """k = key − query at its bucket, a diamond."""
    return {
        "type": "scatter",
        "mode": "markers",
        "x": np.array([shown.offset]),
        "y": np.array([shown.bucket]),
        "marker": {"color": palette["second"], "size": 11, "symbol": "diamond"},
        "hovertemplate": "k = %{x}: bucket %{y}<extra></extra>",
        "name": "key − query = k",
    }


def _message_figure(state: ExplorerState, message: str) -> dict:
    """A figure with no traces that says what is wrong in its middle."""
    title = "T5 relative-position buckets"
    return message_figure(state, "t5-message", title, html.escape(message))


def _band_shapes(shown: T5Readout, palette: dict) -> list[dict]:
    """The exact buckets' span shaded, and ±max_distance dashed, over a panel of key − query."""
    me, md = shown.max_exact, shown.max_distance
    right = me - 0.5 if shown.bidirectional else 0.5
    shapes = [
        {
            "type": "rect",
            "xref": "x",
            "yref": "y domain",
            "x0": -(me - 0.5),
            "x1": right,
            "y0": 0,
            "y1": 1,
            "fillcolor": "rgba(0,158,115,0.14)",
            "line": {"width": 0},
            "layer": "below",
            "name": "exact buckets",
        }
    ]
    for edge in (-md, md) if shown.bidirectional else (-md,):
        shapes.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "y domain",
                "x0": edge,
                "x1": edge,
                "y0": 0,
                "y1": 1,
                "line": {"color": palette["text"], "width": 1, "dash": "dash"},
                "name": "max_distance",
            }
        )
    return shapes


def _label(text: str, x: float, colour: str) -> dict:
    """A small label over a panel at x."""
    return {
        "text": text,
        "xref": "x",
        "yref": "y domain",
        "x": x,
        "y": 1.0,
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 11, "color": colour},
    }


def _matrix_subplot(state: ExplorerState, shown: T5Readout) -> Subplot:
    """The bucket of every (query i, key j), with pos and pos + k marked."""
    n = state.n_positions
    cells = derived.t5_bucket_cells(n, shown.num_buckets, shown.max_distance, shown.bidirectional)
    heatmap = {
        "type": "heatmap",
        "x": cells.rows,
        "y": cells.rows,
        "z": cells.cells,
        "zmin": 0,
        "zmax": shown.num_buckets - 1,
        "colorscale": BUCKET_SCALE,
        "colorbar": theme.colorbar(
            x=MATRIX_DOMAIN[1] + 0.01,
            y=sum(BOTTOM_DOMAIN) / 2,
            len=BOTTOM_DOMAIN[1] - BOTTOM_DOMAIN[0],
            thickness=8,
        ),
        "hovertemplate": "query i = %{y}, key j = %{x}<br>bucket %{z}<extra></extra>",
        "name": "bucket of j − i",
    }
    note = "" if cells.stride == 1 else "<br>" + reduced_note(cells.stride, cells.rows.size, n)
    caption = panel_caption(
        f"<b>Bucket of (i, j)</b>{note}", MATRIX_DOMAIN[0], BOTTOM_DOMAIN[1] + 0.06
    )
    caption["align"] = "left"  # the reduction note under the caption
    return Subplot(
        traces=[heatmap],
        x_axis=heatmap_axis("key j", range=[-0.5, n - 0.5], constrain="domain"),
        y_axis=heatmap_axis("query i", autorange="reversed", scaleanchor="x", constrain="domain"),
        domain=(MATRIX_DOMAIN, BOTTOM_DOMAIN),
        annotations=[caption],
    )


def _buckets_subplot(state: ExplorerState, shown: T5Readout, drawn: list[Segment], reach: int):
    """The bucket of every key − query out to ±reach, the exact span shaded."""
    palette = theme.colours(state.theme)
    return Subplot(
        traces=[*step_traces(drawn, 5), _current_trace(shown, palette)],
        x_axis={"range": [-reach - 0.5, reach + 0.5], "title": {"text": "key − query"}},
        y_axis={"range": [-0.5, shown.num_buckets - 0.5], "title": {"text": "bucket"}},
        domain=((0.0, 1.0), TOP_DOMAIN),
        caption="<b>Bucket of key − query</b> · shaded: exact · dashed: ±max_distance",
        shapes=_band_shapes(shown, palette),
    )


def _zoom_subplot(state: ExplorerState, shown: T5Readout, drawn: list[Segment], reach: int):
    """The buckets near the query, where the exact ones end."""
    palette = theme.colours(state.theme)
    zoom = min(reach, ZOOM_EXACT_SPANS * shown.max_exact)
    exact_centre = 0.0 if shown.bidirectional else -(shown.max_exact - 1) / 2
    return Subplot(
        traces=[*step_traces(drawn, 6), _current_trace(shown, palette)],
        x_axis={"range": [-zoom - 0.5, zoom + 0.5], "title": {"text": "key − query"}},
        # Untitled: the top panel's axis names the buckets, and a phone has no room for more.
        y_axis={"range": [-0.5, shown.num_buckets - 0.5]},
        domain=(ZOOM_DOMAIN, BOTTOM_DOMAIN),
        shapes=_band_shapes(shown, palette),
        annotations=[
            panel_caption("<b>Near the query</b>", ZOOM_DOMAIN[0], BOTTOM_DOMAIN[1] + 0.06),
            _label("exact", exact_centre, palette["text"]),
        ],
    )


def figure(state: ExplorerState) -> dict:
    """Top: the bucket of every key − query. Below: the n × n bucket matrix with pos and pos + k,
    and the buckets near the query, where the exact ones end."""
    if message := problem(state):
        return _message_figure(state, message)
    shown = readout_values(state)
    n, nb, md = state.n_positions, shown.num_buckets, shown.max_distance
    reach = max(2 * md, n - 1)
    drawn = segments(state, reach)
    kind = "bidirectional" if shown.bidirectional else "causal"
    title = f"T5: {nb} buckets, max_distance {md}, {kind}"
    layout = titled_layout(state, f"t5-{n}-{nb}-{md}-{shown.bidirectional}", title)
    layout.update(margin={"l": 64, "r": 24, "t": 84, "b": 48}, showlegend=False)
    # pos and pos + k on the matrix: layout images, which Plotly moves without redrawing it.
    layout["images"] = offset_markers(state, derived.dot_product_stride(n))
    subplots = [
        _matrix_subplot(state, shown),
        _buckets_subplot(state, shown, drawn, reach),
        _zoom_subplot(state, shown, drawn, reach),
    ]
    return compose(state, layout, subplots)


def label_text(shown: T5Readout, keys: Keys) -> picks_kit.Text:
    """The chart's accessible name at each value of keys: the buckets' bands and the bucket of
    k (shown: the buckets' settings)."""
    kind = "bidirectional" if shown.bidirectional else "causal"
    return picks_kit.joined(
        len(keys.firsts),
        f"T5 buckets of key − query ({shown.num_buckets} buckets, max_distance "
        f"{shown.max_distance}, {kind}): distances 0–{shown.max_exact - 1} have a bucket each, "
        f"log-spaced buckets from distance {shown.max_exact}, and every distance from "
        f"{shown.last.first} on shares bucket {shown.last.bucket}; the key pos + k = ",
        keys.seconds,
        " of the query pos = ",
        keys.firsts,
        " is k = ",
        keys.offsets,
        " away, in bucket ",
        keys.buckets,
        ", where ",
        keys.runs,
    )


def describe(state: ExplorerState) -> str:
    """The chart's accessible name: the buckets' bands and the bucket of k."""
    if message := problem(state):
        return f"T5 relative-position buckets: {message}"
    shown = readout_values(state)
    return label_text(shown, keys_of(state, shown)).at(0)


def listed_runs(state: ExplorerState) -> tuple[list[tuple[int, BucketRun]], int, int]:
    """The runs Show data lists (side, run), at most LISTED_RUNS around k's; where they start
    and how many runs there are."""
    before, after = derived.t5_runs(*bucket_settings(state))
    every = [(-1, run) for run in before] + [(1, run) for run in after]
    shown = readout_values(state)
    index = every.index((shown.side, shown.run))
    start = max(0, min(index - LISTED_RUNS // 2, len(every) - LISTED_RUNS))
    return every[start : start + LISTED_RUNS], start, len(every)


def data(state: ExplorerState) -> ChartData:
    """The runs of distances that share a bucket, near k's."""
    if message := problem(state):
        return ChartData(f"T5 buckets: {message}", ("bucket",), ())
    runs, start, total = listed_runs(state)

    def side_name(side: int, run: BucketRun) -> str:
        if run.first == 0 and side < 0:
            return "query"
        return "after" if side > 0 else "before"

    rows = tuple(
        (
            run.bucket,
            side_name(side, run),
            run.first,
            "unbounded" if run.last is None else run.last,
            "unbounded" if run.last is None else run.last - run.first + 1,
        )
        for side, run in runs
    )
    kind = "bidirectional" if state.t5_bidirectional else "causal"
    return ChartData(
        caption=f"T5 buckets and the distances each holds ({state.t5_buckets} buckets, "
        f"max_distance {state.t5_max_distance}, {kind})",
        columns=("bucket", "side of the query", "first distance", "last distance", "distances"),
        rows=rows,
        note=f"Runs {span_text(range(start + 1, start + len(runs) + 1))} of {total} shown, "
        "keys before the query first; entry (i, j) of the matrix is the bucket of j − i.",
    )


def code(state: ExplorerState) -> str:
    """A standalone NumPy script: transformers' _relative_position_bucket written out in NumPy
    (float32 logarithm, truncation toward zero), the n × n matrix and the bucket of k."""
    return f'''import math

import numpy as np

num_buckets, max_distance, bidirectional = {state.t5_buckets}, {state.t5_max_distance}, \
{state.t5_bidirectional}
n_positions, pos, k = {state.n_positions}, {state.pos}, {state.offset}


def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32,
                             max_distance=128):
    """transformers' T5Attention._relative_position_bucket, line by line in NumPy: float32 as
    torch's .float(), and .astype(np.int64) truncates toward zero as torch's .to(long)."""
    relative_position = np.asarray(relative_position, dtype=np.int64)
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).astype(np.int64) * num_buckets
        relative_position = np.abs(relative_position)
    else:
        relative_position = -np.minimum(relative_position, np.zeros_like(relative_position))
    # now relative_position is in the range [0, inf)

    # half of the buckets are for exact increments in positions
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact

    # The other half of the buckets are for logarithmically bigger bins in positions up to
    # max_distance (log(0) is -inf there: is_small masks it)
    with np.errstate(divide="ignore", invalid="ignore"):
        relative_position_if_large = max_exact + (
            np.log(relative_position.astype(np.float32) / np.float32(max_exact))
            / np.float32(math.log(max_distance / max_exact))
            * np.float32(num_buckets - max_exact)
        ).astype(np.int64)
    relative_position_if_large = np.minimum(relative_position_if_large, num_buckets - 1)

    relative_buckets += np.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


positions = np.arange(n_positions)
matrix = relative_position_bucket(positions[None, :] - positions[:, None], bidirectional,
                                  num_buckets, max_distance)  # (query i, key j): key - query
bucket_of_k = int(relative_position_bucket(k, bidirectional, num_buckets, max_distance))
# The distances on k's side of the query that share its bucket (the last run goes on forever).
side = 1 if k > 0 else -1
distances = np.arange(2 * max_distance + 2)
same = distances[relative_position_bucket(side * distances, bidirectional, num_buckets,
                                          max_distance) == bucket_of_k]
if k > 0:
    same = same[same > 0]  # distance 0 is the query itself, on the other side
first, last = int(same.min()), int(same.max())
print(f"key - query = {{k}}: bucket {{bucket_of_k}}; distances {{first}}..."
      + ("and beyond" if last == distances[-1] else f"{{last}}") + " on its side share it")
print(matrix)
'''


def axis_updates(state: ExplorerState, moved: picks_kit.Moved) -> list:
    """Everything pos and k move, at each value of one axis (k's diamonds: rows of the tables
    "offset" and "bucket", by k + n − 1)."""
    n, offsets = state.n_positions, moved.offsets
    shown = readout_values(state)
    runs = derived.t5_runs_of(offsets, *bucket_settings(state))
    keys = Keys.of(moved.firsts, offsets, runs, shown.bidirectional)
    diamonds = []
    for trace in CURRENT_TRACES:
        diamonds += [
            picks_kit.Update("trace", "x", trace, rows="offset", index=offsets + n - 1),
            picks_kit.Update("trace", "y", trace, rows="bucket", index=offsets + n - 1),
        ]
    return [
        *marker_updates(moved, n, derived.dot_product_stride(n)),
        *diamonds,
        picks_kit.Update("label", text=label_text(shown, keys)),
        picks_kit.Update("pane", "pe-readout-pane", text=readout_text(shown, keys)),
    ]


def picks(state: ExplorerState) -> picks_kit.Picks | None:
    """What a drag of pos or k moves: pos and pos + k on the matrix, k's diamonds, the chart's
    name and the readout (Show data's caption stays); nothing for settings without buckets."""
    if problem(state):
        return None
    cells = derived.t5_bucket_cells(state.n_positions, *bucket_settings(state))
    tables = {
        "offset": cells.offsets.astype(np.float64).reshape(-1, 1),
        "bucket": cells.buckets.astype(np.float64).reshape(-1, 1),
    }
    moved = picks_kit.moved_positions(state)
    return picks_kit.Picks(tables, tuple(m.picks(axis_updates(state, m)) for m in moved))

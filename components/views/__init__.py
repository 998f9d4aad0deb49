"""The table of the explorer's views: one row each, read by the page, share, export and tests.

A row gives everything about a view: its ?view= name, title and explanation, its figure and
readout functions, its accessible name and data table, the state parameters it follows, its
heights and its controls. Adding a view means adding a module here and a row below.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

import panel as pn

from ..methods import METHOD_LABELS, METHODS
from ..plotkit.frame import ChartData, PlotView
from ..plotkit.picks import Picks
from ..state import ExplorerState
from . import (
    alibi,
    checker,
    code,
    compare,
    dotproduct,
    frequency,
    heatmap,
    learned,
    methods,
    mistakes,
    model,
    nope,
    properties,
    rope,
    ropecheck,
    rotation,
    scaling,
    shaw,
    t5,
    tokens,
    waves,
    xl,
)


@dataclass(frozen=True)
class ViewSpec:
    """A view of the explorer, as the page, the single-view embeds and the share panel show it."""

    name: str  # the value of ?view= that shows this view alone; also its PNG file name
    title: str
    short: str  # the card's name in the page's table of contents, a word or two
    explanation: str  # two or three sentences, trusted HTML written by us
    figure: Callable[[ExplorerState], dict]  # state -> Plotly figure dict
    follows: tuple[str, ...]  # the state parameters its figure and readout depend on
    controls: tuple[str, ...]  # names of the Controls widgets this view needs
    plot_height: int  # the figure's height (px), unless the figure sets its own
    height: int  # about how tall the whole view is (px): its placeholder's height until drawn
    embed_height: int  # the height of its <iframe> in the share panel's snippet
    # The chart's accessible name: one plain-text sentence of what it shows and its key numbers.
    describe: Callable[[ExplorerState], str]
    data: Callable[[ExplorerState], ChartData]  # the numbers it draws, for its Show data table
    readout: Callable[[ExplorerState], str] | None = None  # state -> HTML of numbers only
    readout_style: str = ""
    # Of the controls, the ones the full page shows in this view's card instead of the sidebar:
    # they serve this view, and follow the state only while the card is on screen.
    card_controls: tuple[str, ...] = ()
    view_class: type[PlotView] = PlotView
    # The methods for which the view means something. Under another, it says in one line what
    # that method lacks (`missing`) instead of drawing something misleading.
    methods: tuple[str, ...] = METHODS
    missing: str = ""
    # state -> a standalone NumPy script reproducing the view's numbers (Export / Code shows it);
    # the sinusoidal views share the export's own scripts instead.
    code: Callable[[ExplorerState], str] | None = None
    # state -> what a drag of pos or k changes, for every value (plotkit/picks.py); None when
    # the view draws nothing that follows them, or every value waits for Python.
    picks: Callable[[ExplorerState], Picks | None] | None = None

    def method_note(self, method: str) -> str:
        """One line saying why the view shows nothing under method ("" when it means something)."""
        if method in self.methods:
            return ""
        label = METHOD_LABELS[method]
        opening = "With no position method" if method == "none" else f"Under {label}"
        return f"{opening} there is {self.missing}: {METHOD_INSTEAD[method]}"

    def description(self, state: ExplorerState) -> str:
        """The chart's accessible name, or the method note in plain text when it has one."""
        note = self.method_note(state.method)
        return html.unescape(re.sub(r"<[^>]+>", "", note)) if note else self.describe(state)

    def make(self, state: ExplorerState, **params) -> pn.viewable.Viewer:
        """The view of state (params: the view's own, such as picks_held)."""
        return self.view_class(state=state, spec=self, **params)


# What each method does instead of adding PE(pos) to the input (trusted HTML, one sentence).
METHOD_INSTEAD = {
    "sinusoidal": "the sinusoidal encoding is added to the input.",
    "rope": "RoPE adds nothing to the input; it rotates q and k by pos·θ<sub>i</sub> "
    "(see the RoPE view).",
    "alibi": "ALiBi adds nothing to the input; it adds −m<sub>h</sub>·|i − j| to each head's "
    "attention scores (see the ALiBi view).",
    "none": "nothing is added, so without a causal mask the model cannot tell the order "
    "(see the NoPE view).",
}
SINUSOIDAL = ("sinusoidal",)
# RoPE turns q and k by the same angles pos·θ_i, θ_i = ω_i: the waves, the frequencies and the
# rotation of a pair are RoPE's too.
SAME_FREQUENCIES = ("sinusoidal", "rope")


def view_of(module, *, follows: str, controls: str, card_controls: str = "", **facts) -> ViewSpec:
    """A row of the table: the figure, accessible name, data table and readout (with its
    style) are the view module's own; the parameters and controls are names split at spaces."""
    readout = getattr(module, "readout", None)
    return ViewSpec(
        figure=module.figure,
        describe=module.describe,
        data=module.data,
        readout=readout,
        readout_style=getattr(module, "READOUT_STYLE", "") if readout else "",
        code=getattr(module, "code", None),
        picks=getattr(module, "picks", None),
        follows=tuple(follows.split()),
        controls=tuple(controls.split()),
        card_controls=tuple(card_controls.split()),
        **facts,
    )


VIEWS: tuple[ViewSpec, ...] = (
    view_of(
        heatmap,
        name="heatmap",
        title="The encoding matrix",
        short="Matrix",
        explanation="Each row is the vector PE(pos) added to the token at position pos; each "
        "column is one dimension. Left columns oscillate fast, right ones slowly: together "
        "they give every position a distinct pattern.",
        follows="pos offset n_positions d_model base layout method theme",
        controls="play pos offset d_model n_positions base layout",
        plot_height=460,
        height=530,
        embed_height=790,
        view_class=heatmap.HeatmapView,
        methods=SINUSOIDAL,
        missing="no encoding matrix",
    ),
    view_of(
        compare,
        name="compare",
        title="Two positions k apart",
        short="Two positions",
        explanation="The dot product, cosine similarity and distance of PE(pos) and PE(pos + k) "
        "depend only on the offset k, not on pos: compare the rows below.",
        follows="pos offset d_model base layout method theme",
        controls="play pos offset d_model base",
        plot_height=420,
        height=630,
        embed_height=900,
        methods=SINUSOIDAL,
        missing="no PE(pos) to compare with PE(pos + k)",
    ),
    view_of(
        waves,
        name="waves",
        title="Sines and cosines",
        short="Waves",
        explanation="Each pair i is a sine and a cosine of the same frequency ω<sub>i</sub>; the "
        "encoding samples them at whole positions (dots). Pick the pairs to compare below; the "
        "frequency view marks them too.",
        follows="pos offset n_positions d_model base pairs method theme",
        controls="play pos offset d_model n_positions base pairs",
        plot_height=640,
        height=640,
        embed_height=960,
        card_controls="pairs",
        methods=SAME_FREQUENCIES,
        missing="no sine or cosine of the position",
    ),
    view_of(
        frequency,
        name="frequency",
        title="Frequencies and wavelengths",
        short="Frequencies",
        explanation="Frequencies fall geometrically with i, so wavelengths grow from 2π to "
        "base·2π: short ones tell neighbours apart, long ones place a token in a long text.",
        follows="d_model base pairs method theme",
        controls="d_model base pairs",
        plot_height=480,
        height=530,
        embed_height=740,
        methods=SAME_FREQUENCIES,
        missing="no frequency ω<sub>i</sub>",
    ),
    view_of(
        dotproduct,
        name="dotproduct",
        title="Dot products depend only on the offset",
        short="Dot products",
        explanation="Entry (i, j) of PE·PEᵀ is D(j − i), the sum of cos((j − i)·ω) over the "
        "frequencies: every diagonal is constant (a Toeplitz matrix), and the curve beside it "
        "gives D(k) for the dotted diagonal k. The concatenated layout only reorders the columns "
        "of PE, so the encoding matrix changes but these dot products and similarities do not.",
        follows="pos offset n_positions d_model base similarity method theme",
        controls="play pos offset d_model n_positions base layout similarity",
        plot_height=460,
        height=525,
        embed_height=830,
        methods=SINUSOIDAL,
        missing="no PE·PEᵀ",
    ),
    view_of(
        rotation,
        name="rotation",
        title="Moving by k is a rotation",
        short="Rotation",
        explanation="Each pair (sin pos·ω<sub>i</sub>, cos pos·ω<sub>i</sub>) is a point on the "
        "unit circle; moving k positions turns it by the angle k·ω<sub>i</sub>. The matrix "
        "R(k) that does this for every pair depends on k alone, which is why a model can learn "
        "to attend by relative position.",
        follows="pos offset d_model base layout rotation_pair method theme",
        controls="play pos offset d_model base rotation_pair",
        plot_height=460,
        height=650,
        embed_height=890,
        methods=SAME_FREQUENCIES,
        missing="no pair turned by pos·ω<sub>i</sub>",
    ),
    view_of(
        tokens,
        name="tokens",
        title="From words to model input",
        short="Words to input",
        explanation="The model receives TokenEmbedding(word) + PE(pos) for each word. The "
        "embedding here is a fixed random vector per word (a learned one in a real model); "
        "PE(pos) is what tells the same word at two places apart. Step through the pipeline "
        "with Prev, Play and Next.",
        follows="pos offset n_positions d_model base layout text method theme",
        controls="text d_model base",
        plot_height=560,
        height=1160,
        embed_height=1460,
        view_class=tokens.TokensView,
        methods=SINUSOIDAL,
        missing="no PE(pos) to add to the words",
    ),
    view_of(
        properties,
        name="properties",
        title="Unique, bounded, smooth",
        short="Properties",
        explanation="Every position gets a different vector, every entry stays between −1 "
        "and 1 however long the text, and neighbours are close. With few dimensions, far "
        "positions can come back close: the curve shows the distance from pos to each of "
        "10 000 positions.",
        follows="pos n_positions d_model base method theme",
        controls="pos d_model n_positions base",
        plot_height=420,
        height=570,
        embed_height=750,
        methods=SINUSOIDAL,
        missing="no PE(pos) vector",
    ),
    view_of(
        code,
        name="code",
        title="The code, walked through",
        short="Code",
        explanation="The reference implementation (the PyTorch tutorial's lines, in NumPy), one "
        "step at a time: each step highlights its lines and the cells of the matrix they fill. "
        "div_term = exp(2i·(−ln base/d_model)) is base<sup>−2i/d_model</sup> written with exp "
        "and log, and the last line adds the same rows to every sequence of a batch.",
        follows="pos n_positions d_model base layout text method theme",
        controls="pos d_model n_positions base layout text",
        plot_height=460,
        height=800,
        embed_height=980,
        view_class=code.CodeView,
        methods=SINUSOIDAL,
        missing="no encoding matrix to build",
    ),
    view_of(
        methods,
        name="methods",
        title="How each method scores offset k",
        short="Methods",
        explanation="The part of the attention score that comes from position alone, against "
        "the offset k: D(k) = Σ cos(k·ω<sub>i</sub>) for the sinusoidal encoding, q·R(k)q for "
        "RoPE, −m·k for ALiBi and 0 with no method; beside them the relative methods, with "
        "random stand-ins for their learned numbers: T5's bias of k's bucket, Shaw et al.'s "
        "q·a<sub>clip(k)</sub> and Transformer-XL's position terms. Offsets beyond the "
        "training length L (shaded) never occurred in training; the labels there say what "
        "each method does with them.",
        follows="offset n_positions d_model base layout seed heads train_length method "
        "t5_buckets t5_max_distance t5_bidirectional shaw_clip theme",
        controls="play method offset d_model n_positions base layout heads train_length",
        plot_height=480,
        height=730,
        embed_height=980,
        card_controls="train_length",
    ),
    view_of(
        rope,
        name="rope",
        title="RoPE: rotating q and k",
        short="RoPE",
        explanation="RoPE adds nothing to the input: it turns pair i of the query by "
        "m·θ<sub>i</sub> and of the key by n·θ<sub>i</sub>, with the sinusoidal frequencies "
        "θ<sub>i</sub> = ω<sub>i</sub>. Only the angle (n − m)·θ<sub>i</sub> between them is "
        "left, so every diagonal of the score matrix is constant and every pair k apart scores "
        "the same (Su et al., RoFormer).",
        follows="pos offset n_positions d_model base layout seed theme",
        controls="play pos offset d_model n_positions base layout seed",
        plot_height=480,
        height=900,
        embed_height=1170,
        card_controls="seed",
    ),
    view_of(
        alibi,
        name="alibi",
        title="ALiBi: a distance penalty per head",
        short="ALiBi",
        explanation="ALiBi adds nothing to the input: each head h adds −m<sub>h</sub>·|i − j| "
        "to the score of query i and key j, with slopes m<sub>h</sub> falling geometrically "
        "(1/2 … 1/256 for 8 heads). Steep heads look only nearby and gentle ones far away, and "
        "a decoder's causal mask hides every key after the query.",
        follows="pos offset n_positions heads theme",
        controls="play pos offset n_positions heads",
        plot_height=640,
        height=990,
        embed_height=1150,
        card_controls="heads",
    ),
    view_of(
        nope,
        name="nope",
        title="No position information (NoPE)",
        short="NoPE",
        explanation="Without a position method, a token's score depends only on the words: "
        "reversing the sentence gives exactly the same numbers with rows and columns swapped "
        "(P·S·Pᵀ). Only a causal mask or a position encoding lets attention tell the order.",
        follows="n_positions d_model text theme",
        controls="text d_model n_positions",
        plot_height=460,
        height=590,
        embed_height=750,
    ),
    view_of(
        t5,
        name="t5",
        title="T5: relative position buckets",
        short="T5 buckets",
        explanation="T5 adds nothing to the input: each head adds a learned number to the score "
        "of query i and key j, one per bucket of the relative position j − i. Short distances "
        "get a bucket each, longer ones share log-spaced buckets up to max_distance and every "
        "distance beyond shares the last; an encoder has separate buckets for keys before and "
        "after the query, a decoder only for keys before it.",
        follows="pos offset n_positions t5_buckets t5_max_distance t5_bidirectional theme",
        controls="play pos offset n_positions t5_buckets t5_max_distance t5_bidirectional",
        card_controls="t5_buckets t5_max_distance t5_bidirectional",
        plot_height=640,
        height=880,
        embed_height=1040,
    ),
    view_of(
        shaw,
        name="shaw",
        title="Shaw et al.: clipped relative positions",
        short="Shaw",
        explanation="Shaw, Uszkoreit and Vaswani (2018) add a learned vector a<sub>j−i</sub> to "
        "the key of query i and key j, with the distance j − i clipped to ±K: 2K + 1 vectors in "
        "all. Every pair farther apart than K shares the vector of ±K, the two one-colour "
        "triangles of the matrix. The vectors here are random stand-ins, seeded like the RoPE "
        "query.",
        follows="pos offset n_positions d_model seed shaw_clip theme",
        controls="play pos offset n_positions d_model seed shaw_clip",
        card_controls="shaw_clip",
        plot_height=520,
        height=800,
        embed_height=960,
    ),
    view_of(
        xl,
        name="xl",
        title="Transformer-XL: four terms of a relative score",
        short="Transformer-XL",
        explanation="Transformer-XL scores query i against key j as q·W<sub>k</sub>x<sub>j</sub> "
        "+ q·W<sub>R</sub>R<sub>i−j</sub> + u·W<sub>k</sub>x<sub>j</sub> + "
        "v·W<sub>R</sub>R<sub>i−j</sub>, with R<sub>i−j</sub> the sinusoid of the offset and "
        "u, v learned vectors shared by every position. Only the two terms with R change with "
        "i − j; the curves give each term over the offsets, for random stand-ins of the learned "
        "numbers.",
        follows="pos offset n_positions d_model base seed theme",
        controls="play pos offset n_positions d_model base seed",
        plot_height=680,
        height=1040,
        embed_height=1200,
    ),
    view_of(
        scaling,
        name="scaling",
        title="RoPE scaling: reading past the trained length",
        short="RoPE scaling",
        explanation="A RoPE model trained on L positions is read s times further by slowing its "
        "pairs: Position Interpolation divides every frequency θ<sub>i</sub> by s, NTK raises "
        "the base, and YaRN and Llama 3 leave the fast pairs alone, divide the slow ones and "
        "ramp between. The charts give each pair's divisor against its wavelength, the "
        "wavelengths against L and s·L, and for every method the score of q = k = (1, …, 1) "
        "over offsets 0 … s·L, the chosen method drawn thick. The attention factor multiplies "
        "every logit by its square, which sharpens the softmax.",
        follows="d_model base scaling factor original_context seq_len beta_fast beta_slow "
        "truncate low_freq_factor high_freq_factor longrope_factors theme",
        controls="d_model base scaling factor original_context seq_len beta_fast beta_slow "
        "truncate low_freq_factor high_freq_factor longrope_factors",
        card_controls="scaling factor original_context seq_len beta_fast beta_slow truncate "
        "low_freq_factor high_freq_factor longrope_factors",
        plot_height=760,
        height=1120,
        embed_height=1300,
        view_class=scaling.ScalingView,
    ),
    view_of(
        ropecheck,
        name="ropecheck",
        title="Check a RoPE config",
        short="Check RoPE",
        explanation="Give the inv_freq your code or model computes (d<sub>head</sub>/2 numbers, "
        "pair 0 first) and set the config you meant with this card's controls: method, factor "
        "s, trained context L and the method's own parameters. It is compared, pair by pair, "
        "with that config's frequencies from the published formulas; if they differ, the "
        "verdict names the likely bug (scaling ignored, NTK's base not raised, the factor "
        "inside the exponent, YaRN's truncate or high bound, Llama 3 smoothed in wavelength, "
        "NeoX and interleaved pairing confused) and the pairs where it shows.",
        follows="d_model base scaling factor original_context seq_len beta_fast beta_slow "
        "truncate low_freq_factor high_freq_factor longrope_factors theme",
        controls="d_model base scaling factor original_context seq_len beta_fast beta_slow "
        "truncate low_freq_factor high_freq_factor longrope_factors",
        plot_height=560,
        height=1200,
        embed_height=1320,
        view_class=ropecheck.RopeCheckView,
    ),
    view_of(
        model,
        name="model",
        title="Your model's positions, layer by layer",
        short="Your model",
        explanation="Pick a published model, paste its config.json, or choose a config.json, GGUF "
        "or safetensors file (only its header is read, in your browser). Each layer is coloured "
        "by what it does with positions; per layer type, every pair's wavelength is drawn "
        "against the context the model was trained on and the one it claims, and its score over "
        "offsets. The findings say what looks wrong, with the numbers that show it.",
        follows="model theme",
        controls="model",
        plot_height=760,
        height=1400,
        embed_height=1500,
        view_class=model.ModelView,
    ),
    view_of(
        mistakes,
        name="mistakes",
        title="What goes wrong, and by how much",
        short="Mistakes",
        explanation="The position bugs that cost weeks are rarely in the formula: they are in how "
        "it is computed and fed. Choose one published mistake (low precision, left padding, "
        "caches, conversion and configuration): it runs on the model view's model (a preset, or "
        "the file you gave it), or on plain RoPE, beside the exact float64 computation. Left, "
        "the angle each pair is off (or what the model is told, right and mistaken); right, the "
        "score of unit q and k against the key's distance Δ from the query at p; dotted lines "
        "follow the sliders (the worst angle error at pos, the key Δ = |k| before the query).",
        follows="pos offset mistake precision precision_place scaling_mistake window sinks "
        "padded_lengths packed_lengths alibi_heads alibi_as_heads theta_read prefill query_at "
        "mistake_on model visitor_model theme",
        controls="pos offset n_positions mistake precision precision_place scaling_mistake window "
        "sinks padded_lengths packed_lengths alibi_heads alibi_as_heads theta_read prefill "
        "query_at mistake_on model",
        card_controls="mistake precision precision_place scaling_mistake window sinks "
        "padded_lengths packed_lengths alibi_heads alibi_as_heads theta_read prefill query_at "
        "mistake_on",
        plot_height=520,
        height=840,
        embed_height=1000,
    ),
    view_of(
        learned,
        name="learned",
        title="Learned position tables",
        short="Learned tables",
        explanation="GPT-2 and BERT learn a table of position vectors instead of computing one. "
        "Give such a table (positions × dimensions, .npy or .csv) or try a synthetic example: it "
        "is drawn beside the sinusoidal table of the same size, with the rows pos and pos + k "
        "compared, T·Tᵀ, and the rows' path on their top principal components in 2D or 3D "
        "(GPT-2's is reported to be a helix).",
        follows="pos offset n_positions d_model base layout similarity theme",
        controls="play pos offset d_model n_positions base layout similarity",
        plot_height=1180,
        height=1660,
        embed_height=1800,
        view_class=learned.LearnedView,
    ),
    view_of(
        checker,
        name="checker",
        title="Check your implementation",
        short="Check yours",
        explanation="Give the matrix your own code produced, as a .npy or .csv file or pasted "
        "numbers: it is compared with the reference at the chosen base and with the usual "
        "mistakes. The verdict names the one that fits, with the evidence.",
        follows="base theme",
        controls="base",
        plot_height=720,
        height=1100,
        embed_height=1200,
        view_class=checker.CheckerView,
    ),
)

VIEW_NAMES = tuple(spec.name for spec in VIEWS)


def view_spec(name: str) -> ViewSpec:
    """The spec of the view called name (ValueError naming the known ones otherwise)."""
    for spec in VIEWS:
        if spec.name == name:
            return spec
    raise ValueError(f"view must be one of {', '.join(VIEW_NAMES)}, got {name!r}")

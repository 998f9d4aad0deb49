"""ExplorerState: the validated, shared state every view and widget of the explorer reads."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import param

from . import encoding, methods, relative
from .mistakes.types import MISTAKE_NAMES
from .model.presets import DEFAULT_MODEL, PRESETS
from .model.types import ModelPositions
from .scaling import PARAMETERS as SCALING_DEFAULTS
from .scaling import SCALINGS

DEFAULT_D_MODEL = 128
DEFAULT_N_POSITIONS = 64
DEFAULT_POS = 7
DEFAULT_OFFSET = 1
# ALiBi's paper trains with 8 heads; its slopes are then 1/2, 1/4, … 1/256.
DEFAULT_HEADS = 8
# Half the default sequence length: the comparison chart opens with a region beyond it.
DEFAULT_TRAIN_LENGTH = 32
MAX_CHOSEN_PAIRS = 6
# Fractions of the pair range that span the frequencies: i / (d_model/2) = 0, 1/8, 1/4, 1/2
# gives wavelengths 2π·base^(0, 1/8, 1/4, 1/2), i.e. 6.3, 20, 63 and 628 positions at base 10⁴.
DEFAULT_PAIR_FRACTIONS = (0.0, 0.125, 0.25, 0.5)
# Long enough to have a word at the default pos (7, "the") and at pos + k (8, "dog"); "the" and
# "sat" recur, so the tokens view opens on the same word at different places.
DEFAULT_TEXT = "the cat sat on the mat and the dog sat"
# Visitor text is capped: it travels in the URL and is drawn as chips.
MAX_TEXT_CHARS = 200
# The views that read the sentence (tokens, NoPE) show at most this many of its words.
MAX_TOKENS = 32
# The RoPE scaling view opens on Llama 2 7B (d_head 128, base 10 000, trained on 4096) read four
# times further with YaRN: the one method whose three bands (kept, ramped, interpolated) all show.
DEFAULT_SCALING = "yarn"
DEFAULT_FACTOR = 4.0
DEFAULT_CONTEXT = 4096
MAX_SCALING_FACTOR = 128.0
MAX_CONTEXT = 1 << 20
# LongRoPE's per-pair factors travel as text (d/2 numbers); the URL caps any value at 400 chars.
MAX_FACTORS_CHARS = 20_000
# Shaw et al. 2018 clip at k = 16 for translation (and found k >= 2 enough).
DEFAULT_SHAW_CLIP = 16
MAX_SHAW_CLIP = 512


class EvenInteger(param.Integer):
    """An Integer parameter that accepts only even values."""

    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        if val is not None and val % 2:
            raise ValueError(
                f"{type(self).__name__} parameter {self.name!r} must be even, not {val!r}."
            )


# The rows of a left-padded batch, the documents of a pack: 1 … 8 lengths of 1 … 65,536 tokens.
MAX_LENGTHS, MAX_LENGTH = 8, 1 << 16
LENGTHS_WORDS = (
    f"must be 1 to {MAX_LENGTHS} whole numbers from 1 to {MAX_LENGTH:,}, separated by commas"
)
# A cache's window and sinks, the prompt of a dynamic NTK cache: up to a million positions.
MAX_WINDOW, MAX_SINKS = 1 << 20, 1024
# ALiBi's heads, and the θ a conversion may read instead of the model's.
MAX_ALIBI_HEADS, THETA_READ_RANGE = 128, (10.0, 1e9)


def lengths_of(text: str) -> tuple[int, ...]:
    """The whole numbers of "3, 7, 10" (commas, spaces), or a ValueError saying what they must
    be."""
    words = [word.strip() for word in text.split(",") if word.strip()]
    numbers = all(word.isascii() and word.isdigit() and len(word) <= 6 for word in words)
    lengths = tuple(int(word) for word in words) if numbers else ()
    if not 1 <= len(lengths) <= MAX_LENGTHS or not all(1 <= n <= MAX_LENGTH for n in lengths):
        raise ValueError(f"lengths {LENGTHS_WORDS}, not {text[:40]!r}")
    return lengths


class Lengths(param.String):
    """Comma-separated token counts (lengths_of): the text a visitor types, checked whole."""

    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        if val is not None:
            lengths_of(val)


def default_pairs(d_model: int) -> list[int]:
    """A few pair indices spread over the frequencies, without repeats."""
    last = d_model // 2 - 1
    return sorted(
        {round(fraction * (last + 1)) for fraction in DEFAULT_PAIR_FRACTIONS} - {last + 1}
    )


class EncodingParams(param.Parameterized):
    """The encoding itself: its width, its length, its base and how its dimensions are laid out."""

    d_model = EvenInteger(
        DEFAULT_D_MODEL,
        bounds=(2, encoding.MAX_D_MODEL),
        step=2,
        label="Model width d_model",
        doc="Number of dimensions of the encoding: an even number, 2 … 2048.",
    )
    n_positions = param.Integer(
        DEFAULT_N_POSITIONS,
        bounds=(1, encoding.MAX_N_POSITIONS),
        label="Sequence length",
        doc="How many positions (rows 0 … n_positions − 1) the views show: 1 … 2048.",
    )
    base = param.Number(
        encoding.DEFAULT_BASE,
        bounds=encoding.BASE_RANGE,
        label="Base",
        doc="The base of the geometric progression of wavelengths (10 … 1 000 000; paper: "
        "10 000; Llama 3: 500 000).",
    )
    layout = param.Selector(
        default="interleaved",
        objects=list(encoding.LAYOUTS),
        label="Dimension layout",
        doc="Interleaved (sin on even, cos on odd dimensions) or concatenated (all sines, then "
        "all cosines).",
    )


class PositionParams(param.Parameterized):
    """The two positions compared: pos and pos + k."""

    pos = param.Integer(
        DEFAULT_POS,
        bounds=(0, encoding.MAX_N_POSITIONS - 1),
        label="Position pos",
        doc="The position whose encoding PE(pos) is highlighted (0 … n_positions − 1).",
    )
    offset = param.Integer(
        DEFAULT_OFFSET,
        bounds=(-(encoding.MAX_N_POSITIONS - 1), encoding.MAX_N_POSITIONS - 1),
        label="Offset k",
        doc="The second position is pos + k; k may be negative as long as pos + k ≥ 0.",
    )


class PairParams(param.Parameterized):
    """Which pairs of dimensions the waves, rotation and dot-product views single out."""

    pairs = param.List(
        default=[],
        item_type=int,
        label="Pairs i shown as waves",
        doc="Pair indices i drawn in the waves view; empty means a spread chosen from d_model.",
    )
    rotation_pair = param.Integer(
        0,
        bounds=(0, encoding.MAX_D_MODEL // 2 - 1),
        label="Rotation pair i",
        doc="The pair i whose rotation by k·ω_i the rotation view draws (0 … d_model/2 − 1).",
    )
    similarity = param.Selector(
        default="dot",
        objects=["dot", "cosine"],
        label="Dot-product view shows",
        doc="What the dot-product view shows: dot products PE(i)·PE(j) or cosine similarities.",
    )


class MethodParams(param.Parameterized):
    """The position method compared, ALiBi's heads, the RoPE vectors' seed, the training length."""

    method = param.Selector(
        default="sinusoidal",
        objects=list(methods.METHODS),
        label="Position method",
        doc="How attention learns where tokens stand: the sinusoidal encoding added to the "
        "input, RoPE (rotating q and k), ALiBi (a bias on the scores) or none.",
    )
    heads = param.Integer(
        DEFAULT_HEADS,
        bounds=(1, methods.MAX_HEADS),
        label="ALiBi heads H",
        doc=f"Number of attention heads, each with its own ALiBi slope (1 … {methods.MAX_HEADS}).",
    )
    seed = param.Integer(
        0,
        bounds=(0, methods.MAX_SEED),
        label="Seed of q and k",
        doc="The seed of the random query and key vectors the RoPE views rotate.",
    )
    train_length = param.Integer(
        DEFAULT_TRAIN_LENGTH,
        bounds=(1, encoding.MAX_N_POSITIONS),
        label="Training length L",
        doc="The longest offset seen in training (1 … n_positions); the method chart shades the "
        "offsets beyond it.",
    )


class ScalingParams(param.Parameterized):
    """RoPE read beyond its training context: the scaling method and each method's parameters."""

    scaling = param.Selector(
        default=DEFAULT_SCALING,
        objects=list(SCALINGS),
        label="RoPE scaling method",
        doc="How a RoPE model is read beyond its training context: none, Position "
        "Interpolation, NTK-aware, dynamic NTK, YaRN, Llama 3 or LongRoPE.",
    )
    factor = param.Number(
        DEFAULT_FACTOR,
        bounds=(1.0, MAX_SCALING_FACTOR),
        label="Scaling factor s",
        doc="How many times the trained context the model is read to (1 … 128).",
    )
    original_context = param.Integer(
        DEFAULT_CONTEXT,
        bounds=(16, MAX_CONTEXT),
        label="Original context L",
        doc="The context length the RoPE model was trained on (16 … 1 048 576).",
    )
    seq_len = param.Integer(
        4 * DEFAULT_CONTEXT,
        bounds=(1, MAX_CONTEXT * int(MAX_SCALING_FACTOR)),
        label="Dynamic NTK: sequence length n",
        doc="The length of the sequence dynamic NTK scales for (below L it scales as at L).",
    )
    beta_fast = param.Number(
        SCALING_DEFAULTS["yarn"]["beta_fast"],
        bounds=(0.25, 1024.0),
        label="YaRN β_fast",
        doc="Pairs turning more than β_fast times in L keep their frequency (published: 32).",
    )
    beta_slow = param.Number(
        SCALING_DEFAULTS["yarn"]["beta_slow"],
        bounds=(0.125, 512.0),
        label="YaRN β_slow",
        doc="Pairs turning fewer than β_slow times in L are interpolated (published: 1).",
    )
    truncate = param.Boolean(
        SCALING_DEFAULTS["yarn"]["truncate"],
        label="YaRN: the ramp's ends",
        doc="YaRN's truncate option: floor and ceil the ramp's pair bounds (the default).",
    )
    low_freq_factor = param.Number(
        SCALING_DEFAULTS["llama3"]["low_freq_factor"],
        bounds=(0.125, 64.0),
        label="Llama 3 low_freq_factor",
        doc="Wavelengths above L / low_freq_factor are interpolated (Llama 3.1: 1).",
    )
    high_freq_factor = param.Number(
        SCALING_DEFAULTS["llama3"]["high_freq_factor"],
        bounds=(0.25, 128.0),
        label="Llama 3 high_freq_factor",
        doc="Wavelengths below L / high_freq_factor keep their frequency (Llama 3.1: 4).",
    )
    longrope_factors = param.String(
        "",
        regex=rf"\A[0-9eE+\-.,;()\[\] \t\r\n]{{0,{MAX_FACTORS_CHARS}}}\Z",
        label="LongRoPE per-pair factors",
        doc="d/2 numbers, one divisor per pair, separated by commas or spaces; the maths takes "
        "each in 0.001 … 10 000 (scaling.MIN_FACTOR, MAX_PAIR_FACTOR) and a link refuses others.",
    )


class RelativeParams(param.Parameterized):
    """The relative methods: T5's buckets and Shaw et al.'s clipping distance."""

    t5_buckets = EvenInteger(
        32,
        bounds=(4, relative.MAX_BUCKETS),
        step=2,
        label="T5 buckets",
        doc="T5's num_buckets (32 in T5; halved between the two directions when bidirectional).",
    )
    t5_max_distance = param.Integer(
        128,
        bounds=(2, 1 << 16),
        label="T5 max_distance",
        doc="Distances from max_distance on share T5's last bucket (128 in T5).",
    )
    t5_bidirectional = param.Boolean(
        True,
        label="T5 attention",
        doc="An encoder sees keys on both sides (half the buckets each); a decoder only before.",
    )
    shaw_clip = param.Integer(
        DEFAULT_SHAW_CLIP,
        bounds=(1, MAX_SHAW_CLIP),
        label="Shaw clipping distance k",
        doc="Relative distances beyond ±k share the vector of ±k: 2k + 1 vectors (paper: 16).",
    )


class SentenceParams(param.Parameterized):
    """The sentence whose words the tokens and NoPE views place."""

    text = param.String(
        DEFAULT_TEXT,
        regex=rf"\A(?s:.){{0,{MAX_TEXT_CHARS}}}\Z",
        label="Sentence",
        doc=f"The words of the tokens view, split at whitespace (at most {MAX_TEXT_CHARS} "
        "characters).",
    )


@dataclass(frozen=True)
class VisitorModel:
    """A model the visitor gave the model view (a file, a pasted config, a Hub config), as read:
    equal, and hashed, by a digest of what it holds, so that derived's caches can key on it."""

    digest: str
    reading: ModelPositions = field(compare=False, repr=False)

    @classmethod
    def of(cls, reading: ModelPositions) -> VisitorModel:
        text = json.dumps(reading.to_json(), sort_keys=True, default=str)
        return cls(hashlib.sha256(text.encode("utf-8")).hexdigest(), reading)


# Parameters held for the session only: never a link's key, never written to the URL (urlstate).
SESSION_ONLY = ("visitor_model",)


class ModelParams(param.Parameterized):
    """The published model the model view reads (in the link), and the visitor's own model, read
    (a file of the visitor's is never in the link: session only)."""

    model = param.Selector(
        default=DEFAULT_MODEL,
        objects=list(PRESETS),
        label="Model",
        doc="A published model configuration whose positions the model view shows, layer by layer.",
    )
    visitor_model = param.ClassSelector(
        class_=VisitorModel,
        default=None,
        allow_None=True,
        label="Your model",
        doc="The model the visitor gave the model view, read, for the mistakes view to run on "
        "(mistake_on=upload); None when none is given. Session only: never in the link.",
    )


class MistakeParams(param.Parameterized):
    """The mistakes view's choice (issue 59): which published mistake, its settings, where the
    query sits and which layer it runs on (components/mistakes/)."""

    mistake = param.Selector(
        default="low_precision",
        objects=list(MISTAKE_NAMES),
        label="Mistake",
        doc="The published mistake simulated against the exact float64 computation.",
    )
    precision = param.Selector(
        default="bf16",
        objects=["bf16", "fp16"],
        label="Low precision format",
        doc="The format of a low-precision mistake: bfloat16 or float16, emulated bit for bit.",
    )
    precision_place = param.Selector(
        default="product",
        objects=["product", "positions", "cache"],
        label="Held in low precision",
        doc="What is held in the format: position × inv_freq, the positions, or the cached cos and "
        "sin.",
    )
    scaling_mistake = param.Selector(
        default="dropped",
        objects=["dropped", "twice"],
        label="The layer's scaling",
        doc="The layer's RoPE scaling dropped, or applied twice (its attention factor squared).",
    )
    query_at = param.Selector(
        default="32k",
        objects=["4k", "32k", "128k", "context"],
        label="Query at p",
        doc="The query's position p: 4k, 32k, 128k, or the model's maximum context.",
    )
    mistake_on = param.Selector(
        default="model",
        objects=["model", "rope", "upload"],
        label="Run on",
        doc="The layer the mistake runs on: the model view's preset (its first rotating layer), "
        "plain RoPE (θ 10 000, head 128, 4k), or the model the visitor gave the model view "
        "(upload: the preset, said so, when none is given).",
    )
    window = param.Integer(
        default=1024,
        bounds=(1, MAX_WINDOW),
        label="Window (recent keys kept)",
        doc="How many of the most recent keys an evicting cache keeps, the query's own among them.",
    )
    sinks = param.Integer(
        default=4,
        bounds=(0, MAX_SINKS),
        label="Attention sinks (first keys kept)",
        doc="How many of the first keys the cache keeps whatever the window (StreamingLLM: 4).",
    )
    padded_lengths = Lengths(
        default="3,7,10",
        label="Rows' lengths (tokens)",
        doc=f"The real tokens of each row of the left-padded batch: 1 to {MAX_LENGTHS} whole "
        f"numbers from 1 to {MAX_LENGTH:,}, separated by commas.",
    )
    packed_lengths = Lengths(
        default="512,1024,2048,512",
        label="Documents' lengths (tokens)",
        doc=f"The tokens of each document packed into one row: 1 to {MAX_LENGTHS} whole numbers "
        f"from 1 to {MAX_LENGTH:,}, separated by commas.",
    )
    alibi_heads = param.Integer(
        default=12,
        bounds=(1, MAX_ALIBI_HEADS),
        label="Heads the model has",
        doc=f"The ALiBi model's true number of heads (1 … {MAX_ALIBI_HEADS}).",
    )
    alibi_as_heads = param.Integer(
        default=16,
        bounds=(1, MAX_ALIBI_HEADS),
        label="Slopes computed for (heads)",
        doc="The head count the slopes were mistakenly computed for: the model's heads take the "
        "first slopes of that list (at least as many as it has).",
    )
    theta_read = param.Number(
        default=None,
        allow_None=True,
        bounds=THETA_READ_RANGE,
        label="θ read instead",
        doc="The rope_theta a conversion or config reads instead of the model's (10 … 10⁹; "
        "empty: 10 000, or 500 000 for a model at 10 000).",
    )
    prefill = param.Integer(
        default=None,
        allow_None=True,
        bounds=(1, MAX_WINDOW),
        label="Prompt length (prefill)",
        doc="The tokens of the prompt, whose keys are cached with the frequencies of its length "
        "(empty: the layer's original context).",
    )


# Each mistake's own settings: simulate's keyword, the state parameter that holds it. The page
# shows a mistake's controls only while it is chosen.
MISTAKE_SETTINGS = {
    "low_precision": {"precision": "precision", "place": "precision_place"},
    "left_padding": {"lengths": "padded_lengths"},
    "cache_window": {"window": "window", "sinks": "sinks"},
    "dynamic_ntk_cache": {"prefill": "prefill"},
    "packed_documents": {"lengths": "packed_lengths"},
    "wrong_theta": {"theta": "theta_read"},
    "scaling": {"how": "scaling_mistake"},
    "alibi_slopes": {"heads": "alibi_heads", "as_heads": "alibi_as_heads"},
}
LENGTHS_SETTINGS = ("padded_lengths", "packed_lengths")


class PageParams(param.Parameterized):
    """How the page is drawn."""

    theme = param.Selector(default="light", objects=["light", "dark"], doc="Colour theme.")


# The state's groups, each a small Parameterized class: its parameters, bounds and docs. Their
# order is the order of the link's keys.
GROUPS = (
    EncodingParams,
    PositionParams,
    PairParams,
    SentenceParams,
    MethodParams,
    ScalingParams,
    RelativeParams,
    ModelParams,
    MistakeParams,
    PageParams,
)


class ExplorerState(*GROUPS):
    """Everything the explorer shows is a function of these parameters, made of the groups above.

    The groups are mixed in, not held as sub-objects, so that every parameter keeps its flat name:
    the link's keys, the views' lists of parameters they follow and every watcher read it as
    state.pos, state.factor … The rules that tie groups together (pos inside n_positions, the
    rotation pair inside d_model/2) live here.
    """

    def __init__(self, **params):
        # Class bounds are the widest; each instance narrows pos and k to its own length.
        super().__init__(**params)
        self._sync_bounds()

    def limits(self) -> dict[str, tuple[int, int]]:
        """The lowest and highest value of each parameter whose range depends on the others.

        The one rule for them: the state keeps these parameters inside it, and their controls
        offer exactly it (components/ui/controls.py), so no control can show a value the state
        would then move. pos + k ≥ 0 makes the offset's lowest value −pos.
        """
        last = self.n_positions - 1
        last_pair = self.d_model // 2 - 1
        return {
            "pos": (0, last),
            "offset": (-min(self.pos, last), last),
            "rotation_pair": (0, last_pair),
            "pairs": (0, last_pair),
            "train_length": (1, self.n_positions),
        }

    def _clamped(self, name: str) -> int:
        low, high = self.limits()[name]
        return min(max(getattr(self, name), low), high)

    @param.depends("n_positions", "d_model", "pairs", watch=True)
    def _sync_bounds(self):
        """Keep pos, offset and the chosen pairs inside what n_positions and d_model allow."""
        last = self.n_positions - 1
        with param.parameterized.batch_call_watchers(self):
            self.param.pos.bounds = (0, last)
            self.param.offset.bounds = (-last, last)
            self.pos = self._clamped("pos")
            self.offset = self._clamped("offset")
            low, high = self.limits()["pairs"]
            kept = [i for i in self.pairs if low <= i <= high]
            if kept != self.pairs:
                self.pairs = kept
            self._keep_rotation_pair_valid()
            self.train_length = self._clamped("train_length")

    @param.depends("pos", "offset", watch=True)
    def _keep_second_position_valid(self):
        """The second position pos + k must not be negative: raise k to -pos when it would be."""
        self.offset = self._clamped("offset")

    @param.depends("train_length", watch=True)
    def _keep_train_length_valid(self):
        """The training length stays inside the shown sequence (1 … n_positions)."""
        self.train_length = self._clamped("train_length")

    @param.depends("rotation_pair", watch=True)
    def _keep_rotation_pair_valid(self):
        """The rotation pair must exist for this d_model: lower it to d_model/2 − 1 when not."""
        self.rotation_pair = self._clamped("rotation_pair")

    def apply(self, values: dict) -> None:
        """Set many parameters at once (one update for every view), sizes before positions."""
        n_positions = values.get("n_positions", self.n_positions)
        last = n_positions - 1
        # Widen pos and k to the new length first: the bounds watcher runs after the batch.
        self.param.pos.bounds = (0, last)
        self.param.offset.bounds = (-last, last)
        changed = {key: value for key, value in values.items() if getattr(self, key) != value}
        if changed:
            self.param.update(**changed)

    @property
    def second_pos(self) -> int:
        """The second position, pos + k."""
        return self.pos + self.offset

    @property
    def words(self) -> list[str]:
        """The sentence's words, split at whitespace: at most MAX_TOKENS and n_positions."""
        return self.text[:MAX_TEXT_CHARS].split()[: min(MAX_TOKENS, self.n_positions)]

    @property
    def chosen_pairs(self) -> list[int]:
        """The pair indices the waves view draws: the visitor's choice or a spread."""
        pairs = sorted({i for i in self.pairs if 0 <= i < self.d_model // 2})
        return pairs[:MAX_CHOSEN_PAIRS] or default_pairs(self.d_model)

"""The types of the mistakes family: one simulated mistake's result, and the rotating layer it
runs on. Every other module of the family imports these; this one imports none of them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The contexts a score error is read at, by name (the query's position p).
CONTEXTS = {"4k": 4096, "32k": 32768, "128k": 131072}
MAX_CONTEXT = 1 << 24
# The mistakes simulate runs, by family and in words: the keys of simulate.MISTAKES, here (the
# leaf) for the state and the page.
MISTAKE_FAMILIES = {
    "Low precision": {"low_precision": "angles in bf16 or fp16"},
    "Left padding": {"left_padding": "left padding numbered by arange"},
    "Caches": {
        "cache_window": "a window and sinks numbered by slot",
        "dynamic_ntk_cache": "dynamic NTK with a cache",
    },
    "Conversion and configuration": {
        "pairing_swapped": "the pairing swapped (permute forgotten)",
        "positions_from_1": "positions from 1",
        "wrong_theta": "the wrong θ",
        "scaling": "scaling dropped or applied twice",
        "packed_documents": "packed documents not reset",
        "alibi_slopes": "ALiBi slopes taken as for another head count",
    },
}
MISTAKE_LABELS = {
    name: words for family in MISTAKE_FAMILIES.values() for name, words in family.items()
}
MISTAKE_NAMES = tuple(MISTAKE_LABELS)
# How many random unit (q, k) pairs a score error is the worst over, and their seed.
SAMPLES, SEED = 32, 0


@dataclass(frozen=True)
class Rotary:
    """What a mistake needs of one rotating layer: its per-pair frequencies (float64, pair 0
    the fastest), their θ, the factor on cos and sin, its scaling and its contexts."""

    inv_freq: np.ndarray
    theta: float
    attention_factor: float = 1.0
    scaling: dict = field(default_factory=dict)
    original_context: int = 4096
    max_context: int = 4096
    label: str = "RoPE"

    @property
    def rotary_dim(self) -> int:
        return 2 * self.inv_freq.size


@dataclass(frozen=True)
class Simulation:
    """One mistake at one setting, as arrays a view can plot, and a sentence giving the damage.

    What the model is told against the truth: `right` and `wrong` against `x` (named by
    `x_name`, the values by `quantity`), 1-D, or 2-D with one row per padded row, per position's
    pairs …; `error` is 1-D, the worst absolute difference at each x.

    What it does to attention: `score_right` and `score_wrong`, q·k of random unit (q, k)
    (one row per pair, see scores.unit_pairs; for ALiBi one row per head, the bias) against
    `distances` (the query's distance to the key), and `score_error`, the worst absolute
    difference at each distance (NaN where the mistake overflowed).

    `angle_error` (radians, rows `positions`, one column per pair) where the mistake turns
    angles, else None."""

    mistake: str
    x: np.ndarray
    x_name: str
    quantity: str
    right: np.ndarray
    wrong: np.ndarray
    error: np.ndarray
    distances: np.ndarray
    score_right: np.ndarray
    score_wrong: np.ndarray
    score_error: np.ndarray
    summary: str
    settings: dict = field(default_factory=dict)
    positions: np.ndarray | None = None
    angle_error: np.ndarray | None = None

    @property
    def worst(self) -> float:
        """The largest absolute error of what the model is told (NaN if none is finite)."""
        return finite_max(self.error)

    @property
    def worst_score(self) -> float:
        """The largest absolute score error over every distance (NaN if none is finite)."""
        return finite_max(self.score_error)

    @property
    def worst_angle(self) -> float:
        """The largest absolute angle error (radians) over every position and pair, or NaN."""
        return float("nan") if self.angle_error is None else finite_max(self.angle_error)


def finite_max(values: np.ndarray) -> float:
    """The largest absolute finite value, NaN when there is none."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else float("nan")

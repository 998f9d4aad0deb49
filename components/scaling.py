"""Long context for RoPE: how each published scaling method changes the per-pair frequencies.

A RoPE model with head dimension d turns pair i of q and k by pos * theta_i, with
theta_i = base ** (-2i / d) (`inv_freq`), so pair i has wavelength 2 pi / theta_i. It was
trained on positions below L (`original_context`). To read s = `factor` times further:

    none    theta'_i = theta_i
    pi      theta'_i = theta_i / s                      Position Interpolation (Chen et al. 2023)
    ntk     base' = base * s ** (d / (d - 2))           NTK-aware (bloc97, 2023)
    dynamic the same with s_eff = s * n / L - (s - 1), at sequence length n >= L (transformers
            grows it past max_position_embeddings: a model's L, whatever its original context)
    yarn    theta_i / s where a pair turns fewer than beta_slow times in L, theta_i where it turns
            more than beta_fast times, a linear ramp between (Peng et al. 2023); the logits are
            multiplied by attention_factor ** 2, attention_factor = 0.1 ln s + 1
    llama3  theta_i where the wavelength is below L / high_freq_factor, theta_i / s above
            L / low_freq_factor, and between, a mix smoothed in L / wavelength (Llama 3.1)
    longrope theta_i / f_i with searched per-pair factors f_i (Ding et al. 2024); attention
            factor sqrt(1 + ln s / ln L)

Each method runs its rope type's function in rope_types.py (the one definition of each formula,
as `transformers`' src/transformers/modeling_rope_utils.py `ROPE_INIT_FUNCTIONS`, Meta's
llama-models `apply_scaling` and the YaRN authors' jquesnelle/yarn compute them, in float64);
this module checks the view's settings and maps each method to its rope type.
"""

from __future__ import annotations

import math
import re
from numbers import Real

import numpy as np

from .encoding import check_base, check_d_model, check_integer
from .rope_types import ROPE_INIT_FUNCTIONS, default_frequencies

SCALINGS = ("none", "pi", "ntk", "dynamic", "yarn", "llama3", "longrope")
# transformers' rope_type "linear" is Position Interpolation.
ALIASES = {"linear": "pi"}
SCALING_LABELS = {
    "none": "None",
    "pi": "Position Interpolation",
    "ntk": "NTK-aware",
    "dynamic": "Dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
    "longrope": "LongRoPE",
}
# Each method's own parameters and their published defaults (None: required).
PARAMETERS: dict[str, dict[str, object]] = {
    "none": {},
    "pi": {},
    "ntk": {},
    "dynamic": {"seq_len": None},
    "yarn": {"beta_fast": 32.0, "beta_slow": 1.0, "truncate": True},
    "llama3": {"low_freq_factor": 1.0, "high_freq_factor": 4.0},
    "longrope": {"factors": None},
}
MAX_FACTOR = 4096.0  # Mistral Large 3 (mistral_large4) ships YaRN ×2048
# LongRoPE's smallest per-pair factor: a divisor near 0 would make a pair turn without bound.
MIN_FACTOR = 1e-3
# And its largest, so that 2π·base·f stays finite. Published factors sit near s, far below it:
# Phi-3 and Phi-3.5's long_factor reach about 65 (for s = 32), LongRoPE's 2048k models read
# s = 512; it is above the largest s here (MAX_FACTOR).
MAX_PAIR_FACTOR = 1e4
MAX_CONTEXT = 1 << 24


def check_scaling(method: object) -> str:
    """Return the method's name (an alias resolved), or raise ValueError if unknown."""
    name = ALIASES.get(method, method) if isinstance(method, str) else method
    if name not in SCALINGS:
        known = ", ".join((*SCALINGS, *ALIASES))
        raise ValueError(f"scaling method must be one of {known}, got {method!r}")
    return str(name)


def _number(name: str, value: object, low: float, high: float, *, above: bool = False) -> float:
    """A finite real in [low, high] (in (low, high] with `above`), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value > high or value < low or (above and value == low):
        side = "greater than" if above else "at least"
        raise ValueError(f"{name} must be {side} {low:g} and at most {high:g}, got {value!r}")
    return float(value)


def check_factors(factors: object, n_pairs: int) -> np.ndarray:
    """LongRoPE's per-pair factors: n_pairs numbers in 0.001 … 10 000, else ValueError."""
    try:
        array = np.asarray(factors, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"factors must be {n_pairs} numbers, got {factors!r:.80}") from None
    if array.ndim != 1 or array.size != n_pairs:
        raise ValueError(
            f"factors must be {n_pairs} numbers (one per pair: d_head / 2), got {array.size}"
        )
    bad = ~((array >= MIN_FACTOR) & (array <= MAX_PAIR_FACTOR))
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"factors must be finite numbers of at least {MIN_FACTOR:g} and at most "
            f"{MAX_PAIR_FACTOR:g}; pair {index} is {float(array[index])!r}"
        )
    return array


def factor_words(text: str) -> list[str]:
    """The words of pasted LongRoPE factors: split at commas, semicolons, spaces, brackets."""
    return [word for word in re.split(r"[,;\s\[\]()]+", text.strip()) if word]


def factor_out_of_range(index: int, word: str) -> str:
    """Why a pasted factor that is a number is refused, or "" when it is in range."""
    value = float(word)
    if MIN_FACTOR <= value <= MAX_PAIR_FACTOR:
        return ""
    return (
        f"LongRoPE factor {index} is {word[:20]}: each must be a finite number of at least "
        f"{MIN_FACTOR:g} and at most {MAX_PAIR_FACTOR:g}"
    )


def parse_factors(text: str, n_pairs: int) -> np.ndarray:
    """LongRoPE's per-pair factors from pasted text: numbers split by commas, semicolons or
    spaces, brackets allowed ("[1.0, 1.2]"); n_pairs numbers in 0.001 … 10 000, else
    ValueError in the visitor's words (numbered from 1, as they count them)."""
    words = factor_words(text)
    if not words:
        raise ValueError(
            f"LongRoPE needs {n_pairs} per-pair factors (d_head / 2): paste them in the box"
        )
    values = []
    for index, word in enumerate(words, start=1):
        try:
            value = float(word)
        except ValueError:
            raise ValueError(f"LongRoPE factor {index} is not a number: {word[:20]!r}") from None
        refused = factor_out_of_range(index, word)
        if refused:
            raise ValueError(refused)
        values.append(value)
    return check_factors(values, n_pairs)


def _parameters(method: str, given: dict[str, object]) -> dict[str, object]:
    """The method's parameters: the published defaults, updated with the given ones."""
    defaults = PARAMETERS[method]
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        takes = ", ".join(defaults) or "no parameters"
        raise ValueError(f"{method} takes {takes}; unknown: {', '.join(unknown)}")
    values = {**defaults, **given}
    missing = [name for name, value in values.items() if value is None]
    if missing:
        raise ValueError(f"{method} needs {', '.join(missing)}")
    return values


# Each method's rope type in rope_types.ROPE_INIT_FUNCTIONS.
METHOD_TYPES = {"none": "default", "pi": "linear"}


def check_yarn(beta_fast: object, beta_slow: object, truncate: object) -> tuple[float, float, bool]:
    """YaRN's beta_fast > beta_slow > 0 and truncate a bool, else ValueError."""
    beta_fast = _number("beta_fast", beta_fast, 0.0, 1e6, above=True)
    beta_slow = _number("beta_slow", beta_slow, 0.0, 1e6, above=True)
    if beta_slow >= beta_fast:
        raise ValueError(
            f"beta_fast ({beta_fast:g}) must be greater than beta_slow ({beta_slow:g})"
        )
    if not isinstance(truncate, bool):
        raise ValueError(f"truncate must be true or false, got {truncate!r}")
    return beta_fast, beta_slow, truncate


def _checked_parameters(method, d_head, factor, values) -> dict[str, object]:
    """The rope parameters of a method as its rope type reads them, each checked."""
    if method == "none":
        return {}
    if method == "dynamic":
        return {
            "factor": factor,
            "seq_len": check_integer("seq_len", values["seq_len"], 1, MAX_CONTEXT),
        }
    if method == "yarn":
        beta_fast, beta_slow, truncate = check_yarn(
            values["beta_fast"], values["beta_slow"], values["truncate"]
        )
        return {
            "factor": factor,
            "beta_fast": beta_fast,
            "beta_slow": beta_slow,
            "truncate": truncate,
        }
    if method == "llama3":
        low_freq = _number("low_freq_factor", values["low_freq_factor"], 0.0, 1e6, above=True)
        high_freq = _number("high_freq_factor", values["high_freq_factor"], 0.0, 1e6, above=True)
        if high_freq <= low_freq:
            raise ValueError(
                f"high_freq_factor ({high_freq:g}) must be greater than "
                f"low_freq_factor ({low_freq:g})"
            )
        return {"factor": factor, "low_freq_factor": low_freq, "high_freq_factor": high_freq}
    if method == "longrope":  # one set of factors: the view's, at any length
        factors = check_factors(values["factors"], d_head // 2)
        return {"factor": factor, "long_factor": factors, "short_factor": factors}
    return {"factor": factor}


def rope_type_call(
    method: str,
    d_head: int,
    base: float,
    factor: float,
    original_context: int,
    **params: object,
) -> tuple[str, dict[str, object], int, float, int, int]:
    """How rope_types runs a method: its rope type (a key of ROPE_INIT_FUNCTIONS) and that
    function's arguments (rope, dim, base, original, top), each checked first (ValueError)."""
    method = check_scaling(method)
    d_head = check_d_model(d_head)
    if d_head < 4 and method in ("ntk", "dynamic"):
        raise ValueError(f"{method} raises the base by s ** (d / (d - 2)): d_head must be >= 4")
    base = check_base(base)
    factor = _number("factor", factor, 1.0, MAX_FACTOR)
    original_context = check_integer("original_context", original_context, 1, MAX_CONTEXT)
    rope = _checked_parameters(method, d_head, factor, _parameters(method, params))
    top = rope.pop("seq_len", original_context)
    return METHOD_TYPES.get(method, method), rope, d_head, base, original_context, top


def rope_scaled_frequencies(
    method: str,
    d_head: int,
    base: float,
    factor: float,
    original_context: int,
    **params: object,
) -> tuple[np.ndarray, float]:
    """(inv_freq, attention_factor) of a RoPE model of head size d_head and base, trained on
    original_context positions and scaled by `factor` with `method` and its parameters: the
    method's rope type in rope_types.ROPE_INIT_FUNCTIONS, run as rope_type_call says.

    inv_freq has d_head / 2 entries, pair 0 (the fastest) first. The attention factor
    multiplies cos and sin (so the logits by its square), as in `transformers`.
    """
    kind, *arguments = rope_type_call(method, d_head, base, factor, original_context, **params)
    return ROPE_INIT_FUNCTIONS[kind](*arguments)


def scaling_bands(
    method: str,
    d_head: int,
    base: float,
    factor: float,
    original_context: int,
    **params: object,
) -> np.ndarray:
    """For each pair: 'kept' (its frequency unchanged), 'interpolated' (divided by the full
    factor) or 'ramped' (anything between), as the method treats it."""  # fmt: skip
    scaled, _ = rope_scaled_frequencies(method, d_head, base, factor, original_context, **params)
    divisor = default_frequencies(check_d_model(d_head), check_base(base)) / scaled
    bands = np.full(divisor.shape, "ramped", dtype=object)
    bands[np.isclose(divisor, float(factor), rtol=1e-12, atol=0)] = "interpolated"
    # Kept wins: at s = 1 dividing by s leaves every pair as it was.
    bands[np.isclose(divisor, 1.0, rtol=1e-12, atol=0)] = "kept"
    return bands


def rope_config_frequencies(
    d_head: int, base: float, original_context: int, rope_scaling: dict | None
) -> tuple[np.ndarray, float]:
    """inv_freq and attention factor from a Hugging Face `rope_scaling` dict (None: no scaling),
    read as `transformers` reads it (`rope_type` or the older `type`)."""
    if not rope_scaling:
        return rope_scaled_frequencies("none", d_head, base, 1.0, original_context)
    config = dict(rope_scaling)
    method = config.pop("rope_type", None) or config.pop("type", None)
    config.pop("type", None)
    factor = config.pop("factor", 1.0)
    original_context = config.pop("original_max_position_embeddings", original_context)
    if method == "longrope":
        config = {"factors": config.get("long_factor")}
    keep = PARAMETERS.get(ALIASES.get(method, method), {})
    params = {key: value for key, value in config.items() if key in keep}
    return rope_scaled_frequencies(method, d_head, base, factor, original_context, **params)


# The bands scaling_bands sorts the pairs into, from the fastest pairs to the slowest.
BANDS = ("kept", "ramped", "interpolated")


def offset_scores(inv_freq: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """RoPE's score of q = k = (1, …, 1) at each offset m, over q·k = d: (2 / d) Σ_i cos(m θ_i),
    1 at m = 0 (RoFormer's long-term decay).

    The angle is reduced to at most half a turn in float64 first, so that the cosine can be
    taken in float32 (several times faster) to about 1e-7, even at m = 128 × 2²⁰.
    """
    turns = np.multiply.outer(offsets, inv_freq / (2 * np.pi))
    turns -= np.rint(turns)
    angles = np.empty(turns.shape, dtype=np.float32)
    np.multiply(turns, 2 * np.pi, out=angles, casting="same_kind")
    np.cos(angles, out=angles)
    return (angles @ np.ones(inv_freq.size, dtype=np.float32)).astype(np.float64) / inv_freq.size


def softmax(logits: np.ndarray) -> np.ndarray:
    """Attention weights of a row of logits: exp(z_j) / Σ exp(z), shifted by the largest."""
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def entropy(weights: np.ndarray) -> float:
    """Shannon entropy in nats of weights that sum to 1."""
    return float(-(weights * np.log(weights)).sum())

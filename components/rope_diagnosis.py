"""diagnose_rope(inv_freq, ...): is someone's scaled RoPE inv_freq the config's, and if not, why.

The array is compared with `scaling.rope_scaled_frequencies` for the config the person meant,
then with the same config computed with each mistake people make in implementations (seen in
issue threads of keras-hub, TVM, TensorRT-LLM and MLX, among others); the closest mistake that
explains the array, pair by pair, is named with the pairs where it shows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .diagnosis import UploadFormat
from .encoding import MAX_D_MODEL, check_base, check_d_model
from .rope_types import yarn_correction_range
from .scaling import check_scaling, default_frequencies, rope_scaled_frequencies

# float32 arrays (torch's default) differ from float64 by about 6e-8 relative.
RELATIVE_TOLERANCE = 1e-5
MAX_PAIRS_LISTED = 8


@dataclass(frozen=True)
class RopeDiagnosis:
    """What the check found; truthy when the array is the config's."""

    ok: bool
    text: str
    bug: str | None
    expected: np.ndarray
    theirs: np.ndarray
    pairs: tuple[int, ...] = ()  # the pairs where theirs differs from the expected
    relative_error: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __bool__(self) -> bool:
        return self.ok


def check_inv_freq(inv_freq: object, d_head: int) -> np.ndarray:
    """Their array: d_head / 2 positive finite numbers (or d_head, a per-dimension vector)."""
    try:
        array = np.asarray(inv_freq, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError("inv_freq must be numbers") from None
    if array.size not in (d_head // 2, d_head):
        raise ValueError(
            f"inv_freq must have d_head / 2 = {d_head // 2} numbers (one per pair), "
            f"or d_head = {d_head} (one per dimension); got {array.size}"
        )
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError("inv_freq must hold positive finite numbers (no NaN, inf, 0 or less)")
    return array


def _relative_error(theirs: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return np.abs(theirs - expected) / np.abs(expected)


def _pairs_text(pairs: tuple[int, ...]) -> str:
    shown = ", ".join(map(str, pairs[:MAX_PAIRS_LISTED]))
    more = len(pairs) - MAX_PAIRS_LISTED
    return f"{shown} and {more} more" if more > 0 else shown


def _mistakes(
    method: str, d_head: int, base: float, factor: float, context: int, params: dict
) -> dict[str, Callable[[], np.ndarray]]:
    """Each mistake this method's implementations are known for, as (name -> the array the
    mistaken code gives)."""
    plain = default_frequencies(d_head, base)
    pairs = np.arange(d_head // 2, dtype=np.float64)
    mistakes: dict[str, Callable[[], np.ndarray]] = {}
    if method != "none":
        named = "the base was not raised (NTK skipped)" if method in ("ntk", "dynamic") else None
        mistakes[named or "the scaling was ignored: these are the unscaled frequencies"] = lambda: (
            plain
        )
        mistakes["the factor was applied inside the exponent: base ** (2i s / d)"] = lambda: (
            1.0 / base ** (2 * pairs * factor / d_head)
        )
    mistakes["the exponent uses i / d instead of 2i / d"] = lambda: 1.0 / base ** (pairs / d_head)
    if method == "yarn":
        beta_fast, beta_slow = params.get("beta_fast", 32.0), params.get("beta_slow", 1.0)
        truncate = params.get("truncate", True)
        mistakes[f"YaRN's truncate was {not truncate} where the config says {truncate}"] = lambda: (
            rope_scaled_frequencies(
                method, d_head, base, factor, context, **{**params, "truncate": not truncate}
            )[0]
        )

        def clamped_at_half() -> np.ndarray:
            low, high = yarn_correction_range(beta_fast, beta_slow, d_head, base, context, truncate)
            high = min(high, d_head // 2 - 1)
            if low == high:
                high += 0.001
            ramp = np.clip((pairs - low) / (high - low), 0, 1)
            return plain / factor * ramp + plain * (1 - ramp)

        mistakes["YaRN's high bound was clamped at d/2 - 1 instead of d - 1"] = clamped_at_half
    if method == "llama3":
        low_freq = params.get("low_freq_factor", 1.0)
        high_freq = params.get("high_freq_factor", 4.0)

        def smoothed_in_wavelength() -> np.ndarray:
            wavelength = 2 * math.pi / plain
            smooth = (context / wavelength - low_freq) / (high_freq - low_freq)
            mixed = (1 - smooth) * wavelength * factor + smooth * wavelength
            scaled = np.where(wavelength > context / low_freq, wavelength * factor, mixed)
            return 2 * math.pi / np.where(wavelength < context / high_freq, wavelength, scaled)

        mistakes["Llama 3's smoothing was interpolated linearly in wavelength, not frequency"] = (
            smoothed_in_wavelength
        )
    return mistakes


def _layout_of(array: np.ndarray) -> str | None:
    """For a per-dimension vector: 'interleaved' ([t0, t0, t1, t1, ...]) or 'half-split'
    ([t0, t1, ..., t0, t1, ...], GPT-NeoX), if it is either."""
    half = array.size // 2
    if np.allclose(array[0::2], array[1::2], rtol=RELATIVE_TOLERANCE, atol=0):
        return "interleaved"
    if np.allclose(array[:half], array[half:], rtol=RELATIVE_TOLERANCE, atol=0):
        return "half-split"
    return None


def diagnose_rope(
    inv_freq: object,
    method: str,
    d_head: int,
    base: float,
    factor: float,
    original_context: int,
    layout: str | None = None,
    **params: object,
) -> RopeDiagnosis:
    """Check `inv_freq` against the config: method, d_head, base, factor, original_context
    and the method's parameters (as `rope_scaled_frequencies` takes them).

    `inv_freq` has d_head / 2 numbers, or d_head (a vector per dimension, as `cos` and `sin`
    are built); for the latter, `layout` ('interleaved' or 'half-split') is the pairing the
    model uses, and a vector built for the other pairing is named as the bug.
    """
    method = check_scaling(method)
    d_head = check_d_model(d_head)
    base = check_base(base)
    expected, _ = rope_scaled_frequencies(method, d_head, base, factor, original_context, **params)
    theirs = check_inv_freq(inv_freq, d_head)
    if layout not in (None, "interleaved", "half-split"):
        raise ValueError(f"layout must be 'interleaved' or 'half-split', got {layout!r}")
    if theirs.size == d_head:
        found = _layout_of(theirs)
        if found is None:
            return _verdict(
                False, "the vector is neither interleaved nor half-split pairs", expected,
                theirs[: d_head // 2], "its two halves and its even and odd entries both differ",
            )  # fmt: skip
        per_pair = theirs[0::2] if found == "interleaved" else theirs[: d_head // 2]
        if layout is not None and found != layout:
            pair_of = "j // 2" if layout == "interleaved" else "j mod d/2"
            return _verdict(
                False, f"NeoX (half-split) and interleaved pairing confused: the vector is "
                f"{found}, the model pairs {layout}", expected, per_pair,
                f"dimension j should use pair {pair_of}",
            )  # fmt: skip
        theirs = per_pair
    error = _relative_error(theirs, expected)
    if np.all(error <= RELATIVE_TOLERANCE):
        return RopeDiagnosis(
            True,
            f"matches {method} (d_head {d_head}, base {base:g}, factor {factor:g}, "
            f"L {original_context}) to {error.max():.1e} relative",
            None, expected, theirs, (), error,
        )  # fmt: skip
    mistakes = _mistakes(method, d_head, base, factor, original_context, params)
    for name, make in mistakes.items():
        # A mistaken formula may overflow (the factor inside the exponent, at large d and s):
        # its inf then simply does not match, and says nothing on the console.
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            candidate = make()
            matches = np.all(_relative_error(theirs, candidate) <= RELATIVE_TOLERANCE)
        if matches:
            return _verdict(False, name, expected, theirs, "")
    words = describe_array(theirs, expected, d_head, base, factor, original_context, params)
    return _verdict(False, None, expected, theirs, f"no known mistake explains it. {words}")


def fitted_base(theirs: np.ndarray, d_head: int) -> float | None:
    """The base whose θ_i = base^(−2i/d) has the slope of log θ over the array's first quarter of
    pairs (the fast pairs, which scalings leave alone), or None when it has no such slope."""
    head = theirs[: max(2, theirs.size // 4)]
    if head.size < 2 or np.any(head <= 0):
        return None
    slope = np.polyfit(np.arange(head.size) * 2 / d_head, np.log(head), 1)[0]
    return float(math.exp(-slope)) if slope < 0 else None


def divisor_words(divisor: np.ndarray) -> str:
    """Each pair's divisor θ_i / θ'_i in runs: "1 for pairs 0–20, 4 for pairs 40–63"."""
    near = lambda a, b: abs(a / b - 1) < 1e-3  # noqa: E731
    runs, start = [], 0
    for i in range(1, divisor.size + 1):
        if i == divisor.size or not near(divisor[i], divisor[start]):
            runs.append((start, i - 1, float(divisor[start])))
            start = i
    steady = [f"{value:.4g} for pairs {a}–{b}" for a, b, value in runs if b > a]
    if len(steady) > 4 or not steady:
        return f"divisors from {divisor.min():.4g} to {divisor.max():.4g}, varying pair by pair"
    return ", ".join(steady) + ("; other pairs between" if any(a == b for a, b, _ in runs) else "")


def resembles(
    theirs: np.ndarray, d_head: int, base: float, factor: float, original_context: int
) -> str:
    """The published scaling whose frequencies are closest to theirs in log terms, at the factor
    their largest divisor suggests, and how close."""
    from .scaling import MAX_FACTOR, SCALING_LABELS, default_frequencies

    largest = float(np.max(default_frequencies(d_head, base) / theirs))
    factor = min(max(round(largest, 3), 1.0), MAX_FACTOR) if largest > 1.001 else factor
    best = None
    for method in ("none", "pi", "ntk", "yarn", "llama3"):
        try:
            candidate, _ = rope_scaled_frequencies(method, d_head, base, factor, original_context)
        except ValueError:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = float(np.sqrt(np.mean(np.log(theirs / candidate) ** 2)))
        if np.isfinite(gap) and (best is None or gap < best[1]):
            best = (method, gap)
    if best is None:
        return ""
    name = "no scaling" if best[0] == "none" else f"{SCALING_LABELS[best[0]]} at s = {factor:g}"
    return f"its curve is closest to {name} (rms log gap {best[1]:.3g})"


def describe_array(theirs, expected, d_head, base, factor, original_context, params) -> str:
    """What an unexplained array is, in words: its fitted base, its divisors against the
    reference, its order, and the published method it resembles."""
    if np.any(theirs <= 0) or not np.all(np.isfinite(theirs)):
        return "It has zero, negative or infinite entries, which no RoPE frequency can be."
    parts = []
    fitted = fitted_base(theirs, d_head)
    if fitted is not None:
        parts.append(f"its fast pairs fit base {fitted:.6g} (the config: {base:g})")
    if theirs.size > 1 and theirs[0] < theirs[-1]:
        parts.append("it rises with the pair index, so pair 0 is not first (reversed?)")
    parts.append("against the config " + divisor_words(expected / theirs))
    closest = resembles(theirs, d_head, base, factor, original_context)
    if closest:
        parts.append(closest)
    return "In words: " + "; ".join(parts) + "."


def _verdict(
    ok: bool, bug: str | None, expected: np.ndarray, theirs: np.ndarray, note: str
) -> RopeDiagnosis:
    error = _relative_error(theirs, expected)
    pairs = tuple(int(i) for i in np.flatnonzero(error > RELATIVE_TOLERANCE))
    where = f"; it shows in pairs {_pairs_text(pairs)}" if pairs else ""
    worst = f" (worst relative error {error.max():.3g})" if error.size else ""
    head = f"does not match: {bug}" if bug else "does not match the config"
    text = f"{head}{where}{worst}" + (f"; {note}" if note else "")
    return RopeDiagnosis(ok, text, bug, expected, theirs, pairs, error)


# ---- Examples: the config's right inv_freq and a buggy one -------------------------------------


def example_mistake(
    method: str, d_head: int, base: float, factor: float, original_context: int, **params: object
) -> tuple[str, np.ndarray] | None:
    """A buggy inv_freq with the name of its bug: the first of the method's usual mistakes that
    diagnose_rope tells apart from the right array (None when none is, as with d_head 2)."""
    arguments = (method, d_head, base, factor, original_context)
    plain = default_frequencies(d_head, base)
    pairs = np.arange(d_head // 2, dtype=np.float64)
    candidates: list[tuple[str, Callable[[], np.ndarray]]] = []
    if method in ("ntk", "dynamic"):
        candidates.append(("NTK's base not raised", lambda: plain))
    if method == "yarn":
        flipped = {**params, "truncate": not params["truncate"]}
        candidates.append((
            f"YaRN's truncate {'off' if params['truncate'] else 'on'}",
            lambda: rope_scaled_frequencies(*arguments, **flipped)[0],
        ))  # fmt: skip
    if method != "none":
        candidates.append(("the scaling ignored", lambda: plain))
    candidates.append(("exponent i/d, not 2i/d", lambda: 1.0 / base ** (pairs / d_head)))
    for label, make in candidates:
        buggy = make()
        if not diagnose_rope(buggy, *arguments, **params).ok:
            return label, buggy
    return None


# ---- Reading someone's inv_freq: a .npy file, a text file or pasted numbers --------------------

# An inv_freq has d_head / 2 numbers (or d_head, one per dimension): at most MAX_D_MODEL.
MAX_NUMBERS = MAX_D_MODEL
# A float64 .npy of MAX_NUMBERS numbers is 16 KiB; text of them, a few times that.
MAX_FILE_BYTES = 1 << 20
MAX_PASTE_CHARS = 200_000
SIZE_CAP = (
    f"at most {MAX_NUMBERS} numbers, in a file of at most 1 MiB or {MAX_PASTE_CHARS:,} "
    "characters of text"
)


class InvFreqError(ValueError):
    """The input is not an inv_freq this check can read; one line for the page."""


# NumPy's and PyTorch's printed arrays: array([...], dtype=float32), tensor([...]), and lists of
# NumPy numbers [np.float64(1.0), …]: their wrappers are dropped, leaving the numbers.
_WRAPPERS = re.compile(
    r"\b(?:array|tensor|np\.\w+|torch\.\w+)\(|\b(?:dtype|device|requires_grad|grad_fn)=[^,\])]*"
    r"|[()\[\]]",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[\s,;]+")


def read_inv_freq_text(text: str) -> np.ndarray:
    """The numbers of pasted text or a text file: separated by commas, semicolons, spaces or
    lines, or a printed NumPy array / PyTorch tensor / list. A first line without a number (a
    header) and lines starting with # are skipped."""
    if len(text) > MAX_PASTE_CHARS:
        raise InvFreqError(
            f"over the size cap: the text has {len(text):,} characters; the cap is {SIZE_CAP}"
        )
    if "..." in text or "…" in text:
        raise InvFreqError(
            "not the whole array: it was printed with '...' in place of the middle; print it "
            'with print(*inv_freq.tolist(), sep=",")'
        )
    lines = [
        line for line in text.lstrip("\ufeff").splitlines() if not line.lstrip().startswith("#")
    ]
    rows = [_SEPARATORS.split(_WRAPPERS.sub(" ", line).strip()) for line in lines]
    rows = [[token for token in row if token] for row in rows]
    rows = [row for row in rows if row]
    if len(rows) > 1 and not any(_is_number(token) for token in rows[0]):
        rows = rows[1:]
    tokens = [token for row in rows for token in row]
    if not tokens:
        raise InvFreqError("empty: there are no numbers")
    if len(tokens) > MAX_NUMBERS:
        raise InvFreqError(f"over the size cap: {len(tokens):,} numbers; the cap is {SIZE_CAP}")
    values = []
    for index, token in enumerate(tokens, start=1):
        if not _is_number(token):
            raise InvFreqError(f"not numeric: number {index} is {token[:40]!r}")
        values.append(float(token))
    return _checked_inv_freq(np.array(values, dtype=np.float64))


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return "_" not in token  # Python reads 1_0 as 10; NumPy and a person would not


def _inv_freq_size(shape: tuple[int, ...]) -> int:
    """The length of a vector of this shape (length-1 axes dropped: a (1, 64) or (64, 1) array
    is a vector), or InvFreqError for a matrix, an empty array or one over the cap."""
    if 0 in shape:
        raise InvFreqError(f"empty: the array has shape {shape}")
    if sum(length != 1 for length in shape) > 1:
        raise InvFreqError(
            f"wrong shape {shape}: give a vector, one number per pair (d_head / 2) or per "
            "dimension (d_head)"
        )
    size = math.prod(shape)
    if size > MAX_NUMBERS:
        raise InvFreqError(f"over the size cap: {size:,} numbers; the cap is {SIZE_CAP}")
    return size


def _checked_inv_freq(array: np.ndarray) -> np.ndarray:
    """The array as a vector of positive finite numbers (its dtype kept), or InvFreqError."""
    _inv_freq_size(array.shape)
    vector = array.reshape(-1)
    finite = np.isfinite(vector)
    if not finite.all():
        index = int(np.flatnonzero(~finite)[0])
        raise InvFreqError(
            f"NaN or infinity at number {index + 1}: every frequency must be a positive finite "
            "number"
        )
    if np.any(vector <= 0):
        index = int(np.flatnonzero(vector <= 0)[0])
        raise InvFreqError(
            f"number {index + 1} is {float(vector[index]):g}: every frequency must be positive"
        )
    return vector


INV_FREQ_UPLOAD = UploadFormat(
    error=InvFreqError,
    numbers="numbers",
    size_cap=SIZE_CAP,
    max_file_bytes=MAX_FILE_BYTES,
    check_shape=_inv_freq_size,
    check_array=_checked_inv_freq,
    parse_text=read_inv_freq_text,
    refused_suffixes=(".npz", ".pt", ".pth", ".pkl", ".pickle", ".bin", ".safetensors"),
    refused="not an inv_freq file: archives, checkpoints and pickles are never opened; save the "
    "one array with np.save('inv_freq.npy', inv_freq) or paste its numbers",
    not_text="not an inv_freq: the file is neither a .npy file nor text (numbers)",
)


def load_inv_freq(data: bytes, filename: str = "") -> np.ndarray:
    """The inv_freq in an uploaded file: a .npy (its dtype kept), or text (read_inv_freq_text)."""
    return INV_FREQ_UPLOAD.read(data, filename)

"""NumPy scripts that reproduce what the page shows (Export / Code), as plain text.

Each function returns a standalone program, importing only NumPy and the standard library, with
the numbers of the arguments it is given written in. Nothing here runs the scripts: the tests do.
"""

from __future__ import annotations

import numpy as np

from .encoding import (
    DEFAULT_BASE,
    MAX_POSITION,
    check_base,
    check_d_model,
    check_integer,
    check_layout,
    check_n_positions,
    pair_columns,
)
from .methods import check_heads, check_method, check_seed
from .rope_diagnosis import RELATIVE_TOLERANCE
from .rope_types import ROPE_INIT_FUNCTIONS
from .scaling import rope_type_call

# ---- The methods chart's scripts (Export / Code) -----------------------------------------------


def method_snippet(
    method: str,
    *,
    d_model: int,
    n_positions: int,
    base: float = DEFAULT_BASE,
    layout: str = "interleaved",
    pos: int,
    offset: int,
    n_heads: int,
    seed: int,
    tokens: list[str] | tuple[str, ...] = (),
) -> str:
    """A standalone NumPy script that recomputes the numbers the page shows for ``method``.

    sinusoidal defines ``pe`` and ``score``; rope ``q``, ``k``, ``q_rot``, ``k_rot``,
    ``score`` and ``scores``; alibi ``slopes``, ``bias`` (one (n, n) matrix per head),
    ``causal`` and ``offset_bias``; none ``q``, ``k``, ``score`` and ``position_score``, and
    for the sentence ``tokens`` (the NoPE view's words) ``scores``, ``reordered_scores`` and
    ``only_reordered``.
    """
    method = check_method(method)
    d_model = check_d_model(d_model)
    n_positions = check_n_positions(n_positions)
    base = check_base(base)
    layout = check_layout(layout)
    pos = check_integer("pos", pos, 0, n_positions - 1)
    offset = check_integer("offset", offset, -pos, MAX_POSITION - pos)
    n_heads = check_heads(n_heads)
    seed = check_seed(seed)
    half = d_model // 2
    if method == "sinusoidal":
        return sinusoidal_program(n_positions, d_model, base, layout, pos, offset)
    if method == "rope":
        return _rope_snippet(d_model, n_positions, base, layout, pos, offset, seed, half)
    if method == "alibi":
        return _alibi_snippet(n_heads, n_positions, pos, offset)
    if not isinstance(tokens, list | tuple) or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"tokens must be a list of strings, got {tokens!r}")
    return _nope_snippet(d_model, pos, offset, seed, list(tokens))


def sinusoidal_program(
    n_positions: int, d_model: int, base: float, layout: str, pos: int, k: int
) -> str:
    """The NumPy program of the sinusoidal encoding: ``pe``, and ``dot``, ``cosine`` and
    ``distance`` of PE(pos) and PE(pos + k); ``score`` is the dot product (Export / Code)."""
    if layout == "interleaved":
        fill = "    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)  # interleaved"
    else:
        half = d_model // 2
        fill = f"    pe[:, :{half}], pe[:, {half}:] = np.sin(angle), np.cos(angle)  # concatenated"
    return f"""import numpy as np

n_positions, d_model, base = {n_positions}, {d_model}, {base!r}
pos, k = {pos}, {k}
omega = base ** (-np.arange(0, d_model, 2) / d_model)  # angular frequencies


def encode(positions):
    angle = np.asarray(positions, dtype=np.float64)[:, None] * omega
    pe = np.empty((len(angle), d_model))
{fill}
    return pe


pe = encode(np.arange(n_positions))  # shape (n_positions, d_model)
u, v = encode([pos, pos + k])
dot = u @ v
cosine = dot / (np.linalg.norm(u) * np.linalg.norm(v))
distance = np.linalg.norm(u - v)
score = dot  # = sum_i cos(k * omega_i), whatever pos is
print(pe.shape, dot, cosine, distance)
"""


def _rope_snippet(d_model, n_positions, base, layout, pos, offset, seed, half) -> str:
    if layout == "interleaved":
        rotate = """def rotate(x, positions):
    \"\"\"RoPE: turn each pair (x[2i], x[2i+1]) by position * theta_i (RoFormer, GPT-J).\"\"\"
    angle = np.asarray(positions, dtype=np.float64)[..., None] * theta
    x0, x1 = x[0::2], x[1::2]
    pairs = np.stack([x0 * np.cos(angle) - x1 * np.sin(angle),
                      x0 * np.sin(angle) + x1 * np.cos(angle)], axis=-1)
    return pairs.reshape(pairs.shape[:-2] + (d_model,))"""
    else:
        rotate = f"""def rotate_half(x):
    return np.concatenate([-x[..., {half}:], x[..., :{half}]], axis=-1)


def rotate(x, positions):
    \"\"\"RoPE: turn each pair (x[i], x[i+{half}]) by position * theta_i (GPT-NeoX, LLaMA).\"\"\"
    angle = np.asarray(positions, dtype=np.float64)[..., None] * theta
    cos = np.concatenate([np.cos(angle), np.cos(angle)], axis=-1)
    sin = np.concatenate([np.sin(angle), np.sin(angle)], axis=-1)
    return x * cos + rotate_half(x) * sin"""
    return f"""import numpy as np

d_model, n_positions, base = {d_model}, {n_positions}, {base!r}
pos, offset, seed = {pos}, {offset}, {seed}
theta = base ** (-np.arange(0, d_model, 2) / d_model)  # theta_i = base^(-2i/d_model)

rng = np.random.default_rng(seed)
q = rng.standard_normal(d_model)  # the query, drawn first
k = rng.standard_normal(d_model)  # the key, drawn second


{rotate}


q_rot = rotate(q, pos)  # the query at position pos
k_rot = rotate(k, pos + offset)  # the key at position pos + offset
score = q_rot @ k_rot  # depends on offset only, not on pos
positions = np.arange(n_positions)
scores = rotate(q, positions) @ rotate(k, positions).T  # scores[m, n]: query m, key n
print(score, scores.shape)
"""


def _alibi_snippet(n_heads, n_positions, pos, offset) -> str:
    return f"""import math

import numpy as np

n_heads, n_positions = {n_heads}, {n_positions}
pos, offset = {pos}, {offset}


def get_slopes(n):
    \"\"\"The head slopes, as in Press et al.'s reference code (attention_with_linear_biases).\"\"\"

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


slopes = np.array(get_slopes(n_heads))
positions = np.arange(n_positions)
distance = np.abs(positions[:, None] - positions[None, :])  # |i - j|, query i, key j
bias = -slopes[:, None, None] * distance  # bias[h]: added to head h's scores
causal = positions[None, :] <= positions[:, None]  # a decoder's query i sees keys j <= i
offset_bias = -slopes * abs(offset)  # per head, for the key at pos + offset
print(slopes, bias.shape, offset_bias)
"""


def _nope_snippet(d_model, pos, offset, seed, tokens) -> str:
    return f"""import hashlib

import numpy as np

d_model, seed = {d_model}, {seed}
pos, offset = {pos}, {offset}

rng = np.random.default_rng(seed)
q = rng.standard_normal(d_model)  # the query, drawn first
k = rng.standard_normal(d_model)  # the key, drawn second


def encode(x, position):
    \"\"\"NoPE: nothing is added or rotated in for the position; x is returned as it is.\"\"\"
    return x


score = encode(q, pos) @ encode(k, pos + offset)  # query at pos, key at pos + offset
score_at_start = encode(q, 0) @ encode(k, 0)  # the same two vectors, both at position 0
position_score = score - score_at_start  # 0.0: the score does not depend on position

words = {tokens!r}


def token_embedding(token):
    \"\"\"A stand-in embedding: N(0, 1/d_model) numbers seeded by the word's SHA-256.\"\"\"
    digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return rng.normal(0.0, 1.0 / np.sqrt(d_model), d_model)


def score_matrix(words):
    \"\"\"E E^T / sqrt(d_model) with no position: each distinct word's scores computed once.\"\"\"
    distinct = sorted(set(words))
    embeddings = np.stack([token_embedding(word) for word in distinct])
    table = embeddings @ embeddings.T / np.sqrt(d_model)
    index = [distinct.index(word) for word in words]
    return table[np.ix_(index, index)]


if words:
    order = np.arange(len(words))[::-1]  # the sentence reversed
    scores = score_matrix(words)
    reordered_scores = score_matrix([words[i] for i in order])
    # True: reordering the words only reorders the rows and columns (P S P^T), bit for bit.
    only_reordered = np.array_equal(reordered_scores, scores[np.ix_(order, order)])
    print(score, position_score, only_reordered)
"""


# ---- The code view's reference implementation ---------------------------------------------------


def slice_code(columns: slice, d_model: int) -> str:
    """A column slice of encoding.pair_columns as the code writes it: 0::2, 1::2, :d_model // 2
    or d_model // 2: (the middle column named, as the concatenated layout's code names it)."""
    half = d_model // 2

    def bound(value: int | None, default: int | None) -> str:
        if value is None or (columns.step is None and value == default):
            return ""
        return "d_model // 2" if columns.step is None and value == half else str(value)

    text = f"{bound(columns.start, 0)}:{bound(columns.stop, None)}"
    return text + (f":{columns.step}" if columns.step is not None else "")


def reference_lines(
    n_positions: int, d_model: int, base: float, layout: str, seq_len: int
) -> list[str]:
    """The PyTorch tutorial's PositionalEncoding in NumPy, a line each, with these sizes and
    base, the layout's slicing, and seq_len the length of the sequences the last line adds pe to."""
    sines, cosines = (slice_code(s, d_model) for s in pair_columns(d_model, layout))
    return [
        f"max_len, d_model, base = {n_positions}, {d_model}, {float(base)!r}",
        "position = np.arange(max_len)[:, np.newaxis]",
        "div_term = np.exp(np.arange(0, d_model, 2) * (-np.log(base) / d_model))",
        "pe = np.zeros((max_len, d_model))",
        f"pe[:, {sines}] = np.sin(position * div_term)",
        f"pe[:, {cosines}] = np.cos(position * div_term)",
        f"seq_len = x.shape[1]  # {seq_len}: the words of the sentence",
        "x = x + pe[:seq_len]",
    ]


# ---- The RoPE config checker's script ------------------------------------------------------------


def exact(values) -> str:
    """Numbers as Python reads them back exactly."""
    return ", ".join(repr(float(value)) for value in np.asarray(values, dtype=np.float64))


# ---- The rope types' own functions (rope_types.py), as the scripts show them --------------------


def rope_type_source(*kinds: str) -> str:
    """The functions of rope_types.py that compute these rope types (keys of its
    ROPE_INIT_FUNCTIONS) in their own text, with the functions they call, in the module's order."""
    from .rope_types_source import CALLS, SOURCES

    names = {ROPE_INIT_FUNCTIONS[kind].__name__ for kind in kinds}
    names |= {called for name in names for called in CALLS[name]}
    return "\n\n".join(SOURCES[name] for name in SOURCES if name in names)


def rope_literal(rope: dict) -> str:
    """Rope parameters as Python reads them back exactly; an array (LongRoPE's per-pair factors,
    defined before as `factors`) by that name."""
    return (
        "{"
        + ", ".join(
            f"{key!r}: {'factors' if isinstance(value, np.ndarray) else repr(value)}"
            for key, value in rope.items()
        )
        + "}"
    )


def scaling_lines(method: str, arguments: tuple, params: dict, names: tuple) -> list[str]:
    """A scaling method's lines: `rope`, its rope parameters, its rope type's function from
    rope_types.py (its own text) and the line that calls it. arguments: the method's d_head,
    base, factor and original context; names: the script's names of the call's results and of
    d_head, base and the original context."""
    kind, rope, _, _, original, top = rope_type_call(method, *arguments, **params)
    results, dim, base, context = names
    arrays = [value for value in rope.values() if isinstance(value, np.ndarray)]
    factors = [f"factors = np.array([{exact(arrays[0])}])  # one per pair"] if arrays else []
    length = context if top == original else str(top)
    function = ROPE_INIT_FUNCTIONS[kind].__name__
    return [
        *factors,
        f"rope = {rope_literal(rope)}  # as config.json names them",
        "",
        "",
        *rope_type_source(kind).splitlines(),
        "",
        "",
        f"{results} = {function}(rope, {dim}, {base}, {context}, {length})",
    ]


def rope_check_program(
    config_text: str,
    arguments: tuple[str, int, float, float, int],
    params: dict,
    theirs: np.ndarray | None = None,
) -> str:
    """A script that computes the expected inv_freq of a scaled RoPE config from the published
    formulas and compares an array with it: theirs, or a line for the reader to replace.

    arguments are the method, d_head, base, factor s and trained context L; config_text says
    them in words; an array differs where its relative error passes diagnose_rope's tolerance.
    """
    method, d_head, base, factor, original_context = arguments
    lines = [
        "import math",
        "",
        "import numpy as np",
        "",
        f"# The expected inv_freq: {config_text}.",
        f"d_head, base, factor, L = {d_head}, {base!r}, {factor!r}, {original_context}",
        *scaling_lines(
            method,
            (d_head, base, factor, original_context),
            params,
            ("expected, attention_factor", "d_head", "base", "L"),
        ),
        "",
    ]
    if theirs is None:
        lines += [
            "# Yours: replace this line with np.load('inv_freq.npy') or your pasted numbers.",
            "theirs = expected.copy()",
        ]
    else:
        lines.append(f"theirs = np.array([{exact(theirs)}])")
    lines += [
        "if theirs.size == d_head:  # one per dimension: interleaved or half-split pairs",
        "    interleaved = np.allclose(theirs[0::2], theirs[1::2], rtol=1e-5, atol=0)",
        "    theirs = theirs[0::2] if interleaved else theirs[: d_head // 2]",
        "relative_error = np.abs(theirs - expected) / np.abs(expected)",
        f"differs = np.flatnonzero(relative_error > {RELATIVE_TOLERANCE!r})",
        'print("expected:", expected)',
        'print("max relative error:", relative_error.max(), "at pair", relative_error.argmax())',
        'print("matches" if differs.size == 0 else f"differs in pairs {differs.tolist()}")',
    ]
    return "\n".join(lines) + "\n"

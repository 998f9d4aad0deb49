"""simulate(mistake, model, …): one mistake on one rotating layer (of a model read by read_model,
a preset's name, or plain RoPE), its arrays and one sentence of damage in numbers."""

from __future__ import annotations

import numpy as np

from . import conversion
from . import positions as numbering
from . import precision as low
from .conversion import as_pairs
from .scores import (
    grid,
    scores_at,
    scores_from_angles,
    unit_pairs,
    worst_at,
    worst_per_column,
    wrapped,
)
from .types import CONTEXTS, MAX_CONTEXT, Rotary, Simulation

DEFAULT = Rotary(
    inv_freq=1.0 / 10000.0 ** (np.arange(0, 128, 2) / 128),
    theta=10000.0,
    label="RoPE θ 10000, head 128",
)


def rotary_of(model=None, layer: int | None = None) -> Rotary:
    """The rotating layer a mistake runs on: a Rotary as given; plain RoPE (θ 10 000, head
    128, 4k) for None; else a model (what read_model returns, or a name or path it reads), its
    layer `layer` or its first rotating one."""
    if model is None or isinstance(model, Rotary):
        return model or DEFAULT
    if isinstance(model, str):
        from ..model.reader import read_model

        model = read_model(model)
    rotating = [each for each in model.layers if each.rotates and each.inv_freq is not None]
    if not rotating:
        raise ValueError(f"{model.name} has no layer that rotates (RoPE): nothing to simulate")
    chosen = rotating[0] if layer is None else model.layers[layer]
    if not chosen.rotates:
        raise ValueError(f"layer {layer} of {model.name} does not rotate (RoPE)")
    top = model.max_context or model.original_context or 4096
    return Rotary(
        inv_freq=np.asarray(chosen.inv_freq, dtype=np.float64),
        theta=float(chosen.theta),
        attention_factor=float(chosen.attention_factor),
        scaling=dict(chosen.scaling),
        original_context=int(model.original_context or top),
        max_context=int(top),
        label=f"{model.name} {chosen.label} (θ {chosen.theta:g}, rotary {chosen.rotary_dim})",
    )


def context(at, rotary: Rotary) -> int:
    """The query's position: "4k", "32k", "128k", a number, or the layer's maximum context."""
    value = rotary.max_context if at is None else CONTEXTS.get(at, at)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"at must be 4k, 32k, 128k or a whole number, got {at!r}")
    if not 1 <= value <= MAX_CONTEXT:
        raise ValueError(f"at must be 1 … {MAX_CONTEXT:,}, got {value:,}")
    return int(value)


def distance_scores(rotary, at, inv_freq_wrong=None, factor_wrong=None, distances=None):
    """q·k at distances 0 … at (query at `at`), with the layer's frequencies and attention
    factor, and with the mistaken ones: (distances, right, wrong, worst error per distance)."""
    distances = grid(at) if distances is None else distances
    q, k = unit_pairs(rotary.inv_freq.size)
    query, keys = np.full(distances.shape, at), at - distances
    right = rotary.attention_factor**2 * scores_at(
        q, k, rotary.inv_freq, rotary.inv_freq, query, keys
    )
    inv_freq = rotary.inv_freq if inv_freq_wrong is None else inv_freq_wrong
    factor = rotary.attention_factor if factor_wrong is None else factor_wrong
    wrong = factor**2 * scores_at(q, k, inv_freq, inv_freq, query, keys)
    return distances, right, wrong, worst_per_column(wrong - right)


def at_distances(at: int, distances=None) -> np.ndarray:
    """Where scores are compared: the distances given (whole numbers), else grid(at)."""
    return grid(at) if distances is None else np.asarray(distances, dtype=np.int64)


def result(mistake, label, told, scored, summary, settings, error=None, **angles) -> Simulation:
    """A Simulation from told = (x, x_name, quantity, right, wrong) and scored = (distances,
    right, wrong, error); the told error is |wrong - right| (worst over rows) unless given."""
    x, x_name, quantity, right, wrong = told
    if error is None:
        difference = np.abs(np.asarray(wrong, dtype=np.float64) - right)
        error = difference if difference.ndim == 1 else worst_per_column(difference)
    return Simulation(mistake, np.asarray(x), x_name, quantity, np.asarray(right),
                      np.asarray(wrong), error, *scored, summary=f"{label}: {summary}",
                      settings=settings, **angles)  # fmt: skip


def low_precision(rotary, at, positions=None, precision="bf16", place="product",
                  distances=None) -> Simulation:  # fmt: skip
    """RoPE's angles in bf16 or fp16 (at the product, the positions or the cos/sin cache)."""
    positions = grid(at) if positions is None else np.asarray(positions, dtype=np.int64)
    angle_error = low.angle_errors(positions, rotary.inv_freq, precision, place)
    per_position = worst_per_column(angle_error.T)
    distances = at_distances(at, distances)
    q, k = unit_pairs(rotary.inv_freq.size)
    right, wrong, score_error = low.low_precision_scores(
        q, k, rotary.inv_freq, at, distances, precision, place
    )
    a2 = rotary.attention_factor**2
    scored = (distances, a2 * right, a2 * wrong, a2 * score_error)
    exact = low.exact_angles(positions, rotary.inv_freq)
    told = (positions, "position", "angle (rad)", exact, exact + angle_error)
    worst, where = worst_at(per_position, positions)
    worst_score, far = worst_at(scored[3], distances)
    overflow = int(np.isnan(per_position).sum())
    lost = int((~(np.abs(angle_error[-1]) <= 0.1)).sum())  # NaN (overflowed) counts as lost
    scores = (
        f"the worst score error of unit q and k is {worst_score:.3g} (Δ {far:,}, query at {at:,})"
        if far is not None
        else f"every score overflows (the query's position {at:,} is past {precision}'s range)"
    )
    summary = (
        f"{precision} {PLACE_WORDS[place]}: the worst angle error is {worst:.3g} rad (at position "
        f"{where:,}); {scores}; at position {positions[-1]:,}, {lost} of {rotary.inv_freq.size} "
        f"pairs are off by more than 0.1 rad"
        + (
            f"; {overflow} of {positions.size} positions overflow {precision} (inf)"
            if overflow
            else ""
        )
    )
    settings = {"precision": precision, "place": place, "at": at}
    return result("low_precision", rotary.label, told, scored, summary, settings,
                  error=per_position, positions=positions, angle_error=angle_error)  # fmt: skip


PLACE_WORDS = {
    "product": "position × inv_freq",
    "positions": "positions held",
    "cache": "cos and sin cached",
}


def relative_scores(rotary, query_right, query_wrong, distances):
    """q·k with the query (and each key, Δ before it) at two numberings: a shift of both."""
    q, k = unit_pairs(rotary.inv_freq.size)
    a2 = rotary.attention_factor**2
    inv, ones = rotary.inv_freq, np.ones(distances.shape)
    right = a2 * scores_at(q, k, inv, inv, ones * query_right, query_right - distances)
    wrong = a2 * scores_at(q, k, inv, inv, ones * query_wrong, query_wrong - distances)
    return distances, right, wrong, worst_per_column(wrong - right)


def checked_lengths(lengths, what: str) -> np.ndarray:
    """The lengths of rows or documents as whole numbers >= 1, or a ValueError saying so."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"the {what}' lengths must be one or more whole numbers, got {lengths}")
    if (lengths < 1).any():
        raise ValueError(f"each of the {what}' lengths must be at least 1, got {lengths.tolist()}")
    return lengths.astype(np.int64)


def left_padding(rotary, at, positions=None, lengths=(3, 7, 10)) -> Simulation:
    """A left-padded batch numbered by arange instead of from its attention mask."""
    lengths = checked_lengths(lengths, "rows")
    mask = numbering.left_padding_mask(lengths)
    right = numbering.position_ids_from_mask(mask)
    wrong = numbering.position_ids_from_arange(mask)
    row = int(np.argmin(lengths))
    pads, real = mask.shape[1] - int(lengths[row]), int(lengths[row])
    scored = relative_scores(rotary, real - 1, pads + real - 1, grid(real - 1))
    columns = grid(mask.shape[1] - 1)
    told = (columns, "column", "position id", right[:, columns], wrong[:, columns])
    summary = (
        f"row {row} ({real} tokens after {pads} pads) is told positions {pads} … {pads + real - 1} "
        f"instead of 0 … {real - 1}; RoPE scores between its tokens move by at most "
        f"{scored[3].max():.1e} (a shift cancels in q·k), but a learned or sinusoidal table is "
        f"read {pads} rows off"
    )
    return result(
        "left_padding", rotary.label, told, scored, summary, {"lengths": lengths.tolist()}
    )


def cache_window(rotary, at, positions=None, window=1024, sinks=4) -> Simulation:
    """A cache that evicts (keeping `sinks` first keys and a `window` of recent ones) and
    numbers the new query by its slot, the kept keys not turned again."""
    if window < 1 or sinks < 0:
        raise ValueError(
            f"the window must be at least 1 and sinks at least 0, got {window}, {sinks}"
        )
    if at < sinks + window:
        raise ValueError(
            f"at ({at:,}) must be at least sinks + window ({sinks + window:,}): choose a smaller "
            "window, fewer sinks or a later query p"
        )
    kept, slots = numbering.window_cache(at, window, sinks)
    true, seen = numbering.slot_distances(at, window, sinks)
    # At most GRID kept keys scored, the first sink and the query's own among them.
    sample = grid(kept.size - 1)
    kept, true, seen = kept[sample], true[sample], seen[sample]
    q, k = unit_pairs(rotary.inv_freq.size)
    a2 = rotary.attention_factor**2
    inv = rotary.inv_freq
    right = a2 * scores_at(q, k, inv, inv, np.full(kept.shape, at), kept)
    wrong = a2 * scores_at(q, k, inv, inv, np.full(kept.shape, slots[-1]), kept)
    scored = (true, right, wrong, worst_per_column(wrong - right))
    worst_score, far = worst_at(scored[3], true)
    summary = (
        f"{sinks} sinks and a window of {window:,}: the query at {at:,} is numbered "
        f"{slots[-1]:,}, so its newest key is seen at distance {seen[-1]:,} (true {true[-1]:,}) "
        f"and the first sink at {seen[0]:,} (true {true[0]:,}); the worst score error is "
        f"{worst_score:.3g} (true Δ {far:,})"
    )
    told = (true, "true distance", "distance seen", true, seen)
    settings = {"window": window, "sinks": sinks, "at": at}
    return result("cache_window", rotary.label, told, scored, summary, settings)


def dynamic_factor(rotary: Rotary, factor) -> float:
    """Dynamic NTK's s: as given, else the layer's own, else 2."""
    if factor is not None:
        return float(factor)
    own = rotary.scaling.get("factor") if rotary.scaling.get("type") == "dynamic" else None
    return float(own or 2.0)


def dynamic_ntk_cache(rotary, at, positions=None, factor=None, prefill=None) -> Simulation:
    """Dynamic NTK recomputed as the sequence grows to `at`, while each cached key keeps the
    frequencies of the length it was written at (transformers' dynamic_rope_update with a
    cache), against every key turned with the frequencies of `at` (the same run without one)."""
    original, dim = rotary.original_context, rotary.rotary_dim
    factor = dynamic_factor(rotary, factor)
    if prefill is not None and not 1 <= prefill <= at:
        raise ValueError(
            f"the prompt's length (prefill) must be 1 … the query's position p ({at:,}), got "
            f"{prefill:,}: choose a shorter prompt or a later query p"
        )
    prefill = original if prefill is None else int(prefill)
    keys = grid(at - 1) if positions is None else np.asarray(positions, dtype=np.int64)
    now = numbering.dynamic_frequencies(rotary.theta, dim, factor, original, [at])[0]
    right_angles = keys[:, None] * now
    wrong_angles = numbering.dynamic_cache_angles(
        keys, rotary.theta, dim, factor, original, prefill
    )
    q, k = unit_pairs(now.size)
    query = np.full((keys.size, now.size), (at - 1) * now)
    right = scores_from_angles(q, k, query, right_angles)
    wrong = scores_from_angles(q, k, query, wrong_angles)
    distances = at - 1 - keys
    scored = (distances, right, wrong, worst_per_column(wrong - right))
    seen = distances + (right_angles[:, -1] - wrong_angles[:, -1]) / now[-1]
    told = (distances, "true distance", "distance seen by the slowest pair", distances, seen)
    worst_score, far = worst_at(scored[3], distances)
    misread = int(np.argmax(np.abs(seen - distances)))
    summary = (
        f"dynamic NTK ×{factor:g} recomputed up to {at:,} while the {prefill:,} prompt keys keep "
        f"the frequencies of length {max(prefill, original):,}: the slowest pair sees the key at "
        f"{keys[misread]:,} at distance {seen[misread]:,.0f} instead of {distances[misread]:,}; "
        f"the worst score error is {worst_score:.3g} (Δ {far:,})"
    )
    settings = {"factor": factor, "prefill": prefill, "at": at}
    return result("dynamic_ntk_cache", rotary.label, told, scored, summary, settings,
                  positions=keys, angle_error=wrapped(wrong_angles - right_angles))  # fmt: skip


def positions_from_1(rotary, at, positions=None, distances=None) -> Simulation:
    """Every position counted from 1 instead of 0."""
    numbered = grid(at)
    scored = relative_scores(rotary, at, at + 1, at_distances(at, distances))
    told = (numbered, "token", "position", numbered, numbered + 1)
    summary = (
        f"every position one too high: RoPE scores move by at most {scored[3].max():.1e} (a "
        f"shift cancels in q·k; float64 rounding only), but a learned or sinusoidal table is read "
        f"one row off and the token at {at:,} is told {at + 1:,}"
        + (
            f", past the {rotary.max_context:,} the model has"
            if at + 1 >= rotary.max_context
            else ""
        )
    )
    return result("positions_from_1", rotary.label, told, scored, summary, {"at": at})


def packed_documents(rotary, at, positions=None, lengths=(512, 1024, 2048, 512)) -> Simulation:
    """Documents packed in one row whose positions are not reset at each document."""
    lengths = checked_lengths(lengths, "documents")
    right = numbering.packed_position_ids(lengths)
    wrong = numbering.continued_position_ids(lengths)
    last, start = int(lengths[-1]), int(lengths[:-1].sum())
    scored = relative_scores(rotary, last - 1, start + last - 1, grid(last - 1))
    past = int((wrong >= rotary.original_context).sum())
    summary = (
        f"the last of {lengths.size} documents is told positions {start:,} … {start + last - 1:,} "
        f"instead of 0 … {last - 1:,}; {past:,} tokens sit past the {rotary.original_context:,} "
        f"trained; RoPE scores inside a document move by at most {scored[3].max():.1e}, a learned "
        f"or sinusoidal table is read {start:,} rows off"
    )
    tokens = grid(wrong.size - 1)
    told = (tokens, "token", "position", right[tokens], wrong[tokens])
    return result(
        "packed_documents", rotary.label, told, scored, summary, {"lengths": lengths.tolist()}
    )


def pairing_swapped(rotary, at, positions=None, distances=None) -> Simulation:
    """Meta's interleaved q and k (the conversion's permute forgotten) turned by a half-split
    engine: each component paired with the wrong partner, at the wrong frequency."""
    inv = rotary.inv_freq
    q, k = unit_pairs(inv.size)
    flat_q, flat_k = q.reshape(q.shape[0], -1), k.reshape(k.shape[0], -1)
    distances = at_distances(at, distances)
    query, keys = np.full(distances.shape, at), at - distances
    a2 = rotary.attention_factor**2
    right, wrong = (
        a2 * scores_at(as_pairs(flat_q, layout), as_pairs(flat_k, layout), inv, inv, query, keys)
        for layout in conversion.LAYOUTS
    )
    scored = (distances, right, wrong, worst_per_column(wrong - right))
    component = np.arange(2 * inv.size)
    told = (component, "component", "frequency (rad per position)",
            conversion.component_frequencies(inv, "interleaved"),
            conversion.component_frequencies(inv, "half-split"))  # fmt: skip
    worst_score, far = worst_at(scored[3], distances)
    summary = (
        f"interleaved weights turned as half-split pairs: component 1 is paired with component "
        f"{inv.size + 1} instead of 0 and turns at {inv[1]:.3g} rad per position instead of "
        f"{inv[0]:.3g}; the worst "
        f"score error of unit q and k is {worst_score:.3g} (Δ {far:,}); at Δ 0 it is "
        f"{scored[3][0]:.1e}"
    )
    return result("pairing_swapped", rotary.label, told, scored, summary, {"at": at})


def frequency_mistake(mistake, rotary, at, positions, inv_wrong, factor_wrong, words, settings,
                      distances=None):  # fmt: skip
    """A mistake that changes the frequencies (and the attention factor): its arrays."""
    positions = grid(at) if positions is None else np.asarray(positions, dtype=np.int64)
    scored = distance_scores(rotary, at, inv_wrong, factor_wrong, at_distances(at, distances))
    angle_error = wrapped(np.outer(positions, inv_wrong - rotary.inv_freq))
    told = (np.arange(rotary.inv_freq.size), "pair", "inv_freq", rotary.inv_freq, inv_wrong)
    worst_score, far = worst_at(scored[3], scored[0])
    summary = f"{words}; the worst score error of unit q and k is {worst_score:.3g} (Δ {far:,})"
    return result(mistake, rotary.label, told, scored, summary, settings,
                  positions=positions, angle_error=angle_error)  # fmt: skip


def wrong_theta(rotary, at, positions=None, theta=None, distances=None) -> Simulation:
    """The wrong θ (rope_theta): 10 000 for a model trained at another, else 500 000."""
    theta = float(theta if theta is not None else (10000.0 if rotary.theta != 10000.0 else 5e5))
    if not theta > 1.0:
        raise ValueError(f"θ must be more than 1, got {theta:g}")
    inv_wrong = conversion.theta_frequencies(rotary.inv_freq, rotary.theta, theta)
    words = (
        f"θ {theta:g} instead of {rotary.theta:g}: the slowest pair's wavelength is "
        f"{2 * np.pi / inv_wrong[-1]:,.0f} positions instead of "
        f"{2 * np.pi / rotary.inv_freq[-1]:,.0f}"
    )
    return frequency_mistake("wrong_theta", rotary, at, positions, inv_wrong, None, words,
                             {"theta": theta, "at": at}, distances)  # fmt: skip


def scaling(rotary, at, positions=None, how="dropped", distances=None) -> Simulation:
    """The layer's long-context scaling dropped, or applied twice (its attention factor too)."""
    kind = rotary.scaling.get("type", "default")
    if kind == "default":
        raise ValueError(f"{rotary.label} has no RoPE scaling to drop or apply twice")
    a = rotary.attention_factor
    inv_wrong, a_wrong = conversion.scaling_frequencies(rotary.inv_freq, rotary.theta, a, how)
    factor_words = (
        f"attention factor {a_wrong:.4f} instead of {a:.4f} (logits ×{a_wrong**2 / a**2:.3f}); "
        if a_wrong != a
        else ""
    )
    words = (
        f"{kind} scaling {'applied twice' if how == 'twice' else how}: {factor_words}the slowest "
        f"pair turns at {inv_wrong[-1]:.3g} instead of {rotary.inv_freq[-1]:.3g} rad per position"
    )
    return frequency_mistake("scaling", rotary, at, positions, inv_wrong, a_wrong, words,
                             {"how": how, "at": at}, distances)  # fmt: skip


def alibi_slopes(rotary, at, positions=None, heads=12, as_heads=16, distances=None) -> Simulation:
    """ALiBi's slopes for `heads` heads taken from the list for `as_heads`."""
    if not 1 <= heads <= as_heads:
        raise ValueError(
            f"the slopes must be computed for at least the {heads} heads the model has (1 or "
            f"more), got {as_heads}: the list for {as_heads} heads has too few slopes"
        )
    right = conversion.right_slopes(heads)
    wrong = conversion.slopes_as_for(heads, as_heads)
    distances = at_distances(at, distances)
    bias_right, bias_wrong = -np.outer(right, distances), -np.outer(wrong, distances)
    scored = (distances, bias_right, bias_wrong, worst_per_column(bias_wrong - bias_right))
    head = int(np.argmax(np.abs(wrong - right)))
    summary = (
        f"{heads} heads given the first {heads} slopes of {as_heads}: head {head + 1} has "
        f"{wrong[head]:.4g} instead of {right[head]:.4g}; at distance {distances[-1]:,} a bias "
        f"differs by up to {scored[3][-1]:.4g}"
    )
    told = (np.arange(1, heads + 1), "head", "slope", right, wrong)
    settings = {"heads": heads, "as_heads": as_heads, "at": at}
    return result("alibi_slopes", f"ALiBi, {heads} heads", told, scored, summary, settings)


# The mistakes scored against the key's distance Δ from the query: simulate's `distances` says
# which Δ (the others score the distances their cache, rows or documents make).
BY_DISTANCE = ("low_precision", "positions_from_1", "pairing_swapped", "wrong_theta", "scaling",
               "alibi_slopes")  # fmt: skip
# The mistakes that turn angles otherwise than the layer: their Simulation has an angle_error.
TURNED = ("low_precision", "dynamic_ntk_cache", "wrong_theta", "scaling")
MISTAKES = {
    "low_precision": low_precision,
    "left_padding": left_padding,
    "cache_window": cache_window,
    "dynamic_ntk_cache": dynamic_ntk_cache,
    "positions_from_1": positions_from_1,
    "packed_documents": packed_documents,
    "pairing_swapped": pairing_swapped,
    "wrong_theta": wrong_theta,
    "scaling": scaling,
    "alibi_slopes": alibi_slopes,
}


def simulate(mistake: str, model=None, positions=None, *, at=None, layer=None, distances=None,
             **settings):  # fmt: skip
    """One mistake simulated on a model's rotating layer, against the exact float64 computation.

    mistake    one of MISTAKES (low_precision, left_padding, cache_window, dynamic_ntk_cache,
               positions_from_1, packed_documents, pairing_swapped, wrong_theta, scaling,
               alibi_slopes)
    model      what read_model returns, a name it reads (a preset: "llama-3.1-8b"), or None
               (RoPE θ 10 000, head 128, 4k)
    positions  where angles are compared (default: 2,039 whole numbers from 0 to `at`)
    at         the query's position: "4k", "32k", "128k" or a number (default: the model's
               maximum context)
    layer      the index of the layer (default: the first that rotates)
    distances  where scores are compared, the key's distance Δ from the query (default: 2,039
               whole numbers from 0 to `at`); only for the mistakes of BY_DISTANCE
    settings   the mistake's own: precision="bf16"|"fp16" and place="product"|"positions"|
               "cache"; lengths=(…); window=, sinks=; factor=, prefill=; theta=;
               how="dropped"|"twice"; heads=, as_heads=

    Returns a Simulation (types.py): the right and mistaken arrays, the errors, one sentence.
    """
    run = MISTAKES.get(mistake)
    if run is None:
        raise ValueError(f"mistake must be one of {', '.join(MISTAKES)}, got {mistake!r}")
    if distances is not None:
        if mistake not in BY_DISTANCE:
            raise ValueError(
                f"{mistake} scores the distances its own numbering makes: no distances"
            )
        settings["distances"] = distances
    rotary = rotary_of(model, layer)
    top = context(at, rotary)
    if mistake == "dynamic_ntk_cache" and at is None:
        top = max(top, 2 * rotary.original_context)
    return run(rotary, top, positions, **settings)

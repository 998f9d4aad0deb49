"""Positions numbered wrong: left padding read from `arange`, a cache whose slots are taken for
positions, dynamic NTK recomputed while cached keys keep the earlier frequencies, positions from
1, packed documents not reset. Each returns what the model is told against the truth."""

from __future__ import annotations

import numpy as np

from ..rope_types import dynamic


def left_padding_mask(lengths) -> np.ndarray:
    """The attention mask of a left-padded batch: one row per length, 1 for a real token, 0 for
    a pad before it, as wide as the longest."""
    lengths = np.asarray(lengths, dtype=np.int64)
    width = int(lengths.max())
    return (np.arange(width)[None, :] >= (width - lengths)[:, None]).astype(np.int64)


def position_ids_from_mask(mask) -> np.ndarray:
    """Positions counted over real tokens only, pads at 0, as transformers 5.23.0 builds them in
    generate (generation/utils.py, GenerationMixin._prepare_position_ids_for_generation, lines
    906-908: `attention_mask.long().cumsum(-1) - 1`, then `masked_fill(attention_mask == 0, 0)`;
    earlier versions filled 1)."""
    mask = np.asarray(mask, dtype=np.int64)
    return np.where(mask == 0, 0, np.cumsum(mask, axis=-1) - 1)


def position_ids_from_arange(mask) -> np.ndarray:
    """The mistake: positions 0 … width-1 for every row, pads counted."""
    mask = np.asarray(mask)
    return np.broadcast_to(np.arange(mask.shape[-1]), mask.shape).copy()


def window_cache(at: int, window: int, sinks: int) -> tuple[np.ndarray, np.ndarray]:
    """The keys a cache keeps when the query is at position `at`: the first `sinks` and the last
    `window` (the query's own among them). Returns their positions and their slots 0, 1 …"""
    recent = np.arange(max(at - window + 1, sinks), at + 1)
    kept = np.concatenate((np.arange(min(sinks, at + 1)), recent))
    return kept, np.arange(kept.size)


def slot_distances(at: int, window: int, sinks: int) -> tuple[np.ndarray, np.ndarray]:
    """Each kept key's true distance to the query, and the distance the scores see when the
    query is numbered by its slot but the kept keys keep the rotation of their first position."""
    kept, slots = window_cache(at, window, sinks)
    return at - kept, slots[-1] - kept


def dynamic_lengths(positions, prefill: int, original: int) -> np.ndarray:
    """The sequence length each key's frequencies were computed at, as transformers' dynamic
    rotary (modeling_rope_utils.dynamic_rope_update) runs with a cache: the prompt's keys at
    max(prefill, original), each later key at max(its position + 1, original)."""
    positions = np.asarray(positions, dtype=np.int64)
    return np.where(
        positions < prefill, max(prefill, original), np.maximum(positions + 1, original)
    )


def dynamic_frequencies(
    theta: float, dim: int, factor: float, original: int, lengths
) -> np.ndarray:
    """Dynamic NTK's inv_freq at each length: (lengths, dim / 2)."""
    rope = {"factor": factor}
    return np.stack(
        [dynamic(rope, dim, theta, original, int(n))[0] for n in np.atleast_1d(lengths)]
    )


def dynamic_cache_angles(positions, theta, dim, factor, original, prefill) -> np.ndarray:
    """The angles each cached key was turned by: its position times the frequencies of the
    length it was written at ((positions, dim / 2))."""
    lengths = dynamic_lengths(positions, prefill, original)
    unique, index = np.unique(lengths, return_inverse=True)
    inv_freq = dynamic_frequencies(theta, dim, factor, original, unique)[index]
    return np.asarray(positions, dtype=np.float64)[:, None] * inv_freq


def packed_position_ids(lengths) -> np.ndarray:
    """Positions of documents packed into one row, each document starting again at 0."""
    return np.concatenate([np.arange(int(n)) for n in lengths])


def continued_position_ids(lengths) -> np.ndarray:
    """The mistake: positions run on across the documents of a pack."""
    return np.arange(int(np.sum(lengths)))

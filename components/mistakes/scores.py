"""The float64 reference every mistake is measured against: random unit queries and keys, their
rotation by per-pair angles, and the q·k of the rotated pair.

A vector of the rotary part is held as (samples, pairs, 2): pair i's two components, whatever
layout the engine stores them in (the layout is a mistake of its own: conversion.py)."""

from __future__ import annotations

import numpy as np

from .types import SAMPLES, SEED

# Positions or distances sampled between 0 and the context: a prime count, so that a context of
# 2 ** n is not sampled at multiples of a power of two only (which every format holds exactly).
GRID = 2039


def unit_pairs(n_pairs: int, samples: int = SAMPLES, seed: int = SEED):
    """`samples` random unit queries and keys of 2·n_pairs numbers, as (samples, n_pairs, 2)
    each: drawn as q then k from N(0, 1) with np.random.default_rng(seed), then normalised."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((samples, 2 * n_pairs))
    k = rng.standard_normal((samples, 2 * n_pairs))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    return q.reshape(samples, n_pairs, 2), k.reshape(samples, n_pairs, 2)


def turn(vectors: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Each pair (a, b) turned to (a cos - b sin, a sin + b cos): vectors (samples, pairs, 2),
    cos and sin (..., pairs) give (..., samples, pairs, 2)."""
    cos, sin = cos[..., None, :], sin[..., None, :]
    a, b = vectors[..., 0], vectors[..., 1]
    return np.stack((a * cos - b * sin, a * sin + b * cos), axis=-1)


def scores_from_cos_sin(q, k, cos_q, sin_q, cos_k, sin_k) -> np.ndarray:
    """q·k after q is turned by (cos_q, sin_q) and k by (cos_k, sin_k), each (n, pairs):
    (samples, n) scores. The cos and sin need not be of one angle (a rounded cache)."""
    turned_q = turn(q, cos_q, sin_q)
    turned_k = turn(k, cos_k, sin_k)
    return np.einsum("nspc,nspc->sn", turned_q, turned_k)


def scores_from_angles(q, k, angle_q, angle_k) -> np.ndarray:
    """q·k after q is turned by angle_q and k by angle_k, each (n, pairs): (samples, n)."""
    return scores_from_cos_sin(
        q, k, np.cos(angle_q), np.sin(angle_q), np.cos(angle_k), np.sin(angle_k)
    )


def wrapped(angle: np.ndarray) -> np.ndarray:
    """An angle difference brought into (-π, π]; NaN stays NaN (an overflowed angle)."""
    with np.errstate(invalid="ignore"):
        return np.pi - np.mod(np.pi - angle, 2 * np.pi)


def worst_per_column(difference: np.ndarray) -> np.ndarray:
    """The worst absolute difference over the samples (rows), NaN where every row is NaN."""
    absolute = np.abs(difference)
    with np.errstate(invalid="ignore"):
        worst = np.where(np.isnan(absolute), -np.inf, absolute).max(axis=0)
    return np.where(np.isinf(worst), np.nan, worst)


def scores_at(q, k, inv_freq_q, inv_freq_k, query_positions, key_positions) -> np.ndarray:
    """q·k of the random unit pairs, q turned at each query position by inv_freq_q and k at the
    matching key position by inv_freq_k (each (pairs,) or (n, pairs)): (samples, n)."""
    query = np.asarray(query_positions, dtype=np.float64)[:, None]
    key = np.asarray(key_positions, dtype=np.float64)[:, None]
    return scores_from_angles(q, k, query * inv_freq_q, key * inv_freq_k)


def grid(top: int, points: int = GRID) -> np.ndarray:
    """Whole numbers 0 … top, at most `points` of them, evenly spread (all when fewer)."""
    return np.unique(np.round(np.linspace(0, top, min(points, top + 1)))).astype(np.int64)


def worst_at(error: np.ndarray, x: np.ndarray) -> tuple[float, object]:
    """The largest finite |error| and the x it is at (NaN, None when none is finite)."""
    absolute = np.where(np.isfinite(error), np.abs(error), -1.0)
    index = int(np.argmax(absolute))
    return (float("nan"), None) if absolute[index] < 0 else (float(absolute[index]), x[index])

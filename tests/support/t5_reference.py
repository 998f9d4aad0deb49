"""T5's relative-position bucket written out as transformers computes it, for the tests of
pe_explorer.relative and of the T5 view: never built with the functions under test."""

from __future__ import annotations

import math

import numpy as np


def reference_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """transformers' T5Attention._relative_position_bucket for one int, in float32 scalars
    (torch's .float() log, then .to(long), which truncates toward zero)."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if relative_position > 0 else 0
        n = abs(relative_position)
    else:
        n = -min(relative_position, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    value = np.log(np.float32(n) / np.float32(max_exact))
    value = value / np.float32(math.log(max_distance / max_exact))
    value = value * np.float32(num_buckets - max_exact)
    return bucket + min(max_exact + int(value), num_buckets - 1)

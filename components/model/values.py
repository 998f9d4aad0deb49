"""A config's values, checked: JSON text to an object, numbers and whole numbers in their bounds."""

from __future__ import annotations

import json
import math
from numbers import Real

from .types import MAX_JSON_CHARS, ModelError


def parse_json(text: str) -> dict:
    """A config.json's object, or ModelError: size-capped, no NaN or infinities."""
    if len(text) > MAX_JSON_CHARS:
        raise ModelError(f"this JSON is {len(text):,} characters; a config.json is far smaller")

    def refuse(word: str):
        raise ModelError(f"this JSON holds {word}, which is not a number a config can use")

    try:
        value = json.loads(text, parse_constant=refuse)
    except ModelError:
        raise
    except (ValueError, RecursionError) as error:
        raise ModelError(f"this is not valid JSON ({str(error)[:80]})") from None
    if not isinstance(value, dict):
        raise ModelError(f"a config.json is a JSON object {{…}}, this is a {type(value).__name__}")
    return value


def number(config: dict, key: str, *, low: float = 0.0, high: float = math.inf) -> float | None:
    """config[key] as a finite number in (low, high], None when absent, else ModelError."""
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ModelError(f"{key} must be a number, got {str(value)[:40]!r}")
    if not low < value <= high:
        raise ModelError(f"{key} must be greater than {low:g} and at most {high:g}, got {value!r}")
    return float(value)


def integer(config: dict, key: str, *, high: int) -> int | None:
    """config[key] as a whole number in 1 … high, None when absent, else ModelError."""
    value = number(config, key, high=high)
    if value is None:
        return None
    if value != int(value):
        raise ModelError(f"{key} must be a whole number, got {config[key]!r}")
    return int(value)

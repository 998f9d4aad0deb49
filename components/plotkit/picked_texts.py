"""A view's texts written once, for its drawing and for its picks (plotkit/picks.py).

A text a drag of pos or k changes (a chart's name, a caption, a readout) is written by one
function of strings, its numbers already printed. The view calls it with its numbers now; its
picks call it once, with a mark in each number's place, and set each value's printed numbers
into the marks (`filled`): thousands of values cost one call and no parsing. `printed` prints
each distinct number once: along a slider many repeat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .numbers import DATA_DIGITS, numbers_of
from .picks import Text, joined

# What stands in a field's place while a text is written for its picks: no text holds it.
MARK = "\x00"
# A field of a text: its printed number, the same at every value, or one per value.
Field = str | Sequence[str] | Text


def filled(count: int, write: Callable[..., str], **fields: Field) -> Text:
    """write(**fields) at each of count values, as a Text: a field is one string for every
    value, a sequence of count strings, or a Text of count values."""
    written = write(**{name: f"{MARK}{name}{MARK}" for name in fields})
    pieces = written.split(MARK)
    items: list = [pieces[0]]
    for name, after in zip(pieces[1::2], pieces[2::2], strict=True):
        field = fields[name]
        if isinstance(field, Text):
            items.append(field.parts[0])
            for slot, part in zip(field.slots, field.parts[1:], strict=True):
                items += [slot, part]
        else:
            items.append(field)
        items.append(after)
    return joined(count, *items)


def written(write: Callable[..., str], **fields: Field) -> str:
    """write(**fields) for one value, the view's own: each field one string, a sequence of one,
    or a Text of one value."""
    return write(**{name: _one(field) for name, field in fields.items()})


def _one(field: Field) -> str:
    if isinstance(field, str):
        return field
    return field.at(0) if isinstance(field, Text) else field[0]


def _each_distinct(arrays: Sequence, print_all: Callable) -> list[list[str]]:
    """print_all of the distinct values of all arrays together, for each value of each array
    (the same bits, the same text)."""
    values = [np.ascontiguousarray(array, dtype=np.float64).ravel() for array in arrays]
    distinct, where = np.unique(np.concatenate(values).view(np.int64), return_inverse=True)
    texts = np.array(print_all(distinct.view(np.float64)), dtype=object)
    every = texts[where.ravel()].tolist()
    ends = np.cumsum([0, *(array.size for array in values)]).tolist()
    return [every[start:end] for start, end in zip(ends[:-1], ends[1:], strict=True)]


def printed_all(arrays: Sequence, digits: int = DATA_DIGITS) -> list[list[str]]:
    """Each value of each array as plotkit.numbers.number(value, digits) prints it."""
    return _each_distinct(arrays, lambda distinct: numbers_of(distinct, digits))


def printed(values, digits: int = DATA_DIGITS) -> list[str]:
    """Each value as plotkit.numbers.number(value, digits) prints it."""
    return printed_all([values], digits)[0]


def printed_near(values, references, texts: list[str], digits: int = DATA_DIGITS) -> list[str]:
    """Each value as printed() prints it, reusing the text of its reference (texts: printed()'s
    of references) where both round to the same digits: a number read off the encodings a hair
    from its formula's prints the formula's digits, without printing it again.

    Both are rounded from their product by 10^digits, which lies within an ulp of the exact
    one: away from a half by more than that, it rounds as the exact value does.
    """
    values = np.asarray(values, dtype=np.float64).ravel()
    references = np.asarray(references, dtype=np.float64).ravel()
    scaled, scaled_reference = np.abs(values) * 10.0**digits, np.abs(references) * 10.0**digits
    margin = 4 * np.spacing(np.maximum(scaled, scaled_reference))
    rounded = np.floor(scaled + 0.5)
    same = (
        (np.abs(scaled - np.floor(scaled) - 0.5) > margin)
        & (np.abs(scaled_reference - np.floor(scaled_reference) - 0.5) > margin)
        & (rounded == np.floor(scaled_reference + 0.5))
        & ((rounded == 0) | ((values < 0) == (references < 0)))
        & (scaled < 2.0**52)
    )
    out = list(texts)
    others = np.flatnonzero(~same)
    for index, text in zip(others.tolist(), printed(values[others], digits), strict=True):
        out[index] = text
    return out


def formatted(values, spec: str) -> list[str]:
    """Each value formatted with the format spec (".6f", ".1e" …), as an f-string does."""
    (texts,) = _each_distinct(
        [values], lambda distinct: [format(v, spec) for v in distinct.tolist()]
    )
    return texts


def whole(values) -> list[str]:
    """Each whole number as text."""
    return [str(value) for value in np.asarray(values, dtype=np.int64).ravel().tolist()]

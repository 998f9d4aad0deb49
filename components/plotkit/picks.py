"""What a drag of pos or k changes in a view, for every value it can take: Python computes, the
page picks.

A view's `picks(state)` returns `Picks`: the tables its pickable traces take rows from, and for
each axis (pos, offset) the updates a value of it makes, one entry per value. The page's picker
(components/js/picker.js) indexes them on every `input` event of the pos or k slider and applies
the result in the same animation frame; Python gets the value later (throttled) and draws the
same figure, name and readout, to the digit (`pick` here is the picker's rule, in Python, for
the tests). No arithmetic happens in the page: each entry is a value, a row number or text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import param
from panel.custom import JSComponent

from ..fixes.plotly_patch import same_value
from .numbers import number

# The page script that picks (installed with the browser fixes, whose view hooks it uses).
SCRIPT = Path(__file__).parents[1] / "js" / "picker.js"
AXES = ("pos", "offset")
OTHER = {"pos": "offset", "offset": "pos"}
# A view's tables hold at most this many numbers (8 bytes each); a larger one is not sent and its
# axis is drawn by Python alone, as before (a 2048 × 2048 comparison would be 32 MB).
MAX_TABLE_VALUES = 1 << 19
# Where an update goes: a trace's attribute, a layout path, the chart's accessible name, its Show
# data caption, or the HTML of one of the panes under it (by CSS class).
TARGETS = ("trace", "layout", "label", "caption", "pane")


@dataclass(frozen=True)
class Text:
    """A text whose numbers change with the value: fixed parts, and between them one slot each,
    a string per value (len(parts) == len(slots) + 1)."""

    parts: tuple[str, ...]
    slots: tuple[tuple[str, ...], ...]

    def at(self, index: int) -> str:
        """The text for the value of index index."""
        pieces = [self.parts[0]]
        for slot, part in zip(self.slots, self.parts[1:], strict=True):
            pieces += [slot[index], part]
        return "".join(pieces)

    def to_json(self) -> dict:
        return {"parts": list(self.parts), "slots": [list(slot) for slot in self.slots]}


def joined(count: int, *pieces) -> Text:
    """A Text of count values from pieces: fixed strings, and sequences of count strings (one per
    value; a sequence whose strings are all equal is a fixed string)."""
    parts, slots = [""], []
    for piece in pieces:
        if not isinstance(piece, str):
            piece = tuple(piece)
            if len(piece) != count:
                raise ValueError(f"a slot has {len(piece)} strings for {count} values")
            if len(set(piece)) > 1:
                slots.append(piece)
                parts.append("")
                continue
            piece = piece[0] if piece else ""
        parts[-1] += piece
    return Text(tuple(parts), tuple(slots))


# A text's numbers (whole or decimal, with U+2212 or "-" for minus): what changes from one value
# to the next, as a rule; the rest is its fixed parts.
NUMBER = re.compile(r"([\u2212-]?\d+(?:\.\d+)?)")


def compressed(texts: Sequence[str]) -> Text:
    """The texts (one per value) as a Text: where all of them are the same words around other
    numbers, those words are its parts and the numbers its slots; otherwise one slot holds each
    text whole."""
    split = [NUMBER.split(text) for text in texts]
    first = split[0]
    if all(len(tokens) == len(first) and tokens[::2] == first[::2] for tokens in split):
        pieces = []
        for place, word in enumerate(first):
            pieces.append(word if place % 2 == 0 else [tokens[place] for tokens in split])
        return joined(len(texts), *pieces)
    return joined(len(texts), list(texts))


def numbers(values, digits: int | None = None) -> tuple[str, ...]:
    """Each value as the page prints it (plotkit.numbers.number)."""
    if digits is None:
        return tuple(number(value) for value in values)
    return tuple(number(value, digits) for value in values)


def whole(values) -> tuple[str, ...]:
    """Each whole number as text."""
    return tuple(str(int(value)) for value in values)


@dataclass(frozen=True)
class Update:
    """One thing a value changes: at target (and path: a trace attribute, a layout path, a
    pane's CSS class), either a table's row (rows, index: the row per value), or one of each
    (a number or string per value), or a Text."""

    target: str
    path: str = ""
    trace: int = -1
    rows: str = ""
    index: np.ndarray | None = None
    each: tuple | np.ndarray | None = None
    text: Text | None = None

    def value(self, tables: dict[str, np.ndarray], index: int):
        """What this update sets for the value of index index."""
        if self.text is not None:
            return self.text.at(index)
        if self.rows:
            return tables[self.rows][int(self.index[index])]
        value = self.each[index]
        return value.item() if isinstance(value, np.generic) else value

    def to_json(self) -> dict:
        out = {"target": self.target, "path": self.path, "trace": self.trace}
        if self.text is not None:
            out["text"] = self.text.to_json()
        elif self.rows:
            out["rows"] = self.rows
            out["index"] = np.asarray(self.index, dtype=np.int32)
        elif isinstance(self.each, np.ndarray):
            out["each"] = self.each
        else:
            out["each"] = list(self.each)
        return out


@dataclass(frozen=True)
class AxisPicks:
    """What each value start … start + count − 1 of one axis shows, the other axis at `at`."""

    axis: str
    start: int
    count: int
    at: int  # the other axis's value these were computed for
    updates: tuple[Update, ...]

    def to_json(self) -> dict:
        return {
            "start": self.start,
            "count": self.count,
            "at": self.at,
            "updates": [update.to_json() for update in self.updates],
        }


@dataclass(frozen=True)
class Picks:
    """A view's picks: its tables (float64, rows picked whole) and its axes."""

    tables: dict[str, np.ndarray] = field(default_factory=dict)
    axes: tuple[AxisPicks, ...] = ()

    def axis(self, name: str) -> AxisPicks | None:
        return next((axis for axis in self.axes if axis.axis == name), None)


def fits(*tables: np.ndarray) -> bool:
    """Whether tables are small enough to send (MAX_TABLE_VALUES in all)."""
    return sum(table.size for table in tables) <= MAX_TABLE_VALUES


def pick(picks: Picks, axis: str, value: int) -> dict | None:
    """What the page shows at value of axis, as the picker applies it: {'trace': {index: {attr:
    value}}, 'layout': {path: value}, 'label': text, 'caption': text, 'pane': {class: html}};
    None when the axis has no picks or value is outside them."""
    axis_picks = picks.axis(axis)
    if axis_picks is None or not 0 <= value - axis_picks.start < axis_picks.count:
        return None
    index = value - axis_picks.start
    shown: dict = {"trace": {}, "layout": {}, "pane": {}}
    for update in axis_picks.updates:
        value_now = update.value(picks.tables, index)
        if update.target == "trace":
            shown["trace"].setdefault(update.trace, {})[update.path] = value_now
        elif update.target in ("layout", "pane"):
            shown[update.target][update.path] = value_now
        else:
            shown[update.target] = value_now
    return shown


def axis_range(start: int, stop: int) -> np.ndarray:
    """The values start … stop of an axis."""
    return np.arange(start, stop + 1)


def single(values: Sequence) -> bool:
    """Whether values hold one distinct value."""
    return len(set(values)) <= 1


@dataclass(frozen=True)
class Moved:
    """The values of one axis and, at each, the two positions the state then holds."""

    axis: str
    values: np.ndarray  # the axis's values, start … stop
    at: int  # the other axis's value
    firsts: np.ndarray  # pos at each value
    seconds: np.ndarray  # pos + k at each value

    @property
    def count(self) -> int:
        return len(self.values)

    @property
    def offsets(self) -> np.ndarray:
        """k at each value."""
        return self.seconds - self.firsts

    def picks(self, updates) -> AxisPicks:
        """These values' picks, made of updates."""
        return AxisPicks(self.axis, int(self.values[0]), self.count, self.at, tuple(updates))


def moved_positions(state) -> tuple[Moved, ...]:
    """Each axis's values as its slider offers them now, and pos and pos + k at each: moving pos
    keeps k, except where pos + k would be negative (the state raises k to −pos); moving k
    keeps pos (ExplorerState.limits)."""
    limits = state.limits()
    low, high = limits["pos"]
    positions = axis_range(low, high)
    seconds = positions + np.maximum(state.offset, -positions)
    low, high = limits["offset"]
    offsets = axis_range(low, high)
    firsts = np.full(len(offsets), state.pos)
    return (
        Moved("pos", positions, state.offset, positions, seconds),
        Moved("offset", offsets, state.pos, firsts, state.pos + offsets),
    )


class ViewPicks(JSComponent):
    """A view's picks in the page, found by the picker (SCRIPT) through `key`, which the view's
    chart carries too (NamedPlotly.pick_key). Hidden. Each axis's picks are a parameter of their
    own: a drag of pos changes the picks of k (made at each pos), and only those travel."""

    key = param.String(default="", constant=True, doc="The key the view's chart carries.")
    tables = param.Dict(default={}, doc="The tables rows are picked from (float64 arrays).")
    pos_picks = param.Dict(default={}, doc="What each value of pos shows (AxisPicks.to_json).")
    offset_picks = param.Dict(default={}, doc="What each value of k shows (AxisPicks.to_json).")
    drawn = param.Dict(default={}, doc="pos, offset and the generation Python drew them at.")

    _esm = Path(__file__).parents[1] / "js" / "view_picks.js"

    def show(self, picks: Picks | None, state, generation: int, follows=AXES) -> None:
        """Send picks made for the drawing generation of the view (None: nothing to pick,
        Python draws every value), only what changed. An axis's picks hold for any value of
        the other axis when the view does not follow it (`at` None)."""
        tables = dict(picks.tables) if picks is not None else {}
        update = {"drawn": {"pos": state.pos, "offset": state.offset, "generation": generation}}
        if not _same_tables(tables, self.tables):
            update["tables"] = tables
        for axis in AXES:
            axis_picks = picks.axis(axis) if picks is not None else None
            sent = axis_picks.to_json() if axis_picks is not None else {}
            if sent and OTHER[axis] not in follows:
                sent["at"] = None
            if not same_value(sent, self._sent[axis]):
                update[f"{axis}_picks"] = sent
                self._sent[axis] = sent
        self.param.update(update)

    def __init__(self, **params):
        super().__init__(**params)
        self._sent: dict[str, dict] = dict.fromkeys(AXES, {})


def _same_tables(new: dict, old: dict) -> bool:
    return new.keys() == old.keys() and all(
        new[name] is old[name] or np.array_equal(new[name], old[name]) for name in new
    )

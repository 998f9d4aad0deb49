"""The query string ⇄ explorer state: forgiving when reading, canonical when writing.

Every ExplorerState parameter is a query key of the same name; ``view`` and ``embed``
choose what the page shows. Reading never raises: a bad value becomes the nearest valid
one or the default, and a Notice says which key was adjusted and why. Notices are plain
text; the page escapes them and never renders anything from the URL as HTML.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlencode

import param

from .scaling import ALIASES as SCALING_ALIASES
from .scaling import factor_out_of_range, factor_words
from .state import (
    GROUPS,
    LENGTHS_SETTINGS,
    LENGTHS_WORDS,
    MAX_FACTORS_CHARS,
    MAX_TEXT_CHARS,
    SESSION_ONLY,
    EvenInteger,
    ExplorerState,
)

# Work is bounded whatever the URL: only so much of it is read.
MAX_QUERY_LENGTH = 4000
MAX_KEYS = 60  # every state key and the page's two fit: a link may set them all
MAX_VALUE_LENGTH = 400
MAX_SHOWN_VALUE = 40
# Keys whose bounds others depend on are applied first; pos and offset last.
FIRST_KEYS = ("d_model", "n_positions", "base", "layout")
LAST_KEYS = ("pos", "offset")
# Always written, so a shared link pins the picture even if defaults change one day.
ALWAYS_WRITTEN = ("pos", "offset", "d_model", "n_positions")
PAGE_KEYS = ("view", "embed")
# ASCII digits only: Python's int() and float() would also take "1_000" and full-width digits,
# which the page then wrote back differently; such values get a notice instead.
INTEGER = re.compile(r"[+-]?[0-9]{1,12}")
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|nan)", re.I)
# A notice says what was wrong in one line: longer ones are cut.
MAX_NOTICE_CHARS = 160
# Other names a Selector key takes: `transformers` calls Position Interpolation "linear".
VALUE_ALIASES = {"scaling": SCALING_ALIASES}
# Why a text key's value was refused, in words (the state's own message quotes its pattern).
REFUSED = {
    "text": f"is longer than {MAX_TEXT_CHARS} characters",
    "longrope_factors": f"holds characters other than numbers, commas and spaces, or more than "
    f"{MAX_FACTORS_CHARS}",
    **{name: LENGTHS_WORDS.replace("must be", "is not", 1) for name in LENGTHS_SETTINGS},
}
TRUE_WORDS, FALSE_WORDS = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}


def factors_out_of_range(text: str) -> str:
    """Why a link's LongRoPE factors are refused (a number outside the range the maths takes),
    or "" when none is; a word that is no number is left for the scaling view to name."""
    for index, word in enumerate(factor_words(text), start=1):
        try:
            refused = factor_out_of_range(index, word)
        except ValueError:
            continue
        if refused:
            return refused
    return ""


# A text key whose numbers have bounds: what is refused in it, in words ("" when nothing is).
TEXT_BOUNDS = {"longrope_factors": factors_out_of_range}


@dataclass(frozen=True)
class Notice:
    """One adjustment made while reading the URL: which key, and why (plain text)."""

    key: str
    message: str

    def __str__(self) -> str:
        text = f"{self.key}: {self.message}"
        return text if len(text) <= MAX_NOTICE_CHARS else text[: MAX_NOTICE_CHARS - 1] + "…"


@dataclass
class PageQuery:
    """What a query string asks for: state values, the page options, and the notices."""

    values: dict
    view: str = ""
    embed: bool = False
    notices: list[Notice] = field(default_factory=list)


def shown(value: str) -> str:
    """A visitor's value, shortened for a notice (the page escapes it when it shows it)."""
    value = value.replace("\n", " ").replace("\r", " ")
    return repr(value if len(value) <= MAX_SHOWN_VALUE else value[: MAX_SHOWN_VALUE - 1] + "…")


def number_text(value) -> str:
    """A number for a notice: as it is, or in short scientific form when it is huge."""
    text = str(value)
    return text if len(text) <= 15 else f"{float(value):.3g}"


def state_keys() -> list[str]:
    """The query keys of the state, in the order they must be applied (not its session-only
    parameters: the visitor's model is never in a link)."""
    names = [
        name for group in GROUPS for name in group.param if name not in ("name", *SESSION_ONLY)
    ]
    middle = [name for name in names if name not in FIRST_KEYS + LAST_KEYS]
    return [*FIRST_KEYS, *middle, *LAST_KEYS]


def _parse_number(raw: str, integer: bool):
    """(a finite number from the visitor's text, whether it was rounded), or (None, False)."""
    text = raw.strip()
    if integer and INTEGER.fullmatch(text):
        return int(text), False
    if len(text) > 40 or not NUMBER.fullmatch(text):
        return None, False
    try:
        number = float(text)
    except ValueError:
        return None, False
    if not math.isfinite(number):
        return None, False
    if integer:
        return round(number), round(number) != number or "." in text or "e" in text.lower()
    return number, False


def _coerce(parameter: param.Parameter, key: str, raw: str, notices: list[Notice]):
    """The value for one parameter from its raw text; param.Undefined to keep the default."""
    default = parameter.default
    if isinstance(parameter, param.Integer | param.Number) and not isinstance(
        parameter, param.Boolean
    ):
        number, rounded = _parse_number(raw, isinstance(parameter, param.Integer))
        if number is None:
            notices.append(Notice(key, f"{shown(raw)} is not a number; used the default {default}"))
            return param.Undefined
        if rounded:
            used = number_text(number)
            why = (
                "is not written as a whole number"
                if number == float(raw)
                else "is not a whole number"
            )
            notices.append(Notice(key, f"{shown(raw)} {why}; used {used}"))
        return number
    if isinstance(parameter, param.Boolean):
        word = raw.strip().lower()
        if word in TRUE_WORDS | FALSE_WORDS:
            return word in TRUE_WORDS
        notices.append(Notice(key, f"{shown(raw)} is not 0 or 1; used the default"))
        return param.Undefined
    if isinstance(parameter, param.Selector):
        raw = VALUE_ALIASES.get(key, {}).get(raw.strip().lower(), raw)
        for choice in parameter.objects:
            if str(choice).lower() == raw.strip().lower():
                return choice
        choices = ", ".join(str(choice) for choice in parameter.objects)
        notices.append(
            Notice(key, f"{shown(raw)} is not one of {choices}; used the default {default}")
        )
        return param.Undefined
    if isinstance(parameter, param.List):
        items, dropped = [], []
        for item in (part.strip() for part in raw.split(",")):
            if not item:
                continue
            if INTEGER.fullmatch(item) and int(item) >= 0:
                items.append(int(item))
            else:
                dropped.append(item)
        if dropped:
            notices.append(
                Notice(key, f"ignored {shown(','.join(dropped))}: pair indices are whole numbers")
            )
        return sorted(set(items))
    if isinstance(parameter, param.String):
        return raw
    notices.append(Notice(key, "this parameter cannot be set from the URL"))
    return param.Undefined


def _clamp(parameter: param.Parameter, key: str, value, bounds, notices: list[Notice]):
    """value moved into bounds (and made even for EvenInteger), with a notice if it moved."""
    low, high = bounds if bounds is not None else (None, None)
    adjusted = value
    if low is not None and adjusted < low:
        adjusted = low
    if high is not None and adjusted > high:
        adjusted = high
    if isinstance(parameter, EvenInteger) and adjusted % 2:
        adjusted = adjusted + 1 if high is None or adjusted + 1 <= high else adjusted - 1
        notices.append(
            Notice(key, f"{number_text(value)} is odd; used {adjusted} ({key} must be even)")
        )
    elif adjusted != value:
        notices.append(
            Notice(
                key,
                f"{number_text(value)} is outside {low} … {high}; "
                f"used the nearest value {adjusted}",
            )
        )
    return adjusted


def read_pairs(query: str) -> tuple[list[tuple[str, str]], list[Notice]]:
    """The (key, value) pairs of a query string, bounded in length and count."""
    notices = []
    text = query[1:] if query.startswith("?") else query
    if len(text) > MAX_QUERY_LENGTH:
        notices.append(Notice("URL", f"only the first {MAX_QUERY_LENGTH} characters were read"))
        text = text[:MAX_QUERY_LENGTH]
    fields = text.split("&")
    if len(fields) > MAX_KEYS:
        notices.append(Notice("URL", f"only the first {MAX_KEYS} parameters were read"))
        fields = fields[:MAX_KEYS]
    pairs = []
    for field_text in fields:
        if not field_text:
            continue
        parsed = parse_qsl(field_text, keep_blank_values=True)
        if not parsed:
            continue
        key, value = parsed[0]
        if len(value) > MAX_VALUE_LENGTH:
            notices.append(
                Notice(
                    key[:MAX_SHOWN_VALUE], f"value cut to its first {MAX_VALUE_LENGTH} characters"
                )
            )
            value = value[:MAX_VALUE_LENGTH]
        pairs.append((key, value))
    return pairs, notices


def parse_query(query: str, view_names: tuple[str, ...]) -> PageQuery:
    """Read a query string into valid state values, page options and notices; never raises."""
    pairs, notices = read_pairs(query or "")
    given: dict[str, str] = {}
    for key, value in pairs:
        if key in given:
            notices.append(Notice(key, "given more than once; used the first value"))
            continue
        given[key] = value

    keys = state_keys()
    for key in given:
        if key not in keys and key not in PAGE_KEYS:
            notices.append(Notice(shown(key), "unknown parameter, ignored"))

    state = ExplorerState()
    for key in keys:
        if key not in given:
            continue
        raw = given[key]
        parameter = state.param[key]
        if raw.strip() == "" and not isinstance(parameter, param.String | param.List):
            notices.append(Notice(key, f"empty value; used the default {parameter.default}"))
            continue
        value = _coerce(parameter, key, raw, notices)
        if value is param.Undefined:
            continue
        refused = TEXT_BOUNDS[key](value) if key in TEXT_BOUNDS else ""
        if refused:
            notices.append(Notice(key, f"{refused}; kept the default"))
            continue
        if isinstance(parameter, param.Number) and not isinstance(parameter, param.Boolean):
            value = _clamp(parameter, key, value, parameter.bounds, notices)
        try:
            setattr(state, key, value)
        except ValueError as error:
            why = REFUSED.get(key, f"was not accepted ({error})")
            notices.append(Notice(key, f"{shown(raw)} {why}; kept the default"))
            continue
        current = getattr(state, key)
        if current != value:
            notices.append(
                Notice(key, f"{value} was adjusted to {current} to fit the other values")
            )

    view = given.get("view", "").strip().lower()
    if view and view not in view_names:
        notices.append(
            Notice(
                "view",
                f"{shown(given['view'])} is not one of {', '.join(view_names)}; showing every view",
            )
        )
        view = ""
    embed = given.get("embed", "").strip().lower()
    if embed not in TRUE_WORDS | FALSE_WORDS:
        notices.append(Notice("embed", f"{shown(given['embed'])} is not 0 or 1; used 0"))
    values = {key: getattr(state, key) for key in keys}
    return PageQuery(values=values, view=view, embed=embed in TRUE_WORDS, notices=notices)


def _format(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        # Short where 15 digits say it exactly ("500", "1.5"); otherwise the shortest text that
        # reads back as the same float (hypothesis found 1.2899998426437378 rounded by .15g).
        short = f"{value:.15g}"
        return short if float(short) == value else repr(value)
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)


def to_query_values(state: ExplorerState) -> dict[str, str]:
    """Every state value as the URL writes it."""
    return {key: _format(getattr(state, key)) for key in state_keys()}


def to_query(state: ExplorerState, view: str = "", embed: bool = False) -> str:
    """The canonical query string (without '?') for a state and the page options."""
    items = []
    for key in state_keys():
        value = getattr(state, key)
        if key in ALWAYS_WRITTEN or value != state.param[key].default:
            items.append((key, _format(value)))
    if view:
        items.append(("view", view))
    if embed:
        items.append(("embed", "1"))
    return urlencode(items, quote_via=quote, safe=",")

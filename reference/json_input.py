"""Reading untrusted JSON within stated limits: nesting depth and the size of a number, and each key once.

A scenario file nests at most ``MAX_DEPTH`` arrays and objects, and its integers have at most
``MAX_DIGITS`` digits (every such integer converts to a finite double, as JavaScript reads it).
Both limits are enforced before anything can overflow: the depth by a scan of the text before the
parser runs (Python's parser recurses), an integer literal by the parser's own hook (Python refuses
to convert more than 4,300 digits, and a double overflows far earlier). A key given twice in one object is refused:
JSON leaves it undefined (Python and JavaScript keep the last), and a file that says two things of one field is
ambiguous. See docs/model.md, "Scenario files".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from itertools import accumulate
from typing import Any

from reference.errors import ModelError

__all__ = [
    "MAX_DEPTH",
    "MAX_DIGITS",
    "JsonLimitError",
    "TooLarge",
    "check_depth",
    "check_text_depth",
    "describe_too_large",
    "first_too_large",
    "is_too_large",
    "parse_json",
    "scenario_objects",
]

#: The deepest nesting of arrays and objects accepted: content nested some 247 tool results deep (each counts
#: two levels), within both the model's ``MAX_NESTING`` and pydantic-core's depth of 255 nested models.
MAX_DEPTH = 500
#: The most digits an integer may have: anything below 10**308 is a finite double.
MAX_DIGITS = 308
_LIMIT = 10**MAX_DIGITS


class JsonLimitError(ModelError, ValueError):
    """Input past a stated limit, or a key twice in one object; ``loc`` is the path to it in a parsed value (the
    text's message says where)."""

    loc: tuple[object, ...] = ()


class TooLarge:
    """An integer literal with more than ``MAX_DIGITS`` digits, kept unconverted so the loader can name its path."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<a {self.digits}-digit integer>"


def is_too_large(value: object) -> bool:
    """An integer past the limit: a ``TooLarge`` literal, or a Python int of 309 digits or more."""
    if isinstance(value, TooLarge):
        return True
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _LIMIT


def describe_too_large(value: object) -> str:
    digits = value.digits if isinstance(value, TooLarge) else len(str(abs(value)))  # type: ignore[arg-type]
    return f"a {digits}-digit integer (at most {MAX_DIGITS} digits)"


def _parse_int(text: str) -> int | TooLarge:
    digits = len(text) - (text[0] == "-")
    return TooLarge(digits) if digits > MAX_DIGITS else int(text)


# A string literal (so that brackets inside strings are skipped) or one bracket.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKEN = re.compile(_STRING + r"|[\[\]{}]", re.S)
_STRINGS = re.compile(_STRING, re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def _where(text: str, offset: int) -> str:
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - before.rfind("\n")  # 1-based: rfind is -1 on the first line
    return f"line {line} column {column}"


def check_text_depth(text: str) -> None:
    """Refuse text nesting deeper than ``MAX_DEPTH``, scanning it without recursion."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    skeleton = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    if max(accumulate(1 if c in "[{" else -1 for c in skeleton), default=0) <= MAX_DEPTH:
        return
    depth = 0  # too deep: scan again, token by token, for the line and column
    for m in _TOKEN.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JsonLimitError(f"nested deeper than {MAX_DEPTH} arrays and objects at {_where(text, m.start())}")
        elif c in "]}":
            depth -= 1


def _each_key_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise JsonLimitError(f"key {json.dumps(key)} given twice in one object")
        seen.add(key)
    return dict(pairs)


def parse_json(text: str) -> Any:
    """``json.loads`` within the limits; ``json.JSONDecodeError`` for bad syntax, ``JsonLimitError`` past a limit or
    for a key given twice in one object."""
    check_text_depth(text)
    return json.loads(text, parse_int=_parse_int, object_pairs_hook=_each_key_once)


def check_depth(value: object) -> None:
    """Refuse an already-parsed value nesting deeper than ``MAX_DEPTH`` (walked without recursion).

    The error's ``loc`` is the path to the first container past the limit, as a tuple of keys and indices.
    """
    stack: list[tuple[object, tuple[object, ...]]] = [(value, ())]
    while stack:
        v, loc = stack.pop()
        if isinstance(v, Mapping):
            items: Any = v.items()
        elif isinstance(v, (list, tuple)):
            items = enumerate(v)
        else:
            continue
        if len(loc) + 1 > MAX_DEPTH:
            err = JsonLimitError(f"nested deeper than {MAX_DEPTH} arrays and objects")
            err.loc = loc
            raise err
        stack.extend((child, (*loc, k)) for k, child in items)


def first_too_large(value: object, path: str = "") -> str | None:
    """The path suffix of the first integer past the limit inside a JSON value (tool input), or None."""
    stack: list[tuple[object, str]] = [(value, path)]
    while stack:
        v, p = stack.pop()
        if is_too_large(v):
            return p
        if isinstance(v, Mapping):
            stack.extend((c, f"{p}.{k}") for k, c in v.items())
        elif isinstance(v, (list, tuple)):
            stack.extend((c, f"{p}[{k}]") for k, c in enumerate(v))
    return None


def scenario_objects(text: str, key: str = "store") -> Iterator[Any]:
    """Each JSON object embedded in ``text`` (a failing test's output) that holds ``key``, parsed within the
    limits: ``JsonLimitError`` when the text nests too deep; an object with a too-large integer is yielded with
    it as a ``TooLarge`` (the loader names its path)."""
    check_text_depth(text)
    decoder = json.JSONDecoder(parse_int=_parse_int, object_pairs_hook=_each_key_once)
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            pass  # not JSON from this brace: try the next
        else:
            if isinstance(obj, dict) and key in obj:
                yield obj
        start = text.find("{", start + 1)

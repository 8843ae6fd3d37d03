"""What every model of the scenario file shares: the scalar readers, camelCase names, unknown keys.

Scalars are read by small validators of our own so that every error says "expected <what>, got
<value>" with the value shown as JSON; ``fail`` raises the one error type ``reference.scenario``
turns into a path-bearing line.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar

from pydantic import (
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainValidator,
    WithJsonSchema,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from reference.json_input import MAX_DIGITS, describe_too_large, first_too_large, is_too_large
from reference.names import closest, did_you_mean
from reference.numerics import is_number

# ----------------------------------------------------------------------------- errors and values


def show(value: object) -> str:
    """A short JSON-ish rendering of a bad value for an error message (60 characters at most)."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    if is_too_large(value):
        return describe_too_large(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate shown escaped
    return text if len(text) <= 60 else text[:57] + "..."


def fail(message: str, suffix: str = "") -> Any:
    """Raise the error of one field: ``message`` is said at the field's path plus ``suffix``."""
    raise PydanticCustomError("cmharness", "{message}", {"message": message, "suffix": suffix})


_NUMBER_STRINGS: dict[str, float] = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _number(raw: object, suffix: str = "") -> Any:
    """A number, or one of the strings for NaN and the infinities; refused at the field's path plus ``suffix``."""
    if is_too_large(raw):
        return fail(f"expected a number, got {show(raw)}", suffix)
    if is_number(raw):
        # One NaN object, so that stores read from the same file compare equal.
        return math.nan if isinstance(raw, float) and math.isnan(raw) else raw
    if isinstance(raw, str) and raw in _NUMBER_STRINGS:
        return _NUMBER_STRINGS[raw]
    return fail(f"expected a number, got {show(raw)}", suffix)


def _nullable_number(raw: object) -> Any:
    return None if raw is None else _number(raw)


def _per_tool_number(raw: object) -> Any:
    """null, one number, or an object of numbers keyed by tool name (``toolResultMaxLastN``)."""
    if not isinstance(raw, Mapping):
        return _nullable_number(raw)
    return {name: _number(n, f".{name}") for name, n in raw.items()}


def _integer(raw: object) -> Any:
    if isinstance(raw, int) and not isinstance(raw, bool) and not is_too_large(raw):
        return raw
    return fail(f"expected an integer, got {show(raw)}")


def string_value(raw: object) -> Any:
    return raw if isinstance(raw, str) else fail(f"expected a string, got {show(raw)}")


def _nullable_string(raw: object) -> Any:
    return raw if raw is None or isinstance(raw, str) else fail(f"expected a string or null, got {show(raw)}")


def _boolean(raw: object) -> Any:
    return raw if isinstance(raw, bool) else fail(f"expected true or false, got {show(raw)}")


def _json_value(raw: object) -> Any:
    where = first_too_large(raw)
    if where is not None:
        fail(f"expected a number, got an integer of more than {MAX_DIGITS} digits", where)
    return raw


_NUMBER_SCHEMA: dict[str, Any] = {"anyOf": [{"type": "number"}, {"enum": list(_NUMBER_STRINGS)}]}


def scalar(check: Callable[[object], Any], schema: dict[str, Any]) -> Any:
    return Annotated[Any, PlainValidator(check), WithJsonSchema(schema)]


Num = scalar(_number, _NUMBER_SCHEMA)
NullableNum = scalar(_nullable_number, {"anyOf": [_NUMBER_SCHEMA, {"type": "null"}]})
PerToolNum = scalar(
    _per_tool_number,
    {"anyOf": [_NUMBER_SCHEMA, {"type": "null"}, {"type": "object", "additionalProperties": _NUMBER_SCHEMA}]},
)
Int = scalar(_integer, {"type": "integer"})
Str = scalar(string_value, {"type": "string"})
NullableStr = scalar(_nullable_string, {"type": ["string", "null"]})
Bool = scalar(_boolean, {"type": "boolean"})
JsonValue = scalar(_json_value, {})


def _array_of(what: str) -> BeforeValidator:
    def check(raw: object) -> Any:
        return raw if isinstance(raw, (list, tuple)) else fail(f"expected an array{what}, got {show(raw)}")

    return BeforeValidator(check)


def Array(item: Any, what: str = "") -> Any:
    return Annotated[list[item], _array_of(what)]


# ----------------------------------------------------------------------------- field names


def _camel_too(name: str) -> AliasChoices:
    return AliasChoices(name, to_camel(name))


@functools.cache
def accepted_names(cls: type[BaseModel]) -> list[str]:
    """Every key a model accepts: each field's snake_case name, its camelCase spelling, its alias."""
    names: list[str] = []
    for name, f in cls.model_fields.items():
        names += [c for c in _choices(f, name) if c not in names]
    return names


@functools.cache
def _allowed(cls: type[BaseModel]) -> frozenset[str]:
    return frozenset(accepted_names(cls))


def unknown_field(key: object, cls: type[BaseModel]) -> str:
    """The error for an unknown key: the allowed names, and the closest one when it is close."""
    canonical = [f.alias or n for n, f in cls.model_fields.items()]
    hint = did_you_mean(closest(key, accepted_names(cls)), show)
    return f"unknown field {show(key)}{hint} (allowed: {', '.join(canonical) or 'none'})"


def _choices(f: Any, name: str) -> list[str]:
    alias = f.validation_alias
    found = alias.choices if isinstance(alias, AliasChoices) else [alias or f.alias or name]
    return list(dict.fromkeys(c for c in found if isinstance(c, str)))


def _with_camel_names(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """The JSON Schema lists every accepted spelling of each field (an editor then accepts them all)."""
    props = schema["properties"]
    required = set(schema.pop("required", []))
    either = []
    for name, f in cls.model_fields.items():
        choices = _choices(f, name)
        key = next(c for c in choices if c in props)  # the schema names a field by one of its choices
        for c in choices:
            props.setdefault(c, props[key])
        if key in required:
            either.append({"required": [key]} if len(choices) == 1 else {"anyOf": [{"required": [c]} for c in choices]})
    if either:
        schema["allOf"] = either
    schema["additionalProperties"] = False


class Strict(BaseModel):
    """A file object: unknown keys refused (naming the allowed ones), camelCase accepted, read-only."""

    model_config = ConfigDict(
        frozen=True,
        populate_by_name=True,
        json_schema_extra=_with_camel_names,
        alias_generator=AliasGenerator(validation_alias=_camel_too),
    )

    #: Keys refused with a message of their own (said at the key's path).
    RESERVED: ClassVar[Mapping[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, raw: Any) -> Any:
        if not isinstance(raw, Mapping):
            return fail(f"expected an object, got {show(raw)}")
        allowed = _allowed(cls)
        for key in raw:
            if key in cls.RESERVED:
                fail(cls.RESERVED[key], f".{key}")
            if key not in allowed:
                fail(unknown_field(key, cls))
        return raw


def one_of(choices: tuple[str, ...]) -> Any:
    """A string among ``choices``; a near miss is suggested."""

    def check(raw: object) -> Any:
        if isinstance(raw, str) and raw in choices:
            return raw
        hint = did_you_mean(closest(raw, choices), show)
        return fail(f"expected one of {', '.join(choices)}, got {show(raw)}{hint}")

    return scalar(check, {"enum": list(choices)})

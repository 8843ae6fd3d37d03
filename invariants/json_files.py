"""The invariants' own JSON files (proof shards, the witness corpus) read by pydantic, with the scenario files'
wording for what is wrong in one: the first field missing or of a wrong type at its path in the file
(``found[0]: missing field 'shape'``), or the JSON's syntax error."""

from __future__ import annotations

from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from reference.format_base import show
from reference.scenario import json_path

T = TypeVar("T")


def read_json(adapter: TypeAdapter[T], text: str | bytes, *, strict: bool = False) -> T:
    """``text`` read as ``adapter``'s type; ``ValueError`` ``"PATH: what is wrong"`` (``the file`` for the JSON
    as a whole)."""
    try:
        return adapter.validate_json(text, strict=strict)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first["loc"])
        if first["type"] == "missing" and loc and isinstance(loc[-1], str):
            raise ValueError(f"{json_path(loc[:-1]) or 'the file'}: missing field {show(loc[-1])}") from None
        if first["type"] == "missing":
            raise ValueError(f"{json_path(loc)}: missing") from None
        raise ValueError(f"{json_path(loc) or 'the file'}: {first['msg'][:1].lower()}{first['msg'][1:]}") from None

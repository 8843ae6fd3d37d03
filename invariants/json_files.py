"""The invariants' own JSON files (proof shards, the witness corpus) read by pydantic, with one wording for what is
wrong in one: the first field missing or of a wrong type, as a dotted path, or the JSON's syntax error."""

from __future__ import annotations

from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

T = TypeVar("T")


def read_json(adapter: TypeAdapter[T], text: str | bytes, *, strict: bool = False) -> T:
    """``text`` read as ``adapter``'s type; ``ValueError`` ``"FIELD: what is wrong"`` (``the file`` for the JSON
    as a whole)."""
    try:
        return adapter.validate_json(text, strict=strict)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise ValueError(f"{where}: {first['msg'][:1].lower()}{first['msg'][1:]}") from None

"""The ``expect`` section of a scenario file as pydantic models (built into ``reference.expect``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BeforeValidator,
    Field,
    model_validator,
)

from reference.blocks import Content
from reference.expect import ERRORS, GROUPS, SITES, VARIANT_NAMES, Expectation, Refuses, Sends
from reference.format_base import Array, Bool, Int, JsonValue, Num, Str, Strict, fail, one_of, scalar, show
from reference.names import did_you_mean, unknown

# ----------------------------------------------------------------------------- expectations


class SendsModel(Strict):
    """The compile sends; each field given is checked."""

    entries: Int | None = None
    total: Num | None = None
    raw_ids: Array(Str) | None = None
    summaries: Array(Array(Str)) | None = None
    images: scalar(
        lambda v: (
            v if isinstance(v, str) and set(v) <= {"I", "."} else fail(f"expected a string of I and ., got {show(v)}")
        ),
        {"type": "string", "pattern": "^[I.]*$"},
    ) = None
    content: Array(Array(JsonValue)) | None = None

    def build(self, blocks: Callable[[int, list[Any]], Content]) -> Sends:
        """The expectation; ``blocks`` reads entry ``k``'s expected blocks (the scenario format's block models)."""
        return Sends(
            entries=self.entries,
            total=self.total,
            raw_ids=None if self.raw_ids is None else tuple(self.raw_ids),
            summaries=None if self.summaries is None else tuple(tuple(s) for s in self.summaries),
            images=self.images,
            content=None if self.content is None else tuple(blocks(k, e) for k, e in enumerate(self.content)),
        )


DROP_CATEGORIES = ("in-tail-not-rendered", "covered-by-unemitted-summary", "not-covered")


def _categories(raw: object) -> Any:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        return fail(f"expected an object, got {show(raw)}")
    for key, value in raw.items():
        if value not in DROP_CATEGORIES:
            fail(f"expected one of {', '.join(DROP_CATEGORIES)}, got {show(value)}", f".{show(key).strip(chr(34))}")
    return dict(raw)


def _counts_by_level(raw: object) -> Any:
    """``{"1": 2, "3": 1}``: a count (an integer >= 0) per level (a key of digits, a level >= 1)."""
    if not isinstance(raw, Mapping):
        return fail(f"expected an object, got {show(raw)}")
    counts: dict[int, int] = {}
    for key, value in raw.items():
        where = f".{show(key).strip(chr(34))}"
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and int(key) >= 1 and len(key) < 10):
            fail(f"expected a level (an integer >= 1 written as a key), got {show(key)}", where)
        if not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53):
            fail(f"expected a count (an integer >= 0), got {show(value)}", where)
        counts[int(key)] = value
    return counts


def _patterns(raw: object) -> Any:
    """One pattern or an array of them, each a regular expression Python's ``re`` compiles."""
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, (list, tuple)):
        return fail(f"expected a pattern or an array of patterns, got {show(raw)}")
    for k, p in enumerate(items):
        where = "" if isinstance(raw, str) else f"[{k}]"
        if not isinstance(p, str):
            fail(f"expected a string, got {show(p)}", where)
        try:
            re.compile(p)
        except re.error as err:
            fail(f"not a regular expression ({err}): {show(p)}", where)
    return tuple(items)


#: An invariant's name as the judges declare it (lower-case words joined by hyphens); which names exist is the
#: judges' to say (``invariants.reproduce.refuse_unknown_invariants``), so a new invariant changes no file of this
#: layer.
INVARIANT_NAME = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _invariant_name(raw: object) -> Any:
    if isinstance(raw, str) and INVARIANT_NAME.fullmatch(raw):
        return raw
    respelt = [re.sub(r"[\s_]+", "-", raw.strip().lower())] if isinstance(raw, str) else []
    hint = did_you_mean([r for r in respelt if INVARIANT_NAME.fullmatch(r)], show)
    return fail(f"expected an invariant's name (lower-case words joined by hyphens), got {show(raw)}{hint}")


InvariantName = scalar(_invariant_name, {"type": "string", "pattern": f"^{INVARIANT_NAME.pattern}$"})


COUNTS_SCHEMA = {"type": "object", "patternProperties": {"^[1-9][0-9]*$": {"type": "integer", "minimum": 0}}}
COUNTS_SCHEMA["additionalProperties"] = False
PATTERNS_SCHEMA = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


class RefusesModel(Strict):
    """The compile refuses; each field given is checked against the error it raises."""

    error: one_of(ERRORS) | None = None
    site: one_of(SITES) | None = None
    unit: one_of(("selection-items", "raw-messages")) | None = Field(
        None, validation_alias=AliasChoices("unit", "middle_count_unit", "middleCountUnit")
    )
    cleared_by: Array(Str) | None = None
    head_tokens: Num | None = None
    middle_tokens: Num | None = None
    actual: Num | None = None
    refused: Array(Str) | None = None
    dropped: Array(Str) | None = Field(None, validation_alias=AliasChoices("dropped", "dropped_ids", "droppedIds"))
    categories: scalar(_categories, {"type": "object", "additionalProperties": {"enum": list(DROP_CATEGORIES)}}) = None
    field: Str | None = None
    budget: Num | None = None
    configured_budget: Num | None = None
    reserve_for_response: Num | None = None
    input_budget: Num | None = None
    middle_count: Int | None = Field(
        None, validation_alias=AliasChoices("middle_count", "middleCount", "middleChunkCount")
    )
    deepest_available_level: Int | None = None
    summary_counts_by_level: scalar(_counts_by_level, COUNTS_SCHEMA) = None
    message: Str | None = None
    message_matches: scalar(_patterns, PATTERNS_SCHEMA) = None

    def build(self) -> Refuses:
        def tup(x: list[str] | None) -> tuple[str, ...] | None:
            return None if x is None else tuple(x)

        return Refuses(
            error=self.error,
            site=self.site,
            unit=self.unit,
            cleared_by=tup(self.cleared_by),
            head_tokens=self.head_tokens,
            middle_tokens=self.middle_tokens,
            actual=self.actual,
            refused=tup(self.refused),
            dropped=tup(self.dropped),
            categories=self.categories,
            field=self.field,
            budget=self.budget,
            configured_budget=self.configured_budget,
            reserve_for_response=self.reserve_for_response,
            input_budget=self.input_budget,
            middle_count=self.middle_count,
            deepest_available_level=self.deepest_available_level,
            summary_counts_by_level=self.summary_counts_by_level,
            message=self.message,
            message_matches=self.message_matches,
        )


def _true_is_empty(raw: object) -> Any:
    """``"sends": true`` is ``"sends": {}`` (nothing more checked); ``false`` is leaving it out."""
    return {} if raw is True else None if raw is False else raw


class ExpectationModel(Strict):
    """``sends`` or ``refuses`` (``true`` or an object of fields to check), and ``breaks`` or ``holds``."""

    sends: Annotated[SendsModel | None, BeforeValidator(_true_is_empty)] = None
    refuses: Annotated[RefusesModel | None, BeforeValidator(_true_is_empty)] = None
    breaks: Array(InvariantName) | None = None
    holds: Bool | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ExpectationModel:
        if self.sends is not None and self.refuses is not None:
            fail("expects both sends and refuses; give one")
        if self.breaks and self.holds:
            fail("expects both breaks and holds; give one")
        if self.sends is None and self.refuses is None and self.breaks is None and not self.holds:
            fail("expects nothing; give sends, refuses, breaks or holds")
        return self

    def build(self, blocks: Callable[[int, list[Any]], Content]) -> Expectation:
        sends = None if self.sends is None else self.sends.build(blocks)
        refuses = None if self.refuses is None else self.refuses.build()
        return Expectation(
            sends=sends,
            refuses=refuses,
            breaks=None if self.breaks is None else tuple(self.breaks),
            holds=bool(self.holds),
        )


EXPECT_KEYS: tuple[str, ...] = (*VARIANT_NAMES, *GROUPS)


def expect_keys(raw: object) -> Any:
    if not isinstance(raw, Mapping):
        return fail(f"expected an object, got {show(raw)}")
    for key in raw:
        if key not in EXPECT_KEYS:
            fail(unknown("variant", key, EXPECT_KEYS, quote=show, listed="allowed"))
    return raw

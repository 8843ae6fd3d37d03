"""The scenario file format as pydantic models: names (snake_case and the TypeScript's camelCase), types, schema.

The models only read and check the file; ``build()`` turns each into the frozen dataclasses of
``reference.model`` / ``reference.expect``, which the rest of the project uses. Scalars are read by
small validators of our own so that every error says "expected <what>, got <value>" with the value
shown as JSON; ``reference.scenario`` turns pydantic's error locations into the file's paths.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import math
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_type_hints

from pydantic import (
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainValidator,
    Tag,
    WithJsonSchema,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from reference import model as m
from reference.expect import ERRORS, GROUPS, INVARIANT_NAMES, SITES, VARIANT_NAMES, Expectation, Refuses, Sends
from reference.json_input import MAX_DIGITS, describe_too_large, first_too_large, is_too_large
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


def _number(raw: object) -> Any:
    if is_too_large(raw):
        return fail(f"expected a number, got {show(raw)}")
    if is_number(raw):
        # One NaN object, so that stores read from the same file compare equal.
        return math.nan if isinstance(raw, float) and math.isnan(raw) else raw
    if isinstance(raw, str) and raw in _NUMBER_STRINGS:
        return _NUMBER_STRINGS[raw]
    return fail(f"expected a number, got {show(raw)}")


def _nullable_number(raw: object) -> Any:
    return None if raw is None else _number(raw)


def _integer(raw: object) -> Any:
    if isinstance(raw, int) and not isinstance(raw, bool) and not is_too_large(raw):
        return raw
    return fail(f"expected an integer, got {show(raw)}")


def _string(raw: object) -> Any:
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


def _scalar(check: Callable[[object], Any], schema: dict[str, Any]) -> Any:
    return Annotated[Any, PlainValidator(check), WithJsonSchema(schema)]


Num = _scalar(_number, _NUMBER_SCHEMA)
NullableNum = _scalar(_nullable_number, {"anyOf": [_NUMBER_SCHEMA, {"type": "null"}]})
Int = _scalar(_integer, {"type": "integer"})
Str = _scalar(_string, {"type": "string"})
NullableStr = _scalar(_nullable_string, {"type": ["string", "null"]})
Bool = _scalar(_boolean, {"type": "boolean"})
JsonValue = _scalar(_json_value, {})


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
        alias = f.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [alias or f.alias or name]
        names += [c for c in choices if isinstance(c, str) and c not in names]
    return names


@functools.cache
def _allowed(cls: type[BaseModel]) -> frozenset[str]:
    return frozenset(accepted_names(cls))


def unknown_field(key: object, cls: type[BaseModel]) -> str:
    """The error for an unknown key: the allowed names, and the closest one when it is close."""
    canonical = [f.alias or n for n, f in cls.model_fields.items()]
    text = f"unknown field {show(key)}"
    close = difflib.get_close_matches(str(key), accepted_names(cls), n=1, cutoff=0.6)
    if close:
        text += f'; did you mean "{close[0]}"?'
    return text + f" (allowed: {', '.join(canonical) or 'none'})"


def _with_camel_names(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """The JSON Schema lists the camelCase spelling of each field too (an editor then accepts both)."""
    props = schema.get("properties", {})
    required = schema.pop("required", [])
    either = []
    for name in list(props):
        camel = to_camel(name) if not name.startswith("$") else name
        if camel != name:
            props[camel] = props[name]
        if name in required:
            either.append({"required": [name]} if camel == name else
                          {"oneOf": [{"required": [name]}, {"required": [camel]}]})
    if either:
        schema["allOf"] = either
    schema["additionalProperties"] = False


class Strict(BaseModel):
    """A file object: unknown keys refused (naming the allowed ones), camelCase accepted, read-only."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, json_schema_extra=_with_camel_names,
                              alias_generator=AliasGenerator(validation_alias=_camel_too))

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


# ----------------------------------------------------------------------------- blocks

TAG = "\x1f"  # marks a union's tag in pydantic's error locations (dropped from the paths shown)


class TextBlock(Strict):
    type: Literal["text"]
    text: Str

    def build(self) -> m.Text:
        return m.Text(text=self.text)


class ThinkingBlock(Strict):
    type: Literal["thinking"]
    thinking: Str
    signature: NullableStr = None
    token_estimate: NullableNum = None

    def build(self) -> m.Thinking:
        return m.Thinking(thinking=self.thinking, signature=self.signature, token_estimate=self.token_estimate)


class RedactedThinkingBlock(Strict):
    type: Literal["redacted_thinking"]
    data: NullableStr
    token_estimate: NullableNum = None

    def build(self) -> m.RedactedThinking:
        return m.RedactedThinking(data=self.data, token_estimate=self.token_estimate)


class ToolUseBlock(Strict):
    type: Literal["tool_use"]
    id: Str
    name: Str
    input: JsonValue

    def build(self) -> m.ToolUse:
        return m.ToolUse(id=self.id, name=self.name, input=self.input)


class ImageBlock(Strict):
    type: Literal["image"]
    token_estimate: NullableNum = None

    def build(self) -> m.Image:
        return m.Image(token_estimate=self.token_estimate)


class DocumentBlock(Strict):
    type: Literal["document"]

    def build(self) -> m.Document:
        return m.Document()


class ToolResultBlock(Strict):
    type: Literal["tool_result"]
    tool_use_id: Str
    content: Annotated[
        Union[Annotated[Str, Tag(TAG + "str")], Annotated[Content, Tag(TAG + "blocks")]],  # noqa: UP007
        Discriminator(lambda v: TAG + ("str" if isinstance(v, str) else "blocks")),
    ]

    def build(self) -> m.ToolResult:
        c = self.content
        return m.ToolResult(tool_use_id=self.tool_use_id, content=c if isinstance(c, str) else build_all(c))


BLOCK_MODELS: dict[str, type[Strict]] = {
    "text": TextBlock, "thinking": ThinkingBlock, "redacted_thinking": RedactedThinkingBlock,
    "tool_use": ToolUseBlock, "tool_result": ToolResultBlock, "image": ImageBlock, "document": DocumentBlock,
}
CARRIER_TYPES = ("text", "thinking", "redacted_thinking")


def _block_check(allowed: tuple[str, ...]) -> BeforeValidator:
    def check(raw: object) -> Any:
        if not isinstance(raw, Mapping):
            return fail(f"expected a block object, got {show(raw)}")
        if "type" not in raw:
            return fail('missing field "type"')
        kind = raw["type"]
        if not isinstance(kind, str) or kind not in BLOCK_MODELS:
            return fail(f"unknown block type {show(kind)}", ".type")
        if kind not in allowed:
            return fail(f"block type {show(kind)} is not allowed here (expected one of {', '.join(allowed)})",
                        ".type")
        return raw

    return BeforeValidator(check)


def _block_union(allowed: tuple[str, ...]) -> Any:
    members = tuple(Annotated[BLOCK_MODELS[k], Tag(TAG + k)] for k in allowed)
    return Annotated[Union[members], Discriminator(lambda v: TAG + str(v.get("type"))), _block_check(allowed)]  # noqa: UP007


Block = _block_union(tuple(BLOCK_MODELS))
CarrierBlock = _block_union(CARRIER_TYPES)
Content = Array(Block, " of blocks")
ToolResultBlock.model_rebuild()


def build_all(blocks: list[Any]) -> tuple[Any, ...]:
    return tuple(b.build() for b in blocks)


# ----------------------------------------------------------------------------- store


def _source_range(raw: object) -> Any:
    if isinstance(raw, Mapping):
        for key in raw:
            if key not in ("first", "last"):
                fail(f"unknown field {show(key)} (allowed: first, last)")
        for key in ("first", "last"):
            if key not in raw:
                fail(f"missing field {show(key)}")
            _string_at(raw[key], f".{key}")
        return (raw["first"], raw["last"])
    if not isinstance(raw, (list, tuple)):
        return fail(f"expected an array, got {show(raw)}")
    for i, v in enumerate(raw):
        _string_at(v, f"[{i}]")
    if len(raw) != 2:
        fail(f"expected [first, last], got {len(raw)} ids")
    return (raw[0], raw[1])


def _string_at(raw: object, suffix: str) -> None:
    if not isinstance(raw, str):
        fail(f"expected a string, got {show(raw)}", suffix)


_RANGE_SCHEMA = {"anyOf": [{"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                           {"type": "object", "properties": {"first": {"type": "string"}, "last": {"type": "string"}},
                            "required": ["first", "last"], "additionalProperties": False}]}


class MessageModel(Strict):
    id: Str
    participant: Str
    content: Content

    def build(self) -> m.Message:
        return m.Message(id=self.id, participant=self.participant, content=build_all(self.content))


class SummaryModel(Strict):
    id: Str
    level: Int
    content: Str
    tokens: NullableNum = None
    source_level: Int
    source_ids: Array(Str)
    source_range: _scalar(_source_range, _RANGE_SCHEMA)
    parent_id: NullableStr = None
    response_content: Array(CarrierBlock, " of blocks") | None = None

    def build(self) -> m.Summary:
        carriers = None if self.response_content is None else build_all(self.response_content)
        return m.Summary(id=self.id, level=self.level, content=self.content, tokens=self.tokens,
                         source_level=self.source_level, source_ids=tuple(self.source_ids),
                         source_range=self.source_range, parent_id=self.parent_id, response_content=carriers)


class WorkModel(Strict):
    kind: Str
    state: Str
    folds: Array(Str) | None = None

    def build(self) -> m.Work:
        return m.Work(kind=self.kind, state=self.state, folds=None if self.folds is None else frozenset(self.folds))


class StoreModel(Strict):
    messages: Array(MessageModel)
    summaries: Array(SummaryModel) = []
    calibration: Num = 1.0
    pricing_epoch: Int = 1
    work: Array(WorkModel) = []

    RESERVED: ClassVar[Mapping[str, str]] = {
        "text_estimator": "a custom text estimator cannot be written in JSON",
        "textEstimator": "a custom text estimator cannot be written in JSON",
    }

    def build(self) -> m.Store:
        return m.Store(messages=tuple(x.build() for x in self.messages),
                       summaries=tuple(x.build() for x in self.summaries), calibration=self.calibration,
                       pricing_epoch=self.pricing_epoch, work=tuple(x.build() for x in self.work))


# ----------------------------------------------------------------------------- config and budget


def _config_type(f: dataclasses.Field, hint: Any) -> Any:
    """How a config field is read, from its default's type (so a new Config field needs no change here)."""
    if f.name == "max_message_tokens":  # the one field where null is a value (no cap)
        return NullableNum
    if isinstance(f.default, bool):
        return Bool
    if isinstance(f.default, str):
        choices = get_args(hint)
        return _scalar(_string, {"enum": list(choices)} if choices else {"type": "string"})
    return Num


def _config_model() -> type[Strict]:
    from pydantic import create_model

    hints = get_type_hints(m.Config)
    fields = {f.name: (_config_type(f, hints[f.name]), None) for f in dataclasses.fields(m.Config)}
    return create_model("ConfigModel", __base__=Strict, **fields)  # type: ignore[call-overload]


ConfigModel = _config_model()


def build_config(cfg: BaseModel) -> m.Config:
    return m.Config(**{name: getattr(cfg, name) for name in cfg.model_fields_set})


class BudgetModel(Strict):
    max_tokens: Num
    reserve_for_response: Num = 0

    def build(self) -> m.Budget:
        return m.Budget(max_tokens=self.max_tokens, reserve_for_response=self.reserve_for_response)


# ----------------------------------------------------------------------------- expectations


def _one_of(choices: tuple[str, ...]) -> Any:
    def check(raw: object) -> Any:
        if isinstance(raw, str) and raw in choices:
            return raw
        close = difflib.get_close_matches(str(raw), choices, n=1) if isinstance(raw, str) else []
        hint = f'; did you mean "{close[0]}"?' if close else ""
        return fail(f"expected one of {', '.join(choices)}, got {show(raw)}{hint}")

    return _scalar(check, {"enum": list(choices)})


class SendsModel(Strict):
    """The compile sends; each field given is checked."""

    entries: Int | None = None
    total: Num | None = None
    raw_ids: Array(Str) | None = None
    summaries: Array(Array(Str)) | None = None

    def build(self) -> Sends:
        return Sends(entries=self.entries, total=self.total,
                     raw_ids=None if self.raw_ids is None else tuple(self.raw_ids),
                     summaries=None if self.summaries is None else tuple(tuple(s) for s in self.summaries))


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


class RefusesModel(Strict):
    """The compile refuses; each field given is checked against the error it raises."""

    error: _one_of(ERRORS) | None = None
    site: _one_of(SITES) | None = None
    unit: _one_of(("selection-items", "raw-messages")) | None = Field(
        None, validation_alias=AliasChoices("unit", "middle_count_unit", "middleCountUnit"))
    cleared_by: Array(Str) | None = None
    head_tokens: Num | None = None
    middle_tokens: Num | None = None
    actual: Num | None = None
    refused: Array(Str) | None = None
    dropped: Array(Str) | None = Field(None, validation_alias=AliasChoices("dropped", "dropped_ids", "droppedIds"))
    categories: _scalar(_categories, {"type": "object", "additionalProperties": {"enum": list(DROP_CATEGORIES)}}) = None
    field: Str | None = None

    def build(self) -> Refuses:
        def tup(x: list[str] | None) -> tuple[str, ...] | None:
            return None if x is None else tuple(x)

        return Refuses(error=self.error, site=self.site, unit=self.unit, cleared_by=tup(self.cleared_by),
                       head_tokens=self.head_tokens, middle_tokens=self.middle_tokens, actual=self.actual,
                       refused=tup(self.refused), dropped=tup(self.dropped), categories=self.categories,
                       field=self.field)


def _true_is_empty(raw: object) -> Any:
    """``"sends": true`` is ``"sends": {}`` (nothing more checked); ``false`` is leaving it out."""
    return {} if raw is True else None if raw is False else raw


class ExpectationModel(Strict):
    """``sends`` or ``refuses`` (``true`` or an object of fields to check), and ``breaks`` or ``holds``."""

    sends: Annotated[SendsModel | None, BeforeValidator(_true_is_empty)] = None
    refuses: Annotated[RefusesModel | None, BeforeValidator(_true_is_empty)] = None
    breaks: Array(_one_of(INVARIANT_NAMES)) | None = None
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

    def build(self) -> Expectation:
        sends = None if self.sends is None else self.sends.build()
        refuses = None if self.refuses is None else self.refuses.build()
        return Expectation(sends=sends, refuses=refuses,
                           breaks=None if self.breaks is None else tuple(self.breaks), holds=bool(self.holds))


EXPECT_KEYS: tuple[str, ...] = (*VARIANT_NAMES, *GROUPS)


def _expect_keys(raw: object) -> Any:
    if not isinstance(raw, Mapping):
        return fail(f"expected an object, got {show(raw)}")
    for key in raw:
        if key not in EXPECT_KEYS:
            close = difflib.get_close_matches(str(key), EXPECT_KEYS, n=1)
            hint = f'; did you mean "{close[0]}"?' if close else ""
            fail(f"unknown variant {show(key)}{hint} (allowed: {', '.join(EXPECT_KEYS)})")
    return raw


class ScenarioModel(Strict):
    """A scenario file: a store, the config and budget to compile it under, and what each variant should do."""

    schema_: NullableStr = Field(None, alias="$schema", validation_alias="$schema")
    description: NullableStr = None
    source: _scalar(lambda v: v if v is None or (isinstance(v, (str, int)) and not isinstance(v, bool)) else
                    fail(f"expected a link or an issue number, got {show(v)}"),
                    {"type": ["string", "integer", "null"]}) = None
    store: StoreModel
    config: ConfigModel | None = None  # type: ignore[valid-type]
    budget: BudgetModel | None = None
    expect: Annotated[dict[str, ExpectationModel], BeforeValidator(_expect_keys)] | None = None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (what ``cmharness schema`` writes)."""
    schema = ScenarioModel.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "cmharness scenario"
    return schema

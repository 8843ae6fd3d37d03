"""The scenario file format as pydantic models: blocks, the store, config, budget, the whole file, its schema.

The models only read and check the file; ``build()`` turns each into the frozen dataclasses of
``reference.model``, which the rest of the project uses. Names are snake_case or the TypeScript's
camelCase (``reference.format_base``); ``reference.scenario`` turns pydantic's error locations into
the file's paths.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_type_hints

from pydantic import (
    BaseModel,
    BeforeValidator,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    create_model,
)

from reference import model as m
from reference.expect_format import ExpectationModel, expect_keys
from reference.format_base import (
    Array,
    Bool,
    Int,
    JsonValue,
    NullableNum,
    NullableStr,
    Num,
    PerToolNum,
    Str,
    Strict,
    fail,
    scalar,
    show,
    string_value,
)

# ----------------------------------------------------------------------------- blocks

TAG = "\x1f"  # marks a union's tag in pydantic's error locations (dropped from the paths shown)


class TextBlock(Strict):
    type: Literal["text"]
    text: Str
    raw_item: JsonValue = None

    def build(self) -> m.Text:
        return m.Text(text=self.text, raw_item=self.raw_item)


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
    raw_item: JsonValue = None

    def build(self) -> m.RedactedThinking:
        return m.RedactedThinking(data=self.data, token_estimate=self.token_estimate, raw_item=self.raw_item)


class ToolUseBlock(Strict):
    type: Literal["tool_use"]
    id: Str
    name: Str
    input: JsonValue
    raw_xml: NullableStr = None
    raw_item: JsonValue = None

    def build(self) -> m.ToolUse:
        return m.ToolUse(id=self.id, name=self.name, input=self.input, raw_xml=self.raw_xml, raw_item=self.raw_item)


class ImageSourceModel(Strict):
    """An image's source as the TypeScript writes it: ``{"type": "base64", "data": ..., "mediaType": ...}``."""

    type: Literal["base64"] = "base64"
    data: Str
    media_type: NullableStr = None


class ImageBlock(Strict):
    type: Literal["image"]
    token_estimate: NullableNum = None
    source: ImageSourceModel | None = None

    def build(self) -> m.Image:
        return m.Image(token_estimate=self.token_estimate, data=None if self.source is None else self.source.data)


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

    raw_xml: NullableStr = None
    raw_item: JsonValue = None

    def build(self) -> m.ToolResult:
        c = self.content
        return m.ToolResult(
            tool_use_id=self.tool_use_id,
            content=c if isinstance(c, str) else build_all(c),
            raw_xml=self.raw_xml,
            raw_item=self.raw_item,
        )


BLOCK_MODELS: dict[str, type[Strict]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "redacted_thinking": RedactedThinkingBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
    "image": ImageBlock,
    "document": DocumentBlock,
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
            return fail(f"block type {show(kind)} is not allowed here (expected one of {', '.join(allowed)})", ".type")
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


_RANGE_SCHEMA = {
    "anyOf": [
        {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        {
            "type": "object",
            "properties": {"first": {"type": "string"}, "last": {"type": "string"}},
            "required": ["first", "last"],
            "additionalProperties": False,
        },
    ]
}


class MessageModel(Strict):
    id: Str
    participant: Str
    content: Content
    # A ``StoredMessage``'s bookkeeping, read so that a record pasted from a store loads; the compile never reads it.
    sequence: JsonValue = None
    timestamp: JsonValue = None
    metadata: JsonValue = None
    caused_by: JsonValue = None

    def build(self) -> m.Message:
        return m.Message(id=self.id, participant=self.participant, content=build_all(self.content))


class SummaryModel(Strict):
    id: Str
    level: Int
    content: Str
    tokens: NullableNum = None
    source_level: Int
    source_ids: Array(Str)
    source_range: scalar(_source_range, _RANGE_SCHEMA)
    parent_id: NullableStr = None
    #: The parent pointer merges still write (deprecated for ``parent_id``, which wins where both are given).
    merged_into: NullableStr = None
    response_content: Array(CarrierBlock, " of blocks") | None = None
    # A ``SummaryEntry``'s bookkeeping, read so that a record pasted from a store loads; the compile never reads it.
    created: JsonValue = None
    provenance: JsonValue = None

    def build(self) -> m.Summary:
        carriers = None if self.response_content is None else build_all(self.response_content)
        return m.Summary(
            id=self.id,
            level=self.level,
            content=self.content,
            tokens=self.tokens,
            source_level=self.source_level,
            source_ids=tuple(self.source_ids),
            source_range=self.source_range,
            parent_id=self.merged_into if self.parent_id is None else self.parent_id,
            response_content=carriers,
        )


class WorkModel(Strict):
    kind: Str
    state: Str
    folds: Array(Str) | None = None

    def build(self) -> m.Work:
        return m.Work(kind=self.kind, state=self.state, folds=None if self.folds is None else frozenset(self.folds))


class StoreModel(Strict):
    messages: Array(MessageModel)
    summaries: Array(SummaryModel) = Field(default_factory=list)
    calibration: Num = 1.0
    pricing_epoch: Int = 1
    work: Array(WorkModel) = Field(default_factory=list)

    RESERVED: ClassVar[Mapping[str, str]] = {
        "text_estimator": "a custom text estimator cannot be written in JSON",
        "textEstimator": "a custom text estimator cannot be written in JSON",
    }

    def build(self) -> m.Store:
        return m.Store(
            messages=tuple(x.build() for x in self.messages),
            summaries=tuple(x.build() for x in self.summaries),
            calibration=self.calibration,
            pricing_epoch=self.pricing_epoch,
            work=tuple(x.build() for x in self.work),
        )


# ----------------------------------------------------------------------------- config and budget


def _config_type(f: dataclasses.Field, hint: Any) -> Any:
    """How a config field is read, from its default's type (so a new Config field needs no change here)."""
    if f.name == "max_message_tokens":  # null is a value (no cap)
        return NullableNum
    if f.name == "tool_result_max_last_n":  # null (off), one number, or a number per tool name
        return PerToolNum
    if f.default is None:  # null is a value (the line's default, or off)
        return NullableNum
    if isinstance(f.default, bool):
        return Bool
    if isinstance(f.default, str):
        choices = get_args(hint)
        return scalar(string_value, {"enum": list(choices)} if choices else {"type": "string"})
    return Num


def _hierarchical_select(raw: object) -> Any:
    message = f"the adaptive select is not modelled: the model is the hierarchical select (false), got {show(raw)}"
    return raw if raw is False else fail(message)


#: Options an upstream test passes to choose the select: read and dropped. ``hierarchical`` routes every value to the
#: hierarchical select at the modelled commits (typescript-selection notes, select() ~208.2k); ``adaptive_resolution``
#: is false there, true being the adaptive picker the model does not have.
PATH_OPTIONS: Mapping[str, Any] = {
    "hierarchical": Bool,
    "adaptive_resolution": scalar(_hierarchical_select, {"const": False}),
}


def _config_model() -> type[Strict]:
    hints = get_type_hints(m.Config)
    fields = {f.name: (_config_type(f, hints[f.name]), None) for f in dataclasses.fields(m.Config)}
    fields |= {name: (kind, None) for name, kind in PATH_OPTIONS.items()}
    return create_model("ConfigModel", __base__=Strict, **fields)  # type: ignore[call-overload]


ConfigModel = _config_model()


def build_config(cfg: BaseModel) -> m.Config:
    return m.Config(**{name: getattr(cfg, name) for name in cfg.model_fields_set if name not in PATH_OPTIONS})


class BudgetModel(Strict):
    max_tokens: Num
    reserve_for_response: Num = 0

    def build(self) -> m.Budget:
        return m.Budget(max_tokens=self.max_tokens, reserve_for_response=self.reserve_for_response)


class ScenarioModel(Strict):
    """A scenario file: a store, the config and budget to compile it under, and what each variant should do."""

    schema_: NullableStr = Field(None, alias="$schema", validation_alias="$schema")
    description: NullableStr = None
    source: scalar(
        lambda v: (
            v
            if v is None or (isinstance(v, (str, int)) and not isinstance(v, bool))
            else fail(f"expected a link or an issue number, got {show(v)}")
        ),
        {"type": ["string", "integer", "null"]},
    ) = None
    store: StoreModel
    #: Message counts: before the compile the file judges, the same strategy compiles the store's first N
    #: messages for each N in turn (the state a compile leaves, such as the image watermark, carries over).
    compiles_before: Array(Int) | None = None
    config: ConfigModel | None = None  # type: ignore[valid-type]
    budget: BudgetModel | None = None
    expect: Annotated[dict[str, ExpectationModel], BeforeValidator(expect_keys)] | None = None


_CONTENT = TypeAdapter(Content)


def read_blocks(raw: list[Any]) -> tuple[Any, ...]:
    """Blocks in the scenario format (an expectation's ``content``) as the model's blocks; pydantic's error as is."""
    return build_all(_CONTENT.validate_python(raw))


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (what ``cmharness schema`` writes)."""
    schema = ScenarioModel.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "cmharness scenario"
    return schema

"""Content blocks (docs/model.md, The data): text, thinking, tool use and result, image, document.

Each block checks its own fields at construction and raises ``InvalidStoreError`` naming the culprit; a
``token_estimate`` stamp is kept as JavaScript reads the number (``js_number``), bad values included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.errors import ModelError
from reference.numerics import Number, is_number, js_number


class InvalidStoreError(ModelError, ValueError):
    """A structural error in the store's data; the message names the culprit."""


def require(ok: bool, what: str, expected: str, value: object) -> None:
    if not ok:
        raise InvalidStoreError(f"{what} must be {expected}, got {value!r}")


def _str(value: object, what: str, *, optional: bool = False) -> None:
    require(
        isinstance(value, str) or (optional and value is None),
        what,
        "a string or None" if optional else "a string",
        value,
    )


def _stamp(block: object, what: str) -> None:
    """A block's ``token_estimate``: a number (kept as JavaScript reads it) or None."""
    value = block.token_estimate  # type: ignore[attr-defined]
    require(value is None or is_number(value), what, "a number or None", value)
    if value is not None:
        object.__setattr__(block, "token_estimate", js_number(value))


@dataclass(frozen=True)
class Text:
    text: str
    #: A raw replay form (docs/model.md, Variants): the provider-native item a formatter emits instead (JSON).
    raw_item: Any = None

    def __post_init__(self) -> None:
        _str(self.text, "Text.text")


@dataclass(frozen=True)
class Thinking:
    thinking: str
    signature: str | None = None
    token_estimate: Number | None = None

    def __post_init__(self) -> None:
        _str(self.thinking, "Thinking.thinking")
        _str(self.signature, "Thinking.signature", optional=True)
        _stamp(self, "Thinking.token_estimate")


@dataclass(frozen=True)
class RedactedThinking:
    data: str | None
    token_estimate: Number | None = None
    raw_item: Any = None

    def __post_init__(self) -> None:
        _str(self.data, "RedactedThinking.data", optional=True)
        _stamp(self, "RedactedThinking.token_estimate")


@dataclass(frozen=True)
class ToolUse:
    id: str
    name: str
    input: Any
    #: Raw replay forms: the ``<function_calls>`` text the XML formatter replays, the native item.
    raw_xml: str | None = None
    raw_item: Any = None

    def __post_init__(self) -> None:
        _str(self.id, "ToolUse.id")
        _str(self.name, "ToolUse.name")


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    content: str | tuple[Block, ...]
    raw_xml: str | None = None
    raw_item: Any = None

    def __post_init__(self) -> None:
        _str(self.tool_use_id, "ToolResult.tool_use_id")
        require(
            isinstance(self.content, (str, tuple)), "ToolResult.content", "a string or a tuple of blocks", self.content
        )


@dataclass(frozen=True)
class Image:
    """An image; ``data`` is its base64 payload when it has one (the newer lines' byte wall counts its length)."""

    token_estimate: Number | None = None
    data: str | None = None

    def __post_init__(self) -> None:
        _stamp(self, "Image.token_estimate")
        _str(self.data, "Image.data", optional=True)

    @property
    def byte_size(self) -> int:
        """The base64 characters it carries (``imageBlockBytes``: 0 without a base64 payload)."""
        return 0 if self.data is None else len(self.data)


@dataclass(frozen=True)
class Document:
    pass


Block = Text | Thinking | RedactedThinking | ToolUse | ToolResult | Image | Document
Content = tuple[Block, ...]
Carrier = Thinking | RedactedThinking | Text
BLOCK_TYPES: tuple[type, ...] = (Text, Thinking, RedactedThinking, ToolUse, ToolResult, Image, Document)

"""Config and budget (docs/model.md, Config and budget): frozen, their types checked at construction.

A wrong type raises ``InvalidConfigError`` naming the field; bad *numbers* (NaN, negative, infinite) are kept,
as JavaScript would read them, since they are what the suite explores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from reference.errors import ModelError
from reference.names import suggest_fields
from reference.numerics import Number, is_number, js_number


class InvalidConfigError(ModelError, ValueError):
    """A config, budget or estimator value the compile cannot work with; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


EnvelopeKind = Literal["none", "xml"]
CarrierPolicy = Literal["full", "live-strip"]


@suggest_fields
@dataclass(frozen=True)
class Budget:
    max_tokens: Number
    reserve_for_response: Number = 0

    def __post_init__(self) -> None:
        for name in ("max_tokens", "reserve_for_response"):
            if not is_number(getattr(self, name)):
                raise InvalidConfigError(name, f"must be a number, got {getattr(self, name)!r}")
            object.__setattr__(self, name, js_number(getattr(self, name)))

    @property
    def input_budget(self) -> Number:
        """``max_tokens - reserve_for_response`` as a double: past 2**53 the difference rounds as JavaScript's does."""
        return js_number(self.max_tokens - self.reserve_for_response)


@suggest_fields
@dataclass(frozen=True)
class Config:
    head_window_tokens: Number = 0
    recent_window_tokens: Number = 0
    max_message_tokens: Number | None = 0
    positioned_recall_pairs: bool = True
    recall_envelope: EnvelopeKind = "none"
    carrier_policy: CarrierPolicy = "full"
    summary_context_label: str = "What do you remember from earlier?"
    recall_header_template: str = "[Recall {id}]"
    summary_participant: str = "Claude"
    l1_budget_tokens: Number = 30000
    l2_budget_tokens: Number = 30000
    l3_budget_tokens: Number = 30000
    over_budget_grace_ratio: Number = 0.02
    enforce_budget: bool = True
    max_live_images: Number = 0
    image_strip_depth_tokens: Number = 0
    tool_use_input_max_tokens: Number = 0
    tool_result_max_last_n: Number | tuple[tuple[str, Number], ...] | None = None
    #: The live-image byte wall of the newer lines (base64 characters; None: their default, 20 MiB; 0: off).
    max_live_image_bytes: Number | None = None
    #: The newer lines' opt-in image-strip hysteresis: a ratio in (0, 1) turns it on (None or any other value: off).
    image_strip_hysteresis_ratio: Number | None = None

    def __post_init__(self) -> None:
        _check_tool_image_fields(self)
        for name in (
            "head_window_tokens",
            "recent_window_tokens",
            "l1_budget_tokens",
            "l2_budget_tokens",
            "l3_budget_tokens",
            "over_budget_grace_ratio",
        ):
            if not is_number(getattr(self, name)):
                raise InvalidConfigError(name, f"must be a number, got {getattr(self, name)!r}")
            object.__setattr__(self, name, js_number(getattr(self, name)))
        if self.max_message_tokens is not None and not is_number(self.max_message_tokens):
            raise InvalidConfigError("max_message_tokens", f"must be a number or None, got {self.max_message_tokens!r}")
        if self.max_message_tokens is not None:
            object.__setattr__(self, "max_message_tokens", js_number(self.max_message_tokens))
        for name in ("positioned_recall_pairs", "enforce_budget"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidConfigError(name, f"must be a bool, got {getattr(self, name)!r}")
        if self.recall_envelope not in ("none", "xml"):
            raise InvalidConfigError("recall_envelope", f"must be 'none' or 'xml', got {self.recall_envelope!r}")
        if self.carrier_policy not in ("full", "live-strip"):
            raise InvalidConfigError("carrier_policy", f"must be 'full' or 'live-strip', got {self.carrier_policy!r}")
        for name in ("summary_context_label", "recall_header_template", "summary_participant"):
            if not isinstance(getattr(self, name), str):
                raise InvalidConfigError(name, f"must be a string, got {getattr(self, name)!r}")

    @property
    def cap(self) -> Number | None:
        """The message cap when it is on (``cap > 0``), else None."""
        c = self.max_message_tokens
        return c if c is not None and c > 0 else None


def _check_tool_image_fields(c: Config) -> None:
    """The image and tool-pruning fields (docs/model.md, "Image stripping", "Tool pruning").

    0 turns a cap off; ``tool_result_max_last_n`` is None (off), one number for every tool, or a
    mapping tool name -> number (stored as sorted pairs so the config stays hashable).
    """
    for name in ("max_live_images", "image_strip_depth_tokens", "tool_use_input_max_tokens"):
        if not is_number(getattr(c, name)):
            raise InvalidConfigError(name, f"must be a number, got {getattr(c, name)!r}")
    for name in ("max_live_image_bytes", "image_strip_hysteresis_ratio"):
        value = getattr(c, name)
        if value is not None and not is_number(value):
            raise InvalidConfigError(name, f"must be a number or None, got {value!r}")
        if value is not None:
            object.__setattr__(c, name, js_number(value))
    n = c.tool_result_max_last_n
    if n is None or is_number(n):
        return
    pairs = tuple(sorted(n.items())) if isinstance(n, Mapping) else n
    if not isinstance(pairs, tuple) or not all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and is_number(p[1]) for p in pairs
    ):
        raise InvalidConfigError(
            "tool_result_max_last_n", f"must be None, a number or a mapping tool name -> number, got {n!r}"
        )
    object.__setattr__(c, "tool_result_max_last_n", pairs)

"""The data of the model (SPEC sections 2 and 5): blocks, messages, summaries, the store, config, budget.

Everything is a frozen dataclass.  Structural errors in a store are refused at construction with
``InvalidStoreError``; bad *numbers* (NaN, negative or infinite stamps, tokens, caps) are kept,
since they are what the suite explores.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from reference.numerics import Number, is_number


class InvalidStoreError(ValueError):
    """A structural error in the store's data; the message names the culprit."""


class InvalidConfigError(ValueError):
    """A config, budget or estimator value the compile cannot work with; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


# ----------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Thinking:
    thinking: str
    signature: str | None = None
    token_estimate: Number | None = None


@dataclass(frozen=True)
class RedactedThinking:
    data: str | None
    token_estimate: Number | None = None


@dataclass(frozen=True)
class ToolUse:
    id: str
    name: str
    input: Any


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    content: str | tuple[Block, ...]


@dataclass(frozen=True)
class Image:
    token_estimate: Number | None = None


@dataclass(frozen=True)
class Document:
    pass


Block = Text | Thinking | RedactedThinking | ToolUse | ToolResult | Image | Document
Content = tuple[Block, ...]
Carrier = Thinking | RedactedThinking | Text
BLOCK_TYPES: tuple[type, ...] = (Text, Thinking, RedactedThinking, ToolUse, ToolResult, Image, Document)


# ----------------------------------------------------------------------------- store data


@dataclass(frozen=True)
class Message:
    id: str
    participant: str
    content: Content


@dataclass(frozen=True)
class Summary:
    id: str
    level: int
    content: str
    tokens: Number | None
    source_level: int
    source_ids: tuple[str, ...]
    source_range: tuple[str, str]
    parent_id: str | None = None
    response_content: tuple[Carrier, ...] | None = None

    def __post_init__(self) -> None:
        if self.tokens is None:
            object.__setattr__(self, "tokens", math.nan)
        for name in ("source_ids", "source_range"):
            object.__setattr__(self, name, _id_tuple(getattr(self, name), f"summary {self.id!r}: {name}"))
        if self.response_content is not None:
            object.__setattr__(self, "response_content", tuple(self.response_content))


def _id_tuple(value: object, where: str) -> tuple[str, ...]:
    """A sequence of ids as a tuple; a string (a sequence of letters) or a non-iterable is refused."""
    if isinstance(value, str):
        raise InvalidStoreError(f"{where} must be a sequence of ids, not a string")
    try:
        return tuple(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidStoreError(f"{where} must be a sequence of ids, got {value!r}") from None


WorkKind = Literal["chunk", "merge"]
WorkState = Literal["queued", "running"]


@dataclass(frozen=True)
class Work:
    """Queued or running compression work; ``folds`` None is a compression in flight with nothing recorded."""

    kind: WorkKind
    state: WorkState
    folds: frozenset[str] | None

    def __post_init__(self) -> None:
        if self.folds is None or isinstance(self.folds, frozenset):
            return
        if isinstance(self.folds, str) or not isinstance(self.folds, Iterable):
            shown = "a string" if isinstance(self.folds, str) else repr(self.folds)
            raise InvalidStoreError(f"work: folds must be a set of ids or None, got {shown}")
        object.__setattr__(self, "folds", frozenset(self.folds))


def _valid_calibration(c: object) -> bool:
    return is_number(c) and math.isfinite(c) and 0.25 < c < 4


@dataclass(frozen=True)
class Store:
    """Messages in order, summaries in creation order, and the estimator's settings."""

    messages: tuple[Message, ...]
    summaries: tuple[Summary, ...] = ()
    calibration: Number = 1.0
    pricing_epoch: int = 1
    text_estimator: Callable[[str], Number] | None = None
    work: tuple[Work, ...] = ()
    _index: Mapping[str, int] = field(init=False, repr=False, compare=False)
    _by_id: Mapping[str, Summary] = field(init=False, repr=False, compare=False)
    _leaves: Mapping[str, frozenset[str]] = field(init=False, repr=False, compare=False)
    #: Values derived from the store alone, kept by whoever derives them (``strategies.pricing``'s message prices).
    derived: dict[Any, Any] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "summaries", tuple(self.summaries))
        object.__setattr__(self, "work", tuple(self.work))
        if not _valid_calibration(self.calibration):
            object.__setattr__(self, "calibration", 1.0)
        _check_store(self)

    # -- derived views -------------------------------------------------------------

    def with_calibration(self, calibration: Number) -> Store:
        """A copy with a new calibration, accepted only when finite and in (0.25, 4)."""
        if not _valid_calibration(calibration):
            return self
        return Store(self.messages, self.summaries, calibration, self.pricing_epoch,
                     self.text_estimator, self.work)

    def index(self, message_id: str) -> int:
        """Position of a message in the store."""
        return self._index[message_id]

    def has_message(self, message_id: str) -> bool:
        return message_id in self._index

    def summary(self, summary_id: str) -> Summary:
        return self._by_id[summary_id]

    def leaves(self, summary_id: str) -> frozenset[str]:
        """The message ids a summary covers, through every level below it."""
        return self._leaves[summary_id]

    def unmerged(self) -> tuple[Summary, ...]:
        """Summaries with no parent, in creation order."""
        return tuple(s for s in self.summaries if s.parent_id is None)

    def claimers(self) -> Mapping[str, Summary]:
        """Message id -> the unmerged summary with content whose leaves hold it."""
        return {m: s for s in self.unmerged() if s.content for m in self.leaves(s.id)}

    def folds_any(self, within: frozenset[str] | None) -> bool:
        """``compression_work_queued(within)`` (SPEC section 13)."""
        if within is None:
            return bool(self.work)
        for w in self.work:
            if w.folds is None:
                return True
            if w.kind == "chunk" and w.folds & within:
                return True
            if w.kind == "merge" and any(self.leaves(s) & within for s in w.folds):
                return True
        return False


# ----------------------------------------------------------------------------- validation


def _fail(message: str) -> None:
    raise InvalidStoreError(message)


def _check_content(content: object, where: str) -> None:
    if not isinstance(content, tuple):
        _fail(f"{where}: content must be a tuple of blocks, got {type(content).__name__}")
    for i, block in enumerate(content):
        if not isinstance(block, BLOCK_TYPES):
            _fail(f"{where}.content[{i}]: not a block: {block!r}")
        if isinstance(block, ToolResult) and not isinstance(block.content, str):
            _check_content(block.content, f"{where}.content[{i}]")


def _check_summary_fields(s: Summary) -> None:
    where = f"summary {s.id!r}"
    if not isinstance(s.level, int) or isinstance(s.level, bool) or s.level < 1:
        _fail(f"{where}: level must be an integer >= 1, got {s.level!r}")
    if not isinstance(s.source_level, int) or isinstance(s.source_level, bool) or s.source_level < 0:
        _fail(f"{where}: source_level must be an integer >= 0, got {s.source_level!r}")
    if not isinstance(s.content, str):
        _fail(f"{where}: content must be a string")
    if not is_number(s.tokens):
        _fail(f"{where}: tokens must be a number or None, got {s.tokens!r}")
    if not s.source_ids:
        _fail(f"{where}: source_ids is empty (a summary summarizes something)")
    if len(s.source_range) != 2:
        _fail(f"{where}: source_range must be (first, last)")
    if s.response_content is not None:
        for i, b in enumerate(s.response_content):
            if not isinstance(b, (Thinking, RedactedThinking, Text)):
                _fail(f"{where}: response_content[{i}] must be Thinking, RedactedThinking or Text")


def _expand_leaves(by_id: Mapping[str, Summary]) -> dict[str, frozenset[str]]:
    """Each summary's leaves; a summary met again before its own expansion finished is a cycle."""
    leaves: dict[str, frozenset[str]] = {}
    started: set[str] = set()

    def expand(sid: str) -> frozenset[str]:
        if sid in leaves:
            return leaves[sid]
        if sid in started:  # started and not finished: on the path being expanded
            _fail(f"summary {sid!r}: cycle through source_ids")
        started.add(sid)
        s = by_id[sid]
        sources = s.source_ids
        got = frozenset(sources) if s.source_level == 0 else frozenset().union(*map(expand, sources))
        leaves[sid] = got
        return got

    for sid in by_id:
        expand(sid)
    return leaves


def _check_store(store: Store) -> None:
    index: dict[str, int] = {}
    for i, m in enumerate(store.messages):
        if not isinstance(m, Message):
            _fail(f"messages[{i}]: not a Message")
        if m.id in index:
            _fail(f"messages[{i}]: duplicate message id {m.id!r}")
        index[m.id] = i
        _check_content(m.content, f"message {m.id!r}")
    by_id: dict[str, Summary] = {}
    for s in store.summaries:
        if s.id in by_id:
            _fail(f"duplicate summary id {s.id!r}")
        _check_summary_fields(s)
        by_id[s.id] = s
    for s in store.summaries:
        for src in s.source_ids:
            if s.source_level == 0 and src not in index:
                _fail(f"summary {s.id!r}: source id {src!r} names no message")
            if s.source_level > 0 and (src not in by_id or by_id[src].level != s.source_level):
                _fail(f"summary {s.id!r}: source id {src!r} names no L{s.source_level} summary")
        if s.parent_id is not None and s.parent_id not in by_id:
            _fail(f"summary {s.id!r}: parent_id {s.parent_id!r} names no summary")
    _check_parent_cycles(by_id)
    leaves = _expand_leaves(by_id)
    for s in store.summaries:
        ordered = sorted(leaves[s.id], key=index.__getitem__)
        if tuple(s.source_range) != (ordered[0], ordered[-1]):
            _fail(f"summary {s.id!r}: source_range {tuple(s.source_range)!r} is not its first and "
                  f"last leaf ({ordered[0]!r}, {ordered[-1]!r})")
    owner: dict[str, str] = {}
    for s in store.summaries:
        if s.parent_id is None:
            for m in leaves[s.id]:
                if m in owner:
                    _fail(f"message {m!r} is a leaf of two unmerged summaries, {owner[m]!r} and {s.id!r}")
                owner[m] = s.id
    if store.pricing_epoch not in (0, 1) or isinstance(store.pricing_epoch, bool):
        _fail(f"pricing_epoch must be 0 or 1, got {store.pricing_epoch!r}")
    if store.text_estimator is not None and not callable(store.text_estimator):
        _fail("text_estimator must be callable or None")
    for i, w in enumerate(store.work):
        _check_work(i, w, index, by_id)
    object.__setattr__(store, "_index", index)
    object.__setattr__(store, "_by_id", by_id)
    object.__setattr__(store, "_leaves", leaves)


def _check_parent_cycles(by_id: Mapping[str, Summary]) -> None:
    for start in by_id:
        seen = {start}
        cur = by_id[start].parent_id
        while cur is not None:
            if cur in seen:
                _fail(f"summary {start!r}: cycle through parent_id")
            seen.add(cur)
            cur = by_id[cur].parent_id


def _check_work(i: int, w: Work, index: Mapping[str, int], by_id: Mapping[str, Summary]) -> None:
    where = f"work[{i}]"
    if w.kind not in ("chunk", "merge"):
        _fail(f"{where}: kind must be 'chunk' or 'merge', got {w.kind!r}")
    if w.state not in ("queued", "running"):
        _fail(f"{where}: state must be 'queued' or 'running', got {w.state!r}")
    if w.folds is None:
        if w.state != "running":
            _fail(f"{where}: queued work must record what it folds")
        return
    known = index if w.kind == "chunk" else by_id
    for fid in w.folds:
        if fid not in known:
            _fail(f"{where}: folds {fid!r}, which names no {'message' if w.kind == 'chunk' else 'summary'}")


# ----------------------------------------------------------------------------- config


EnvelopeKind = Literal["none", "xml"]
CarrierPolicy = Literal["full", "live-strip"]


@dataclass(frozen=True)
class Budget:
    max_tokens: Number
    reserve_for_response: Number = 0

    def __post_init__(self) -> None:
        for name in ("max_tokens", "reserve_for_response"):
            if not is_number(getattr(self, name)):
                raise InvalidConfigError(name, f"must be a number, got {getattr(self, name)!r}")

    @property
    def input_budget(self) -> Number:
        return self.max_tokens - self.reserve_for_response


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

    def __post_init__(self) -> None:
        for name in ("head_window_tokens", "recent_window_tokens", "l1_budget_tokens",
                     "l2_budget_tokens", "l3_budget_tokens", "over_budget_grace_ratio"):
            if not is_number(getattr(self, name)):
                raise InvalidConfigError(name, f"must be a number, got {getattr(self, name)!r}")
        if self.max_message_tokens is not None and not is_number(self.max_message_tokens):
            raise InvalidConfigError("max_message_tokens", f"must be a number or None, got {self.max_message_tokens!r}")
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


# ----------------------------------------------------------------------------- what a compile sends

EntryKind = Literal["raw", "question", "answer"]


@dataclass(frozen=True)
class Entry:
    """One turn of a compiled context; an answer lists the summaries it holds."""

    participant: str
    content: Content
    kind: EntryKind
    message_id: str | None = None
    summary_ids: tuple[str, ...] = ()

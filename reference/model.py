"""The data (docs/model.md, The data; Config and budget): messages, summaries, work, the store, what a compile sends.

Everything is a frozen dataclass.  Structural errors in a store are refused at construction with
``InvalidStoreError`` (a wrong type, content nested deeper than ``MAX_NESTING``, a summary whose level
is not one above its sources'); bad *numbers* (NaN, negative or infinite stamps, tokens, caps) are
kept, since they are what the suite explores.  A number is a JavaScript double: an integer beyond
2**53 is rounded to the nearest double, one beyond the largest double is +-Infinity (``js_number``).

The model's public face: the content blocks (``reference.blocks``) and config and budget
(``reference.config``) are imported from here too.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from reference.blocks import (
    BLOCK_TYPES,
    Block,
    Carrier,
    Content,
    Document,
    Image,
    InvalidStoreError,
    RedactedThinking,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    require,
)
from reference.config import Budget, CarrierPolicy, Config, EnvelopeKind, InvalidConfigError
from reference.names import suggest_fields
from reference.numerics import Number, is_number, js_blank, js_number

__all__ = [
    "BLOCK_TYPES",
    "MAX_NESTING",
    "Block",
    "Budget",
    "Carrier",
    "CarrierPolicy",
    "Config",
    "Content",
    "Derived",
    "Document",
    "Entry",
    "EntryKind",
    "EnvelopeKind",
    "Image",
    "InvalidConfigError",
    "InvalidStoreError",
    "Message",
    "RedactedThinking",
    "Store",
    "Summary",
    "Text",
    "Thinking",
    "ToolResult",
    "ToolUse",
    "Work",
    "json_depth",
]

#: The deepest nesting a message's content may have: tool results inside tool results, and the JSON
#: value of a tool use's input (docs/model.md, "Bad input"). Walks over content never recurse deeper.
MAX_NESTING = 256


# ----------------------------------------------------------------------------- store data


@suggest_fields
@dataclass(frozen=True)
class Message:
    id: str
    participant: str
    content: Content

    def __post_init__(self) -> None:
        require(isinstance(self.id, str), "Message.id", "a string", self.id)
        where = f"message {self.id!r}"
        require(isinstance(self.participant, str), f"{where}: participant", "a string", self.participant)


@suggest_fields
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
        elif is_number(self.tokens):
            object.__setattr__(self, "tokens", js_number(self.tokens))
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


@suggest_fields
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


def _sequence(value: object, name: str) -> tuple:
    """A store's list field as a tuple; a string, a mapping or a non-iterable is refused."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidStoreError(f"{name} must be a sequence, got {value!r}")
    return tuple(value)


def _valid_calibration(c: object) -> bool:
    return is_number(c) and math.isfinite(c) and 0.25 < c < 4


class Derived:
    """Values derived from one store alone, each computed by the first caller that asks and kept for the rest.

    Each value is held by a ``functools.cache`` of its computation, so that a tool tracing which functions a caller
    depends on (the harness's per-test coverage) sees every reader of a value depend on what computing it called,
    whichever caller happened to compute it.
    """

    def __init__(self) -> None:
        self._held: dict[Hashable, Callable[[], Any]] = {}

    def value(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept under ``key``, computed by ``compute`` the first time it is asked for."""
        held = self._held.get(key)
        if held is None:
            held = self._held[key] = functools.cache(compute)
        return held()


@suggest_fields
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
    #: Values derived from the store alone (``strategies.pricing``'s message prices, a judge's companion store).
    derived: Derived = field(init=False, repr=False, compare=False, default_factory=Derived)

    def __post_init__(self) -> None:
        for name in ("messages", "summaries", "work"):
            object.__setattr__(self, name, _sequence(getattr(self, name), name))
        if is_number(self.calibration):
            object.__setattr__(self, "calibration", js_number(self.calibration))
        if not _valid_calibration(self.calibration):
            object.__setattr__(self, "calibration", 1.0)
        _check_store(self)

    # -- derived views -------------------------------------------------------------

    def with_calibration(self, calibration: Number) -> Store:
        """A copy with a new calibration, accepted only when finite and in (0.25, 4)."""
        if not _valid_calibration(calibration):
            return self
        return Store(self.messages, self.summaries, calibration, self.pricing_epoch, self.text_estimator, self.work)

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
        """Message id -> the unmerged summary with content (not blank to JavaScript's ``trim``) whose leaves hold it."""
        return {m: s for s in self.unmerged() if not js_blank(s.content) for m in self.leaves(s.id)}

    def folds_any(self, within: frozenset[str] | None) -> bool:
        """``compression_work_queued(within)`` (docs/model.md, Compression work and cleared_by)."""
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
    """Every block of ``content``, nested tool results and tool-use inputs too, no deeper than ``MAX_NESTING``.

    Iterative, so that no depth of input can overflow the stack.
    """
    stack: list[tuple[object, str, int]] = [(content, where, 1)]
    while stack:
        blocks, path, depth = stack.pop()
        if depth > MAX_NESTING:
            _fail(f"{where}: content nested deeper than {MAX_NESTING} levels (tool results inside tool results)")
        if not isinstance(blocks, tuple):
            _fail(f"{path}: content must be a tuple of blocks, got {type(blocks).__name__}")
        for i, block in enumerate(blocks):  # type: ignore[arg-type]
            if not isinstance(block, BLOCK_TYPES):
                _fail(f"{path}.content[{i}]: not a block: {block!r}")
            if isinstance(block, ToolResult) and not isinstance(block.content, str):
                stack.append((block.content, f"{path}.content[{i}]", depth + 1))
            elif isinstance(block, ToolUse) and json_depth(block.input) + depth > MAX_NESTING:
                _fail(f"{where}: content nested deeper than {MAX_NESTING} levels (the input of tool use {block.id!r})")


def json_depth(value: object) -> int:
    """How deep lists and dicts nest in a JSON value (0 for a scalar), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend((x, d + 1) for x in v)
        elif isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        else:
            deepest = max(deepest, d)
            continue
        deepest = max(deepest, d + 1)
        if deepest > MAX_NESTING:
            return deepest
    return deepest


def _check_summary_fields(s: Summary) -> None:
    if not isinstance(s, Summary):
        _fail(f"summaries: not a Summary: {s!r}")
    require(isinstance(s.id, str), "Summary.id", "a string", s.id)
    where = f"summary {s.id!r}"
    require(s.parent_id is None or isinstance(s.parent_id, str), f"{where}: parent_id", "a string or None", s.parent_id)
    if not isinstance(s.level, int) or isinstance(s.level, bool) or s.level < 1:
        _fail(f"{where}: level must be an integer >= 1, got {s.level!r}")
    if not isinstance(s.source_level, int) or isinstance(s.source_level, bool) or s.source_level < 0:
        _fail(f"{where}: source_level must be an integer >= 0, got {s.source_level!r}")
    if s.level != s.source_level + 1:
        _fail(
            f"{where}: level {s.level} must be one above its source_level {s.source_level} (an L{s.level} "
            f"summarizes {'messages' if s.level == 1 else f'L{s.level - 1} summaries'})"
        )
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
    """Each summary's leaves, lowest level first (a summary's sources are one level below it): no recursion."""
    leaves: dict[str, frozenset[str]] = {}
    for s in sorted(by_id.values(), key=lambda s: s.level):
        if s.source_level == 0:
            leaves[s.id] = frozenset(s.source_ids)
        else:
            leaves[s.id] = frozenset().union(*(leaves[src] for src in s.source_ids))
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
        _check_summary_fields(s)
        if s.id in by_id:
            _fail(f"duplicate summary id {s.id!r}")
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
            _fail(
                f"summary {s.id!r}: source_range {tuple(s.source_range)!r} is not its first and "
                f"last leaf ({ordered[0]!r}, {ordered[-1]!r})"
            )
    owner: dict[str, str] = {}
    for s in store.summaries:
        if s.parent_id is None:
            for m in leaves[s.id]:
                if m in owner:
                    _fail(f"message {m!r} is a leaf of two unmerged summaries, {owner[m]!r} and {s.id!r}")
                owner[m] = s.id
    if store.pricing_epoch not in (0, 1) or isinstance(store.pricing_epoch, bool):
        _fail(f"pricing_epoch must be 0 or 1, got {store.pricing_epoch!r}")
    if store.text_estimator is not None:
        _check_estimator(store.text_estimator)
    for i, w in enumerate(store.work):
        _check_work(i, w, index, by_id)
    object.__setattr__(store, "_index", index)
    object.__setattr__(store, "_by_id", by_id)
    object.__setattr__(store, "_leaves", leaves)


def _check_estimator(estimator: object) -> None:
    """A text estimator: a callable that takes one argument, the text."""
    if not callable(estimator):
        _fail(f"text_estimator must be callable or None, got {estimator!r}")
    try:
        inspect.signature(estimator).bind("text")
    except TypeError:
        _fail(
            f"text_estimator must take one argument (the text), got {estimator!r} taking {inspect.signature(estimator)}"
        )
    except ValueError:  # no signature to read (some builtins): it is called and judged then
        pass


def _check_parent_cycles(by_id: Mapping[str, Summary]) -> None:
    """No summary is its own parent, and no chain of parents comes back (the chain is shown)."""
    for s in by_id.values():
        if s.parent_id == s.id:
            _fail(f"summary {s.id!r}: parent_id is its own id")
    for start in by_id:
        path = [start]
        while (cur := by_id[path[-1]].parent_id) is not None:
            if cur in path:
                _fail(f"summary {start!r}: cycle through parent_id ({' -> '.join(map(repr, [*path, cur]))})")
            path.append(cur)


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


# ----------------------------------------------------------------------------- what a compile sends

#: ``repair``: an entry the tool-pairing pass adds (stub results); it stands for no message.
EntryKind = Literal["raw", "question", "answer", "repair"]


@dataclass(frozen=True)
class Entry:
    """One turn of a compiled context; an answer lists the summaries it holds."""

    participant: str
    content: Content
    kind: EntryKind
    message_id: str | None = None
    summary_ids: tuple[str, ...] = ()

"""Tool pairing (docs/model.md, "Tool pairing"): the window boundaries, the orphan trim, the pairing repair.

The provider's rule: every ``tool_result`` answers a ``tool_use`` of the entry just before it, and
every ``tool_use`` is answered in the entry just after it. The windows keep a pair on one side of
each boundary (``getHeadWindowEnd``, ``getUnheldRecentWindowStart``); after emission
``trimOrphanedToolUse`` and ``enforceToolPairing`` repair what selection still split. Each pass
works on ``Slot``s: an entry and the index of the planned item it belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reference.model import Block, Content, Entry, Message, Text, ToolResult, ToolUse
from strategies.raw_forms import release_edited, release_shared_on_move

STUB_TEXT = "[tool result unavailable — omitted during context compression]"
CALL_OMITTED_TEXT = "[tool call omitted]"
MOVED_TEXT = "[tool result moved during context repair]"
STUB_PARTICIPANT = "user"
LOOKAHEAD = 6


def has_use(content: Content) -> bool:
    return any(isinstance(b, ToolUse) for b in content)


def has_result(content: Content) -> bool:
    return any(isinstance(b, ToolResult) for b in content)


def use_ids(content: Content) -> list[str]:
    """The ids of the top-level tool_use blocks, first occurrence order, without repeats."""
    return list(dict.fromkeys(b.id for b in content if isinstance(b, ToolUse)))


# ----------------------------------------------------------------------------- window boundaries


def head_step_back(messages: Sequence[Message], boundary: int, start: int = 0) -> int:
    """``getHeadWindowEnd``: a boundary right after a tool_use steps back one, so the use leaves with its result."""
    if boundary > start and boundary <= len(messages) and has_use(messages[boundary - 1].content):
        return boundary - 1
    return boundary


def recent_step_back(messages: Sequence[Message], boundary: int) -> int:
    """``getUnheldRecentWindowStart``: a window opening on a tool_result retreats one, taking its tool_use."""
    if 0 < boundary < len(messages) and has_result(messages[boundary].content):
        return boundary - 1
    return boundary


# ----------------------------------------------------------------------------- the passes


@dataclass(frozen=True)
class Slot:
    """One entry of the planned context and the index of the planned item that owns it."""

    owner: int
    entry: Entry


@dataclass(frozen=True)
class Stubs:
    """The stub results the pairing pass made, by identity (real output may quote the same text)."""

    blocks: tuple[ToolResult, ...] = ()

    def holds(self, block: Block) -> bool:
        return any(block is s for s in self.blocks)


def _with(slot: Slot, content: Content) -> Slot:
    return Slot(slot.owner, replace(slot.entry, content=tuple(content)))


def trim_orphaned_tool_use(slots: list[Slot]) -> list[Slot]:
    """``trimOrphanedToolUse``: pop trailing entries that hold a tool_use and no tool_result."""
    out = list(slots)
    while out and has_use(out[-1].entry.content) and not has_result(out[-1].entry.content):
        out.pop()
    return out


def _stub_entry(owner: int, results: Sequence[ToolResult]) -> Slot:
    return Slot(owner, Entry(STUB_PARTICIPANT, tuple(results), "repair"))


def _relocate_or_stub(
    slots: list[Slot], after: int, missing: Sequence[str], made: list[ToolResult], release: bool = False
) -> list[ToolResult]:
    """``relocateOrDropMissingResults``: move each missing result up from the next six entries, else stub it
    (``release``: the raw-forms line's release of the raw forms the move made untrue, on both sides)."""
    end = min(len(slots), after + 1 + LOOKAHEAD)
    found: list[ToolResult] = []
    for uid in missing:
        for j in range(after + 1, end):
            content = slots[j].entry.content
            k = next((k for k, b in enumerate(content) if isinstance(b, ToolResult) and b.tool_use_id == uid), None)
            if k is None:
                continue
            rest = content[:k] + content[k + 1 :]
            if release and rest:
                rest = release_edited(content, rest)
            slots[j] = _with(slots[j], rest or (Text(MOVED_TEXT),))
            found.append(release_shared_on_move(content[k], content) if release else content[k])  # type: ignore[arg-type]
            break
        else:
            stub = ToolResult(uid, STUB_TEXT)
            made.append(stub)
            found.append(stub)
    return found


def enforce_tool_pairing(slots: Sequence[Slot], release: bool = False) -> tuple[list[Slot], Stubs]:
    """``enforceToolPairing``: drop results that answer nothing just before; answer every use just after.

    Rule A drops a result whose use is not in the previous entry (or that answers it twice); an entry
    left empty says ``[tool call omitted]``. Rule B answers the previous entry's unanswered uses with
    the real result moved up from a few entries down, else a stub; into this entry when it already
    holds results, else in a new entry before it. A use still open at the end gets a stub entry.
    """
    work = list(slots)  # the entries ahead lose the results Rule B moves up from them
    out: list[Slot] = []
    made: list[ToolResult] = []
    prev: list[str] = []
    for i in range(len(work)):
        slot = work[i]
        content = slot.entry.content
        if has_result(content):
            seen: set[str] = set()
            kept: list[Block] = []
            for b in content:
                if isinstance(b, ToolResult):
                    if b.tool_use_id not in prev or b.tool_use_id in seen:
                        continue
                    seen.add(b.tool_use_id)
                kept.append(b)
            if len(kept) != len(content):
                if release and kept:
                    kept = list(release_edited(content, tuple(kept)))
                slot = _with(slot, kept or (Text(CALL_OMITTED_TEXT),))
                content = slot.entry.content
        if prev:
            answered = {b.tool_use_id for b in content if isinstance(b, ToolResult)}
            missing = [u for u in prev if u not in answered]
            if missing:
                results = _relocate_or_stub(work, i, missing, made, release)
                if answered:
                    slot = _with(slot, (*results, *content))
                else:
                    out.append(_stub_entry(out[-1].owner, results))
        out.append(slot)
        prev = use_ids(slot.entry.content)
    if prev:
        stubs = [ToolResult(u, STUB_TEXT) for u in prev]
        made.extend(stubs)
        out.append(_stub_entry(out[-1].owner, stubs))
    return out, Stubs(tuple(made))

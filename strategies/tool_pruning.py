"""Tool pruning (docs/model.md, "Tool pruning"): ``pruneToolEntries`` over the repaired context.

Two caps, both off by default: a tool_use whose input's JSON is over ``tool_use_input_max_tokens``
(chars/4) keeps only a marker and its first five keys; of each tool's results only the newest
``tool_result_max_last_n`` keep their content (pairing stubs neither count nor change).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from reference.model import Config, ToolResult, ToolUse
from reference.numerics import Number, js_ceil, json_stringify, len16
from strategies.raw_forms import release_edited
from strategies.tool_pairing import Slot, Stubs

INPUT_KEYS_KEPT = 5
CHARS_PER_TOKEN = 4


def _is_array_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and str(int(key)) == key and int(key) < 2**32 - 1


def input_keys(value: object) -> list[str]:
    """``Object.keys``: a dict's keys (array-index keys first, ascending), an array's or a string's indices,
    nothing for other values."""
    if isinstance(value, dict):
        keys = [str(k) for k in value]
        index = sorted((k for k in keys if _is_array_index(k)), key=int)
        return index + [k for k in keys if not _is_array_index(k)]
    if isinstance(value, (list, tuple)):
        return [str(i) for i in range(len(value))]
    if isinstance(value, str):
        return [str(i) for i in range(len16(value))]
    return []


def truncated_input(block: ToolUse, cap: Number) -> ToolUse:
    """The tool_use with its input replaced by the marker when its chars/4 estimate is over ``cap``."""
    tokens = js_ceil(len16(json_stringify(block.input)) / CHARS_PER_TOKEN)
    if not tokens > cap:
        return block
    marker = {"_truncated": True, "_originalTokens": tokens, "_keys": input_keys(block.input)[:INPUT_KEYS_KEPT]}
    return replace(block, input=marker)


def result_marker(tool: str, fresher: int) -> str:
    plural = "" if fresher == 1 else "s"
    return f"[Result truncated — tool '{tool}' has {fresher} more recent result{plural} below]"


def _limit(cfg: Number | tuple[tuple[str, Number], ...], tool: str) -> Number | None:
    if isinstance(cfg, tuple):
        return dict(cfg).get(tool)
    return cfg


def prune_tool_entries(slots: Sequence[Slot], config: Config, stubs: Stubs, release: bool = False) -> list[Slot]:
    """``pruneToolEntries``: cap tool inputs, then keep only each tool's newest N real results (``release``: then
    each edited entry gives up the raw forms its edits made untrue, as on the raw-forms line)."""
    pruned = _prune(slots, config, stubs)
    if not release:
        return pruned
    return [
        b
        if a.entry.content is b.entry.content
        else Slot(b.owner, replace(b.entry, content=release_edited(a.entry.content, b.entry.content)))
        for a, b in zip(slots, pruned, strict=True)
    ]


def _prune(slots: Sequence[Slot], config: Config, stubs: Stubs) -> list[Slot]:
    out = list(slots)
    cap = config.tool_use_input_max_tokens or 0
    names: dict[str, str] = {}
    for k, slot in enumerate(out):
        content = list(slot.entry.content)
        for j, b in enumerate(content):
            if isinstance(b, ToolUse):
                names[b.id] = b.name
                if cap > 0:
                    content[j] = truncated_input(b, cap)
        if content != list(slot.entry.content):
            out[k] = Slot(slot.owner, replace(slot.entry, content=tuple(content)))
    cfg = config.tool_result_max_last_n
    if cfg is None:
        return out
    occurrences: dict[str, list[tuple[int, int]]] = {}
    for k, slot in enumerate(out):
        for j, b in enumerate(slot.entry.content):
            if isinstance(b, ToolResult) and not stubs.holds(b) and b.tool_use_id in names:
                occurrences.setdefault(names[b.tool_use_id], []).append((k, j))
    for tool, occs in occurrences.items():
        limit = _limit(cfg, tool)
        if limit is None or limit < 0:
            continue
        excess = len(occs) - limit
        if not excess > 0:
            continue
        i = 0
        while i < excess:
            k, j = occs[i]
            content = list(out[k].entry.content)
            content[j] = replace(content[j], content=result_marker(tool, len(occs) - i - 1))
            out[k] = Slot(out[k].owner, replace(out[k].entry, content=tuple(content)))
            i += 1
    return out

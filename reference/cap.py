"""The message cap as the contract states it (docs/model.md, "The message cap"): ``truncate(content, cap)``.

The reference rendering's own cap, written from the contract and the TypeScript's ``truncateContent``
and ``safeSlice``; it shares no code with ``strategies/cap.py``.
"""

from __future__ import annotations

import math
from dataclasses import replace

from reference.model import Block, Content, Text, Thinking, ToolResult, ToolUse
from reference.numerics import Number, js_ceil, js_floor, json_stringify, len16

OMITTED_TEXT = "[content omitted — context budget exceeded]"


def _units(s: str) -> bytes:
    return s.encode("utf-16-le", "surrogatepass")


def safe_slice(s: str, end: Number) -> str:
    """TypeScript's ``safeSlice(s, 0, end)``: one unit earlier when the unit at ``end`` is a low surrogate."""
    units = _units(s)
    n = len(units) // 2
    cut = int(end)  # slice and charCodeAt truncate a fractional index
    if cut >= n:
        return s
    cut = max(cut, 0)
    code = int.from_bytes(units[2 * cut : 2 * cut + 2], "little")
    if 0xDC00 <= code <= 0xDFFF:
        cut = max(cut - 1, 0)
    return units[: 2 * cut].decode("utf-16-le", "surrogatepass")


# ----------------------------------------------------------------------------- the cap


def cap_is_on(cap: Number | None) -> bool:
    return cap is not None and not math.isnan(cap) and cap > 0


def chars_over_4(s: str) -> Number:
    return js_ceil(len16(s) / 4)


def text_only_estimate(content: Content) -> Number:
    """The cap's chars/4 estimate: Text, Thinking, ToolUse (+20) and string ToolResult; 0 for the rest."""
    total: Number = 0
    for b in content:
        if isinstance(b, Text):
            total += chars_over_4(b.text)
        elif isinstance(b, Thinking):
            total += chars_over_4(b.thinking)
        elif isinstance(b, ToolUse):
            total += chars_over_4(json_stringify(b.input)) + 20
        elif isinstance(b, ToolResult) and isinstance(b.content, str):
            total += chars_over_4(b.content)
    return total


def cut_text(original: str, remaining: Number) -> str:
    return safe_slice(original, js_floor(remaining)) + f"\n\n[truncated — original was {chars_over_4(original)} tokens]"


def cap_walk(content: Content, cap: Number | None) -> tuple[Content, tuple[bool, ...]]:
    """``truncate(content, cap)`` and, per input block, whether anything of it is sent."""
    if not cap_is_on(cap) or text_only_estimate(content) <= cap:
        return content, (True,) * len(content)
    remaining: Number = cap * 4
    out: list[Block] = []
    sent: list[bool] = []
    for b in content:
        if isinstance(b, Text):
            if remaining <= 0:
                sent.append(False)
                continue
            if len16(b.text) <= remaining:
                out.append(b)
                remaining -= len16(b.text)
            else:
                out.append(replace(b, text=cut_text(b.text, remaining)))  # a cut keeps the block's other fields
                remaining = 0
        elif isinstance(b, ToolResult) and isinstance(b.content, str):
            if remaining <= 0:
                out.append(ToolResult(b.tool_use_id, OMITTED_TEXT))
            elif len16(b.content) <= remaining:
                out.append(b)
                remaining -= len16(b.content)
            else:
                out.append(ToolResult(b.tool_use_id, cut_text(b.content, remaining)))
                remaining = 0
        else:
            out.append(b)
        sent.append(True)
    return tuple(out), tuple(sent)


def cap_content(content: Content, cap: Number | None) -> Content:
    """``truncate(content, cap)``: unchanged under the cap, else Text and string results cut to cap*4 chars."""
    return cap_walk(content, cap)[0]

"""The message cap (docs/model.md, The message cap): ``text_only`` and ``truncate``."""

from __future__ import annotations

from dataclasses import replace

from reference.model import Block, Content, Text, Thinking, ToolResult, ToolUse
from reference.numerics import Number, js_ceil, js_safe_slice, json_stringify, len16

OMITTED = "[content omitted — context budget exceeded]"
CHARS_PER_TOKEN = 4
TOOL_USE_OVERHEAD = 20


def cap_on(cap: Number | None) -> bool:
    """The cap is on only when it is a number > 0 (None, NaN, 0, negative and -inf are off)."""
    return cap is not None and cap > 0


def marker(original: str) -> str:
    return f"\n\n[truncated — original was {js_ceil(len16(original) / CHARS_PER_TOKEN)} tokens]"


def _block_text_only(block: Block) -> Number:
    match block:
        case Text():
            return js_ceil(len16(block.text) / CHARS_PER_TOKEN)
        case Thinking():
            return js_ceil(len16(block.thinking) / CHARS_PER_TOKEN)
        case ToolUse():
            return js_ceil(len16(json_stringify(block.input)) / CHARS_PER_TOKEN) + TOOL_USE_OVERHEAD
        case ToolResult() if isinstance(block.content, str):
            return js_ceil(len16(block.content) / CHARS_PER_TOKEN)
    return 0


def text_only(content: Content) -> Number:
    """The cap's own chars/4 estimate of a content."""
    return sum((_block_text_only(b) for b in content), 0)


def _cut(text: str, remaining: Number) -> str:
    return js_safe_slice(text, remaining) + marker(text)


def truncate_fates(content: Content, cap: Number | None) -> tuple[Content, tuple[bool, ...]]:
    """``truncate`` and, per input block, whether any of it survived (whole, cut, or passed through)."""
    if not cap_on(cap) or text_only(content) <= cap:
        return content, (True,) * len(content)
    remaining: Number = cap * CHARS_PER_TOKEN
    out: list[Block] = []
    fates: list[bool] = []
    for block in content:
        if isinstance(block, Text):
            if remaining <= 0:
                fates.append(False)
                continue
            if len16(block.text) <= remaining:
                out.append(block)
                remaining -= len16(block.text)
            else:
                out.append(replace(block, text=_cut(block.text, remaining)))
                remaining = 0
        elif isinstance(block, ToolResult) and isinstance(block.content, str):
            if remaining <= 0:
                out.append(ToolResult(block.tool_use_id, OMITTED))
            elif len16(block.content) <= remaining:
                out.append(block)
                remaining -= len16(block.content)
            else:
                out.append(ToolResult(block.tool_use_id, _cut(block.content, remaining)))
                remaining = 0
        else:
            out.append(block)
        fates.append(True)
    return tuple(out), tuple(fates)


def truncate(content: Content, cap: Number | None) -> Content:
    """The content as a raw message under the cap sends it; the same object when nothing is cut."""
    return truncate_fates(content, cap)[0]

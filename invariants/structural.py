"""What the structural passes may change, set aside so the rest of what is sent can be judged byte for byte.

The reference rendering (``reference.rendering``) renders the selection a compile made; it does not run the
tool-pairing, tool-pruning and image-stripping passes (docs/model.md, "Structural passes"). Those passes only
add, move or drop tool blocks, drop or replace images, and add ``repair`` entries, so the ``rendering``
invariant compares both sides with those set aside; ``well-formed`` and the passes' own tests judge them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from reference.model import Entry, Image, Store, Text, ToolResult, ToolUse
from strategies.images import PLACEHOLDER
from strategies.tool_pairing import CALL_OMITTED_TEXT, MOVED_TEXT, STUB_TEXT

#: The texts the passes put in place of what they remove.
PASS_TEXTS = frozenset({PLACEHOLDER, CALL_OMITTED_TEXT, MOVED_TEXT, STUB_TEXT})


def _kept(block: object) -> bool:
    if isinstance(block, (ToolUse, ToolResult, Image)):
        return False
    return not (isinstance(block, Text) and block.text in PASS_TEXTS)


def without_pass_blocks(entries: Iterable[Entry]) -> tuple[Entry, ...]:
    """``entries`` without repair entries, tool blocks, images and the passes' placeholder texts (an entry
    left empty is dropped)."""
    out = []
    for e in entries:
        if e.kind == "repair":
            continue
        content = tuple(b for b in e.content if _kept(b))
        if content:
            out.append(replace(e, content=content))
    return tuple(out)


def passes_may_act(entries: Iterable[Entry]) -> bool:
    """True when what is sent holds anything the passes work on or leave behind."""
    return any(e.kind == "repair" or not all(_kept(b) for b in e.content) for e in entries)


def store_has_pass_material(store: Store) -> bool:
    """True when a message holds a tool block or an image: the passes, and the windows' tool-pair step-backs,
    may then change what the reference layout (which models neither) predicts."""
    return any(not _kept(b) for m in store.messages for b in m.content)

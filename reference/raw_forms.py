"""Raw replay forms as the raw-forms line's contract states them (docs/model.md, Variants), apart from ``strategies/``.

A block may carry what a formatter replays instead of its fields: ``raw_xml`` (counts when it is a non-empty
string) and ``raw_item`` (counts when it is a JSON object or array). Two blocks share a form when its key is
the same: the XML text; the item's type and string id, or, without a string id, its JSON. When an edit changes,
drops or moves blocks of a message, every block of the message sharing a form with one of them gives that form
up. A reasoning item (an item of type ``reasoning``) and the next other item of the message go together: give
up one, give up both.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from reference.model import Block, Content
from reference.numerics import is_number, js_number_string


def _type_text(value: object) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if is_number(value):
        return js_number_string(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "[object Object]"
    return ",".join(str(v) for v in value)  # type: ignore[union-attr]


def _item(block: Block) -> str | None:
    item = getattr(block, "raw_item", None)
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        return "item:" + _type_text(item.get("type")) + ":" + item["id"]
    if isinstance(item, (dict, list)):
        return "item:" + json.dumps(item, separators=(",", ":"), ensure_ascii=False)
    return None


def forms(block: Block) -> set[str]:
    """The keys of the forms a block carries."""
    out = set()
    xml = getattr(block, "raw_xml", None)
    if isinstance(xml, str) and xml != "":
        out.add("xml:" + xml)
    item = _item(block)
    if item is not None:
        out.add(item)
    return out


def _reasoning(block: Block) -> bool:
    item = getattr(block, "raw_item", None)
    return isinstance(item, dict) and item.get("type") == "reasoning"


def _given_up(before: Sequence[Block], gone: set[str]) -> set[str]:
    """``gone`` grown by the reasoning pairings of ``before``: runs of reasoning items with the next other item."""
    groups: list[set[str]] = []
    run: set[str] = set()
    previous: str | None = None
    for block in before:
        key = _item(block)
        if key is None:
            continue
        if _reasoning(block):
            run.add(key)
            previous = None
        elif key != previous:
            if run:
                groups.append(run | {key})
            run, previous = set(), key
    out = set(gone)
    grew = True
    while grew:
        grew = False
        for group in groups:
            if group & out and not group <= out:
                out |= group
                grew = True
    return out


def without(block: Block, keys: set[str]) -> Block:
    xml = getattr(block, "raw_xml", None)
    changes = {}
    if isinstance(xml, str) and xml != "" and "xml:" + xml in keys:
        changes["raw_xml"] = None
    if _item(block) in keys:
        changes["raw_item"] = None
    return dataclasses.replace(block, **changes) if changes else block  # type: ignore[type-var]


def after_edit(before: Sequence[Block], after: Content) -> Content:
    """``after``, an edit of ``before`` keeping every unchanged block as the same object, with the forms of every
    changed, dropped or moved block given up by every block that carries them."""
    remaining = [id(b) for b in after]
    gone = set().union(*(forms(b) for b in before if id(b) not in remaining))
    if not gone:
        return after
    keys = _given_up(before, gone)
    return tuple(without(b, keys) for b in after)


def moved(block: Block, source: Sequence[Block]) -> Block:
    """A block moved out of ``source`` keeps only the forms no other block of ``source`` carries."""
    shared = set().union(*(forms(b) for b in source if b is not block)) & forms(block)
    return without(block, shared) if shared else block

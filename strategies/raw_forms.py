"""Raw replay forms (docs/model.md, Variants): on the raw-forms line an edit releases the raw forms it made untrue.

A block's raw form is what a formatter replays instead of the block's fields: ``raw_xml`` (a non-empty
string; key ``xml:`` + the text) on tool blocks, ``raw_item`` (an object; key ``item:type:id``, or its JSON
when it has no string id) on any block. Blocks parsed from one source share it. After an edit, every block
of the message that shares a key with an edited, dropped or moved block gives that form up; a Responses
reasoning item and the next non-reasoning item are one pairing and are released together. Unchanged blocks
are recognised by identity, as the TypeScript does (``releaseEditedRawForms``, ``releaseSharedRawFormsOnMove``
and ``releasePairings`` in ``src/raw-forms.ts`` at cbe7032a, stored id 71192551317).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reference.model import Block, Content
from reference.numerics import is_number, js_number_string, json_stringify


def _xml_key(block: Block) -> str | None:
    raw = getattr(block, "raw_xml", None)
    return f"xml:{raw}" if isinstance(raw, str) and raw else None


def _js_string(value: object) -> str:
    """``String(value ?? '')`` for the JSON values an item's type can be."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return js_number_string(value)
    return (
        value if isinstance(value, str) else "[object Object]" if isinstance(value, dict) else ",".join(map(str, value))
    )


def _item_key(block: Block) -> str | None:
    raw = getattr(block, "raw_item", None)
    if not isinstance(raw, (dict, list)):  # typeof 'object' (null excluded)
        return None
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        return f"item:{_js_string(raw.get('type'))}:{raw['id']}"
    return f"item:{json_stringify(raw)}"


def _is_reasoning(block: Block) -> bool:
    raw = getattr(block, "raw_item", None)
    return isinstance(raw, dict) and raw.get("type") == "reasoning"


def raw_form_keys(block: Block) -> list[str]:
    """The keys of the raw forms a block carries (``rawFormKeys``)."""
    return [k for k in (_xml_key(block), _item_key(block)) if k is not None]


def without_raw_forms(block: Block, keys: set[str]) -> Block:
    """The block without the raw forms whose keys are in ``keys``; the block itself when it carries none."""
    xml, item = _xml_key(block), _item_key(block)
    drop = {}
    if xml is not None and xml in keys:
        drop["raw_xml"] = None
    if item is not None and item in keys:
        drop["raw_item"] = None
    return dataclasses.replace(block, **drop) if drop else block  # type: ignore[type-var]


def _widen_to_pairings(before: Sequence[Block], released: set[str]) -> None:
    """Each run of reasoning items pairs with the next non-reasoning item; a pairing with a member released is
    released whole."""
    pairings: list[list[str]] = []
    pending: list[str] = []
    last: str | None = None
    for block in before:
        key = _item_key(block)
        if key is None:
            continue
        if _is_reasoning(block):
            if key not in pending:
                pending.append(key)
            last = None
            continue
        if key == last:
            continue
        if pending:
            pairings.append([*pending, key])
        pending = []
        last = key
    widened = True
    while widened:
        widened = False
        for pairing in pairings:
            if any(k in released for k in pairing):
                for k in pairing:
                    if k not in released:
                        released.add(k)
                        widened = True


def release_edited(before: Sequence[Block], after: Content) -> Content:
    """``after`` (an edit of ``before``) with every raw form an edited, dropped or moved block carried given up by
    every block that carries it; ``after`` itself when nothing changes."""
    kept = {id(b) for b in after}
    released = {k for b in before if id(b) not in kept for k in raw_form_keys(b)}
    if not released:
        return after
    _widen_to_pairings(before, released)
    result = tuple(without_raw_forms(b, released) for b in after)
    return after if all(x is y for x, y in zip(result, after, strict=True)) else result


def release_shared_on_move(moved: Block, source: Sequence[Block]) -> Block:
    """A block moved out of ``source`` gives up the raw forms it shares with a block left behind."""
    own = raw_form_keys(moved)
    if not own:
        return moved
    shared = {k for b in source if b is not moved for k in raw_form_keys(b) if k in own}
    return without_raw_forms(moved, shared) if shared else moved

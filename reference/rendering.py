"""The reference rendering: what a compile must send, byte for byte, given the selection it made.

Deliberately simple and written from the contract (docs/model.md, "The message cap",
"Recall answers", "Emission", "The reference rendering", "What the structural passes change"), with no code shared with
``strategies/``: given which raw messages were sent and which summaries were selected, it lays out
the head, the middle (positioned pairs or the combined pair) and the accepted tail, renders every
entry from scratch and runs the structural passes over them (``reference.passes``, "Structural
passes"). It follows the TypeScript; four named defects change the bytes and are switches here
(``Switches``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from reference import passes, raw_forms
from reference.cap import cap_content, cap_is_on, cap_walk, text_only_estimate
from reference.images import ImageRules, depth_start, resolved
from reference.model import Block, Config, Content, Entry, Store, Summary, Text
from reference.numerics import Number, js_number_string, js_replace_all, js_trim
from reference.price import live_prose
from reference.selection import Rules, bounds, message_prices

SEPARATOR_TEXT = "\n\n---\n\n"
CLOSE = "</cm-recall>"
ASKER = "Context Manager"


@dataclass(frozen=True)
class Switches:
    """The named defects that change what is sent: the combined answer's order, the windows' stamps, the header."""

    combined_selection_order: bool = False  # Defect.COMBINED_SELECTION_ORDER
    verbatim_stamps: bool = False  # Defect.STAMPS_VERBATIM (the windows price stamps verbatim)
    header_replace_chained: bool = False  # Defect.HEADER_REPLACE_CHAINED (four chained String.replace calls)
    trim_trailing_calls: bool = False  # Defect.TRIM_DROPS_TRAILING_TOOL_USE (trimOrphanedToolUse runs first)
    images: ImageRules = ImageRules()  # noqa: RUF009 (frozen) the line's image rules (docs/model.md, Variants)
    release_raw_forms: bool = False  # Behaviour.RAW_FORMS_RELEASED (edits give up the raw forms they made untrue)


@dataclass(frozen=True)
class Selection:
    """What a compile chose: the messages it sent raw, and the summaries it selected (selection order)."""

    raw: frozenset[str]
    summaries: tuple[str, ...]


# ----------------------------------------------------------------------------- recall pairs


def recall_header(s: Summary, config: Config, chained: bool = False) -> str:
    """The positioned question: each ``{id}``, ``{level}``, ``{first}``, ``{last}`` replaced by its value in one
    pass; ``chained``, in turn by four JavaScript ``String.replace`` calls (the TypeScript's buildRecallHeader)."""
    values = {"id": s.id, "level": js_number_string(s.level), "first": s.source_range[0], "last": s.source_range[1]}
    if not chained:
        return re.sub(r"\{(id|level|first|last)\}", lambda m: values[m.group(1)], config.recall_header_template)
    text = config.recall_header_template
    for name, value in values.items():
        text = js_replace_all(text, "{" + name + "}", value)
    return text


def opening(s: Summary) -> str:
    first, last = s.source_range
    tag = "<cm-recall"
    if s.id:
        tag += f' id="{s.id}"'
    if math.isfinite(s.level):
        tag += f' level="{js_number_string(s.level)}"'
    if first and last:
        tag += f' span="{first}..{last}"'
    return tag + ">"


def envelope(content: Content, s: Summary, config: Config) -> Content:
    """``xml``: the open tag and a newline before the first Text, a newline and the close tag after the last."""
    if config.recall_envelope != "xml":
        return content
    texts = [k for k, b in enumerate(content) if isinstance(b, Text)]
    if not texts:
        return (*content, Text(opening(s) + "\n" + CLOSE))
    blocks = list(content)
    blocks[texts[0]] = Text(opening(s) + "\n" + blocks[texts[0]].text)
    blocks[texts[-1]] = Text(blocks[texts[-1]].text + "\n" + CLOSE)
    return tuple(blocks)


def blank(s: Summary) -> bool:
    """A summary whose text is empty after JavaScript's trim sends no pair."""
    return js_trim(s.content) == ""


def positioned_pair(s: Summary, config: Config, switches: Switches = Switches()) -> tuple[Entry, Entry]:
    answer = envelope(cap_content(live_prose(s, config), config.cap), s, config)
    return (
        Entry(ASKER, (Text(recall_header(s, config, switches.header_replace_chained)),), "question"),
        Entry(config.summary_participant, answer, "answer", summary_ids=(s.id,)),
    )


def _held_none(summaries: Sequence[Summary], config: Config) -> tuple[Content, list[Summary]]:
    """Every live prose joined by separators, capped as one; a summary is held when any of its blocks is sent."""
    joined: list[Block] = []
    owner: list[int] = []
    for k, s in enumerate(summaries):
        if k:
            joined.append(Text(SEPARATOR_TEXT))
            owner.append(-1)
        prose = live_prose(s, config)
        joined.extend(prose)
        owner.extend([k] * len(prose))
    content, sent = cap_walk(tuple(joined), config.cap)
    kept = {owner[i] for i, ok in enumerate(sent) if ok}
    return content, [s for k, s in enumerate(summaries) if k in kept]


def _held_xml(summaries: Sequence[Summary], config: Config) -> tuple[Content, list[Summary]]:
    on = cap_is_on(config.cap)
    remaining: Number = config.cap if on else math.inf
    blocks: list[Block] = []
    held: list[Summary] = []
    for k, s in enumerate(summaries):
        sep = 2 if k else 0
        if on and remaining - sep <= 0:
            break
        capped = cap_content(live_prose(s, config), remaining - sep if on else None)
        if k:
            blocks.append(Text(SEPARATOR_TEXT))
        blocks.extend(envelope(capped, s, config))
        held.append(s)
        if on:
            remaining -= text_only_estimate(capped) + sep
    return tuple(blocks), held


def combined_pair(summaries: Sequence[Summary], config: Config) -> tuple[Entry, Entry]:
    content, held = (_held_xml if config.recall_envelope == "xml" else _held_none)(summaries, config)
    return (
        Entry(ASKER, (Text(config.summary_context_label),), "question"),
        Entry(config.summary_participant, content, "answer", summary_ids=tuple(s.id for s in held)),
    )


# ----------------------------------------------------------------------------- layout


def raw_entry(store: Store, index: int, config: Config, release: bool = False) -> Entry:
    """A raw message as sent before the passes: cut by the cap (``release``: the raw forms the cut made untrue
    given up)."""
    m = store.messages[index]
    content = cap_content(m.content, config.cap)
    return Entry(
        m.participant, raw_forms.after_edit(m.content, content) if release else content, "raw", message_id=m.id
    )


def combined_sequence(store: Store, summaries: Iterable[Summary], switches: Switches) -> list[Summary]:
    """The combined answer's order: by first leaf, ties in creation order (or the selection's order)."""
    chosen = list(summaries)
    if switches.combined_selection_order:
        return chosen
    created = {s.id: k for k, s in enumerate(store.summaries)}
    return sorted(chosen, key=lambda s: (store.index(s.source_range[0]), created[s.id]))


Site = Literal["head", "positioned", "combined-pair", "raw-after-combined", "tail"]


@dataclass(frozen=True)
class Item:
    """One unit of emission as the contract lays it out: a raw message or a recall pair, and its site."""

    site: Site
    entries: tuple[Entry, ...]
    raw: tuple[str, ...] = ()
    held: tuple[Summary, ...] = ()

    @property
    def level(self) -> int:
        return max((s.level for s in self.held), default=0)


def layout(
    store: Store,
    config: Config,
    raw: Iterable[int],
    summaries: Sequence[Summary],
    bounds: tuple[int, int],
    switches: Switches = Switches(),
) -> list[Item]:
    """The items in emission order: head raw messages, the middle (positioned or combined), the tail."""
    head_end, middle_end = bounds
    indices = sorted(set(raw))

    def raw_item(i: int, site: Site) -> Item:
        return Item(site, (raw_entry(store, i, config, switches.release_raw_forms),), raw=(store.messages[i].id,))

    items = [raw_item(i, "head") for i in indices if i < head_end]
    middle = [i for i in indices if head_end <= i < middle_end]
    if config.positioned_recall_pairs:
        keyed: list[tuple[tuple[int, int, int], Summary | int]] = [
            ((store.index(s.source_range[0]), 0, k), s) for k, s in enumerate(summaries) if not blank(s)
        ]
        keyed += [((i, 1, 0), i) for i in middle]
        for _, thing in sorted(keyed, key=lambda kv: kv[0]):
            if isinstance(thing, Summary):
                items.append(Item("positioned", positioned_pair(thing, config, switches), held=(thing,)))
            else:
                items.append(raw_item(thing, "positioned"))
    else:
        if summaries:
            question, answer = combined_pair(combined_sequence(store, summaries, switches), config)
            held = tuple(store.summary(sid) for sid in answer.summary_ids)
            items.append(Item("combined-pair", (question, answer), held=held))
        items += [raw_item(i, "raw-after-combined") for i in middle]
    items += [raw_item(i, "tail") for i in indices if i >= middle_end]
    return items


def finish(store: Store, config: Config, items: Sequence[Item], switches: Switches = Switches()) -> list[Item]:
    """The items as sent: the structural passes run over all their entries, each entry kept by the item that
    owns it (a repair entry by the item whose call it answers)."""
    pieces = [passes.Piece.of(k, e) for k, it in enumerate(items) for e in it.entries]
    prices = message_prices(store, Rules(verbatim_stamps=switches.verbatim_stamps))
    images = resolved(switches.images, prices, [m.content for m in store.messages], config)
    start = depth_start(prices, config.image_strip_depth_tokens)
    done = passes.run(store, config, pieces, start, switches.trim_trailing_calls, images, switches.release_raw_forms)
    return [replace(it, entries=tuple(p.entry for p in done if p.owner == k)) for k, it in enumerate(items)]


def planned_raw(store: Store, selection: Selection, bounds_: tuple[int, int], switches: Switches) -> set[int]:
    """The raw messages of the plan the passes ran over: those sent, and with ``trim_trailing_calls`` also
    every head, tail and unclaimed middle message (the trim may have popped the newest of them)."""
    raw = {store.index(m) for m in selection.raw}
    if switches.trim_trailing_calls:
        head_end, middle_end = bounds_
        claimed = {store.index(m) for sid in selection.summaries for m in store.leaves(sid)}
        raw |= {i for i in range(len(store.messages)) if not head_end <= i < middle_end or i not in claimed}
    return raw


def render(
    store: Store,
    config: Config,
    selection: Selection,
    switches: Switches = Switches(),
    bounds_: tuple[int, int] | None = None,
) -> tuple[Entry, ...]:
    """The entries a compile that made ``selection`` must send, in order, after the structural passes
    (``bounds_``: the windows' bounds under ``switches``, when the caller has them already)."""
    if bounds_ is None:
        bounds_ = bounds(store, config, Rules(verbatim_stamps=switches.verbatim_stamps, images=switches.images))
    summaries = [store.summary(sid) for sid in selection.summaries]
    items = layout(store, config, planned_raw(store, selection, bounds_, switches), summaries, bounds_, switches)
    return tuple(e for it in finish(store, config, items, switches) for e in it.entries)

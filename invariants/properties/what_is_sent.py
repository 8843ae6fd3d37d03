"""The invariants of what is sent (docs/model.md, Invariants): rendering, selection, exactly-once,
chronological and tail-suffix, each judged against the reference selection and rendering."""

from __future__ import annotations

from collections.abc import Iterable

from invariants.properties.line_rules import rules_for, switches_for
from invariants.properties.running import (
    Outcome,
    Variant,
    Violation,
    compile_once,
    crash,
    entries_text,
    first_difference,
    invariant,
    judges_what_is_sent,
)
from reference.model import Budget, Config, Entry, Store
from reference.rendering import Selection as RenderedSelection
from reference.rendering import render
from reference.selection import bounds
from reference.selection import select as reference_select
from strategies.errors import UncoveredDropError


@judges_what_is_sent("rendering", cost=7)
def rendering(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """What is sent is, byte for byte, the reference rendering of the selection the compile made."""
    raw = frozenset(e.message_id for e in out.entries if e.kind == "raw")
    selection = RenderedSelection(raw, out.result.selected)
    expected = render(store, config, selection, switches_for(variant))
    if entries_text(expected) == entries_text(out.entries):
        return []
    return [
        Violation(
            name,
            f"the compile sends {len(out.entries)} entries, the reference rendering of its "
            f"selection ({len(raw)} raw, summaries {list(selection.summaries)}) {len(expected)}: "
            f"{first_difference(expected, out.entries)}",
        )
    ]


@judges_what_is_sent("selection", cost=11)
def selection_rule(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """The compile selects what the reference selection selects (candidates, waterfall, completion)."""
    expected = tuple(s.id for s in reference_select(store, config, budget, rules_for(variant)).selected)
    if expected == out.result.selected:
        return []
    return [
        Violation(
            name,
            f"the compile selected {list(out.result.selected)}, the reference selection "
            f"{list(expected)} (budget {budget.input_budget})",
        )
    ]


def _represented(store: Store, entries: Iterable[Entry]) -> list[tuple[int, frozenset[int]]]:
    """Per raw entry or answer, in order: its position in ``entries`` and the message indices it stands for."""
    out = []
    for k, e in enumerate(entries):
        if e.kind == "raw" and e.message_id is not None:
            out.append((k, frozenset({store.index(e.message_id)})))
        elif e.kind == "answer":
            out.append((k, frozenset(store.index(m) for sid in e.summary_ids for m in store.leaves(sid))))
    return out


@judges_what_is_sent("exactly-once", cost=8)
def exactly_once(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """Each message is represented once: raw, or through one summary an answer holds.

    The contract's one exception: a head or tail message that is a leaf of a summary straddling the
    middle and that window is sent raw and through the summary.
    """
    head_end, middle_end = bounds(store, config, rules_for(variant))
    raw_count: dict[int, int] = {}
    held_count: dict[int, int] = {}
    held_ids = [sid for e in out.entries if e.kind == "answer" for sid in e.summary_ids]
    straddling = {
        store.index(m)
        for sid in held_ids
        for m in store.leaves(sid)
        if any(head_end <= store.index(x) < middle_end for x in store.leaves(sid))
    }
    for e in out.entries:
        if e.kind == "raw" and e.message_id is not None:
            i = store.index(e.message_id)
            raw_count[i] = raw_count.get(i, 0) + 1
    for sid in held_ids:
        for m in store.leaves(sid):
            i = store.index(m)
            held_count[i] = held_count.get(i, 0) + 1
    found = []
    for i, m in enumerate(store.messages):
        r, h = raw_count.get(i, 0), held_count.get(i, 0)
        window = (i < head_end or i >= middle_end) and i in straddling
        if r > 1 or h > 1 or (r and h and not window):
            found.append(f"{m.id} ({r} raw, {h} through summaries)")
    repeated = sorted({sid for sid in held_ids if held_ids.count(sid) > 1})
    if not found and not repeated:
        return []
    detail = "; ".join(found) + (f"; summaries held twice: {repeated}" if repeated else "")
    return [
        Violation(
            name,
            f"messages represented more than once: {detail} "
            f"(windows: head [0, {head_end}), tail [{middle_end}, {len(store.messages)}))",
        )
    ]


def _combined_as_one(
    store: Store,
    config: Config,
    variant: Variant,
    entries: tuple[Entry, ...],
    units: list[tuple[int, frozenset[int]]],
) -> list[tuple[int, frozenset[int]]] | Violation:
    """Combined mode sends the pair, then the middle's raw messages: together they stand for the middle."""
    head_end, middle_end = bounds(store, config, rules_for(variant))
    answer = next((k for k, e in enumerate(entries) if e.kind == "answer"), None)
    if answer is None:
        return units
    merged: set[int] = set()
    raws: list[int] = []
    last = answer  # where the last of the middle's raw messages after the pair is sent
    kept = []
    for k, stands_for in units:
        middle_raw = entries[k].kind == "raw" and k > answer and head_end <= min(stands_for) < middle_end
        if k == answer or middle_raw:
            merged |= stands_for
            raws += [min(stands_for)] if middle_raw else []
            last = k
            if k == answer:
                kept.append((k, frozenset()))
        else:
            kept.append((k, stands_for))
    if raws != sorted(raws):
        return Violation(
            "chronological",
            f"the middle's raw messages after the combined pair are out of order: "
            f"{[store.messages[i].id for i in raws]}",
        )
    among = next(((k, u) for k, u in kept if answer < k < last), None)
    if among is not None:
        return Violation(
            "chronological",
            f"entry {among[0]} stands for {sorted(store.messages[i].id for i in among[1])}, sent among the middle's "
            f"raw messages after the combined pair (the last at entry {last})",
        )
    return [(k, frozenset(merged)) if k == answer else (k, u) for k, u in kept]


#: What the message an entry must come after is, in chronological's findings.
FIRST_OF_AN_ENTRY = "the first of an entry before it"
STRADDLED = "the last of the head, which a pair before it straddles"


@judges_what_is_sent("chronological", cost=9)
def chronological(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """Entries follow the order of the messages they stand for: each one's first new message after the last's, and
    an entry whose messages were all sent before (a head message a straddling pair also stands for) not after an
    entry of later messages."""
    units = _represented(store, out.entries)
    if not config.positioned_recall_pairs:
        units = _combined_as_one(store, config, variant, out.entries, units)
        if isinstance(units, Violation):
            return [units]
    seen: set[int] = set()
    latest, what = -1, FIRST_OF_AN_ENTRY
    head_end, _ = bounds(store, config, rules_for(variant))
    for k, stands_for in units:
        new = stands_for - seen
        if new and min(new) <= latest:
            return [
                Violation(
                    name,
                    f"entry {k} stands for {sorted(store.messages[i].id for i in new)}, whose first "
                    f"is not after {store.messages[latest].id}, {what}",
                )
            ]
        if not new and stands_for and max(stands_for) < latest:  # all sent before, now after later messages
            return [
                Violation(
                    name,
                    f"entry {k} stands for {sorted(store.messages[i].id for i in stands_for)}, all of them before "
                    f"{store.messages[latest].id}, {what}",
                )
            ]
        seen |= stands_for
        if new:
            latest, what = min(new), FIRST_OF_AN_ENTRY
        pair = config.positioned_recall_pairs and out.entries[k].kind == "answer" and stands_for  # holding messages
        if pair and min(stands_for) < head_end and head_end - 1 < latest:
            latest, what = head_end - 1, STRADDLED  # a pair straddling the head stands first in the middle
    for k, e in enumerate(out.entries):
        firsts = [store.index(store.summary(sid).source_range[0]) for sid in e.summary_ids]
        if firsts != sorted(firsts):
            return [Violation(name, f"the answer at entry {k} holds {list(e.summary_ids)} out of chronological order")]
    return []


@invariant("tail-suffix", cost=10)
def tail_suffix(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """The tail sent is a contiguous run of the newest messages; what is evicted is the oldest part of it."""
    name = "tail-suffix"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    n = len(store.messages)
    _, middle_end = bounds(store, config, rules_for(variant))
    if out.sent:
        tail = sorted(
            store.index(e.message_id)
            for e in out.entries
            if e.kind == "raw" and store.index(e.message_id) >= middle_end
        )
        if tail != list(range(middle_end, n)):
            return [
                Violation(
                    name,
                    f"the tail is [{middle_end}, {n}) but the compile sends of it "
                    f"{[store.messages[i].id for i in tail]}",
                )
            ]
        return []
    if isinstance(out.error, UncoveredDropError):
        categories = out.error.categories
        lost = sorted(
            m for m in out.error.dropped if store.index(m) >= middle_end and categories.get(m) != "in-tail-not-rendered"
        )
        if lost:
            return [
                Violation(
                    name,
                    f"tail messages {lost} are dropped as {[categories.get(m) for m in lost]}; "
                    "a tail message is sent or evicted (in-tail-not-rendered)",
                )
            ]
        evicted = sorted(store.index(m) for m, c in categories.items() if c == "in-tail-not-rendered")
        if evicted and evicted != list(range(middle_end, evicted[-1] + 1)):
            return [
                Violation(
                    name,
                    f"the evicted messages {[store.messages[i].id for i in evicted]} are not the "
                    f"oldest run of the tail [{middle_end}, {n})",
                )
            ]
    return []

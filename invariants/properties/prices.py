"""The invariants of what a send costs and holds: stats total, exact budget, never over, nothing lost
(docs/model.md, Invariants)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from invariants.generators import input_budget_for, with_large_level_budgets
from invariants.properties.running import (
    UNLIMITED,
    Outcome,
    Variant,
    Violation,
    compile_once,
    crash,
    entries_text,
    first_difference,
    grace_limit,
    invariant,
    judges_what_is_sent,
)
from reference.model import Budget, Config, Entry, Store
from reference.numerics import is_number, js_blank, js_floor, js_max
from reference.price import reference_price
from strategies.errors import InvalidConfigError

# ----------------------------------------------------------------------------- 1. stats total


@judges_what_is_sent("stats-total", cost=1)
def stats_total(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """After a successful compile the stats' total equals the reference price of what is sent, and its message count
    is the raw messages the buckets counted plus 2 for each recall pair sent, which is the entries sent (a pairing
    stub counts for the raw message that owns it)."""
    s = out.result.stats
    pairs = sum(1 for e in out.entries if e.kind == "answer")
    counted = s.head.messages + s.middle_raw.messages + s.tail.messages + 2 * pairs
    buckets = (
        f"head {s.head.messages}, middle_raw {s.middle_raw.messages}, tail {s.tail.messages} raw messages and 2 for "
        f"each of the {pairs} recall pairs sent"
    )
    found = []
    if s.total.messages != counted:
        found.append(
            Violation(
                name, f"the stats' total counts {s.total.messages} messages but the buckets count {counted}: {buckets}"
            )
        )
    if counted != len(out.entries):
        found.append(
            Violation(name, f"the buckets count {counted} messages ({buckets}) but {len(out.entries)} entries are sent")
        )
    price = reference_price(out.entries, store, config)
    total = s.total.tokens
    if total == price:
        return found
    charged = (
        f"head {s.head.tokens}, middle_raw {s.middle_raw.tokens}, tail {s.tail.tokens}, "
        f"combined {s.combined.tokens}, l1 {s.l1.tokens}, l2 {s.l2.tokens}, l3 {s.l3.tokens}"
    )
    return [
        *found,
        Violation(
            name,
            f"the stats' total is {total} tokens (charged by bucket: {charged}) but the reference price of the "
            f"{len(out.entries)} entries sent is {price} (by entry: {entry_prices(out.entries, store, config)})",
        ),
    ]


def _label(e: Entry) -> str:
    if e.kind == "raw":
        return f"raw {e.message_id}"
    if e.kind == "answer":
        return f"answer {'+'.join(e.summary_ids)}"
    return e.kind


def entry_prices(entries: tuple[Entry, ...], store: Store, config: Config, shown: int = 8) -> str:
    """Each entry's reference price, in order (after ``shown`` of them, the rest as one sum)."""
    prices = [reference_price([e], store, config) for e in entries]
    parts = [f"{_label(e)} {p}" for e, p in zip(entries[:shown], prices, strict=False)]
    if len(entries) > shown:
        parts.append(f"{len(entries) - shown} more {sum(prices[shown:], 0)}")
    return ", ".join(parts) or "none"


# ----------------------------------------------------------------------------- 2. exact budget


@invariant("exact-budget", cost=13)
def exact_budget(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """With large level budgets: at the smallest input budget whose grace limit covers P it sends the same
    entries as at an unlimited budget; one token less and it refuses. (``budget`` is not used.)"""
    name = "exact-budget"
    if not config.enforce_budget:
        return []
    big = with_large_level_budgets(config)
    free = compile_once(store, big, UNLIMITED, variant)
    if free.crashed:
        return [crash(name, free, "at an unlimited budget")]
    if not free.sent:
        return []
    price = reference_price(free.entries, store, big)
    g = js_max(0, big.over_budget_grace_ratio)
    if not is_number(price) or not math.isfinite(price) or price >= 2**53 or not math.isfinite(g):
        return []
    b = input_budget_for(price, g)
    if b is None:
        return []
    out: list[Violation] = []
    at = compile_once(store, big, Budget(max_tokens=b), variant)
    limit = js_floor(b * (1 + g))
    if at.crashed:
        out.append(crash(name, at, f"at input budget {b}"))
    elif not at.sent:
        out.append(
            Violation(
                name,
                f"at an unlimited budget it sends {len(free.entries)} entries priced {price}; "
                f"at input budget {b} (grace limit {limit} >= {price}) it should send them "
                f"again but {at.describe()}",
            )
        )
    elif entries_text(at.entries) != entries_text(free.entries):
        out.append(
            Violation(
                name,
                f"at input budget {b} (grace limit {limit} >= the reference price {price}) it "
                f"sends other entries than at an unlimited budget: "
                f"{first_difference(free.entries, at.entries)}",
            )
        )
    if b - 1 >= 0:
        below = compile_once(store, big, Budget(max_tokens=b - 1), variant)
        limit = js_floor((b - 1) * (1 + g))
        if below.crashed:
            out.append(crash(name, below, f"at input budget {b - 1}"))
        elif below.sent:
            sent_price = reference_price(below.entries, store, big)
            out.append(
                Violation(
                    name,
                    f"at input budget {b - 1} (grace limit {limit} < {price}, the reference "
                    f"price of what it sends unlimited) it should refuse but it sends "
                    f"{len(below.entries)} entries priced {sent_price} (stats total "
                    f"{below.result.stats.total.tokens})",
                )
            )
        elif isinstance(below.error, InvalidConfigError):
            out.append(
                Violation(
                    name,
                    f"at input budget {b - 1} it should refuse over budget but raised "
                    f"InvalidConfigError: {below.error}",
                )
            )
    return out


# ----------------------------------------------------------------------------- 3. never over


@judges_what_is_sent("never-over", cost=2)
def never_over(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """Whatever is sent is priced at most the grace limit."""
    price = reference_price(out.entries, store, config)
    limit = grace_limit(budget, config)
    if price <= limit:
        return []
    return [
        Violation(
            name,
            f"it sends {len(out.entries)} entries whose reference price {price} is over the "
            f"grace limit {limit} (input budget {budget.input_budget}, grace ratio "
            f"{config.over_budget_grace_ratio}; it charged {out.result.stats.total.tokens})",
        )
    ]


# ----------------------------------------------------------------------------- 4. nothing lost


def sent_ids(store: Store, entries: Iterable[Entry]) -> frozenset[str]:
    """Messages sent raw or as a leaf of a summary an answer holds (a blank summary represents nothing)."""
    got: set[str] = set()
    for e in entries:
        if e.kind == "raw" and e.message_id is not None:
            got.add(e.message_id)
        elif e.kind == "answer":
            for sid in e.summary_ids:
                if not js_blank(store.summary(sid).content):
                    got |= store.leaves(sid)
    return frozenset(got)


@judges_what_is_sent("nothing-lost", cost=3)
def nothing_lost(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """Every store message is sent raw or is a leaf of a summary some answer holds."""
    covered = sent_ids(store, out.entries)
    lost = [m.id for m in store.messages if m.id not in covered]
    if not lost:
        return []
    held = [sid for e in out.entries if e.kind == "answer" for sid in e.summary_ids]
    return [
        Violation(
            name,
            f"{len(lost)} of {len(store.messages)} messages are neither sent raw nor a leaf of a "
            f"summary an answer holds: {', '.join(lost)} (answers hold {held or 'nothing'})",
        )
    ]

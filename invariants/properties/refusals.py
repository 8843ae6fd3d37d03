"""The invariants of a refusal's diagnostics (docs/model.md, Invariants): the parts sum and the head
is the head (``diagnostics``), and every field recomputed from the reference layout (``diagnostics-full``)."""

from __future__ import annotations

from invariants.properties.line_rules import reports_inventory, rules_for, switches_for
from invariants.properties.running import (
    UNLIMITED,
    Outcome,
    Variant,
    Violation,
    compile_once,
    grace_limit,
    judges_refusals,
)
from reference.estimator import content_tokens
from reference.model import Budget, Config, Entry, Image, Store, ToolResult, ToolUse
from reference.numerics import Number
from reference.price import reference_price
from reference.refusal import budget_wording, inventory_wording, summary_inventory
from reference.rendering import finish, layout
from reference.selection import select as reference_select
from strategies.cap import truncate
from strategies.errors import OverBudgetError

# ----------------------------------------------------------------------------- 5. diagnostics


def head_end(store: Store, config: Config) -> int:
    """The head window (docs/model.md, Windows), priced with the reference ``E`` of the original content."""
    window = config.head_window_tokens
    if window <= 0:
        return 0
    total: Number = 0
    for i, m in enumerate(store.messages):
        total += content_tokens(m.content, store)
        if total > window:
            # docs/model.md, "Tool pairing": a boundary right after a tool_use steps back one.
            return i - 1 if i > 0 and any(isinstance(b, ToolUse) for b in store.messages[i - 1].content) else i
    return len(store.messages)


def head_total(store: Store, config: Config, end: int) -> Number:
    """The reference price of the head messages as sent (under the cap)."""
    return sum((content_tokens(truncate(m.content, config.cap), store) for m in store.messages[:end]), 0)


def head_entries(store: Store, entries: tuple[Entry, ...], end: int) -> int:
    """How many leading entries are the head: its messages and the repairs among them."""
    for k, e in enumerate(entries):
        in_head = e.kind == "raw" and e.message_id is not None and store.index(e.message_id) < end
        if not (in_head or e.kind == "repair"):
            return k
    return len(entries)


def sent_head_total(store: Store, entries: tuple[Entry, ...], end: int) -> Number:
    """The reference price of the head as a context sends it."""
    return sum((content_tokens(e.content, store) for e in entries[: head_entries(store, entries, end)]), 0)


def refused_prefix(
    store: Store, entries: tuple[Entry, ...], skip: int, refused: tuple[str, ...]
) -> frozenset[str] | None:
    """The middle's raw ids and answers' leaves up to and including the refused item, or None if it is not there."""
    prefix: set[str] = set()
    target = frozenset(refused)
    for e in entries[skip:]:
        if e.kind == "raw":
            prefix.add(e.message_id)
            if target == {e.message_id}:
                return frozenset(prefix)
        elif e.kind == "answer":
            for sid in e.summary_ids:
                prefix |= store.leaves(sid)
            if target == frozenset(e.summary_ids):
                return frozenset(prefix)
    return None


@judges_refusals("diagnostics", cost=6)
def diagnostics(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """On ``OverBudgetError``: the parts sum to ``actual``, the head is the head, ``cleared_by`` follows the prefix."""
    err = out.error
    d = err.diagnostics
    found: list[Violation] = []
    parts = d.head_tokens + d.middle_tokens + d.tail_tokens
    if parts != err.actual:
        found.append(
            Violation(
                name,
                f"head_tokens {d.head_tokens} + middle_tokens {d.middle_tokens} + tail_tokens "
                f"{d.tail_tokens} = {parts}, not the actual {err.actual} ({err.item} refused)",
            )
        )
    if not d.cleared_by <= {"compression"}:
        found.append(Violation(name, f"cleared_by {sorted(d.cleared_by)} names something other than compression"))
    end = head_end(store, config)
    refused = tuple(err.refused)
    at_head = len(refused) == 1 and store.has_message(refused[0]) and store.index(refused[0]) < end
    if at_head:
        if d.cleared_by:
            found.append(
                Violation(
                    name,
                    f"at a head refusal ({err.item}) cleared_by is {sorted(d.cleared_by)}, but "
                    "compression never folds the head away",
                )
            )
        if d.middle_tokens != 0:
            found.append(Violation(name, f"at a head refusal ({err.item}) middle_tokens is {d.middle_tokens}, not 0"))
        return found
    free = compile_once(store, config, UNLIMITED, variant)
    if free.sent:
        expected_head = sent_head_total(store, free.entries, end)
    elif not any(isinstance(b, (ToolUse, ToolResult, Image)) for m in store.messages[:end] for b in m.content):
        expected_head = head_total(store, config, end)
    else:  # the passes may change a head of tools or images, and no send shows what they made of it
        expected_head = d.head_tokens
    if d.head_tokens != expected_head:
        found.append(
            Violation(
                name,
                f"at a middle refusal ({err.item}) head_tokens is {d.head_tokens}, but the "
                f"{end} head message(s) as sent are priced {expected_head}",
            )
        )
    if not free.sent:
        return found
    prefix = refused_prefix(store, free.entries, head_entries(store, free.entries, end), refused)
    if prefix is None:
        return found
    expected = store.folds_any(prefix)
    if expected != ("compression" in d.cleared_by):
        work = (
            "; ".join(
                f"{w.kind} {w.state} folding {sorted(w.folds) if w.folds is not None else 'unrecorded'}"
                for w in store.work
            )
            or "none"
        )
        found.append(
            Violation(
                name,
                f"at a middle refusal ({err.item}) cleared_by is {sorted(d.cleared_by)}, but "
                f"the refused prefix {sorted(prefix, key=store.index)} "
                f"{'is' if expected else 'is not'} folded by queued work (work: {work})",
            )
        )
    return found


# ----------------------------------------------------------------------------- diagnostics-full


def refusal_site(err: OverBudgetError, items: list) -> int | None:
    """The index of the refused item in the reference layout (None when it has no such item)."""
    refused = tuple(err.refused)
    for k, it in enumerate(items):
        if (it.raw and refused == it.raw) or (not it.raw and refused == tuple(s.id for s in it.held)):
            return k
    return None


def inventory_stated(err: OverBudgetError, store: Store, budget: Budget, on_line: bool) -> list[str]:
    """On a line with the budget diagnostics, the refusal's inventory is the store's and its message states it and
    the budget in the TypeScript's order; elsewhere no inventory is reported."""
    d = err.diagnostics
    deepest, counts = summary_inventory(store) if on_line else (None, None)
    found = []
    if d.deepest_available_level != deepest or repr(d.deepest_available_level) != repr(deepest):
        found.append(f"deepest_available_level is {d.deepest_available_level!r}, expected {deepest!r}")
    got = None if d.summary_counts_by_level is None else sorted(d.summary_counts_by_level.items())
    want = None if counts is None else sorted(counts.items())
    if got != want:
        found.append(f"summary_counts_by_level is {got!r} (level, count), expected {want!r}")
    if on_line:
        stated = f"deepest available level=L{deepest}, {inventory_wording(counts)}, {budget_wording(budget)})"
        if not str(err).endswith(stated):
            found.append(f"the message {str(err)!r} does not end with {stated!r}")
    return found


@judges_refusals("diagnostics-full", cost=12)
def diagnostics_full(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """Every field of a refusal recomputed from the reference layout: site, counts, unit, level, tokens, budgets, and
    on a line with the budget diagnostics the summary inventory and what the message states of it."""
    err, d = out.error, out.error.diagnostics
    ref = reference_select(store, config, budget, rules_for(variant))
    raw = [*range(ref.head_end), *ref.middle_raw, *range(ref.middle_end, len(store.messages))]
    switches = switches_for(variant)
    planned = layout(store, config, raw, ref.selected, (ref.head_end, ref.middle_end), switches)
    items = finish(store, config, planned, switches)
    at = refusal_site(err, items)
    if at is None:
        return [
            Violation(
                name, f"it refused {err.item} (ids {list(err.refused)}), which is no item of the reference layout"
            )
        ]
    item = items[at]
    found: list[str] = []

    def expect(field: str, got: object, want: object) -> None:
        if repr(got) != repr(want):
            found.append(f"{field} is {got!r}, expected {want!r}")

    site = item.site
    if site == "tail":
        return [Violation(name, f"{err.item} in the tail was refused; the tail evicts, it never refuses")]
    head_site = site == "head"
    count = {
        "head": 0,
        "positioned": len(ref.selected) + len(ref.middle_raw),
        "combined-pair": len(ref.selected),
        "raw-after-combined": len(ref.middle_raw),
    }[site]
    expect("middle_count", d.middle_count, count)
    expect(
        "middle_count_unit", d.middle_count_unit, "raw-messages" if site == "raw-after-combined" else "selection-items"
    )
    expect("deepest_level", d.deepest_level, item.level)
    expect("tail_tokens", d.tail_tokens, 0)
    expect("configured_budget", d.configured_budget, budget.max_tokens)
    expect("reserve_for_response", d.reserve_for_response, budget.reserve_for_response)
    expect("input_budget", d.input_budget, budget.input_budget)
    expect("budget", err.budget, grace_limit(budget, config))
    found += inventory_stated(err, store, budget, reports_inventory(variant))
    before = [e for it in items[:at] for e in it.entries]
    actual = reference_price([*before, *item.entries], store, config)
    expect("actual", err.actual, actual)
    if reference_price(before, store, config) > err.budget:
        found.append(f"the items before {err.item} are already priced over the grace limit {err.budget}")
    head = reference_price([e for it in items[: ref.head_end] for e in it.entries], store, config)
    if head_site:
        expect("head_tokens", d.head_tokens, actual)
        expect("middle_tokens", d.middle_tokens, 0)
    else:
        expect("head_tokens", d.head_tokens, head)
        expect("middle_tokens", d.middle_tokens, actual - head)
    if not found:
        return []
    return [Violation(name, f"at the {site} refusal of {err.item}: " + "; ".join(found))]

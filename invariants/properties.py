"""The invariants (docs/model.md, Invariants) as functions ``(store, config, budget, variant) -> [Violation]``:
the seven of the first contract and an eighth, well-formed (docs/model.md, "Invariants").

Each invariant compiles with a fresh ``HierarchicalStrategy(config, variant)`` (a variant name, looked
up at call time, or a frozenset of defects) and judges the outcome against what it recomputes itself
from the reference model (``reference.price.reference_price``, ``reference.estimator.content_tokens``,
``Store.folds_any``). A violation is a frozen ``(invariant, message)`` whose message says what was
expected and what happened, with the numbers.

A compile that raises anything but ``OverBudgetError``, ``UncoveredDropError`` or
``InvalidConfigError`` is a violation of every invariant that looks at it (a crash is never sound).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, replace

from invariants.generators import NamedEstimator, input_budget_for, with_large_level_budgets
from invariants.text import data_text
from reference.estimator import content_tokens
from reference.model import (
    Block,
    Budget,
    Config,
    Content,
    Entry,
    Image,
    RedactedThinking,
    Store,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from reference.numerics import Number, is_finite_nonneg, is_number, js_blank, js_floor, js_max, len16
from reference.price import reference_price
from reference.rendering import Selection as RenderedSelection
from reference.rendering import Switches, finish, layout, render
from reference.selection import Rules, bounds
from reference.selection import select as reference_select
from strategies.cap import truncate
from strategies.defects import Defect, resolve_variant
from strategies.errors import InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.hierarchical import HierarchicalStrategy

Variant = str | frozenset[Defect]
REFUSALS = (OverBudgetError, UncoveredDropError, InvalidConfigError)
UNLIMITED = Budget(max_tokens=math.inf)


@dataclass(frozen=True)
class Violation:
    """One broken invariant: its name and a sentence that explains it with the numbers."""

    invariant: str
    message: str

    def __str__(self) -> str:
        return f"[{self.invariant}] {self.message}"


class InvariantViolation(AssertionError):
    """Raised by the property tests when an invariant is broken; carries the violations."""

    def __init__(self, violations: Iterable[Violation], context: str = "",
                 case: tuple[Store, Config, Budget] | None = None) -> None:
        self.violations = tuple(violations)
        #: The case it broke on (store, config, budget), which a failing test prints as a scenario file.
        self.case = case
        lines = [str(v) for v in self.violations]
        if context:
            lines.append(context)
        super().__init__("\n".join(lines))


# ----------------------------------------------------------------------------- running a compile


@dataclass(frozen=True)
class Outcome:
    """What one compile did: the result it sent, or the exception it raised."""

    result: object | None = None
    error: BaseException | None = None

    @property
    def sent(self) -> bool:
        return self.result is not None

    @property
    def crashed(self) -> bool:
        return self.error is not None and not isinstance(self.error, REFUSALS)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self.result.entries  # type: ignore[union-attr]

    def describe(self) -> str:
        if self.sent:
            return f"sent {len(self.entries)} entries (stats total {self.result.stats.total.tokens})"
        return f"raised {type(self.error).__name__}: {self.error}"

    def signature(self) -> tuple:
        """Everything observable about the outcome, as text (NaN-safe)."""
        if self.sent:
            return ("sent", data_text(self.entries), repr(self.result.stats))
        err = self.error
        extra: tuple = ()
        if isinstance(err, OverBudgetError):
            extra = (repr(err.diagnostics), err.refused, repr(err.budget), repr(err.actual))
        elif isinstance(err, UncoveredDropError):
            extra = (err.dropped, tuple(sorted(err.categories.items())))
        return ("refused", type(err).__name__, str(err), *extra)


def attempt(strategy: HierarchicalStrategy, budget: Budget, dry_run: bool = False) -> Outcome:
    try:
        return Outcome(result=strategy.compile(budget, dry_run=dry_run))
    except Exception as err:
        return Outcome(error=err)


#: Compiles shared between the invariants of one ``check`` call (scoped to it; None outside).
_SHARED: ContextVar[dict[tuple, tuple[Store, Config, Outcome]] | None] = ContextVar("shared_compiles", default=None)


def compile_once(store: Store, config: Config, budget: Budget, variant: Variant) -> Outcome:
    """A fresh strategy of ``variant`` over ``store``, compiled once (shared between invariants inside ``check``)."""
    shared = _SHARED.get()
    key = (id(store), id(config), repr(budget), variant)
    if shared is not None and key in shared:
        seen_store, seen_config, outcome = shared[key]
        if seen_store is store and seen_config is config:
            return outcome
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    outcome = attempt(strategy, budget)
    if shared is not None:
        shared[key] = (store, config, outcome)
    return outcome


def crash(invariant: str, outcome: Outcome, where: str = "") -> Violation:
    at = f" {where}" if where else ""
    return Violation(invariant, f"the compile{at} crashed with {type(outcome.error).__name__}: {outcome.error} "
                                "(only OverBudgetError, UncoveredDropError or InvalidConfigError may refuse)")


def grace_limit(budget: Budget, config: Config) -> Number:
    """``floor(B * (1 + max(0, g)))`` in doubles, +inf when not enforced (docs/model.md, Config and budget)."""
    if not config.enforce_budget:
        return math.inf
    return js_floor(budget.input_budget * (1 + js_max(0, config.over_budget_grace_ratio)))


def entries_text(entries: Iterable[Entry]) -> str:
    return data_text(tuple(entries))


def first_difference(a: tuple[Entry, ...], b: tuple[Entry, ...]) -> str:
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if (tx := data_text(x)) != (ty := data_text(y)):
            return f"entry {k} differs: {tx} versus {ty}"
    return f"{len(a)} entries versus {len(b)}"


# ----------------------------------------------------------------------------- 1. stats total


def stats_total(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """After a successful compile the stats' total equals the reference price of what is sent."""
    name = "stats-total"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    price = reference_price(out.entries, store, config)
    total = out.result.stats.total.tokens
    if total == price:
        return []
    s = out.result.stats
    buckets = (f"head {s.head.tokens}, middle_raw {s.middle_raw.tokens}, tail {s.tail.tokens}, "
               f"combined {s.combined.tokens}, l1 {s.l1.tokens}, l2 {s.l2.tokens}, l3 {s.l3.tokens}")
    return [Violation(name, f"the stats' total is {total} tokens but the reference price of the "
                            f"{len(out.entries)} entries sent is {price} ({buckets})")]


# ----------------------------------------------------------------------------- 2. exact budget


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
        out.append(Violation(name, f"at an unlimited budget it sends {len(free.entries)} entries priced {price}; "
                                   f"at input budget {b} (grace limit {limit} >= {price}) it should send them "
                                   f"again but {at.describe()}"))
    elif entries_text(at.entries) != entries_text(free.entries):
        out.append(Violation(name, f"at input budget {b} (grace limit {limit} >= the reference price {price}) it "
                                   f"sends other entries than at an unlimited budget: "
                                   f"{first_difference(free.entries, at.entries)}"))
    if b - 1 >= 0:
        below = compile_once(store, big, Budget(max_tokens=b - 1), variant)
        limit = js_floor((b - 1) * (1 + g))
        if below.crashed:
            out.append(crash(name, below, f"at input budget {b - 1}"))
        elif below.sent:
            sent_price = reference_price(below.entries, store, big)
            out.append(Violation(name, f"at input budget {b - 1} (grace limit {limit} < {price}, the reference "
                                       f"price of what it sends unlimited) it should refuse but it sends "
                                       f"{len(below.entries)} entries priced {sent_price} (stats total "
                                       f"{below.result.stats.total.tokens})"))
        elif isinstance(below.error, InvalidConfigError):
            out.append(Violation(name, f"at input budget {b - 1} it should refuse over budget but raised "
                                       f"InvalidConfigError: {below.error}"))
    return out


# ----------------------------------------------------------------------------- 3. never over


def never_over(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Whatever is sent is priced at most the grace limit."""
    name = "never-over"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    price = reference_price(out.entries, store, config)
    limit = grace_limit(budget, config)
    if price <= limit:
        return []
    return [Violation(name, f"it sends {len(out.entries)} entries whose reference price {price} is over the "
                            f"grace limit {limit} (input budget {budget.input_budget}, grace ratio "
                            f"{config.over_budget_grace_ratio}; it charged {out.result.stats.total.tokens})")]


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


def nothing_lost(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Every store message is sent raw or is a leaf of a summary some answer holds."""
    name = "nothing-lost"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    covered = sent_ids(store, out.entries)
    lost = [m.id for m in store.messages if m.id not in covered]
    if not lost:
        return []
    held = [sid for e in out.entries if e.kind == "answer" for sid in e.summary_ids]
    return [Violation(name, f"{len(lost)} of {len(store.messages)} messages are neither sent raw nor a leaf of a "
                            f"summary an answer holds: {', '.join(lost)} (answers hold {held or 'nothing'})")]


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
    return sum((content_tokens(e.content, store) for e in entries[:head_entries(store, entries, end)]), 0)


def refused_prefix(store: Store, entries: tuple[Entry, ...], skip: int,
                   refused: tuple[str, ...]) -> frozenset[str] | None:
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


def diagnostics(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """On ``OverBudgetError``: the parts sum to ``actual``, the head is the head, ``cleared_by`` follows the prefix."""
    name = "diagnostics"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not isinstance(out.error, OverBudgetError):
        return []
    err = out.error
    d = err.diagnostics
    found: list[Violation] = []
    parts = d.head_tokens + d.middle_tokens + d.tail_tokens
    if parts != err.actual:
        found.append(Violation(name, f"head_tokens {d.head_tokens} + middle_tokens {d.middle_tokens} + tail_tokens "
                                     f"{d.tail_tokens} = {parts}, not the actual {err.actual} ({err.item} refused)"))
    if not d.cleared_by <= {"compression"}:
        found.append(Violation(name, f"cleared_by {sorted(d.cleared_by)} names something other than compression"))
    end = head_end(store, config)
    refused = tuple(err.refused)
    at_head = len(refused) == 1 and store.has_message(refused[0]) and store.index(refused[0]) < end
    if at_head:
        if d.cleared_by:
            found.append(Violation(name, f"at a head refusal ({err.item}) cleared_by is {sorted(d.cleared_by)}, but "
                                         "compression never folds the head away"))
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
        found.append(Violation(name, f"at a middle refusal ({err.item}) head_tokens is {d.head_tokens}, but the "
                                     f"{end} head message(s) as sent are priced {expected_head}"))
    if not free.sent:
        return found
    prefix = refused_prefix(store, free.entries, head_entries(store, free.entries, end), refused)
    if prefix is None:
        return found
    expected = store.folds_any(prefix)
    if expected != ("compression" in d.cleared_by):
        work = "; ".join(f"{w.kind} {w.state} folding {sorted(w.folds) if w.folds is not None else 'unrecorded'}"
                         for w in store.work) or "none"
        found.append(Violation(name, f"at a middle refusal ({err.item}) cleared_by is {sorted(d.cleared_by)}, but "
                                     f"the refused prefix {sorted(prefix, key=store.index)} "
                                     f"{'is' if expected else 'is not'} folded by queued work (work: {work})"))
    return found


# ----------------------------------------------------------------------------- 6. bad values


def _walk(content: Content) -> Iterable[Block]:
    """Every block of ``content``, nested tool results' blocks too, in order, without recursion."""
    stack = [iter(content)]
    while stack:
        b = next(stack[-1], None)
        if b is None:
            stack.pop()
            continue
        yield b
        if isinstance(b, ToolResult) and not isinstance(b.content, str):
            stack.append(iter(b.content))


def _estimator_texts(store: Store, config: Config) -> Iterable[str]:
    def texts(content: Content) -> Iterable[str]:
        for b in _walk(content):
            if isinstance(b, Text):
                yield b.text
            elif isinstance(b, Thinking):
                yield b.thinking

    yield from ("", config.summary_context_label, config.recall_header_template, "\n\n---\n\n")
    for m in store.messages:
        yield from texts(m.content)
    for s in store.summaries:
        yield s.content
        yield from texts(s.response_content or ())


def _stamps(content: Content) -> Iterable[object]:
    for b in _walk(content):
        if isinstance(b, (Thinking, RedactedThinking, Image)):
            yield b.token_estimate


def bad_values(store: Store, config: Config, budget: Budget) -> list[str]:
    """The bad values (NaN, negative, infinite numbers; an estimator giving them) in a store, config and budget."""
    bad: list[str] = []

    def ordinary(x: object) -> bool:
        return is_finite_nonneg(x)

    cap = config.max_message_tokens
    if cap is not None and (math.isnan(cap) or cap < 0 or math.isinf(cap)):
        bad.append(f"cap {cap}")
    for fname in ("head_window_tokens", "recent_window_tokens", "l1_budget_tokens", "l2_budget_tokens",
                  "l3_budget_tokens", "over_budget_grace_ratio"):
        if not ordinary(getattr(config, fname)):
            bad.append(f"{fname} {getattr(config, fname)}")
    if math.isnan(budget.max_tokens) or budget.max_tokens < 0:
        bad.append(f"max_tokens {budget.max_tokens}")
    if not ordinary(budget.reserve_for_response):
        bad.append(f"reserve_for_response {budget.reserve_for_response}")
    if not budget.input_budget >= 0:
        bad.append(f"input budget {budget.input_budget}")
    for m in store.messages:
        if any(x is not None and not ordinary(x) for x in _stamps(m.content)):
            bad.append(f"a stamp in {m.id}")
    for s in store.summaries:
        if not ordinary(s.tokens):
            bad.append(f"{s.id}.tokens {s.tokens}")
        if any(x is not None and not ordinary(x) for x in _stamps(s.response_content or ())):
            bad.append(f"a stamp in {s.id}'s carriers")
    if store.text_estimator is not None:
        for text in _estimator_texts(store, config):
            try:
                value = store.text_estimator(text)
            except Exception as err:
                value = err
            if not ordinary(value):
                bad.append(f"the estimator gives {value!r} for {text[:20]!r}")
                break
    return bad


def _unlimited_by_request(budget: Budget, config: Config) -> bool:
    return not config.enforce_budget or (budget.max_tokens == math.inf and math.isfinite(budget.reserve_for_response))


def bad_values_invariant(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """With bad values the compile refuses with a clear error, or sends a finite price under a real limit."""
    name = "bad-values"
    bad = bad_values(store, config, budget)
    if not bad:
        return []
    out = compile_once(store, config, budget, variant)
    why = ", ".join(bad[:4]) + (f" and {len(bad) - 4} more" if len(bad) > 4 else "")
    if out.crashed:
        return [Violation(name, f"with bad values ({why}) the compile crashed with {type(out.error).__name__}: "
                                f"{out.error}")]
    if not out.sent:
        return []
    try:
        price = reference_price(out.entries, store, config)
    except Exception as err:
        price = f"unpriceable ({type(err).__name__}: {err})"
    limit = grace_limit(budget, config)
    charged = out.result.stats.total.tokens
    if not is_number(price) or not math.isfinite(price):
        return [Violation(name, f"with bad values ({why}) it sends {len(out.entries)} entries whose reference price "
                                f"is {price} (it charged {charged})")]
    if math.isnan(limit):
        return [Violation(name, f"with bad values ({why}) it sends {len(out.entries)} entries (reference price "
                                f"{price}) against a NaN grace limit, which refuses nothing")]
    if math.isinf(limit) and not _unlimited_by_request(budget, config):
        return [Violation(name, f"with bad values ({why}) it sends {len(out.entries)} entries (reference price "
                                f"{price}) against an infinite grace limit nobody asked for")]
    if not price <= limit:
        return [Violation(name, f"with bad values ({why}) it sends {len(out.entries)} entries priced {price}, over "
                                f"the grace limit {limit} (it charged {charged})")]
    return []


# ----------------------------------------------------------------------------- 7. determinism


def _altered_carriers(carriers):
    if not carriers:
        return carriers
    return tuple(replace(b, text=b.text + " (draft)") if isinstance(b, Text) else b for b in carriers)


def history_store(store: Store) -> Store:
    """Another store with the same summary ids, levels, tree and tokens, but other texts and estimator.

    A strategy initialized over it and then over ``store`` must behave as a fresh one: nothing it
    remembered (an answer-price memo keyed by id and tokens) may survive ``initialize``. Built once per
    store (it depends on the store alone) and kept in ``store.derived``.
    """
    if "history store" not in store.derived:
        store.derived["history store"] = _history_store(store)
    return store.derived["history store"]


def _history_store(store: Store) -> Store:
    summaries = tuple(replace(s, content=(s.content + " ") * 3 if s.content else "",
                              response_content=_altered_carriers(s.response_content)) for s in store.summaries)
    estimator = (NamedEstimator("len16//2", lambda s: len16(s) // 2) if store.text_estimator is None else None)
    return Store(messages=store.messages, summaries=summaries, calibration=store.calibration,
                 pricing_epoch=store.pricing_epoch, text_estimator=estimator, work=store.work)


def determinism(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Same inputs, same outcome: fresh, repeated, after a dry run, and after another store; the state is restored."""
    name = "determinism"
    found: list[Violation] = []

    def restored(strategy: HierarchicalStrategy, what: str) -> None:
        if strategy.view is not None:
            found.append(Violation(name, f"after {what} the strategy's view is still bound (it was unbound before)"))

    s1 = HierarchicalStrategy(config, variant)
    s1.initialize(store)
    memo_before = s1.memo
    dry = attempt(s1, budget, dry_run=True)
    restored(s1, "a dry run")
    memo_after = s1.memo
    if repr(sorted(memo_after.items())) != repr(sorted(memo_before.items())):
        found.append(Violation(name, f"a dry run changed the answer-price memo ({len(memo_before)} entries before, "
                                     f"{len(memo_after)} after)"))
    first = attempt(s1, budget)
    restored(s1, "a compile that " + ("sent" if first.sent else "refused"))
    if first.crashed:
        found.append(crash(name, first))
    if dry.signature() != first.signature():
        found.append(Violation(name, f"the dry run's outcome differs from the committing compile's: the dry run "
                                     f"{dry.describe()}; the compile {first.describe()}"))
    again = attempt(s1, budget)
    restored(s1, "a second compile")
    if again.signature() != first.signature():
        found.append(Violation(name, f"a second compile on the same strategy differs from the first: the first "
                                     f"{first.describe()}; the second {again.describe()}"))
    s2 = HierarchicalStrategy(config, variant)
    s2.initialize(history_store(store))
    attempt(s2, budget)
    s2.initialize(store)
    if s2.view is not None:
        found.append(Violation(name, "initialize left a view bound"))
    later = attempt(s2, budget)
    if later.signature() != first.signature():
        found.append(Violation(name, f"a strategy that first compiled another store with the same summary ids and "
                                     f"tokens gives another outcome after initialize: fresh, it {first.describe()}; "
                                     f"after the other store, it {later.describe()}"))
    return found


# ----------------------------------------------------------------------------- 8-12. what is sent


def defects_of(variant: Variant) -> frozenset[Defect]:
    return resolve_variant(variant).active


def switches_for(variant: Variant) -> Switches:
    """The reference rendering's switches for the named defects that change the bytes sent."""
    d = defects_of(variant)
    return Switches(combined_selection_order=Defect.COMBINED_SELECTION_ORDER in d,
                    verbatim_stamps=Defect.STAMPS_VERBATIM in d,
                    header_replace_chained=Defect.HEADER_REPLACE_CHAINED in d,
                    trim_trailing_calls=Defect.TRIM_DROPS_TRAILING_TOOL_USE in d)


def rules_for(variant: Variant) -> Rules:
    """The reference selection's switches for the named defects that change windows or selection."""
    d = defects_of(variant)
    return Rules(verbatim_stamps=Defect.STAMPS_VERBATIM in d,
                 deep_window_candidates=Defect.DEEP_WINDOW_CANDIDATES in d,
                 verbatim_tokens=Defect.UNCHECKED_BAD_VALUES in d,
                 raw_cap_plus_50=Defect.RAW_CAP_PLUS_50 in d,
                 blank_candidates=Defect.BLANK_SUMMARIES_SELECTED in d,
                 store_wide_images=Defect.IMAGE_COUNT_STORE_WIDE in d)


def bounds_of(store: Store, config: Config, variant: Variant) -> tuple[int, int]:
    return bounds(store, config, rules_for(variant))


def rendering(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """What is sent is, byte for byte, the reference rendering of the selection the compile made."""
    name = "rendering"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    raw = frozenset(e.message_id for e in out.entries if e.kind == "raw")
    selection = RenderedSelection(raw, out.result.selected)
    expected = render(store, config, selection, switches_for(variant))
    if entries_text(expected) == entries_text(out.entries):
        return []
    return [Violation(name, f"the compile sends {len(out.entries)} entries, the reference rendering of its "
                            f"selection ({len(raw)} raw, summaries {list(selection.summaries)}) {len(expected)}: "
                            f"{first_difference(expected, out.entries)}")]


def selection_rule(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """The compile selects what the reference selection selects (candidates, waterfall, completion)."""
    name = "selection"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    expected = tuple(s.id for s in reference_select(store, config, budget, rules_for(variant)).selected)
    if expected == out.result.selected:
        return []
    return [Violation(name, f"the compile selected {list(out.result.selected)}, the reference selection "
                            f"{list(expected)} (budget {budget.input_budget})")]


def _represented(store: Store, entries: Iterable[Entry]) -> list[tuple[int, frozenset[int]]]:
    """Per raw entry or answer, in order: its position in ``entries`` and the message indices it stands for."""
    out = []
    for k, e in enumerate(entries):
        if e.kind == "raw" and e.message_id is not None:
            out.append((k, frozenset({store.index(e.message_id)})))
        elif e.kind == "answer":
            out.append((k, frozenset(store.index(m) for sid in e.summary_ids for m in store.leaves(sid))))
    return out


def exactly_once(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Each message is represented once: raw, or through one summary an answer holds.

    The contract's one exception: a head or tail message that is a leaf of a summary straddling the
    middle and that window is sent raw and through the summary.
    """
    name = "exactly-once"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    head_end, middle_end = bounds_of(store, config, variant)
    raw_count: dict[int, int] = {}
    held_count: dict[int, int] = {}
    outside = _outside_middle(store, config, variant)
    held_ids = [sid for e in out.entries if e.kind == "answer" and not outside(e) for sid in e.summary_ids]
    straddling = {store.index(m) for sid in held_ids for m in store.leaves(sid)
                  if any(head_end <= store.index(x) < middle_end for x in store.leaves(sid))}
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
    return [Violation(name, f"messages represented more than once: {detail} "
                            f"(windows: head [0, {head_end}), tail [{middle_end}, {len(store.messages)}))")]


def _outside_middle(store: Store, config: Config, variant: Variant) -> Callable[[Entry], bool]:
    """With DEEP_WINDOW_CANDIDATES (named): an answer holding a summary with no leaf in the middle is excused."""
    head_end, middle_end = bounds_of(store, config, variant)
    deep = Defect.DEEP_WINDOW_CANDIDATES in defects_of(variant)

    def no_middle_leaf(sid: str) -> bool:
        return not any(head_end <= store.index(m) < middle_end for m in store.leaves(sid))

    return lambda e: deep and e.kind == "answer" and any(no_middle_leaf(sid) for sid in e.summary_ids)


def _combined_as_one(store: Store, config: Config, variant: Variant, entries: tuple[Entry, ...],
                     units: list[tuple[int, frozenset[int]]]) -> list[tuple[int, frozenset[int]]] | Violation:
    """Combined mode sends the pair, then the middle's raw messages: together they stand for the middle."""
    head_end, middle_end = bounds_of(store, config, variant)
    answer = next((k for k, e in enumerate(entries) if e.kind == "answer"), None)
    if answer is None:
        return units
    merged: set[int] = set()
    raws: list[int] = []
    kept = []
    for k, stands_for in units:
        middle_raw = entries[k].kind == "raw" and k > answer and head_end <= min(stands_for) < middle_end
        if k == answer or middle_raw:
            merged |= stands_for
            raws += [min(stands_for)] if middle_raw else []
            if k == answer:
                kept.append((k, frozenset()))
        else:
            kept.append((k, stands_for))
    if raws != sorted(raws):
        return Violation("chronological", f"the middle's raw messages after the combined pair are out of order: "
                                          f"{[store.messages[i].id for i in raws]}")
    return [(k, frozenset(merged)) if k == answer else (k, u) for k, u in kept]


def chronological(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Entries follow the order of the messages they stand for: each one's first new message after the last's."""
    name = "chronological"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    units = _represented(store, out.entries)
    if not config.positioned_recall_pairs:
        units = _combined_as_one(store, config, variant, out.entries, units)
        if isinstance(units, Violation):
            return [units]
    seen: set[int] = set()
    latest = -1
    outside = _outside_middle(store, config, variant)
    head_end, _ = bounds_of(store, config, variant)
    for k, stands_for in units:
        if outside(out.entries[k]):
            continue
        new = stands_for - seen
        if new and min(new) <= latest:
            return [Violation(name, f"entry {k} stands for {sorted(store.messages[i].id for i in new)}, whose first "
                                    f"is not after {store.messages[latest].id}, the first of an entry before it")]
        seen |= stands_for
        latest = min(new) if new else latest
        if config.positioned_recall_pairs and out.entries[k].kind == "answer" and min(stands_for, default=0) < head_end:
            latest = min(latest, head_end - 1)  # a pair straddling the head stands first in the middle
    if Defect.COMBINED_SELECTION_ORDER in defects_of(variant):
        return []
    for k, e in enumerate(out.entries):
        firsts = [store.index(store.summary(sid).source_range[0]) for sid in e.summary_ids]
        if firsts != sorted(firsts):
            return [Violation(name, f"the answer at entry {k} holds {list(e.summary_ids)} out of chronological order")]
    return []


def trimmed_end(store: Store, middle_end: int, variant: Variant) -> int:
    """Where the sent tail ends: the last message, or, with TRIM_DROPS_TRAILING_TOOL_USE (named), before the
    newest run of tail messages that hold a tool_use and no tool_result (the trim pops them)."""
    end = len(store.messages)
    if Defect.TRIM_DROPS_TRAILING_TOOL_USE not in defects_of(variant):
        return end
    while end > middle_end and any(isinstance(b, ToolUse) for b in store.messages[end - 1].content) and not any(
            isinstance(b, ToolResult) for b in store.messages[end - 1].content):
        end -= 1
    return end


def tail_suffix(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """The tail sent is a contiguous run of the newest messages; what is evicted is the oldest part of it."""
    name = "tail-suffix"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    n = len(store.messages)
    _, middle_end = bounds_of(store, config, variant)
    if out.sent:
        tail = sorted(store.index(e.message_id) for e in out.entries if e.kind == "raw"
                      and store.index(e.message_id) >= middle_end)
        if tail != list(range(middle_end, trimmed_end(store, middle_end, variant))):
            return [Violation(name, f"the tail is [{middle_end}, {n}) but the compile sends of it "
                                    f"{[store.messages[i].id for i in tail]}")]
        return []
    if isinstance(out.error, UncoveredDropError):
        categories = out.error.categories
        lost = sorted(m for m in out.error.dropped if store.index(m) >= middle_end
                      and categories.get(m) != "in-tail-not-rendered")
        if lost:
            return [Violation(name, f"tail messages {lost} are dropped as {[categories.get(m) for m in lost]}; "
                                    "a tail message is sent or evicted (in-tail-not-rendered)")]
        evicted = sorted(store.index(m) for m, c in categories.items() if c == "in-tail-not-rendered")
        if evicted and evicted != list(range(middle_end, evicted[-1] + 1)):
            return [Violation(name, f"the evicted messages {[store.messages[i].id for i in evicted]} are not the "
                                    f"oldest run of the tail [{middle_end}, {n})")]
    return []


#: Named defects that make a refusal's prices differ from the reference price (the price checks skip them).
PRICE_DEFECTS = frozenset({
    Defect.RAW_CAP_PLUS_50, Defect.STAMPS_VERBATIM, Defect.QUESTION_PRICED_AS_LABEL, Defect.ANSWER_PRICED_UNCAPPED,
    Defect.ENVELOPE_ABSORBED, Defect.COMBINED_NO_FLOOR, Defect.VIEW_NEVER_BOUND, Defect.EMPTY_CARRIERS_FLOOR,
    Defect.FLOOR_UNHELD, Defect.UNCHECKED_BAD_VALUES, Defect.COMBINED_UNCHECKED, Defect.MEMO_SURVIVES_INITIALIZE,
    Defect.TOOL_PASSES_UNPRICED, Defect.TAIL_PRICED_PRE_STRIP, Defect.IMAGE_COUNT_STORE_WIDE,
})


def refusal_site(err: OverBudgetError, items: list) -> int | None:
    """The index of the refused item in the reference layout (None when it has no such item)."""
    refused = tuple(err.refused)
    for k, it in enumerate(items):
        if (it.raw and refused == it.raw) or (not it.raw and refused == tuple(s.id for s in it.held)):
            return k
    return None


def diagnostics_full(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Every field of a refusal recomputed from the reference layout: site, counts, unit, level, tokens, budgets."""
    name = "diagnostics-full"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not isinstance(out.error, OverBudgetError):
        return []
    err, d = out.error, out.error.diagnostics
    defects = defects_of(variant)
    ref = reference_select(store, config, budget, rules_for(variant))
    raw = [*range(ref.head_end), *ref.middle_raw, *range(ref.middle_end, len(store.messages))]
    switches = switches_for(variant)
    items = finish(store, config, layout(store, config, raw, ref.selected, (ref.head_end, ref.middle_end), switches),
                   switches)
    at = refusal_site(err, items)
    if at is None:
        return [Violation(name, f"it refused {err.item} (ids {list(err.refused)}), which is no item of the "
                                f"reference layout")]
    item = items[at]
    found: list[str] = []

    def expect(field: str, got: object, want: object) -> None:
        if repr(got) != repr(want):
            found.append(f"{field} is {got!r}, expected {want!r}")

    site = item.site
    if site == "tail":
        return [Violation(name, f"{err.item} in the tail was refused; the tail evicts, it never refuses")]
    head_site = site == "head"
    count = {"head": 0, "positioned": len(ref.selected) + len(ref.middle_raw),
             "combined-pair": len(ref.selected), "raw-after-combined": len(ref.middle_raw)}[site]
    expect("middle_count", d.middle_count, count)
    expect("middle_count_unit", d.middle_count_unit, "raw-messages" if site == "raw-after-combined"
           else "selection-items")
    expect("deepest_level", d.deepest_level, item.level)
    expect("tail_tokens", d.tail_tokens, 0)
    expect("configured_budget", d.configured_budget, budget.max_tokens)
    expect("reserve_for_response", d.reserve_for_response, budget.reserve_for_response)
    expect("input_budget", d.input_budget, budget.input_budget)
    expect("budget", err.budget, grace_limit(budget, config))
    if not defects & PRICE_DEFECTS:
        before = [e for it in items[:at] for e in it.entries]
        actual = reference_price([*before, *item.entries], store, config)
        expect("actual", err.actual, actual)
        if reference_price(before, store, config) > err.budget:
            found.append(f"the items before {err.item} are already priced over the grace limit {err.budget}")
        head = reference_price([e for it in items[:ref.head_end] for e in it.entries], store, config)
        if head_site:
            expect("head_tokens", d.head_tokens, actual)
            expect("middle_tokens", d.middle_tokens, 0)
        elif Defect.HEAD_AS_MIDDLE in defects:
            expect("head_tokens", d.head_tokens, 0)
            expect("middle_tokens", d.middle_tokens, actual)
        else:
            expect("head_tokens", d.head_tokens, head)
            expect("middle_tokens", d.middle_tokens, actual - head)
    if not found:
        return []
    return [Violation(name, f"at the {site} refusal of {err.item}: " + "; ".join(found))]


# ----------------------------------------------------------------------------- the catalogue

Property = Callable[[Store, Config, Budget, Variant], list[Violation]]

INVARIANTS: dict[str, Property] = {
    "stats-total": stats_total,
    "exact-budget": exact_budget,
    "never-over": never_over,
    "nothing-lost": nothing_lost,
    "diagnostics": diagnostics,
    "bad-values": bad_values_invariant,
    "determinism": determinism,
    "well-formed": lambda *args: well_formed(*args),
    "rendering": rendering,
    "selection": selection_rule,
    "exactly-once": exactly_once,
    "chronological": chronological,
    "tail-suffix": tail_suffix,
    "diagnostics-full": diagnostics_full,
}


#: The invariants from the cheapest to judge to the dearest (the first four share one compile).
CHEAP_FIRST = ("stats-total", "never-over", "nothing-lost", "well-formed", "bad-values", "diagnostics",
               "rendering", "exactly-once", "chronological", "tail-suffix", "selection", "diagnostics-full",
               "exact-budget", "determinism")


def check(store: Store, config: Config, budget: Budget, variant: Variant, *,
          first_only: bool = False) -> list[Violation]:
    """Every invariant's violations for one case (``first_only``: stop at the first invariant broken)."""
    token = _SHARED.set({}) if _SHARED.get() is None else None
    try:
        found: list[Violation] = []
        for name in CHEAP_FIRST:
            found += INVARIANTS[name](store, config, budget, variant)
            if first_only and found:
                break
        return found
    finally:
        if token is not None:
            _SHARED.reset(token)


def assert_holds(invariant: str, store: Store, config: Config, budget: Budget, variant: Variant) -> None:
    """Raise ``InvariantViolation`` when ``invariant`` is broken on this case."""
    violations = INVARIANTS[invariant](store, config, budget, variant)
    if violations:
        raise InvariantViolation(violations, f"variant {variant_name(variant)}", case=(store, config, budget))


def variant_name(variant: Variant) -> str:
    if isinstance(variant, frozenset):
        return "{" + ", ".join(sorted(d.name for d in variant)) + "}" if variant else "{}"
    return str(variant)


# ----------------------------------------------------------------------------- 8. well formed


def pairing_faults(entries: tuple[Entry, ...]) -> list[str]:
    """Where ``entries`` break the provider's tool rule (docs/model.md, "Tool pairing"), as sentences.

    Every top-level ``tool_result`` answers a ``tool_use`` of the entry just before it (at most one
    result per use), and every ``tool_use`` is answered in the entry just after it.
    """
    faults: list[str] = []
    for k, entry in enumerate(entries):
        before = {b.id for b in entries[k - 1].content if isinstance(b, ToolUse)} if k > 0 else set()
        seen: set[str] = set()
        for b in entry.content:
            if not isinstance(b, ToolResult):
                continue
            if b.tool_use_id not in before:
                faults.append(f"entry {k} ({entry.kind} {entry.message_id or entry.summary_ids}) holds a "
                              f"tool_result for {b.tool_use_id!r} that no tool_use of entry {k - 1} asked for")
            elif b.tool_use_id in seen:
                faults.append(f"entry {k} answers tool_use {b.tool_use_id!r} twice")
            seen.add(b.tool_use_id)
        uses = {b.id for b in entry.content if isinstance(b, ToolUse)}
        after = ({b.tool_use_id for b in entries[k + 1].content if isinstance(b, ToolResult)}
                 if k + 1 < len(entries) else set())
        for use in sorted(uses - after):
            faults.append(f"entry {k} ({entry.kind} {entry.message_id or entry.summary_ids}) holds a tool_use "
                          f"{use!r} that entry {k + 1} does not answer")
    return faults


def well_formed(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """What is sent is well formed for the provider: tool_use and tool_result paired across adjacent entries."""
    name = "well-formed"
    out = compile_once(store, config, budget, variant)
    if out.crashed:
        return [crash(name, out)]
    if not out.sent:
        return []
    faults = pairing_faults(out.entries)
    if not faults:
        return []
    more = f" (and {len(faults) - 3} more)" if len(faults) > 3 else ""
    return [Violation(name, f"of the {len(out.entries)} entries sent, " + "; ".join(faults[:3]) + more)]

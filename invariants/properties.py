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
from strategies.cap import truncate
from strategies.defects import Defect
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
}


#: The invariants from the cheapest to judge to the dearest (the first four share one compile).
CHEAP_FIRST = ("stats-total", "never-over", "nothing-lost", "well-formed", "bad-values", "diagnostics",
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

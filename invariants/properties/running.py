"""Violations, and running a compile for the invariants: its outcome (sent or raised), shared between
the invariants of one ``check`` call, and the helpers every invariant judges it with."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass

from invariants.text import data_text
from reference.model import Budget, Config, Entry, Store
from reference.numerics import Number, js_floor, js_max, js_number
from strategies.defects import Defect, Defects, Resumed
from strategies.errors import InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.hierarchical import HierarchicalStrategy

#: What a judge is given to compile: a variant's name, a set of defects in ``sound``, defects with line behaviours,
#: or those with the state earlier compiles left (``Resumed``).
Variant = str | frozenset[Defect] | Defects | Resumed
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

    def __init__(
        self, violations: Iterable[Violation], context: str = "", case: tuple[Store, Config, Budget] | None = None
    ) -> None:
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
SHARED_COMPILES: ContextVar[dict[tuple, tuple[Store, Config, Outcome]] | None] = ContextVar(
    "shared_compiles", default=None
)


def compile_once(store: Store, config: Config, budget: Budget, variant: Variant) -> Outcome:
    """A fresh strategy of ``variant`` over ``store``, compiled once (shared between invariants inside ``check``)."""
    shared = SHARED_COMPILES.get()
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
    return Violation(
        invariant,
        f"the compile{at} crashed with {type(outcome.error).__name__}: {outcome.error} "
        "(only OverBudgetError, UncoveredDropError or InvalidConfigError may refuse)",
    )


#: An invariant's judgement of one compile: its name, the outcome, and the case it was compiled from.
Judge = Callable[[str, Outcome, Store, Config, Budget, Variant], list[Violation]]
Invariant = Callable[[Store, Config, Budget, Variant], list[Violation]]


@dataclass(frozen=True)
class Declared:
    """One invariant as its module declares it: its name (docs/model.md, Invariants), its function, and its cost: its
    place in ``check``'s order, from the cheapest to judge (1) to the dearest (a new one between two takes a fraction,
    ``cost=7.5``, so that no other moves)."""

    name: str
    judge: Invariant
    cost: float


#: Every invariant, by name, as declared with ``invariant`` (``catalogue`` orders them).
DECLARED: dict[str, Declared] = {}


def invariant(name: str, *, cost: float) -> Callable[[Invariant], Invariant]:
    """Declare the invariant ``name`` (its name and cost here only: the catalogue, ``check``'s order and the command
    line read them from ``DECLARED``)."""

    def declare(judge: Invariant) -> Invariant:
        if name in DECLARED or any(d.cost == cost for d in DECLARED.values()):
            raise ValueError(f"invariant {name!r} (cost {cost}): its name or its cost is declared twice")
        DECLARED[name] = Declared(name, judge, cost)
        return judge

    return declare


def _judging(name: str, cost: float | None, judged: Callable[[Outcome], bool]) -> Callable[[Judge], Invariant]:
    """The invariant ``name`` that compiles once, reports a crash, and judges only the outcomes ``judged`` accepts;
    declared with its ``cost`` (None: a judge built for a test, not one of the catalogue's)."""

    def wrap(judge: Judge) -> Invariant:
        @functools.wraps(judge)
        def judged_invariant(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
            out = compile_once(store, config, budget, variant)
            if out.crashed:
                return [crash(name, out)]
            return judge(name, out, store, config, budget, variant) if judged(out) else []

        return judged_invariant if cost is None else invariant(name, cost=cost)(judged_invariant)

    return wrap


def judges_what_is_sent(name: str, *, cost: float | None) -> Callable[[Judge], Invariant]:
    """The invariant ``name``, judging what a compile sends (a refusal sends nothing to judge)."""
    return _judging(name, cost, lambda out: out.sent)


def judges_refusals(name: str, *, cost: float | None) -> Callable[[Judge], Invariant]:
    """The invariant ``name``, judging a compile's ``OverBudgetError`` (anything else has no diagnostics)."""
    return _judging(name, cost, lambda out: isinstance(out.error, OverBudgetError))


def grace_limit(budget: Budget, config: Config) -> Number:
    """``floor(B * (1 + max(0, g)))`` in doubles, +inf when not enforced (docs/model.md, Config and budget): each
    step rounds as JavaScript's does, so past 2**53 an exact integer product would differ."""
    if not config.enforce_budget:
        return math.inf
    factor = js_number(1 + js_max(0, config.over_budget_grace_ratio))
    return js_floor(js_number(budget.input_budget * factor))


def entries_text(entries: Iterable[Entry]) -> str:
    return data_text(tuple(entries))


def first_difference(a: tuple[Entry, ...], b: tuple[Entry, ...]) -> str:
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if (tx := data_text(x)) != (ty := data_text(y)):
            return f"entry {k} differs: {tx} versus {ty}"
    return f"{len(a)} entries versus {len(b)}"

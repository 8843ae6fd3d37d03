"""The invariants (docs/model.md, Invariants), their generators, and a counterexample search.

    from invariants import INVARIANTS, check, find

    check(store, config, budget, "sound")          # -> list[Violation] over all eight invariants
    find("never-over", "main-48bb87a1")            # -> a shrunk Counterexample, or None

A variant is a name looked up in ``strategies.defects.VARIANTS`` when the strategy is built, or a
frozenset of defects (``frozenset({Defect.X})`` is sound with that one defect).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import find as hypothesis_find
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from invariants.generators import Case, cases, input_budget_for, unlimited_price
from invariants.properties import (
    INVARIANTS,
    InvariantViolation,
    Variant,
    Violation,
    assert_holds,
    check,
    variant_name,
)
from reference.model import Budget, Config, InvalidStoreError, Store
from reference.names import lookup
from reference.scenario import Scenario, dump_scenario

__all__ = [
    "INVARIANTS",
    "Counterexample",
    "InvariantViolation",
    "Violation",
    "assert_holds",
    "check",
    "describe_case",
    "find",
]


@dataclass(frozen=True)
class Counterexample:
    """A shrunk case on which ``invariant`` breaks for ``variant``, with the violations it shows."""

    invariant: str
    variant: str
    store: Store
    config: Config
    budget: Budget
    violations: tuple[Violation, ...]

    @property
    def message(self) -> str:
        return "\n".join(v.message for v in self.violations)

    def describe(self) -> str:
        return (
            f"{self.invariant} breaks on {self.variant}:\n  "
            + "\n  ".join(v.message for v in self.violations)
            + "\n"
            + describe_case(self.store, self.config, self.budget)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "invariant": self.invariant,
            "variant": self.variant,
            "violations": [v.message for v in self.violations],
            "case": describe_case(self.store, self.config, self.budget),
            "scenario": scenario_json(self.store, self.config, self.budget),
        }

    def __str__(self) -> str:
        return self.describe()


#: How many independently seeded runs ``find`` splits its examples over (at most; 100 examples each at least).
SEARCH_RUNS = 4


def find(
    invariant: str | None,
    variant: Variant,
    max_examples: int = 300,
    *,
    strategy: st.SearchStrategy[Case] | None = None,
    seed: int = 0,
    beyond: Variant | None = None,
) -> Counterexample | None:
    """Search for a case breaking ``invariant`` on ``variant``; return it shrunk, or None if none was found.

    ``invariant`` None searches for a case breaking any of the eight (the cheapest are judged first,
    and the shrunk case reports every invariant it breaks). With ``beyond``, a case counts only when
    ``variant`` breaks an invariant that ``beyond`` does not break on it (what a defect adds to another).
    """
    prop = check if invariant is None else lookup("invariant", invariant, INVARIANTS)

    def broken_on(case: Case, v: Variant, first_only: bool) -> set[str]:
        if invariant is None:
            found = check(case.store, case.config, case.budget, v, first_only=first_only)
        else:
            found = prop(case.store, case.config, case.budget, v)
        return {x.invariant for x in found}

    target: list[str] = []  # with no invariant named: the first one broken, the only one judged while shrinking

    def broken_on_target(case: Case, v: Variant) -> set[str]:
        if invariant is not None or not target:
            return broken_on(case, v, beyond is None)
        return {x.invariant for x in INVARIANTS[target[0]](case.store, case.config, case.budget, v)}

    def broken(case: Case) -> bool:
        found = broken_on_target(case, variant)
        if beyond is not None and found:
            found -= broken_on(case, beyond, False) if not target else broken_on_target(case, beyond)
        if found and invariant is None and not target:
            target.append(sorted(found, key=list(INVARIANTS).index)[0])
        return bool(found)

    # The budget is spread over a few independently seeded runs: one run's exploration can stay in a
    # region of the space (its mutations follow its first examples), several rarely all do.
    runs = max(1, min(SEARCH_RUNS, max_examples // 100))
    share = -(-max_examples // runs)
    case = None
    for k in range(runs):
        config = settings(
            max_examples=share,
            database=None,
            deadline=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            phases=(Phase.generate, Phase.shrink),
        )
        try:
            case = hypothesis_find(
                strategy if strategy is not None else cases(),
                broken,
                settings=config,
                random=random.Random(seed * 1000 + k),
            )
            break
        except NoSuchExample:
            continue
    if case is None:
        return None
    case = polish(case, broken)
    violations = tuple(prop(case.store, case.config, case.budget, variant))
    if beyond is not None:
        base = {x.invariant for x in prop(case.store, case.config, case.budget, beyond)}
        violations = tuple(v for v in violations if v.invariant not in base)
    name = invariant or ", ".join(dict.fromkeys(v.invariant for v in violations))
    return Counterexample(name, variant_name(variant), case.store, case.config, case.budget, violations)


# ----------------------------------------------------------------------------- polishing a shrunk case


def _store_like(store: Store, **changes: Any) -> Store | None:
    fields = {
        "messages": store.messages,
        "summaries": store.summaries,
        "calibration": store.calibration,
        "pricing_epoch": store.pricing_epoch,
        "text_estimator": store.text_estimator,
        "work": store.work,
    }
    fields.update(changes)
    try:
        return Store(**fields)
    except InvalidStoreError:
        return None


def _without_message(store: Store, mid: str) -> Store | None:
    if any(s.source_level == 0 and mid in s.source_ids for s in store.summaries):
        return None
    work = tuple(
        w if w.folds is None or w.kind != "chunk" else dataclasses.replace(w, folds=w.folds - {mid}) for w in store.work
    )
    return _store_like(store, messages=tuple(m for m in store.messages if m.id != mid), work=work)


def _without_summary(store: Store, sid: str) -> Store | None:
    if any(s.source_level > 0 and sid in s.source_ids for s in store.summaries):
        return None  # a parent still names it
    summaries = tuple(
        dataclasses.replace(s, parent_id=None) if s.parent_id == sid else s for s in store.summaries if s.id != sid
    )
    work = tuple(
        w if w.folds is None or w.kind != "merge" else dataclasses.replace(w, folds=w.folds - {sid}) for w in store.work
    )
    return _store_like(store, summaries=summaries, work=work)


def _budgets_for(store: Store, config: Config, budget: Budget) -> list[Budget]:
    """The case's own budget, then the new store's edges (the price of what is sent unlimited, one below,
    the grace boundary)."""
    out = [budget]
    price = unlimited_price(store, config)
    if price is not None and math.isfinite(price) and price < 2**53:
        price = math.ceil(price)
        g = config.over_budget_grace_ratio
        b = input_budget_for(price, g if math.isfinite(g) else 0)
        out += [
            Budget(max_tokens=x) for x in dict.fromkeys((price, price - 1, b, (b or 1) - 1)) if x is not None and x >= 0
        ]
    return out


#: The store's settings as a plain store has them (``polish`` tries each).
PLAIN_STORE_SETTINGS = {"calibration": 1.0, "pricing_epoch": 1, "text_estimator": None}
#: A summary's fields as a plain summary has them, no carriers and no measured tokens (``polish`` tries each).
PLAIN_SUMMARY_FIELDS = {"response_content": None, "tokens": None}


def _with_summary_field(store: Store, sid: str, name: str, value: Any) -> Store | None:
    try:
        summaries = tuple(dataclasses.replace(s, **{name: value}) if s.id == sid else s for s in store.summaries)
    except InvalidStoreError:
        return None
    if repr(summaries) == repr(store.summaries):
        return None  # plain already (a summary holds a None ``tokens`` as NaN): no change to try
    return _store_like(store, summaries=summaries)


def polish(case: Case, broken: Any, rounds: int = 40) -> Case:
    """After Hypothesis' shrink, greedily drop what the break does not need: work, summaries, messages, the
    store's settings, summaries' carriers and measured tokens, non-default config fields (trying the smaller
    store's own budget edges too)."""
    for _ in range(rounds):
        progress = False
        candidates: list[tuple[Store, Config]] = []
        st_, cf = case.store, case.config
        candidates += [
            (x, cf)
            for k in range(len(st_.work))
            if (x := _store_like(st_, work=st_.work[:k] + st_.work[k + 1 :])) is not None
        ]
        candidates += [(x, cf) for s in reversed(st_.summaries) if (x := _without_summary(st_, s.id)) is not None]
        candidates += [(x, cf) for m in reversed(st_.messages) if (x := _without_message(st_, m.id)) is not None]
        candidates += [
            (x, cf)
            for name, plain in PLAIN_STORE_SETTINGS.items()
            if repr(getattr(st_, name)) != repr(plain) and (x := _store_like(st_, **{name: plain})) is not None
        ]
        candidates += [
            (x, cf)
            for s in st_.summaries
            for name, plain in PLAIN_SUMMARY_FIELDS.items()
            if repr(getattr(s, name)) != repr(plain) and (x := _with_summary_field(st_, s.id, name, plain)) is not None
        ]
        default = Config()
        candidates += [
            (st_, dataclasses.replace(cf, **{f.name: getattr(default, f.name)}))
            for f in dataclasses.fields(Config)
            if repr(getattr(cf, f.name)) != repr(getattr(default, f.name))
        ]
        for store, config in candidates:
            for budget in _budgets_for(store, config, case.budget):
                trial = Case(store, config, budget)
                if broken(trial):
                    case, progress = trial, True
                    break
            if progress:
                break
        if not progress:
            # Nothing dropped: try a plainer budget edge for the same store and config.
            for budget in _budgets_for(case.store, case.config, case.budget)[1:]:
                trial = Case(case.store, case.config, budget)
                if repr(budget) != repr(case.budget) and broken(trial) and budget.max_tokens < case.budget.max_tokens:
                    case = trial
                    break
            return case
    return case


# ----------------------------------------------------------------------------- describing a case


def _short(x: object, limit: int = 70) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_case(store: Store, config: Config, budget: Budget) -> str:
    """A compact, readable account of a case: messages, summaries, work, non-default config, budget."""
    lines = [
        f"store (calibration {store.calibration}, epoch {store.pricing_epoch}, estimator {store.text_estimator!r}):"
    ]
    for m in store.messages:
        lines.append(f"  {m.id} {m.participant}: {_short(m.content, 110)}")
    for s in store.summaries:
        parent = f" parent={s.parent_id}" if s.parent_id else ""
        lines.append(
            f"  {s.id} over {list(s.source_ids)} [{s.source_range[0]}..{s.source_range[1]}] "
            f"tokens={s.tokens}{parent} content={_short(s.content, 40)} "
            f"carriers={_short(s.response_content, 60)}"
        )
    for w in store.work:
        lines.append(f"  work {w.kind} {w.state} folds={sorted(w.folds) if w.folds is not None else None}")
    default = Config()
    changed = {
        f.name: getattr(config, f.name)
        for f in dataclasses.fields(Config)
        if repr(getattr(config, f.name)) != repr(getattr(default, f.name))
    }
    lines.append(f"config: {changed or 'defaults'}")
    lines.append(f"budget: max_tokens={budget.max_tokens}, reserve_for_response={budget.reserve_for_response}")
    return "\n".join(lines)


def scenario_json(store: Store, config: Config, budget: Budget) -> Any:
    """The case as a scenario file's JSON object (the estimator, being code, is named in a description)."""
    try:
        obj = dump_scenario(
            Scenario(
                store,
                config,
                budget,
                description=f"text_estimator: {store.text_estimator!r}" if store.text_estimator is not None else None,
            )
        )
        json.dumps(obj, ensure_ascii=True)
        return obj
    except Exception as err:
        return {"unavailable": f"{type(err).__name__}: {err}"}

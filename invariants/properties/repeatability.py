"""The determinism invariant (docs/model.md, Invariants): same inputs, same outcome, whether fresh,
repeated, after a dry run or after another store with the same summary ids and tokens; and
``store-unchanged``: two compiles in a row send the same bytes and leave the store as it was."""

from __future__ import annotations

from dataclasses import replace

from invariants.generators import NamedEstimator
from invariants.properties.running import Variant, Violation, attempt, crash, invariant
from reference.model import Budget, Config, Store, Text
from reference.numerics import len16
from strategies.hierarchical import HierarchicalStrategy


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
    return store.derived.value("history store", lambda: _history_store(store))


def _history_store(store: Store) -> Store:
    summaries = tuple(
        replace(
            s,
            content=(s.content + " ") * 3 if s.content else "",
            response_content=_altered_carriers(s.response_content),
        )
        for s in store.summaries
    )
    estimator = NamedEstimator("len16//2", lambda s: len16(s) // 2) if store.text_estimator is None else None
    return Store(
        messages=store.messages,
        summaries=summaries,
        calibration=store.calibration,
        pricing_epoch=store.pricing_epoch,
        text_estimator=estimator,
        work=store.work,
    )


@invariant("determinism", cost=14)
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
        found.append(
            Violation(
                name,
                f"a dry run changed the answer-price memo ({len(memo_before)} entries before, {len(memo_after)} after)",
            )
        )
    first = attempt(s1, budget)
    restored(s1, "a compile that " + ("sent" if first.sent else "refused"))
    if first.crashed:
        found.append(crash(name, first))
    if dry.signature() != first.signature():
        found.append(
            Violation(
                name,
                f"the dry run's outcome differs from the committing compile's: the dry run "
                f"{dry.describe()}; the compile {first.describe()}",
            )
        )
    again = attempt(s1, budget)
    restored(s1, "a second compile")
    if again.signature() != first.signature():
        found.append(
            Violation(
                name,
                f"a second compile on the same strategy differs from the first: the first "
                f"{first.describe()}; the second {again.describe()}",
            )
        )
    s2 = HierarchicalStrategy(config, variant)
    s2.initialize(history_store(store))
    attempt(s2, budget)
    s2.initialize(store)
    if s2.view is not None:
        found.append(Violation(name, "initialize left a view bound"))
    later = attempt(s2, budget)
    if later.signature() != first.signature():
        found.append(
            Violation(
                name,
                f"a strategy that first compiled another store with the same summary ids and "
                f"tokens gives another outcome after initialize: fresh, it {first.describe()}; "
                f"after the other store, it {later.describe()}",
            )
        )
    return found


@invariant("store-unchanged", cost=15)
def store_unchanged(store: Store, config: Config, budget: Budget, variant: Variant) -> list[Violation]:
    """Two compiles in a row on one strategy send the same bytes (or refuse alike) and leave its store as it was."""
    name = "store-unchanged"
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    first = attempt(strategy, budget)
    if first.crashed:
        return [crash(name, first)]
    found: list[Violation] = []
    held = strategy.store
    if held is None or held.messages != store.messages:
        changed = [m.id for m, h in zip(store.messages, held.messages if held else (), strict=False) if m != h]
        found.append(Violation(name, f"a compile that {first.describe()} rewrote the stored messages {changed}"))
    second = attempt(strategy, budget)
    if second.signature() != first.signature():
        found.append(
            Violation(
                name,
                f"the second of two compiles in a row differs from the first: the first {first.describe()}; "
                f"the second {second.describe()}",
            )
        )
    return found

"""A strategy's life as a Hypothesis state machine (docs/model.md, "The lifecycle").

One strategy is initialized over a store, compiles, dry-runs, and is initialized again over another
store: the same one, its twin (same summary ids, levels and tokens, other texts and estimator), or
one with another calibration. After every step the view is unbound; a dry run changes neither the
memo nor the view; every outcome is what a fresh strategy over the current store gives (prices
follow the current store). The seed's lifecycle defects are found by the machine alone.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from invariants.generators import budgets, configs, stores
from invariants.properties import attempt, history_store
from reference.model import Budget, Config, Store
from strategies.defects import Defect
from strategies.hierarchical import HierarchicalStrategy
from tests.builders import store, summary

MACHINE_SETTINGS = settings(
    max_examples=25,
    stateful_step_count=6,
    deadline=None,
    database=None,
    derandomize=True,
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
)
#: Finding a defect needs no minimal example: generation only, and more of it.
FINDING_SETTINGS = settings(
    MACHINE_SETTINGS, max_examples=150, stateful_step_count=15, phases=(Phase.explicit, Phase.generate)
)


#: Configs without bad values, where every price is the memo's business (positioned or combined, capped or not).
PLAIN_CONFIGS = st.builds(
    Config,
    head_window_tokens=st.sampled_from((0, 20)),
    recent_window_tokens=st.sampled_from((0, 20)),
    max_message_tokens=st.sampled_from((0, 5, 20)),
    positioned_recall_pairs=st.booleans(),
    recall_envelope=st.sampled_from(("none", "xml")),
)
UNLIMITED = Budget(max_tokens=float("inf"))
#: A few messages and one summary whose measured tokens do not hide its text (no floor above the estimate).
PLAIN_STORES = st.builds(
    lambda n, tokens: store(n, [summary("L1-0", 1, 2, tokens=tokens)]),
    st.integers(3, 6),
    st.sampled_from((None, 5, 10)),
)


def lifecycle(defects: frozenset[Defect]) -> type[RuleBasedStateMachine]:
    """The machine over a strategy with ``defects`` switched on."""

    class Lifecycle(RuleBasedStateMachine):
        config: Config
        base: Store
        current: Store
        strategy: HierarchicalStrategy

        @initialize(
            store=st.one_of(PLAIN_STORES, stores(max_messages=6)),
            config=st.one_of(PLAIN_CONFIGS, configs()),
            data=st.data(),
        )
        def start(self, store: Store, config: Config, data: st.DataObject) -> None:
            self.config, self.base, self.data = config, store, data
            self.strategy = HierarchicalStrategy(config, defects)
            self.current = store
            self.strategy.initialize(store)

        def fresh(self, budget: Budget, dry_run: bool = False):
            other = HierarchicalStrategy(self.config, defects)
            other.initialize(self.current)
            return attempt(other, budget, dry_run=dry_run)

        def budget(self) -> Budget:
            return self.data.draw(st.one_of(st.just(UNLIMITED), budgets(self.current, self.config)), label="budget")

        @rule(which=st.sampled_from(("same", "twin", "calibration")))
        def reinitialize(self, which: str) -> None:
            store = {
                "same": self.base,
                "twin": history_store(self.base),
                "calibration": self.base.with_calibration(2.0 if self.base.calibration != 2.0 else 0.5),
            }[which]
            self.current = store
            self.strategy.initialize(store)
            self.follows(UNLIMITED)  # prices follow the store just initialized

        def follows(self, budget: Budget) -> None:
            got = attempt(self.strategy, budget)
            assert got.signature() == self.fresh(budget).signature(), (
                f"the outcome does not follow the current store: {got.describe()} where a fresh strategy "
                f"{self.fresh(budget).describe()}"
            )

        @rule()
        def compile(self) -> None:
            self.follows(self.budget())

        @rule()
        def dry_run(self) -> None:
            budget = self.budget()
            memo, view = self.strategy.memo, self.strategy.view
            got = attempt(self.strategy, budget, dry_run=True)
            assert repr(sorted(self.strategy.memo.items())) == repr(sorted(memo.items())), (
                f"a dry run changed the memo ({len(memo)} entries before, {len(self.strategy.memo)} after)"
            )
            assert self.strategy.view is view, "a dry run changed the view"
            assert got.signature() == self.fresh(budget, dry_run=True).signature(), (
                f"the dry run's outcome does not follow the current store: {got.describe()}"
            )

        @invariant()
        def view_unbound(self) -> None:
            if hasattr(self, "strategy"):
                assert self.strategy.view is None, "the view is bound between compiles"

    Lifecycle.__name__ = "Lifecycle_" + ("_".join(sorted(d.name for d in defects)) or "sound")
    return Lifecycle


class TestSoundLifecycle(lifecycle(frozenset()).TestCase):
    """The sound strategy lives a lifecycle without fault. A state machine's TestCase, with the profile's
    settings (its database included), so that ``cmharness fuzz`` searches it and a failure found there replays."""

    settings = settings(
        max_examples=25, stateful_step_count=6, report_multiple_bugs=False, suppress_health_check=list(HealthCheck)
    )


@pytest.mark.parametrize(
    "defect, says",
    [
        (Defect.MEMO_SURVIVES_INITIALIZE, "does not follow the current store"),
        (Defect.VIEW_NOT_RESTORED, "view is bound between compiles|dry run changed the view"),
        (Defect.DRY_RUN_FILLS_MEMO, "dry run changed the memo"),
    ],
    ids=lambda x: x.name if isinstance(x, Defect) else "",
)
def test_the_machine_finds_each_lifecycle_defect_alone(defect, says):
    with pytest.raises(AssertionError, match=says):
        run_state_machine_as_test(lifecycle(frozenset({defect})), settings=FINDING_SETTINGS)

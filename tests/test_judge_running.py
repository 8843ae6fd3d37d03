"""What the judges run a compile with (``invariants/properties/running.py``): an attempt commits unless asked for a
dry run, an outcome's signature tells every observable difference, the grace limit, the first difference between
two sends, and the violation a property test raises."""

from __future__ import annotations

import dataclasses
import math

import pytest

from invariants import examples as known
from invariants.generators import Case
from invariants.properties import (
    SHARED_COMPILES,
    InvariantViolation,
    Outcome,
    Violation,
    attempt,
    compile_once,
    first_difference,
    grace_limit,
)
from invariants.properties.running import judges_refusals, judges_what_is_sent
from reference.model import Budget, Config, Entry, Text
from strategies import HierarchicalStrategy, OverBudgetError, UncoveredDropError
from strategies.stats import Total
from tests.builders import store
from tests.judge_helpers import broken, judged, tamper, with_diagnostics


def test_an_attempt_commits_unless_asked_for_a_dry_run():
    """A committing compile remembers the answer prices it computed; a dry run leaves the memo as it was."""
    dry = HierarchicalStrategy(known.ONE_PAIR.config)
    dry.initialize(known.ONE_PAIR.store)
    assert attempt(dry, known.ONE_PAIR.budget, dry_run=True).sent and dry.memo == {}
    committed = HierarchicalStrategy(known.ONE_PAIR.config)
    committed.initialize(known.ONE_PAIR.store)
    assert attempt(committed, known.ONE_PAIR.budget).sent and committed.memo != {}


class _OnSecond:
    """Changes the second compile's outcome only (its result or its refusal, through ``change``)."""

    def __init__(self, change) -> None:
        self.change, self.calls = change, 0

    def __call__(self, outcome, b):
        self.calls += 1
        return self.change(outcome) if self.calls == 2 else outcome


def _total_plus_one(result):
    stats = result.stats
    total = Total(stats.total.messages, stats.total.tokens + 1)
    return dataclasses.replace(result, stats=dataclasses.replace(stats, total=total))


def test_store_unchanged_tells_two_sends_apart_by_their_stats_alone(monkeypatch):
    tamper(monkeypatch, sent=_OnSecond(_total_plus_one))
    broken("store-unchanged", known.ONE_PAIR, "sound", "the second of two compiles in a row differs from the first")


#: ONE_PAIR at a budget its pair does not fit: sound refuses (OverBudgetError).
REFUSED = dataclasses.replace(known.ONE_PAIR, budget=Budget(max_tokens=1))


def test_store_unchanged_tells_two_refusals_apart_by_a_diagnostic_their_message_leaves_out(monkeypatch):
    """The deepest level refused is in the diagnostics, not in the message: a second refusal that changes it alone
    differs from the first."""
    err = _refusal(REFUSED)
    assert isinstance(err, OverBudgetError)
    changed = with_diagnostics(err, deepest_level=err.diagnostics.deepest_level + 1)
    assert str(changed) == str(err)
    counter = _OnSecond(lambda x: with_diagnostics(x, deepest_level=x.diagnostics.deepest_level + 1))
    tamper(monkeypatch, refused=counter)
    broken("store-unchanged", REFUSED, "sound", "the second of two compiles in a row differs from the first")


#: Five messages of 10 and a tail of three under a budget of 30: sound refuses with an UncoveredDropError.
TAIL_CUT = Case(store(5), Config(recent_window_tokens=35), Budget(max_tokens=30))


@pytest.mark.parametrize("name", ["determinism", "store-unchanged"])
def test_repeated_refusals_of_each_kind_are_the_same_outcome(name):
    assert type(_refusal(TAIL_CUT)).__name__ == "UncoveredDropError"
    assert judged(name, TAIL_CUT) == []
    assert judged(name, REFUSED) == []


#: TAIL_CUT with a tail of thirteen: sound evicts twelve, more than an UncoveredDropError's message lists.
LONG_TAIL_CUT = Case(store(15), Config(recent_window_tokens=135), Budget(max_tokens=30))


def _recategorized(err: Exception) -> Exception:
    """The same drop with its last message, past the ten its message lists, named in another category."""
    assert isinstance(err, UncoveredDropError) and len(err.dropped) > 10, err
    last = err.dropped[-1]
    other = "not-covered" if err.categories[last] != "not-covered" else "in-tail-not-rendered"
    return UncoveredDropError(err.dropped, {**err.categories, last: other})


def test_store_unchanged_tells_two_uncovered_drops_apart_by_a_category_their_message_leaves_out(monkeypatch):
    """An outcome is everything observable: two drops that read alike but name a message in another category
    differ (docs/model.md, Coverage)."""
    err = _refusal(LONG_TAIL_CUT)
    assert str(_recategorized(err)) == str(err)
    assert judged("store-unchanged", LONG_TAIL_CUT) == []
    tamper(monkeypatch, refused=_OnSecond(_recategorized))
    broken("store-unchanged", LONG_TAIL_CUT, "sound", "the second of two compiles in a row differs from the first")


def _refusal(case: Case) -> Exception:
    s = HierarchicalStrategy(case.config)
    s.initialize(case.store)
    with pytest.raises(Exception) as raised:
        s.compile(case.budget)
    return raised.value


@pytest.mark.parametrize(
    "budget, config, limit",
    [
        (Budget(100, reserve_for_response=10), Config(over_budget_grace_ratio=0.5), 135),
        (Budget(100, reserve_for_response=10), Config(over_budget_grace_ratio=-1), 90),
        (Budget(29), Config(), 29),
        (Budget(100), Config(), 102),
        (Budget(5), Config(enforce_budget=False), math.inf),
    ],
)
def test_the_grace_limit_is_the_input_budget_lifted_by_a_non_negative_ratio(budget, config, limit):
    assert grace_limit(budget, config) == limit


def _entry(text: str) -> Entry:
    return Entry("user", (Text(text),), "raw", "m0")


def test_the_first_difference_names_the_first_entry_that_differs_or_the_counts():
    a, b, c = _entry("a"), _entry("b"), _entry("c")
    assert first_difference((a, b), (a, c)).startswith("entry 1 differs: ")
    assert "'b'" in first_difference((a, b), (a, c)).split(" versus ")[0]
    assert "'c'" in first_difference((a, b), (a, c)).split(" versus ")[1]
    assert first_difference((a, b), (a, b, c)) == "2 entries versus 3"
    assert first_difference((a, b, c), (a,)) == "3 entries versus 1"


def test_an_invariant_violation_says_each_violation_then_its_context():
    found = [Violation("never-over", "over by 1"), Violation("stats-total", "off by 2")]
    case = known.ONE_PAIR
    raised = InvariantViolation(iter(found), "variant sound", case=(case.store, case.config, case.budget))
    assert raised.violations == tuple(found)
    assert raised.case == (case.store, case.config, case.budget)
    assert str(raised) == "[never-over] over by 1\n[stats-total] off by 2\nvariant sound"
    assert str(InvariantViolation(found)) == "[never-over] over by 1\n[stats-total] off by 2"
    assert InvariantViolation(found).case is None


# ----------------------------------------------------------------------------- what an invariant judges


def _probe(judges):
    """An invariant named ``probe`` built with ``judges``, whose judge says what it was handed."""

    def judge(name, out, store_, config, budget, variant):
        return [Violation(name, "judged " + ("a send" if out.sent else type(out.error).__name__))]

    return judges("probe", cost=None)(judge)  # not declared: not one of the catalogue's


@pytest.mark.parametrize(
    "judges, case, found",
    [
        (judges_what_is_sent, known.ONE_PAIR, ["judged a send"]),
        (judges_what_is_sent, REFUSED, []),
        (judges_what_is_sent, TAIL_CUT, []),
        (judges_refusals, known.ONE_PAIR, []),
        (judges_refusals, REFUSED, ["judged OverBudgetError"]),
        (judges_refusals, TAIL_CUT, []),
    ],
    ids=["sent-send", "sent-over", "sent-uncovered", "refusals-send", "refusals-over", "refusals-uncovered"],
)
def test_an_invariant_judges_only_the_outcomes_it_is_for(judges, case, found):
    assert _probe(judges)(*case, "sound") == [Violation("probe", m) for m in found]


@pytest.mark.parametrize("judges", [judges_what_is_sent, judges_refusals])
def test_an_invariant_reports_a_crash_under_its_own_name(monkeypatch, judges):
    def boom(result, b):
        raise RuntimeError("boom")

    tamper(monkeypatch, sent=boom)
    [v] = _probe(judges)(*known.ONE_PAIR, "sound")
    assert v.invariant == "probe" and v.message.startswith("the compile crashed with RuntimeError: boom")


def test_an_outcomes_signature_tells_refusals_of_another_type_or_message_apart():
    """Two refusals are the same outcome only with the same exception type and the same message."""
    one = Outcome(error=ValueError("over by 3"))
    assert one.signature() == Outcome(error=ValueError("over by 3")).signature()
    assert one.signature() != Outcome(error=TypeError("over by 3")).signature()
    assert one.signature() != Outcome(error=ValueError("over by 4")).signature()


def test_a_shared_compile_is_reused_only_for_the_very_same_store_and_config():
    """A shared compile is keyed by the objects' ids, which Python reuses once an object is gone: an entry left by
    another store or another config under the same key is compiled afresh, never taken for this case's."""
    case = known.ONE_PAIR
    stale = Outcome(error=RuntimeError("another case's compile"))
    key = (id(case.store), id(case.config), repr(case.budget), "sound")
    for seen_store, seen_config in ((case.store, Config()), (store(3), case.config)):
        token = SHARED_COMPILES.set({key: (seen_store, seen_config, stale)})
        try:
            assert compile_once(case.store, case.config, case.budget, "sound").sent
        finally:
            SHARED_COMPILES.reset(token)


@pytest.mark.parametrize("judges", [judges_what_is_sent, judges_refusals])
def test_a_judge_with_a_cost_is_declared_and_one_without_is_not(monkeypatch, judges):
    """``cost=None`` builds a judge for a test; a cost declares it in ``DECLARED`` under its name, with that cost."""
    from invariants.properties import running

    monkeypatch.setattr(running, "DECLARED", {})
    _probe(judges)
    assert running.DECLARED == {}
    declared = judges("probe", cost=7.5)(lambda name, out, *case: [Violation(name, "judged")])
    assert {"probe": running.Declared("probe", declared, 7.5)} == running.DECLARED
    assert declared(*known.ONE_PAIR, "sound") == (
        [Violation("probe", "judged")] if judges is judges_what_is_sent else []
    )


def test_a_plain_invariant_is_declared_with_its_name_its_function_and_its_cost(monkeypatch):
    from invariants.properties import running

    monkeypatch.setattr(running, "DECLARED", {})

    def judge(store, config, budget, variant):
        return []

    assert running.invariant("plain", cost=3.25)(judge) is judge
    assert {"plain": running.Declared("plain", judge, 3.25)} == running.DECLARED
    with pytest.raises(ValueError, match=r"^invariant 'other' \(cost 3.25\): its name or its cost is declared twice$"):
        running.invariant("other", cost=3.25)(judge)
    with pytest.raises(ValueError, match=r"^invariant 'plain' \(cost 9\): its name or its cost is declared twice$"):
        running.invariant("plain", cost=9)(judge)
    assert list(running.DECLARED) == ["plain"]


@pytest.mark.parametrize(
    "judges, case", [(judges_what_is_sent, known.ONE_PAIR), (judges_refusals, REFUSED)], ids=["sent", "refusals"]
)
def test_an_invariant_hands_its_judge_the_very_case_it_was_called_with(judges, case):
    """The judge is given the invariant's name, the outcome compiled, and the same store, config, budget and
    variant objects the invariant was called with (the judge reads them to price and to explain)."""
    variant = frozenset()
    given = []

    def judge(name, out, store_, config, budget, variant_):
        given.append((name, store_, config, budget, variant_))
        return []

    assert judges("probe", cost=None)(judge)(case.store, case.config, case.budget, variant) == []
    [(name, store_, config, budget, variant_)] = given
    assert name == "probe"
    assert store_ is case.store and config is case.config and budget is case.budget and variant_ is variant

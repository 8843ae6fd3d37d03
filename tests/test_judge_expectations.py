"""The scenario expectations judged (``reference/expect.py``, ``invariants/reproduce.py``): every kind, ``sends``
and ``refuses`` field by field, ``breaks`` and ``holds``, fails on an outcome that contradicts it and passes on one
that matches; and the catalogue keeps a proof test for every invariant."""

from __future__ import annotations

import dataclasses
import math

import pytest

import tests.test_judge_prices as prices
import tests.test_judge_refusals as refusals
import tests.test_judge_what_is_sent as what_is_sent
from invariants.properties import INVARIANTS, Violation
from invariants.reproduce import Observed, compare
from reference.expect import Expectation, Refuses, Sends

SENT = Sends(entries=3, total=30, raw_ids=("m0", "m2"), summaries=(("L1-0",),))
REFUSED = Refuses(
    error="OverBudgetError",
    site="positioned-pair",
    unit="selection-items",
    cleared_by=("compression",),
    head_tokens=10,
    middle_tokens=56,
    actual=66,
    refused=("L1-0",),
    dropped=("m1",),
    categories={"m1": "not-covered"},
    field="max_tokens",
)
#: For each field, a value that contradicts the observed one.
OTHER = {
    "entries": 4,
    "total": 31,
    "raw_ids": ("m0",),
    "summaries": (("L1-1",),),
    "error": "UncoveredDropError",
    "site": "head",
    "unit": "raw-messages",
    "cleared_by": (),
    "head_tokens": 9,
    "middle_tokens": 57,
    "actual": math.nan,
    "refused": ("m1",),
    "dropped": ("m1", "m2"),
    "categories": {"m1": "in-tail-not-rendered"},
    "field": "reserve_for_response",
}


def _observed(sends=None, refuses=None, violations=()) -> Observed:
    return Observed("sound", sends, refuses, "-", tuple(violations))


def _ok(expectation: Expectation, observed: Observed) -> bool:
    return all(line.ok for line in compare(expectation, observed))


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Sends)])
def test_each_sends_field_fails_on_an_outcome_that_contradicts_it(field):
    observed = _observed(sends=SENT)
    assert _ok(Expectation(sends=Sends(**{field: getattr(SENT, field)})), observed)
    lines = compare(Expectation(sends=Sends(**{field: OTHER[field]})), observed)
    assert [line.field for line in lines if not line.ok] == [f"sends.{field}"]


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Refuses)])
def test_each_refuses_field_fails_on_an_outcome_that_contradicts_it(field):
    observed = _observed(refuses=REFUSED)
    assert _ok(Expectation(refuses=Refuses(**{field: getattr(REFUSED, field)})), observed)
    lines = compare(Expectation(refuses=Refuses(**{field: OTHER[field]})), observed)
    assert [line.field for line in lines if not line.ok] == [f"refuses.{field}"]


def test_cleared_by_compares_as_a_set_and_nan_equals_nan():
    both = Refuses(cleared_by=("compression", "budget"), actual=math.nan)
    observed = _observed(refuses=dataclasses.replace(REFUSED, cleared_by=("budget", "compression"), actual=math.nan))
    assert _ok(Expectation(refuses=both), observed)


def test_sends_fails_on_a_refusal_and_refuses_on_a_send():
    assert not _ok(Expectation(sends=Sends()), _observed(refuses=REFUSED))
    assert not _ok(Expectation(refuses=Refuses()), _observed(sends=SENT))
    assert not _ok(Expectation(sends=Sends(), refuses=None), _observed())
    assert _ok(Expectation(sends=Sends()), _observed(sends=SENT))
    assert _ok(Expectation(refuses=Refuses()), _observed(refuses=REFUSED))
    lines = compare(Expectation(sends=Sends(entries=3)), _observed(refuses=REFUSED))
    assert [line.field for line in lines if not line.ok] == ["outcome", "sends.entries"]


def test_breaks_fails_unless_each_named_invariant_breaks():
    observed = _observed(sends=SENT, violations=[Violation("never-over", "x"), Violation("stats-total", "y")])
    assert _ok(Expectation(breaks=("never-over",)), observed)
    assert _ok(Expectation(breaks=("never-over", "stats-total")), observed)
    lines = compare(Expectation(breaks=("never-over", "nothing-lost")), observed)
    assert [line.field for line in lines if not line.ok] == ["breaks nothing-lost"]
    assert not _ok(Expectation(breaks=("never-over",)), _observed(sends=SENT))


def test_holds_fails_when_any_invariant_breaks():
    assert _ok(Expectation(holds=True), _observed(sends=SENT))
    lines = compare(Expectation(holds=True), _observed(sends=SENT, violations=[Violation("determinism", "z")]))
    assert [(line.field, line.actual) for line in lines if not line.ok] == [("holds", "breaks determinism")]


# ----------------------------------------------------------------------------- every invariant has its proof

#: Each invariant and the tests that break it on a wrong compile (a named defect alone, or a hand-built one).
PROOFS = {
    "stats-total": (prices, "test_stats_total_breaks_on_a_total_one_token_off_either_way"),
    "exact-budget": (prices, "test_exact_budget_breaks_when_one_token_less_still_sends"),
    "never-over": (prices, "test_never_over_judges_against_the_input_budget_not_the_configured_one"),
    "nothing-lost": (prices, "test_nothing_lost_does_not_count_a_blank_summary_as_representing_its_messages"),
    "diagnostics": (refusals, "test_diagnostics_breaks_when_the_parts_do_not_sum_to_the_actual"),
    "diagnostics-full": (refusals, "test_diagnostics_full_breaks_on_each_field_off_either_way"),
    "bad-values": (what_is_sent, "test_bad_values_breaks_on_an_infinite_grace_limit_nobody_asked_for"),
    "determinism": (what_is_sent, "test_determinism_breaks_on_a_compile_that_changes_between_calls"),
    "well-formed": (what_is_sent, "test_well_formed_breaks_on_a_call_left_unanswered"),
    "rendering": (what_is_sent, "test_rendering_breaks_on_one_changed_byte"),
    "selection": (what_is_sent, "test_selection_breaks_on_a_selection_the_reference_does_not_make"),
    "exactly-once": (what_is_sent, "test_exactly_once_breaks_on_a_message_sent_raw_twice"),
    "chronological": (what_is_sent, "test_chronological_breaks_on_two_entries_swapped"),
    "tail-suffix": (what_is_sent, "test_tail_suffix_breaks_when_the_evicted_are_not_the_oldest_run"),
}


def test_every_invariant_has_a_proof_test_and_none_is_left_over():
    assert set(PROOFS) == set(INVARIANTS), "add a judge test (tests/test_judge_*.py) for each new invariant"
    for name, (module, test) in PROOFS.items():
        assert callable(getattr(module, test, None)), f"{name}: {module.__name__}.{test} is gone"


def test_every_invariant_with_a_named_defect_to_catch_is_broken_by_one():
    """The defect tables name every invariant a defect can break alone (well-formed: none can)."""
    tables = prices.DEFECT_BREAKS + refusals.DEFECT_BREAKS + what_is_sent.DEFECT_BREAKS
    assert {row[0] for row in tables} == set(INVARIANTS) - {"well-formed"}

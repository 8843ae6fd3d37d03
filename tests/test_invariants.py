"""The seven invariants (docs/model.md, Invariants) as property tests, against every variant.

Each test takes ``variant`` (parametrized by the cmharness plugin over the three variant names) and
builds its strategy by that name at call time. ``red_on`` marks where the faithful variants really
break the invariant: there the test must fail with an ``InvariantViolation`` (the known edges in
``invariants.examples`` make that deterministic); ``sound`` must pass.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given

from invariants import assert_holds
from invariants import examples as known
from invariants.generators import cases

FAITHFUL = ("main-48bb87a1", "pr-8bb01ab8")


def with_known_edges(test):
    """Every known edge as an explicit example (they run first, whatever the profile)."""
    for case in reversed(list(known.ALL.values())):
        test = example(case=case)(test)
    return test


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_stats_total_is_the_reference_price_of_what_is_sent(case, variant):
    assert_holds("stats-total", *case, variant)


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_exact_budget_sends_the_same_entries_and_one_less_refuses(case, variant):
    assert_holds("exact-budget", *case, variant)


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_never_over_the_grace_limit(case, variant):
    assert_holds("never-over", *case, variant)


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_nothing_lost(case, variant):
    assert_holds("nothing-lost", *case, variant)


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_refusal_diagnostics(case, variant):
    assert_holds("diagnostics", *case, variant)


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_bad_values_refuse_or_send_a_finite_price_under_a_real_limit(case, variant):
    assert_holds("bad-values", *case, variant)


@pytest.mark.red_on(*FAITHFUL)
@given(case=cases())
@with_known_edges
def test_determinism(case, variant):
    assert_holds("determinism", *case, variant)

"""Every invariant has its proof: a table keyed by invariant name, checked against ``INVARIANTS``, names the judge
test that breaks it on a wrong compile; a new invariant without one turns this red."""

from __future__ import annotations

import tests.test_judge_bad_numbers as bad_numbers
import tests.test_judge_prices as prices
import tests.test_judge_refusals as refusals
import tests.test_judge_repeatability as repeatability
import tests.test_judge_tool_pairs as tool_pairs
import tests.test_judge_what_is_sent as what_is_sent
from invariants.properties import INVARIANTS

# ----------------------------------------------------------------------------- every invariant has its proof

#: Each invariant and the tests that break it on a wrong compile (a named defect alone, or a hand-built one).
PROOFS = {
    "stats-total": (prices, "test_stats_total_breaks_on_a_total_one_token_off_either_way"),
    "exact-budget": (prices, "test_exact_budget_breaks_when_one_token_less_still_sends"),
    "never-over": (prices, "test_never_over_judges_against_the_input_budget_not_the_configured_one"),
    "nothing-lost": (prices, "test_nothing_lost_does_not_count_a_blank_summary_as_representing_its_messages"),
    "diagnostics": (refusals, "test_diagnostics_breaks_when_the_parts_do_not_sum_to_the_actual"),
    "diagnostics-full": (refusals, "test_diagnostics_full_breaks_on_each_field_off_either_way"),
    "bad-values": (bad_numbers, "test_bad_values_breaks_on_an_infinite_grace_limit_nobody_asked_for"),
    "determinism": (repeatability, "test_determinism_breaks_on_a_compile_that_changes_between_calls"),
    "store-unchanged": (repeatability, "test_store_unchanged_breaks_on_a_strategy_that_rewrites_its_store"),
    "well-formed": (tool_pairs, "test_well_formed_breaks_on_a_call_left_unanswered"),
    "rendering": (what_is_sent, "test_rendering_breaks_on_one_changed_byte"),
    "selection": (what_is_sent, "test_selection_breaks_on_a_selection_the_reference_does_not_make"),
    "exactly-once": (what_is_sent, "test_exactly_once_breaks_on_a_message_sent_raw_twice"),
    "chronological": (what_is_sent, "test_chronological_breaks_on_two_entries_swapped"),
    "tail-suffix": (what_is_sent, "test_tail_suffix_breaks_when_the_evicted_are_not_the_oldest_run"),
}


#: The judge modules with a table of named defects, each switched on alone.
DEFECT_TABLES = (prices, refusals, what_is_sent, bad_numbers, repeatability)


def test_every_invariant_has_a_proof_test_and_none_is_left_over():
    assert set(PROOFS) == set(INVARIANTS), "add a judge test (tests/test_judge_*.py) for each new invariant"
    for name, (module, test) in PROOFS.items():
        assert callable(getattr(module, test, None)), f"{name}: {module.__name__}.{test} is gone"


def test_every_invariant_with_a_named_defect_to_catch_is_broken_by_one():
    """The defect tables name every invariant a defect can break alone (well-formed: none can)."""
    tables = [row for module in DEFECT_TABLES for row in module.DEFECT_BREAKS]
    assert {row[0] for row in tables} == set(INVARIANTS) - {"well-formed"}

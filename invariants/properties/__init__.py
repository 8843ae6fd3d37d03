"""The invariants (docs/model.md, Invariants) as functions ``(store, config, budget, variant) -> [Violation]``,
one module per group: ``prices``, ``refusals``, ``bad_numbers``, ``repeatability``, ``what_is_sent``,
``tool_pairs``, with ``running`` (outcomes) and the ``catalogue`` that runs them.

Each invariant compiles with a fresh ``HierarchicalStrategy(config, variant)`` (a variant name, looked
up at call time, or a frozenset of defects) and judges the outcome against what it recomputes itself
from the reference model (``reference.price.reference_price``, ``reference.estimator.content_tokens``,
``Store.folds_any``). A violation is a frozen ``(invariant, message)`` whose message says what was
expected and what happened, with the numbers.

A compile that raises anything but ``OverBudgetError``, ``UncoveredDropError`` or
``InvalidConfigError`` is a violation of every invariant that looks at it (a crash is never sound).
"""

from __future__ import annotations

from invariants.properties.bad_numbers import bad_values, bad_values_invariant
from invariants.properties.catalogue import CHEAP_FIRST, INVARIANTS, Property, assert_holds, check, variant_name
from invariants.properties.prices import exact_budget, never_over, nothing_lost, sent_ids, stats_total
from invariants.properties.refusals import (
    diagnostics,
    diagnostics_full,
    head_end,
    head_entries,
    head_total,
    refusal_site,
    refused_prefix,
    sent_head_total,
)
from invariants.properties.repeatability import determinism, history_store, store_unchanged
from invariants.properties.running import (
    REFUSALS,
    SHARED_COMPILES,
    UNLIMITED,
    InvariantViolation,
    Outcome,
    Variant,
    Violation,
    attempt,
    compile_once,
    crash,
    entries_text,
    first_difference,
    grace_limit,
)
from invariants.properties.tool_pairs import pairing_faults, well_formed
from invariants.properties.what_is_sent import (
    chronological,
    exactly_once,
    rendering,
    selection_rule,
    tail_suffix,
)

#: The name the shared compiles had before the split (``tests/shapes.py`` scopes them with it).
_SHARED = SHARED_COMPILES

__all__ = [
    "CHEAP_FIRST",
    "INVARIANTS",
    "REFUSALS",
    "SHARED_COMPILES",
    "UNLIMITED",
    "_SHARED",
    "InvariantViolation",
    "Outcome",
    "Property",
    "Variant",
    "Violation",
    "assert_holds",
    "attempt",
    "bad_values",
    "bad_values_invariant",
    "check",
    "chronological",
    "compile_once",
    "crash",
    "determinism",
    "diagnostics",
    "diagnostics_full",
    "entries_text",
    "exact_budget",
    "exactly_once",
    "first_difference",
    "grace_limit",
    "head_end",
    "head_entries",
    "head_total",
    "history_store",
    "never_over",
    "nothing_lost",
    "pairing_faults",
    "refusal_site",
    "refused_prefix",
    "rendering",
    "selection_rule",
    "sent_head_total",
    "sent_ids",
    "stats_total",
    "store_unchanged",
    "tail_suffix",
    "variant_name",
    "well_formed",
]

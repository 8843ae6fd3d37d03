"""The catalogue of the fifteen invariants by name, the order ``check`` judges them in, and running them
over one case (compiles shared between the invariants of one ``check`` call)."""

from __future__ import annotations

from collections.abc import Callable

from invariants.properties.bad_numbers import bad_values_invariant
from invariants.properties.prices import exact_budget, never_over, nothing_lost, stats_total
from invariants.properties.refusals import diagnostics, diagnostics_full
from invariants.properties.repeatability import determinism, store_unchanged
from invariants.properties.running import SHARED_COMPILES, InvariantViolation, Variant, Violation
from invariants.properties.tool_pairs import well_formed
from invariants.properties.what_is_sent import chronological, exactly_once, rendering, selection_rule, tail_suffix
from reference.model import Budget, Config, Store

Property = Callable[[Store, Config, Budget, Variant], list[Violation]]

INVARIANTS: dict[str, Property] = {
    "stats-total": stats_total,
    "exact-budget": exact_budget,
    "never-over": never_over,
    "nothing-lost": nothing_lost,
    "diagnostics": diagnostics,
    "bad-values": bad_values_invariant,
    "determinism": determinism,
    "well-formed": well_formed,
    "rendering": rendering,
    "selection": selection_rule,
    "exactly-once": exactly_once,
    "chronological": chronological,
    "tail-suffix": tail_suffix,
    "diagnostics-full": diagnostics_full,
    "store-unchanged": store_unchanged,
}


#: The invariants from the cheapest to judge to the dearest (the first four share one compile).
CHEAP_FIRST = (
    "stats-total",
    "never-over",
    "nothing-lost",
    "well-formed",
    "bad-values",
    "diagnostics",
    "rendering",
    "exactly-once",
    "chronological",
    "tail-suffix",
    "selection",
    "diagnostics-full",
    "exact-budget",
    "determinism",
    "store-unchanged",
)


def check(
    store: Store, config: Config, budget: Budget, variant: Variant, *, first_only: bool = False
) -> list[Violation]:
    """Every invariant's violations for one case (``first_only``: stop at the first invariant broken)."""
    token = SHARED_COMPILES.set({}) if SHARED_COMPILES.get() is None else None
    try:
        found: list[Violation] = []
        for name in CHEAP_FIRST:
            found += INVARIANTS[name](store, config, budget, variant)
            if first_only and found:
                break
        return found
    finally:
        if token is not None:
            SHARED_COMPILES.reset(token)


def assert_holds(invariant: str, store: Store, config: Config, budget: Budget, variant: Variant) -> None:
    """Raise ``InvariantViolation`` when ``invariant`` is broken on this case."""
    violations = INVARIANTS[invariant](store, config, budget, variant)
    if violations:
        raise InvariantViolation(violations, f"variant {variant_name(variant)}", case=(store, config, budget))


def variant_name(variant: Variant) -> str:
    if isinstance(variant, frozenset):
        return "{" + ", ".join(sorted(d.name for d in variant)) + "}" if variant else "{}"
    return str(variant)

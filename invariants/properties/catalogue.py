"""The catalogue of the invariants by name (each declared once, with ``running.invariant``), the order ``check`` judges
them in, and running them over one case (compiles shared between the invariants of one ``check`` call)."""

from __future__ import annotations

from collections.abc import Callable

# The modules whose invariants declare themselves (``running.invariant``) when imported.
from invariants.properties import bad_numbers, prices, refusals, repeatability, tool_pairs, what_is_sent  # noqa: F401
from invariants.properties.running import DECLARED, SHARED_COMPILES, InvariantViolation, Variant, Violation
from reference.model import Budget, Config, Store
from strategies.defects import Defects, Resumed

Property = Callable[[Store, Config, Budget, Variant], list[Violation]]

#: Every declared invariant, in the order ``check`` judges them: from the cheapest to the dearest, by declared cost
#: (the first four share one compile). The names are the vocabulary of a scenario's ``breaks``.
INVARIANTS: dict[str, Property] = {
    name: DECLARED[name].judge for name in sorted(DECLARED, key=lambda name: DECLARED[name].cost)
}
CHEAP_FIRST: tuple[str, ...] = tuple(INVARIANTS)


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
    if isinstance(variant, Resumed):
        return f"{variant_name(variant.defects)} from watermark {variant.watermark}"
    if isinstance(variant, Defects):
        return variant_name(variant.active | variant.behaviours)
    if isinstance(variant, frozenset):
        return "{" + ", ".join(sorted(d.name for d in variant)) + "}" if variant else "{}"
    return str(variant)

"""Every edge search by name, in the corpus's order, and running them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from invariants.edges.caps import search_cap_units
from invariants.edges.density import search_density_threshold
from invariants.edges.division import search_ieee_division
from invariants.edges.epochs import search_epoch_predicate
from invariants.edges.grace import search_grace_limit
from invariants.edges.half_rounding import search_js_round_half
from invariants.edges.results import EdgeResult

SEARCHES: dict[str, Callable[[], EdgeResult]] = {
    "ieee-division": search_ieee_division,
    "js-round-half": search_js_round_half,
    "epoch-predicate": search_epoch_predicate,
    "grace-limit": search_grace_limit,
    "cap-units": search_cap_units,
    "density-threshold": search_density_threshold,
}
EDGES: tuple[str, ...] = tuple(SEARCHES)


def run_edges(only: Iterable[str] | None = None) -> list[EdgeResult]:
    """Run the searches (every edge, or those named), in ``EDGES`` order."""
    names = EDGES if only is None else tuple(only)
    unknown = [n for n in names if n not in SEARCHES]
    if unknown:
        raise ValueError(f"unknown edge {unknown[0]!r}; known: {', '.join(EDGES)}")
    return [SEARCHES[n]() for n in EDGES if n in names]

"""What shape a generated case has, for Hypothesis' statistics and steering.

``observe(case)`` records, with ``hypothesis.event``, the refusal site the ``sound`` compile reaches
(head, positioned, combined pair, raw after the combined pair, or none), the window shape, the
pair mode and the compression work, and ``target``s the distance to the grace boundary. Run a property test with
``--hypothesis-show-statistics`` to see the figures.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from hypothesis import event, target

from invariants.generators import Case
from invariants.properties import UNLIMITED, compile_once, grace_limit, refusal_site
from reference.price import reference_price
from reference.rendering import layout
from reference.selection import select
from strategies.errors import OverBudgetError

SITES = ("head", "positioned", "combined-pair", "raw-after-combined")
#: What compression work a store holds (``work_shapes``): none, chunk or merge work that folds something,
#: work that folds nothing, a compression in flight.
WORK_SHAPES = ("none", "chunk", "merge", "folds nothing", "in flight")


def site_of(case: Case) -> str:
    """The refusal site the sound compile reaches on ``case``, or what else it does."""
    store, config, budget = case
    out = compile_once(store, config, budget, "sound")
    if out.sent:
        return "sent"
    if not isinstance(out.error, OverBudgetError):
        return type(out.error).__name__
    ref = select(store, config, budget)
    raw = [*range(ref.head_end), *ref.middle_raw, *range(ref.middle_end, len(store.messages))]
    items = layout(store, config, raw, ref.selected, (ref.head_end, ref.middle_end))
    at = refusal_site(out.error, items)
    return "unplaced" if at is None else items[at].site


def window_shape(case: Case) -> str:
    """Which windows are non-empty, and whether a selected summary straddles the middle and a window."""
    store, config, budget = case
    ref = select(store, config, budget)
    n = len(store.messages)
    parts = [
        name
        for name, present in (
            ("head", ref.head_end > 0),
            ("middle", ref.middle_end > ref.head_end),
            ("tail", ref.middle_end < n),
        )
        if present
    ]
    straddles = any(
        any(store.index(m) < ref.head_end or store.index(m) >= ref.middle_end for m in store.leaves(s.id))
        for s in ref.selected
    )
    return "+".join(parts or ["empty"]) + (" (straddling summary)" if straddles else "")


def pair_mode(case: Case) -> str:
    config = case.config
    return f"{'positioned' if config.positioned_recall_pairs else 'combined'}, envelope {config.recall_envelope}"


def work_shapes(case: Case) -> frozenset[str]:
    """Which of ``WORK_SHAPES`` the store's work items take ("none" when it holds no work)."""
    shapes = {"in flight" if w.folds is None else "folds nothing" if not w.folds else w.kind for w in case.store.work}
    return frozenset(shapes or {"none"})


def grace_distance(case: Case) -> float | None:
    """How far the grace limit is from the price of what the sound compile sends unlimited (None if undefined)."""
    store, config, budget = case
    free = compile_once(store, config, UNLIMITED, "sound")
    if not free.sent:
        return None
    price = reference_price(free.entries, store, config)
    limit = grace_limit(budget, config)
    distance = abs(limit - price)
    return float(distance) if math.isfinite(distance) else None


def observe(case: Case) -> None:
    """Record the case's refusal site, window shape, pair mode and work; steer toward the grace boundary."""
    event("refusal site: " + site_of(case))
    event("windows: " + window_shape(case))
    event("pairs: " + pair_mode(case))
    event("work: " + ", ".join(sorted(work_shapes(case))))
    distance = grace_distance(case)
    if distance is not None:
        target(-distance, label="closeness to the grace boundary")


def reach(cases: Iterable[Case]) -> Counter[str]:
    """How many of ``cases`` reach each site (and each other outcome)."""
    return Counter(site_of(c) for c in cases)

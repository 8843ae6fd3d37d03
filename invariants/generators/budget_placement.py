"""Budgets on a store's own edges, placed by what is sent at an unlimited budget.

What is sent unlimited comes from the reference (its selection, rendered), not from the code under test:
the same entries as the sound compile's wherever that one does not refuse, at about half the cost.

The edges: the reference price of what is sent unlimited, one below it, the grace
boundary, the boundary after any one item sent, one short of the whole head, of the first pair or of
the first raw message after the combined pair; 0, huge, +inf, and malformed values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum

from hypothesis import strategies as st

from invariants.generators.content import INF, NAN
from invariants.generators.draws import weights
from reference.estimator import content_tokens
from reference.model import Budget, Config, Entry, Store
from reference.numerics import Number
from reference.price import reference_price
from reference.rendering import Selection, render
from reference.selection import select


def input_budget_for(price: Number, grace: Number) -> int | None:
    """The smallest integer ``B >= 0`` with ``floor(B * (1 + g)) >= price`` in doubles (None when undefined)."""
    g = 0 if grace < 0 else grace  # Math.max(0, g); NaN stays NaN
    if not (math.isfinite(price) and math.isfinite(g)) or price >= 2**53:
        return None
    factor = 1 + g
    b = max(0, math.ceil(price / factor))
    while b > 0 and math.floor((b - 1) * factor) >= price:
        b -= 1
    while math.floor(b * factor) < price:
        b += 1
    return b


@dataclass(frozen=True)
class Unlimited:
    """What is sent at an unlimited budget, and the windows' bounds (head end, middle end)."""

    entries: tuple[Entry, ...]
    bounds: tuple[int, int]


class Unknown(Enum):
    """What is sent unlimited, not computed yet."""

    UNKNOWN = "unknown"


UNKNOWN = Unknown.UNKNOWN


def unlimited(store: Store, config: Config) -> Unlimited | None:
    """The reference selection at an unlimited budget, rendered (None when the reference raises)."""
    try:
        layout = select(store, config, Budget(max_tokens=INF))
        raw = (*range(layout.head_end), *layout.middle_raw, *range(layout.middle_end, len(store.messages)))
        selection = Selection(frozenset(store.messages[i].id for i in raw), tuple(s.id for s in layout.selected))
        window_bounds = (layout.head_end, layout.middle_end)
        return Unlimited(render(store, config, selection, bounds_=window_bounds), window_bounds)
    except Exception:
        return None


def unlimited_price(store: Store, config: Config) -> Number | None:
    """The reference price of what is sent at an unlimited budget (None when the reference raises)."""
    sent = unlimited(store, config)
    return None if sent is None else reference_price(sent.entries, store, config)


#: Where a budget sits: on the store's own edges mostly (the whole context's price, the grace boundary,
#: the boundary after any one item sent, so that the next one is refused), sometimes anywhere inside,
#: ordinary, or malformed.
budget_edges = weights(
    (3, "exact"),
    (2, "grace"),
    (3, "grace-1"),
    (1, "below"),
    (4, "item"),
    (2, "inside"),
    (1, "reserve"),
    (1, "zero"),
    (1, "huge"),
    (1, "inf"),
    (1, "malformed"),
    (6, "middle"),
    (3, "head"),
    (3, "raw-after-combined"),
)


#: The "middle" edge reserves a few tokens for the response, so its refusals tell the configured budget
#: from the input budget.
MIDDLE_RESERVE = 7
_MIDDLE_TARGETS = st.sampled_from((1, 1, 0))
_RESERVES = st.integers(1, 500)
_MALFORMED_BUDGETS = st.sampled_from(
    (
        Budget(max_tokens=NAN),
        Budget(max_tokens=-1),
        Budget(max_tokens=-INF),
        Budget(max_tokens=100, reserve_for_response=NAN),
        Budget(max_tokens=100, reserve_for_response=-1),
        Budget(max_tokens=100, reserve_for_response=INF),
        Budget(max_tokens=100, reserve_for_response=200),
        Budget(max_tokens=INF, reserve_for_response=INF),
    )
)


def _raw_middle(store: Store, entry: Entry, window_bounds: tuple[int, int]) -> bool:
    """Whether ``entry`` is a raw message of the middle window (``window_bounds``: head end, middle end)."""
    return entry.kind == "raw" and window_bounds[0] <= store.index(entry.message_id) < window_bounds[1]


def _finite_price(x: Number | None, fallback: Number) -> int:
    if x is None or not math.isfinite(x) or x >= 2**53:
        x = fallback
    return max(0, math.ceil(x))


def _whole_price(sent: Unlimited | None, store: Store, config: Config) -> int:
    """The price of what is sent unlimited; the raw messages' estimate (or 1000) where that is undefined."""
    price = None if sent is None else reference_price(sent.entries, store, config)
    if price is not None and math.isfinite(price) and price < 2**53:
        return max(0, math.ceil(price))
    raw_total = sum((content_tokens(m.content, store) for m in store.messages), 0)
    return _finite_price(raw_total, 1000)


def draw_budget(
    draw: st.DrawFn, store: Store, config: Config, edge: str | None = None, sent: Unlimited | Unknown | None = UNKNOWN
) -> Budget:
    """A budget around the store's own edges (see the module docstring), on ``edge`` when given (``sent``: what
    is sent unlimited, when the caller has it)."""
    if edge is None:
        edge = draw(budget_edges)
    if edge == "zero":
        return Budget(max_tokens=0)
    if edge == "huge":
        return Budget(max_tokens=10**9)
    if edge == "inf":
        return Budget(max_tokens=INF)
    if edge == "malformed":
        return draw(_MALFORMED_BUDGETS)
    if sent is UNKNOWN:
        sent = unlimited(store, config)
    entries = () if sent is None else sent.entries
    price = _whole_price(sent, store, config)
    grace = config.over_budget_grace_ratio
    grace = grace if math.isfinite(grace) else 0

    def covering(p: int) -> int:
        b = input_budget_for(p, grace)
        return p if b is None else b

    def after(end: int) -> int:
        """The input budget that covers the first ``end`` entries sent."""
        return covering(_finite_price(reference_price(entries[:end], store, config), 0))

    boundary = covering(price)
    window_bounds = (0, 0) if sent is None else sent.bounds
    head_end = window_bounds[0]
    if edge == "head" and entries and head_end > 0:
        # One token short of the whole head: the last head message is refused.
        at = max(0, after(head_end) - 1)
    elif (
        edge == "raw-after-combined"
        and entries
        and not config.positioned_recall_pairs
        and any(_raw_middle(store, e, window_bounds) for e in entries)
    ):
        # One token short of the first raw middle message, sent after the combined pair.
        end = next(i + 1 for i, e in enumerate(entries) if _raw_middle(store, e, window_bounds))
        at = max(0, after(end) - 1)
    elif edge == "middle" and entries and any(e.kind == "question" for e in entries):
        # One token short of the first recall pair (positioned or combined): the middle refuses there,
        # after a head of whatever length the store has.
        # Or, in combined mode, one short of the first raw message after the combined pair.
        first = next(i for i, e in enumerate(entries) if e.kind == "question")
        ends = [first + 2]
        if not config.positioned_recall_pairs:
            ends += [i + 1 for i, e in enumerate(entries) if i > first + 1 and _raw_middle(store, e, window_bounds)][:1]
        end = ends[min(draw(_MIDDLE_TARGETS), len(ends) - 1)]
        at = max(0, after(end) - 1)
        return Budget(max_tokens=at + MIDDLE_RESERVE, reserve_for_response=MIDDLE_RESERVE)
    elif edge == "item" and entries:
        # The boundary after the k-th item sent (a raw message or a whole pair): the next item is refused.
        ends = [i + 1 for i, e in enumerate(entries) if e.kind != "question"]
        k = draw(st.integers(0, len(ends) - 1))
        at = after(ends[k])
    elif edge == "exact":
        at = price
    elif edge == "below":
        at = max(0, price - 1)
    elif edge == "grace":
        at = boundary
    elif edge == "grace-1":
        at = max(0, boundary - 1)
    elif edge in ("inside", "item", "middle", "head", "raw-after-combined"):
        at = draw(st.integers(0, max(0, boundary - 1)))
    else:  # reserve: the same input budget, part of it reserved for the response
        reserve = draw(_RESERVES)
        return Budget(max_tokens=boundary + reserve, reserve_for_response=reserve)
    return Budget(max_tokens=at)


@st.composite
def budgets(draw: st.DrawFn, store: Store, config: Config, edge: str | None = None) -> Budget:
    """A budget around the store's own edges (see ``draw_budget``)."""
    return draw_budget(draw, store, config, edge)


def _raw_after_pair(store: Store, sent: Unlimited | None) -> bool:
    """Whether what is sent unlimited has a raw middle message after a recall pair."""
    if sent is None:
        return False
    first = next((i for i, e in enumerate(sent.entries) if e.kind == "question"), None)
    return first is not None and any(_raw_middle(store, e, sent.bounds) for e in sent.entries[first + 2 :])


def fitted(store: Store, config: Config, edge: str) -> tuple[Config, Unlimited | Unknown | None]:
    """The config an edge needs on ``store``, and what is sent unlimited under it when that was computed: the
    raw after the combined pair needs combined pairs, enforced, and a middle window (no head or recent window
    when the config's leave no raw after a pair).
    """
    if edge != "raw-after-combined":
        return config, UNKNOWN
    combined = replace(config, positioned_recall_pairs=False, enforce_budget=True)
    sent = unlimited(store, combined)
    if _raw_after_pair(store, sent):
        return combined, sent
    return replace(combined, head_window_tokens=0, recent_window_tokens=0), UNKNOWN

"""The numbers that decide, per store: every value of a window, a level budget, the cap and the budget at which a
comparison of the compile can change its answer, derived from the reference's prices of the store's own entries.

Every price in a scope is an integer (no custom estimator, integer stamps and tokens, calibrated prices rounded per
block), and every comparison of the compile is ``sum > bound`` (docs/model.md, Windows, Selection, Emission and the
grace check): so on the integers the answer changes only between ``s - 1`` and ``s`` for a sum ``s``, and testing
both ends visits each region of the bound between two consecutive sums. The budget reaches the emission's checks
through the grace limit ``floor(B * (1 + g))`` in doubles; ``grace_lemma`` proves with Z3 that it never decreases
as ``B`` grows, so the least ``B`` whose limit reaches ``s`` (``input_budget_for``) and one below it are the two
sides of that comparison.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from invariants.edges.grace import BUDGET_MAX, grace_witness
from invariants.generators.budget_placement import input_budget_for
from reference.cap import cap_content, text_only_estimate
from reference.estimator import calibrated_tokens, store_pricing
from reference.images import stripped
from reference.model import Budget, Config, Store, Summary
from reference.numerics import Number, is_number
from reference.price import live_prose, reference_price
from reference.rendering import Selection, finish, layout, planned_raw
from reference.rendering import Switches as RenderSwitches
from reference.selection import Rules, bounds, message_prices, select, store_wide_flags

#: A level budget large enough that the level never stops (the default).
LARGE = 30000
#: Rounds of "lay out at each new budget, collect its sums" before the budget points are taken as they are.
ROUNDS = 4


def _with_edges(values: Iterable[Number], edges: int) -> list[int]:
    """Each integer value, and one below it when ``edges`` is 2 (never below 0), sorted."""
    out: set[int] = set()
    for v in values:
        if not (is_number(v) and math.isfinite(v)):
            continue
        v = int(v)
        out.add(max(0, v))
        if edges > 1 and v > 0:
            out.add(v - 1)
    return sorted(out)


def prefix_sums(prices: Sequence[Number]) -> list[Number]:
    return list(itertools.accumulate(prices))


def post_strip_prices(store: Store, config: Config) -> list[Number]:
    """Each message's price with its images stripped by the store-wide count: what the recent window walks."""
    rules = Rules()
    rule = store_pricing(store)
    flags = store_wide_flags(store, config, rules)
    return [
        calibrated_tokens(stripped(m.content, f, rules.images.placeholder), rule, store.calibration)
        for m, f in zip(store.messages, flags, strict=True)
    ]


def head_points(store: Store, edges: int) -> list[int]:
    """The head window: 0 and every prefix sum of the messages' prices (and one below)."""
    return _with_edges([0, *prefix_sums(message_prices(store, Rules()))], edges)


def recent_points(store: Store, config: Config, edges: int) -> list[int]:
    """The recent window: 0 and every suffix sum of the messages' post-strip prices (and one below)."""
    post = post_strip_prices(store, config)
    return _with_edges([0, *prefix_sums(post[::-1])], edges)


def cap_points(store: Store, kind: str) -> list[Number | None]:
    """The cap's values for a scope's cap kind: off (None), 1, or each content's text-only estimate, and each share of
    the xml combined answer's cap the summaries before one take, and one below."""
    if kind == "off":
        return [None]
    if kind == "1":
        return [1]
    texts = [text_only_estimate(m.content) for m in store.messages]
    prose = [text_only_estimate(live_prose(s, Config())) for s in store.summaries]
    # the xml combined answer shares the cap: the k-th summary (k > 0) is left out when what the ones before took,
    # with a 2-unit separator each, leaves nothing: at the sum of the k before it plus 2k, in any order
    shared = [sum(p[:k]) + 2 * k for p in itertools.permutations(prose) for k in range(1, len(p))]
    return [v for v in _with_edges([*texts, *prose, *shared], 2) if v >= 1]


def waterfall_tokens(s: Summary) -> Number:
    """A summary's tokens as the sound waterfall reads them: a finite number >= 0, else 0."""
    t = s.tokens
    return t if is_number(t) and math.isfinite(t) and t >= 0 else 0


def subset_sums(values: Sequence[Number]) -> list[Number]:
    return sorted({sum(c) for k in range(len(values) + 1) for c in itertools.combinations(values, k)})


def level_points(store: Store, edges: int, split: bool = False) -> list[tuple[int, int, int]]:
    """(l3, l2, l1) budgets: l3 0, l2 at each sum of the L2 summaries' tokens (0 with none), and for each, l1 such
    that the L1 allowance (l1 plus what L2 left) is at each sum of the L1 tokens (and one below); the largest sum
    stands for every budget above it. ``split``: each also with one token moved from l1 to l3, the same L1
    allowance reached through the carry of two levels. No summary: the defaults."""
    unmerged = [s for s in store.summaries if s.parent_id is None]
    if not unmerged:
        return [(LARGE, LARGE, LARGE)]
    l2 = subset_sums([waterfall_tokens(s) for s in unmerged if s.level == 2])
    l1 = subset_sums([waterfall_tokens(s) for s in unmerged if s.level == 1])
    triples: set[tuple[int, int, int]] = set()
    for b2 in _with_edges(l2, edges):
        for used in (u for u in l2 if u <= b2):
            carry = b2 - used
            for b1 in _with_edges([x - carry for x in l1 if x - carry >= 0], edges):
                triples.add((0, b2, b1))
                if split and b1 >= 1:
                    triples.add((1, b2, b1 - 1))
    return sorted(triples)


def emission_sums(store: Store, config: Config, budget: Budget) -> list[Number]:
    """The totals the emission compares with the grace limit, for the reference's selection at ``budget``: the
    running total after each item sent, and with the tail accepted newest first."""
    try:
        lay = select(store, config, budget)
        raw = (*range(lay.head_end), *lay.middle_raw, *range(lay.middle_end, len(store.messages)))
        selection = Selection(frozenset(store.messages[i].id for i in raw), tuple(s.id for s in lay.selected))
        window = (lay.head_end, lay.middle_end)
        items = layout(store, config, planned_raw(store, selection, window, RenderSwitches()), lay.selected, window)
        items = finish(store, config, items)
        prices = [reference_price(it.entries, store, config) for it in items]
    except Exception:  # a bad value the reference refuses: its budgets come from the other sums
        return []
    tail = [p for it, p in zip(items, prices, strict=True) if it.site == "tail"]
    before = prefix_sums([p for it, p in zip(items, prices, strict=True) if it.site != "tail"])
    total = before[-1] if before else 0
    return [*before, *(total + s for s in prefix_sums(tail[::-1]))]


def waterfall_sums(store: Store, config: Config) -> list[Number]:
    """Every ``head + selected + tokens`` the waterfall can compare with the input budget: the head's price as sent
    plus each subset sum of the unmerged summaries' tokens."""
    head_end, _ = bounds(store, config, Rules())
    head = 0
    rule = store_pricing(store)
    for i in range(head_end):
        head += calibrated_tokens(cap_content(store.messages[i].content, config.cap), rule, store.calibration)
    tokens = [waterfall_tokens(s) for s in store.summaries if s.parent_id is None]
    return [head + s for s in subset_sums(tokens) if s > 0] + [head]


def budget_points(store: Store, config: Config, reserve: int, edges: int) -> list[Number]:
    """Input budgets: unlimited, 0, and both sides of every sum the compile compares with the budget or the grace
    limit, over the reference's layout at each budget found, until no new one appears (``ROUNDS`` at most)."""
    grace = config.over_budget_grace_ratio
    points: set[Number] = {math.inf, 0}
    for t in waterfall_sums(store, config):
        points.update(_with_edges([t], 2))
    todo: set[Number] = set(points)
    for _ in range(ROUNDS):
        new: set[Number] = set()
        for b in sorted(todo):
            for c in emission_sums(store, config, Budget(max_tokens=b + reserve, reserve_for_response=reserve)):
                least = input_budget_for(c, grace)
                if least is not None:
                    new.update(_with_edges([least], 2) if edges > 1 else [least, max(0, least - 1)])
        todo = new - points
        points |= new
        if not todo:
            break
    return sorted(points)


@dataclass(frozen=True)
class Lemma:
    """A claim Z3 proved (or could not) over a range, and the time it took."""

    claim: str
    proved: bool
    seconds: float


def grace_lemma(grace: float, budget_max: int = BUDGET_MAX) -> Lemma:
    """Z3 (the exact encoding of doubles in ``invariants.edges``): for every integer ``B`` in 1..``budget_max`` the
    grace limit ``floor(B * (1 + g))`` in doubles equals the exact ``floor(B * (100 + 100 g) / 100)``, which never
    falls as ``B`` grows; so a limit's threshold is crossed once, at ``input_budget_for``. ``g`` 0 needs no solver
    (``B * 1`` is exact below 2**53); a ``g`` that is not a whole percent up to 0.50 is not proved."""
    start = time.perf_counter()
    claim = f"floor(B * (1 + {grace!r})) in doubles is exact, never decreasing, for integer B in 1..{budget_max}"
    if grace == 0:
        return Lemma(claim, budget_max < 2**53, time.perf_counter() - start)
    percent = round(grace * 100)
    if not (1 <= percent <= 50 and percent / 100 == grace):
        return Lemma(claim, False, time.perf_counter() - start)
    proved = grace_witness(percent, 100, budget_max) is None
    return Lemma(claim, proved, time.perf_counter() - start)

"""Shapers: a config moved onto one of its store's own edges, where a rule's "exceeds" and "reaches" part.

A drawn window or level budget rarely lands exactly on a sum of the store's prices, so a walk that stops when its
sum reaches the window (not when it exceeds it), or a waterfall that skips a misfit summary (not stops there), or
one that carries only its own level's rest, shows on almost no drawn case. A shaper puts one of them there:

- ``head`` / ``recent``: the head (recent) window is exactly the price of the first (last) ``k`` messages;
- ``levels``: each level budget is set so that the level's allowance (its budget and what the level above left)
  is exactly the tokens of its first ``j`` candidates (an exact fit), or those plus a later smaller candidate's
  tokens (it fits only if the waterfall skips the misfit); a level without candidates gets a few tokens, so the levels
  above leave a rest that carries down.

The cases draw a shaper with the budget's edge, in one choice (``SHAPED_EDGES``); most cases keep the config as
drawn.
"""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import strategies as st

from invariants.generators.budget_placement import budget_edges
from reference.model import Config, Store, Summary
from reference.numerics import Number, is_number, js_blank
from reference.selection import Rules, message_prices

#: The shapers and their weights: the config as drawn in 12 cases of 20.
SHAPERS = ("as drawn",) * 12 + ("head",) * 3 + ("recent",) + ("levels",) * 4
#: A budget's edge and a shaper, in one choice; shrinks toward the first edge with the config as drawn. The shapers
#: are interleaved through the list, since Hypothesis draws a long list's index biased toward its start.
SHAPED_EDGES = st.sampled_from([(edge, shaper) for edge in budget_edges.elements for shaper in SHAPERS])
#: Which message or candidate a shaper puts its edge on (drawn only for a shaped case).
SPOTS = st.integers(0, 7)


def _finite(xs: list[Number]) -> bool:
    return all(is_number(x) and math.isfinite(x) for x in xs)


def _tokens(s: Summary) -> Number:
    """A summary's tokens as the waterfall reads them: a finite number >= 0, else 0."""
    t = s.tokens
    return t if is_number(t) and math.isfinite(t) and t >= 0 else 0


def on_window_edge(store: Store, config: Config, which: str, spot: int) -> Config:
    """The head (or recent) window at exactly the price of the first (last) ``k`` messages, ``k`` from ``spot``."""
    prices = message_prices(store, Rules())
    n = len(prices)
    if n < 2 or not _finite(prices):
        return config
    k = 1 + spot % (n - 1)
    if which == "head":
        return replace(config, head_window_tokens=sum(prices[:k]))
    return replace(config, recent_window_tokens=sum(prices[n - k :]))


def on_level_edges(store: Store, config: Config, spot: int) -> Config:
    """Level budgets on the candidates' edges (see the module docstring), each level's ``j`` from ``spot``."""
    pool = [s for s in store.summaries if s.parent_id is None and not js_blank(s.content)]
    budgets: dict[int, Number] = {}
    carry: Number = 0
    for level in (3, 2, 1):
        tokens = [_tokens(s) for s in pool if s.level == level]
        if not tokens:  # a small rest that carries down (where a carry of the level's own rest alone differs)
            budgets[level] = 1 + spot
            carry += budgets[level]
            continue
        # On an even spot, a misfit with a smaller candidate after it (past the first candidate where there is one);
        # else an exact fit of the first candidates, so that a carry one token smaller takes fewer.
        misfits = [j for j in range(len(tokens)) if any(t < tokens[j] for t in tokens[j + 1 :])]
        spots = ([j for j in misfits if j > 0] or misfits) if spot % 2 == 0 else []
        spots = spots or list(range(1, len(tokens) + 1))
        j = spots[spot // 2 % len(spots)]
        taken = sum(tokens[:j])
        later = [t for t in tokens[j + 1 :] if t < tokens[j]] if j < len(tokens) else []
        allowed = taken + (min(later) if later else 0)
        budgets[level] = max(0, allowed - carry)
        carry = budgets[level] + carry - taken
    return replace(config, l3_budget_tokens=budgets[3], l2_budget_tokens=budgets[2], l1_budget_tokens=budgets[1])


def shaped(store: Store, config: Config, shaper: str, spot: int) -> Config:
    """``config`` moved onto the store's edge ``shaper`` names (as drawn for ``"as drawn"``)."""
    if shaper in ("head", "recent"):
        return on_window_edge(store, config, shaper, spot)
    if shaper == "levels":
        return on_level_edges(store, config, spot)
    return config

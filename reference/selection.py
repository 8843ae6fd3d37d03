"""The reference selection and layout: which summaries a compile selects, and the order of its items.

Written from the contract (docs/model.md, "Windows", "Selection" and "The reference rendering"), with
no code shared with ``strategies/``: the windows from ``E`` of the original contents, the candidates,
the waterfall with carry-over, coverage completion, and the emission order of the items
(head, middle, tail) that the reference rendering and the refusal diagnostics are read against.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from reference.cap import cap_content, cap_is_on
from reference.estimator import calibrated_tokens, store_pricing
from reference.model import Budget, Config, Store, Summary
from reference.numerics import Number, is_number, js_trim


@dataclass(frozen=True)
class Rules:
    """The named defects that change the selection or the windows (each a switch of its own)."""

    verbatim_stamps: bool = False  # Defect.STAMPS_VERBATIM
    deep_window_candidates: bool = False  # Defect.DEEP_WINDOW_CANDIDATES
    verbatim_tokens: bool = False  # Defect.UNCHECKED_BAD_VALUES (the waterfall reads tokens as is)
    raw_cap_plus_50: bool = False  # Defect.RAW_CAP_PLUS_50 (the head's total, as the waterfall reads it)
    blank_candidates: bool = False  # Defect.BLANK_SUMMARIES_SELECTED (blank summaries stay candidates)


def _has_text(s: Summary) -> bool:
    """Content that is not blank after JavaScript's trim (a blank summary is never a claimer)."""
    return js_trim(s.content) != ""


@dataclass(frozen=True)
class Layout:
    """The windows and the selection: ``[0, head_end)`` head, ``[head_end, middle_end)`` middle, rest tail."""

    head_end: int
    middle_end: int
    selected: tuple[Summary, ...]
    middle_raw: tuple[int, ...]


def message_prices(store: Store, rules: Rules) -> list[Number]:
    rule = store_pricing(store, verbatim_stamps=rules.verbatim_stamps)
    return [calibrated_tokens(m.content, rule, store.calibration) for m in store.messages]


def windows(prices: Sequence[Number], config: Config) -> tuple[int, int]:
    """(head_end, middle_end): the head closes where its sum exceeds the window; so does the recent window."""
    n = len(prices)
    head = 0 if config.head_window_tokens <= 0 else n
    total: Number = 0
    if head:
        for i, p in enumerate(prices):
            total += p
            if total > config.head_window_tokens:
                head = i
                break
    recent, total = 0, 0
    for i in range(n - 1, -1, -1):
        total += prices[i]
        if total > config.recent_window_tokens:
            recent = i + 1
            break
    return head, max(recent, head)


def _leaf_indices(store: Store, s: Summary) -> set[int]:
    return {store.index(m) for m in store.leaves(s.id)}


def _tokens(s: Summary, rules: Rules) -> Number:
    t = s.tokens
    if rules.verbatim_tokens:
        return t
    return t if is_number(t) and math.isfinite(t) and t >= 0 else 0


def head_total(store: Store, config: Config, head_end: int, prices: Sequence[Number], rules: Rules) -> Number:
    """What the head costs as the compile priced it: ``E`` as sent, or faithfully ``min(E, cap + 50)``."""
    total: Number = 0
    rule = store_pricing(store, verbatim_stamps=rules.verbatim_stamps)
    for i in range(head_end):
        m = store.messages[i]
        if rules.raw_cap_plus_50:
            cap = config.cap
            total += min(prices[i], cap + 50) if cap_is_on(cap) else prices[i]
        else:
            total += calibrated_tokens(cap_content(m.content, config.cap), rule, store.calibration)
    return total


def select(store: Store, config: Config, budget: Budget, rules: Rules = Rules()) -> Layout:
    """The windows, then candidates, the waterfall (L3, L2, L1, break at the first misfit) and completion."""
    prices = message_prices(store, rules)
    head_end, middle_end = windows(prices, config)

    def touches(s: Summary) -> bool:
        return any(i < head_end or i >= middle_end for i in _leaf_indices(store, s))

    pool = [s for s in store.summaries if s.parent_id is None and (_has_text(s) or rules.blank_candidates)
            and not ((s.level == 1 or not rules.deep_window_candidates) and touches(s))]
    head = head_total(store, config, head_end, prices, rules)
    limit = budget.input_budget
    own = {3: config.l3_budget_tokens, 2: config.l2_budget_tokens, 1: config.l1_budget_tokens}
    chosen: list[Summary] = []
    picked: Number = 0
    carry: Number = 0
    for level in (3, 2, 1):
        allowed = own[level] + carry
        used: Number = 0
        for s in pool:
            if s.level != level:
                continue
            t = _tokens(s, rules)
            if used + t > allowed or (config.enforce_budget and head + picked + t > limit):
                break
            chosen.append(s)
            used += t
            picked += t
        carry = allowed - used
    covered = {m for s in chosen for m in store.leaves(s.id)}
    owners = {m: s for s in store.summaries if s.parent_id is None and _has_text(s) for m in store.leaves(s.id)}
    middle_raw: list[int] = []
    for i in range(head_end, middle_end):
        mid = store.messages[i].id
        if mid in covered:
            continue
        if mid in owners:
            chosen.append(owners[mid])
            covered |= store.leaves(owners[mid].id)
        else:
            middle_raw.append(i)
    return Layout(head_end, middle_end, tuple(chosen), tuple(middle_raw))

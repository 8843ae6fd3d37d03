"""The reference selection and layout: which summaries a compile selects, and the order of its items.

Written from the contract (docs/model.md, "Windows", "Selection" and "The reference rendering"), with
no code shared with ``strategies/``: the windows (``bounds``: ``E`` of the original contents, post-strip
prices for the recent window, the tool-pair step backs), the candidates,
the waterfall with carry-over, coverage completion, and the emission order of the items
(head, middle, tail) that the reference rendering and the refusal diagnostics are read against.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from reference.cap import cap_content, cap_is_on
from reference.estimator import calibrated_tokens, store_pricing
from reference.images import ImageRules, depth_start, resolved, store_wide, stripped
from reference.model import Budget, Config, Store, Summary, ToolResult, ToolUse
from reference.numerics import Number, is_number, js_trim


@dataclass(frozen=True)
class Rules:
    """The named defects that change the selection or the windows (each a switch of its own)."""

    verbatim_stamps: bool = False  # Defect.STAMPS_VERBATIM
    deep_window_candidates: bool = False  # Defect.DEEP_WINDOW_CANDIDATES
    verbatim_tokens: bool = False  # Defect.UNCHECKED_BAD_VALUES (the waterfall reads tokens as is)
    raw_cap_plus_50: bool = False  # Defect.RAW_CAP_PLUS_50 (the head's total, as the waterfall reads it)
    blank_candidates: bool = False  # Defect.BLANK_SUMMARIES_SELECTED (blank summaries stay candidates)
    store_wide_images: bool = False  # Defect.IMAGE_COUNT_STORE_WIDE (the head's total, images stripped store-wide)
    images: ImageRules = ImageRules()  # noqa: RUF009 (frozen) the line's image rules (docs/model.md, Variants)


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


def head_walk(prices: Sequence[Number], window: Number) -> int:
    """The head closes at the first index where the sum from the oldest exceeds the window (all: never)."""
    if window <= 0:
        return 0
    total: Number = 0
    for i, p in enumerate(prices):
        total += p
        if total > window:
            return i
    return len(prices)


def recent_walk(prices: Sequence[Number], window: Number) -> int:
    """The recent window opens after the first index, from the newest, where the sum exceeds the window."""
    total: Number = 0
    for i in range(len(prices) - 1, -1, -1):
        total += prices[i]
        if total > window:
            return i + 1
    return 0


def windows(prices: Sequence[Number], config: Config) -> tuple[int, int]:
    """(head_end, middle_end) of the plain walks over ``prices``, with no post-strip prices and no tool-pair step
    back (``bounds`` takes both)."""
    head = head_walk(prices, config.head_window_tokens)
    return head, max(recent_walk(prices, config.recent_window_tokens), head)


def store_wide_flags(store: Store, config: Config, rules: Rules) -> list[tuple[bool, ...]]:
    """Which images of each message stay live by the store-wide count (``postStripEstimates``)."""
    prices = message_prices(store, rules)
    contents = [m.content for m in store.messages]
    start = depth_start(prices, config.image_strip_depth_tokens)
    return store_wide(contents, start, config, resolved(rules.images, prices, contents, config))


def bounds(store: Store, config: Config, rules: Rules) -> tuple[int, int]:
    """(head_end, middle_end): the head walks ``E`` of each message, the recent window its post-strip price;
    a head ending just after a call and a recent window opening on a result each step back one."""
    prices = message_prices(store, rules)
    rule = store_pricing(store, verbatim_stamps=rules.verbatim_stamps)
    post = [
        calibrated_tokens(stripped(m.content, f, rules.images.placeholder), rule, store.calibration)
        for m, f in zip(store.messages, store_wide_flags(store, config, rules), strict=True)
    ]
    head = head_walk(prices, config.head_window_tokens)
    recent = recent_walk(post, config.recent_window_tokens)
    n = len(store.messages)
    if 0 < head < n and any(isinstance(b, ToolUse) for b in store.messages[head - 1].content):
        head -= 1
    if 0 < recent < n and any(isinstance(b, ToolResult) for b in store.messages[recent].content):
        recent -= 1
    return head, max(recent, head)


def _leaf_indices(store: Store, s: Summary) -> set[int]:
    return {store.index(m) for m in store.leaves(s.id)}


def _tokens(s: Summary, rules: Rules) -> Number:
    t = s.tokens
    if rules.verbatim_tokens:
        return t
    return t if is_number(t) and math.isfinite(t) and t >= 0 else 0


def head_total(store: Store, config: Config, head_end: int, rules: Rules) -> Number:
    """What the head costs as the compile priced it: ``E`` as sent, or faithfully ``min(E, cap + 50)``."""
    total: Number = 0
    rule = store_pricing(store, verbatim_stamps=rules.verbatim_stamps)
    flags = store_wide_flags(store, config, rules) if rules.store_wide_images else None
    for i in range(head_end):
        content = store.messages[i].content
        if rules.raw_cap_plus_50:
            shown = content if flags is None else stripped(content, flags[i], rules.images.placeholder)
            price = calibrated_tokens(shown, rule, store.calibration)
            total += min(price, config.cap + 50) if cap_is_on(config.cap) else price
        else:  # the cap's cut first, then the strip (the placeholder is never cut)
            sent = cap_content(content, config.cap)
            sent = sent if flags is None else stripped(sent, flags[i], rules.images.placeholder)
            total += calibrated_tokens(sent, rule, store.calibration)
    return total


def select(store: Store, config: Config, budget: Budget, rules: Rules = Rules()) -> Layout:
    """The windows, then candidates, the waterfall (L3, L2, L1, break at the first misfit) and completion."""
    head_end, middle_end = bounds(store, config, rules)

    def touches(s: Summary) -> bool:
        return any(i < head_end or i >= middle_end for i in _leaf_indices(store, s))

    pool = [
        s
        for s in store.summaries
        if s.parent_id is None
        and (_has_text(s) or rules.blank_candidates)
        and not ((s.level == 1 or not rules.deep_window_candidates) and touches(s))
    ]
    head = head_total(store, config, head_end, rules)
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

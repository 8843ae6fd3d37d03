"""The head and recent windows, from each message's price computed once (docs/model.md, Windows)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference.model import Message
from reference.numerics import Number
from strategies.tool_pairing import head_step_back, recent_step_back


@dataclass(frozen=True)
class Windows:
    """``[0, head_end)`` is the head, ``[head_end, middle_end)`` the middle, the rest the tail."""

    head_end: int
    middle_end: int

    def touches_window(self, indices: frozenset[int]) -> bool:
        """True when any index lies in the head or the tail."""
        return any(i < self.head_end or i >= self.middle_end for i in indices)


def head_end(prices: Sequence[Number], head_window: Number) -> int:
    """The first index where the running sum from the oldest exceeds the head window."""
    if head_window <= 0:
        return 0
    total: Number = 0
    for i, p in enumerate(prices):
        total += p
        if total > head_window:
            return i
    return len(prices)


def recent_start(prices: Sequence[Number], recent_window: Number) -> int:
    """One past the first index, from the newest, where the running sum exceeds the recent window."""
    total: Number = 0
    for i in range(len(prices) - 1, -1, -1):
        total += prices[i]
        if total > recent_window:
            return i + 1
    return 0


def windows(
    prices: Sequence[Number],
    head_window: Number,
    recent_window: Number,
    *,
    recent_prices: Sequence[Number] | None = None,
    messages: Sequence[Message] | None = None,
) -> Windows:
    """Both windows; the middle is empty when they meet.

    The head walks ``prices`` (the store's estimate), the recent window ``recent_prices`` (after image
    stripping) when given. With ``messages``, a boundary the walk found keeps a tool pair on one side
    (docs/model.md, "Tool pairing").
    """
    h = head_end(prices, head_window)
    r = recent_start(prices if recent_prices is None else recent_prices, recent_window)
    if messages is not None:
        if h < len(prices):
            h = head_step_back(messages, h)
        r = recent_step_back(messages, r)
    return Windows(h, max(r, h))

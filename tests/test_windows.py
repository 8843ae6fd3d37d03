"""The head and recent windows and which summaries touch them (docs/model.md, Windows; Selection)."""

from __future__ import annotations

import math

import pytest
from builders import VARIANT_NAMES, store, summary

from reference.model import Budget, Config, Message, Store, Text, ToolUse
from strategies import HierarchicalStrategy
from strategies.windows import Windows, head_end, recent_start, windows


@pytest.mark.parametrize(
    ("prices", "head_window", "expected"),
    [
        ([0, 0, 10], 0, 0),  # head_window <= 0: the head is empty, even over messages priced 0
        ([0, 0, 10], -5, 0),
        ([1, 5], 1, 1),  # a window of 1 holds a first message of 1 (1 does not exceed 1)
        ([0, 1, 5], 0.5, 1),  # 0 then 1 > 0.5 at index 1
        ([3, 3], 10, 2),  # never exceeded: the whole store
    ],
)
def test_head_end(prices: list[float], head_window: float, expected: int) -> None:
    """Windows: empty when ``head_window_tokens <= 0``; else the first index where the running sum from the
    oldest exceeds the window, or ``n``."""
    assert head_end(prices, head_window) == expected


@pytest.mark.parametrize(
    ("prices", "recent_window", "expected"),
    [
        ([], 0, 0),  # an empty history has no tail
        ([], 10, 0),
        ([5, 5, 5], 100, 0),  # never exceeded: everything is recent
        ([5, 5, 5], 7, 2),  # 5 then 10 > 7 at index 1: recent_start = 2
        ([5, 0, 0], 0, 1),  # no <= 0 shortcut: the zero-priced newest messages stay in the tail
    ],
)
def test_recent_start(prices: list[float], recent_window: float, expected: int) -> None:
    """Windows: one past the first index, from the newest, where the running sum exceeds the window; else 0."""
    assert recent_start(prices, recent_window) == expected


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_an_empty_store_compiles_to_nothing(variant: str) -> None:
    """A store with no messages has empty windows and sends an empty context."""
    assert windows([], 10, 10) == Windows(0, 0)
    strategy = HierarchicalStrategy(Config(recent_window_tokens=10), variant)
    strategy.initialize(Store(messages=()))
    result = strategy.compile(Budget(max_tokens=100))
    assert result.entries == () and result.stats.total.tokens == 0


@pytest.mark.parametrize(
    ("indices", "touches"),
    [
        ({2, 3, 4}, False),  # all in the middle [2, 5)
        ({5}, True),  # the first tail index
        ({4, 5}, True),
        ({1}, True),  # the last head index
        ({9}, True),
    ],
)
def test_touches_window(indices: set[int], touches: bool) -> None:
    """The head is ``[0, head_end)``, the tail ``[middle_end, n)``: an index equal to ``middle_end`` is tail."""
    assert Windows(head_end=2, middle_end=5).touches_window(frozenset(indices)) is touches


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_a_summary_of_the_first_tail_message_is_not_sent(variant: str) -> None:
    """Selection: an L1 whose leaves touch the tail is no candidate.  With m3 the whole tail, an L1 over m3
    alone is left out and m3 goes out raw, once."""
    st = store(4, [summary("L1-1", 3, 3)])
    strategy = HierarchicalStrategy(Config(recent_window_tokens=10), variant)
    strategy.initialize(st)
    entries = strategy.compile(Budget(max_tokens=math.inf)).entries
    assert [(e.kind, e.message_id) for e in entries] == [("raw", f"m{i}") for i in range(4)]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_no_head_window_means_no_head_even_over_free_messages(variant: str) -> None:
    """Windows: with ``head_window_tokens`` 0 the head is empty, so two messages priced 0 at the start are
    middle messages and their summary's recall pair is sent in their place."""
    empty = tuple(Message(f"m{i}", "user", (Text(""),)) for i in range(2))
    st = Store(messages=(*empty, *store(3).messages[2:]), summaries=(summary("L1-1", 0, 1),))
    strategy = HierarchicalStrategy(Config(), variant)
    strategy.initialize(st)
    entries = strategy.compile(Budget(max_tokens=math.inf)).entries
    assert [(e.kind, e.message_id) for e in entries] == [("question", None), ("answer", None), ("raw", "m2")]


def test_a_head_that_takes_every_message_does_not_step_back_off_a_trailing_call() -> None:
    """Windows: a head that never exceeds its window is every message and does not step, even when the newest
    message holds a ``tool_use`` (there is no message after it for the call to leave with)."""
    msgs = (Message("m0", "user", (Text("a"),)), Message("m1", "assistant", (ToolUse("u1", "read", {}),)))
    assert windows([5, 5], 100, 100, messages=msgs) == Windows(2, 2)
    assert windows([5, 5], 7, 100, messages=msgs) == Windows(1, 1)  # a head ending at m1 stays off the call

"""The reference selection (docs/model.md, Windows; Selection; The reference selection) on ``reference/selection.py``.

Every store here prices a message by its length (``text_estimator=len``), so each ``"x" * 10`` message
costs 10; each expected layout is worked out by hand from the rules: the windows' strict running sums,
candidates (unmerged, not blank, no leaf in a window), the waterfall (L3, L2, L1 in creation order,
budget plus carry, break at the first misfit or when ``head + selected + tokens > B``) and coverage
completion in message order. Summaries are made in reverse message order where it matters, so that
what the waterfall took (creation order) and what completion added (message order) read apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from builders import summary

from reference.model import Budget, Config, Image, Message, Store, Summary, Text, ToolResult, ToolUse
from reference.selection import Rules, bounds, head_total, message_prices, select, windows


def priced_store(n: int, summaries: Sequence[Summary] = ()) -> Store:
    """``n`` messages ``m0..`` of 10 units each, priced 10 (one token a unit)."""
    messages = tuple(Message(f"m{i}", "user", (Text("x" * 10),)) for i in range(n))
    return Store(messages, tuple(summaries), text_estimator=len)


def ids(layout_selected: Sequence[Summary]) -> list[str]:
    return [s.id for s in layout_selected]


# ----------------------------------------------------------------------------- windows


@pytest.mark.parametrize(
    ("prices", "head_window", "recent_window", "expected"),
    [
        ([], 0, 0, (0, 0)),  # an empty history: no head, no middle, no tail
        ([], 10, 10, (0, 0)),
        ([0, 0, 10], 0, 100, (0, 0)),  # a window of 0 means no head, even over free messages
        ([0, 0, 10], -1, 100, (0, 0)),
        ([1, 1, 10], 1, 100, (1, 1)),  # the sum first exceeds 1 at index 1
        ([5, 5, 5], 100, 0, (3, 3)),  # a head that never exceeds its window takes every message
        ([10, 10], 0, 100, (0, 0)),  # a recent sum that never exceeds the window: the tail is everything
        ([10, 10], 0, 10, (0, 1)),  # 10 > 10 does not hold; 20 > 10 at index 0: the window starts at 1
        ([10, 10], 0, 9, (0, 2)),  # 10 > 9 at index 1: the window starts at 2, the tail is empty
        ([10, 10], 0, 15, (0, 1)),
        ([10, 10, 10], 0, 15, (0, 2)),  # 10, then 20 > 15 at index 1
        ([10, 10, 10], 25, 15, (2, 2)),  # the middle is never shorter than the head
    ],
)
def test_windows_are_strict_running_sums(
    prices: list[int], head_window: int, recent_window: int, expected: tuple[int, int]
) -> None:
    """(head_end, middle_end): each window closes at the first index where its running sum exceeds it."""
    config = Config(head_window_tokens=head_window, recent_window_tokens=recent_window)
    assert windows(prices, config) == expected


def test_a_head_of_every_message_keeps_a_trailing_call() -> None:
    """A head that never exceeds its window takes every message and does not step back, even off a call."""
    st = Store(
        (Message("m0", "user", (Text("x" * 5),)), Message("m1", "assistant", (ToolUse("u1", "read", {}),))),
        text_estimator=len,
    )
    assert bounds(st, Config(head_window_tokens=1000, recent_window_tokens=1000), Rules()) == (2, 2)


def test_a_recent_window_opening_on_the_second_message_steps_back_to_the_first() -> None:
    """m1 (priced 2) fits a recent window of 5 and m0 (71) does not, so the window opens on m1, a result
    whose call is m0: it steps back to 0, the whole store (the step-back holds at index 1 too)."""
    st = Store(
        (
            Message("m0", "assistant", (Text("x" * 50), ToolUse("u1", "read", {}))),
            Message("m1", "user", (ToolResult("u1", "y" * 3),)),
        ),
        text_estimator=len,
    )
    assert message_prices(st, Rules()) == [71, 2]
    assert bounds(st, Config(recent_window_tokens=5), Rules()) == (0, 0)


def test_a_head_of_one_message_ending_on_a_call_steps_back_to_nothing() -> None:
    """m0 (priced 31) fits a head window of 40 and m1 does not, so the head is m0 alone, a call whose result is
    m1: it steps back to 0, an empty head, and the whole store is the middle (the step-back holds at a head of one
    message too)."""
    st = Store(
        (
            Message("m0", "assistant", (Text("x" * 10), ToolUse("u1", "read", {}))),
            Message("m1", "user", (ToolResult("u1", "y" * 50),)),
        ),
        text_estimator=len,
    )
    assert message_prices(st, Rules())[0] == 31
    assert bounds(st, Config(head_window_tokens=40), Rules()) == (0, 2)


def test_the_recent_window_walks_the_post_strip_prices_under_the_stamp_rule() -> None:
    """Verbatim stamps: m1's image stamp -5 is read as given, so the walk from the newest first exceeds 4 at m0
    (-5 + 10); by the reference rule the image costs 1600 and exceeds it alone, at m1."""
    st = Store(
        (Message("m0", "user", (Text("x" * 10),)), Message("m1", "user", (Image(token_estimate=-5),))),
        text_estimator=len,
    )
    config = Config(recent_window_tokens=4)
    assert bounds(st, config, Rules(verbatim_stamps=True)) == (0, 1)
    assert bounds(st, config, Rules()) == (0, 2)


# ----------------------------------------------------------------------------- the message prices and the head


def test_message_prices_follow_the_stamp_rule() -> None:
    """Each message is priced by ``E`` of its content; verbatim stamps read a negative stamp as given."""
    st = Store(
        (Message("m0", "user", (Image(token_estimate=-5),)), Message("m1", "user", (Text("x" * 7),))),
        text_estimator=len,
    )
    assert message_prices(st, Rules()) == [1600, 7]
    assert message_prices(st, Rules(verbatim_stamps=True)) == [-5, 7]


def cut_price(units: int, original_tokens: int) -> int:
    """What a Text cut to ``units`` ASCII units costs at one token a unit: the kept units and the marker."""
    return units + len(f"\n\n[truncated — original was {original_tokens} tokens]")


def test_the_head_costs_what_it_sends_after_the_cap() -> None:
    """The head's total is ``E`` of each head message as the cap sends it, summed over ``[0, head_end)``."""
    st = Store(
        tuple(Message(f"m{i}", "user", (Text(c * k),)) for i, (c, k) in enumerate([("a", 100), ("b", 8), ("c", 100)])),
        text_estimator=len,
    )
    assert message_prices(st, Rules()) == [100, 8, 100]
    capped = Config(max_message_tokens=10)  # cap*4 = 40 units kept of 100 (25 tokens by chars/4)
    assert head_total(st, capped, 2, Rules()) == cut_price(40, 25) + 8
    assert head_total(st, capped, 0, Rules()) == 0
    assert head_total(st, Config(max_message_tokens=0), 2, Rules()) == 108


def test_the_head_under_raw_cap_plus_50_is_each_price_at_most_cap_plus_50() -> None:
    """RAW_CAP_PLUS_50: the head as the waterfall reads it is ``min(E, cap + 50)`` per message; cap off, ``E``."""
    st = Store(
        tuple(Message(f"m{i}", "user", (Text(c * k),)) for i, (c, k) in enumerate([("a", 100), ("b", 8), ("c", 100)])),
        text_estimator=len,
    )
    rules = Rules(raw_cap_plus_50=True)
    assert head_total(st, Config(max_message_tokens=10), 2, rules) == 60 + 8
    assert head_total(st, Config(max_message_tokens=10), 3, rules) == 60 + 8 + 60
    assert head_total(st, Config(max_message_tokens=0), 2, rules) == 108


def test_the_head_is_priced_under_the_variants_stamp_rule() -> None:
    """A head message with a negative image stamp: the default image price, or the stamp when verbatim."""
    st = Store((Message("m0", "user", (Image(token_estimate=-5),)),), text_estimator=len)
    assert head_total(st, Config(), 1, Rules()) == 1600
    assert head_total(st, Config(), 1, Rules(verbatim_stamps=True)) == -5


def test_the_head_is_priced_with_images_stripped_store_wide_only_under_the_switch() -> None:
    """IMAGE_COUNT_STORE_WIDE: with one live image, counted over the store from the newest, m0's image is deep and
    the head prices it as the placeholder (15 units); the reference head prices the image as sent, 100. The same
    with RAW_CAP_PLUS_50 (cap off: the price itself)."""
    st = Store(tuple(Message(f"m{i}", "user", (Image(token_estimate=100),)) for i in range(2)), text_estimator=len)
    config = Config(max_live_images=1)
    assert head_total(st, config, 1, Rules()) == 100
    assert head_total(st, config, 1, Rules(store_wide_images=True)) == len("[image omitted]")
    assert head_total(st, config, 1, Rules(raw_cap_plus_50=True)) == 100
    assert head_total(st, config, 1, Rules(raw_cap_plus_50=True, store_wide_images=True)) == 15
    assert head_total(st, config, 2, Rules(store_wide_images=True)) == 15 + 100


# ----------------------------------------------------------------------------- candidates


def window_store() -> Store:
    """m0 head, m1..m4 middle, m5 tail (windows of 10). T1 over m0 (head); T2 an L2 over m4..m5 (tail),
    from c1 (m4) and c2 (m5); K (m3), I (m1), J (m2) inside the middle, made in that order."""
    return priced_store(
        6,
        [
            summary("T1", 0, 0),
            summary("c1", 4, 4, parent="T2"),
            summary("c2", 5, 5, parent="T2"),
            summary("T2", 4, 5, level=2, sources=["c1", "c2"]),
            summary("K", 3, 3),
            summary("I", 1, 1),
            summary("J", 2, 2),
        ],
    )


WINDOWS = Config(head_window_tokens=10, recent_window_tokens=10)


def test_summaries_touching_a_window_are_no_candidates() -> None:
    """Only unmerged summaries with no leaf in the head or the tail enter the waterfall (in creation order);
    completion then adds T2 for m4; T1 lies wholly in the head and is never sent."""
    st = window_store()
    layout = select(st, WINDOWS, Budget(10_000))
    assert (layout.head_end, layout.middle_end) == (1, 5)
    assert ids(layout.selected) == ["K", "I", "J", "T2"]
    assert layout.middle_raw == ()


def test_deep_window_candidates_excludes_only_l1s() -> None:
    """DEEP_WINDOW_CANDIDATES: an L2 touching a window stays a candidate (taken at L2 first); an L1 does not."""
    layout = select(window_store(), WINDOWS, Budget(10_000), Rules(deep_window_candidates=True))
    assert ids(layout.selected) == ["T2", "K", "I", "J"]


def test_merged_summaries_are_no_candidates() -> None:
    """A summary with a parent is never a candidate: an L2 over all the middle is selected alone."""
    st = priced_store(
        4,
        [
            summary("a", 0, 1, parent="P"),
            summary("b", 2, 3, parent="P"),
            summary("P", 0, 3, level=2, sources=["a", "b"]),
        ],
    )
    layout = select(st, Config(), Budget(10_000))
    assert (layout.head_end, layout.middle_end) == (0, 4)
    assert ids(layout.selected) == ["P"]


@pytest.mark.parametrize("blank", ["", "  \n\t"])
def test_a_blank_summary_is_no_candidate_and_no_claimer(blank: str) -> None:
    """A summary whose content is blank after trim is neither selected nor a claimer: its messages stay raw."""
    b = summary("B", 0, 1)
    st = priced_store(4, [Summary(b.id, 1, blank, 10, 0, b.source_ids, b.source_range), summary("S", 2, 3)])
    layout = select(st, Config(), Budget(10_000))
    assert ids(layout.selected) == ["S"]
    assert layout.middle_raw == (0, 1)
    selected = select(st, Config(), Budget(10_000), Rules(blank_candidates=True)).selected
    assert ids(selected) == ["B", "S"]  # BLANK_SUMMARIES_SELECTED


# ----------------------------------------------------------------------------- the waterfall


def reversed_store(tokens: Sequence[float] = (10, 10, 10, 10)) -> Store:
    """Eight middle messages; L1s d (m6..m7), c, b, a (m0..m1) made in that order, with the given tokens."""
    return priced_store(
        8, [summary(sid, 2 * k, 2 * k + 1, tokens=t) for sid, k, t in zip("dcba", (3, 2, 1, 0), tokens, strict=True)]
    )


#: The selection after the waterfall took its first k of d, c, b, a and completion added the rest.
TOOK = {0: "abcd", 1: "dabc", 2: "dcab", 3: "dcba", 4: "dcba"}


@pytest.mark.parametrize(
    ("l3", "l2", "l1", "enforce", "max_tokens", "took"),
    [
        (0, 0, 20, False, 1000, 2),  # 10 + 10 fills 20 exactly; the third would exceed it
        (0, 0, 19, False, 1000, 1),
        (0, 0, 9, False, 1000, 0),  # the first misfit ends the level: nothing taken
        (5, 5, 10, False, 1000, 2),  # the L3s leave 5, the L2s 10: L1 gets 10 + 10
        (10, 0, 0, False, 1000, 1),  # what L3 leaves passes through L2 to L1
        (1000, 1000, 1000, True, 20, 2),  # head 0 + selected 10 + 10 = 20 is not over B = 20
        (1000, 1000, 1000, True, 19, 1),
        (1000, 1000, 1000, False, 20, 4),  # enforce_budget off: the input budget does not stop a level
    ],
)
def test_the_waterfall_takes_in_creation_order_up_to_the_first_misfit(
    l3: int, l2: int, l1: int, enforce: bool, max_tokens: int, took: int
) -> None:
    """A level takes candidates until ``level total + tokens > budget + carry`` or ``selected`` goes over B;
    completion adds the rest in message order."""
    config = Config(l3_budget_tokens=l3, l2_budget_tokens=l2, l1_budget_tokens=l1, enforce_budget=enforce)
    layout = select(reversed_store(), config, Budget(max_tokens))
    assert (layout.head_end, layout.middle_end) == (0, 8)
    assert "".join(ids(layout.selected)) == TOOK[took]
    assert layout.middle_raw == ()


def test_the_head_counts_against_the_input_budget() -> None:
    """With the head's 10 the waterfall stops one summary earlier at the same budget."""
    st = priced_store(9, [summary(sid, 2 * k + 1, 2 * k + 2) for sid, k in zip("dcba", (3, 2, 1, 0), strict=True)])
    config = Config(head_window_tokens=10)  # m0 alone is the head (10 is not over 10, 20 is)
    layout = select(st, config, Budget(30))
    assert (layout.head_end, layout.middle_end) == (1, 9)
    assert "".join(ids(layout.selected)) == "dcab"


def test_budget_minus_reserve_is_the_input_budget() -> None:
    """B is ``max_tokens - reserve_for_response``."""
    layout = select(reversed_store(), Config(), Budget(40, reserve_for_response=20))
    assert "".join(ids(layout.selected)) == "dcab"


def levels_store() -> Store:
    """Ten middle messages: an L2 P over m0..m3 (from p1, p2), then L1s w (m8..m9), y (m6..m7), x (m4..m5)."""
    return priced_store(
        10,
        [
            summary("p1", 0, 1, parent="P"),
            summary("p2", 2, 3, parent="P"),
            summary("P", 0, 3, level=2, sources=["p1", "p2"]),
            summary("w", 8, 9),
            summary("y", 6, 7),
            summary("x", 4, 5),
        ],
    )


def test_a_level_carries_down_only_what_it_left() -> None:
    """L2 budget 15 takes P (10) and leaves 5; L1 gets 5 + 5 = 10: w only, then x, y by completion."""
    config = Config(l3_budget_tokens=0, l2_budget_tokens=15, l1_budget_tokens=5)
    assert ids(select(levels_store(), config, Budget(1000)).selected) == ["P", "w", "x", "y"]


def test_levels_run_l3_then_l2_then_l1_skipping_other_levels() -> None:
    """Within a level, summaries of other levels are skipped, not an end: P is taken at L2 though w, y, x follow."""
    assert ids(select(levels_store(), Config(), Budget(1000)).selected) == ["P", "w", "y", "x"]


def test_the_input_budget_counts_what_every_level_took() -> None:
    """``head + selected + tokens > B`` counts the summaries earlier levels took: with P (10) taken at L2, B = 20
    leaves room for w alone at L1 (10 + 10 + 10 > 20 at y); x and y then come by completion, in message order."""
    assert ids(select(levels_store(), Config(), Budget(20)).selected) == ["P", "w", "x", "y"]


@pytest.mark.parametrize(
    ("first", "l1", "took"),
    [
        (math.nan, 10, 2),  # read as 0: d 0, c 10, then b over
        (math.inf, 15, 2),  # read as 0
        (-5, 15, 2),  # read as 0, not -5 (which would leave room for b)
        (10, 15, 1),
        (0.5, 10.2, 1),  # a fraction is kept: 0.5 + 10 > 10.2
    ],
)
def test_sound_reads_tokens_that_are_not_a_finite_number_at_least_0_as_0(first: float, l1: float, took: int) -> None:
    """The waterfall prices a summary by ``tokens``, read as 0 unless a finite number >= 0."""
    config = Config(l3_budget_tokens=0, l2_budget_tokens=0, l1_budget_tokens=l1, enforce_budget=False)
    layout = select(reversed_store((first, 10, 10, 10)), config, Budget(1000))
    assert "".join(ids(layout.selected)) == TOOK[took]


def test_verbatim_tokens_keep_a_nan_that_then_stops_nothing() -> None:
    """UNCHECKED_BAD_VALUES: a NaN level total compares false, so the level takes every summary."""
    config = Config(l3_budget_tokens=0, l2_budget_tokens=0, l1_budget_tokens=10, enforce_budget=False)
    layout = select(reversed_store((math.nan, 10, 10, 10)), config, Budget(1000), Rules(verbatim_tokens=True))
    assert "".join(ids(layout.selected)) == TOOK[4]


# ----------------------------------------------------------------------------- coverage completion


def test_completion_adds_each_claimer_once_and_leaves_unclaimed_messages_raw() -> None:
    """For each uncovered middle message in order its claimer joins once; a message no one claims is raw."""
    st = priced_store(7, [summary("d", 5, 6), summary("a", 0, 2)])
    config = Config(l1_budget_tokens=10, l2_budget_tokens=0, l3_budget_tokens=0)
    layout = select(st, config, Budget(1000))
    assert ids(layout.selected) == ["d", "a"]
    assert layout.middle_raw == (3, 4)
    tight = select(st, Config(l1_budget_tokens=0, l2_budget_tokens=0, l3_budget_tokens=0), Budget(1000))
    assert ids(tight.selected) == ["a", "d"]
    assert tight.middle_raw == (3, 4)

"""The generators' shapers (``invariants/generators/shapers.py``): each moves a config onto the edge it names, the
head or recent window on a run of whole messages and the level budgets on their candidates' edges, and leaves the
rest of the config, and a store without such an edge, as drawn."""

from __future__ import annotations

import math
from dataclasses import fields, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import stores
from invariants.generators.shapers import SHAPERS, _finite, _tokens, on_level_edges, on_window_edge, shaped
from reference.model import Config, Store
from reference.selection import Rules, message_prices
from tests.builders import msg, summary

#: Four messages of different prices, so that every run of them has its own price.
FOUR = Store(messages=tuple(msg(i, tokens) for i, tokens in enumerate((10, 20, 30, 40))))
#: Twelve messages: the L1 candidates below cover the first six, merged summaries the rest.
TWELVE = tuple(msg(i, 10 * (i + 1)) for i in range(12))


def _levels(config: Config) -> tuple:
    return (config.l3_budget_tokens, config.l2_budget_tokens, config.l1_budget_tokens)


def test_the_head_window_is_the_price_of_the_first_messages_one_more_for_each_spot_around_the_store():
    prices = message_prices(FOUR, Rules())
    assert len(set(prices)) == 4
    heads = [on_window_edge(FOUR, Config(), "head", spot).head_window_tokens for spot in range(5)]
    assert heads == [prices[0], sum(prices[:2]), sum(prices[:3]), prices[0], sum(prices[:2])]


def test_the_recent_window_is_the_price_of_the_last_messages_one_more_for_each_spot_around_the_store():
    prices = message_prices(FOUR, Rules())
    recents = [on_window_edge(FOUR, Config(), "recent", spot).recent_window_tokens for spot in range(4)]
    assert recents == [prices[3], sum(prices[2:]), sum(prices[1:]), prices[3]]


def test_a_window_shaper_moves_only_its_own_window():
    config = Config(head_window_tokens=7, recent_window_tokens=9)
    head = on_window_edge(FOUR, config, "head", 1)
    assert head == replace(config, head_window_tokens=head.head_window_tokens) and head.recent_window_tokens == 9
    recent = on_window_edge(FOUR, config, "recent", 1)
    assert (
        recent == replace(config, recent_window_tokens=recent.recent_window_tokens) and recent.head_window_tokens == 7
    )


def test_a_window_shaper_leaves_a_store_without_an_edge_as_drawn():
    config = Config(head_window_tokens=7, recent_window_tokens=9)
    one = Store(messages=(msg(0),))
    assert on_window_edge(one, config, "head", 3) == config
    assert on_window_edge(Store(messages=()), config, "recent", 0) == config
    unpriced = Store(messages=FOUR.messages, text_estimator=lambda s: math.inf)
    assert on_window_edge(unpriced, config, "head", 0) == config
    two = Store(messages=FOUR.messages[:2])
    assert on_window_edge(two, config, "head", 5).head_window_tokens == message_prices(two, Rules())[0]


def test_a_summarys_tokens_read_as_the_waterfall_reads_them():
    base = summary("s", 0, 1)
    for bad in (None, math.nan, math.inf, -math.inf, -1, "12"):
        assert _tokens(replace(base, tokens=bad)) == 0, bad
    for good in (0, 7, 0.5):
        assert _tokens(replace(base, tokens=good)) == good


def test_only_finite_numbers_are_finite():
    assert _finite([]) and _finite([0, 1.5, -3])
    for bad in ([1, math.nan], [math.inf], [2, -math.inf], [None], ["1"]):
        assert not _finite(bad), bad


def _l1(*tokens: float, start: int = 0) -> list:
    return [summary(f"a{k}", 2 * k, 2 * k + 1, tokens=t) for k, t in enumerate(tokens, start)]


def test_levels_without_candidates_get_a_small_rest_and_the_l1s_allowance_lands_on_an_edge():
    """With L1 candidates of 30, 50, 20 tokens and no L2 or L3: each empty level gets 1 + spot tokens, carried down;
    on an even spot the L1 allowance fits 30, misses 50 and fits the later 20 (the waterfall must skip the misfit),
    on an odd spot it fits exactly the first candidates, one more for every second spot."""
    st = Store(messages=tuple(msg(i) for i in range(6)), summaries=tuple(_l1(30, 50, 20)))
    got = {spot: _levels(on_level_edges(st, Config(), spot)) for spot in range(8)}
    assert got == {
        0: (1, 1, 50 - 2),
        1: (2, 2, 50 - 4),
        2: (3, 3, 50 - 6),
        3: (4, 4, 80 - 8),
        4: (5, 5, 50 - 10),
        5: (6, 6, 100 - 12),
        6: (7, 7, 50 - 14),
        7: (8, 8, 50 - 16),
    }


def _tree() -> Store:
    """L3 [40], L2 [25, 10], L1 [30, 50, 20] unmerged, over merged L1s of 5 tokens each (no candidates)."""
    merged = [summary(f"x{k}", 6 + 2 * k, 7 + 2 * k, tokens=5, parent=f"b{k}") for k in range(3)]
    l2 = [
        summary("b0", 6, 7, tokens=15, level=2, sources=("x0",), parent="c"),
        summary("b1", 8, 9, tokens=25, level=2, sources=("x1",)),
        summary("b2", 10, 11, tokens=10, level=2, sources=("x2",)),
    ]
    l3 = summary("c", 6, 7, tokens=40, level=3, sources=("b0",))
    return Store(messages=TWELVE, summaries=(*_l1(30, 50, 20), *merged, *l2, l3))


def test_each_levels_budget_adds_to_what_the_levels_above_left_to_reach_its_edge():
    """Spot 0: the L3 fits its 40 exactly (nothing left over); the L2's allowance of 10 misses its first 25 and
    fits the 10 after it, leaving 10 over; the L1's allowance of 50 fits 30, misses 50 and fits 20, and 10 of it
    comes from above. Merged summaries are no candidates."""
    assert _levels(on_level_edges(_tree(), Config(), 0)) == (40, 10, 40)


def test_what_a_level_leaves_over_carries_down_with_what_came_from_above():
    """No L3 (1 token, carried), L2 [25, 10], L1 [30, 50, 20], spot 0: the L2 gets 9, so that with the 1 from above
    its allowance of 10 misses 25 and fits 10; the 10 left over (its 9 and the 1) carries to the L1, whose
    allowance of 50 then needs a budget of 40."""
    merged = [summary(f"x{k}", 6 + 2 * k, 7 + 2 * k, tokens=5, parent=f"b{k}") for k in (1, 2)]
    l2 = [
        summary("b1", 8, 9, tokens=25, level=2, sources=("x1",)),
        summary("b2", 10, 11, tokens=10, level=2, sources=("x2",)),
    ]
    st = Store(messages=TWELVE, summaries=(*_l1(30, 50, 20), *merged, *l2))
    assert _levels(on_level_edges(st, Config(), 0)) == (1, 9, 40)


@pytest.mark.parametrize(
    ("tokens", "spot", "l1"),
    [
        # a later candidate of equal tokens is no misfit: two of 30 fit exactly
        ((30, 30), 0, 30 - 2),
        # an exact fit of the first candidate does not add an equal one after it
        ((30, 30, 30), 1, 30 - 4),
        # the misfit's smaller later candidate is one after it, not an earlier one
        ((10, 50, 20), 0, 30 - 2),
        # the misfits are 50 alone (30 and 40 have no smaller candidate after them)
        ((20, 50, 30, 40), 2, 20 + 30 - 6),
    ],
)
def test_a_misfit_is_a_candidate_with_a_smaller_one_after_it(tokens, spot, l1):
    st = Store(messages=TWELVE, summaries=tuple(_l1(*tokens)))
    assert _levels(on_level_edges(st, Config(), spot))[2] == l1


def test_blank_summaries_are_no_candidates():
    plain = Store(messages=TWELVE, summaries=tuple(_l1(30, 50, 20)))
    blank = replace(summary("z", 6, 7, tokens=5), content="  ")
    more = Store(messages=TWELVE, summaries=(blank, *plain.summaries))
    for spot in range(4):
        assert _levels(on_level_edges(more, Config(), spot)) == _levels(on_level_edges(plain, Config(), spot))


def test_a_level_budget_is_never_negative():
    """Where the levels above already leave more than the edge, the level gets 0, not a negative budget."""
    st = Store(messages=tuple(msg(i) for i in range(6)), summaries=tuple(_l1(1, 3, 2)))
    assert _levels(on_level_edges(st, Config(), 6)) == (7, 7, 0)


def test_level_edges_move_only_the_level_budgets():
    config = Config(head_window_tokens=7, recent_window_tokens=9)
    st = Store(messages=tuple(msg(i) for i in range(6)), summaries=tuple(_l1(30, 50, 20)))
    moved = on_level_edges(st, config, 1)
    levels = ("l1_budget_tokens", "l2_budget_tokens", "l3_budget_tokens")
    kept = [f.name for f in fields(Config) if f.name not in levels]
    assert [getattr(moved, k) for k in kept] == [getattr(config, k) for k in kept]
    assert _levels(moved) != _levels(config)


@pytest.mark.parametrize("shaper", sorted(set(SHAPERS)))
def test_shaped_applies_the_shaper_it_names(shaper):
    st = Store(messages=TWELVE, summaries=tuple(_l1(30, 50, 20)))
    config = Config(head_window_tokens=7, recent_window_tokens=9)
    expected = {
        "as drawn": config,
        "head": on_window_edge(st, config, "head", 2),
        "recent": on_window_edge(st, config, "recent", 2),
        "levels": on_level_edges(st, config, 2),
    }[shaper]
    assert shaped(st, config, shaper, 2) == expected
    assert (expected == config) is (shaper == "as drawn")


@given(stores(max_messages=12), st.sampled_from(["head", "recent"]))
def test_a_window_shaper_puts_the_window_on_each_run_of_one_to_all_but_one_messages(store, which):
    """On any store of two or more priced messages, each spot puts the window on the price of the first (last)
    ``k`` messages for some ``k`` from 1 to n - 1 (never an empty run, never the whole store), and the spots
    around the store reach every such run."""
    prices = message_prices(store, Rules())
    n = len(prices)
    field = "head_window_tokens" if which == "head" else "recent_window_tokens"
    windows = [getattr(on_window_edge(store, Config(), which, spot), field) for spot in range(max(n - 1, 1))]
    if n < 2 or not _finite(prices):
        assert set(windows) == {getattr(Config(), field)}  # no edge: the config as drawn
        return
    runs = {sum(prices[:k]) if which == "head" else sum(prices[n - k :]) for k in range(1, n)}
    assert set(windows) == runs

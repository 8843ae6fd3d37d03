"""Rules of the contract no invariant can see, each pinned by an example (docs/model.md, "Rules pinned by examples").

The estimator is shared by the reference and the compile, so a change to it moves both sides; the
windows' boundaries, the waterfall's stop and carry, and the stats' message count are read by no
invariant's comparison. Each value here is worked out by hand from the rule.
"""

from __future__ import annotations

import math

from reference.estimator import DENSE_RATE, FALLBACK_PRICING, PROSE_RATE, raw_price, text_rate
from reference.model import Budget, Config, RedactedThinking, Thinking
from strategies.defects import Defects
from strategies.hierarchical import HierarchicalStrategy
from strategies.pricing import grace_limit
from strategies.selection import waterfall
from strategies.windows import head_end, recent_start
from tests.builders import store, summary


def test_the_dense_rate_needs_more_than_twelve_percent():
    assert text_rate("x" * 22 + "{" * 3) == PROSE_RATE  # exactly 12%: prose
    assert text_rate("x" * 21 + "{" * 4) == DENSE_RATE  # 16%: dense


def test_redacted_reasoning_rounds_len_over_six():
    assert raw_price(RedactedThinking("Q" * 7), FALLBACK_PRICING) == 1  # round(1.17), not ceil
    assert raw_price(RedactedThinking("Q" * 9), FALLBACK_PRICING) == 2  # round(1.5) half up


def test_a_signature_rounds_len_over_three_point_three():
    assert raw_price(Thinking("", "S" * 4), FALLBACK_PRICING) == 1  # max(0, round(1.21))


def test_the_head_closes_only_when_the_sum_exceeds_the_window():
    assert head_end([10, 10, 10], 20) == 2  # 20 does not exceed 20: m1 stays in the head
    assert head_end([10, 10, 10], 19) == 1


def test_the_recent_window_closes_only_when_the_sum_exceeds_it():
    assert recent_start([10, 10, 10], 20) == 1  # the two newest are the tail
    assert recent_start([10, 10, 10], 19) == 2


def test_the_grace_limit_is_floored():
    assert grace_limit(99, Config()) == 100  # floor(100.98)
    assert grace_limit(10, Config(over_budget_grace_ratio=0.05)) == 10  # floor(10.5)


def _pool():
    return [
        summary("L2-0", 0, 1, level=2, tokens=30),
        summary("L1-0", 2, 2, tokens=50),
        summary("L1-1", 3, 3, tokens=5),
    ]


def test_the_waterfall_stops_at_the_first_misfit():
    config = Config(l1_budget_tokens=20, l2_budget_tokens=40, l3_budget_tokens=0)
    chosen = waterfall(_pool(), config, 0, math.inf, lambda x, b: x > b, Defects())
    # L2: 30 <= 40 (carry 10 left); L1: 50 > 20 + 10 stops the level, L1-1 is not tried.
    assert [s.id for s in chosen] == ["L2-0"]


def test_the_carry_is_what_a_level_left_of_its_budget_and_carry():
    config = Config(l1_budget_tokens=0, l2_budget_tokens=10, l3_budget_tokens=50)
    pool = [summary("L1-0", 2, 2, tokens=55)]
    # L3 leaves 50, L2 gets 10 + 50 and leaves 60, L1 gets 0 + 60 >= 55.
    assert [s.id for s in waterfall(pool, config, 0, math.inf, lambda x, b: x > b, Defects())] == ["L1-0"]


def test_total_messages_count_raw_messages_and_two_per_pair():
    st = store(4, [summary("L1-0", 1, 2)])
    strategy = HierarchicalStrategy(Config(), "sound")
    strategy.initialize(st)
    stats = strategy.compile(Budget(max_tokens=10**6)).stats
    assert stats.total.messages == 2 + 2  # m0, m3 raw; one pair

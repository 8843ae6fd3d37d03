"""The judges' numerics follow docs/model.md's JavaScript rules (Numerics; Config and budget): ``Math.max``/``Math.min``
with NaN, -0 and no argument; the input budget and the grace limit as doubles past 2**53; a NaN or negative grace
ratio where a judge or a witness check derives a budget from it. Each value here is one Python's builtins get wrong."""

from __future__ import annotations

import math

import pytest

from invariants.edges.compile_checks import exact_budget
from invariants.generators.budget_placement import input_budget_for
from invariants.properties import grace_limit
from reference.model import Budget, Config
from reference.numerics import js_max, js_min
from strategies.pricing import grace_limit as compile_grace_limit


def _sign(x: float) -> float:
    return math.copysign(1, x)


# ----------------------------------------------------------------------------- Math.max / Math.min


@pytest.mark.parametrize("args", [(0, math.nan), (math.nan, 0), (-1.0, math.nan, math.inf), (math.inf, math.nan)])
def test_max_and_min_are_nan_wherever_the_nan_stands(args):
    """Python's ``max(0, nan)`` is 0 and ``min(inf, nan)`` is inf: whichever comes first wins a false comparison."""
    assert math.isnan(js_max(*args)) and math.isnan(js_min(*args))


def test_max_ranks_plus_zero_above_minus_zero_and_min_the_reverse():
    """``Math.max(-0, 0)`` is +0 and ``Math.min(0, -0)`` is -0, in either order; Python keeps the first of equals."""
    assert _sign(js_max(-0.0, 0)) == 1 and _sign(js_max(0, -0.0)) == 1 and _sign(js_max(-0.0, 0.0)) == 1
    assert _sign(js_min(0, -0.0)) == -1 and _sign(js_min(-0.0, 0)) == -1 and _sign(js_min(0.0, -0.0)) == -1
    assert _sign(js_max(-0.0, -0.0)) == -1 and _sign(js_min(0, 0.0)) == 1


def test_max_and_min_of_nothing_are_the_infinities():
    assert js_max() == -math.inf and js_min() == math.inf


def test_max_of_integers_beyond_any_double_does_not_overflow():
    """An exact integer past ``Number.MAX_VALUE`` cannot be NaN, nor has it a sign bit to read: asking ``math.isnan``
    or ``math.copysign`` of it raises, beside a zero too."""
    assert js_max(10**400, 1) == 10**400 and js_min(-(10**400), 1) == -(10**400)
    assert _sign(js_max(-(10**400), -0.0, 0)) == 1 and _sign(js_min(10**400, 0, -0.0)) == -1


# ----------------------------------------------------------------------------- the input budget and grace limit

#: ``max_tokens - reserve`` and the grace limit past 2**53, as a double holds them (an exact integer differs).
HUGE = [
    # (max_tokens, reserve, grace ratio, input budget, grace limit)
    (2**53, -1, 0, 2**53, 2**53),  # 2**53 + 1 rounds to even
    (2**53, -3, 0, 2**53 + 4, 2**53 + 4),
    (2**53 - 1, 0, 2, 2**53 - 1, 3 * 2**53 - 4),  # 3 * (2**53 - 1) rounds to a multiple of 4
    (2**53, -1, 2, 2**53, 3 * 2**53),  # the difference rounds first, then the product
    (10, 0, 2**53, 10, 10 * 2**53),  # 1 + 2**53 rounds to 2**53
]


@pytest.mark.parametrize(("max_tokens", "reserve", "g", "budget", "limit"), HUGE)
def test_the_input_budget_and_grace_limit_are_doubles_past_two_to_the_53(max_tokens, reserve, g, budget, limit):
    b = Budget(max_tokens=max_tokens, reserve_for_response=reserve)
    config = Config(over_budget_grace_ratio=g)
    assert b.input_budget == budget
    assert grace_limit(b, config) == limit
    assert compile_grace_limit(b.input_budget, config) == limit


def test_a_nan_grace_ratio_gives_a_nan_limit_and_a_negative_one_none():
    """``Math.max(0, NaN)`` is NaN, so the limit is NaN (it refuses nothing); ``max(0, nan)`` would make it 100."""
    assert math.isnan(grace_limit(Budget(max_tokens=100), Config(over_budget_grace_ratio=math.nan)))
    assert math.isnan(compile_grace_limit(100, Config(over_budget_grace_ratio=math.nan)))
    assert grace_limit(Budget(max_tokens=100), Config(over_budget_grace_ratio=-0.5)) == 100


# ----------------------------------------------------------------------------- budgets derived from a price


def test_no_input_budget_exists_for_a_nan_grace_ratio():
    """A NaN ratio leaves no smallest budget; with Python's ``max(0, nan)`` it would read as no grace (10)."""
    assert input_budget_for(10, math.nan) is None
    assert input_budget_for(10, 0) == 10 and input_budget_for(10.5, 0) == 11
    assert input_budget_for(102, 0.02) == 100 and input_budget_for(103, 0.02) == 101


@pytest.mark.parametrize(("g", "budget"), [(math.nan, 0), (-1, 10), (-0.5, 10), (0, 10), (1, 5)])
def test_the_witness_checks_exact_budget_reads_the_ratio_as_math_max_does(g, budget):
    """The Z3 witnesses' exact budget: a NaN limit admits any price (0 is the smallest budget), a negative ratio
    is no grace; ``math.floor(price / (1 + g))`` raises on both."""
    assert exact_budget(10, Config(over_budget_grace_ratio=g)) == budget

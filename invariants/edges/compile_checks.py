"""Witnesses confirmed on the compile: the outcome of a compile at a budget, and the exact budget of a price."""

from __future__ import annotations

import math

from reference.model import Budget, Config, Store
from reference.numerics import js_max
from reference.variant_names import SEED_VARIANTS
from strategies import HierarchicalStrategy, InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.pricing import grace_limit

VARIANT_NAMES: tuple[str, ...] = SEED_VARIANTS


def compile_outcome(store: Store, config: Config, budget: Budget, variant: str = "sound") -> str:
    """``"sends"`` or the name of the error the compile refuses with."""
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    try:
        strategy.compile(budget, dry_run=True)
    except (OverBudgetError, UncoveredDropError, InvalidConfigError) as err:
        return type(err).__name__
    return "sends"


def exact_budget(price: int, config: Config) -> int:
    """The smallest integer input budget whose grace limit admits ``price`` (docs/model.md, Invariants); the ratio
    read as ``Math.max(0, g)`` reads it, so a NaN one (a limit that refuses nothing) gives 0."""
    g = js_max(0, config.over_budget_grace_ratio)
    b = max(0, math.floor(price / (1 + g)) - 2) if math.isfinite(g) else 0
    while grace_limit(b, config) < price:
        b += 1
    return b

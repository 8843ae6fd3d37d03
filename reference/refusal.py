"""What a refusal on a line with the budget diagnostics states of the store and the budget (docs/model.md, Emission
and the grace check): the summary inventory and the budget it was given, as the reference reads them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from reference.config import Budget
from reference.model import Store
from reference.numerics import js_number_string


def summary_inventory(store: Store) -> tuple[int, dict[int, int]]:
    """The highest level among all the stored summaries (merged ones too; 0 with none), and how many each level
    holds."""
    counts = Counter(s.level for s in store.summaries)
    return max(counts, default=0), dict(counts)


def inventory_wording(counts: Mapping[int, int]) -> str:
    """``summary inventory: L1=3 L2=1`` (levels ascending), or ``summary inventory: empty``."""
    listed = [f"L{level}={counts[level]}" for level in sorted(counts)]
    return "summary inventory: " + (" ".join(listed) if listed else "empty")


def budget_wording(budget: Budget) -> str:
    """``configured=100, response reserve=20, input budget=80``: the budget as given, and what the reserve leaves."""
    n = js_number_string
    return (
        f"configured={n(budget.max_tokens)}, response reserve={n(budget.reserve_for_response)}, "
        f"input budget={n(budget.input_budget)}"
    )

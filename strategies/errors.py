"""The compile's refusals: over budget, a message lost, a bad config (docs/model.md, Emission and the grace check)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from reference.model import InvalidConfigError
from reference.numerics import Number

__all__ = ["Diagnostics", "DropCategory", "InvalidConfigError", "OverBudgetError", "UncoveredDropError"]

EMISSION_STAGE = "Hierarchical emission overran the budget"
MiddleUnit = Literal["selection-items", "raw-messages"]
DropCategory = Literal["in-tail-not-rendered", "covered-by-unemitted-summary", "not-covered"]


@dataclass(frozen=True)
class Diagnostics:
    """What a refusal reports: where the running total went and what could clear it."""

    head_tokens: Number
    tail_tokens: Number
    middle_tokens: Number
    middle_count: int
    middle_count_unit: MiddleUnit
    deepest_level: int
    configured_budget: Number
    reserve_for_response: Number
    input_budget: Number
    cleared_by: frozenset[str]


class OverBudgetError(Exception):
    """An item would take the running total past the grace limit."""

    def __init__(
        self,
        *,
        budget: Number,
        actual: Number,
        stage: str,
        diagnostics: Diagnostics,
        item: str,
        refused: tuple[str, ...] = (),
    ) -> None:
        self.budget = budget
        self.actual = actual
        self.stage = stage
        self.diagnostics = diagnostics
        self.item = item
        #: The refused item: a raw message's id, or the ids of the summaries a pair holds.
        self.refused = refused
        d = diagnostics
        clear = " or ".join(sorted(d.cleared_by)) or "nothing but a larger budget"
        super().__init__(
            f"{stage}: {item} takes the context to {actual} tokens, {_over(actual, budget)} the grace "
            f"limit {budget} (head {d.head_tokens}, middle {d.middle_tokens} over {d.middle_count} "
            f"{d.middle_count_unit}, tail {d.tail_tokens}; input budget {d.input_budget}); "
            f"cleared by: {clear}"
        )


def _over(actual: Number, budget: Number) -> str:
    try:
        return f"{actual - budget} over"
    except TypeError:
        return "over"


class UncoveredDropError(Exception):
    """Messages neither sent raw nor covered by a recorded summary: the compile would lose them."""

    def __init__(self, dropped: tuple[str, ...], categories: Mapping[str, DropCategory]) -> None:
        self.dropped = dropped
        self.categories = dict(categories)
        listing = ", ".join(f"{m} ({categories[m]})" for m in dropped[:10])
        more = f" and {len(dropped) - 10} more" if len(dropped) > 10 else ""
        super().__init__(f"{len(dropped)} message(s) would be lost: {listing}{more}")

"""The compile's refusals: over budget, a message lost, a bad config (docs/model.md, Emission and the grace check)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from reference.model import InvalidConfigError
from reference.numerics import Number, js_number_string

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
    #: The summary inventory (``BUDGET_DIAGNOSTICS``): the highest stored summary level (0 with none) and the number
    #: of stored summaries per level, merged ones included; None where the line reports no inventory.
    deepest_available_level: int | None = None
    summary_counts_by_level: Mapping[int, int] | None = field(default=None, hash=False)  # a dict: not hashed

    @property
    def reports_inventory(self) -> bool:
        return self.summary_counts_by_level is not None or self.deepest_available_level is not None


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
        if d.reports_inventory:
            super().__init__(_labelled_message(stage, actual, budget, d))
            return
        clear = " or ".join(sorted(d.cleared_by)) or "nothing but a larger budget"
        super().__init__(
            f"{stage}: {item} takes the context to {actual} tokens, {_over(actual, budget)} the grace "
            f"limit {budget} (head {d.head_tokens}, middle {d.middle_tokens} over {d.middle_count} "
            f"{d.middle_count_unit}, tail {d.tail_tokens}; input budget {d.input_budget}); "
            f"cleared by: {clear}"
        )


#: How the labelled wording names each unit's count (OverBudgetError at 731e2707's picker.ts, whose fields the
#: newer lines' overBudgetError fills).
COUNT_LABELS: Mapping[str, str] = {
    "selection-items": "selected middle representations",
    "raw-messages": "middle raw messages",
}


def inventory_text(counts: Mapping[int, int]) -> str:
    """The summary inventory as the message states it: ``L1=2 L3=1`` by ascending level, ``empty`` with none."""
    return " ".join(f"L{level}={counts[level]}" for level in sorted(counts)) or "empty"


def _labelled_message(stage: str, actual: Number, budget: Number, d: Diagnostics) -> str:
    """The refusal's message on a line with the budget diagnostics: the TypeScript's template (a part whose field
    is None left out, as an undefined one is), numbers as JavaScript writes them; a hierarchical refusal's level
    is always the attempted one."""
    n = js_number_string
    parts = [
        f"head={n(d.head_tokens)}",
        f"tail={n(d.tail_tokens)}",
        f"middle={n(d.middle_tokens)}",
        f"{COUNT_LABELS[d.middle_count_unit]}={n(d.middle_count)}",
        f"attempted representation level=L{n(d.deepest_level)}",
    ]
    if d.deepest_available_level is not None:
        parts.append(f"deepest available level=L{n(d.deepest_available_level)}")
    if d.summary_counts_by_level is not None:
        parts.append(f"summary inventory: {inventory_text(d.summary_counts_by_level)}")
    parts += [
        f"configured={n(d.configured_budget)}",
        f"response reserve={n(d.reserve_for_response)}",
        f"input budget={n(d.input_budget)}",
    ]
    return f"{stage} but {n(actual)} tokens still exceed hard budget {n(budget)} ({', '.join(parts)})"


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

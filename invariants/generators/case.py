"""A case: a store, a config and a budget on that store's edges."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from invariants.generators.budget_placement import draw_budget, fitted
from invariants.generators.config_mix import draw_config
from invariants.generators.shapers import SHAPED_EDGES, SPOTS, shaped
from invariants.generators.store_shapes import draw_store
from reference.model import Budget, Config, Store


@dataclass(frozen=True)
class Case:
    """One input to the compile: a store, a config and a budget."""

    store: Store
    config: Config
    budget: Budget

    def __iter__(self):
        return iter((self.store, self.config, self.budget))


@st.composite
def cases(
    draw: st.DrawFn,
    max_messages: int = 8,
    store_strategy: st.SearchStrategy | None = None,
    config_strategy: st.SearchStrategy | None = None,
) -> Case:
    """A store, a config (sometimes moved onto one of the store's edges, ``shapers``), and a budget on that store's
    edges."""
    store = draw_store(draw, max_messages) if store_strategy is None else draw(store_strategy)
    config = draw_config(draw) if config_strategy is None else draw(config_strategy)
    edge, shaper = draw(SHAPED_EDGES)
    if shaper != "as drawn":
        config = shaped(store, config, shaper, draw(SPOTS))
    config, sent = fitted(store, config, edge)
    return Case(store, config, draw_budget(draw, store, config, edge, sent))


def with_large_level_budgets(config: Config) -> Config:
    """Every level budget at 10**12 (docs/model.md, Invariants: `exact-budget`, "with large level budgets")."""
    return replace(config, l1_budget_tokens=10**12, l2_budget_tokens=10**12, l3_budget_tokens=10**12)

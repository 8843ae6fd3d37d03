"""Composable Hypothesis strategies for what docs/model.md allows (The data to Config and budget).

The shapes are chosen to reach interesting cases quickly rather than to sample uniformly:

- stores are small mostly, sometimes large (11 to 52 messages) or tool cycles, their summary trees valid by
  construction, their compression work a run of what a compressor would fold next or any ids (``store_shapes``);
- texts mix prose, JSON-ish and astral text, and strings on either side of the density threshold
  (``content``);
- carriers, stamps, measured tokens, caps, windows, grace ratios, calibrations, estimators and
  budgets draw their bad values (NaN, infinities, negatives, 0) often enough to matter but rarely
  enough that ordinary cases dominate; some configs prune tool results, cap tool inputs and strip images,
  some are combined with a tight cap (``config_mix``);
- budgets sit on the store's own edges (``budget_placement``), and about two configs in five are moved onto them
  too: a window or the level budgets exactly on a sum of the store's prices (``shapers``); tool cycles and
  images have their own stores (``tool_cycles``), and the default cases hold tool cycles too.

``invariants.reach`` measures how often cases reach each shape that matters (``benchmarks/bench_reach.py`` prints
it; ``tests/test_reach.py`` keeps every shape at 1% of ``ci`` cases or more).

Most of a case is pooled: an index into seeded samples of the same mix (``draws``), so a case costs
about 5.5 Hypothesis choices (a whole history, a summary tree with its summaries' fields, the store's settings,
the config, the budget's edge, each one choice; sometimes a point inside the budget), not one per field. No
part of a case is a repeated draw: Hypothesis replays an example that has one up to five times with values
copied across, so such examples would crowd out fresh ones and cost more choices each. Everything shrinks
toward the plain case: no summaries, no work, default config, ordinary budget; ``invariants.polish`` then
plainens a failing case field by field.
"""

from invariants.generators.budget_placement import (
    MIDDLE_RESERVE,
    budget_edges,
    budgets,
    draw_budget,
    fitted,
    input_budget_for,
    unlimited,
    unlimited_price,
)
from invariants.generators.case import Case, cases, with_large_level_budgets
from invariants.generators.config_mix import config_choices, config_pool, configs
from invariants.generators.content import LONG_PROSE, PROSE, TEXT_POOL, blocks, carriers, contents, texts
from invariants.generators.draws import choice, weighted, weights
from invariants.generators.store_shapes import (
    ESTIMATORS,
    GOOD_ESTIMATORS,
    NamedEstimator,
    calibrations,
    draw_store,
    draw_summary_tree,
    draw_works,
    estimators,
    planned_works,
    stores,
    summary_trees,
    tree_shape,
    works,
)
from invariants.generators.tool_cycles import tool_cases, tool_configs, tool_stores, tool_turns

__all__ = [
    "ESTIMATORS",
    "GOOD_ESTIMATORS",
    "LONG_PROSE",
    "MIDDLE_RESERVE",
    "PROSE",
    "TEXT_POOL",
    "Case",
    "NamedEstimator",
    "blocks",
    "budget_edges",
    "budgets",
    "calibrations",
    "carriers",
    "cases",
    "choice",
    "config_choices",
    "config_pool",
    "configs",
    "contents",
    "draw_budget",
    "draw_store",
    "draw_summary_tree",
    "draw_works",
    "estimators",
    "fitted",
    "input_budget_for",
    "planned_works",
    "stores",
    "summary_trees",
    "texts",
    "tool_cases",
    "tool_configs",
    "tool_stores",
    "tool_turns",
    "tree_shape",
    "unlimited",
    "unlimited_price",
    "weighted",
    "weights",
    "with_large_level_budgets",
    "works",
]

"""Selection of the middle (docs/model.md, Selection): candidates, the waterfall with carry-over, and positions.

Each expected selection is worked out by hand from the rules in docs/model.md on a small pool: a level stops
(break) at the first summary whose level total would exceed the level budget plus what the levels
above left, or whose ``head + selected + tokens`` would exceed the input budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import pytest
from builders import FAITHFUL, SOUND, compile_with, store, summary
from hypothesis import given
from hypothesis import strategies as hst

from invariants import check
from invariants.generators import Case, cases, with_large_level_budgets
from invariants.generators.shapers import on_window_edge
from reference.model import Budget, Config, Store, Summary
from reference.selection import Rules, bounds, head_total
from reference.selection import select as reference_select
from strategies import HierarchicalStrategy
from strategies.defects import Defect, resolve_variant
from strategies.errors import InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.pricing import over_budget
from strategies.selection import candidates, position, waterfall, waterfall_tokens
from strategies.windows import Windows

# ----------------------------------------------------------------------------- candidates


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (SOUND, ["L1-2", "L1-3"]),
        *[(v, ["L1-1", "L1-2", "L1-3"]) for v in FAITHFUL],  # BLANK_SUMMARIES_SELECTED: no content test
    ],
)
def test_a_summary_without_content_is_skipped_not_an_end(variant: str, expected: list[str]) -> None:
    """An unmerged summary with empty content is no candidate; later summaries still are. Faithfully
    (``getAntiRedundantSummaries``) it is one."""
    st = store(6, [summary("L1-1", 0, 1, content_tokens=0), summary("L1-2", 2, 3), summary("L1-3", 4, 5)])
    pool = candidates(st, Windows(head_end=0, middle_end=6), resolve_variant(variant))
    assert [s.id for s in pool] == expected


def window_store() -> Store:
    """m0 is the head, m6..m7 the tail; in creation order: L1-4 (tail), L2-1 (over m0..m3, touches the head),
    L1-3 (inside the middle); L1-1 and L1-2 are merged into L2-1."""
    return store(
        8,
        [
            summary("L1-1", 0, 1, parent="L2-1"),
            summary("L1-2", 2, 3, parent="L2-1"),
            summary("L1-4", 6, 7),
            summary("L2-1", 0, 3, level=2, sources=["L1-1", "L1-2"]),
            summary("L1-3", 4, 5),
        ],
    )


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (SOUND, ["L1-3"]),  # every summary touching a window is excluded
        *[(v, ["L2-1", "L1-3"]) for v in FAITHFUL],  # only L1s touching a window are excluded
    ],
)
def test_summaries_touching_a_window_are_skipped_not_an_end(variant: str, expected: list[str]) -> None:
    """Exclusion of a window-touching summary skips it: unmerged summaries created after it are still candidates."""
    st = window_store()
    pool = candidates(st, Windows(head_end=1, middle_end=6), resolve_variant(variant))
    assert [s.id for s in pool] == expected


# ----------------------------------------------------------------------------- how the waterfall reads tokens


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        (10, 10),
        (0.5, 0.5),
        (0, 0),
        (1, 1),
        (12345.25, 12345.25),
        (math.nan, 0),
        (math.inf, 0),
        (-math.inf, 0),
        (-5, 0),
        (-0.5, 0),
    ],
)
def test_sound_reads_tokens_that_are_not_a_finite_number_at_least_0_as_0(tokens: float, expected: float) -> None:
    """``sound`` takes a finite ``tokens`` >= 0 as it is, and reads anything else as 0 (docs/model.md, Selection)."""
    assert waterfall_tokens(summary("L1-1", 0, 1, tokens=tokens), resolve_variant(SOUND)) == expected


@pytest.mark.parametrize("variant", FAITHFUL)
@pytest.mark.parametrize("tokens", [10, 0.5, -5, math.inf])
def test_faithful_variants_read_tokens_verbatim(variant: str, tokens: float) -> None:
    """The faithful variants use ``s.tokens`` as it is (docs/model.md, Selection), bad values included."""
    assert waterfall_tokens(summary("L1-1", 0, 1, tokens=tokens), resolve_variant(variant)) == tokens


def test_faithful_variants_keep_a_nan_tokens() -> None:
    """A NaN ``tokens`` stays NaN in the faithful variants (it poisons the level total there)."""
    assert math.isnan(waterfall_tokens(summary("L1-1", 0, 1, tokens=math.nan), resolve_variant(FAITHFUL[0])))


# ----------------------------------------------------------------------------- the waterfall


def pool_of(*specs: tuple[str, int, float]) -> list[Summary]:
    """Summaries ``(id, level, tokens)`` in creation order over disjoint messages (the waterfall reads only these)."""
    return [summary(sid, 2 * k, 2 * k + 1, level=level, tokens=tokens) for k, (sid, level, tokens) in enumerate(specs)]


def run_waterfall(
    pool: Sequence[Summary],
    *,
    l1: float = 30000,
    l2: float = 30000,
    l3: float = 30000,
    head: float = 0,
    budget: float = math.inf,
) -> list[str]:
    config = Config(l1_budget_tokens=l1, l2_budget_tokens=l2, l3_budget_tokens=l3)
    return [s.id for s in waterfall(pool, config, head, budget, over_budget(config), resolve_variant(SOUND))]


def test_a_level_takes_summaries_up_to_exactly_its_budget() -> None:
    """L1 budget 20: 10 + 10 == 20 does not exceed it; the third (30) does, and the level stops there."""
    pool = pool_of(("L1-1", 1, 10), ("L1-2", 1, 10), ("L1-3", 1, 10), ("L1-4", 1, 0))
    assert run_waterfall(pool, l1=20, l2=0, l3=0) == ["L1-1", "L1-2"]


def test_a_single_summary_equal_to_its_level_budget_enters() -> None:
    """A level total equal to the level budget is not over it (the comparison is strict)."""
    assert run_waterfall(pool_of(("L1-1", 1, 7)), l1=7, l2=0, l3=0) == ["L1-1"]


def test_the_top_level_has_no_carry_in() -> None:
    """L3 budget 10: 5 + 6 = 11 exceeds it, nothing carries into the L3 level."""
    pool = pool_of(("L3-1", 3, 5), ("L3-2", 3, 6))
    assert run_waterfall(pool, l3=10, l2=0, l1=0) == ["L3-1"]


def test_unused_budget_carries_down_level_by_level() -> None:
    """L3 30 uses 10, so L2 gets 30 + 20 = 50: 30 + 20 fits, + 1 does not; L2 leaves 0, so L1 gets only 5."""
    pool = pool_of(("L3-1", 3, 10), ("L2-1", 2, 30), ("L2-2", 2, 20), ("L2-3", 2, 1), ("L1-1", 1, 5), ("L1-2", 1, 1))
    assert run_waterfall(pool, l3=30, l2=30, l1=5) == ["L3-1", "L2-1", "L2-2", "L1-1"]


def test_carry_is_what_the_level_left_not_more() -> None:
    """L3 20 uses 15 (carry 5), L2 10 + 5 = 15 uses 12 (carry 3), so L1 has 4 + 3 = 7: 4 + 3 fits, + 1 does not."""
    pool = pool_of(("L3-1", 3, 15), ("L2-1", 2, 12), ("L1-1", 1, 4), ("L1-2", 1, 3), ("L1-3", 1, 1))
    assert run_waterfall(pool, l3=20, l2=10, l1=4) == ["L3-1", "L2-1", "L1-1", "L1-2"]


@pytest.mark.parametrize(
    ("head", "budget", "specs", "expected"),
    [
        # head 10 + 10 + 10 == 30 is not over 30; + 10 more is.
        (10, 30, [("L1-1", 1, 10), ("L1-2", 1, 10), ("L1-3", 1, 10)], ["L1-1", "L1-2"]),
        # no head: exactly the budget fits.
        (0, 20, [("L1-1", 1, 10), ("L1-2", 1, 10), ("L1-3", 1, 1)], ["L1-1", "L1-2"]),
        # the selected total runs across levels: L3 10 and L2 10 leave no room for the L1 under 30 with head 10.
        (10, 30, [("L3-1", 3, 10), ("L2-1", 2, 10), ("L1-1", 1, 10)], ["L3-1", "L2-1"]),
        # the selected total keeps growing: five 5s make 25, which fits 25; the sixth (30) does not.
        (0, 25, [(f"L1-{k}", 1, 5) for k in range(1, 7)], [f"L1-{k}" for k in range(1, 6)]),
    ],
)
def test_the_waterfall_stops_where_head_plus_selected_would_go_over_the_input_budget(
    head: float, budget: float, specs: list[tuple[str, int, float]], expected: list[str]
) -> None:
    """``over_budget(head + selected + s.tokens, B)`` stops the level (Selection), ``selected`` over all levels."""
    assert run_waterfall(pool_of(*specs), head=head, budget=budget) == expected


# ----------------------------------------------------------------------------- positions


def test_position_is_the_index_of_the_first_leaf() -> None:
    """A summary's position is the index of ``source_range.first``, not of its last leaf."""
    st = store(
        5,
        [
            Summary(
                id="L1-1",
                level=1,
                content="x",
                tokens=1,
                source_level=0,
                source_ids=("m1", "m3"),
                source_range=("m1", "m3"),
            )
        ],
    )
    assert position(st, st.summaries[0]) == 1


def test_positioned_pairs_stand_at_their_first_leaf(variant: str) -> None:
    """A summary over m0 and m2 is emitted before the raw m1 between its leaves (position = first leaf)."""
    s = Summary(
        id="L1-1",
        level=1,
        content="a" * 29,
        tokens=10,
        source_level=0,
        source_ids=("m0", "m2"),
        source_range=("m0", "m2"),
    )
    st = store(3, [s])
    outcome = compile_with(variant, st, Config(), math.inf)
    assert outcome.result is not None
    entries = outcome.result.entries
    assert [(e.kind, e.message_id, e.summary_ids) for e in entries] == [
        ("question", None, ()),
        ("answer", None, ("L1-1",)),
        ("raw", "m1", ()),
    ]


#: Each defect that changes the selection, and the reference selection's rule for it (reference/selection.py, Rules).
SELECTION_RULES = {
    Defect.RAW_CAP_PLUS_50: Rules(raw_cap_plus_50=True),
    Defect.BLANK_SUMMARIES_SELECTED: Rules(blank_candidates=True),
    Defect.DEEP_WINDOW_CANDIDATES: Rules(deep_window_candidates=True),
    Defect.STAMPS_VERBATIM: Rules(verbatim_stamps=True),
    Defect.IMAGE_COUNT_STORE_WIDE: Rules(store_wide_images=True),
    Defect.UNCHECKED_BAD_VALUES: Rules(verbatim_tokens=True),
}


def waterfall_edges(st_: Store, config: Config, defect: Defect | None = None) -> list[int]:
    """Input budgets on the waterfall's own edges, under ``defect``'s rule (``sound``'s when None): the reference
    head's total plus each running total of the summary tokens it picks at an unlimited budget, as the waterfall reads
    them, and one less (where that pick no longer fits)."""
    rules = SELECTION_RULES.get(defect, Rules())
    defects = resolve_variant("sound" if defect is None else frozenset({defect}))
    head_end, _ = bounds(st_, config, rules)
    head = head_total(st_, config, head_end, rules)
    picked = reference_select(st_, config, Budget(max_tokens=math.inf), rules).selected
    tokens = [waterfall_tokens(s, defects) for s in picked]
    totals = [head + sum(tokens[: k + 1]) for k in range(len(tokens))]
    return sorted({max(0, math.ceil(t) - d) for t in totals if math.isfinite(t) and t < 2**53 for d in (0, 1)})


def on_the_waterfalls_edge(case: Case, spot: int, data: hst.DataObject, defect: Defect | None = None) -> Case | None:
    """``case`` with a head on its window's edge, the level budgets out of the way, a grace ratio so wide that
    whatever is selected is sent, and an input budget drawn from the waterfall's edges under ``defect``'s rule; None
    when nothing is selected even unlimited."""
    st_, config, _ = case
    config = on_window_edge(st_, config, "head", spot)
    config = replace(with_large_level_budgets(config), enforce_budget=True, over_budget_grace_ratio=1000)
    edges = waterfall_edges(st_, config, defect)
    if not edges:
        return None
    return Case(st_, config, Budget(max_tokens=data.draw(hst.sampled_from(edges), label="input budget")))


@given(cases(), hst.integers(0, 10), hst.data())
def test_sound_selects_as_the_reference_with_the_input_budget_on_the_waterfalls_edges(case, spot, data):
    """A head on its window's edge, the level budgets out of the way and a grace ratio so wide that whatever is
    selected is sent: the input budget alone stops the waterfall, and on each of its edges (the head plus the picks
    so far, and one less) the sound compile selects what the reference selects and holds every invariant."""
    shaped = on_the_waterfalls_edge(case, spot, data)
    if shaped is None:
        return  # nothing is selected even unlimited
    assert check(*shaped, "sound") == []


@pytest.mark.parametrize("defect", list(SELECTION_RULES), ids=lambda d: d.name)
@given(case=cases(), spot=hst.integers(0, 10), cap=hst.sampled_from((None, 0, 2, 5, 12, 40)), data=hst.data())
def test_each_selection_defect_alone_selects_as_the_reference_under_its_rule(defect, case, spot, cap, data):
    """Each defect that changes the selection, switched on alone in ``sound``, selects what the reference selects
    under that defect's rule, with the input budget on the waterfall's edges as the rule reads them (a head on its
    window's edge, under a message cap or none, the level budgets out of the way, a grace ratio that sends whatever
    is selected)."""
    capped = Case(case.store, replace(case.config, max_message_tokens=cap), case.budget)
    shaped = on_the_waterfalls_edge(capped, spot, data, defect)
    if shaped is None:
        return  # nothing is selected even unlimited
    st_, config, budget = shaped
    strategy = HierarchicalStrategy(config, frozenset({defect}))
    strategy.initialize(st_)
    try:
        selected = strategy.compile(budget).selected
    except (OverBudgetError, UncoveredDropError, InvalidConfigError):  # a refusal shows no selection
        return
    assert selected == tuple(s.id for s in reference_select(st_, config, budget, SELECTION_RULES[defect]).selected)

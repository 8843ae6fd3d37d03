"""The seed's own cases (shared/seeds/pr-combined-pair-grace.txt), rebuilt on this model.

Each test asserts the correct behaviour; ``red_on`` names the variants where it must come up red.
Every message prices 10 tokens; the label prices 12 and the default header 6.
"""

from __future__ import annotations

import pytest
from builders import MAIN, PR, VARIANT_NAMES, carriers, compile_with, msg, sent_price, store, summary

from reference.estimator import content_tokens
from reference.model import Budget, Config, Store, Summary, Work
from reference.price import live_prose, reference_price
from strategies import HierarchicalStrategy, OverBudgetError, UncoveredDropError

pytestmark = pytest.mark.parametrize("variant", VARIANT_NAMES)

COMBINED = Config(positioned_recall_pairs=False, over_budget_grace_ratio=0)
POSITIONED = Config(positioned_recall_pairs=True, over_budget_grace_ratio=0)
WITH_HEAD = {"head_window_tokens": 10}


def with_(config: Config, **changes: object) -> Config:
    return Config(**{**config.__dict__, **changes})


def refused_at_pair(outcome, *, count: int = 1) -> OverBudgetError:
    err = outcome.refusal()
    assert err.item.startswith("the combined recall pair"), f"refused at {err.item}, not at the combined pair"
    assert err.diagnostics.middle_count_unit == "selection-items"
    assert err.diagnostics.middle_count == count
    return err


# ----------------------------------------------------------------------------- the guard


@pytest.mark.red_on(MAIN)
def test_guard_refuses_combined_pair_with_nothing_after(variant):
    st = store(4, [summary("L1-1", 0, 3)])
    err = refused_at_pair(compile_with(variant, st, COMBINED, 21))
    assert (err.actual, err.budget) == (22, 21)


@pytest.mark.red_on(MAIN)
def test_guard_refuses_combined_pair_before_a_raw_middle_message(variant):
    st = store(5, [summary("L1-1", 0, 3)])
    refused_at_pair(compile_with(variant, st, COMBINED, 21))


@pytest.mark.red_on(MAIN)
def test_guard_refuses_combined_pair_before_the_recent_window(variant):
    st = store(5, [summary("L1-1", 0, 3)])
    refused_at_pair(compile_with(variant, st, with_(COMBINED, recent_window_tokens=10), 21))


def test_main_without_the_guard_fails_as_the_seed_says(variant):
    """Pins main's three outcomes: over the budget, refused at the raw message, an eviction refused."""
    if variant != MAIN:
        pytest.skip("main's own behaviour")
    lone = store(4, [summary("L1-1", 0, 3)])
    assert sent_price(compile_with(variant, lone, COMBINED, 21), lone, COMBINED) == 22
    st = store(5, [summary("L1-1", 0, 3)])
    raw = compile_with(variant, st, COMBINED, 21).refusal()
    assert raw.refused == ("m4",) and raw.diagnostics.middle_count_unit == "raw-messages"
    evicted = compile_with(variant, st, with_(COMBINED, recent_window_tokens=10), 21).error
    assert isinstance(evicted, UncoveredDropError) and evicted.categories == {"m4": "in-tail-not-rendered"}


# ----------------------------------------------------------------------------- the split


def _split(err: OverBudgetError) -> tuple:
    d = err.diagnostics
    return d.head_tokens, d.middle_tokens, d.tail_tokens


@pytest.mark.red_on(MAIN)
def test_split_at_a_positioned_pair(variant):
    st = store(5, [summary("L1-1", 1, 3)])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 15).refusal()
    assert err.refused == ("L1-1",)
    assert _split(err) == (10, err.actual - 10, 0)


@pytest.mark.red_on(MAIN)
def test_split_at_a_positioned_raw_message(variant):
    st = store(5, [summary("L1-1", 1, 3)])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 35).refusal()
    assert err.refused == ("m4",)
    assert _split(err) == (10, err.actual - 10, 0)


@pytest.mark.red_on(MAIN)
def test_split_at_the_combined_pair(variant):
    st = store(5, [summary("L1-1", 1, 3)])
    err = refused_at_pair(compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 25))
    assert _split(err) == (10, 22, 0)


@pytest.mark.red_on(MAIN)
def test_split_at_a_raw_message_after_the_combined_pair(variant):
    st = store(5, [summary("L1-1", 1, 3)])
    err = compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 35).refusal()
    assert err.refused == ("m4",) and err.diagnostics.middle_count_unit == "raw-messages"
    assert _split(err) == (10, 32, 0)


# ----------------------------------------------------------------------------- the narrowed cleared_by


def chunk(*ids: str) -> Work:
    return Work("chunk", "queued", frozenset(ids))


def merge(*ids: str) -> Work:
    return Work("merge", "running", frozenset(ids))


TWO_PAIRS = [summary("L1-1", 1, 2), summary("L1-2", 3, 4)]


@pytest.mark.red_on(MAIN)
@pytest.mark.parametrize("work", [chunk("m5"), merge("L1-2")], ids=["chunk-after", "merge-after"])
def test_cleared_by_at_a_positioned_pair_ignores_work_after_it(variant, work):
    st = store(6, TWO_PAIRS, [work])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 15).refusal()
    assert err.refused == ("L1-1",)
    assert err.diagnostics.cleared_by == frozenset()


@pytest.mark.parametrize("work", [chunk("m2"), merge("L1-1")], ids=["chunk-inside", "merge-inside"])
def test_cleared_by_at_a_positioned_pair_names_work_it_holds(variant, work):
    st = store(6, TWO_PAIRS, [work])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 15).refusal()
    assert err.diagnostics.cleared_by == {"compression"}


def test_cleared_by_counts_a_compression_in_flight_with_nothing_recorded(variant):
    st = store(6, TWO_PAIRS, [Work("chunk", "running", None)])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 15).refusal()
    assert err.diagnostics.cleared_by == {"compression"}


@pytest.mark.red_on(MAIN)
def test_cleared_by_at_the_combined_pair_ignores_work_on_raw_messages_after_it(variant):
    st = store(6, [summary("L1-1", 1, 2)], [chunk("m4")])
    err = refused_at_pair(compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 25))
    assert err.diagnostics.cleared_by == frozenset()


def test_cleared_by_at_the_combined_pair_names_work_on_what_it_holds(variant):
    st = store(6, [summary("L1-1", 1, 2)], [chunk("m1")])
    err = compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 25).refusal()
    assert err.diagnostics.cleared_by == {"compression"}


@pytest.mark.red_on(MAIN)
def test_cleared_by_at_a_positioned_raw_message_ignores_later_messages(variant):
    st = store(5, [summary("L1-1", 1, 2)], [chunk("m4")])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 35).refusal()
    assert err.refused == ("m3",)
    assert err.diagnostics.cleared_by == frozenset()


@pytest.mark.parametrize("work", [chunk("m1"), chunk("m3")], ids=["pair-before", "refused-itself"])
def test_cleared_by_at_a_positioned_raw_message_names_its_prefix(variant, work):
    st = store(5, [summary("L1-1", 1, 2)], [work])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 35).refusal()
    assert err.refused == ("m3",)
    assert err.diagnostics.cleared_by == {"compression"}


@pytest.mark.parametrize("mode", [POSITIONED, COMBINED], ids=["positioned", "combined"])
def test_cleared_by_at_a_raw_message_names_work_on_raw_messages_before_it(variant, mode):
    st = store(6, [summary("L1-1", 1, 2)], [chunk("m3")])
    err = compile_with(variant, st, with_(mode, **WITH_HEAD), 45).refusal()
    assert err.refused == ("m4",)
    assert err.diagnostics.cleared_by == {"compression"}


@pytest.mark.red_on(MAIN)
def test_cleared_by_at_a_raw_message_after_the_combined_pair_ignores_later_messages(variant):
    st = store(5, [summary("L1-1", 1, 2)], [chunk("m4")])
    err = compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 35).refusal()
    assert err.refused == ("m3",)
    assert err.diagnostics.cleared_by == frozenset()


@pytest.mark.parametrize(
    "work", [chunk("m1"), chunk("m3"), chunk("m2", "m4")], ids=["held-summary", "refused-itself", "held-and-later"]
)
def test_cleared_by_at_a_raw_message_after_the_combined_pair_names_its_prefix(variant, work):
    st = store(5, [summary("L1-1", 1, 2)], [work])
    err = compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 35).refusal()
    assert err.refused == ("m3",)
    assert err.diagnostics.cleared_by == {"compression"}


XML_CAP = with_(COMBINED, recall_envelope="xml", max_message_tokens=10, **WITH_HEAD)


def _pair_price(st: Store, config: Config) -> float:
    """The combined pair's reference price, read from a send that does not check coverage (pr)."""
    sent = compile_with(PR, st, config, float("inf")).result
    pair = [e for e in sent.entries if e.kind != "raw"]
    return reference_price(pair, st, config)


@pytest.mark.red_on(MAIN)
@pytest.mark.parametrize("where", ["at-pair", "at-raw-after"])
def test_cleared_by_ignores_a_merge_of_summaries_the_xml_cap_leaves_out(variant, where):
    st = store(6, TWO_PAIRS, [merge("L1-2")])
    pair = _pair_price(st, XML_CAP)
    budget = 10 + pair - 1 if where == "at-pair" else 10 + pair + 9
    err = compile_with(variant, st, XML_CAP, budget).refusal()
    assert err.refused == (("L1-1",) if where == "at-pair" else ("m5",))
    assert err.diagnostics.cleared_by == frozenset()


# ----------------------------------------------------------------------------- the floor


def carrying(sid: str, first: int, last: int, tokens: float = 500, **kw: object) -> Summary:
    return summary(sid, first, last, tokens=tokens, carriers=carriers(), **kw)


def test_floor_positioned_pair_is_priced_at_its_measured_tokens(variant):
    st = store(5, [carrying("L1-1", 1, 3)])
    err = compile_with(variant, st, with_(POSITIONED, **WITH_HEAD), 300).refusal()
    assert err.refused == ("L1-1",) and err.actual >= 10 + 500


@pytest.mark.red_on(MAIN)
def test_floor_combined_pair_is_priced_at_its_measured_tokens(variant):
    st = store(5, [carrying("L1-1", 1, 3)])
    err = refused_at_pair(compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 300))
    assert err.actual >= 10 + 500


@pytest.mark.red_on(MAIN)
def test_floor_sums_two_summaries_with_their_count_and_deepest_level(variant):
    l1a = summary("L1-1", 1, 2, parent="L2-1")
    l1b = summary("L1-2", 3, 4, parent="L2-1")
    l2 = carrying("L2-1", 1, 4, tokens=200, level=2, sources=("L1-1", "L1-2"))
    l1c = carrying("L1-3", 5, 6, tokens=200)
    st = Store(messages=tuple(msg(i) for i in range(7)), summaries=(l1a, l1b, l2, l1c))
    err = refused_at_pair(compile_with(variant, st, with_(COMBINED, **WITH_HEAD), 300), count=2)
    assert err.actual >= 10 + 400
    assert err.diagnostics.deepest_level == 2


@pytest.mark.red_on(MAIN)
def test_floor_holds_a_summary_whose_text_the_cap_cut(variant):
    st = store(5, [summary("L1-1", 1, 3, tokens=500, carriers=carriers(text_tokens=100))])
    config = with_(COMBINED, max_message_tokens=8, **WITH_HEAD)
    err = refused_at_pair(compile_with(variant, st, config, 300))
    excess = 500 - content_tokens(live_prose(st.summary("L1-1"), config), st)
    assert err.actual >= 10 + 12 + excess


def test_floor_skips_a_summary_the_xml_cap_leaves_out(variant):
    st = store(6, [summary("L1-1", 1, 2), carrying("L1-2", 3, 4)])
    outcome = compile_with(variant, st, XML_CAP, 300)
    assert not isinstance(outcome.error, OverBudgetError), f"refused: {outcome.error}"


# ----------------------------------------------------------------------------- the store view


def per_char(s: str) -> int:
    return len(s)


@pytest.mark.red_on(MAIN)
def test_view_prices_recall_pairs_with_the_store_estimator(variant):
    st = store(4, [summary("L1-1", 0, 3)], text_estimator=per_char)
    outcome = compile_with(variant, st, POSITIONED, 30)
    assert outcome.refusal().refused == ("L1-1",)


def test_view_is_unbound_after_every_compile(variant):
    st = store(5, [summary("L1-1", 1, 3)])
    strategy = HierarchicalStrategy(with_(POSITIONED, **WITH_HEAD), variant)
    strategy.initialize(st)
    for budget in (float("inf"), 15, 0):
        for dry in (True, False):
            compile_with(variant, st, strategy.config, budget, dry_run=dry, strategy=strategy)
            assert strategy.view is None, f"view left bound after compile at {budget} (dry={dry})"


def test_initialize_over_a_second_store_forgets_the_first_stores_prices(variant):
    first = store(4, [summary("L1-1", 0, 3)])
    second = store(4, [summary("L1-1", 0, 3)], text_estimator=per_char)
    strategy = HierarchicalStrategy(POSITIONED, variant)
    strategy.initialize(first)
    strategy.compile(Budget(max_tokens=float("inf")))
    strategy.initialize(second)
    for budget in (float("inf"), 60):
        again = compile_with(variant, second, POSITIONED, budget, strategy=strategy)
        fresh = compile_with(variant, second, POSITIONED, budget)
        assert again == fresh or (type(again.error), str(again.error)) == (type(fresh.error), str(fresh.error))

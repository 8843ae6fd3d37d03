"""Emission (docs/model.md): what each item sends and charges, the grace check's refusals and their
diagnostics, the tail, and the coverage check's categories.

Every message of ``builders.msg`` prices 10 tokens; a summary's default content prices 10. Expected values are
derived from the rules in docs/model.md (windows, prices, buckets) on these small stores.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from builders import MAIN, PR, SOUND, carriers, compile_with, msg, prose, store, summary
from hypothesis import given
from hypothesis import strategies as hs

from reference.estimator import content_tokens
from reference.model import Budget, Config, Message, Store, Text, Work
from reference.price import excess, reference_price
from strategies import HierarchicalStrategy, InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.cap import truncate
from strategies.defects import VARIANTS, Defect
from strategies.emission import CompileResult, Item, Running, accept_tail, check_coverage
from strategies.recall import QUESTION_PARTICIPANT
from strategies.stats import LevelBucket, RawBucket

STAGE = "Hierarchical emission overran the budget"
PARTICIPANT = "Memory"  # a summary_participant other than the default, so the answer's participant is visible
POSITIONED = Config(head_window_tokens=10, summary_participant=PARTICIPANT)
COMBINED = replace(POSITIONED, positioned_recall_pairs=False)


def chunk(*ids: str) -> Work:
    return Work("chunk", "queued", frozenset(ids))


def compile_under(defects: frozenset[Defect], st: Store, config: Config, max_tokens: float) -> CompileResult:
    strategy = HierarchicalStrategy(config, defects)
    strategy.initialize(st)
    return strategy.compile(Budget(max_tokens=max_tokens))


def refusal_under(defects: frozenset[Defect], st: Store, config: Config, max_tokens: float) -> OverBudgetError:
    with pytest.raises(OverBudgetError) as info:
        compile_under(defects, st, config, max_tokens)
    return info.value


def E(text: str, st: Store) -> float:
    return content_tokens((Text(text),), st)


# ----------------------------------------------------------------------------- what raw messages send and charge


def test_raw_messages_keep_their_participant_and_charge_their_region(variant: str) -> None:
    """Head [m0], middle m1..m3 (no summaries: raw), tail m4, m5 (emitted oldest first); each region's bucket
    counts its own messages and tokens (Stats) and each raw entry keeps its message's participant (Selection)."""
    st = store(6)
    config = Config(head_window_tokens=10, recent_window_tokens=20)
    result = compile_with(variant, st, config, math.inf).result
    assert result is not None
    assert [(e.participant, e.kind, e.message_id) for e in result.entries] == [
        (m.participant, "raw", m.id) for m in st.messages
    ]
    assert [e.content for e in result.entries] == [m.content for m in st.messages]
    stats = result.stats
    assert (stats.head, stats.middle_raw, stats.tail) == (RawBucket(1, 10), RawBucket(3, 30), RawBucket(2, 20))
    assert (stats.total.messages, stats.total.tokens) == (6, 60)


def test_a_capped_raw_message_is_sent_and_charged_as_truncate_leaves_it() -> None:
    """The message cap: a raw message under a cap is sent as ``truncate(content, cap)`` and sound charges that."""
    long = Message("m1", "assistant", (Text(prose(100)),))
    st = Store(messages=(msg(0), long, msg(2)))
    config = Config(max_message_tokens=20)
    result = compile_with(SOUND, st, config, math.inf).result
    assert result is not None
    sent = truncate(long.content, 20)
    assert sent != long.content and "[truncated" in sent[0].text
    assert result.entries[1].content == sent
    assert result.stats.middle_raw == RawBucket(3, 20 + content_tokens(sent, st))


# ----------------------------------------------------------------------------- what recall pairs send and charge


def test_positioned_pair_entries_and_stats(variant: str) -> None:
    """A positioned pair is a question from the Context Manager and an answer from ``summary_participant`` that
    holds its summary; it counts once in its level's bucket, adds 2 messages, and charges its price there."""
    st = store(4, [summary("L1-1", 1, 2)])
    result = compile_with(variant, st, POSITIONED, math.inf).result
    assert result is not None
    question, answer = result.entries[1], result.entries[2]
    assert (question.participant, question.kind, question.content) == (
        QUESTION_PARTICIPANT,
        "question",
        (Text("[Recall L1-1]"),),
    )
    assert (answer.participant, answer.kind, answer.summary_ids) == (PARTICIPANT, "answer", ("L1-1",))
    stats = result.stats
    assert stats.l1.count == 1 and stats.l2 == stats.l3 == LevelBucket()
    assert (stats.head, stats.middle_raw) == (RawBucket(1, 10), RawBucket(1, 10))
    assert stats.total.messages == 1 + 2 + 1
    assert stats.total.tokens == 20 + stats.l1.tokens
    if variant == SOUND:
        assert stats.l1.tokens == reference_price((question, answer), st, POSITIONED) == E("[Recall L1-1]", st) + 10


def test_combined_pair_entries_and_stats(variant: str) -> None:
    """The combined pair's question (the label) and answer; sound charges its price to ``combined`` and counts
    each held summary in its level with 0 tokens; faithfully its summaries' ``tokens`` go to their level and the
    ``combined`` bucket holds the pair's 2 messages at 0 tokens (Selection, Stats)."""
    st = store(4, [summary("L1-1", 1, 2, tokens=7)])
    result = compile_with(variant, st, COMBINED, math.inf).result
    assert result is not None
    question, answer = result.entries[1], result.entries[2]
    assert (question.participant, question.kind, question.content) == (
        QUESTION_PARTICIPANT,
        "question",
        (Text(COMBINED.summary_context_label),),
    )
    assert (answer.participant, answer.kind, answer.summary_ids) == (PARTICIPANT, "answer", ("L1-1",))
    stats = result.stats
    assert stats.total.messages == 1 + 2 + 1
    if variant == SOUND:
        price = reference_price((question, answer), st, COMBINED)
        assert price == E(COMBINED.summary_context_label, st) + 10
        assert (stats.combined, stats.l1) == (RawBucket(2, price), LevelBucket(1, 0))
    else:
        assert (stats.combined, stats.l1) == (RawBucket(2, 0), LevelBucket(1, 7))
    assert stats.total.tokens == 20 + stats.combined.tokens + stats.l1.tokens


# ----------------------------------------------------------------------------- refusals and their diagnostics


def test_head_refusal_reports_the_head_and_the_budget(variant: str) -> None:
    """A head refusal: budget = grace limit, actual = T + price, head_tokens = actual, nothing in the middle,
    middle_count 0 in ``selection-items``, deepest level 0, and the budget's three figures as configured."""
    st = store(3)
    strategy = HierarchicalStrategy(Config(head_window_tokens=20), variant)
    strategy.initialize(st)
    with pytest.raises(OverBudgetError, match="'m1'") as info:
        strategy.compile(Budget(max_tokens=20, reserve_for_response=5))
    err = info.value
    limit = math.floor(15 * 1.02)
    assert (err.stage, err.budget, err.actual, err.refused) == (STAGE, limit, 20, ("m1",))
    assert str(err).startswith(STAGE)
    d = err.diagnostics
    assert (d.head_tokens, d.middle_tokens, d.tail_tokens) == (20, 0, 0)
    assert (d.middle_count, d.middle_count_unit, d.deepest_level) == (0, "selection-items", 0)
    assert (d.configured_budget, d.reserve_for_response, d.input_budget) == (20, 5, 15)
    assert d.cleared_by == frozenset()


def _l2_store() -> Store:
    """m0 head; an L2 over an L1 over m1, m2; m3 and m4 raw in the middle: three positioned middle items."""
    return store(5, [summary("L1-1", 1, 2, parent="L2-1"), summary("L2-1", 1, 2, level=2, sources=("L1-1",))])


def test_positioned_pair_refusal_reports_its_level_count_and_split(variant: str) -> None:
    """At a positioned pair: the refused pair's level, the number of middle items (pairs and raw), the unit
    ``selection-items``, the id in the message; the head's total as head (0 in main: HEAD_AS_MIDDLE)."""
    st = _l2_store()
    outcome = compile_with(variant, st, POSITIONED, 20)
    err = outcome.refusal()
    assert err.refused == ("L2-1",) and "'L2-1'" in err.item and "'L2-1'" in str(err)
    d = err.diagnostics
    assert (d.deepest_level, d.middle_count, d.middle_count_unit) == (2, 3, "selection-items")
    head = 0 if variant == MAIN else 10
    assert (d.head_tokens, d.middle_tokens, d.tail_tokens) == (head, err.actual - head, 0)
    if variant == SOUND:
        assert err.actual == 10 + E("[Recall L2-1]", st) + 10


def test_positioned_raw_refusal_reports_level_0(variant: str) -> None:
    """At a positioned raw message: deepest level 0, the middle items' count, the unit ``selection-items``."""
    st = _l2_store()
    limit = 45  # sound: 10 + 16 + 10 fits, + 10 does not; faithful (label-priced question): 10 + 22 + 10, + 10
    err = compile_with(variant, st, replace(POSITIONED, over_budget_grace_ratio=0), limit).refusal()
    assert err.refused == ("m4",)
    d = err.diagnostics
    assert (d.deepest_level, d.middle_count, d.middle_count_unit) == (0, 3, "selection-items")
    assert err.actual > limit


def test_raw_refusal_after_the_combined_pair_counts_raw_messages(variant: str) -> None:
    """After the combined pair, a raw refusal counts the raw middle messages (m3, m4, m5) in ``raw-messages``."""
    st = store(6, [summary("L1-1", 1, 2)])
    err = compile_with(variant, st, COMBINED, 40).refusal()
    assert err.refused == ("m3",)
    d = err.diagnostics
    assert (d.deepest_level, d.middle_count, d.middle_count_unit) == (0, 3, "raw-messages")
    assert err.actual == 10 + E(COMBINED.summary_context_label, st) + 10 + 10


@pytest.mark.red_on(MAIN)
@pytest.mark.parametrize("budget", [20, 35], ids=["at-the-pair", "at-the-raw-after-it"])
def test_cleared_by_in_the_middle_ignores_work_on_the_head(variant: str, budget: int) -> None:
    """cleared_by: the refused prefix is the middle's items up to the refused one; work folding a head message
    cannot clear a middle refusal (main names any work anywhere)."""
    st = store(4, [summary("L1-1", 1, 2)], [chunk("m0")])
    err = compile_with(variant, st, replace(POSITIONED, over_budget_grace_ratio=0), budget).refusal()
    assert err.refused == (("L1-1",) if budget == 20 else ("m3",))
    assert err.diagnostics.cleared_by == frozenset()


# ----------------------------------------------------------------------------- the seed-removal switches


def test_combined_prefix_switches_leave_the_pairs_summaries_out_of_the_prefix() -> None:
    """COMBINED_PREFIX_AT_PAIR / _AT_RAW (seed removals) drop the pair's summaries from the refused prefix: work
    folding only the held summary's leaf then no longer clears the refusal, as it does in pr."""
    st_pair = store(6, [summary("L1-1", 1, 2)], [chunk("m1")])
    st_raw = store(5, [summary("L1-1", 1, 2)], [chunk("m1")])
    pr = VARIANTS[PR]
    for st, budget, switch, refused in (
        (st_pair, 25, Defect.COMBINED_PREFIX_AT_PAIR, ("L1-1",)),
        (st_raw, 35, Defect.COMBINED_PREFIX_AT_RAW, ("m3",)),
    ):
        assert refusal_under(pr, st, COMBINED, budget).diagnostics.cleared_by == {"compression"}
        err = refusal_under(pr | {switch}, st, COMBINED, budget)
        assert err.refused == refused and err.diagnostics.cleared_by == frozenset()


def test_floor_unheld_switch_floors_a_summary_the_cap_left_out() -> None:
    """FLOOR_UNHELD (seed removal) adds the excess of a selected summary the xml cap left out of the answer."""
    carrying = summary("L1-2", 3, 4, tokens=500, carriers=carriers())
    st = store(6, [summary("L1-1", 1, 2), carrying])
    config = replace(COMBINED, recall_envelope="xml", max_message_tokens=10)
    base = frozenset({Defect.COVERAGE_COUNTS_LEFT_OUT})
    held = compile_under(base, st, config, math.inf)
    floored = compile_under(base | {Defect.FLOOR_UNHELD}, st, config, math.inf)
    assert [e.summary_ids for e in held.entries if e.kind == "answer"] == [("L1-1",)]
    assert excess(carrying, st, config) > 0
    assert floored.stats.combined.tokens == held.stats.combined.tokens + excess(carrying, st, config)


# ----------------------------------------------------------------------------- estimator errors name their culprit


def _refuses_cut_text(text: str) -> float:
    """A custom estimator that accepts every original text and refuses any text the cap cut."""
    return math.nan if "[truncated" in text else len(text) / 3


@pytest.mark.parametrize(
    ("messages", "summaries", "config", "culprit"),
    [
        ((msg(0), Message("m1", "assistant", (Text(prose(100)),)), msg(2)), (), POSITIONED, "message 'm1'"),
        (tuple(msg(i) for i in range(4)), (summary("L1-1", 1, 2, content_tokens=100),), POSITIONED, "summary 'L1-1'"),
        (
            tuple(msg(i) for i in range(4)),
            (summary("L1-1", 1, 2, content_tokens=100),),
            COMBINED,
            "the combined recall pair",
        ),
    ],
    ids=["raw", "positioned", "combined"],
)
def test_a_bad_estimate_of_cut_text_names_what_it_belongs_to(messages, summaries, config, culprit) -> None:
    """Bad-value refusals: a bad estimator output on cut text (checked where it is called) names its message or summary,
    or, for the combined pair, the pair."""
    st = Store(messages=messages, summaries=summaries, text_estimator=_refuses_cut_text)
    with pytest.raises(InvalidConfigError, match=f"text of {culprit} ") as info:
        compile_with(SOUND, st, replace(config, max_message_tokens=20), math.inf)
    assert info.value.field == "text_estimator"


# ----------------------------------------------------------------------------- the tail


def test_tail_that_exactly_fits_is_sent_oldest_first(variant: str) -> None:
    """All four messages are tail; at a limit equal to their sum every one fits (strict ``>``), oldest first."""
    st = store(4)
    result = compile_with(variant, st, Config(recent_window_tokens=40, over_budget_grace_ratio=0), 40).result
    assert result is not None
    assert [e.message_id for e in result.entries] == ["m0", "m1", "m2", "m3"]
    assert result.stats.tail == RawBucket(4, 40)


def test_tail_evicts_the_first_that_does_not_fit_and_all_older(variant: str) -> None:
    """At 25: m3 (10), m2 (20) fit, m1 (30) does not; m1 and m0 are evicted and named, nothing else."""
    st = store(4)
    outcome = compile_with(variant, st, Config(recent_window_tokens=40, over_budget_grace_ratio=0), 25)
    assert isinstance(outcome.error, UncoveredDropError)
    assert outcome.error.dropped == ("m0", "m1")
    assert outcome.error.categories == {"m0": "in-tail-not-rendered", "m1": "in-tail-not-rendered"}


def _tail_item(i: int) -> Item:
    return Item(f"message 'm{i}' (tail)", (), 10, (), raw_ids=(f"m{i}",))


@pytest.mark.parametrize(
    ("limit", "accepted", "evicted"),
    [
        (25, ["m2", "m3"], ["m0", "m1"]),
        (45, ["m0", "m1", "m2", "m3"], []),
    ],
)
def test_accept_tail_returns_the_accepted_oldest_first(limit: int, accepted: list[str], evicted: list[str]) -> None:
    """``accept_tail`` accepts newest first but hands back the accepted in emission order (oldest first), with
    or without an eviction; the running total (5 already sent) counts against the limit."""
    run = Running(limit, total=5)
    got, dropped = accept_tail(run, [_tail_item(i) for i in range(4)], Config())
    assert [m for it in got for m in it.raw_ids] == accepted
    assert dropped == evicted


@given(
    prices=hs.lists(hs.integers(0, 30), min_size=1, max_size=8),
    total=hs.integers(0, 20),
    limit=hs.integers(0, 150),
)
def test_accept_tail_keeps_the_newest_run_that_fits_and_evicts_every_older_message(prices, total, limit) -> None:
    """Whatever the prices, the tail sent is its longest newest run that fits beside what is already sent, and
    every message older than that run is named evicted, in order."""
    items = [Item(f"message 'm{i}' (tail)", (), p, (), raw_ids=(f"m{i}",)) for i, p in enumerate(prices)]
    got, dropped = accept_tail(Running(limit, total=total), items, Config())
    k = next(k for k in range(len(prices) + 1) if k == len(prices) or total + sum(prices[k:]) <= limit)
    assert [m for it in got for m in it.raw_ids] == [f"m{i}" for i in range(k, len(prices))]
    assert dropped == [f"m{i}" for i in range(k)]


# ----------------------------------------------------------------------------- coverage


def test_coverage_names_summaries_the_xml_cap_left_out_as_unemitted() -> None:
    """Sound records only the held summaries (Coverage): the left-out summary's leaves are dropped as
    ``covered-by-unemitted-summary``."""
    st = store(6, [summary("L1-1", 1, 2), summary("L1-2", 3, 4)])
    outcome = compile_with(SOUND, st, replace(COMBINED, recall_envelope="xml", max_message_tokens=10), math.inf)
    assert isinstance(outcome.error, UncoveredDropError)
    assert outcome.error.dropped == ("m3", "m4")
    assert outcome.error.categories == {"m3": "covered-by-unemitted-summary", "m4": "covered-by-unemitted-summary"}


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        (
            (),
            {
                "m1": "covered-by-unemitted-summary",
                "m2": "covered-by-unemitted-summary",
                "m4": "not-covered",
                "m5": "in-tail-not-rendered",
            },
        ),
        (("L1-1",), {"m4": "not-covered", "m5": "in-tail-not-rendered"}),
    ],
)
def test_coverage_categories_take_the_first_that_applies(recorded: tuple[str, ...], expected: dict) -> None:
    """Coverage: evicted first (even when a summary covers it), then a leaf of an unrecorded unmerged summary,
    else not covered; sent raw or a leaf of a recorded summary is not dropped."""
    st = store(6, [summary("L1-1", 1, 2), summary("L1-2", 5, 5)])
    with pytest.raises(UncoveredDropError) as info:
        check_coverage(st, frozenset({"m0", "m3"}), [st.summary(s) for s in recorded], ["m5"])
    assert info.value.dropped == tuple(expected)
    assert info.value.categories == expected


def test_an_evicted_message_is_dropped_even_when_every_message_is_sent_or_covered() -> None:
    """Coverage: the ids of what is sent and covered may number every message and still lose one, when it was
    evicted from the tail though a recorded summary covers it."""
    st = store(3, [summary("L1-1", 2, 2)])
    with pytest.raises(UncoveredDropError) as info:
        check_coverage(st, frozenset({"m0", "m1"}), [st.summary("L1-1")], ["m2"])
    assert info.value.categories == {"m2": "in-tail-not-rendered"}


def test_emission_goes_head_middle_in_position_order_then_tail(variant: str) -> None:
    """Head, middle pair, raw middle, in position order, then the tail (Emission and the grace check), every variant."""
    st = store(5, [summary("L1-1", 1, 2)])
    result = compile_with(variant, st, replace(POSITIONED, recent_window_tokens=10), math.inf).result
    assert result is not None
    assert [(e.kind, e.message_id) for e in result.entries] == [
        ("raw", "m0"),
        ("question", None),
        ("answer", None),
        ("raw", "m3"),
        ("raw", "m4"),
    ]

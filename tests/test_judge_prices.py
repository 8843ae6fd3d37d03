"""The price invariants judged (``invariants/properties/prices.py``): stats-total, exact-budget, never-over and
nothing-lost each break on every named defect they exist to catch, switched on alone in ``sound`` over a small
store where it shows, and on hand-built wrong compiles no defect makes; each holds on ``sound`` there."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants import examples as known
from invariants.generators import Case, input_budget_for, with_large_level_budgets
from invariants.generators import cases as drawn_cases
from invariants.properties import UNLIMITED, Violation, compile_once, entries_text
from reference.model import Budget, Config, Entry, Message, Store, Summary, Text
from reference.numerics import is_number
from reference.price import reference_price
from strategies import HierarchicalStrategy
from strategies.defects import Defect
from strategies.errors import InvalidConfigError
from strategies.stats import Total
from tests import judge_cases as cases
from tests.builders import carriers, store, summary
from tests.builders import exact_budget as exact_price
from tests.judge_helpers import broken, judged, tamper, with_entries

#: (invariant, defect, case, words of the message): each defect alone breaks the invariant on the case.
DEFECT_BREAKS = [
    ("stats-total", Defect.COMBINED_STATS_TOKENS, known.COMBINED_ORDER_ACROSS_BUDGETS, "the stats' total is"),
    ("stats-total", Defect.QUESTION_PRICED_AS_LABEL, cases.scenario("305-question-priced-as-label"), "question"),
    ("stats-total", Defect.RAW_CAP_PLUS_50, known.RAW_CAP_BELOW_SENT, "raw m0"),
    ("stats-total", Defect.ANSWER_PRICED_UNCAPPED, cases.CAPPED_ENVELOPE, "answer L1-0"),
    ("stats-total", Defect.ENVELOPE_ABSORBED, cases.scenario("305-envelope-absorbed"), "the stats' total is"),
    ("stats-total", Defect.COMBINED_NO_FLOOR, cases.scenario("floor-combined-measured"), "combined"),
    ("stats-total", Defect.VIEW_NEVER_BOUND, cases.scenario("view-positioned-pair"), "the stats' total is"),
    ("stats-total", Defect.EMPTY_CARRIERS_FLOOR, cases.EMPTY_CARRIERS, "is 36"),
    ("stats-total", Defect.STAMPS_VERBATIM, known.NAN_STAMP, "nan"),
    ("stats-total", Defect.TOOL_PASSES_UNPRICED, cases.STUB_AFTER_CALL, "repair"),
    ("stats-total", Defect.TAIL_PRICED_PRE_STRIP, cases.TAIL_IMAGES, "raw m0"),
    ("stats-total", Defect.IMAGE_COUNT_STORE_WIDE, cases.MIDDLE_IMAGE, "raw m0"),
    ("never-over", Defect.COMBINED_UNCHECKED, known.COMBINED_OVER_GRACE, "grace limit 20"),
    ("never-over", Defect.COMBINED_NO_FLOOR, cases.scenario("floor-combined-measured"), "over the grace limit"),
    ("never-over", Defect.RAW_CAP_PLUS_50, known.RAW_CAP_BELOW_SENT, "reference price 152 is over the grace limit 146"),
    ("never-over", Defect.VIEW_NEVER_BOUND, cases.scenario("view-positioned-pair"), "over the grace limit"),
    ("never-over", Defect.IMAGE_COUNT_STORE_WIDE, cases.MIDDLE_IMAGE, "grace limit 30"),
    ("never-over", Defect.TOOL_PASSES_UNPRICED, cases.STUB_AFTER_CALL, "reference price 67 is over the grace limit 46"),
    ("never-over", Defect.ENVELOPE_ABSORBED, cases.scenario("305-envelope-absorbed"), "over the grace limit"),
    ("never-over", Defect.QUESTION_PRICED_AS_LABEL, cases.scenario("305-question-priced-as-label"), "grace limit"),
    ("never-over", Defect.STAMPS_VERBATIM, known.NAN_STAMP, "grace limit 5"),
    ("never-over", Defect.UNCHECKED_BAD_VALUES, cases.NAN_BUDGET, "grace limit nan"),
    ("nothing-lost", Defect.COVERAGE_COUNTS_LEFT_OUT, known.COMBINED_LEAVES_ONE_OUT, "m1 (answers hold ['L1-0'])"),
    ("nothing-lost", Defect.TRIM_DROPS_TRAILING_TOOL_USE, cases.TRAILING_CALL, "1 of 2 messages"),
    ("nothing-lost", Defect.BLANK_SUMMARIES_SELECTED, cases.BLANK_IN_COMBINED, ": m1 (answers hold ['L1-0', 'L1-1'])"),
    ("exact-budget", Defect.COMBINED_SELECTION_ORDER, known.COMBINED_ORDER_ACROSS_BUDGETS, "other entries"),
    ("exact-budget", Defect.DEEP_WINDOW_CANDIDATES, known.DEEP_SUMMARY_IN_THE_TAIL, "at input budget"),
    ("exact-budget", Defect.QUESTION_PRICED_AS_LABEL, known.ONE_PAIR, "should send them again"),
    ("exact-budget", Defect.COMBINED_NO_FLOOR, cases.scenario("floor-combined-measured"), "at input budget"),
    ("exact-budget", Defect.TAIL_PRICED_PRE_STRIP, cases.TAIL_IMAGES, "should send them again"),
    ("exact-budget", Defect.EMPTY_CARRIERS_FLOOR, cases.EMPTY_CARRIERS, "raised OverBudgetError"),
]


@pytest.mark.parametrize(
    "invariant, defect, case, words", DEFECT_BREAKS, ids=[f"{i}-{d.name}" for i, d, _, _ in DEFECT_BREAKS]
)
def test_each_price_invariant_breaks_on_the_defects_it_exists_to_catch(invariant, defect, case, words):
    assert judged(invariant, case, "sound") == []
    broken(invariant, case, frozenset({defect}), words)


# ----------------------------------------------------------------------------- stats-total


def _off_by(delta):
    def change(result, b):
        stats = result.stats
        total = Total(stats.total.messages, stats.total.tokens + delta)
        return dataclasses.replace(result, stats=dataclasses.replace(stats, total=total))

    return change


@pytest.mark.proves("stats-total")
@pytest.mark.parametrize("delta", [1, -1])
def test_stats_total_breaks_on_a_total_one_token_off_either_way(monkeypatch, delta):
    case = Case(store(3), Config(), Budget(max_tokens=100))
    assert judged("stats-total", case) == []
    tamper(monkeypatch, sent=_off_by(delta))
    broken("stats-total", case, "sound", f"the stats' total is {30 + delta} tokens", "entries sent is 30")


@given(case=drawn_cases(), delta=st.integers(-3, 3).filter(bool))
def test_stats_total_breaks_on_any_drawn_send_whose_total_is_off(case, delta):
    """Whatever the store, config and budget, a send whose stats' total is a token or a few off the reference price
    of its entries breaks stats-total, naming both."""
    try:
        sent = HierarchicalStrategy(case.config, "sound")
        sent.initialize(case.store)
        total = sent.compile(case.budget).stats.total.tokens
    except Exception:  # a refusal or a bad config: stats-total judges sends only
        return
    if not math.isfinite(total) or abs(total) >= 2**53:  # past 2**53 a token more is the same double
        return
    assert judged("stats-total", case) == []
    with pytest.MonkeyPatch.context() as mp:
        tamper(mp, sent=_off_by(delta))
        found = judged("stats-total", case)
    assert any(f"the stats' total is {total + delta} tokens" in v.message for v in found), found


def _messages_off_by(delta):
    def change(result, b):
        stats = result.stats
        total = Total(stats.total.messages + delta, stats.total.tokens)
        return dataclasses.replace(result, stats=dataclasses.replace(stats, total=total))

    return change


#: Positioned and combined, each with a pair sent beside raw messages.
PAIR_SENT = (
    Case(store(5, [summary("L1-0", 1, 2)]), Config(), Budget(max_tokens=1000)),
    Case(store(5, [summary("L1-0", 1, 2)]), Config(positioned_recall_pairs=False), Budget(max_tokens=1000)),
)


@pytest.mark.parametrize("delta", [1, -1])
@pytest.mark.parametrize("case", PAIR_SENT, ids=["positioned", "combined"])
def test_stats_total_breaks_on_a_message_count_one_off_either_way(monkeypatch, case, delta):
    """Three raw messages and one pair: 5 messages; one more or one fewer (a pair counted once more per summary it
    holds, a raw message left out) breaks it."""
    assert judged("stats-total", case) == []
    tamper(monkeypatch, sent=_messages_off_by(delta))
    broken("stats-total", case, "sound", f"the stats' total counts {5 + delta} messages but the buckets count 5")


def _stub_not_counted(result, b):
    """The stub entry's owner counted as one message in its bucket and in the total (so the two agree)."""
    stats = result.stats
    raw = dataclasses.replace(stats.middle_raw, messages=stats.middle_raw.messages - 1)
    total = Total(stats.total.messages - 1, stats.total.tokens)
    return dataclasses.replace(result, stats=dataclasses.replace(stats, middle_raw=raw, total=total))


def test_stats_total_breaks_when_a_pairing_stub_entry_is_not_counted(monkeypatch):
    """m0's call is sent raw in the middle with the stub result the pairing repair made: two entries, so the
    middle_raw bucket counts 2 (docs/model.md, Stats); a bucket and total that both leave the stub out agree with
    each other but not with the 4 entries sent."""
    case = dataclasses.replace(cases.STUB_AFTER_CALL, budget=Budget(max_tokens=1000))
    assert judged("stats-total", case) == []
    tamper(monkeypatch, sent=_stub_not_counted)
    broken("stats-total", case, "sound", "the buckets count 3 messages", "but 4 entries are sent")


def test_the_stats_total_message_breaks_each_sum_down_into_numbers_that_add_up_to_it():
    """The charged buckets add up to the charge, and the entries' prices to the reference price it names."""
    case = cases.CAPPED_ENVELOPE
    v = broken("stats-total", case, frozenset({Defect.ANSWER_PRICED_UNCAPPED}))
    m = re.fullmatch(
        r"the stats' total is (\S+) tokens \(charged by bucket: (.*)\) but the reference price of the "
        r"(\d+) entries sent is (\S+) \(by entry: (.*)\)",
        v.message,
    )
    assert m, v.message
    total, buckets, count, price, by_entry = m.groups()
    assert sum(float(x.rsplit(" ", 1)[1]) for x in buckets.split(", ")) == float(total)
    assert sum(float(x.rsplit(" ", 1)[1]) for x in by_entry.split(", ")) == float(price)
    assert len(by_entry.split(", ")) == int(count)
    assert float(total) != float(price)


def test_the_stats_total_message_names_every_entry_or_their_sum(monkeypatch):
    case = Case(store(10), Config(), Budget(max_tokens=1000))
    tamper(monkeypatch, sent=_off_by(5))
    v = broken("stats-total", case, "sound", "entries sent is 100")
    by_entry = v.message.split("(by entry: ")[1].rstrip(")")
    assert by_entry.endswith("2 more 20")
    assert sum(float(x.rsplit(" ", 1)[1]) for x in by_entry.split(", ")) == 100


def test_the_stats_total_message_count_names_each_bucket_and_the_pairs(monkeypatch):
    """TWO_PAIRS sends m0 (head), two pairs, m5 (middle) and m6 (tail): 1 + 1 + 1 + 2 * 2 = 7; a total of 8 names
    each count."""
    case = cases.TWO_PAIRS
    assert judged("stats-total", case) == []
    tamper(monkeypatch, sent=_messages_off_by(1))
    assert judged("stats-total", case) == [
        Violation(
            "stats-total",
            "the stats' total counts 8 messages but the buckets count 7: head 1, middle_raw 1, tail 1 raw messages "
            "and 2 for each of the 2 recall pairs sent",
        )
    ]


def test_the_stats_total_message_names_the_buckets_that_miss_an_entry_sent(monkeypatch):
    """STUB_AFTER_CALL with the stub's owner left out of middle_raw (1, not 2) and of the total: the buckets count
    1 + 2 for the one pair = 3, the total agrees, but 4 entries are sent."""
    case = dataclasses.replace(cases.STUB_AFTER_CALL, budget=Budget(max_tokens=1000))
    tamper(monkeypatch, sent=_stub_not_counted)
    assert judged("stats-total", case) == [
        Violation(
            "stats-total",
            "the buckets count 3 messages (head 0, middle_raw 1, tail 0 raw messages and 2 for each of the 1 recall "
            "pairs sent) but 4 entries are sent",
        )
    ]


# ----------------------------------------------------------------------------- never-over

#: Five messages of 10, no summaries; a budget of 50 with 20 kept for the response: an input budget of 30.
RESERVED = Case(store(5), Config(), Budget(max_tokens=50, reserve_for_response=20))


@pytest.mark.proves("never-over")
def test_never_over_judges_against_the_input_budget_not_the_configured_one(monkeypatch):
    """A compile that eats the room kept for the response (it compiles against the configured budget) breaks it."""
    assert judged("never-over", RESERVED) == []
    tamper(monkeypatch, budget=lambda b: Budget(max_tokens=b.max_tokens))
    broken("never-over", RESERVED, "sound", "reference price 50 is over the grace limit 30", "input budget 30")


def test_never_over_holds_at_the_grace_limit_and_breaks_one_token_past_it(monkeypatch):
    """Three messages of 10 at an input budget of 29: the grace limit floor(29 * 1.02) = 29 < 30 refuses; sent
    anyway (the compile sees 30), it breaks; at 30 it holds."""
    at = Case(store(3), Config(), Budget(max_tokens=30))
    assert judged("never-over", at) == []
    under = Case(store(3), Config(), Budget(max_tokens=29))
    tamper(monkeypatch, budget=lambda b: Budget(max_tokens=30))
    assert judged("never-over", at) == []
    broken("never-over", under, "sound", "reference price 30 is over the grace limit 29")


def test_never_over_reads_the_grace_ratio(monkeypatch):
    """A grace ratio of 0.5 lifts an input budget of 20 to 30: three messages of 10 fit."""
    case = Case(store(3), Config(over_budget_grace_ratio=0.5), Budget(max_tokens=20))
    tamper(monkeypatch, budget=lambda b: Budget(max_tokens=math.inf))
    assert judged("never-over", case) == []
    tight = Case(store(3), Config(over_budget_grace_ratio=0.4), Budget(max_tokens=20))
    broken("never-over", tight, "sound", "over the grace limit 28")


def _half_token_more(s: Summary) -> Summary:
    """``s`` measured half a token more (when measured at all): a floored answer's price is then fractional."""
    t = s.tokens
    return dataclasses.replace(s, tokens=t + 0.5) if is_number(t) and math.isfinite(t) and t > 0 else s


@given(case=drawn_cases(), fractional=st.booleans())
def test_never_over_breaks_exactly_where_the_reference_price_passes_the_grace_limit(case, fractional):
    """Whatever is sent (compiled unlimited; with ``fractional``, every measured summary half a token more, so that a
    floored answer's price is fractional), judged at the smallest input budget whose grace limit covers its
    reference price it holds, and one token under it it breaks, naming the price."""
    config = dataclasses.replace(case.config, enforce_budget=True)
    st_ = case.store
    if fractional:
        st_ = dataclasses.replace(st_, summaries=tuple(map(_half_token_more, st_.summaries)))
        config = dataclasses.replace(config, carrier_policy="full")
    unlimited = compile_once(st_, config, UNLIMITED, "sound")
    if not unlimited.sent:  # a refusal or a bad config: never-over judges sends only
        return
    price = reference_price(unlimited.entries, st_, config)
    b = input_budget_for(price, max(0, config.over_budget_grace_ratio))
    if b is None or b == 0:
        return
    with pytest.MonkeyPatch.context() as mp:
        tamper(mp, budget=lambda _: Budget(max_tokens=math.inf))
        assert judged("never-over", Case(st_, config, Budget(max_tokens=b))) == []
        found = judged("never-over", Case(st_, config, Budget(max_tokens=b - 1)))
    assert any(f"reference price {price} is over the grace limit" in v.message for v in found), found


def test_never_over_holds_when_the_budget_is_not_enforced(monkeypatch):
    case = Case(store(3), Config(enforce_budget=False), Budget(max_tokens=5))
    assert judged("never-over", case) == []
    enforced = Case(store(3), Config(), Budget(max_tokens=5))
    tamper(monkeypatch, budget=lambda b: Budget(max_tokens=math.inf))
    broken("never-over", enforced, "sound", "grace limit 5")


# ----------------------------------------------------------------------------- nothing-lost

#: m0 (head), m1 and m2 (middle), m3 (tail): L1-b over m2 is a candidate, L1-0 over m1 is blank.
WITH_BLANK = Case(
    store(4, [dataclasses.replace(summary("L1-0", 1, 1), content=" \n "), summary("L1-b", 2, 2)]),
    Config(head_window_tokens=5, recent_window_tokens=5),
    Budget(max_tokens=10**6),
)


def _raw_as_answer(mid: str, sid: str):
    """The raw entry of ``mid`` sent as an answer holding ``sid`` instead."""

    def change(result, b):
        entries = tuple(
            Entry("Claude", e.content, "answer", None, (sid,)) if e.message_id == mid else e for e in result.entries
        )
        return dataclasses.replace(result, entries=entries)

    return change


def test_nothing_lost_breaks_when_a_middle_message_is_not_sent(monkeypatch):
    assert judged("nothing-lost", WITH_BLANK) == []
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, lambda k: r.entries[k].message_id != "m1"))
    broken("nothing-lost", WITH_BLANK, "sound", "1 of 4 messages", ": m1 (answers hold ['L1-b'])")


@pytest.mark.proves("nothing-lost")
def test_nothing_lost_does_not_count_a_blank_summary_as_representing_its_messages(monkeypatch):
    tamper(monkeypatch, sent=_raw_as_answer("m1", "L1-0"))
    broken("nothing-lost", WITH_BLANK, "sound", ": m1 (answers hold ['L1-0', 'L1-b'])")


def test_nothing_lost_counts_the_leaves_of_a_summary_an_answer_holds(monkeypatch):
    """The other direction: an answer holding a non-blank summary (an L2 through its L1s) represents its leaves."""
    deep = Case(
        store(
            4,
            [
                summary("L1-0", 1, 1, parent="L2-0"),
                summary("L1-1", 2, 2, parent="L2-0"),
                summary("L2-0", 1, 2, level=2, sources=["L1-0", "L1-1"]),
            ],
        ),
        Config(head_window_tokens=5, recent_window_tokens=5),
        Budget(max_tokens=10**6),
    )
    assert [e.summary_ids for e in judged_entries(deep) if e.kind == "answer"] == [("L2-0",)]
    assert judged("nothing-lost", deep) == []

    def l1_for_l2(r, b):
        entries = tuple(dataclasses.replace(e, summary_ids=("L1-0",)) if e.kind == "answer" else e for e in r.entries)
        return dataclasses.replace(r, entries=entries)

    tamper(monkeypatch, sent=l1_for_l2)
    broken("nothing-lost", deep, "sound", "1 of 4 messages", ": m2 (answers hold ['L1-0'])")


def judged_entries(case: Case) -> tuple[Entry, ...]:
    strategy = HierarchicalStrategy(case.config, "sound")
    strategy.initialize(case.store)
    return strategy.compile(case.budget).entries


# ----------------------------------------------------------------------------- exact-budget

#: Three messages of 10: unlimited, 30 tokens sent; B = 30 (floor(30 * 1.02) = 30), and at 29 it refuses.
THREE = Case(store(3), Config(), Budget(max_tokens=1))


#: Grace ratios at and around the default.
GRACES = st.sampled_from([0, 0.02, 0.1, 0.5, 1])


def _finite(change):
    return lambda b: change(b) if math.isfinite(b.max_tokens) else b


def test_exact_budget_breaks_when_the_smallest_budget_that_fits_refuses(monkeypatch):
    assert judged("exact-budget", THREE) == []
    tamper(monkeypatch, budget=_finite(lambda b: Budget(max_tokens=b.max_tokens - 1)))
    broken("exact-budget", THREE, "sound", "at input budget 30 (grace limit 30 >= 30) it should send them again")


@pytest.mark.proves("exact-budget")
def test_exact_budget_breaks_when_one_token_less_still_sends(monkeypatch):
    tamper(monkeypatch, budget=_finite(lambda b: Budget(max_tokens=b.max_tokens + 1)))
    broken("exact-budget", THREE, "sound", "at input budget 29 (grace limit 29 < 30", "it should refuse but it sends 3")


@given(texts=st.lists(st.sampled_from(["", "a", "ab", "hello", "a b c d e"]), min_size=1, max_size=3), grace=GRACES)
def test_exact_budget_breaks_when_one_token_less_still_sends_down_to_a_budget_of_zero(texts, grace):
    """However small the exact budget (a store of one short text fits in 1), the compile one token under it is
    judged: at 0 too, never below."""
    messages = tuple(Message(f"m{i}", ("user", "assistant")[i % 2], (Text(t),)) for i, t in enumerate(texts))
    case = Case(Store(messages), Config(over_budget_grace_ratio=grace), Budget(max_tokens=1))
    b = input_budget_for(exact_price(case.store, case.config), grace)
    with pytest.MonkeyPatch.context() as mp:
        tamper(mp, budget=_finite(lambda at: Budget(max_tokens=at.max_tokens + 1)))
        found = judged("exact-budget", case)
    if b >= 1:
        assert any(f"at input budget {b - 1} " in v.message and "should refuse" in v.message for v in found), found
    else:
        assert found == [], f"exact budget {b}: {found}"


def test_exact_budget_breaks_when_it_sends_other_entries_at_that_budget(monkeypatch):
    def reversed_when_limited(r, b):
        return r if math.isinf(b.max_tokens) else dataclasses.replace(r, entries=r.entries[::-1])

    tamper(monkeypatch, sent=reversed_when_limited)
    broken("exact-budget", THREE, "sound", "other entries than at an unlimited budget", "entry 0 differs")


@given(case=drawn_cases())
def test_exact_budget_breaks_on_any_drawn_send_whose_entries_change_order_at_that_budget(case):
    """Whatever is sent unlimited, a compile that sends as many entries at the exact budget but in another order
    breaks exact-budget: the entries are compared, not counted."""

    def reversed_when_limited(r, b):
        return r if math.isinf(b.max_tokens) else dataclasses.replace(r, entries=r.entries[::-1])

    config = dataclasses.replace(case.config, enforce_budget=True)
    big = with_large_level_budgets(config)
    unlimited = compile_once(case.store, big, UNLIMITED, "sound")
    if not unlimited.sent:  # nothing sent unlimited: exact-budget has nothing to judge
        return
    entries = unlimited.entries
    price = reference_price(entries, case.store, big)
    grace = max(0, config.over_budget_grace_ratio)
    if entries_text(entries) == entries_text(entries[::-1]) or input_budget_for(price, grace) is None:
        return  # no other order, or no exact budget to judge at
    with pytest.MonkeyPatch.context() as mp:
        tamper(mp, sent=reversed_when_limited)
        found = judged("exact-budget", Case(case.store, config, case.budget))
    assert any("other entries than at an unlimited budget" in v.message for v in found), found


def test_exact_budget_breaks_when_one_token_less_refuses_as_a_bad_config(monkeypatch):
    def bad(err, b):
        return InvalidConfigError("max_tokens", "made up") if math.isfinite(b.max_tokens) else err

    tamper(monkeypatch, refused=bad)
    broken("exact-budget", THREE, "sound", "should refuse over budget but raised InvalidConfigError")


def test_exact_budget_is_not_judged_when_the_budget_is_not_enforced(monkeypatch):
    free = Case(store(3), Config(enforce_budget=False), Budget(max_tokens=1))
    tamper(monkeypatch, budget=_finite(lambda b: Budget(max_tokens=b.max_tokens + 1)))
    assert judged("exact-budget", free) == []
    assert judged("exact-budget", THREE) != []


#: What every crash report ends with.
CRASHED = "crashed with RuntimeError: boom (only OverBudgetError, UncoveredDropError or InvalidConfigError may refuse)"


def _crash_when(max_tokens):
    """A compile that crashes instead of sending or refusing at one configured budget."""

    def change(outcome, b):
        if b.max_tokens == max_tokens:
            raise RuntimeError("boom")
        return outcome

    return change


@pytest.mark.parametrize(
    "max_tokens, where", [(math.inf, "at an unlimited budget"), (30, "at input budget 30"), (29, "at input budget 29")]
)
def test_exact_budget_reports_a_crash_at_each_budget_it_compiles_at(monkeypatch, max_tokens, where):
    """Unlimited, at the smallest budget that fits (30), one token less (29, where sound refuses): a crash at any of
    them is the one violation, naming where it crashed."""
    tamper(monkeypatch, sent=_crash_when(max_tokens), refused=_crash_when(max_tokens))
    assert judged("exact-budget", THREE) == [Violation("exact-budget", f"the compile {where} {CRASHED}")]


def test_exact_budget_holds_when_what_is_sent_unlimited_is_free():
    """One empty message, priced 0: the smallest budget that fits is 0, and there is no budget one token less."""
    free = Case(Store((Message("m0", "user", (Text(""),)),)), Config(), Budget(max_tokens=1))
    assert reference_price(judged_entries(free), free.store, free.config) == 0
    assert judged("exact-budget", free) == []


@pytest.mark.parametrize(
    "case, words",
    [
        (
            Case(Store((Message("m0", "user", (Text("a"),)),)), Config(), Budget(max_tokens=1)),
            "at input budget 0 (grace limit 0 < 1, the reference price of what it sends unlimited) it should refuse "
            "but it sends 1 entries priced 1 (stats total 1)",
        ),
        (
            THREE,
            "at input budget 29 (grace limit 29 < 30, the reference price of what it sends unlimited) it should "
            "refuse but it sends 3 entries priced 30 (stats total 30)",
        ),
        (
            Case(store(12), Config(), Budget(max_tokens=1)),
            "at input budget 117 (grace limit 119 < 120, the reference price of what it sends unlimited) it should "
            "refuse but it sends 12 entries priced 120 (stats total 120)",
        ),
        (
            Case(store(5, [summary("L1-0", 1, 2, tokens=40, carriers=carriers(10))]), Config(), Budget(max_tokens=1)),
            "at input budget 74 (grace limit 75 < 76, the reference price of what it sends unlimited) it should "
            "refuse but it sends 5 entries priced 76 (stats total 76)",
        ),
    ],
    ids=["price-1", "price-30", "price-120", "a-pair-at-its-measured-floor"],
)
def test_exact_budget_breaks_when_one_token_less_sends_whatever_the_price(monkeypatch, case, words):
    """Priced 1 (the smallest budget that fits is 1, one less is 0), 30, 120, or with a pair priced at its measured
    floor: sent one token below, it breaks, with the price and the charge of what it sent."""
    assert judged("exact-budget", case) == []
    tamper(monkeypatch, budget=_finite(lambda b: Budget(max_tokens=b.max_tokens + 1)))
    assert judged("exact-budget", case) == [Violation("exact-budget", words)]


def test_exact_budget_names_the_budget_refused_as_a_bad_config(monkeypatch):
    made_up = InvalidConfigError("max_tokens", "made up")
    tamper(monkeypatch, refused=lambda err, b: made_up if b.max_tokens == 29 else err)
    assert judged("exact-budget", THREE) == [
        Violation(
            "exact-budget",
            f"at input budget 29 it should refuse over budget but raised InvalidConfigError: {made_up}",
        )
    ]


#: Combined mode with two summaries over the middle: one answer holds both.
TWO_IN_ONE = Case(
    store(5, [summary("L1-0", 1, 1), summary("L1-1", 2, 2)]),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=1000),
)


@pytest.mark.parametrize(
    "case, by_entry",
    [
        (Case(Store(()), Config(), Budget(max_tokens=10)), "none"),
        (Case(store(8), Config(), Budget(max_tokens=1000)), ", ".join(f"raw m{i} 10" for i in range(8))),
        (TWO_IN_ONE, None),
    ],
    ids=["nothing-sent", "eight-entries", "an-answer-holding-two"],
)
def test_the_stats_total_message_prices_each_entry_by_its_label(monkeypatch, case, by_entry):
    """Nothing sent: none; eight entries: each named, nothing summed; an answer holding two summaries: both named."""
    tamper(monkeypatch, sent=_off_by(1))
    v = broken("stats-total", case, "sound", "the stats' total is")
    shown = v.message.split("(by entry: ")[1].removesuffix(")")
    if by_entry is not None:
        assert shown == by_entry
    else:
        assert "answer L1-0+L1-1 " in shown


def test_nothing_lost_does_not_count_a_message_id_on_an_entry_that_is_not_the_message_sent_raw(monkeypatch):
    """m1 sent as a repair entry carrying its id instead of raw: m1 is lost."""

    def as_repair(r, b):
        entries = tuple(dataclasses.replace(e, kind="repair") if e.message_id == "m1" else e for e in r.entries)
        return dataclasses.replace(r, entries=entries)

    tamper(monkeypatch, sent=as_repair)
    broken("nothing-lost", WITH_BLANK, "sound", "1 of 4 messages", ": m1 (answers hold ['L1-b'])")


def test_exact_budget_reads_a_negative_grace_ratio_as_zero_on_a_line_that_takes_it(monkeypatch):
    """A line that keeps bad values compiles with a grace ratio of -0.5 as with 0: the limits named are the budgets."""
    negative = Case(store(3), Config(over_budget_grace_ratio=-0.5), Budget(max_tokens=1))
    unchecked = frozenset({Defect.UNCHECKED_BAD_VALUES})
    assert judged("exact-budget", negative, unchecked) == []
    tamper(monkeypatch, budget=_finite(lambda b: Budget(max_tokens=b.max_tokens + 1)))
    broken("exact-budget", negative, unchecked, "at input budget 29 (grace limit 29 < 30")


def test_nothing_lost_lists_every_message_lost_and_says_when_no_answer_is_sent(monkeypatch):
    """Five raw messages, m1 and m3 not sent and no answer at all: both named, in store order, and 'nothing' held."""
    case = Case(store(5), Config(), Budget(max_tokens=1000))
    assert judged("nothing-lost", case) == []
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, lambda k: r.entries[k].message_id not in ("m1", "m3")))
    assert judged("nothing-lost", case) == [
        Violation(
            "nothing-lost",
            "2 of 5 messages are neither sent raw nor a leaf of a summary an answer holds: m1, m3 (answers hold "
            "nothing)",
        )
    ]

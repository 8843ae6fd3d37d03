"""The counterexample search (``find``), its polish of a failing case and how a case is described, on small fixed
stores: example tests (the property searches of ``tests/test_invariants.py`` stay out of mutmut's runs)."""

from __future__ import annotations

import json
import math
import time
import unittest
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from invariants import (
    INVARIANTS,
    Case,
    Counterexample,
    _budgets_for,
    _without_message,
    _without_summary,
    check,
    describe_case,
    find,
    polish,
)
from invariants import examples as known
from invariants.generators import unlimited_price
from invariants.properties import CHEAP_FIRST, Violation
from reference.errors import UnknownNameError
from reference.model import Budget, Config, Message, RedactedThinking, Store, Summary, Text, ToolUse, Work
from reference.scenario import load_scenario

MAIN, PR = "main-48bb87a1", "pr-8bb01ab8"


def _msgs(*ids: str) -> tuple[Message, ...]:
    return tuple(Message(i, "User", (Text(f"text of {i}"),)) for i in ids)


def _l1(sid: str, mid: str, parent: str | None = None, tokens: float | None = 5, **fields) -> Summary:
    return Summary(sid, 1, f"summary {sid}", tokens, 0, (mid,), (mid, mid), parent, **fields)


def _l2(sid: str, sources: tuple[str, ...], leaves: tuple[str, str]) -> Summary:
    return Summary(sid, 2, f"summary {sid}", 5, 1, sources, leaves)


def _whole(pred):
    """A break as ``polish`` is handed it: it is asked about whole cases only."""

    def broken(case: Case) -> bool:
        assert isinstance(case, Case)
        assert isinstance(case.store, Store) and isinstance(case.config, Config) and isinstance(case.budget, Budget)
        return pred(case)

    return broken


@contextmanager
def _stubbed(**broken_when) -> Iterator[None]:
    """Every invariant of the catalogue replaced: the one named (``never_over`` for never-over) is broken on a case
    and variant where its predicate holds, every other one holds."""
    preds = {name.replace("_", "-"): pred for name, pred in broken_when.items()}
    assert set(preds) <= set(INVARIANTS)

    def stub(name: str):
        def judge(store: Store, config: Config, budget: Budget, variant) -> list[Violation]:
            pred = preds.get(name)
            return [Violation(name, f"{name} broken")] if pred and pred(Case(store, config, budget), variant) else []

        return judge

    with pytest.MonkeyPatch.context() as mp:
        for name in INVARIANTS:
            mp.setitem(INVARIANTS, name, stub(name))
        yield


def _has(*ids: str):
    return lambda c, _v: {m.id for m in c.store.messages} >= set(ids)


@contextmanager
def _profile(**changes) -> Iterator[None]:
    """The loaded Hypothesis profile with ``changes``, for the block only."""
    before = settings.get_current_profile_name()
    settings.register_profile("judge-invariants-test", settings(settings.get_profile(before), **changes))
    settings.load_profile("judge-invariants-test")
    try:
        yield
    finally:
        settings.load_profile(before)


# ----------------------------------------------------------------------------- find


def test_find_without_an_invariant_reports_every_invariant_the_polished_case_breaks():
    found = find(None, MAIN, max_examples=10, strategy=st.just(known.NAN_STAMP))
    assert isinstance(found, Counterexample) and found.variant == MAIN
    case = (found.store, found.config, found.budget)
    assert found.violations == tuple(check(*case, MAIN))
    assert found.invariant == ", ".join(dict.fromkeys(v.invariant for v in found.violations))
    # The first invariant the search met broken (the cheapest) is the one the polish kept broken.
    assert INVARIANTS["stats-total"](*case, MAIN)
    # Polished: the thinking message alone, at a smaller budget than the edge's.
    assert len(found.store.messages) == 1 and found.budget.max_tokens < known.NAN_STAMP.budget.max_tokens


def test_find_with_a_named_invariant_reports_that_invariant_only():
    found = find("never-over", PR, max_examples=10, strategy=st.just(known.NAN_STAMP))
    assert found is not None and found.invariant == "never-over" and found.variant == PR
    assert found.violations and found.violations == tuple(
        INVARIANTS["never-over"](found.store, found.config, found.budget, PR)
    )
    assert find("never-over", "sound", max_examples=10, strategy=st.just(known.NAN_STAMP)) is None


def test_find_beyond_counts_only_what_the_variant_breaks_and_the_other_holds():
    # On the NaN stamp both variants break the same invariants; on the combined pair only main breaks.
    either = st.sampled_from([known.NAN_STAMP, known.COMBINED_OVER_GRACE])
    found = find(None, MAIN, max_examples=20, strategy=either, beyond=PR)
    assert found is not None
    assert [s.id for s in found.store.summaries] == ["L1-0"]  # the combined pair's case, not the NaN stamp's
    case = (found.store, found.config, found.budget)
    assert found.violations
    for v in found.violations:
        assert not INVARIANTS[v.invariant](*case, PR), v.invariant
    assert set(found.invariant.split(", ")) == {v.invariant for v in found.violations}
    broken_by_pr = {v.invariant for v in check(*case, PR)}
    assert {v.invariant for v in check(*case, MAIN)} - broken_by_pr == {v.invariant for v in found.violations}


def test_find_beyond_leaves_out_what_the_other_variant_breaks_too():
    """A combined pair of a NaN-priced summary: both variants break the stats' total, main the exact budget besides;
    beyond the pull request, main's counterexample reports only what the pull request holds."""
    store = Store(
        messages=(Message("m3", "User", (RedactedThinking(""),)),),
        summaries=(Summary("L1-1", 1, "read it", math.nan, 0, ("m3",), ("m3", "m3")),),
    )
    case = Case(store, Config(positioned_recall_pairs=False), Budget(max_tokens=20))
    found = find(None, MAIN, max_examples=1, strategy=st.just(case), beyond=PR)
    assert found is not None
    own = (found.store, found.config, found.budget)
    on_main, on_pr = ({v.invariant for v in check(*own, variant)} for variant in (MAIN, PR))
    assert "stats-total" in on_main & on_pr
    reported = {v.invariant for v in found.violations}
    assert reported == on_main - on_pr and reported


def test_find_beyond_a_variant_breaking_the_same_finds_nothing():
    assert find(None, MAIN, max_examples=10, strategy=st.just(known.NAN_STAMP), beyond=PR) is None
    assert find("never-over", MAIN, max_examples=10, strategy=st.just(known.COMBINED_OVER_GRACE), beyond=MAIN) is None
    found = find("never-over", MAIN, max_examples=10, strategy=st.just(known.COMBINED_OVER_GRACE), beyond=PR)
    assert found is not None and found.invariant == "never-over"
    assert {v.invariant for v in found.violations} == {"never-over"}


def test_find_names_an_unknown_invariant_as_an_invariant():
    with pytest.raises(UnknownNameError, match=r"^unknown invariant 'never-ovr'; did you mean 'never-over'\?"):
        find("never-ovr", MAIN, max_examples=10, strategy=st.just(known.NAN_STAMP))


@pytest.mark.parametrize("beyond", [None, "other"])
def test_find_without_an_invariant_judges_nothing_past_the_first_one_broken(beyond):
    """The search judges cheapest first and stops at the first invariant broken (then judges only that one): on a
    case that breaks the cheapest, every other invariant is judged once, for the report of the polished case. With
    ``beyond`` each side is judged whole, to leave out what the other breaks too: twice in the search, twice in the
    report."""
    judged: list[str] = []
    first = CHEAP_FIRST[0]

    def stub(name: str):
        def judge(store: Store, config: Config, budget: Budget, variant) -> list[Violation]:
            judged.append(name)
            return [Violation(name, "broken")] if name == first and variant == "stub" else []

        return judge

    case = Case(Store(_msgs("m0")), Config(), Budget(max_tokens=10**6))
    with pytest.MonkeyPatch.context() as mp:
        for name in INVARIANTS:
            mp.setitem(INVARIANTS, name, stub(name))
        found = find(None, "stub", max_examples=1, strategy=st.just(case), beyond=beyond)
    assert found is not None and found.invariant == first
    once = 1 if beyond is None else 4
    assert {name: judged.count(name) for name in CHEAP_FIRST[1:]} == dict.fromkeys(CHEAP_FIRST[1:], once)


def test_find_without_an_invariant_keeps_the_cheapest_one_found_broken():
    """Judged cheapest first, never-over is found broken (exact-budget, earlier in the catalogue, is dearer): the
    polish keeps never-over broken, dropping m0, and does not wander to m1's drop, which breaks exact-budget alone."""
    case = Case(Store(_msgs("m0", "m1")), Config(), Budget(max_tokens=10**6))
    with _stubbed(never_over=_has("m1"), exact_budget=_has("m0")):
        found = find(None, "stub", max_examples=10, strategy=st.just(case))
    assert found is not None and found.invariant == "never-over"
    assert [m.id for m in found.store.messages] == ["m1"]
    assert found.violations == (Violation("never-over", "never-over broken"),)


def test_find_beyond_keeps_the_first_invariant_in_the_catalogue_only_the_variant_breaks():
    """With ``beyond`` every invariant is judged: of those ``a`` alone breaks, stats-total comes first in the
    catalogue (never-over first by name)."""
    case = Case(Store(_msgs("m0", "m1")), Config(), Budget(max_tokens=10**6))

    def on_a(pred):
        return lambda c, v: v == "a" and pred(c, v)

    with _stubbed(stats_total=on_a(_has("m1")), never_over=on_a(_has("m0")), exact_budget=_has("m0", "m1")):
        found = find(None, "a", max_examples=10, strategy=st.just(case), beyond="b")
    assert found is not None and found.invariant == "stats-total"
    assert [m.id for m in found.store.messages] == ["m1"]


def test_find_searches_with_the_default_strategy():
    seen: list[Case] = []

    def judged(c: Case, _v) -> bool:
        seen.append(c)
        return False

    with _stubbed(never_over=judged):
        assert find("never-over", "sound", max_examples=1) is None
    assert seen and all(isinstance(c, Case) and isinstance(c.store, Store) for c in seen)


def test_find_searches_afresh_whatever_the_hypothesis_profile():
    """No deadline (a slow judge is no error), no example database read or written, its own phases (a profile
    replaying saved inputs only, like ``replay``, does not stop the search: Hypothesis would skip it)."""
    database = InMemoryExampleDatabase()

    def slow_below_five(c: Case, _v) -> bool:
        if c.budget.max_tokens >= 5:
            return True
        time.sleep(0.003)
        return False

    strategy = st.integers(0, 10).map(lambda i: Case(Store(()), Config(), Budget(max_tokens=i)))
    replaying = _profile(database=database, deadline=timedelta(milliseconds=1), phases=(Phase.reuse, Phase.shrink))
    with replaying, _stubbed(never_over=slow_below_five):
        try:
            found = find("never-over", "stub", max_examples=20, strategy=strategy)
        except unittest.SkipTest as skipped:
            pytest.fail(f"find ran no example: {skipped}")
    assert found is not None and found.budget == Budget(max_tokens=5)
    assert not database.data


def _drawn_by(max_examples: int | None, seed: int | None = 0) -> list[int]:
    """The examples a search that finds nothing draws, in order (None: find's default)."""
    drawn: list[int] = []
    empty = Case(Store(()), Config(), Budget(max_tokens=10))

    def case_of(i: int) -> Case:
        drawn.append(i)
        return empty

    given = {"max_examples": max_examples, "seed": seed}
    with _stubbed():
        found = find(
            "never-over",
            "sound",
            strategy=st.integers(0, 10**9).map(case_of),
            **{k: v for k, v in given.items() if v is not None},
        )
    assert found is None
    return drawn


def test_find_spreads_its_examples_over_independently_seeded_runs():
    """At most ``max_examples`` examples, over at most four runs of at least 100 each; each run starts afresh from
    the simplest example (0 here)."""
    for max_examples, runs in ((50, 1), (200, 2), (250, 2)):
        drawn = _drawn_by(max_examples)
        assert 0 < len(drawn) <= max_examples
        assert drawn.count(0) == runs, (max_examples, drawn.count(0))


def test_find_is_reproducible_by_its_seed():
    assert _drawn_by(20, seed=None) == _drawn_by(20, seed=0)
    assert _drawn_by(20, seed=1) == _drawn_by(20, seed=1)
    assert _drawn_by(20) != _drawn_by(20, seed=1)


def test_find_draws_at_most_three_hundred_examples_by_default():
    drawn = _drawn_by(None)
    assert 0 < len(drawn) <= 300
    assert drawn.count(0) == 3


# ----------------------------------------------------------------------------- polish: what it drops


def test_polish_drops_the_work_the_break_does_not_need():
    needed = Work("chunk", "queued", frozenset({"m1"}))
    store = Store(
        _msgs("m0", "m1"),
        work=(Work("chunk", "queued", frozenset({"m0"})), needed, Work("merge", "running", None)),
    )
    polished = polish(Case(store, Config(), Budget(max_tokens=0)), _whole(lambda c: needed in c.store.work))
    assert polished.store.work == (needed,)
    assert [m.id for m in polished.store.messages] == ["m1"]


def test_polish_drops_messages_and_summaries_a_kept_work_folds():
    """A kept work item no longer folds what is dropped: a chunk forgets a message, a merge a summary."""
    store = Store(
        _msgs("m0", "m1", "m2"),
        (_l1("L1-0", "m0"), _l1("L1-1", "m1")),
        work=(Work("chunk", "queued", frozenset({"m0", "m2"})), Work("merge", "queued", frozenset({"L1-0", "L1-1"}))),
    )

    def needs(c: Case) -> bool:
        kinds = {w.kind for w in c.store.work}
        return kinds == {"chunk", "merge"} and any(s.id == "L1-1" for s in c.store.summaries)

    polished = polish(Case(store, Config(), Budget(max_tokens=0)), _whole(needs))
    assert [m.id for m in polished.store.messages] == ["m1"]
    assert [s.id for s in polished.store.summaries] == ["L1-1"]
    assert [(w.kind, w.folds) for w in polished.store.work] == [
        ("chunk", frozenset()),
        ("merge", frozenset({"L1-1"})),
    ]


def test_polish_drops_a_parent_and_keeps_what_a_kept_parent_names():
    store = Store(
        _msgs("m0", "m1", "m2"),
        (_l1("L1-0", "m0", "L2-0"), _l1("L1-1", "m1", "L2-0"), _l2("L2-0", ("L1-0", "L1-1"), ("m0", "m1"))),
        work=(Work("chunk", "running", None), Work("merge", "running", None)),
    )
    needs_l1 = _whole(lambda c: any(s.id == "L1-1" for s in c.store.summaries) and len(c.store.work) == 2)
    polished = polish(Case(store, Config(), Budget(max_tokens=0)), needs_l1)
    assert [(s.id, s.parent_id) for s in polished.store.summaries] == [("L1-1", None)]
    assert [m.id for m in polished.store.messages] == ["m1"]
    needs_l2 = _whole(lambda c: any(s.id == "L2-0" for s in c.store.summaries) and len(c.store.work) == 2)
    polished = polish(Case(store, Config(), Budget(max_tokens=0)), needs_l2)
    assert [(s.id, s.parent_id) for s in polished.store.summaries] == [
        ("L1-0", "L2-0"),
        ("L1-1", "L2-0"),
        ("L2-0", None),
    ]
    assert [m.id for m in polished.store.messages] == ["m0", "m1"]


def test_polish_plainens_the_store_settings_and_config_the_break_does_not_need():
    store = Store(_msgs("m0"), calibration=2.0, pricing_epoch=0, text_estimator=len)
    config = Config(head_window_tokens=7, recent_window_tokens=9, summary_participant="Bot")
    polished = polish(
        Case(store, config, Budget(max_tokens=0)),
        _whole(lambda c: c.store.pricing_epoch == 0 and c.config.recent_window_tokens == 9),
    )
    assert (polished.store.calibration, polished.store.pricing_epoch, polished.store.text_estimator) == (1.0, 0, None)
    assert polished.config == Config(recent_window_tokens=9)
    assert polished.store.messages == ()


def test_polish_plainens_the_summary_fields_the_break_does_not_need():
    store = Store(
        _msgs("m0", "m1"),
        tuple(_l1(f"L1-{k}", f"m{k}", response_content=(Text("carried"),)) for k in range(2)),
    )
    needs = _whole(lambda c: len(c.store.summaries) == 2 and c.store.summaries[0].tokens == 5)
    polished = polish(Case(store, Config(), Budget(max_tokens=0)), needs)
    first, second = polished.store.summaries
    assert (first.id, first.tokens, first.response_content) == ("L1-0", 5, None)
    assert (second.id, second.response_content) == ("L1-1", None)
    assert math.isnan(second.tokens)  # no measured tokens: held as NaN


def test_polish_goes_on_past_a_summary_with_no_measured_tokens():
    """A summary's tokens None is held as NaN, plain already: polish still plainens the config and the budget."""
    store = Store(_msgs("m0"), (_l1("L1-0", "m0", tokens=None),))
    calls: list[Case] = []

    def needs(c: Case) -> bool:
        calls.append(c)
        return len(c.store.summaries) == 1

    polished = polish(Case(store, Config(head_window_tokens=3), Budget(max_tokens=10**6)), _whole(needs))
    assert polished.config == Config()
    assert polished.budget.max_tokens < 10**6
    assert len(calls) < 20


def test_polish_makes_at_most_forty_changes_by_default():
    store = Store(_msgs("m0"), work=tuple(Work("chunk", "queued", frozenset({"m0"})) for _ in range(45)))
    polished = polish(Case(store, Config(), Budget(max_tokens=0)), _whole(lambda c: c.store.messages != ()))
    assert len(polished.store.work) == 5
    assert len(polish(Case(store, Config(), Budget(max_tokens=0)), _whole(bool), rounds=3).store.work) == 42


# ----------------------------------------------------------------------------- polish: the budget


def test_polish_brings_a_needlessly_large_budget_down_to_the_store_price():
    store = Store(_msgs("m0", "m1"))
    price = unlimited_price(Store(_msgs("m1")), Config())
    fits = _whole(lambda c: c.budget.max_tokens >= price and "m1" in [m.id for m in c.store.messages])
    polished = polish(Case(store, Config(), Budget(max_tokens=10**6)), fits)
    assert [m.id for m in polished.store.messages] == ["m1"]
    assert polished.budget == Budget(max_tokens=price)


def test_polish_keeps_the_budget_when_no_lower_edge_breaks():
    store = Store(_msgs("m0"))
    price = unlimited_price(store, Config())
    over = _whole(lambda c: c.budget.max_tokens > price + 5)
    assert polish(Case(store, Config(), Budget(max_tokens=10**6)), over).budget == Budget(max_tokens=10**6)
    # An edge no lower than the case's budget is not taken, whatever else differs in it.
    start = Budget(max_tokens=price, reserve_for_response=1)
    assert polish(Case(store, Config(), start), _whole(lambda c: c.store.messages != ())).budget == Budget(price - 1)


def test_polish_tries_each_smaller_store_at_its_own_budget_edges():
    """A drop that moves the break's budget edge is taken at the smaller store's edge (here one below its price)."""
    store = Store(_msgs("m0", "m1"))

    def one_below_the_price(c: Case) -> bool:
        kept = "m1" in [m.id for m in c.store.messages]
        return kept and c.budget.max_tokens == unlimited_price(c.store, c.config) - 1

    start = Budget(max_tokens=unlimited_price(store, Config()) - 1)
    polished = polish(Case(store, Config(), start), _whole(one_below_the_price))
    assert [m.id for m in polished.store.messages] == ["m1"]
    assert polished.budget == Budget(max_tokens=unlimited_price(polished.store, Config()) - 1)


def _edges(price: int, grace: float) -> list[int]:
    """The price, one below it, the smallest budget whose grace limit admits the price, and one below that."""
    boundary = next(b for b in range(price + 1) if math.floor(b * (1 + grace)) >= price)
    return list(dict.fromkeys(x for x in (price, price - 1, boundary, boundary - 1) if x >= 0))


def test_the_budgets_polish_tries_are_the_case_budget_then_the_store_edges():
    own = Budget(max_tokens=7, reserve_for_response=2)
    for k, config in ((120, Config()), (500, Config(over_budget_grace_ratio=0.5))):
        store = Store(_msgs("m0"), text_estimator=lambda _text, k=k: k)
        price = unlimited_price(store, config)
        assert price == k
        assert _budgets_for(store, config, own) == [own] + [
            Budget(max_tokens=x) for x in _edges(k, 0.02 if k == 120 else 0.5)
        ]
    # A grace ratio that is no number counts as no grace at all.
    store = Store(_msgs("m0"), text_estimator=lambda _text: 120)
    assert _budgets_for(store, Config(over_budget_grace_ratio=math.nan), own) == [own, Budget(120), Budget(119)]
    # An empty store costs nothing: the edge is 0 alone.
    assert _budgets_for(Store(()), Config(), own) == [own, Budget(0)]


def test_no_budget_edges_for_a_price_that_is_not_a_safe_integer():
    own = Budget(max_tokens=7)
    for price in (math.inf, -math.inf, math.nan, 2**53, 1e16, "not a number"):
        store = Store(_msgs("m0"), text_estimator=lambda _text, p=price: p)
        assert _budgets_for(store, Config(), own) == [own], price
    store = Store(_msgs("m0"), text_estimator=lambda _text: 2**53 - 1)
    assert _budgets_for(store, Config(), own)[1] == Budget(2**53 - 1)


# ----------------------------------------------------------------------------- dropping one item


def test_a_message_a_summary_names_is_not_dropped():
    store = Store(_msgs("m0", "m1"), (_l1("L1-1", "m1"),))
    assert _without_message(store, "m1") is None
    dropped = _without_message(store, "m0")
    assert dropped is not None and [m.id for m in dropped.messages] == ["m1"]


def test_a_summary_a_parent_names_is_not_dropped():
    store = Store(
        _msgs("m0", "m1"),
        (_l1("L1-0", "m0", "L2-0"), _l2("L2-0", ("L1-0",), ("m0", "m0")), _l1("L1-1", "m1")),
    )
    assert _without_summary(store, "L1-0") is None
    dropped = _without_summary(store, "L1-1")
    assert dropped is not None and [s.id for s in dropped.summaries] == ["L1-0", "L2-0"]
    dropped = _without_summary(store, "L2-0")
    assert dropped is not None and [(s.id, s.parent_id) for s in dropped.summaries] == [
        ("L1-0", None),
        ("L1-1", None),
    ]


def test_message_and_summary_ids_are_separate():
    """A summary may share its id with a message: the message's summary does not pin the summary of that id."""
    store = Store(_msgs("m0", "L1-1"), (_l1("L1-0", "L1-1"), _l1("L1-1", "m0")))
    dropped = _without_summary(store, "L1-1")
    assert dropped is not None and [s.id for s in dropped.summaries] == ["L1-0"]


# ----------------------------------------------------------------------------- describing a case


def test_describe_case_gives_every_part_of_the_case():
    def text_of(n: int) -> tuple[Text, ...]:
        """Content whose repr is ``n`` characters."""
        bare = len(repr((Text(""),)))
        return (Text("x" * (n - bare)),)

    def str_of(n: int) -> str:
        return "y" * (n - 2)

    store = Store(
        (Message("m0", "User", text_of(110)), Message("m1", "Claude", text_of(111))),
        (
            Summary("L1-0", 1, str_of(40), 5, 0, ("m0",), ("m0", "m0"), "L2-0", text_of(61)),
            Summary("L1-1", 1, str_of(41), 3, 0, ("m1",), ("m1", "m1"), "L2-0", text_of(60)),
            Summary("L2-0", 2, "top", 9, 1, ("L1-0", "L1-1"), ("m0", "m1")),
        ),
        calibration=1.5,
        pricing_epoch=0,
        work=(Work("chunk", "queued", frozenset({"m1", "m0"})), Work("merge", "running", None)),
    )
    config = Config(head_window_tokens=5, summary_participant="Claude")
    shown = describe_case(store, config, Budget(max_tokens=100, reserve_for_response=10))

    def cut(x: object, limit: int) -> str:
        return repr(x)[: limit - 3] + "..."

    assert shown.split("\n") == [
        "store (calibration 1.5, epoch 0, estimator None):",
        f"  m0 User: {store.messages[0].content!r}",
        f"  m1 Claude: {cut(store.messages[1].content, 110)}",
        f"  L1-0 over ['m0'] [m0..m0] tokens=5 parent=L2-0 content={str_of(40)!r} "
        f"carriers={cut(store.summaries[0].response_content, 60)}",
        f"  L1-1 over ['m1'] [m1..m1] tokens=3 parent=L2-0 content={cut(str_of(41), 40)} "
        f"carriers={store.summaries[1].response_content!r}",
        "  L2-0 over ['L1-0', 'L1-1'] [m0..m1] tokens=9 content='top' carriers=None",
        "  work chunk queued folds=['m0', 'm1']",
        "  work merge running folds=None",
        "config: {'head_window_tokens': 5}",
        "budget: max_tokens=100, reserve_for_response=10",
    ]
    assert describe_case(Store(()), Config(), Budget(max_tokens=1)).split("\n") == [
        "store (calibration 1.0, epoch 1, estimator None):",
        "config: defaults",
        "budget: max_tokens=1, reserve_for_response=0",
    ]


def test_a_counterexample_describes_itself_and_its_scenario():
    store, config, budget = known.COMBINED_OVER_GRACE
    violations = tuple(INVARIANTS["never-over"](store, config, budget, MAIN))
    found = Counterexample("never-over", MAIN, store, config, budget, violations)
    case = describe_case(store, config, budget)
    assert (
        str(found)
        == found.describe()
        == (f"never-over breaks on {MAIN}:\n  " + "\n  ".join(v.message for v in violations) + "\n" + case)
    )
    assert found.message == "\n".join(v.message for v in violations)
    out = found.to_json()
    assert set(out) == {"invariant", "variant", "violations", "case", "scenario"}
    assert (out["invariant"], out["variant"], out["violations"], out["case"]) == (
        "never-over",
        MAIN,
        [v.message for v in violations],
        case,
    )
    back = load_scenario(out["scenario"])
    assert (back.store, back.config, back.budget, back.description) == (store, config, budget, None)
    json.dumps(out)


def test_a_counterexample_gives_each_violation_on_its_own_line():
    found = Counterexample(
        "never-over, selection",
        MAIN,
        Store(()),
        Config(),
        Budget(max_tokens=1),
        (Violation("never-over", "first"), Violation("selection", "second")),
    )
    assert found.message == "first\nsecond"
    assert found.describe().split("\n")[:3] == [f"never-over, selection breaks on {MAIN}:", "  first", "  second"]


def test_a_scenario_names_the_estimator_or_says_why_it_is_unavailable():
    store = Store(_msgs("m0"), text_estimator=len)
    found = Counterexample("never-over", MAIN, store, Config(), Budget(max_tokens=3), ())
    assert found.to_json()["scenario"]["description"] == f"text_estimator: {len!r}"
    odd = Store((Message("m0", "User", (ToolUse("t1", "f", {1, 2}),)),))
    scenario = Counterexample("never-over", MAIN, odd, Config(), Budget(max_tokens=3), ()).to_json()["scenario"]
    assert scenario == {"unavailable": "TypeError: Object of type set is not JSON serializable"}


def test_find_polishes_on_the_invariant_it_first_found_broken():
    """Without an invariant named, the polish keeps the first invariant found broken broken (here diagnostics-full,
    the only one main breaks on this edge): it does not wander to a plainer case breaking others."""
    found = find(None, MAIN, max_examples=10, strategy=st.just(known.PREFIX_AT_COMBINED))
    assert found is not None and found.invariant.split(", ")[0] == "diagnostics-full"
    assert INVARIANTS["diagnostics-full"](found.store, found.config, found.budget, MAIN)

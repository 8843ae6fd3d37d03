"""``invariants/reproduce.py`` on hand-built outcomes and small scenarios: how a value reads in a line (``fmt``,
``shown_apart``), what ``same`` tells apart, every line ``compare`` writes word for word, the text a failing verdict
shows, and ``expectation_of`` / ``expect_from`` / ``judge_variant`` (docs/model.md, Scenario files)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants import reproduce
from invariants.properties import Violation
from invariants.reproduce import (
    MISMATCH,
    Line,
    Observed,
    Verdict,
    compare,
    expect_from,
    expectation_of,
    fmt,
    judge_variant,
    observe,
    prepared,
    same,
    shown_apart,
)
from reference.config import Budget
from reference.expect import Expectation, Refuses, Sends
from reference.model import Message, Text, Work
from reference.scenario import load_scenario
from strategies import HierarchicalStrategy
from strategies.defects import Resumed

SEED = Path(__file__).resolve().parent / "scenarios" / "seed"
MAIN, PR = "main-48bb87a1", "pr-8bb01ab8"

SENT = Sends(entries=3, total=30, raw_ids=("m0", "m2"), summaries=(("L1-0",),), images=".I")
REFUSED = Refuses(
    error="OverBudgetError",
    site="positioned-pair",
    unit="selection-items",
    cleared_by=("compression",),
    head_tokens=10,
    middle_tokens=56,
    actual=66,
    refused=("L1-0",),
    budget=50,
    configured_budget=60,
    reserve_for_response=10,
    input_budget=50,
)


def _observed(sends=None, refuses=None, violations=(), outcome="-") -> Observed:
    return Observed("sound", sends, refuses, outcome, None if violations is None else tuple(violations))


def _rows(lines) -> list[tuple]:
    return [(ln.field, ln.expected, ln.actual, ln.ok) for ln in lines]


# ----------------------------------------------------------------------------- how a value reads


def test_fmt_writes_nothing_as_a_dash_and_a_string_as_it_is():
    assert fmt(None) == "-"
    assert fmt("head") == "head"
    assert fmt("") == ""


def test_fmt_writes_numbers_as_javascript_does():
    assert fmt(3) == "3"
    assert fmt(1.0) == "1"
    assert fmt(math.nan) == "NaN"


def test_fmt_writes_a_list_with_its_strings_quoted_as_json():
    assert fmt(("m0", "m2")) == '["m0", "m2"]'
    assert fmt([1.0, math.nan]) == "[1, NaN]"
    assert fmt(("é",)) == '["é"]'  # as it reads, not escaped
    assert fmt([None, True, False]) == "[null, true, false]"
    assert fmt([]) == "[]"
    assert fmt((("L1-0", "L1-1"), ())) == '[["L1-0", "L1-1"], []]'


def test_fmt_writes_a_mapping_key_by_key_in_one_order():
    assert fmt({"m2": "in-tail-not-rendered", "m1": 1.0}) == '{"m1": 1, "m2": "in-tail-not-rendered"}'
    assert fmt({}) == "{}"
    assert fmt({2: "b", "a": None}) == fmt({"a": None, 2: "b"})  # keys of two types still read in one order


def test_fmt_writes_a_block_as_its_type_and_fields():
    assert fmt((Text("hi"),)) == '[Text(text="hi", raw_item=null)]'
    assert fmt(Text("a", raw_item=[1.0])) == 'Text(text="a", raw_item=[1])'


def test_fmt_writes_any_other_value_as_python_does():
    assert fmt([b"x"]) == "[b'x']"
    assert fmt([Text]) == f"[{Text!r}]"  # a block type, not a block


# ----------------------------------------------------------------------------- same
#: The values an expectation or an observation holds: numbers (NaN too), text, None, and tuples, lists and
#: mappings of them.
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_infinity=True) | st.text("ab", max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text("mk", max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(a=VALUES, b=VALUES)
def test_same_is_reflexive_and_symmetric(a, b):
    assert same(a, a)
    assert same(a, b) == same(b, a), f"same({a!r}, {b!r}) is not same({b!r}, {a!r})"


@given(mapping=st.dictionaries(st.text("mk", max_size=2), VALUES, max_size=4), data=st.data())
def test_same_tells_a_mapping_from_it_with_a_key_more_or_a_value_changed(mapping, data):
    key = data.draw(st.text("mkz", min_size=1, max_size=3).filter(lambda k: k not in mapping), label="new key")
    value = data.draw(VALUES, label="its value")
    wider = {**mapping, key: value}
    assert not same(mapping, wider) and not same(wider, mapping), f"{mapping!r} against {wider!r}"
    if mapping:
        k = data.draw(st.sampled_from(sorted(mapping)), label="key changed")
        changed = {**mapping, k: [mapping[k]]}
        assert not same(mapping, changed) and not same(changed, mapping), f"{mapping!r} against {changed!r}"


def test_same_tells_true_from_one_and_true_from_false():
    assert not same(True, 1)
    assert not same(1, True)
    assert not same(True, False)
    assert same(False, False)


def test_same_compares_numbers_by_value_and_nan_equals_nan():
    assert same(1, 1.0)
    assert same(math.nan, math.nan)
    assert not same(math.nan, 1)
    assert same((1, (math.nan,)), [1.0, [math.nan]])
    assert not same((1, 2), (1,))


def test_same_compares_a_mapping_on_the_keys_of_both_sides():
    """An observed drop category the expectation leaves out is a difference, either way round."""
    assert same({"m1": "not-covered"}, {"m1": "not-covered"})
    assert not same({"m1": "not-covered"}, {"m1": "not-covered", "m2": "in-tail-not-rendered"})
    assert not same({"m1": "not-covered", "m2": "in-tail-not-rendered"}, {"m1": "not-covered"})
    dropped = Refuses(error="UncoveredDropError", categories={"m1": "not-covered", "m2": "in-tail-not-rendered"})
    lines = compare(Expectation(refuses=Refuses(categories={"m1": "not-covered"})), _observed(refuses=dropped))
    assert [line.field for line in lines if not line.ok] == ["refuses.categories"]


# ----------------------------------------------------------------------------- shown_apart


def test_shown_apart_shows_two_values_as_they_read():
    assert shown_apart("head", "middle-raw") == ("head", "middle-raw")
    assert shown_apart(("m0",), None) == ('["m0"]', "-")
    assert shown_apart(3, 3) == ("3", "3")


def test_shown_apart_leaves_alike_values_that_are_the_same_alone():
    assert shown_apart(1, 1.0) == ("1", "1")
    assert shown_apart(math.nan, math.nan) == ("NaN", "NaN")


def test_shown_apart_adds_the_types_where_two_values_read_alike():
    assert shown_apart(1, "1") == ("1 (int)", "1 (str)")
    assert shown_apart(("1",), (1,)) == ('["1"]', "[1]")  # apart already


def test_shown_apart_writes_python_where_even_the_types_read_alike():
    assert shown_apart(2**53, 2**53 + 1) == ("9007199254740992", "9007199254740993")


# ----------------------------------------------------------------------------- compare, line by line


def test_compare_writes_each_sends_field_against_the_observed_one():
    lines = compare(Expectation(sends=Sends(entries=4, raw_ids=("m0", "m2"))), _observed(sends=SENT))
    assert _rows(lines) == [
        ("outcome", "sends", "sends", True),
        ("sends.entries", "4", "3", False),
        ("sends.raw_ids", '["m0", "m2"]', '["m0", "m2"]', True),
    ]


def test_compare_names_the_outcome_that_happened():
    assert _rows(compare(Expectation(sends=Sends(entries=3)), _observed(refuses=REFUSED))) == [
        ("outcome", "sends", "refuses", False),
        ("sends.entries", "3", "-", False),
    ]
    assert _rows(compare(Expectation(refuses=Refuses(site="head")), _observed(sends=SENT))) == [
        ("outcome", "refuses", "sends", False),
        ("refuses.site", "head", "-", False),
    ]
    assert _rows(compare(Expectation(refuses=Refuses()), _observed(outcome="crashes: KeyError: 'x'"))) == [
        ("outcome", "refuses", "crashes", False),
    ]
    assert _rows(compare(Expectation(refuses=Refuses(error="OverBudgetError")), _observed(refuses=REFUSED))) == [
        ("outcome", "refuses", "refuses", True),
        ("refuses.error", "OverBudgetError", "OverBudgetError", True),
    ]


def test_compare_writes_each_pattern_the_message_must_match_against_the_message():
    refused = dataclasses.replace(REFUSED, message="Hierarchical emission overran the budget: 66 > 50")
    expectation = Expectation(refuses=Refuses(message_matches=("66 > 50", "^over")))
    assert _rows(compare(expectation, _observed(refuses=refused))) == [
        ("outcome", "refuses", "refuses", True),
        ("refuses.message_matches", "a message matching /66 > 50/", refused.message, True),
        ("refuses.message_matches", "a message matching /^over/", refused.message, False),
    ]
    assert _rows(compare(expectation, _observed(sends=SENT))) == [
        ("outcome", "refuses", "sends", False),
        ("refuses.message_matches", "a message matching /66 > 50/", "-", False),
        ("refuses.message_matches", "a message matching /^over/", "-", False),
    ]


def test_compare_writes_breaks_as_breaks_or_holds():
    observed = _observed(sends=SENT, violations=[Violation("never-over", "x"), Violation("stats-total", "y")])
    assert _rows(compare(Expectation(breaks=("never-over", "nothing-lost")), observed)) == [
        ("breaks never-over", "breaks", "breaks", True),
        ("breaks nothing-lost", "breaks", "holds", False),
    ]


def test_compare_writes_holds_with_what_broke():
    broken = _observed(sends=SENT, violations=[Violation("never-over", "x"), Violation("stats-total", "y")])
    assert _rows(compare(Expectation(holds=True), broken)) == [
        ("holds", "every invariant holds", "breaks never-over, breaks stats-total", False)
    ]
    assert _rows(compare(Expectation(holds=True), _observed(sends=SENT))) == [
        ("holds", "every invariant holds", "every invariant holds", True)
    ]


def test_an_expectation_with_nothing_to_compare_reports_the_outcome():
    assert _rows(compare(Expectation(), _observed(sends=SENT))) == [("outcome", "-", "sends", True)]
    assert _rows(compare(Expectation(), _observed(refuses=REFUSED))) == [("outcome", "-", "refuses", True)]
    assert _rows(compare(Expectation(), _observed())) == [("outcome", "-", "crashes", True)]
    assert len(compare(Expectation(holds=True), _observed(sends=SENT))) == 1


# ----------------------------------------------------------------------------- the text a verdict shows


def test_explain_marks_the_lines_that_disagree_and_lists_what_broke():
    observed = _observed(sends=SENT, violations=[Violation("never-over", "sent 31 > 30")], outcome="sends 3 entries")
    expectation = Expectation(sends=Sends(entries=4), breaks=("never-over",))
    verdict = Verdict("sound", expectation, observed, compare(expectation, observed))
    assert not verdict.ok
    assert verdict.explain() == (
        "sound: sends 3 entries\n"
        "  outcome: expected sends, got sends\n"
        f"  {MISMATCH} sends.entries: expected 4, got 3\n"
        "  breaks never-over: expected breaks, got breaks\n"
        "    [never-over] sent 31 > 30"
    )


def test_explain_without_invariants_checked():
    lines = (Line("outcome", "-", "refuses", True),)
    verdict = Verdict(MAIN, Expectation(), _observed(refuses=REFUSED, violations=None, outcome="refuses: E"), lines)
    assert verdict.ok
    assert verdict.explain() == f"{MAIN}: refuses: E\n  outcome: expected -, got refuses"


# ----------------------------------------------------------------------------- exporting


def test_expectation_of_a_send_pins_what_broke():
    observed = _observed(sends=dataclasses.replace(SENT, content=((Text("x"),),)), violations=[Violation("a", "1")])
    assert expectation_of(observed) == Expectation(
        sends=dataclasses.replace(SENT, images=None, content=None), breaks=("a",), holds=False
    )


def test_expectation_of_a_refusal_that_holds_leaves_the_budget_and_the_message_out():
    refused = dataclasses.replace(REFUSED, message="Hierarchical emission overran the budget: 66 > 50")
    assert expectation_of(_observed(refuses=refused)) == Expectation(
        refuses=dataclasses.replace(
            REFUSED, budget=None, configured_budget=None, reserve_for_response=None, input_budget=None
        ),
        breaks=None,
        holds=True,
    )


def test_expectation_of_an_outcome_without_invariants_checked_claims_nothing_of_them():
    assert expectation_of(_observed(sends=SENT, violations=None)).holds is False
    assert expectation_of(_observed(sends=SENT, violations=None)).breaks is None


def _seed(name: str):
    return load_scenario(SEED / f"{name}.scenario.json")


def test_expect_from_names_each_variant_where_all_three_differ():
    expect = expect_from(_seed("floor-positioned-measured"))
    assert list(expect) == [MAIN, PR, "sound"]
    assert expect["sound"] == Expectation(refuses=expect["sound"].refuses, holds=True)
    assert expect[MAIN].breaks != expect[PR].breaks and expect[MAIN].breaks and expect[PR].breaks


def test_expect_from_groups_the_faithful_variants_where_they_agree():
    expect = expect_from(load_scenario(SEED.parent / "reports" / "307-coverage-counts-left-out.scenario.json"))
    assert list(expect) == ["faithful", "sound"]
    assert expect["faithful"].sends is not None and expect["faithful"].breaks
    assert expect["sound"].refuses is not None and expect["sound"].holds
    assert expect_from(_seed("guard-nothing-after"), (MAIN, PR)) == {
        MAIN: expect_from(_seed("guard-nothing-after"), (MAIN,))[MAIN],
        PR: expect_from(_seed("guard-nothing-after"), (PR,))[PR],
    }


def test_expect_from_groups_all_three_where_they_agree_and_only_then():
    sc = _seed("guard-nothing-after")
    sc = dataclasses.replace(sc, store=dataclasses.replace(sc.store, summaries=()), budget=Budget(10**6, 0))
    expect = expect_from(sc)
    assert list(expect) == ["all"]
    assert expect["all"].holds and expect["all"].sends.entries == 4
    assert expect_from(sc, ("sound",)) == {"sound": expect["all"]}
    assert expect_from(sc, (MAIN, PR)) == {"faithful": expect["all"]}
    assert expect_from(sc, (PR, "sound")) == {PR: expect["all"], "sound": expect["all"]}


def test_judge_variant_refuses_a_variant_the_scenario_says_nothing_of():
    sc = dataclasses.replace(_seed("guard-nothing-after"), expect={"sound": Expectation()})
    with pytest.raises(ValueError, match=f"the scenario expects nothing of {MAIN}"):
        judge_variant(sc, MAIN)


def test_judge_variant_returns_the_variant_its_expectation_and_what_it_did():
    expectation = Expectation(sends=Sends(entries=2), breaks=("stats-total",))
    sc = dataclasses.replace(_seed("guard-nothing-after"), expect={MAIN: expectation})
    verdict = judge_variant(sc, MAIN)
    assert verdict.variant == MAIN and verdict.observed.variant == MAIN
    assert verdict.expectation == expectation
    assert verdict.observed.sends.entries == 2 and "stats-total" in verdict.observed.breaks
    assert verdict.ok


def test_judge_variant_checks_the_invariants_only_when_the_expectation_speaks_of_them():
    sc = dataclasses.replace(_seed("guard-nothing-after"), expect={MAIN: Expectation(sends=Sends(entries=2))})
    assert judge_variant(sc, MAIN).observed.violations is None


# ----------------------------------------------------------------------------- observing


def test_observe_words_a_send_and_a_refusal():
    sc = _seed("guard-nothing-after")  # at 21 tokens main sends 22, sound refuses at the pair
    sent = observe(sc, MAIN)
    assert (sent.variant, sent.outcome) == (MAIN, "sends 2 entries, stats total 10")
    refused = observe(sc, "sound")
    assert refused.variant == "sound" and refused.sends is None and refused.refuses.error == "OverBudgetError"
    assert refused.outcome.startswith("refuses: OverBudgetError: ") and refused.outcome != "refuses: OverBudgetError: "


class _Crashing(HierarchicalStrategy):
    def compile(self, budget, dry_run=False):
        raise KeyError("boom")


def test_observe_reports_a_crash_as_an_outcome():
    sc = _seed("guard-nothing-after")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reproduce, "HierarchicalStrategy", _Crashing)
        crashed = observe(sc, "sound")
        unchecked = observe(sc, "sound", invariants=False)
    assert crashed == Observed("sound", None, None, "crashes: KeyError: 'boom'", ())
    assert unchecked.violations is None


def test_an_earlier_compile_that_refuses_leaves_the_store_as_it_was():
    guard = _seed("guard-nothing-after")
    assert observe(dataclasses.replace(guard, compiles_before=(4,)), "sound").refuses.error == "OverBudgetError"
    report = load_scenario(SEED.parent / "reports" / "307-coverage-counts-left-out.scenario.json")
    assert observe(dataclasses.replace(report, compiles_before=(6,)), "sound").refuses.error == "UncoveredDropError"
    bad = dataclasses.replace(guard, budget=Budget(-1, 0), compiles_before=(1,))
    assert observe(bad, "sound").refuses == Refuses(error="InvalidConfigError", field="max_tokens")


PRUNES = SEED.parent / "typescript-bugs" / "prune-writes-store.scenario.json"
HYSTERESIS = "hysteresis-a95eb55b"


def test_an_earlier_compile_that_rewrites_the_store_is_carried_to_the_next():
    """On the hysteresis line a compile writes its pruning into the store: a second compile charges the pruned
    bytes, as sound does (108), where a first one charges the uncapped input (236)."""
    sc = load_scenario(PRUNES)
    assert observe(sc, HYSTERESIS).sends.total == 236
    again = dataclasses.replace(sc, compiles_before=(len(sc.store.messages),))
    assert observe(again, HYSTERESIS).sends.total == observe(again, "sound").sends.total == 108
    assert observe(dataclasses.replace(sc, compiles_before=(1,)), HYSTERESIS).sends.total == 236


def test_a_carried_store_keeps_its_calibration_and_estimator():
    sc = load_scenario(PRUNES)
    question = Message("q", "User", (Text("hello there, friend"),))
    for calibration, estimator in ((2.0, None), (1.0, lambda _: 50)):
        store = dataclasses.replace(
            sc.store, messages=(question, *sc.store.messages), calibration=calibration, text_estimator=estimator
        )
        plain = dataclasses.replace(sc, store=store, compiles_before=(1,))
        again = dataclasses.replace(sc, store=store, compiles_before=(len(store.messages),))
        sound = observe(plain, "sound").sends.total
        assert observe(plain, HYSTERESIS).sends.total != sound  # the first compile charges the uncapped input
        assert observe(again, HYSTERESIS).sends.total == sound


def test_a_carried_store_keeps_its_queued_work():
    """Work queued on a message the refusal names still clears it after an earlier compile rewrote the store."""
    sc = load_scenario(PRUNES)
    store = dataclasses.replace(
        sc.store,
        messages=(*sc.store.messages, Message("u", "Claude", (Text("x" * 400),))),
        work=(Work("chunk", "queued", frozenset({"u"})),),
    )
    config = dataclasses.replace(sc.config, recent_window_tokens=0)
    again = dataclasses.replace(sc, store=store, config=config, budget=Budget(240, 0), compiles_before=(2,))
    refused = observe(again, HYSTERESIS, invariants=False).refuses
    assert (refused.refused, refused.cleared_by) == (("u",), ("compression",))


def test_a_single_compile_is_judged_by_its_variant_and_a_later_one_from_where_the_earlier_left_the_strategy():
    """``prepared``: the judges of a file without earlier compiles get its variant as named; after earlier compiles
    (the hysteresis watermark they set) they get its switches resumed from that strategy's state."""
    single = load_scenario(SEED / "view-positioned-pair.scenario.json")
    assert not single.compiles_before
    assert prepared(single, MAIN).judged == MAIN
    later = load_scenario(SEED.parent / "typescript" / "hysteresis-count-cap-6.scenario.json")
    ready = prepared(later, "hysteresis-a95eb55b")
    assert ready.strategy.watermark is not None
    assert ready.judged == Resumed(ready.strategy.defects, ready.strategy.watermark)

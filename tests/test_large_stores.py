"""Stores past ten messages, where an id's string order and its position disagree (``m10`` sorts before ``m2``):
the sound compile holds every invariant on them, and a store read back from its scenario file is the same store."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import Case, cases, contents, draw_summary_tree, stores, with_large_level_budgets
from invariants.properties import UNLIMITED, InvariantViolation, assert_holds, check
from reference.model import Config, Message, Store
from reference.scenario import Scenario, dumps_scenario, loads_scenario

#: Stores of up to 14 messages for the round trip (with work, calibration and epoch): ids m10..m13 sort among m1..m2.
LARGE = 14


@st.composite
def long_stores(draw: st.DrawFn) -> Store:
    """11 to 24 messages of generated content under a generated summary tree: most trees have summaries on both
    sides of m10."""
    n = draw(st.integers(11, 24), label="messages")
    ids = [f"m{i}" for i in range(n)]
    messages = tuple(Message(m, ("user", "assistant")[i % 2], draw(contents)) for i, m in enumerate(ids))
    return Store(messages=messages, summaries=draw_summary_tree(draw, ids))


@given(case=cases(store_strategy=long_stores()))
def test_sound_holds_every_invariant_on_stores_past_ten_messages(case: Case):
    found = check(*case, "sound")
    if found:
        raise InvariantViolation(found, "variant sound", case=tuple(case))


@given(store=long_stores())
def test_the_combined_answer_holds_every_summary_in_chronological_order_past_ten_messages(store):
    """No window and room for every level: every summary with content joins the one combined answer."""
    config = with_large_level_budgets(Config(positioned_recall_pairs=False))
    assert_holds("chronological", store, config, UNLIMITED, "sound")


@given(store=stores(max_messages=LARGE))
def test_a_store_read_back_from_its_scenario_file_is_the_same_store(store):
    store = replace(store, text_estimator=None)  # a custom estimator cannot be written in JSON
    again = loads_scenario(dumps_scenario(Scenario(store))).store
    # repr is NaN-safe for stamps and measured tokens; work holds sets, whose repr order is not fixed
    assert repr(again.messages) == repr(store.messages)
    assert repr(again.summaries) == repr(store.summaries)
    assert again.work == store.work
    assert repr((again.calibration, again.pricing_epoch)) == repr((store.calibration, store.pricing_epoch))

"""The sound compile on a catalogue of example stores: it charges exactly the reference price of what it
sends, a dry run is the committing compile, and the pieces (windows, cap, recall rendering) follow docs/model.md."""

from __future__ import annotations

import math

import pytest
from builders import VARIANT_NAMES, carriers, compile_with, msg, sent_price, store, summary

from reference.model import Config, Document, Image, Message, Store, Text, Thinking, ToolResult, ToolUse, Work
from reference.price import reference_price
from strategies import HierarchicalStrategy, OverBudgetError, UncoveredDropError
from strategies.cap import OMITTED, text_only, truncate
from strategies.defects import Defects
from strategies.recall import combined_answer, header, open_tag, wrap
from strategies.windows import head_end, recent_start


def _mixed() -> Store:
    messages = (
        msg(0),
        Message("m1", "assistant", (Thinking("plan " * 20, "sig" * 40), ToolUse("t1", "read", {"path": "/a/b"}))),
        Message("m2", "user", (ToolResult("t1", "contents " * 30),)),
        Message(
            "m3",
            "user",
            (Image(), Text("what is this? 😀")),
        ),
        Message("m4", "assistant", (Document(), ToolResult("t2", (Text("nested"), Image(12))))),
        msg(5),
        msg(6),
        msg(7),
    )
    l1a = summary("L1-1", 1, 2, parent="L2-1", tokens=80, carriers=carriers())
    l1b = summary("L1-2", 3, 4, parent="L2-1")
    l2 = summary("L2-1", 1, 4, level=2, sources=("L1-1", "L1-2"), tokens=300, carriers=carriers(30))
    l1c = summary("L1-3", 5, 6, tokens=math.nan)
    return Store(
        messages=messages,
        summaries=(l1a, l1b, l2, l1c),
        work=(Work("chunk", "queued", frozenset({"m6"})),),
        calibration=1.1,
    )


CATALOGUE = {
    "plain": store(5, [summary("L1-1", 1, 3)]),
    "two-pairs": store(6, [summary("L1-1", 1, 2), summary("L1-2", 3, 4)]),
    "carriers": store(6, [summary("L1-1", 1, 2, tokens=500, carriers=carriers()), summary("L1-2", 3, 4)]),
    "mixed-blocks": _mixed(),
    "custom-estimator": store(5, [summary("L1-1", 1, 3)], text_estimator=lambda s: len(s) / 3),
    "epoch-0": Store(messages=(msg(0), Message("m1", "assistant", (Thinking("", "s" * 90),)), msg(2)), pricing_epoch=0),
}
CONFIGS = {
    "positioned": Config(head_window_tokens=10, recent_window_tokens=10),
    "combined": Config(positioned_recall_pairs=False, head_window_tokens=10),
    "xml-capped": Config(recall_envelope="xml", max_message_tokens=12, recall_header_template="[{level}:{id}]"),
    "live-strip": Config(carrier_policy="live-strip", max_message_tokens=40.5, recent_window_tokens=25),
    "no-grace": Config(over_budget_grace_ratio=0, enforce_budget=True),
}
BUDGETS = (math.inf, 1000, 150, 60, 0)


@pytest.mark.parametrize("config_name", CONFIGS)
@pytest.mark.parametrize("store_name", CATALOGUE)
def test_sound_charges_the_reference_price_of_what_it_sends(store_name, config_name):
    st, config = CATALOGUE[store_name], CONFIGS[config_name]
    sends = 0
    for budget in BUDGETS:
        outcome = compile_with("sound", st, config, budget)
        if outcome.sent:
            sends += 1
            assert outcome.result.stats.total.tokens == sent_price(outcome, st, config)
        else:
            assert isinstance(outcome.error, (OverBudgetError, UncoveredDropError))
    assert sends or store_name == "carriers" or config_name in ("combined", "xml-capped")


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("config_name", CONFIGS)
@pytest.mark.parametrize("store_name", CATALOGUE)
def test_dry_run_is_the_committing_compile(variant, store_name, config_name):
    st, config = CATALOGUE[store_name], CONFIGS[config_name]
    for budget in BUDGETS:
        dry = compile_with(variant, st, config, budget, dry_run=True)
        real = compile_with(variant, st, config, budget)
        assert repr(dry.result) == repr(real.result)  # repr: a faithful NaN total equals itself
        assert type(dry.error) is type(real.error) and str(dry.error) == str(real.error)


def test_sound_selection_is_the_same_at_every_budget_that_sends():
    st, config = CATALOGUE["mixed-blocks"], Config(positioned_recall_pairs=False)
    roomy = compile_with("sound", st, config, math.inf)
    price = sent_price(roomy, st, config)
    grace = math.floor(price / 1.02)
    for budget in range(int(grace) - 2, int(price) + 3):
        outcome = compile_with("sound", st, config, budget)
        if outcome.sent:
            assert outcome.result.entries == roomy.result.entries
            assert reference_price(outcome.result.entries, st, config) <= math.floor(budget * 1.02)


# ----------------------------------------------------------------------------- the pieces


def test_windows_follow_the_strict_running_sums():
    prices = [10, 10, 10, 10]
    assert head_end(prices, 0) == 0
    assert head_end(prices, 10) == 1  # 10 does not exceed 10; 20 does, at index 1
    assert head_end(prices, 100) == 4
    assert recent_start(prices, 0) == 4  # no <= 0 shortcut: the newest message exceeds 0
    assert recent_start([10, 0, 0], 0) == 1  # messages priced 0 at the end stay in the tail
    assert recent_start(prices, 15) == 3
    assert recent_start(prices, 1000) == 0


def test_truncate_cuts_text_keeps_other_blocks_and_never_drops_a_tool_result():
    content = (Text("a" * 30), Image(), Text("b" * 30), ToolResult("t", "c" * 30), Text("d"))
    out = truncate(content, 10)  # 40 characters
    assert out[0] == Text("a" * 30) and out[1] == Image()
    assert out[2].text.startswith("b" * 10 + "\n\n[truncated — original was 8 tokens]")
    assert out[3] == ToolResult("t", OMITTED)
    assert len(out) == 4  # the last Text is dropped
    assert truncate(content, None) is content and truncate(content, math.nan) is content
    assert truncate(content, math.inf) is content
    assert text_only((Text("abcde"), ToolUse("t", "n", {}))) == 2 + 1 + 20


def test_truncate_never_splits_a_surrogate_pair():
    out = truncate((Text("a" + "😀" * 10),), 0.5)  # two units: "a" and half of an emoji
    assert out[0].text.startswith("a\n\n[truncated")


def test_header_replaces_placeholders_in_one_pass():
    s = summary("L1-{level}", 1, 2)
    assert header(s, Config(recall_header_template="{id}|{level}|{first}..{last}"), Defects()) == "L1-{level}|1|m1..m2"


def test_envelope_wraps_first_and_last_text_or_adds_one():
    s = summary("L1-1", 1, 2)
    xml = Config(recall_envelope="xml")
    assert open_tag(s) == '<cm-recall id="L1-1" level="1" span="m1..m2">'
    one = wrap((Text("x"),), s, xml)
    assert one == (Text(open_tag(s) + "\nx\n</cm-recall>"),)
    reasoning = (Thinking("t", "s"),)
    assert wrap(reasoning, s, xml) == (*reasoning, Text(open_tag(s) + "\n</cm-recall>"))
    assert wrap((Text("x"),), s, Config()) == (Text("x"),)


def test_combined_flat_answer_holds_a_summary_cut_to_its_marker():
    a, b = summary("L1-1", 1, 2), summary("L1-2", 3, 4)
    answer = combined_answer((a, b), Config(positioned_recall_pairs=False, max_message_tokens=8))
    assert [s.id for s in answer.held] == ["L1-1"]
    answer = combined_answer((a, b), Config(positioned_recall_pairs=False, max_message_tokens=16))
    assert [s.id for s in answer.held] == ["L1-1", "L1-2"]


def test_strategy_refuses_to_compile_before_initialize():
    with pytest.raises(RuntimeError, match="initialize"):
        HierarchicalStrategy(Config()).compile(None)


def test_unknown_variant_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        HierarchicalStrategy(Config(), "nope")

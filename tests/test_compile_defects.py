"""The defects the seed leaves (docs/model.md, Known defects): each red on ``main`` and ``pr``, green on ``sound``.

Each test states what a correct compile does; the consequence it checks is the one a user meets
(a context sent over its budget, a refusal where it fits, a message lost, bytes that move).
"""

from __future__ import annotations

import math

import pytest
from builders import FAITHFUL, VARIANT_NAMES, carriers, compile_with, exact_budget, msg, sent_price, store, summary

from reference.model import (
    Budget,
    Config,
    Image,
    InvalidConfigError,
    Message,
    Store,
    Text,
    Thinking,
    Work,
)
from strategies import HierarchicalStrategy

pytestmark = pytest.mark.parametrize("variant", VARIANT_NAMES)

LABEL = "What do you remember from earlier?"
BASE = Config(over_budget_grace_ratio=0, head_window_tokens=10)


def with_(config: Config, **changes: object) -> Config:
    return Config(**{**config.__dict__, **changes})


def assert_refuses_one_below_its_price(variant: str, st: Store, config: Config) -> None:
    """At one token below what the sound compile sends, nothing may go out over the budget."""
    budget = exact_budget(st, config) - 1
    outcome = compile_with(variant, st, config, budget)
    if outcome.sent:
        price = sent_price(outcome, st, config)
        assert price <= budget, f"sent a context priced {price} at a budget of {budget}"


def assert_sends_at_its_price(variant: str, st: Store, config: Config) -> None:
    """At exactly what it sends, the compile sends (no phantom tokens)."""
    budget = exact_budget(st, config)
    outcome = compile_with(variant, st, config, budget)
    assert outcome.sent, f"refused at its own price {budget}: {outcome.error}"


@pytest.mark.red_on(*FAITHFUL)
def test_positioned_question_is_priced_as_the_header_sent(variant):
    config = with_(BASE, recall_header_template="[Recall {id} of messages {first} to {last}, at level {level}]")
    assert_refuses_one_below_its_price(variant, store(5, [summary("L1-1", 1, 3)]), config)


@pytest.mark.red_on(*FAITHFUL)
def test_positioned_answer_is_priced_as_the_cap_left_it(variant):
    st = store(5, [summary("L1-1", 1, 3, content_tokens=200)])
    assert_sends_at_its_price(variant, st, with_(BASE, max_message_tokens=12, recall_header_template=LABEL))


@pytest.mark.red_on(*FAITHFUL)
def test_envelope_tags_are_priced_when_the_floor_wins(variant):
    st = store(5, [summary("L1-1", 1, 3, tokens=500, carriers=carriers())])
    config = with_(BASE, recall_envelope="xml", recall_header_template=LABEL)
    assert_refuses_one_below_its_price(variant, st, config)


@pytest.mark.red_on(*FAITHFUL)
def test_combined_pair_never_loses_a_summary_the_cap_left_out(variant):
    st = store(6, [summary("L1-1", 1, 2), summary("L1-2", 3, 4)])
    config = with_(BASE, positioned_recall_pairs=False, recall_envelope="xml", max_message_tokens=10)
    outcome = compile_with(variant, st, config, math.inf)
    if outcome.sent:
        sent = {e.message_id for e in outcome.result.entries if e.kind == "raw"}
        held = {m for e in outcome.result.entries for s in e.summary_ids for m in st.leaves(s)}
        lost = [m.id for m in st.messages if m.id not in sent | held]
        assert not lost, f"sent a context that loses {lost}"


@pytest.mark.red_on(*FAITHFUL)
def test_head_refusal_names_no_compression(variant):
    st = store(5, [summary("L1-1", 1, 3)], [Work("chunk", "queued", frozenset({"m2"}))])
    err = compile_with(variant, st, BASE, 5).refusal()
    assert err.refused == ("m0",)
    assert err.diagnostics.cleared_by == frozenset()


@pytest.mark.red_on(*FAITHFUL)
def test_raw_message_under_a_cap_is_priced_as_sent(variant):
    messages = (msg(0), Message("m1", "user", (Image(), Text("b" * 400))), msg(2))
    st = Store(messages=messages)
    assert_refuses_one_below_its_price(variant, st, with_(BASE, head_window_tokens=0, max_message_tokens=10))


@pytest.mark.red_on(*FAITHFUL)
@pytest.mark.parametrize("stamp", [-400, math.nan], ids=["negative", "nan"])
def test_bad_stamps_are_priced_as_absent(variant, stamp):
    messages = (msg(0), Message("m1", "assistant", (Thinking("t" * 290, None, stamp), Text("ok"))), msg(2))
    st = Store(messages=messages)
    assert_refuses_one_below_its_price(variant, st, with_(BASE, head_window_tokens=0))


@pytest.mark.red_on(*FAITHFUL)
def test_combined_pair_stats_record_its_price(variant):
    st = store(5, [summary("L1-1", 1, 3)])
    config = with_(BASE, positioned_recall_pairs=False)
    result = compile_with(variant, st, config, math.inf).result
    assert result.stats.total.tokens == sent_price(compile_with(variant, st, config, math.inf), st, config)


@pytest.mark.red_on(*FAITHFUL)
@pytest.mark.parametrize(
    ("field", "budget", "config"),
    [
        ("max_tokens", Budget(max_tokens=math.nan), BASE),
        ("max_tokens", Budget(max_tokens=-1), BASE),
        ("reserve_for_response", Budget(max_tokens=100, reserve_for_response=200), BASE),
        ("reserve_for_response", Budget(max_tokens=100, reserve_for_response=math.inf), BASE),
        ("over_budget_grace_ratio", Budget(max_tokens=100), with_(BASE, over_budget_grace_ratio=math.nan)),
        ("recent_window_tokens", Budget(max_tokens=100), with_(BASE, recent_window_tokens=math.nan)),
    ],
    ids=["nan-budget", "negative-budget", "reserve-over-budget", "infinite-reserve", "nan-grace", "nan-window"],
)
def test_bad_values_are_refused_naming_the_field(variant, field, budget, config):
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store(5, [summary("L1-1", 1, 3)]))
    with pytest.raises(InvalidConfigError) as refused:
        strategy.compile(budget)
    assert refused.value.field == field


@pytest.mark.red_on(*FAITHFUL)
def test_bad_estimator_output_is_refused_naming_the_message(variant):
    st = store(3, text_estimator=lambda s: math.nan if s.startswith("a") else 1)
    strategy = HierarchicalStrategy(BASE, variant)
    strategy.initialize(st)
    with pytest.raises(InvalidConfigError, match="message 'm0'"):
        strategy.compile(Budget(max_tokens=1000))


@pytest.mark.red_on(*FAITHFUL)
def test_nan_measured_tokens_compile_as_zero(variant):
    """A NaN ``tokens`` reads as 0: it must not poison the waterfall's level total and let everything in."""

    def compiled(first_tokens: float) -> tuple:
        st = store(
            8,
            [
                summary("L1-x", 1, 2, tokens=first_tokens),
                summary("L1-z", 5, 6, tokens=70),
                summary("L1-y", 3, 4, tokens=10),
            ],
        )
        config = with_(BASE, positioned_recall_pairs=False, l1_budget_tokens=60, l2_budget_tokens=0, l3_budget_tokens=0)
        return compile_with(variant, st, config, math.inf).result.entries

    assert compiled(math.nan) == compiled(0)


@pytest.mark.red_on(*FAITHFUL)
def test_empty_carrier_list_does_not_floor(variant):
    st = store(5, [summary("L1-1", 1, 3, tokens=500, carriers=())])
    assert_sends_at_its_price(variant, st, with_(BASE, recall_header_template=LABEL))


@pytest.mark.red_on(*FAITHFUL)
def test_combined_answer_bytes_do_not_depend_on_the_budget(variant):
    # L1-2 is created first but covers later messages; the waterfall takes it first when it fits.
    st = store(6, [summary("L1-2", 3, 4, tokens=1000), summary("L1-1", 1, 2, tokens=5)])
    config = with_(BASE, positioned_recall_pairs=False)
    roomy = compile_with(variant, st, config, math.inf).result
    tight_budget = sent_price(compile_with("sound", st, config, math.inf), st, config)
    tight = compile_with(variant, st, config, tight_budget).result
    assert roomy is not None and tight is not None
    assert roomy.entries == tight.entries


@pytest.mark.red_on(*FAITHFUL)
def test_summaries_inside_the_head_are_not_sent_again(variant):
    l1a = summary("L1-1", 0, 1, parent="L2-1")
    l1b = summary("L1-2", 2, 2, parent="L2-1")
    l2 = summary("L2-1", 0, 2, level=2, sources=("L1-1", "L1-2"), tokens=200)
    st = Store(messages=tuple(msg(i) for i in range(6)), summaries=(l1a, l1b, l2))
    config = with_(BASE, head_window_tokens=30)
    result = compile_with(variant, st, config, math.inf).result
    raw = {e.message_id for e in result.entries if e.kind == "raw"}
    twice = [(s, m) for e in result.entries for s in e.summary_ids for m in sorted(st.leaves(s)) if m in raw]
    assert not any(all(m in raw for m in st.leaves(s)) for s, _ in twice), f"sent raw and recalled: {twice}"


@pytest.mark.red_on(*FAITHFUL)
def test_dry_run_leaves_the_memo_as_it_was(variant):
    strategy = HierarchicalStrategy(BASE, variant)
    strategy.initialize(store(5, [summary("L1-1", 1, 3)]))
    before = strategy.memo
    strategy.compile(Budget(max_tokens=math.inf), dry_run=True)
    assert strategy.memo == before

"""The store's estimator ``E`` and the fallback: worked values (docs/model.md, The estimator and the fallback)."""

from __future__ import annotations

import math

import pytest

from reference.estimator import (
    Pricing,
    calibrated_tokens,
    content_tokens,
    fallback_tokens,
    json_tokens,
    raw_price,
    store_pricing,
    text_tokens,
)
from reference.model import (
    Document,
    Image,
    Message,
    RedactedThinking,
    Store,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)

VERBATIM = Pricing(verbatim_stamps=True)
REFERENCE = Pricing()


def make_store(**kwargs) -> Store:
    return Store(messages=(Message(id="m1", participant="User", content=(Text("hi"),)),), **kwargs)


@pytest.fixture
def store() -> Store:
    return make_store()


# ----------------------------------------------------------------------------- text_tokens


def test_text_tokens_dense_string_uses_ieee_ceil():
    assert text_tokens("{" * 69) == 31  # 69 / 2.3 == 30.000000000000004


def test_text_tokens_prose():
    assert text_tokens("a" * 29) == 10  # 29 / 2.9 == 10.0
    assert text_tokens("a" * 30) == 11


def test_text_tokens_empty_is_zero():
    assert text_tokens("") == 0


def _with_dense(count: int, length: int = 100) -> str:
    return "{" * count + "a" * (length - count)


def test_density_of_exactly_twelve_percent_is_prose():
    assert text_tokens(_with_dense(12)) == 35  # ceil(100 / 2.9)


def test_density_above_twelve_percent_is_dense():
    assert text_tokens(_with_dense(13)) == 44  # ceil(100 / 2.3)


@pytest.mark.parametrize("ch", [*'{}[]":_/=`', "é", "\x7f"])
def test_each_dense_unit_counts(ch):
    assert text_tokens(ch * 13 + "a" * 87) == 44


def test_tilde_is_not_dense():
    assert text_tokens("~" * 13 + "a" * 87) == 35


def test_density_probes_only_the_first_2000_units():
    assert text_tokens("a" * 2000 + "{" * 1000) == 1035  # ceil(3000 / 2.9); the whole string would be 2.3


def test_astral_characters_are_two_dense_units():
    assert text_tokens("😀" * 10) == 9  # 20 units at 2.3


def test_json_tokens():
    assert json_tokens("") == 0
    assert json_tokens("abc") == 2  # ceil(3 / 2.3)
    assert json_tokens("a" * 23) == 10


# ----------------------------------------------------------------------------- reasoning blocks

SIG = "s" * 38  # 38 / 3.3 == 11.51..., js_round gives 12


def test_signed_empty_thinking_epoch0_prices_600():
    assert raw_price(Thinking("", signature=SIG), Pricing(epoch=0)) == 600


def test_signed_empty_thinking_epoch1_prices_by_signature():
    assert raw_price(Thinking("", signature=SIG), Pricing(epoch=1)) == 12


def test_signed_thinking_epoch1_takes_the_larger_of_text_and_signature():
    assert raw_price(Thinking("a" * 58, signature=SIG), Pricing(epoch=1)) == 20  # text 20 > signature 12
    assert raw_price(Thinking("a" * 29, signature=SIG), Pricing(epoch=1)) == 12


def test_signed_nonempty_thinking_epoch0_prices_its_text():
    assert raw_price(Thinking("a" * 29, signature=SIG), Pricing(epoch=0)) == 10


@pytest.mark.parametrize("sig", [None, ""])
def test_unsigned_thinking_prices_its_text(sig):
    assert raw_price(Thinking("a" * 29, signature=sig), Pricing(epoch=0)) == 10
    assert raw_price(Thinking("", signature=sig), Pricing(epoch=0)) == 0


def test_epoch_is_taken_from_the_store():
    content = (Thinking("", signature=SIG),)
    assert content_tokens(content, make_store(pricing_epoch=0)) == 600
    assert content_tokens(content, make_store(pricing_epoch=1)) == 12


def test_redacted_thinking_prices_data_length_over_six():
    assert raw_price(RedactedThinking("x" * 9), REFERENCE) == 2  # js_round(1.5)


@pytest.mark.parametrize("data", [None, ""])
def test_redacted_thinking_without_data_prices_600(data):
    assert raw_price(RedactedThinking(data), REFERENCE) == 600


# ----------------------------------------------------------------------------- other blocks


def test_tool_use_prices_its_json_input_plus_20():
    assert raw_price(ToolUse("t1", "read", {"a": 1}), REFERENCE) == 24  # '{"a":1}' is 7 units, ceil(7/2.3)=4


def test_tool_result_str_and_empty():
    assert raw_price(ToolResult("t1", "abc"), REFERENCE) == 2
    assert raw_price(ToolResult("t1", ""), REFERENCE) == 0
    assert raw_price(ToolResult("t1", ()), REFERENCE) == 0


def test_image_and_document():
    assert raw_price(Image(), REFERENCE) == 1600
    assert raw_price(Image(token_estimate=85), REFERENCE) == 85
    assert raw_price(Document(), REFERENCE) == 1000


# ----------------------------------------------------------------------------- calibration and rounding


def test_calibration_rounds_halves_up():
    # 10 * 1.05 == 10.5 exactly in doubles; Math.round gives 11 (Python's round would give 10).
    assert content_tokens((Text("a" * 29),), make_store(calibration=1.05)) == 11


def test_nested_tool_result_is_rounded_once():
    nested = (ToolResult("t1", (Text("a" * 29), Text("a" * 29))),)
    flat = (Text("a" * 29), Text("a" * 29))
    s = make_store(calibration=1.05)
    assert content_tokens(nested, s) == 21  # js_round(20 * 1.05) == 21
    assert content_tokens(flat, s) == 22  # per top-level block: 11 + 11


@pytest.mark.parametrize("bad", [0.25, 4, 4.0, 0.1, -1, 0, math.nan, math.inf, -math.inf, True])
def test_store_rejects_bad_calibration(bad):
    s = make_store(calibration=bad)
    assert s.calibration == 1.0
    assert content_tokens((Text("a" * 29),), s) == 10


def test_store_accepts_calibration_inside_the_open_interval():
    assert make_store(calibration=0.26).calibration == 0.26
    assert make_store(calibration=3.99).calibration == 3.99


@pytest.mark.parametrize("bad", [0.25, 4, math.nan, math.inf])
def test_with_calibration_keeps_the_old_value_when_rejected(bad):
    s = make_store(calibration=2.0)
    assert s.with_calibration(bad).calibration == 2.0


def test_with_calibration_accepts_a_good_value(store):
    s2 = store.with_calibration(2.0)
    assert s2.calibration == 2.0
    assert store.calibration == 1.0
    assert content_tokens((Text("a" * 29),), s2) == 20


# ----------------------------------------------------------------------------- stamps


@pytest.mark.parametrize("stamp", [math.nan, -5, -0.5, math.inf, -math.inf])
def test_reference_rule_treats_bad_thinking_stamp_as_absent(stamp, store):
    block = Thinking("a" * 29, token_estimate=stamp)
    assert content_tokens((block,), store) == 10


def test_verbatim_rule_uses_any_stamp():
    assert raw_price(Thinking("a" * 29, token_estimate=-5), VERBATIM) == -5
    assert math.isnan(raw_price(Thinking("a" * 29, token_estimate=math.nan), VERBATIM))
    assert math.isnan(raw_price(RedactedThinking("x" * 9, token_estimate=math.nan), VERBATIM))
    assert math.isnan(raw_price(Image(token_estimate=math.nan), VERBATIM))


def test_good_stamps_are_used_by_both_rules(store):
    for rule in (REFERENCE, VERBATIM):
        assert raw_price(Thinking("a" * 29, token_estimate=0), rule) == 0
        assert raw_price(Thinking("", signature=SIG, token_estimate=3), rule) == 3
        assert raw_price(RedactedThinking("x" * 9, token_estimate=7), rule) == 7


@pytest.mark.parametrize("estimate", [math.nan, -1])
def test_reference_rule_treats_bad_image_estimate_as_default(estimate, store):
    assert content_tokens((Image(token_estimate=estimate),), store) == 1600


def test_reference_rule_treats_bad_redacted_stamp_as_absent(store):
    assert content_tokens((RedactedThinking("x" * 9, token_estimate=-3),), store) == 2


# ----------------------------------------------------------------------------- custom estimator


@pytest.fixture
def counting_store():
    calls: list[str] = []

    def estimate(s: str) -> int:
        calls.append(s)
        return 7

    return make_store(text_estimator=estimate), calls


def test_custom_estimator_prices_text_and_thinking(counting_store):
    s, calls = counting_store
    assert content_tokens((Text("hello"), Thinking("hmm")), s) == 14
    assert calls == ["hello", "hmm"]


def test_custom_estimator_is_called_on_empty_text(counting_store):
    s, calls = counting_store
    assert content_tokens((Text(""),), s) == 7
    assert calls == [""]


def test_custom_estimator_reaches_inside_a_tool_result(counting_store):
    s, calls = counting_store
    assert content_tokens((ToolResult("t1", (Text("abc"), Thinking("x"))),), s) == 14
    assert calls == ["abc", "x"]


def test_custom_estimator_not_used_for_a_str_tool_result(counting_store):
    s, calls = counting_store
    assert content_tokens((ToolResult("t1", "abc"),), s) == 2  # json_tokens, not 7
    assert calls == []


def test_custom_estimator_not_used_for_redacted_or_signature(counting_store):
    s, calls = counting_store
    assert content_tokens((RedactedThinking("x" * 9),), s) == 2
    assert calls == []


# ----------------------------------------------------------------------------- fallback


def test_fallback_ignores_non_text_blocks():
    content = (
        Text("a" * 29),
        ToolUse("t1", "read", {"a": 1}),
        ToolResult("t1", (Text("a" * 29),)),
        ToolResult("t2", "abc"),
        Image(),
        Document(),
    )
    assert fallback_tokens(content) == 10


def test_fallback_prices_reasoning_with_epoch1_and_verbatim_stamps():
    assert fallback_tokens((Thinking("", signature=SIG),)) == 12
    assert fallback_tokens((Thinking("a" * 29, token_estimate=-4),)) == -4
    assert fallback_tokens((RedactedThinking("x" * 9),)) == 2


def test_fallback_neither_calibrates_nor_rounds():
    content = (Thinking("", token_estimate=2.5), Thinking("", token_estimate=2.5))
    assert fallback_tokens(content) == 5.0  # per-block rounding would give 6
    assert content_tokens((Text("a" * 29),), make_store(calibration=2.0)) == 20
    assert fallback_tokens((Text("a" * 29),)) == 10


def test_fallback_never_uses_the_custom_estimator(counting_store):
    _, calls = counting_store
    assert fallback_tokens((Text("a" * 29),)) == 10
    assert calls == []


# ----------------------------------------------------------------------------- density probe edge cases


def test_density_probe_stops_at_2000_units_not_2000_characters():
    """The probe is the first 2,000 UTF-16 *units* (The estimator); astral characters past them are not probed.

    1760 prose units then 240 emoji: the first 2,000 units hold 120 emoji (240 dense units), exactly 12%, so
    prose; probing all 2,240 units of the first 2,000 characters would make it dense.
    """
    s = "a" * 1760 + "😀" * 240
    assert text_tokens(s) == math.ceil(2240 / 2.9)


@pytest.mark.parametrize(
    ("s", "length", "rate"),
    [
        ("\ud800" * 13 + "a" * 87, 100, 2.3),  # lone surrogates are units > 126: dense
        ("a" * 50 + "\udc00" + "a" * 49, 100, 2.9),  # one lone low surrogate among prose
        ("a" * 1999 + "😀", 2001, 2.9),  # the 2,000-unit probe cuts the pair, leaving a lone high surrogate
    ],
)
def test_lone_surrogates_are_single_units(s, length, rate):
    """A lone surrogate (JavaScript strings may hold them) is one dense unit; it must not break the estimate."""
    assert text_tokens(s) == math.ceil(length / rate)


@pytest.mark.parametrize("s", ["XXXX", "abcd", "a", "{" * 69])
def test_json_tokens_of_non_empty_strings(s):
    """Any non-empty JSON text is ``ceil(len16 / 2.3)`` (docs/model.md, The estimator and the fallback)."""
    assert json_tokens(s) == math.ceil(len(s) / 2.3)


# ----------------------------------------------------------------------------- stamp rule and pricing rule


@pytest.mark.parametrize("rule", [REFERENCE, VERBATIM])
@pytest.mark.parametrize("stamp", [True, False, "5", None])
def test_a_stamp_that_is_not_a_number_is_absent_under_both_rules(rule, stamp):
    """Only a *number* (not a bool, not a string) is a stamp (docs/model.md, Numerics); anything else prices the text.

    The constructors refuse such a stamp (tests/test_badinput.py); one forced past them is still absent here.
    """
    assert rule.stamp(stamp) is None
    assert raw_price(_forced(Thinking("a" * 29), stamp), rule) == 10
    assert raw_price(_forced(Image(), stamp), rule) == 1600


def _forced(block, stamp):
    """``block`` with ``token_estimate`` set past its constructor's check."""
    object.__setattr__(block, "token_estimate", stamp)
    return block


def test_store_pricing_carries_the_stamp_rule_it_is_given(store):
    """``store_pricing`` uses the reference rule by default and the verbatim rule when asked."""
    bad = Thinking("a" * 29, token_estimate=-4)
    assert raw_price(bad, store_pricing(store)) == 10
    assert raw_price(bad, store_pricing(store, verbatim_stamps=True)) == -4
    assert store_pricing(store).verbatim_stamps is False
    assert store_pricing(store, verbatim_stamps=True).verbatim_stamps is True


def test_store_pricing_takes_epoch_and_estimator_from_the_store():
    """The rule holds the store's custom estimator and epoch, or ``text_tokens`` when there is none."""

    def estimate(s: str) -> int:
        return 3

    assert store_pricing(make_store(text_estimator=estimate, pricing_epoch=0)) == Pricing(estimate, 0, False)
    assert store_pricing(make_store()).text is text_tokens


def test_raw_price_refuses_a_non_block_naming_it():
    """Pricing something that is not a block is a TypeError whose message shows the value."""
    with pytest.raises(TypeError, match=r"^not a block: 'oops'$"):
        raw_price("oops", REFERENCE)


# ----------------------------------------------------------------------------- sums start at zero


def test_empty_content_prices_zero_everywhere(store):
    """An empty content, and an empty nested tool result, price 0 (an empty sum)."""
    assert content_tokens((), store) == 0
    assert calibrated_tokens((), REFERENCE, 2.0) == 0
    assert fallback_tokens(()) == 0
    assert raw_price(ToolResult("t1", ()), REFERENCE) == 0


def test_nested_tool_results_sum_every_block_at_every_depth():
    """A tool result's raw price is the sum of its blocks' raw prices, nested results' sums included:
    Text 29 (10) + [str "abc" (2) + [Text 29 (10) + Image (1600)] + Document (1000)] + Text 58 (20)."""
    inner = ToolResult("t3", (Text("a" * 29), Image()))
    middle = ToolResult("t2", (ToolResult("t2s", "abc"), inner, Document()))
    outer = ToolResult("t1", (Text("a" * 29), middle, Text("a" * 58)))
    assert raw_price(inner, REFERENCE) == 10 + 1600
    assert raw_price(middle, REFERENCE) == 2 + 1610 + 1000
    assert raw_price(outer, REFERENCE) == 10 + 2612 + 20
    assert (
        raw_price(
            ToolResult(
                "t4",
                (ToolResult("t5", ()), ToolResult("t6", "")),
            ),
            REFERENCE,
        )
        == 0
    )

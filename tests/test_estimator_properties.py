"""Property tests of the estimator (docs/model.md, The estimator and the fallback), profiles from conftest.py."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from reference.estimator import content_tokens, raw_price, store_pricing, text_tokens
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

texts = st.text(max_size=60)
int_stamps = st.none() | st.integers(min_value=-10, max_value=10_000)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def leaf_blocks(stamps: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.builds(Text, texts),
        st.builds(Thinking, texts, st.none() | st.text(max_size=80), stamps),
        st.builds(RedactedThinking, st.none() | texts, stamps),
        st.builds(ToolUse, st.just("t1"), st.just("tool"), json_values),
        st.builds(ToolResult, st.just("t1"), texts),
        st.builds(Image, stamps),
        st.just(Document()),
    )


def blocks(stamps: st.SearchStrategy = int_stamps) -> st.SearchStrategy:
    leaf = leaf_blocks(stamps)
    nested = st.builds(ToolResult, st.just("t1"), st.lists(leaf, max_size=4).map(tuple))
    return leaf | nested


contents = st.lists(blocks(), max_size=6).map(tuple)
calibrations = st.floats(min_value=0.26, max_value=3.99)
epochs = st.sampled_from([0, 1])


def make_store(calibration: float = 1.0, epoch: int = 1) -> Store:
    msg = Message(id="m1", participant="User", content=(Text("x"),))
    return Store(messages=(msg,), calibration=calibration, pricing_epoch=epoch)


@given(contents, calibrations, epochs)
def test_prices_are_integers_for_integer_inputs(content, calibration, epoch):
    price = content_tokens(content, make_store(calibration, epoch))
    assert isinstance(price, int) and not isinstance(price, bool)
    assert price >= 0


@given(contents, contents, calibrations, epochs)
def test_content_tokens_is_additive_over_top_level_blocks(a, b, calibration, epoch):
    s = make_store(calibration, epoch)
    assert content_tokens(a + b, s) == content_tokens(a, s) + content_tokens(b, s)


@given(st.characters(codec="utf-16", exclude_categories=("Cs",)), st.integers(0, 3000), st.integers(0, 3000))
def test_text_tokens_is_monotone_in_length_at_a_fixed_rate(ch, n, m):
    n, m = sorted((n, m))
    assert text_tokens(ch * n) <= text_tokens(ch * m)


@given(contents, epochs)
def test_calibration_one_equals_the_sum_of_raw_prices(content, epoch):
    s = make_store(1.0, epoch)
    rule = store_pricing(s)
    assert content_tokens(content, s) == sum(raw_price(b, rule) for b in content)


@given(st.lists(blocks(st.none() | st.floats(allow_nan=True, allow_infinity=True)), max_size=6).map(tuple))
def test_reference_rule_never_prices_nan_or_negative(content):
    price = content_tokens(content, make_store())
    assert math.isfinite(price) and price >= 0

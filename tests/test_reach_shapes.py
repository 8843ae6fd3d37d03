"""The reach report reads each shape by its definition: a classifier that counts too much passes every
"at least 1%" test (tests/test_reach.py) while the report claims a reach the generators never have, so each
classifier is checked here against the shape's own definition, over drawn stores and configs."""

from __future__ import annotations

import math

from hypothesis import example, given
from hypothesis import strategies as st

from invariants.generators import Case
from invariants.reach import SHAPE_GROUPS, shapes_of
from reference.model import Budget, Config, Message, Store, Text
from tests.builders import store

BUDGET = Budget(max_tokens=100_000)
#: The store-size buckets by their bounds (inclusive).
SIZE_BUCKETS = (
    (1, 5, "messages <= 5"),
    (6, 10, "messages 6-10"),
    (11, 30, "messages 11-30"),
    (31, math.inf, "messages 31+"),
)
#: A window, grace ratio or cap a config may hold: 0 of each sign, whole and fractional, negative, NaN, infinite.
NUMBERS = st.sampled_from([0, 0.0, -0.0, 1, 2, 0.5, 1.5, 30.25, 200, -1, -0.5, math.nan, math.inf, -math.inf])


def shapes(st_: Store, config: Config | None = None) -> frozenset[str]:
    return shapes_of(Case(st_, config or Config(), BUDGET))


def one_text(text: str) -> Store:
    return Store(messages=(Message(id="m0", participant="user", content=(Text(text),)),))


@given(st.integers(1, 45))
@example(5).via("the edge of the first bucket")
@example(10).via("the edge of the second bucket")
@example(30).via("the edge of the third bucket")
def test_a_store_is_in_the_one_size_bucket_its_message_count_falls_in(n):
    bucket = {name for low, high, name in SIZE_BUCKETS if low <= n <= high}
    out_of_order = {"ids out of string order"} if n > 10 else set()  # from 11 messages on, "m10" sorts before "m2"
    assert shapes(store(n)) & set(SHAPE_GROUPS["store"]) == bucket | out_of_order


@given(st.text(max_size=12))
@example("é€字").via("past Latin-1, inside the BMP")
@example("\U0001f600").via("outside the BMP")
@example("\uffff").via("the last BMP character")
def test_astral_text_is_text_with_a_character_outside_the_bmp(text):
    outside_bmp = len(text.encode("utf-16-le")) // 2 > len(text)  # a character outside it takes two units
    assert ("astral text" in shapes(one_text(text))) == outside_bmp


@given(head=NUMBERS, recent=NUMBERS, cap=st.none() | NUMBERS, grace=NUMBERS, enforce=st.booleans())
def test_each_config_shape_is_read_by_its_definition(head, recent, cap, grace, enforce):
    config = Config(
        head_window_tokens=head,
        recent_window_tokens=recent,
        max_message_tokens=cap,
        over_budget_grace_ratio=grace,
        enforce_budget=enforce,
    )
    cap_on = cap is not None and cap != 0
    expected = {
        "head window 0": head == 0,
        "recent window 0": recent == 0,
        "cap off (0 or none)": not cap_on,
        "cap negative, NaN or infinite": cap_on and (math.isnan(cap) or cap < 0 or math.isinf(cap)),
        "cap fractional": cap_on and math.isfinite(cap) and cap > 0 and cap % 1 != 0,
        "grace ratio 0": grace == 0,
        "budget not enforced": not enforce,
    }
    found = shapes(store(2), config)
    assert {name: name in found for name in SHAPE_GROUPS["config"]} == expected

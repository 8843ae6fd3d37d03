"""Image stripping (docs/model.md, "Image stripping"): where the deep part starts, what a message keeps, and
the placeholder, on lists small enough to count by hand."""

from __future__ import annotations

import math

from hypothesis import example, given
from hypothesis import strategies as st

from reference.model import Config, Image, Text
from strategies.images import (
    PLACEHOLDER,
    ImagePolicy,
    _reduced,
    advance_watermark,
    decide,
    decide_policy,
    newer_start,
    store_wide,
    strip,
    strip_start,
)

LIMIT_ONE = Config(max_live_images=1)


def test_the_deep_part_starts_at_the_message_where_the_sum_first_exceeds_the_depth():
    assert strip_start([10, 10, 10], 20) == 1  # 10, 20 (not over), 30: over at index 0
    assert strip_start([10, 10], 10) == 1  # reaching the depth exactly is still within it
    assert strip_start([10, 10], 9) == 2  # the newest alone is over: every message is deep


def test_a_store_within_the_depth_has_no_deep_part():
    assert strip_start([10, 10], 100) == 0
    assert strip_start([], 5) == 0


def test_a_depth_below_one_token_still_counts():
    assert strip_start([1, 1], 1) == 1
    assert strip_start([1], 0.5) == 1
    assert strip_start([1], 0) == 0  # 0 turns the rule off


def test_strip_replaces_the_oldest_images_and_keeps_the_last_ones():
    content = (Image(), Image(), Text("a"), Image())
    assert strip(content, 1) == (Text(PLACEHOLDER), Text(PLACEHOLDER), Text("a"), Image())
    assert strip(content, 0) == (Text(PLACEHOLDER), Text(PLACEHOLDER), Text("a"), Text(PLACEHOLDER))


def test_strip_hands_back_the_same_content_when_nothing_is_dropped():
    """The same object, not a copy: the compile prices each content object once (hierarchical._priced_once)."""
    content = (Text("a"), Image())
    assert strip(content, None) is content
    assert strip(content, 1) is content
    assert strip(content, 5) is content


def test_a_message_without_images_does_not_stop_the_count():
    assert decide([0, 1, 2], [1, 0, 1], 0, LIMIT_ONE) == [0, None, None]
    assert decide([0, 1], [1, 0], 1, Config()) == [0, None]  # m0 is deep though m1 has no image


def test_once_the_limit_is_reached_older_images_are_stripped():
    assert decide([0, 1], [1, 1], 0, LIMIT_ONE) == [0, None]
    assert decide([0, 1], [3, 1], 0, Config(max_live_images=2)) == [1, None]  # m0 keeps its last image


def test_a_fractional_limit_keeps_whole_images_only():
    assert decide([0, 1, 2], [1, 2, 1], 0, Config(max_live_images=1.5)) == [0, 0, None]


def test_every_message_older_than_the_start_is_stripped():
    assert decide([0, 1, 2], [1, 1, 1], 2, Config()) == [0, 0, None]


def test_a_limit_of_zero_keeps_every_image():
    assert decide([0, 1], [2, 3], 0, Config(max_live_images=0)) == [None, None]


ONE = (Image(),)
NEWER = ImagePolicy(first_block_first=True)


def test_reduced_floors_and_only_the_count_is_at_least_one():
    assert _reduced(3, 0.1) == 0  # a depth or byte cap reduced below 1 turns off
    assert _reduced(3, 0.1, at_least_one=True) == 1
    assert _reduced(1, 0.5, at_least_one=True) == 1  # a cap of 1 is on


#: Hysteresis ratios: the edges of (0, 1) and past them, then any float.
RATIOS = st.none() | st.sampled_from([0, 1, -0.5, 2, math.nan, math.inf]) | st.floats()


@given(RATIOS)
def test_watermark_needs_a_ratio_strictly_between_0_and_1(ratio):
    """Two images over a live-image cap of 1 (reduced by any ratio, still 1): the watermark moves exactly when the
    ratio turns hysteresis on."""
    cfg = Config(image_strip_hysteresis_ratio=ratio, max_live_images=1)
    moved = advance_watermark([1, 1], [ONE, ONE], cfg, NEWER, newer_only=False)
    assert (moved is not None) == (ratio is not None and 0 < ratio < 1)


def test_watermark_depth_rule_newer_only_sums_strictly_newer_messages():
    cfg = Config(image_strip_depth_tokens=5, image_strip_hysteresis_ratio=0.5)
    assert advance_watermark([5, 5], [ONE, ONE], cfg, NEWER, newer_only=True) is None  # reach 5 is not past 5


def test_watermark_depth_rule_counts_the_message_itself():
    cfg = Config(image_strip_depth_tokens=9, image_strip_hysteresis_ratio=0.5)
    assert advance_watermark([5, 5], [ONE, ONE], cfg, NEWER, newer_only=False) == 1  # reduced depth 4 < 5


def test_watermark_reduced_depth_and_count_of_one_still_apply():
    depth = Config(image_strip_depth_tokens=3, image_strip_hysteresis_ratio=0.5)
    assert advance_watermark([2, 2, 2], [ONE] * 3, depth, NEWER, newer_only=True) == 1
    count = Config(max_live_images=2, image_strip_hysteresis_ratio=0.5)
    assert advance_watermark([1, 1, 1], [ONE] * 3, count, NEWER, newer_only=True) == 1


def test_decide_policy_depth_zero_is_off_and_one_is_on():
    assert decide_policy([0], [ONE], 1, Config(), NEWER) == [(True,)]
    assert decide_policy([0, 1], [ONE, ONE], 1, Config(image_strip_depth_tokens=1), NEWER) == [(False,), (True,)]


def test_decide_policy_counts_by_store_position_not_list_order():
    assert decide_policy([1, 0], [ONE, ONE], 0, LIMIT_ONE, NEWER) == [(True,), (False,)]


def test_decide_policy_byte_wall_of_one_and_a_later_smaller_image():
    wall = ImagePolicy(byte_wall=True, first_block_first=True)
    assert decide_policy([0], [(Image(data="ab"),)], 0, Config(max_live_image_bytes=1), wall) == [(False,)]
    big_then_small = (Image(data="x" * 20), Image(data="x" * 5))
    assert decide_policy([0], [big_then_small], 0, Config(max_live_image_bytes=10), wall) == [(False, True)]


def test_watermark_ignores_image_bytes_when_no_byte_cap_is_in_force():
    """Without the byte wall the byte limit is off: images carrying data misfit by count only (limit 2, reduced 1)."""
    data = (Image(data="ab"),)
    count = Config(max_live_images=2, image_strip_hysteresis_ratio=0.5)
    assert advance_watermark([1, 1, 1], [data] * 3, count, NEWER, newer_only=True) == 1


def test_watermark_reduced_byte_cap_of_one_still_applies():
    """A byte cap of 2 reduced by 0.5 is 1: the second one-byte image misfits it."""
    wall = ImagePolicy(byte_wall=True, first_block_first=True)
    cfg = Config(max_live_image_bytes=2, image_strip_hysteresis_ratio=0.5)
    one = (Image(data="a"),)
    assert advance_watermark([1, 1, 1], [one] * 3, cfg, wall, newer_only=True) == 1


def test_watermark_reduced_count_is_at_least_one():
    """A count cap of 1 reduced by 0.5 floors to 0 but stays on as 1 (``|| 1``): the older image misfits it."""
    cfg = Config(max_live_images=1, image_strip_hysteresis_ratio=0.5)
    assert advance_watermark([1, 1], [ONE, ONE], cfg, NEWER, newer_only=True) == 0


def test_watermark_stays_when_the_reduced_limits_are_all_off():
    """A depth cap of 1 misfits, but reduced by 0.5 it floors to 0 (off): nothing misfits the reduced limits and a
    watermark already set stays where it is."""
    cfg = Config(image_strip_depth_tokens=1, image_strip_hysteresis_ratio=0.5)
    at_zero = ImagePolicy(first_block_first=True, watermark=0)
    assert advance_watermark([2, 2, 2], [ONE] * 3, cfg, at_zero, newer_only=True) == 0
    assert advance_watermark([2, 2, 2], [ONE] * 3, cfg, NEWER, newer_only=True) is None


@given(st.lists(st.integers(0, 20), max_size=8), st.integers(1, 60))
@example([10, 10], 9)
@example([10, 10, 10], 10)
def test_newer_start_is_the_first_message_the_messages_newer_than_it_keep_within_the_depth(prices, depth):
    """``postStripEstimates``' depth rule: message ``i`` is deep when the messages newer than it sum past the depth."""
    first = next((i for i in range(len(prices)) if not sum(prices[i + 1 :]) > depth), 0)
    assert newer_start(prices, depth) == first


def test_newer_start_is_zero_when_the_depth_rule_is_off():
    assert newer_start([50, 50, 50], 0) == 0


def test_the_store_wide_count_strips_nothing_under_the_seed_era_rules_off_but_keeps_a_newer_line_byte_wall():
    """``store_wide`` with both rules off: the seed-era policy strips nothing; a byte-wall line still strips an
    image past its byte cap."""
    contents = [(Image(data="AA"),), (Text("a"),)]
    capped = Config(max_live_image_bytes=1)
    assert store_wide(contents, 0, capped) == [None, None]
    assert store_wide(contents, 0, capped, ImagePolicy(byte_wall=True)) == [(False,), None]

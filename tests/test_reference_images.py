"""The reference's image stripping (reference/images.py) rule by rule against docs/model.md, "Image stripping":
where the deep part starts, which images stay live, and what a content sends."""

from __future__ import annotations

from reference.images import PLACEHOLDER, ImageRules, depth_start, live_flags, store_wide, stripped, watermark
from reference.model import Config, Image, Text

OMITTED = Text(PLACEHOLDER)


def test_a_depth_of_one_token_or_less_still_counts():
    assert depth_start([1, 1], 1) == 1  # 1 (not over), 2: over at index 0
    assert depth_start([1], 0.5) == 1  # the newest alone is over: every message is deep
    assert depth_start([1], -1) == 0  # not above 0: the rule is off


def test_the_count_runs_from_the_newest_position_not_the_newest_content():
    contents = [(Image(),), (Image(),)]
    # the first content holds the newer message, so it takes the only live image
    assert live_flags(contents, [1, 0], 0, Config(max_live_images=1)) == [(True,), (False,)]
    assert live_flags(contents, [0, 1], 0, Config(max_live_images=1)) == [(False,), (True,)]


def test_each_image_keeps_its_own_flag_in_block_order():
    content = (Image(), Image(), Text("a"), Image())
    assert stripped(content, (False, True, False)) == (OMITTED, Image(), Text("a"), OMITTED)
    assert stripped(content, (True, False, True)) == (Image(), OMITTED, Text("a"), Image())


WALL = ImageRules(byte_wall=True)
HYSTERESIS = ImageRules(hysteresis=True)


def test_the_byte_wall_counts_each_image_by_its_data_length_and_skips_what_does_not_fit():
    config = Config(max_live_image_bytes=1)
    assert live_flags([(Image(), Image())], [0], 0, config, WALL) == [(True, True)]  # no data: 0 bytes
    assert live_flags([(Image(data="AA"),)], [0], 0, config, WALL) == [(False,)]  # a 1-byte wall is a wall
    # walked last block first: the 3-byte image is over the 2-byte wall, the 1-byte one before it still fits
    two = Config(max_live_image_bytes=2)
    assert live_flags([(Image(data="A"), Image(data="AAA"))], [0], 0, two, WALL) == [(True, False)]


def test_the_store_wide_reading_counts_under_the_lines_rules():
    assert store_wide([(Image(data="AA"),)], 0, Config(max_live_image_bytes=1), WALL) == [(False,)]
    assert store_wide([(Image(data="AA"),)], 0, Config(max_live_image_bytes=1)) == [(True,)]


def test_the_watermark_depth_counts_the_message_and_every_newer_one():
    """Prices 1, 1, 1 with an image in the oldest: its depth is 3, within a cap of 3, over a cap of 2 and over
    the cap's half (1), so the watermark stands at it."""
    contents = [(Text("caption"), Image()), (Text("a"),), (Text("b"),)]

    def at(cap):
        return watermark(
            [1, 1, 1], contents, Config(image_strip_depth_tokens=cap, image_strip_hysteresis_ratio=0.5), HYSTERESIS
        )

    assert at(3) is None
    assert at(2) == 0


def test_the_watermark_count_keeps_at_least_one_image():
    """Two images under ``max_live_images`` 1: the count misfits, and its scaled cap (floor 0.5) is raised to 1,
    so the second image misfits again; a ratio outside (0, 1) sets no watermark."""
    contents = [(Image(), Image())]

    def at(count, ratio):
        return watermark([1], contents, Config(max_live_images=count, image_strip_hysteresis_ratio=ratio), HYSTERESIS)

    assert at(1, 0.5) == 0
    assert at(2, 0.5) is None
    assert at(1, 0) is None
    assert at(1, 1) is None


def test_the_watermark_bytes_count_each_images_data_length():
    rules = ImageRules(byte_wall=True, hysteresis=True)

    def at(contents, wall):
        return watermark([1], contents, Config(max_live_image_bytes=wall, image_strip_hysteresis_ratio=0.5), rules)

    assert at([(Image(data="AA"), Image(data="AA"))], 3) == 0  # 4 > 3, and the halved wall 1 is still a wall
    assert at([(Image(), Image(), Image())], 2) is None  # no data: no bytes

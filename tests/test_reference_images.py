"""The reference's image stripping (reference/images.py) rule by rule against docs/model.md, "Image stripping":
where the deep part starts, which images stay live, and what a content sends."""

from __future__ import annotations

from reference.images import PLACEHOLDER, depth_start, live_flags, stripped
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

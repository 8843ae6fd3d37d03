"""The reference's line switches on small hand-built stores (docs/model.md, The reference rendering, Variants):
the line's image placeholder in the windows and the head's total, its byte wall in the store-wide count, the trim
of trailing calls, and the raw forms a cut keeps unless the line releases them.

Text is priced by its length (``text_estimator=len``), so a placeholder costs its own length: "[image omitted]"
15, "[image dropped from live context]" 33.
"""

from __future__ import annotations

from reference.images import DROPPED, PLACEHOLDER, ImageRules
from reference.model import Config, Image, Message, Store, Summary, Text, ToolUse
from reference.rendering import Selection, Switches, planned_raw, raw_entry, render
from reference.selection import Rules, bounds, head_total, store_wide_flags

DROPPED_RULES = ImageRules(placeholder=DROPPED)


def _deep_image_store() -> Store:
    """m0 text (10), m1 an image deep by an image depth of 10 (so sent as the placeholder), m2 text (10); S holds
    m0..m1."""
    messages = (
        Message("m0", "user", (Text("a" * 10),)),
        Message("m1", "user", (Image(token_estimate=5),)),
        Message("m2", "user", (Text("b" * 10),)),
    )
    return Store(messages, (Summary("S", 1, "sss", 10, 0, ("m0", "m1"), ("m0", "m1")),), text_estimator=len)


WINDOWS = Config(head_window_tokens=0, recent_window_tokens=40, image_strip_depth_tokens=10)


def test_the_recent_window_prices_a_stripped_image_as_the_line_s_placeholder() -> None:
    """Recent window 40: m2 (10) + m1 as "[image omitted]" (15) + m0 (10) = 35 fits, the whole store is recent;
    with the dropped placeholder m2 + m1 is 43, past 40, so the window opens at m2."""
    assert len(PLACEHOLDER) == 15 and len(DROPPED) == 33
    st = _deep_image_store()
    assert bounds(st, WINDOWS, Rules()) == (0, 0)
    assert bounds(st, WINDOWS, Rules(images=DROPPED_RULES)) == (0, 2)


def test_render_takes_the_windows_under_the_line_s_image_rules() -> None:
    """Under the trim the plan holds every tail message: with the dropped placeholder m0 and m1 are middle and
    claimed by S, so only the pair and m2 are sent; under the plain placeholder all three would be tail."""
    st = _deep_image_store()
    switches = Switches(trim_trailing_calls=True, images=DROPPED_RULES)
    sent = render(st, WINDOWS, Selection(frozenset({"m2"}), ("S",)), switches)
    assert [(e.kind, e.message_id) for e in sent] == [("question", None), ("answer", None), ("raw", "m2")]


def test_the_head_total_prices_a_stripped_head_image_as_the_line_s_placeholder() -> None:
    """IMAGE_COUNT_STORE_WIDE: m1's image is stripped in the head total, as 33 on the dropped line (with or without
    RAW_CAP_PLUS_50's reading), 15 with the plain placeholder."""
    st, config = _deep_image_store(), Config(image_strip_depth_tokens=10)
    assert head_total(st, config, 2, Rules(store_wide_images=True)) == 10 + 15
    assert head_total(st, config, 2, Rules(store_wide_images=True, images=DROPPED_RULES)) == 10 + 33
    both = Rules(store_wide_images=True, raw_cap_plus_50=True, images=DROPPED_RULES)
    assert head_total(st, config, 2, both) == 10 + 33


def test_the_store_wide_count_applies_the_line_s_byte_wall() -> None:
    """A two-byte image past a one-byte wall is stripped on a byte-wall line; with no wall it stays live."""
    st = Store((Message("m0", "user", (Image(token_estimate=5, data="ab"),)),))
    config = Config(max_live_image_bytes=1)
    assert store_wide_flags(st, config, Rules(images=ImageRules(byte_wall=True))) == [(False,)]
    assert store_wide_flags(st, config, Rules()) == [(True,)]


def test_the_trim_pops_a_trailing_call_before_pairing_could_answer_it() -> None:
    """TRIM_DROPS_TRAILING_TOOL_USE: the newest message, a call with no result, is popped; without the trim pairing
    answers it with a stub entry."""
    messages = (Message("m0", "user", (Text("hi"),)), Message("m1", "assistant", (ToolUse("u", "read", {}),)))
    st = Store(messages)
    selection = Selection(frozenset({"m0", "m1"}), ())
    trimmed = render(st, Config(), selection, Switches(trim_trailing_calls=True))
    assert [(e.kind, e.message_id) for e in trimmed] == [("raw", "m0")]
    plain = render(st, Config(), selection)
    assert [(e.kind, e.message_id) for e in plain] == [("raw", "m0"), ("raw", "m1"), ("repair", None)]


def test_the_plan_under_the_trim_leaves_out_a_claimed_message_at_the_head_s_end() -> None:
    """Head m0 (bounds (1, 3)); S claims m1 and m2, the first two middle messages: neither is in the plan."""
    st = Store(
        tuple(Message(f"m{i}", "user", (Text("a"),)) for i in range(4)),
        (Summary("S", 1, "sss", 10, 0, ("m1", "m2"), ("m1", "m2")),),
    )
    assert planned_raw(st, Selection(frozenset(), ("S",)), (1, 3), Switches(trim_trailing_calls=True)) == {0, 3}


def test_a_raw_message_cut_by_the_cap_keeps_its_raw_forms_unless_the_line_releases_them() -> None:
    item = {"type": "message", "id": "msg_1"}
    st = Store((Message("m0", "user", (Text("a" * 40, raw_item=item), Text("b" * 400, raw_item=item))),))
    config = Config(max_message_tokens=20)
    assert [b.raw_item for b in raw_entry(st, 0, config).content] == [item, item]
    assert [b.raw_item for b in raw_entry(st, 0, config, release=True).content] == [None, None]

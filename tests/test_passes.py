"""The structural passes and the raw items they finish (docs/model.md, "Structural passes", "Image stripping",
Prices and the floor): what a raw message is charged once the passes have made it what is sent."""

from __future__ import annotations

import math

from builders import msg, prose, summary

from reference.estimator import content_tokens
from reference.model import Budget, Config, Image, Message, Store, Text, ToolUse
from strategies import HierarchicalStrategy
from strategies.cap import truncate
from strategies.defects import parse_variant
from strategies.emission import CompileResult
from strategies.images import PLACEHOLDER, strip


def compiled(variant: str, st: Store, config: Config, max_tokens: float = math.inf) -> CompileResult:
    strategy = HierarchicalStrategy(config, parse_variant(variant))
    strategy.initialize(st)
    return strategy.compile(Budget(max_tokens=max_tokens))


def two_images(first: tuple) -> Store:
    """m0 holds ``first`` then an image, m1 a newer image: with one live image, m0's is stripped."""
    return Store(messages=(Message("m0", "user", (*first, Image())), Message("m1", "assistant", (Image(),))))


def test_sound_charges_a_capped_message_with_a_stripped_image_what_is_sent():
    st = two_images((Text(prose(100)),))
    result = compiled("sound", st, Config(max_message_tokens=20, max_live_images=1))
    cut = truncate(st.messages[0].content, 20)
    assert result.entries[0].content == (cut[0], Text(PLACEHOLDER))
    assert result.stats.total.tokens == sum(content_tokens(e.content, st) for e in result.entries)


def test_faithful_raw_cap_plus_50_is_read_on_the_original_with_its_images_stripped():
    """IMAGE_COUNT_STORE_WIDE strips m0's image in its price; RAW_CAP_PLUS_50 charges min(that, cap + 50)."""
    st = two_images((Text("hello"),))
    m0, m1 = st.messages
    config = Config(max_message_tokens=10, max_live_images=1, head_window_tokens=content_tokens(m0.content, st))
    stats = compiled("main-48bb87a1", st, config).stats
    assert stats.head.tokens == min(content_tokens(strip(m0.content, 0), st), 10 + 50)
    assert stats.head.tokens < 60
    assert stats.middle_raw.tokens == min(content_tokens(m1.content, st), 10 + 50) == 60


def test_a_message_the_trim_pops_is_charged_nothing_when_the_passes_are_priced():
    """TRIM_DROPS_TRAILING_TOOL_USE alone: the trailing call is popped after planning; pricing what is sent, it
    costs 0 tokens and 0 messages."""
    st = Store(
        (Message("m0", "User", (Text("hello"),)), Message("m1", "Claude", (ToolUse("u0", "read", {"path": "a"}),)))
    )
    result = compiled("sound+TRIM_DROPS_TRAILING_TOOL_USE", st, Config(recent_window_tokens=1000), 1000)
    assert [e.message_id for e in result.entries] == ["m0"]
    assert result.stats.total.tokens == content_tokens(st.messages[0].content, st)
    assert result.stats.total.messages == 1


def test_the_waterfall_reads_a_capped_head_at_its_capped_price():
    """Planned prices (docs/model.md, Selection): sound's head m0 is priced as cut by the cap (27 tokens, not 100),
    so under a budget of 70 the waterfall itself takes both L1s, in the store's order (L1-b first); coverage
    completion would have added them in message order."""
    st = Store(
        messages=(Message("m0", "user", (Text(prose(100)),)), *(msg(i) for i in range(1, 6))),
        summaries=(summary("L1-b", 3, 4), summary("L1-a", 1, 2)),
    )
    assert content_tokens(truncate(st.messages[0].content, 10), st) + 10 + 10 <= 70
    config = Config(max_message_tokens=10, head_window_tokens=100, recent_window_tokens=10)
    assert compiled("sound", st, config, 70).selected == ("L1-b", "L1-a")


def test_unpriced_passes_still_charge_a_raw_message_as_cut_by_the_cap():
    """TOOL_PASSES_UNPRICED alone prices the message as the cap cuts it, before any pass."""
    st = Store(messages=(Message("m0", "user", (Text(prose(100)),)), Message("m1", "user", (Text("ok"),))))
    result = compiled("sound+TOOL_PASSES_UNPRICED", st, Config(max_message_tokens=6))
    cut = truncate(st.messages[0].content, 6)
    assert result.stats.total.tokens == content_tokens(cut, st) + content_tokens(st.messages[1].content, st)

"""The reference rendering's own cap (docs/model.md, The message cap): safe_slice, the estimate, the walk.

The same rules ``tests/test_cap.py`` checks on the optimized cap, here on ``reference/cap.py``, which shares no
code with it; every expected value is written out from docs/model.md on small hand-built contents.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.cap import OMITTED_TEXT, cap_content, cap_is_on, cap_walk, safe_slice, text_only_estimate
from reference.model import Block, Content, Document, Image, RedactedThinking, Text, Thinking, ToolResult, ToolUse
from reference.numerics import len16


def cut(text: str, units: int) -> str:
    """The cut of an ASCII text (docs/model.md, The message cap): its first ``units`` units, the marker."""
    return text[:units] + f"\n\n[truncated — original was {math.ceil(len(text) / 4)} tokens]"


# ----------------------------------------------------------------------------- safe_slice


@pytest.mark.parametrize(
    ("s", "end", "expected"),
    [
        ("abc", 0, ""),  # nothing kept at 0
        ("abc", -2, ""),  # a negative end keeps nothing
        ("abc", 1.9, "a"),  # a fractional end is truncated
        ("abc", 3, "abc"),
        ("abc", 10, "abc"),
        ("\ud83d\ude00x", 1, ""),  # the unit at 1 is a low surrogate: one unit earlier
        ("a\ud83d\ude00", 2, "a"),
        ("\udbff\udfffz", 1, ""),  # 0xDFFF is the last low surrogate
        ("\udbff\udc00z", 1, ""),  # 0xDC00 the first
        ("a\ue000", 1, "a"),  # 0xE000 is not a surrogate
        ("a\udbff", 1, "a"),  # nor is a high surrogate
        ("\ud800abc", 2, "\ud800a"),  # a lone surrogate kept as it is
    ],
)
def test_safe_slice_steps_back_off_a_low_surrogate(s: str, end: float, expected: str) -> None:
    """``safeSlice(s, 0, end)`` (The message cap): the first ``end`` units, one fewer if the unit at ``end`` is low."""
    assert safe_slice(s, end) == expected


# ----------------------------------------------------------------------------- the cap's estimate


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (Text("abcdefghi"), 3),
        (Thinking("abcdefghi", "sig" * 40), 3),
        (ToolUse("t1", "search", {"q": "xxxxxxxx"}), 4 + 20),
        (ToolUse("t1", "search", None), 1 + 20),  # json null is 4 units
        (ToolResult("t1", "abcdefghijklm"), 4),
        (ToolResult("t1", (Text("abcdefgh"),)), 0),
        (RedactedThinking("cipher" * 10), 0),
        (Image(token_estimate=500), 0),
        (Document(), 0),
    ],
)
def test_estimate_per_block_kind(block: Block, expected: int) -> None:
    """Each block kind's chars/4 estimate: Text, Thinking text, ToolUse json + 20, str results; 0 for the rest."""
    assert text_only_estimate((block,)) == expected


def test_estimate_sums_the_blocks_in_any_order() -> None:
    """The estimate is the sum of the blocks' estimates whatever their order, and 0 for no content."""
    blocks = (Text("abcde"), Thinking("xyzxy"), ToolUse("t", "n", [1]), ToolResult("t", "z" * 8), Image())
    assert text_only_estimate(blocks) == 2 + 2 + (1 + 20) + 2
    assert text_only_estimate(tuple(reversed(blocks))) == 2 + 2 + (1 + 20) + 2
    assert text_only_estimate(()) == 0


# ----------------------------------------------------------------------------- on, off, under the cap


@pytest.mark.parametrize(
    ("cap", "on"),
    [
        (None, False),
        (math.nan, False),
        (0, False),
        (-0.0, False),
        (-3, False),
        (-math.inf, False),
        (1e-9, True),
        (1, True),
        (math.inf, True),
    ],
)
def test_only_a_positive_cap_is_on(cap: float | None, on: bool) -> None:
    """None, NaN, 0 and negatives are no cap; anything > 0 (+inf too) is on (Config and budget)."""
    assert cap_is_on(cap) is on


def test_content_at_the_cap_is_the_same_object() -> None:
    """An estimate equal to the cap returns the very content, not a copy, and every block sent."""
    content = (Text("abcd"), Text("efgh"))
    assert cap_walk(content, 2)[0] is content
    assert cap_walk(content, 2)[1] == (True, True)
    assert cap_content(content, 0) is content


# ----------------------------------------------------------------------------- the walk over Text blocks


def test_text_that_fits_exactly_is_kept_and_later_text_dropped() -> None:
    """A Text with ``len16 == remaining`` is kept whole, leaving 0: the next Text is dropped (not sent)."""
    out, sent = cap_walk((Text("abcd"), Text("e")), 1)
    assert out == (Text("abcd"),)
    assert sent == (True, False)
    assert sent[1] is False


def test_a_text_kept_whole_uses_up_its_utf16_length() -> None:
    """Two emoji are 4 UTF-16 units (2 code points) of the 8 a cap of 2 gives: the next Text is cut at 4 units."""
    out = cap_content((Text("\U0001f600\U0001f600"), Text("abcdefgh")), 2)
    assert out == (Text("\U0001f600\U0001f600"), Text(cut("abcdefgh", 4)))


_MARKER = re.compile(r"\n\n\[truncated — original was \d+ tokens\]\Z")


@given(
    texts=st.lists(st.text(st.sampled_from("a\u00e9\U0001f600"), max_size=10), min_size=1, max_size=5),
    cap=st.integers(1, 6),
)
def test_the_cap_sends_at_most_cap_times_four_units_of_text(texts: list[str], cap: int) -> None:
    """The cap hands out ``cap × 4`` UTF-16 units in all: the Texts kept whole and a cut one's kept part (its
    marker aside) never pass it, whatever mix of one- and two-unit characters they hold."""
    out = cap_content(tuple(Text(t) for t in texts), cap)
    assert sum(len16(_MARKER.sub("", b.text)) for b in out if isinstance(b, Text)) <= cap * 4


def test_text_is_cut_at_one_unit_left() -> None:
    """With 1 unit left the next Text is cut to 1 unit plus the marker, not dropped."""
    out, sent = cap_walk((Text("abc"), Text("defgh")), 1)
    assert out == (Text("abc"), Text(cut("defgh", 1)))
    assert sent == (True, True)


def test_after_a_cut_text_nothing_is_left() -> None:
    """A cut Text uses up all of ``remaining``: the next Text is dropped, a str result omitted."""
    out, sent = cap_walk((Text("a" * 10), Text("b"), ToolResult("t", "c")), 2)
    assert out == (Text(cut("a" * 10, 8)), ToolResult("t", OMITTED_TEXT))
    assert sent == (True, False, True)


def test_dropped_text_does_not_end_the_walk() -> None:
    """After a dropped Text later blocks are still walked: a str result is omitted, other blocks pass, all sent."""
    image = Image(token_estimate=7)
    content = (Text("a" * 10), Text("dropped"), image, ToolResult("t9", "late"), Text("also"), Document())
    out, sent = cap_walk(content, 2)
    assert out == (Text(cut("a" * 10, 8)), image, ToolResult("t9", OMITTED_TEXT), Document())
    assert sent == (True, False, True, True, False, True)
    assert [type(f) for f in sent] == [bool] * 6


# ----------------------------------------------------------------------------- str tool results


def test_tool_result_that_fits_is_kept_and_charged() -> None:
    """A str result that fits stays whole and uses up its length: the next Text gets what is left."""
    result = ToolResult("t1", "ab")
    out, sent = cap_walk((result, Text("cdef"), Text("ghijk")), 2)  # remaining 8, then 6, then 2
    assert out == (result, Text("cdef"), Text(cut("ghijk", 2)))
    assert out[0] is result
    assert sent == (True, True, True)


def test_tool_results_charge_in_turn() -> None:
    """Two str results that fit both use up their lengths: a third Text is cut to what is left."""
    out, _ = cap_walk((ToolResult("t1", "abc"), ToolResult("t2", "defg"), Text("hijklmn")), 3)  # 12, 9, 5
    assert out == (ToolResult("t1", "abc"), ToolResult("t2", "defg"), Text(cut("hijklmn", 5)))


def test_tool_result_that_fits_exactly_is_kept() -> None:
    """A str result with ``len16 == remaining`` is kept whole, and a later one then omitted."""
    out, sent = cap_walk((ToolResult("t1", "abcd"), ToolResult("t2", "e")), 1)
    assert out == (ToolResult("t1", "abcd"), ToolResult("t2", OMITTED_TEXT))
    assert sent == (True, True)


def test_tool_result_is_cut_keeping_its_id() -> None:
    """The first str result that does not fit is cut (id kept, marker added); nothing is left after it."""
    content = (ToolResult("call-7", "abcdefghij"), Text("xyz"), ToolResult("call-8", "zzz"), Image())
    out, sent = cap_walk(content, 1)
    assert out == (ToolResult("call-7", cut("abcdefghij", 4)), ToolResult("call-8", OMITTED_TEXT), Image())
    assert sent == (True, False, True, True)


def test_tool_result_is_cut_at_one_unit_left() -> None:
    """With 1 unit left a str result is cut to 1 unit, not replaced by the omitted text."""
    out, _ = cap_walk((Text("abc"), ToolResult("t1", "defgh")), 1)
    assert out == (Text("abc"), ToolResult("t1", cut("defgh", 1)))


def test_other_blocks_pass_through_uncharged() -> None:
    """Nested results, thinking and images are kept as they are and use up nothing."""
    nested = ToolResult("t1", (Text("n" * 100),))
    thinking = Thinking("t" * 100, "sig")
    content = (nested, thinking, RedactedThinking("zz"), Text("abcd"), Text("efgh"))
    out, sent = cap_walk(content, 1)
    assert out == (nested, thinking, RedactedThinking("zz"), Text("abcd"))
    assert sent == (True, True, True, True, False)


def test_a_single_long_text_is_cut_to_cap_times_four() -> None:
    """One Text over the cap is cut to cap * 4 units plus the marker."""
    out: Content = cap_content((Text("a" * 9),), 1)
    assert out == (Text(cut("a" * 9, 4)),)

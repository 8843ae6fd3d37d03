"""The message cap (docs/model.md, The message cap): ``text_only``, ``truncate`` and the per-block fates.

Every expected value is written out from the rules in docs/model.md on small hand-built contents: the cap's
chars/4 estimate per block kind, the walk that keeps, cuts or drops Text blocks and cuts or omits
str tool results, and the marker ``"\\n\\n[truncated — original was N tokens]"``.
"""

from __future__ import annotations

import math

import pytest

from reference.model import Block, Content, Document, Image, RedactedThinking, Text, Thinking, ToolResult, ToolUse
from strategies.cap import OMITTED, cap_on, text_only, truncate, truncate_fates


def cut(text: str, units: int) -> str:
    """The cut of an ASCII text (docs/model.md, The message cap): its first ``units`` units, the marker."""
    return text[:units] + f"\n\n[truncated — original was {math.ceil(len(text) / 4)} tokens]"


# ----------------------------------------------------------------------------- text_only


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (Text("abcdefghi"), 3),  # ceil(9 / 4)
        (Thinking("abcdefghi", "sig" * 40), 3),  # the thinking text only, never the signature
        (Thinking("abcd"), 1),
        (ToolUse("t1", "search", {"q": "xxxxxxxx"}), 4 + 20),  # json {"q":"xxxxxxxx"} is 16 units: 4, plus 20
        (ToolUse("t1", "search", ["a", 1, True]), 3 + 20),  # json ["a",1,true] is 12 units
        (ToolResult("t1", "abcdefghijklm"), 4),  # a str result: ceil(13 / 4)
        (ToolResult("t1", (Text("abcdefgh"),)), 0),  # a nested result counts nothing
        (RedactedThinking("cipher" * 10), 0),
        (Image(), 0),
        (Image(token_estimate=500), 0),
        (Document(), 0),
    ],
)
def test_text_only_per_block_kind(block: Block, expected: int) -> None:
    """Each block kind's chars/4 estimate (The message cap): Text, Thinking text, ToolUse json + 20, str results."""
    assert text_only((block,)) == expected


def test_text_only_sums_the_blocks() -> None:
    """``text_only`` of a content is the sum of its blocks' estimates, and 0 for an empty content."""
    content = (Text("abcde"), Image(), Thinking("xy"), Document(), ToolResult("t", "z" * 8))
    assert text_only(content) == 2 + 0 + 1 + 0 + 2
    assert text_only(()) == 0


# ----------------------------------------------------------------------------- when the cap is off or not exceeded


@pytest.mark.parametrize("cap", [None, math.nan, 0, 0.0, -0.0, -3, -math.inf])
def test_a_cap_that_is_not_positive_is_off(cap: float | None) -> None:
    """None, NaN, 0, negative and -inf mean no cap: the content comes back as the same object (Config and budget)."""
    content = (Text("a" * 40), ToolResult("t", "b" * 40))
    assert not cap_on(cap)
    assert truncate(content, cap) is content
    assert truncate_fates(content, cap) == (content, (True, True))


@pytest.mark.parametrize("cap", [1e-9, 0.5, 1, math.inf])
def test_a_positive_cap_is_on(cap: float) -> None:
    """Any cap > 0 is on, +inf included (on but never cutting)."""
    assert cap_on(cap)


@pytest.mark.parametrize(
    "content",
    [
        (Text("abcd"), Text("efgh")),  # 1 + 1 == cap
        (Thinking("abcd"), Text("efgh")),  # the thinking counts toward text_only
        (ToolResult("t", "abcd"), Text("e")),
        (Text("abcdefg"),),  # ceil(7 / 4) == 2
    ],
)
def test_content_whose_estimate_equals_the_cap_is_returned_unchanged(content: Content) -> None:
    """``text_only(content) <= cap`` returns the very same object (The message cap: not a copy, even an equal one)."""
    assert text_only(content) == 2
    assert truncate(content, 2) is content
    assert truncate_fates(content, 2)[1] == (True,) * len(content)


# ----------------------------------------------------------------------------- the walk over Text blocks


def test_text_that_fits_exactly_is_kept_whole_and_later_text_dropped() -> None:
    """A Text with ``len16 == remaining`` is kept whole (<=), leaving 0, so the next Text is dropped."""
    content = (Text("abcd"), Text("e"))  # text_only 2 > cap 1; remaining 4
    out, fates = truncate_fates(content, 1)
    assert out == (Text("abcd"),)
    assert fates == (True, False)


def test_text_is_cut_at_a_fractional_remainder_not_dropped() -> None:
    """With 0 < remaining <= 1 left, the next Text is cut to floor(remaining) units plus the marker."""
    content = (Text("abc"), Text("defgh"))  # cap 1: remaining 4, then 1 after "abc"
    out, fates = truncate_fates(content, 1)
    assert out == (Text("abc"), Text(cut("defgh", 1)))
    assert fates == (True, True)


def test_remaining_is_not_floored_before_the_walk() -> None:
    """``remaining = cap * 4`` is not floored: cap 0.75 leaves 3 units, enough for a 3-unit Text to stay whole."""
    content = (Text("xyz"), Text("uvwxyz"))  # text_only 1 + 2 = 3 > 0.75
    out, fates = truncate_fates(content, 0.75)
    assert out == (Text("xyz"),)
    assert fates == (True, False)


def test_dropped_text_does_not_end_the_walk() -> None:
    """After a Text is dropped, later blocks are still walked: a str result is omitted, other blocks pass."""
    image = Image(token_estimate=7)
    content = (Text("a" * 10), Text("dropped"), image, ToolResult("t9", "late"), Text("also dropped"), Document())
    out, fates = truncate_fates(content, 2)  # remaining 8
    assert out == (Text(cut("a" * 10, 8)), image, ToolResult("t9", OMITTED), Document())
    assert fates == (True, False, True, True, False, True)
    assert all(f is True or f is False for f in fates)


def test_fates_are_booleans_one_per_input_block() -> None:
    """The fates are a tuple of bools, one per input block: False exactly for a dropped Text."""
    content = (Text("a" * 12), Text("b"), Text("c"))
    out, fates = truncate_fates(content, 1)
    assert out == (Text(cut("a" * 12, 4)),)
    assert fates == (True, False, False)
    assert [type(f) for f in fates] == [bool, bool, bool]


# ----------------------------------------------------------------------------- str tool results


def test_tool_result_that_fits_is_kept_whole_and_charged() -> None:
    """A str result with len16 <= remaining stays whole and uses up its length: the next Text gets what is left."""
    result = ToolResult("t1", "ab")
    content = (result, Text("cdef"), Text("ghijk"))  # text_only 1 + 1 + 2 = 4 > cap 2; remaining 8
    out, fates = truncate_fates(content, 2)
    assert out == (result, Text("cdef"), Text(cut("ghijk", 2)))
    assert out[0] is result
    assert fates == (True, True, True)


def test_tool_result_that_fits_exactly_is_kept_whole() -> None:
    """A str result with ``len16 == remaining`` is kept whole (<=), and a later result is then omitted."""
    content = (ToolResult("t1", "abcd"), ToolResult("t2", "e"))
    out, fates = truncate_fates(content, 1)
    assert out == (ToolResult("t1", "abcd"), ToolResult("t2", OMITTED))
    assert fates == (True, True)


def test_tool_result_is_cut_keeping_its_id_and_nothing_after_it_fits() -> None:
    """The first str result that does not fit is cut (id kept, marker added); remaining becomes 0 after it."""
    content = (ToolResult("call-7", "abcdefghij"), Text("xyz"), ToolResult("call-8", "zzz"), Image())
    out, fates = truncate_fates(content, 1)  # remaining 4
    assert out == (ToolResult("call-7", cut("abcdefghij", 4)), ToolResult("call-8", OMITTED), Image())
    assert fates == (True, False, True, True)


def test_tool_result_is_cut_at_a_fractional_remainder_not_omitted() -> None:
    """With 0 < remaining <= 1 left, a str result is cut to floor(remaining) units, not replaced."""
    content = (Text("abc"), ToolResult("t1", "defgh"))  # cap 1: remaining 1 after "abc"
    out, fates = truncate_fates(content, 1)
    assert out == (Text("abc"), ToolResult("t1", cut("defgh", 1)))
    assert fates == (True, True)


def test_nested_tool_result_and_reasoning_pass_through_uncharged() -> None:
    """Blocks other than Text and str results are kept as they are and do not use up ``remaining``."""
    nested = ToolResult("t1", (Text("n" * 100),))
    thinking = Thinking("t" * 100, "sig")
    content = (nested, thinking, RedactedThinking("zz"), Text("abcd"), Text("efgh"))
    out, fates = truncate_fates(content, 1)  # text_only 0 + 25 + 0 + 1 + 1 > 1; remaining 4
    assert out == (nested, thinking, RedactedThinking("zz"), Text("abcd"))
    assert fates == (True, True, True, True, False)

"""The compile's cap and tool passes against the reference's own, on inputs the store generators seldom reach:
astral text under a cap that cuts it, tool inputs with ten or more array-index keys or astral values under the
input cap, a result standing up to nine entries after its call."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference import cap as reference_cap
from reference import passes as reference_passes
from reference.model import Config, Entry, Text, ToolResult, ToolUse
from strategies.cap import truncate
from strategies.tool_pairing import Slot, Stubs, enforce_tool_pairing
from strategies.tool_pruning import prune_tool_entries

#: Astral characters (two UTF-16 units, one code point) among plain and dense ones.
odd_text = st.text(st.sampled_from("ab {\U0001f600\U00010348é"), max_size=30)
capped_blocks = st.lists(
    st.one_of(odd_text.map(Text), odd_text.map(lambda s: ToolResult("u0", s))), min_size=1, max_size=4
)


@given(content=capped_blocks, cap=st.integers(1, 12))
def test_the_cap_cuts_astral_text_as_the_reference_does(content, cap):
    assert truncate(tuple(content), cap) == reference_cap.cap_content(tuple(content), cap)


index_keys = st.integers(0, 15).map(str)
tool_inputs = st.dictionaries(st.one_of(index_keys, st.sampled_from(["path", "q", "_x"])), odd_text, max_size=14)


@given(value=tool_inputs, cap=st.integers(1, 40))
def test_the_input_cap_keeps_a_marker_and_the_keys_the_reference_keeps(value, cap):
    entry = Entry("assistant", (ToolUse("u0", "read", value),), "raw", message_id="m0")
    config = Config(tool_use_input_max_tokens=cap)
    ours = prune_tool_entries([Slot(0, entry)], config, Stubs())[0].entry
    theirs = reference_passes.prune([reference_passes.Piece.of(0, entry)], config)[0].entry
    assert ours == theirs


@given(gap=st.integers(1, 9), tail=st.integers(0, 3))
def test_a_result_up_to_nine_entries_after_its_call_is_moved_or_stubbed_as_the_reference_does(gap, tail):
    call = Entry("assistant", (ToolUse("u0", "read", {}),), "raw", message_id="m0")
    filler = [Entry(("user", "assistant")[k % 2], (Text(f"t{k}"),), "raw", message_id=f"m{k}") for k in range(1, gap)]
    result = Entry("user", (ToolResult("u0", "out"),), "raw", message_id=f"m{gap}")
    after = [Entry("assistant", (Text("x"),), "raw", message_id=f"m{gap + 1 + k}") for k in range(tail)]
    entries = [call, *filler, result, *after]
    ours, _ = enforce_tool_pairing([Slot(k, e) for k, e in enumerate(entries)])
    theirs = reference_passes.pair([reference_passes.Piece.of(k, e) for k, e in enumerate(entries)])
    assert [s.entry for s in ours] == [p.entry for p in theirs]

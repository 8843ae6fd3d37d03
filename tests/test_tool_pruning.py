"""Tool pruning (docs/model.md, "Tool pruning"): the input cap's marker and edge, and the per-tool result limit."""

from __future__ import annotations

import pytest

from reference.model import Config, Entry, ToolResult, ToolUse
from strategies.tool_pairing import Slot, Stubs
from strategies.tool_pruning import input_keys, prune_tool_entries, result_marker, truncated_input


def slots(*contents) -> list[Slot]:
    return [Slot(k, Entry("User", tuple(c), "raw", f"m{k}")) for k, c in enumerate(contents)]


def test_the_marker_says_result_for_one_fresher_result_and_results_otherwise():
    assert result_marker("read", 1) == "[Result truncated — tool 'read' has 1 more recent result below]"
    assert result_marker("read", 2) == "[Result truncated — tool 'read' has 2 more recent results below]"
    assert result_marker("grep", 0) == "[Result truncated — tool 'grep' has 0 more recent results below]"


def test_input_keys_are_object_keys():
    """``Object.keys``: an array's and a string's indices as strings (a string's in UTF-16 units)."""
    assert input_keys({"b": 1, "a": 2}) == ["b", "a"]
    assert input_keys([10, 20, 30]) == ["0", "1", "2"]
    assert input_keys("a\U0001f600") == ["0", "1", "2"]
    assert input_keys(7) == []


def test_an_input_exactly_at_the_cap_is_kept():
    """'{"path":"xxxxxxxxx"}' is 20 characters: 5 tokens, not over a cap of 5, over a cap of 4."""
    block = ToolUse("u0", "read", {"path": "x" * 9})
    assert truncated_input(block, 5) is block
    marked = truncated_input(block, 4)
    assert marked.input == {"_truncated": True, "_originalTokens": 5, "_keys": ["path"]}
    assert (marked.id, marked.name) == ("u0", "read")


def test_a_cap_of_one_token_truncates_every_input_over_it():
    use = ToolUse("u0", "read", {"path": "x" * 9})
    out = prune_tool_entries(slots([use]), Config(tool_use_input_max_tokens=1), Stubs())
    assert out[0].entry.content[0].input == {"_truncated": True, "_originalTokens": 5, "_keys": ["path"]}


def test_a_per_tool_limit_applies_to_its_tool_only():
    uses = [ToolUse("u0", "read", {}), ToolUse("u1", "read", {}), ToolUse("u2", "grep", {})]
    entries = slots(
        [uses[0]], [ToolResult("u0", "r0")], [uses[1]], [ToolResult("u1", "r1")], [uses[2]], [ToolResult("u2", "g2")]
    )
    out = prune_tool_entries(entries, Config(tool_result_max_last_n={"read": 1}), Stubs())
    assert [s.entry.content[0].content for s in out[1::2]] == [result_marker("read", 1), "r1", "g2"]


def test_input_keys_list_index_keys_first_in_numeric_order():
    """``Object.keys`` of an object: array-index keys (canonical integers below 2**32 - 1) ascending as integers,
    then the other keys in insertion order; 4294967295 is no index, 4294967294 the largest."""
    keys = input_keys({"b": 0, "10": 1, "4294967295": 2, "9": 3, "4294967294": 4, "100": 5, "01": 6})
    assert keys == ["9", "10", "100", "4294967294", "b", "4294967295", "01"]


def test_a_limit_of_0_truncates_every_result_of_the_tool():
    uses = [ToolUse("u0", "read", {}), ToolUse("u1", "read", {})]
    entries = slots([uses[0]], [ToolResult("u0", "r0")], [uses[1]], [ToolResult("u1", "r1")])
    out = prune_tool_entries(entries, Config(tool_result_max_last_n=0), Stubs())
    assert [s.entry.content[0].content for s in out[1::2]] == [result_marker("read", 1), result_marker("read", 0)]


def test_each_tool_beyond_its_limit_loses_its_oldest_results_to_markers_counting_the_fresher():
    """Three ``read`` results over a limit of 1: the two oldest are marked with 2 and 1 fresher results."""
    entries = slots(*[c for k in range(3) for c in ([ToolUse(f"u{k}", "read", {})], [ToolResult(f"u{k}", f"r{k}")])])
    out = prune_tool_entries(entries, Config(tool_result_max_last_n=1), Stubs())
    assert [s.entry.content[0].content for s in out[1::2]] == [result_marker("read", 2), result_marker("read", 1), "r2"]


@pytest.mark.parametrize("first_limit", [None, -1, 1])
def test_a_tool_with_no_limit_a_negative_one_or_none_to_spare_leaves_the_next_tool_limited(first_limit):
    """A tool that is unlisted, has a negative limit (off) or is within its limit does not end the pruning: the
    next tool's results beyond its own limit are still marked."""
    limits = {"grep": 1} if first_limit is None else {"read": first_limit, "grep": 1}
    entries = slots(
        [ToolUse("u0", "read", {})],
        [ToolResult("u0", "r0")],
        [ToolUse("u1", "grep", {})],
        [ToolResult("u1", "g1")],
        [ToolUse("u2", "grep", {})],
        [ToolResult("u2", "g2")],
    )
    out = prune_tool_entries(entries, Config(tool_result_max_last_n=limits), Stubs())
    assert [s.entry.content[0].content for s in out[1::2]] == ["r0", result_marker("grep", 1), "g2"]

"""Tool pruning (docs/model.md, "Tool pruning"): the input cap's marker and edge, and the per-tool result limit."""

from __future__ import annotations

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
    assert input_keys("a\U0001F600") == ["0", "1", "2"]
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
    entries = slots([uses[0]], [ToolResult("u0", "r0")], [uses[1]], [ToolResult("u1", "r1")],
                    [uses[2]], [ToolResult("u2", "g2")])
    out = prune_tool_entries(entries, Config(tool_result_max_last_n={"read": 1}), Stubs())
    assert [s.entry.content[0].content for s in out[1::2]] == [result_marker("read", 1), "r1", "g2"]

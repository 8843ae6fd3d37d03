"""The reference's structural passes and windows (reference/passes.py, reference/images.py, reference/selection.py),
rule by rule against docs/model.md, "Structural passes" and "Windows"."""

from __future__ import annotations

from reference import passes
from reference.images import depth_start, live_flags, stripped
from reference.model import Config, Entry, Image, Message, Store, Text, ToolResult, ToolUse
from reference.selection import Rules, bounds

USE = ToolUse("u1", "read", {"path": "a"})
RESULT = ToolResult("u1", "file contents")


def _pieces(*contents) -> list[passes.Piece]:
    return [passes.Piece.of(k, Entry("user", tuple(c), "raw", message_id=f"m{k}")) for k, c in enumerate(contents)]


def _contents(pieces) -> list[tuple]:
    return [p.entry.content for p in pieces]


def test_trim_pops_trailing_calls_without_results():
    kept = passes.trim(_pieces([Text("a")], [RESULT, USE], [USE], [ToolUse("u2", "grep", 1)]))
    assert _contents(kept) == [(Text("a"),), (RESULT, USE)]


def test_rule_a_drops_a_result_to_no_call_before_and_a_second_answer():
    out = passes.pair(_pieces([USE], [RESULT, RESULT], [ToolResult("zz", "x")]))
    assert _contents(out) == [(USE,), (RESULT,), (Text(passes.CALL_OMITTED_TEXT),)]


def test_rule_b_prepends_into_an_entry_that_answers_and_stubs_what_is_nowhere():
    both = (USE, ToolUse("u2", "grep", 1))
    out = passes.pair(_pieces(both, [ToolResult("u2", "found")]))
    assert _contents(out) == [both, (ToolResult("u1", passes.STUB_TEXT), ToolResult("u2", "found"))]
    assert out[1].stubs == (True, False)


def test_a_call_open_at_the_end_gets_a_stub_entry_owned_by_its_item():
    out = passes.pair(_pieces([Text("a")], [USE]))
    assert [p.entry.kind for p in out] == ["raw", "raw", "repair"]
    assert out[-1].owner == 1 and out[-1].entry.content == (ToolResult("u1", passes.STUB_TEXT),)


def test_pruning_neither_counts_nor_changes_stubs():
    config = Config(tool_result_max_last_n=1)
    out = passes.prune(passes.pair(_pieces([USE], [RESULT], [ToolUse("u2", "read", 1)], [Text("a")])), config)
    # u2's stub stands before m3; u1's real result is the only one counted, so it stays.
    assert _contents(out)[1] == (RESULT,)
    assert _contents(out)[3] == (ToolResult("u2", passes.STUB_TEXT),)


def test_pruning_caps_an_input_and_lists_its_keys_index_keys_first():
    call = ToolUse("u1", "read", {"z": "x" * 20, "10": 1, "2": 2})
    [piece] = passes.prune(_pieces([call]), Config(tool_use_input_max_tokens=1))  # {"2":2,"10":1,"z":"x…"}: 41 chars
    assert piece.entry.content[0].input == {"_truncated": True, "_originalTokens": 11, "_keys": ["2", "10", "z"]}


def test_images_stay_live_newest_message_first_and_last_block_first():
    contents = [(Image(), Image()), (Text("a"), Image())]
    assert live_flags(contents, [0, 1], 0, Config(max_live_images=2)) == [(False, True), (True,)]
    assert live_flags(contents, [0, 1], 1, Config()) == [(False, False), (True,)]
    assert live_flags(contents, [None, 1], 0, Config()) == [(False, False), (True,)]
    assert stripped(contents[0], (False, True)) == (Text("[image omitted]"), Image())


def test_the_depth_starts_after_the_sum_first_exceeds_it():
    assert depth_start([5, 5, 5], 9) == 2
    assert depth_start([5, 5, 5], 15) == 0
    assert depth_start([5, 5, 5], 0) == 0


def test_bounds_step_back_around_a_pair():
    text = Text("a" * 29)  # priced 10
    store = Store(tuple(Message(f"m{i}", "user", c) for i, c in enumerate(
        [(text,), (text, USE), (RESULT,), (text,), (text, ToolUse("u2", "read", 1)), (ToolResult("u2", "x"),)])))
    # the head (window 40) first exceeds at m2 and steps back from after m1's call; the recent window (window
    # 5) opens on m5's result and retreats to its call
    assert bounds(store, Config(head_window_tokens=40, recent_window_tokens=5), Rules()) == (1, 4)

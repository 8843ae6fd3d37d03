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
    store = Store(
        tuple(
            Message(f"m{i}", "user", c)
            for i, c in enumerate(
                [(text,), (text, USE), (RESULT,), (text,), (text, ToolUse("u2", "read", 1)), (ToolResult("u2", "x"),)]
            )
        )
    )
    # the head (window 40) first exceeds at m2 and steps back from after m1's call; the recent window (window
    # 5) opens on m5's result and retreats to its call
    assert bounds(store, Config(head_window_tokens=40, recent_window_tokens=5), Rules()) == (1, 4)


def _cycles(*calls: tuple[str, str]) -> list[passes.Piece]:
    """One call entry and one answering entry per ``(id, tool)``, in order."""
    return _pieces(*[c for uid, tool in calls for c in ([ToolUse(uid, tool, {})], [ToolResult(uid, f"out {uid}")])])


def _truncated(tool: str, newer: str) -> str:
    return f"[Result truncated — tool '{tool}' has {newer} below]"


def test_entries_without_tool_blocks_pass_the_pairing_unchanged():
    pieces = _pieces([Text("a")], [Text("b")])
    assert passes.pair(pieces) == pieces


def test_rule_a_keeps_the_other_blocks_of_an_entry_it_drops_a_result_from():
    out = passes.pair(_pieces([Text("a")], [ToolResult("zz", "x"), Text("b"), ToolResult("yy", "y"), Text("c")]))
    assert _contents(out) == [(Text("a"),), (Text("b"), Text("c"))]


def test_placeholder_texts_are_no_stubs():
    """Only the stub results the pairing makes are stubs; the texts left in emptied entries are not."""
    omitted = passes.pair(_pieces([Text("a")], [ToolResult("zz", "x")]))
    assert omitted[1].entry.content == (Text(passes.CALL_OMITTED_TEXT),) and omitted[1].stubs == (False,)
    moved = passes.pair(_pieces([USE], [Text("a")], [RESULT]))
    assert _contents(moved)[1:] == [(RESULT,), (Text("a"),), (Text(passes.MOVED_TEXT),)]
    assert [p.stubs for p in moved] == [(False,), (False,), (False,), (False,)]


def test_a_moved_result_leaves_the_rest_of_its_entry_in_place():
    out = passes.pair(_pieces([USE], [Text("a")], [Text("b"), RESULT, Text("c")]))
    assert _contents(out) == [(USE,), (RESULT,), (Text("a"),), (Text("b"), Text("c"))]


def test_a_result_is_moved_up_from_the_next_six_entries_only():
    gap = [[Text(str(n))] for n in range(5)]
    near = passes.pair(_pieces([USE], [Text("a")], *gap, [RESULT]))  # the 6th entry after "a"
    assert _contents(near)[1] == (RESULT,) and near[1].stubs == (False,)
    far = passes.pair(_pieces([USE], [Text("a")], *gap, [Text("z")], [RESULT]))  # the 7th: a stub, RESULT dropped
    assert _contents(far)[1] == (ToolResult("u1", passes.STUB_TEXT),) and far[1].stubs == (True,)
    assert _contents(far)[-1] == (Text(passes.CALL_OMITTED_TEXT),)


def test_a_result_already_placed_before_is_never_moved():
    """A reused call id: the result answering the first call stays where it is; the second call is stubbed."""
    out = passes.pair(_pieces([USE], [RESULT, USE], [Text("a")]))
    assert _contents(out) == [(USE,), (RESULT, USE), (ToolResult("u1", passes.STUB_TEXT),), (Text("a"),)]


def test_an_entry_read_again_after_a_repair_entry_keeps_what_it_answered_before():
    use2 = ToolUse("u2", "grep", 1)
    out = passes.pair(_pieces([USE], [RESULT, use2], [Text("a")]))
    assert _contents(out) == [(USE,), (RESULT, use2), (ToolResult("u2", passes.STUB_TEXT),), (Text("a"),)]
    assert out[2].owner == 1 and out[2].entry.kind == "repair"


def test_the_entry_after_a_repair_entry_is_read_and_its_calls_answered_by_the_next():
    """The repair goes in before the entry that did not answer; that entry is then read as any other, so the
    result of its own call, in the entry after it, is kept (docs/model.md, "Structural passes", Rule A)."""
    use2, result2 = ToolUse("u2", "grep", 1), ToolResult("u2", "found")
    out = passes.pair(_pieces([USE], [Text("a"), use2], [result2]))
    assert _contents(out) == [(USE,), (ToolResult("u1", passes.STUB_TEXT),), (Text("a"), use2), (result2,)]
    assert [p.entry.kind for p in out] == ["raw", "repair", "raw", "raw"]


def test_a_stub_entry_at_the_end_is_neither_counted_nor_changed_by_pruning():
    config = Config(tool_result_max_last_n=1)
    out = passes.prune(passes.pair(_pieces([USE], [RESULT], [ToolUse("u2", "read", 1)])), config)
    assert out[-1].stubs == (True,)
    assert _contents(out)[1:] == [(RESULT,), (ToolUse("u2", "read", 1),), (ToolResult("u2", passes.STUB_TEXT),)]


def test_a_moved_result_is_genuine_and_counts_for_pruning():
    config = Config(tool_result_max_last_n=1)
    pieces = _pieces([USE], [Text("a")], [RESULT], [ToolUse("u2", "read", 1)], [ToolResult("u2", "newer")])
    out = passes.prune(passes.pair(pieces), config)
    assert out[1].stubs == (False,)
    assert _contents(out)[1] == (ToolResult("u1", _truncated("read", "1 more recent result")),)


def test_pruning_says_how_many_newer_results_follow():
    out = passes.prune(_cycles(("r1", "read"), ("r2", "read"), ("r3", "read")), Config(tool_result_max_last_n=1))
    assert [c[0].content for c in _contents(out)[1::2]] == [
        _truncated("read", "2 more recent results"),
        _truncated("read", "1 more recent result"),
        "out r3",
    ]


def test_pruning_limits_by_tool_name_and_a_limit_of_zero_truncates_every_result():
    config = Config(tool_result_max_last_n=(("read", 0),))  # grep has no limit, so its results stay
    out = passes.prune(_cycles(("g1", "grep"), ("r1", "read"), ("g2", "grep")), config)
    assert [c[0].content for c in _contents(out)[1::2]] == [
        "out g1",
        _truncated("read", "0 more recent results"),
        "out g2",
    ]


def test_an_input_at_the_cap_is_kept_and_one_over_it_is_capped():
    call = ToolUse("u1", "read", {"a": 1})  # {"a":1}: 7 chars, 2 tokens
    assert passes.prune(_pieces([call]), Config(tool_use_input_max_tokens=2))[0].entry.content == (call,)
    [capped] = passes.prune(_pieces([call]), Config(tool_use_input_max_tokens=1))[0].entry.content
    assert capped.input == {"_truncated": True, "_originalTokens": 2, "_keys": ["a"]}


def test_object_keys_reads_array_indices_below_two_to_the_32_minus_one():
    """JavaScript's array indices are the canonical integers below 2**32 - 1; other keys keep insertion order."""
    value = {"z": 0, "4294967295": 1, "4294967294": 2, "100": 3, "2": 4, "01": 5}
    assert passes.object_keys(value) == ["2", "100", "4294967294", "z", "4294967295", "01"]


def test_object_keys_of_an_array_or_a_string_are_its_indices():
    assert passes.object_keys([7, 8]) == ["0", "1"]
    assert passes.object_keys("a\U0001f600") == ["0", "1", "2"]  # UTF-16 code units: the emoji counts 2
    assert passes.object_keys(3) == []


def test_the_passes_keep_each_block_s_stub_flag():
    store = Store((Message("m0", "assistant", (USE,)), Message("m1", "user", (Text("a"),))))
    pieces = [
        passes.Piece.of(k, Entry(m.participant, m.content, "raw", message_id=m.id))
        for k, m in enumerate(store.messages)
    ]
    out = passes.run(store, Config(), pieces, 0, trim_first=False)
    assert [p.stubs for p in out] == [(False,), (True,), (False,)]
    assert out[1].entry.content == (ToolResult("u1", passes.STUB_TEXT),)


ITEM = {"type": "message", "id": "msg_1"}


def _store(pieces) -> Store:
    return Store(tuple(Message(p.entry.message_id, "user", p.entry.content) for p in pieces))


def _orphan_sibling() -> list[passes.Piece]:
    """A result answering the call before it and an orphan result, sharing one raw item."""
    return _pieces([USE], [ToolResult("u1", "file contents", raw_item=ITEM), ToolResult("zz", "x", raw_item=ITEM)])


def _moved_with_sibling() -> list[passes.Piece]:
    """A call, a turn between, then its result next to a text sharing the result's raw item."""
    return _pieces([USE], [Text("between")], [ToolResult("u1", "big", raw_item=ITEM), Text("after", raw_item=ITEM)])


def test_rule_a_releases_the_form_a_dropped_result_shared_only_when_asked():
    pieces = _orphan_sibling()
    assert _contents(passes.pair(pieces))[1] == (ToolResult("u1", "file contents", raw_item=ITEM),)
    assert _contents(passes.pair(pieces, release=True))[1] == (ToolResult("u1", "file contents"),)


def test_a_moved_result_and_what_it_leaves_give_up_their_shared_form_only_when_asked():
    kept = _moved_with_sibling()
    result, stub = passes._fetch(kept, 1, "u1")
    assert (result, stub) == (ToolResult("u1", "big", raw_item=ITEM), False)
    assert kept[2].entry.content == (Text("after", raw_item=ITEM),)
    released = _moved_with_sibling()
    result, stub = passes._fetch(released, 1, "u1", True)
    assert (result, stub) == (ToolResult("u1", "big"), False)
    assert released[2].entry.content == (Text("after"),)
    out = passes.pair(_moved_with_sibling(), release=True)
    assert _contents(out)[1:] == [(ToolResult("u1", "big"),), (Text("between"),), (Text("after"),)]
    assert _contents(passes.pair(_moved_with_sibling()))[1] == (ToolResult("u1", "big", raw_item=ITEM),)


def test_pruning_releases_the_form_of_a_result_it_edits_only_when_asked():
    pieces = _pieces(
        [USE],
        [ToolResult("u1", "old", raw_item=ITEM), Text("note", raw_item=ITEM)],
        [ToolUse("u2", "read", {})],
        [ToolResult("u2", "new")],
    )
    config = Config(tool_result_max_last_n=1)
    marker = _truncated("read", "1 more recent result")
    assert _contents(passes.prune(pieces, config))[1] == (
        ToolResult("u1", marker, raw_item=ITEM),
        Text("note", raw_item=ITEM),
    )
    assert _contents(passes.prune(pieces, config, release=True))[1] == (ToolResult("u1", marker), Text("note"))


def test_run_trims_when_asked_and_releases_only_when_asked():
    trailing = _pieces([Text("a")], [USE])
    assert _contents(passes.run(_store(trailing), Config(), trailing, 0, True)) == [(Text("a"),)]
    assert len(passes.run(_store(trailing), Config(), trailing, 0, False)) == 3  # the open call gets a stub entry
    pieces = _orphan_sibling()
    assert _contents(passes.run(_store(pieces), Config(), pieces, 0, False))[1] == (
        ToolResult("u1", "file contents", raw_item=ITEM),
    )
    released = passes.run(_store(pieces), Config(), pieces, 0, False, release=True)
    assert _contents(released)[1] == (ToolResult("u1", "file contents"),)


def test_trim_looks_at_the_last_entry_only():
    assert _contents(passes.trim(_pieces([Text("a")], [Text("b")], [USE]))) == [(Text("a"),), (Text("b"),)]
    assert passes.trim(_pieces([USE])) == []

"""Tool pairing (docs/model.md, "Tool pairing"): the window boundaries' step back and the pairing pass's
rules, on small entry lists whose expected output follows from the rules by hand."""

from __future__ import annotations

from reference.model import Entry, Message, Text, ToolResult, ToolUse
from strategies.tool_pairing import (
    LOOKAHEAD,
    MOVED_TEXT,
    STUB_PARTICIPANT,
    STUB_TEXT,
    Slot,
    enforce_tool_pairing,
    head_step_back,
    recent_step_back,
)


def use(uid: str) -> ToolUse:
    return ToolUse(uid, "read", {"path": uid})


def result(uid: str) -> ToolResult:
    return ToolResult(uid, f"output of {uid}")


def stub(uid: str) -> ToolResult:
    return ToolResult(uid, STUB_TEXT)


def messages(*contents) -> tuple[Message, ...]:
    return tuple(Message(f"m{k}", "User", tuple(c)) for k, c in enumerate(contents))


def slots(*contents) -> list[Slot]:
    return [Slot(k, Entry("User", tuple(c), "raw", f"m{k}")) for k, c in enumerate(contents)]


def sent(out: list[Slot]) -> list[tuple[int, tuple]]:
    return [(s.owner, s.entry.content) for s in out]


# ----------------------------------------------------------------------------- window boundaries


def test_a_head_ending_right_after_the_first_message_steps_back_when_it_calls():
    msgs = messages([use("u0")], [result("u0")])
    assert head_step_back(msgs, 1) == 0  # the default start is 0: boundary 1 is past it
    assert head_step_back(msgs, 1, start=1) == 1  # never before the start


def test_a_head_spanning_the_whole_store_steps_back_off_a_trailing_call():
    msgs = messages([Text("a")], [use("u0")])
    assert head_step_back(msgs, 2) == 1
    assert head_step_back(messages([Text("a")], [Text("b")]), 2) == 2


def test_a_recent_window_opening_at_the_second_message_on_a_result_takes_the_first():
    msgs = messages([use("u0")], [result("u0")])
    assert recent_step_back(msgs, 1) == 0


def test_an_empty_recent_window_stays_empty():
    msgs = messages([use("u0")], [result("u0")])
    assert recent_step_back(msgs, 2) == 2


def test_a_recent_window_opening_at_the_first_message_stays_there():
    msgs = messages([result("u0")], [Text("a")])
    assert recent_step_back(msgs, 0) == 0


# ----------------------------------------------------------------------------- Rule B and the stub entries


def test_a_stub_entry_is_a_user_repair_entry_owned_by_the_calling_item():
    out, stubs = enforce_tool_pairing(slots([use("u0")], [Text("a")]))
    assert STUB_PARTICIPANT == "user"
    assert [(s.owner, s.entry.participant, s.entry.kind, s.entry.content) for s in out] == [
        (0, "User", "raw", (use("u0"),)),
        (0, "user", "repair", (stub("u0"),)),
        (1, "User", "raw", (Text("a"),)),
    ]
    assert stubs.blocks == (stub("u0"),)


def test_after_a_stub_entry_the_entry_keeps_its_own_results_and_its_calls_are_answered():
    """m1 answers m0 and calls u1; m2 does not answer u1, so a stub entry goes before m2 and m1 is unchanged."""
    out, _ = enforce_tool_pairing(slots([use("u0")], [result("u0"), use("u1")], [Text("a")]))
    assert sent(out) == [(0, (use("u0"),)), (1, (result("u0"), use("u1"))), (1, (stub("u1"),)), (2, (Text("a"),))]


def test_each_unanswered_call_in_a_row_gets_its_own_stub_entry():
    out, stubs = enforce_tool_pairing(slots([use("u0")], [use("u1")], [Text("a")]))
    assert sent(out) == [
        (0, (use("u0"),)),
        (0, (stub("u0"),)),
        (1, (use("u1"),)),
        (1, (stub("u1"),)),
        (2, (Text("a"),)),
    ]
    assert len(stubs.blocks) == 2


def test_a_moved_result_leaves_the_rest_of_its_entry_in_place():
    out, stubs = enforce_tool_pairing(slots([use("u0")], [Text("a")], [result("u0"), Text("b"), Text("c")]))
    assert sent(out) == [(0, (use("u0"),)), (0, (result("u0"),)), (1, (Text("a"),)), (2, (Text("b"), Text("c")))]
    assert stubs.blocks == ()


def test_a_result_in_the_sixth_entry_after_the_answering_one_is_moved_up():
    assert LOOKAHEAD == 6
    gap = [[Text(f"t{k}")] for k in range(LOOKAHEAD - 1)]
    out, stubs = enforce_tool_pairing(slots([use("u0")], [Text("a")], *gap, [result("u0")]))
    assert out[1].entry.content == (result("u0"),)
    assert out[-1].entry.content == (Text(MOVED_TEXT),)
    assert stubs.blocks == ()


def test_a_result_in_the_seventh_entry_after_the_answering_one_is_out_of_reach():
    gap = [[Text(f"t{k}")] for k in range(LOOKAHEAD)]
    out, stubs = enforce_tool_pairing(slots([use("u0")], [Text("a")], *gap, [result("u0")]))
    assert out[1].entry.content == (stub("u0"),)
    assert out[-1].entry.content == (Text("[tool call omitted]"),)  # Rule A: it answers nothing before it
    assert stubs.blocks == (stub("u0"),)


def test_results_are_looked_for_only_after_the_answering_entry():
    """An earlier orphan result for the same id (dropped by Rule A) is not moved forward: the call gets a stub."""
    out, stubs = enforce_tool_pairing(slots([result("u0")], [use("u0")], [Text("a")]))
    assert sent(out) == [(0, (Text("[tool call omitted]"),)), (1, (use("u0"),)), (1, (stub("u0"),)), (2, (Text("a"),))]
    assert stubs.blocks == (stub("u0"),)


def test_a_result_in_the_calling_entry_itself_is_not_moved():
    """The bundled cycle (docs/model.md, "Tool pairing", its notes for the maintainers): m1's own u0 result
    answers m0's u0 and the u0 m1 calls again gets a stub, though m1 held a real result for that id."""
    out, _ = enforce_tool_pairing(slots([use("u0")], [use("u0"), result("u0")], [Text("a")]))
    assert sent(out) == [(0, (use("u0"),)), (1, (use("u0"), result("u0"))), (1, (stub("u0"),)), (2, (Text("a"),))]


def test_a_call_left_open_at_the_end_is_answered_by_a_stub_entry_of_the_last_item():
    out, _ = enforce_tool_pairing(slots([Text("a")], [Text("b")], [use("u0")]))
    assert [(s.owner, s.entry.kind) for s in out] == [(0, "raw"), (1, "raw"), (2, "raw"), (2, "repair")]
    assert out[-1].entry.content == (stub("u0"),)

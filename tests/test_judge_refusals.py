"""The refusal invariants judged (``invariants/properties/refusals.py``): diagnostics and diagnostics-full break on
every named defect they exist to catch, alone in ``sound`` over a small store, and on every field of a refusal
changed by hand in both directions; each holds on ``sound`` there."""

from __future__ import annotations

import dataclasses

import pytest

from invariants import examples as known
from invariants.generators import Case
from invariants.properties import head_end, head_entries, head_total, refused_prefix, sent_head_total
from invariants.properties.line_rules import judged_as
from reference.estimator import content_tokens
from reference.model import Budget, Config, Entry, Image, Message, Store, Text, ToolResult, ToolUse, Work
from strategies.cap import truncate
from strategies.defects import Defect, parse_variant
from tests import judge_cases as cases
from tests.builders import msg, store, summary
from tests.judge_helpers import broken, judged, tamper, with_diagnostics


def _at(case: Case, max_tokens: int) -> Case:
    """``case`` at another configured budget (its reserve kept): a refusal where it sent."""
    return Case(case.store, case.config, Budget(max_tokens, case.budget.reserve_for_response))


#: (invariant, defect, case, words): each defect alone breaks the invariant on the case.
DEFECT_BREAKS = [
    ("diagnostics", Defect.CLEARED_BY_ANYWHERE, known.MIDDLE_REFUSAL_AFTER_HEAD, "is not folded by queued work"),
    ("diagnostics", Defect.HEAD_CLEARED_BY_ANYWHERE, known.HEAD_REFUSAL_WITH_WORK, "compression never folds the head"),
    ("diagnostics", Defect.HEAD_AS_MIDDLE, known.MIDDLE_REFUSAL_AFTER_HEAD, "head_tokens is 0, but the 1 head"),
    ("diagnostics", Defect.PREFIX_NO_RAW, known.PREFIX_RAW_BEFORE, "['m0', 'm1'] is folded"),
    ("diagnostics", Defect.PREFIX_NO_LEAVES, known.PREFIX_PAIR_BEFORE, "['m0', 'm1'] is folded"),
    ("diagnostics", Defect.PREFIX_NO_REFUSED, known.PREFIX_REFUSED_ITSELF, "['m0', 'm1'] is folded"),
    ("diagnostics", Defect.NARROW_NO_CHUNK, known.MIDDLE_REFUSAL_AFTER_HEAD, "is not folded"),
    ("diagnostics", Defect.NARROW_NO_MERGE, known.WORK_AFTER_REFUSAL, "is not folded"),
    ("diagnostics", Defect.COMBINED_PREFIX_AT_PAIR, known.PREFIX_AT_COMBINED, "['m0'] is folded"),
    ("diagnostics", Defect.COMBINED_PREFIX_AT_RAW, known.PREFIX_AFTER_COMBINED, "['m0', 'm1'] is folded"),
    ("diagnostics-full", Defect.HEAD_AS_MIDDLE, known.MIDDLE_REFUSAL_AFTER_HEAD, "head_tokens is 0, expected 4"),
    ("diagnostics-full", Defect.QUESTION_PRICED_AS_LABEL, known.ONE_PAIR, "actual is"),
    ("diagnostics-full", Defect.ANSWER_PRICED_UNCAPPED, cases.scenario("305-answer-priced-uncapped"), "actual is"),
    ("diagnostics-full", Defect.FLOOR_UNHELD, cases.scenario("floor-xml-cap-leaves-out"), "actual is"),
    (
        "diagnostics-full",
        Defect.ENVELOPE_ABSORBED,
        _at(cases.scenario("305-envelope-absorbed"), 11),
        "actual is 522, expected 543",
    ),
    (
        "diagnostics-full",
        Defect.COMBINED_NO_FLOOR,
        _at(cases.scenario("floor-cap-cut-text"), 11),
        "actual is 57, expected 447",
    ),
    (
        "diagnostics-full",
        Defect.VIEW_NEVER_BOUND,
        _at(cases.scenario("view-positioned-pair"), 5),
        "actual is 16, expected 32",
    ),
    ("diagnostics-full", Defect.EMPTY_CARRIERS_FLOOR, _at(cases.EMPTY_CARRIERS, 11), "actual is 116, expected 26"),
    ("diagnostics-full", Defect.TOOL_PASSES_UNPRICED, _at(cases.STUB_AFTER_CALL, 5), "actual is 26, expected 53"),
    ("diagnostics-full", Defect.IMAGE_COUNT_STORE_WIDE, _at(cases.MIDDLE_IMAGE, 5), "actual is 7, expected 1600"),
    ("diagnostics-full", Defect.RAW_CAP_PLUS_50, _at(known.RAW_CAP_BELOW_SENT, 5), "actual is 144, expected 152"),
    ("diagnostics-full", Defect.UNCHECKED_BAD_VALUES, _at(cases.HEAD_THEN_PAIR_REFUSED, 5), "over the grace limit -6"),
    (
        "diagnostics-full",
        Defect.COMBINED_UNCHECKED,
        known.PREFIX_AT_COMBINED,
        "already priced over the grace limit 20",
    ),
]


@pytest.mark.parametrize(
    "invariant, defect, case, words", DEFECT_BREAKS, ids=[f"{i}-{d.name}" for i, d, _, _ in DEFECT_BREAKS]
)
def test_each_refusal_invariant_breaks_on_the_defects_it_exists_to_catch(invariant, defect, case, words):
    assert judged(invariant, case, "sound") == []
    broken(invariant, case, frozenset({defect}), words)


def _changed(**fields):
    return lambda err, b: with_diagnostics(err, **fields)


def _shifted(field: str, delta: int, other: str | None = None):
    """A refusal with ``field`` moved by ``delta`` (and ``other`` by ``-delta``, keeping a sum)."""

    def change(err, b):
        d = err.diagnostics
        moved = {field: getattr(err if field in ("actual", "budget") else d, field) + delta}
        if other is not None:
            moved[other] = getattr(d, other) - delta
        return with_diagnostics(err, **moved)

    return change


# ----------------------------------------------------------------------------- diagnostics

MIDDLE = known.MIDDLE_REFUSAL_AFTER_HEAD  # refuses m1 after a head of m0 (4): actual 75, nothing cleared
HEAD = known.HEAD_REFUSAL_WITH_WORK  # refuses m0, the head, with queued chunk work
FOLDED = known.PREFIX_RAW_BEFORE  # refuses m1; work folds m0, sent before: cleared by compression


@pytest.mark.proves("diagnostics")
@pytest.mark.parametrize("delta", [1, -1])
def test_diagnostics_breaks_when_the_parts_do_not_sum_to_the_actual(monkeypatch, delta):
    assert judged("diagnostics", MIDDLE) == []
    tamper(monkeypatch, refused=_shifted("middle_tokens", delta))
    broken("diagnostics", MIDDLE, "sound", f"middle_tokens {71 + delta}", f"= {75 + delta}, not the actual 75")


@pytest.mark.parametrize("delta", [1, -1])
def test_diagnostics_breaks_on_tail_tokens_that_break_the_sum(monkeypatch, delta):
    tamper(monkeypatch, refused=_shifted("tail_tokens", delta))
    broken("diagnostics", MIDDLE, "sound", f"tail_tokens {delta}", "not the actual 75")


def test_diagnostics_breaks_when_cleared_by_names_something_other_than_compression(monkeypatch):
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset({"budget"})))
    broken("diagnostics", MIDDLE, "sound", "cleared_by ['budget'] names something other than compression")


def test_diagnostics_breaks_at_a_head_refusal_that_names_compression(monkeypatch):
    assert judged("diagnostics", HEAD) == []
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset({"compression"})))
    broken("diagnostics", HEAD, "sound", "at a head refusal", "cleared_by is ['compression']")


@pytest.mark.parametrize("delta", [1, -1])
def test_diagnostics_breaks_at_a_head_refusal_with_middle_tokens(monkeypatch, delta):
    tamper(monkeypatch, refused=_shifted("middle_tokens", delta, "head_tokens"))
    broken("diagnostics", HEAD, "sound", f"middle_tokens is {delta}, not 0")


@pytest.mark.parametrize("delta", [1, -1])
def test_diagnostics_breaks_at_a_middle_refusal_whose_head_tokens_are_not_the_heads(monkeypatch, delta):
    tamper(monkeypatch, refused=_shifted("head_tokens", delta, "middle_tokens"))
    broken(
        "diagnostics", MIDDLE, "sound", f"head_tokens is {4 + delta}, but the 1 head message(s) as sent are priced 4"
    )


def test_diagnostics_breaks_when_compression_is_named_and_nothing_before_is_folded(monkeypatch):
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset({"compression"})))
    broken("diagnostics", MIDDLE, "sound", "cleared_by is ['compression']", "is not folded by queued work")


def test_diagnostics_breaks_when_compression_is_left_out_though_the_prefix_is_folded(monkeypatch):
    assert judged("diagnostics", FOLDED) == []
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset()))
    broken("diagnostics", FOLDED, "sound", "cleared_by is []", "is folded by queued work (work: chunk queued")


#: MIDDLE with its work folding m0, the head, alone: the refused prefix (m1) is not folded, so nothing clears it.
HEAD_FOLDED = dataclasses.replace(
    MIDDLE, store=dataclasses.replace(MIDDLE.store, work=(Work("chunk", "queued", frozenset({"m0"})),))
)


def test_diagnostics_reads_the_prefix_from_the_first_middle_entry_not_the_head(monkeypatch):
    """Work folding a head message does not clear a middle refusal (docs/model.md, Compression work and
    cleared_by): sound names nothing and holds; a compile naming compression there breaks."""
    assert judged("diagnostics", HEAD_FOLDED) == []
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset({"compression"})))
    broken("diagnostics", HEAD_FOLDED, "sound", "cleared_by is ['compression']", "the refused prefix ['m1'] is not")


# ----------------------------------------------------------------------------- diagnostics-full

PAIR = cases.HEAD_THEN_PAIR_REFUSED  # refuses L1-0's pair after a head of m0 (10): 40 configured, 10 kept, 30 input
AFTER_COMBINED = known.PREFIX_AFTER_COMBINED  # refuses m1, raw after the combined pair: raw-messages

#: Every numeric field of the diagnostics and what the pair's refusal reports there.
FIELDS = {
    "middle_count": 2,
    "deepest_level": 1,
    "tail_tokens": 0,
    "configured_budget": 40,
    "reserve_for_response": 10,
    "input_budget": 30,
}


@pytest.mark.proves("diagnostics-full")
@pytest.mark.parametrize("delta", [1, -1])
@pytest.mark.parametrize("field", list(FIELDS))
def test_diagnostics_full_breaks_on_each_field_off_either_way(monkeypatch, field, delta):
    assert judged("diagnostics-full", PAIR) == []
    tamper(monkeypatch, refused=_changed(**{field: FIELDS[field] + delta}))
    broken("diagnostics-full", PAIR, "sound", f"{field} is {FIELDS[field] + delta}, expected {FIELDS[field]}")


@pytest.mark.parametrize("delta", [1, -1])
@pytest.mark.parametrize("field, value", [("actual", 66), ("budget", 30)])
def test_diagnostics_full_breaks_on_the_actual_or_the_grace_limit_off_either_way(monkeypatch, field, value, delta):
    tamper(monkeypatch, refused=_changed(**{field: value + delta}))
    broken("diagnostics-full", PAIR, "sound", f"{field} is {value + delta}, expected {value}")


@pytest.mark.parametrize("delta", [1, -1])
def test_diagnostics_full_breaks_on_the_head_and_middle_split_off_either_way(monkeypatch, delta):
    tamper(monkeypatch, refused=_shifted("head_tokens", delta, "middle_tokens"))
    broken(
        "diagnostics-full",
        PAIR,
        "sound",
        f"head_tokens is {10 + delta}, expected 10",
        f"middle_tokens is {56 - delta}, expected 56",
    )


def test_diagnostics_full_breaks_on_the_wrong_unit_at_each_site(monkeypatch):
    assert judged("diagnostics-full", AFTER_COMBINED) == []
    tamper(monkeypatch, refused=_changed(middle_count_unit="raw-messages"))
    broken("diagnostics-full", PAIR, "sound", "middle_count_unit is 'raw-messages', expected 'selection-items'")
    tamper(monkeypatch, refused=_changed(middle_count_unit="selection-items"))
    broken("diagnostics-full", AFTER_COMBINED, "sound", "expected 'raw-messages'")


def test_diagnostics_full_breaks_when_the_items_before_are_already_over_the_limit(monkeypatch):
    """A refusal whose grace limit is under the head's price: the head alone was already over it."""
    tamper(monkeypatch, refused=_changed(budget=5))
    broken("diagnostics-full", PAIR, "sound", "the items before recall pair", "already priced over the grace limit 5")


def test_diagnostics_full_breaks_on_a_refused_item_the_reference_layout_does_not_have(monkeypatch):
    def elsewhere(err, b):
        changed = with_diagnostics(err)
        changed.refused = ("L9",)
        return changed

    tamper(monkeypatch, refused=elsewhere)
    broken("diagnostics-full", PAIR, "sound", "ids ['L9']", "no item of the reference layout")


def test_diagnostics_full_breaks_on_a_refusal_in_the_tail(monkeypatch):
    def in_the_tail(err, b):
        changed = with_diagnostics(err)
        changed.refused = ("m3",)
        return changed

    with_tail = Case(PAIR.store, dataclasses.replace(PAIR.config, recent_window_tokens=15), PAIR.budget)
    assert judged("diagnostics-full", with_tail) == []
    tamper(monkeypatch, refused=in_the_tail)
    broken("diagnostics-full", with_tail, "sound", "in the tail was refused; the tail evicts, it never refuses")


def test_diagnostics_full_holds_at_a_head_refusal_and_breaks_on_its_split(monkeypatch):
    assert judged("diagnostics-full", HEAD) == []
    tamper(monkeypatch, refused=_shifted("head_tokens", -1, "middle_tokens"))
    broken("diagnostics-full", HEAD, "sound", "head_tokens is 1, expected 2", "middle_tokens is 1, expected 0")


# ----------------------------------------------------------------------------- the head and the refused prefix

FIVE = store(5)  # five messages of 10


@pytest.mark.parametrize(
    "window, end", [(-1, 0), (0, 0), (9, 0), (10, 1), (19, 1), (20, 2), (25, 2), (49, 4), (50, 5), (10**6, 5)]
)
def test_the_head_ends_before_the_first_message_that_takes_it_past_the_window(window, end):
    assert head_end(FIVE, Config(head_window_tokens=window)) == end


def _call(i: int, use: str) -> Message:
    return Message(f"m{i}", "assistant", (ToolUse(use, "read", {}),))


def _result(i: int, use: str) -> Message:
    return Message(f"m{i}", "user", (ToolResult(use, "x" * 29),))


def test_a_head_boundary_right_after_a_tool_use_steps_back_one():
    """m0 text, m1 a call, m2 its result: a window ending at m2 ends at m1 instead; at m1 (after a text) it stays."""
    calls = Store((msg(0), _call(1, "u1"), _result(2, "u1"), msg(3)))
    e = [content_tokens(m.content, calls) for m in calls.messages]
    assert head_end(calls, Config(head_window_tokens=e[0] + e[1])) == 1
    assert head_end(calls, Config(head_window_tokens=e[0])) == 1
    first = Store((_call(0, "u0"), _result(1, "u0")))
    assert head_end(first, Config(head_window_tokens=0.5)) == 0


def test_the_head_as_sent_is_priced_under_the_cap_up_to_its_end():
    assert head_total(FIVE, Config(), 0) == 0
    assert head_total(FIVE, Config(), 2) == 20
    assert head_total(FIVE, Config(max_message_tokens=4), 3) == 3 * content_tokens(
        truncate(FIVE.messages[0].content, 4), FIVE
    )
    assert head_total(FIVE, Config(max_message_tokens=4), 3) != 30  # each cut, with its marker


def _raw(m: Message) -> Entry:
    return Entry(m.participant, m.content, "raw", m.id)


REPAIR = Entry("user", (Text("repaired"),), "repair")


def test_the_head_entries_are_its_raw_messages_and_the_repairs_among_them():
    sent = (_raw(FIVE.messages[0]), REPAIR, _raw(FIVE.messages[1]), _raw(FIVE.messages[2]), REPAIR)
    assert head_entries(FIVE, sent, 0) == 0
    assert head_entries(FIVE, sent, 1) == 2
    assert head_entries(FIVE, sent, 2) == 3
    assert head_entries(FIVE, sent, 3) == 5
    question = Entry("user", (Text("q"),), "question", summary_ids=("L1-0",))
    assert head_entries(FIVE, (question, *sent), 5) == 0
    assert head_entries(FIVE, (), 5) == 0
    assert sent_head_total(FIVE, sent, 2) == 20 + content_tokens(REPAIR.content, FIVE)
    assert sent_head_total(FIVE, sent, 0) == 0


def test_the_refused_prefix_runs_from_the_first_middle_entry_to_the_refused_item():
    """The raw ids and the answers' leaves after the head, up to and including the refused raw message or answer."""
    tree = store(6, [summary("L1-0", 1, 2)])
    m = tree.messages
    qa = (
        Entry("user", (Text("q"),), "question", summary_ids=("L1-0",)),
        Entry("assistant", (Text("a"),), "answer", summary_ids=("L1-0",)),
    )
    sent = (_raw(m[0]), *qa, _raw(m[3]), _raw(m[4]), _raw(m[5]))
    assert refused_prefix(tree, sent, 1, ("m4",)) == {"m1", "m2", "m3", "m4"}
    assert refused_prefix(tree, sent, 1, ("L1-0",)) == {"m1", "m2"}
    assert refused_prefix(tree, sent, 0, ("m3",)) == {"m0", "m1", "m2", "m3"}
    assert refused_prefix(tree, sent, 1, ("m0",)) is None
    assert refused_prefix(tree, sent, 1, ("m4", "m5")) is None


def test_a_head_window_of_zero_holds_nothing_and_one_token_holds_a_message_of_one():
    """A window of 0 is no head, even over a first message priced 0; a window of 1 holds a first message of 1."""
    free_first = Store((Message("m0", "user", (Text(""),)), msg(1)))
    assert head_end(free_first, Config(head_window_tokens=0)) == 0
    one_first = Store((Message("m0", "user", (Text("a"),)), msg(1)))
    assert content_tokens(one_first.messages[0].content, one_first) == 1
    assert head_end(one_first, Config(head_window_tokens=1)) == 1


def test_a_head_boundary_after_a_first_message_that_calls_steps_back_to_nothing():
    """The boundary at m1, right after m0's call: no head; a boundary at m0 has no message before it to step back
    over (the last message's call is not before it)."""
    call_first = Store((_call(0, "u0"), _result(1, "u0"), msg(2)))
    window = content_tokens(call_first.messages[0].content, call_first)
    assert head_end(call_first, Config(head_window_tokens=window)) == 0
    call_last = Store((msg(0), _call(1, "u1")))
    assert head_end(call_last, Config(head_window_tokens=0.5)) == 0


# ----------------------------------------------------------------------------- the messages a reviewer reads


@pytest.mark.parametrize("delta", [1, -1])
def test_diagnostics_states_the_three_parts_their_sum_and_the_actual(monkeypatch, delta):
    """The sum message names each part, their sum (the tail added, not taken away) and the refused item."""
    tamper(monkeypatch, refused=_shifted("tail_tokens", delta))
    [found] = judged("diagnostics", MIDDLE)
    assert found.message == (
        f"head_tokens 4 + middle_tokens 71 + tail_tokens {delta} = {75 + delta}, not the actual 75 "
        "(message 'm1' (middle) refused)"
    )


def test_diagnostics_adds_the_tail_tokens_into_the_sum(monkeypatch):
    """Tail tokens taken from the middle keep the parts summing to the actual: the sum holds (diagnostics-full, not
    this invariant, says the tail is 0)."""
    tamper(monkeypatch, refused=_shifted("tail_tokens", 3, "middle_tokens"))
    assert judged("diagnostics", MIDDLE) == []
    [full] = judged("diagnostics-full", MIDDLE)
    assert full.message == (
        "at the positioned refusal of message 'm1' (middle): tail_tokens is 3, expected 0; middle_tokens is 68, "
        "expected 71"
    )


def test_diagnostics_states_why_a_head_refusal_names_no_compression(monkeypatch):
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset({"compression"})))
    [found] = judged("diagnostics", HEAD)
    assert found.message == (
        "at a head refusal (message 'm0' (head)) cleared_by is ['compression'], but compression never folds the head "
        "away"
    )


#: Twelve messages of 10, a head of m0: m10 is refused at 105 (m0 to m10 priced 110); the prefix m1..m10 is folded
#: by the chunk over m1 and by the merge in flight that recorded nothing (folds None).
TWELVE = Case(
    store(12, work=[Work("chunk", "queued", frozenset({"m1"})), Work("merge", "running", None)]),
    Config(head_window_tokens=15),
    Budget(105),
)


def test_diagnostics_lists_the_prefix_in_store_order_and_each_piece_of_work(monkeypatch):
    """The refused prefix m1..m10 in store order (m10 last, not after m1) and every work item, its folds or
    'unrecorded' when it recorded none, joined by '; '."""
    assert judged("diagnostics", TWELVE) == []
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset()))
    [found] = judged("diagnostics", TWELVE)
    prefix = [f"m{i}" for i in range(1, 11)]
    assert found.message == (
        f"at a middle refusal (message 'm10' (middle)) cleared_by is [], but the refused prefix {prefix} is folded "
        "by queued work (work: chunk queued folding ['m1']; merge running folding unrecorded)"
    )


def test_diagnostics_says_none_when_no_work_is_queued(monkeypatch):
    idle = dataclasses.replace(MIDDLE, store=dataclasses.replace(MIDDLE.store, work=()))
    assert judged("diagnostics", idle) == []
    tamper(monkeypatch, refused=_changed(cleared_by=frozenset({"compression"})))
    [found] = judged("diagnostics", idle)
    assert found.message == (
        "at a middle refusal (message 'm1' (middle)) cleared_by is ['compression'], but the refused prefix ['m1'] is "
        "not folded by queued work (work: none)"
    )


def test_diagnostics_full_joins_its_findings_in_one_message(monkeypatch):
    tamper(monkeypatch, refused=_shifted("head_tokens", 1, "middle_tokens"))
    [found] = judged("diagnostics-full", PAIR)
    assert found.message == (
        "at the positioned refusal of recall pair for 'L1-0': head_tokens is 11, expected 10; middle_tokens is 55, "
        "expected 56"
    )


#: A line whose stripped image is sent as "[image dropped from live context]" (12) where sound sends "[image omitted]"
#: (7). m1's image lies past the image depth of 10 (m2 alone is 10), so it is stripped; at a budget of 12 the line
#: refuses m1 in the middle, its actual 22 (m0 10 + 12).
DROPPED_LINE = parse_variant("sound+IMAGE_PLACEHOLDER_DROPPED")
_DEEP_IMAGE = Store((msg(0), Message("m1", "user", (Image(),)), msg(2)))


@pytest.mark.parametrize(
    "window, by_sound",
    [
        # No recent window: m1 is in the middle by either rule; sound's placeholder prices it 17.
        (
            0,
            "at the positioned refusal of message 'm1' (middle): actual is 22, expected 17; middle_tokens is 22, "
            "expected 17",
        ),
        # A recent window of 18: m2 and the line's m1 (10 + 12) pass it, so m1 stays in the middle; by sound's
        # placeholder (10 + 7) m1 would be in the tail.
        (18, "message 'm1' (middle) in the tail was refused; the tail evicts, it never refuses"),
    ],
    ids=["no-recent-window", "recent-window-18"],
)
def test_diagnostics_full_judges_a_line_by_its_own_image_rules(window, by_sound):
    """The reference layout takes the line's rules for the windows and its switches for what is sent: the line's
    refusal holds by them, and judged by sound's rules it would break."""
    case = Case(_DEEP_IMAGE, Config(image_strip_depth_tokens=10, recent_window_tokens=window), Budget(12))
    assert judged("diagnostics-full", case, DROPPED_LINE) == []
    with judged_as("sound"):
        [found] = judged("diagnostics-full", case, DROPPED_LINE)
    assert found.message == by_sound

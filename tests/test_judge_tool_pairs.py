"""The well-formed invariant judged (``invariants/properties/tool_pairs.py``): no named defect sends a malformed
context (the TypeScript repairs every split), so hand-built wrong compiles break it in each direction; sound holds."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import Case
from invariants.properties import Violation, pairing_faults
from reference.model import Budget, Config, Entry, Text, ToolResult, ToolUse
from tests import judge_cases as cases
from tests.judge_helpers import broken, judged, tamper, with_entries

# ----------------------------------------------------------------------------- well-formed

CALL = Case(cases.TRAILING_CALL.store, Config(recent_window_tokens=1000), Budget(max_tokens=1000))


@pytest.mark.proves("well-formed")
def test_well_formed_breaks_on_a_call_left_unanswered(monkeypatch):
    assert judged("well-formed", CALL) == []
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, lambda k: k < 2))
    broken("well-formed", CALL, "sound", "holds a tool_use 'u0' that entry 2 does not answer")


def test_well_formed_breaks_on_a_result_no_call_asked_for(monkeypatch):
    stray = Entry("user", (ToolResult("u9", "x"),), "repair")
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, extra=(stray,)))
    broken("well-formed", CALL, "sound", "tool_result for 'u9' that no tool_use of entry 2 asked for")


def test_well_formed_breaks_on_a_call_answered_twice(monkeypatch):
    def twice(r, b):
        last = r.entries[2]
        return dataclasses.replace(r, entries=(*r.entries[:2], dataclasses.replace(last, content=last.content * 2)))

    tamper(monkeypatch, sent=twice)
    broken("well-formed", CALL, "sound", "answers tool_use 'u0' twice")


# ----------------------------------------------------------------------------- every fault, where it is


def _raw(mid: str, *content) -> Entry:
    return Entry("user", tuple(content), "raw", mid)


def _use(uid: str) -> ToolUse:
    return ToolUse(uid, "read", {})


#: A sequence with one of each fault (and pairs done right around them): a result first of all, a call answered
#: twice (past a text block), an answer's result for a call two entries back, and two calls left for after the last.
FAULTY = (
    _raw("m0", ToolResult("u0", "x")),
    _raw("m1", Text("calls"), _use("u1"), _use("u2")),
    _raw("m2", ToolResult("u2", "x"), Text("between"), ToolResult("u1", "x"), ToolResult("u1", "x")),
    Entry("assistant", (_use("u3"), ToolResult("u1", "x")), "answer", None, ("L1-0",)),
    Entry("user", (ToolResult("u3", "x"),), "repair"),
    _raw("m5", _use("u5")),
    _raw("m6", ToolResult("u5", "x"), _use("u4"), _use("u0")),
)


def test_pairing_faults_names_each_fault_by_entry_and_id():
    assert pairing_faults(FAULTY) == [
        "entry 0 (raw m0) holds a tool_result for 'u0' that no tool_use of entry -1 asked for",
        "entry 2 answers tool_use 'u1' twice",
        "entry 3 (answer ('L1-0',)) holds a tool_result for 'u1' that no tool_use of entry 2 asked for",
        "entry 6 (raw m6) holds a tool_use 'u0' that entry 7 does not answer",
        "entry 6 (raw m6) holds a tool_use 'u4' that entry 7 does not answer",
    ]


def test_pairing_faults_finds_none_in_pairs_across_adjacent_entries():
    calls, answers = FAULTY[1], _raw("m2", ToolResult("u2", "x"), Text("between"), ToolResult("u1", "x"))
    assert pairing_faults((FAULTY[5], _raw("m6", ToolResult("u5", "x")), calls, answers)) == []
    assert pairing_faults(()) == []


_BLOCKS = st.one_of(
    st.builds(ToolUse, st.sampled_from(("u0", "u1")), st.just("read"), st.just({})),
    st.builds(ToolResult, st.sampled_from(("u0", "u1")), st.just("ok")),
    st.just(Text("prose")),
)
_ENTRIES = st.lists(st.lists(_BLOCKS, max_size=3).map(lambda c: Entry("user", tuple(c), "raw")), max_size=4)


def _well_formed_by_definition(entries: list[Entry]) -> bool:
    """Each entry's results answer exactly the calls of the entry before it (none before the first), each once."""
    uses = [[b.id for b in e.content if isinstance(b, ToolUse)] for e in entries]
    results = [[b.tool_use_id for b in e.content if isinstance(b, ToolResult)] for e in entries]
    asked = [[], *uses]  # what each entry must answer: the calls of the one before it
    if uses and uses[-1]:
        return False  # the last entry's calls are answered by nothing
    return all(len(got) == len(set(got)) and set(got) == set(want) for got, want in zip(results, asked, strict=False))


@given(entries=_ENTRIES)
def test_pairing_faults_finds_a_fault_exactly_where_the_provider_rule_is_broken(entries):
    """Over any short list of entries of calls, results and prose (the first entry and the last included), some fault
    is named exactly when a result answers no call of the entry just before it, answers one twice, or a call goes
    unanswered in the entry just after it."""
    assert (pairing_faults(tuple(entries)) == []) == _well_formed_by_definition(entries), pairing_faults(tuple(entries))


# ----------------------------------------------------------------------------- the message: three faults at most

#: The three faults every cut of FAULTY from its first five entries on starts with, as well-formed lists them.
FIRST_THREE = (
    "entry 0 (raw m0) holds a tool_result for 'u0' that no tool_use of entry -1 asked for; "
    "entry 2 answers tool_use 'u1' twice; "
    "entry 3 (answer ('L1-0',)) holds a tool_result for 'u1' that no tool_use of entry 2 asked for"
)


@pytest.mark.parametrize(
    "sent, faults, more",
    [(5, 3, ""), (6, 4, " (and 1 more)"), (7, 5, " (and 2 more)")],
    ids=["three-faults", "four-faults", "five-faults"],
)
def test_well_formed_lists_the_first_three_faults_and_counts_the_rest(monkeypatch, sent, faults, more):
    """The first 5, 6 or 7 entries of FAULTY (3, 4 or 5 faults) sent: the message names the first three faults
    in order, joined by '; ', and says how many more there are only when there are more."""
    assert len(pairing_faults(FAULTY[:sent])) == faults
    tamper(monkeypatch, sent=lambda r, b: dataclasses.replace(r, entries=FAULTY[:sent]))
    assert judged("well-formed", CALL) == [Violation("well-formed", f"of the {sent} entries sent, {FIRST_THREE}{more}")]

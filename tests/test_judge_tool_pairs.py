"""The well-formed invariant judged (``invariants/properties/tool_pairs.py``): no named defect sends a malformed
context (the TypeScript repairs every split), so hand-built wrong compiles break it in each direction; sound holds."""

from __future__ import annotations

import dataclasses

from invariants.generators import Case
from reference.model import Budget, Config, Entry, ToolResult
from tests import judge_cases as cases
from tests.judge_helpers import broken, judged, tamper, with_entries

# ----------------------------------------------------------------------------- well-formed

CALL = Case(cases.TRAILING_CALL.store, Config(recent_window_tokens=1000), Budget(max_tokens=1000))


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

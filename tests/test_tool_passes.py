"""The tool-pairing, tool-pruning and image passes (docs/model.md, "Structural passes").

Each new TypeScript defect has a minimal scenario, red on the faithful variants and green on sound;
the passes themselves are pinned rule by rule; the well-formed invariant holds on every variant.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings

from invariants import assert_holds, check
from invariants.generators import Case, cases, tool_cases
from invariants.properties import pairing_faults
from reference.model import Budget, Config, Entry, Image, Message, Store, Summary, Text, ToolResult, ToolUse
from strategies import HierarchicalStrategy
from strategies.defects import Defect
from strategies.images import PLACEHOLDER, decide, strip, strip_start
from strategies.tool_pairing import (
    CALL_OMITTED_TEXT,
    MOVED_TEXT,
    STUB_TEXT,
    Slot,
    Stubs,
    enforce_tool_pairing,
    trim_orphaned_tool_use,
)
from strategies.tool_pruning import prune_tool_entries, result_marker
from strategies.windows import windows

FAITHFUL = ("main-48bb87a1", "pr-8bb01ab8")
USE = ToolUse("u0", "read", {"path": "a"})
RESULT = ToolResult("u0", "file contents")


def _m(i: int, *content, participant: str = "User") -> Message:
    return Message(f"m{i}", participant, tuple(content))


def _l1(sid: str, *ids: str) -> Summary:
    return Summary(sid, 1, "the agent read a file", 5, 0, ids, (ids[0], ids[-1]))


#: The call raw in the middle (no summary), its answer folded into L1-0: the pairing pass inserts a
#: stub result after the call, which the stats and the grace checks never see (TOOL_PASSES_UNPRICED).
STUB_AFTER_CALL = Case(
    Store((_m(0, USE, participant="Claude"), _m(1, RESULT)), (_l1("L1-0", "m1"),)), Config(), Budget(46)
)

#: The newest message is an unanswered call: trimOrphanedToolUse pops it after the coverage check, so
#: it is lost with no refusal (TRIM_DROPS_TRAILING_TOOL_USE); sound answers it with a priced stub.
TRAILING_CALL = Case(
    Store((_m(0, Text("hello")), _m(1, USE, participant="Claude"))), Config(recent_window_tokens=1000), Budget(1000)
)

#: Two images in the tail, one live image allowed: the older is sent as a placeholder but the tail
#: is priced before stripping (TAIL_PRICED_PRE_STRIP).
TAIL_IMAGES = Case(
    Store((_m(0, Image()), _m(1, Image()))), Config(recent_window_tokens=10**6, max_live_images=1), Budget(10**6)
)

#: m0's image is raw in the middle, m1's is folded into L1-0: over the whole store m1's is the newest,
#: so m0 is priced as a placeholder, but among the entries sent m0's is the only image and goes out
#: whole (IMAGE_COUNT_STORE_WIDE): 1614 tokens sent under a grace limit of 30.
MIDDLE_IMAGE = Case(
    Store((_m(0, Image()), _m(1, Image())), (_l1("L1-0", "m1"),)), Config(max_live_images=1), Budget(30)
)

#: The head's orphan result is repaired (Rule A) and a middle refusal follows, while the unlimited
#: compile refuses too (the cap leaves L1-1 out of the combined answer): the head as sent is priced 7.
_U = {k: ToolUse(f"u{k}", "read", {"path": "a"}) for k in range(1, 5)}
HEAD_REPAIRED_REFUSED = Case(
    Store(
        (
            _m(0, ToolResult("gone0", "agent")),
            _m(1, Text("agent"), _U[1]),
            _m(2, ToolResult("u1", "agent")),
            _m(3, Text("agent"), _U[2]),
            _m(4, ToolResult("u2", "agent")),
            _m(5, Text("agent"), _U[3]),
            _m(6, ToolResult("u3", "agent")),
            _m(7, Text("agent"), _U[4]),
        ),
        (_l1("L1-0", "m5"), _l1("L1-1", "m6")),
    ),
    Config(head_window_tokens=5, max_message_tokens=1, positioned_recall_pairs=False),
    Budget(110),
)

SCENARIOS = {
    Defect.TOOL_PASSES_UNPRICED: (STUB_AFTER_CALL, {"stats-total", "never-over"}),
    Defect.TRIM_DROPS_TRAILING_TOOL_USE: (TRAILING_CALL, {"nothing-lost"}),
    Defect.TAIL_PRICED_PRE_STRIP: (TAIL_IMAGES, {"stats-total"}),
    Defect.IMAGE_COUNT_STORE_WIDE: (MIDDLE_IMAGE, {"stats-total", "never-over"}),
}


def _broken(case: Case, variant) -> set[str]:
    return {v.invariant for v in check(*case, variant)}


# ----------------------------------------------------------------------------- the defects' scenarios


@pytest.mark.red_on(*FAITHFUL)
@pytest.mark.parametrize("defect", list(SCENARIOS), ids=lambda d: d.name)
def test_new_defect_scenario_holds_every_invariant(defect, variant):
    case, _ = SCENARIOS[defect]
    for name in ("stats-total", "never-over", "nothing-lost", "well-formed"):
        assert_holds(name, *case, variant)


@pytest.mark.defect_table
@pytest.mark.parametrize("defect", list(SCENARIOS), ids=lambda d: d.name)
def test_each_new_defect_alone_breaks_what_its_scenario_says(defect):
    case, expected = SCENARIOS[defect]
    assert _broken(case, frozenset({defect})) >= expected
    assert _broken(case, "sound") == set()


@pytest.mark.parametrize(("name", "charged"), [(FAITHFUL[0], 46), (FAITHFUL[1], 46), ("sound", 67)])
def test_stub_after_call_is_what_the_typescript_sends(name, charged):
    strategy = HierarchicalStrategy(STUB_AFTER_CALL.config, name)
    strategy.initialize(STUB_AFTER_CALL.store)
    result = strategy.compile(Budget(10**6))
    assert [e.kind for e in result.entries] == ["raw", "repair", "question", "answer"]
    assert result.entries[1].content == (ToolResult("u0", STUB_TEXT),)
    assert result.stats.total.tokens == charged  # sound charges the stub


# ----------------------------------------------------------------------------- the invariant


#: A fifth of the profile's examples per search (20 under ci, 400 under deep): a tool-cycle compile runs twice.
SHARE = settings(max_examples=max(20, settings().max_examples // 5))


@SHARE
@given(case=tool_cases())
@example(case=STUB_AFTER_CALL)
@example(case=TRAILING_CALL)
def test_every_variant_sends_well_formed_tool_cycles(case, variant):
    assert_holds("well-formed", *case, variant)


@SHARE
@given(case=cases())
def test_every_variant_sends_well_formed_contexts(case, variant):
    assert_holds("well-formed", *case, variant)


@SHARE
@given(case=tool_cases())
@example(case=MIDDLE_IMAGE)
@example(case=TAIL_IMAGES)
@example(case=HEAD_REPAIRED_REFUSED)
def test_sound_holds_every_invariant_over_tool_cycles(case):
    assert check(*case, "sound") == []


def test_pairing_faults_name_both_directions():
    entries = (
        Entry("Claude", (USE,), "raw", "m0"),
        Entry("User", (Text("x"),), "raw", "m1"),
        Entry("User", (RESULT,), "raw", "m2"),
    )
    faults = pairing_faults(entries)
    assert len(faults) == 2
    assert "does not answer" in faults[0] and "no tool_use of entry 1" in faults[1]
    assert pairing_faults(entries[:1] + entries[2:]) == []


# ----------------------------------------------------------------------------- window boundaries


def test_head_boundary_after_a_call_steps_back():
    msgs = (_m(0, Text("a")), _m(1, USE), _m(2, RESULT), _m(3, Text("b")))
    assert windows([5, 5, 5, 5], 14, 0, messages=msgs).head_end == 1  # not 2: m1's call leaves with m2
    assert windows([5, 5, 5, 5], 14, 0).head_end == 2


def test_recent_window_opening_on_a_result_retreats():
    msgs = (_m(0, Text("a")), _m(1, USE), _m(2, RESULT), _m(3, Text("b")))
    assert windows([5, 5, 5, 5], 0, 14, messages=msgs).middle_end == 1  # takes m1 with m2
    assert windows([5, 5, 5, 5], 0, 14).middle_end == 2


# ----------------------------------------------------------------------------- the passes


def _slots(*contents) -> list[Slot]:
    return [Slot(k, Entry("User", tuple(c), "raw", f"m{k}")) for k, c in enumerate(contents)]


def test_trim_pops_only_trailing_calls_without_results():
    slots = _slots([Text("a")], [USE], [USE, RESULT], [USE])
    assert [s.owner for s in trim_orphaned_tool_use(slots)] == [0, 1, 2]
    assert [s.owner for s in trim_orphaned_tool_use(_slots([USE], [USE]))] == []


def test_pairing_drops_orphan_and_duplicate_results():
    out, stubs = enforce_tool_pairing(_slots([RESULT], [USE], [RESULT, RESULT, Text("t")]))
    assert out[0].entry.content == (Text(CALL_OMITTED_TEXT),)
    assert out[2].entry.content == (RESULT, Text("t"))
    assert stubs.blocks == ()


def test_pairing_moves_a_displaced_result_up_and_stubs_a_missing_one():
    other = ToolUse("u1", "grep", {})
    out, stubs = enforce_tool_pairing(_slots([USE, other], [Text("recall")], [RESULT]))
    assert [s.entry.kind for s in out] == ["raw", "repair", "raw", "raw"]
    assert out[1].owner == 0
    assert out[1].entry.content == (RESULT, ToolResult("u1", STUB_TEXT))
    assert out[3].entry.content == (Text(MOVED_TEXT),)
    assert len(stubs.blocks) == 1 and stubs.holds(out[1].entry.content[1])
    assert pairing_faults(tuple(s.entry for s in out)) == []


def test_pairing_prepends_into_an_entry_that_already_answers():
    other = ToolUse("u1", "grep", {})
    out, _ = enforce_tool_pairing(_slots([USE, other], [ToolResult("u1", "r")]))
    assert out[1].entry.content == (ToolResult("u0", STUB_TEXT), ToolResult("u1", "r"))


def test_pairing_answers_a_call_left_open_at_the_end():
    out, stubs = enforce_tool_pairing(_slots([Text("a")], [USE, RESULT]))
    assert out[-1].entry.content == (ToolResult("u0", STUB_TEXT),) and out[-1].owner == 1
    assert out[1].entry.content == (USE,)  # its own result answered nothing before it
    assert len(stubs.blocks) == 1


def test_prune_keeps_the_newest_results_per_tool_and_caps_inputs():
    uses = [ToolUse(f"u{k}", "read", {"path": "x" * 40}) for k in range(3)]
    slots = _slots(
        [uses[0]], [ToolResult("u0", "r0")], [uses[1]], [ToolResult("u1", "r1")], [uses[2]], [ToolResult("u2", "r2")]
    )
    out = prune_tool_entries(slots, Config(tool_result_max_last_n=1, tool_use_input_max_tokens=5), Stubs())
    assert out[1].entry.content[0].content == result_marker("read", 2)
    assert out[3].entry.content[0].content == result_marker("read", 1)
    assert out[5].entry.content[0].content == "r2"
    assert out[0].entry.content[0].input == {"_truncated": True, "_originalTokens": 13, "_keys": ["path"]}
    assert prune_tool_entries(slots, Config(), Stubs()) == slots


def test_prune_limits_by_tool_name_and_skips_stubs():
    out, stubs = enforce_tool_pairing(_slots([USE], [Text("x")]))
    cfg = Config(tool_result_max_last_n={"read": 0})
    assert cfg.tool_result_max_last_n == (("read", 0),)
    assert prune_tool_entries(out, cfg, stubs) == out  # the stub neither counts nor changes


def test_images_keep_the_newest_and_strip_the_deep():
    config = Config(max_live_images=2)
    assert decide([0, 1, 2], [1, 2, 1], 0, config) == [0, 1, None]
    assert strip((Image(), Text("a"), Image()), 1) == (Text(PLACEHOLDER), Text("a"), Image())
    assert strip_start([10, 10, 10], 15) == 2 and strip_start([10, 10, 10], 0) == 0
    assert decide([0, 1, 2], [1, 1, 1], 2, Config()) == [0, 0, None]


def test_config_refuses_bad_image_and_pruning_fields():
    from reference.model import InvalidConfigError

    with pytest.raises(InvalidConfigError, match="max_live_images"):
        Config(max_live_images="6")
    with pytest.raises(InvalidConfigError, match="tool_result_max_last_n"):
        Config(tool_result_max_last_n={"read": "1"})


# ----------------------------------------------------------------------------- the level budgets


@SHARE
@given(case=tool_cases())
def test_level_budgets_do_not_change_what_sound_sends(case):
    """docs/model.md, "Selection": coverage completion puts back every summary the waterfall leaves out."""
    from dataclasses import replace

    from invariants.properties import compile_once

    store, config, _ = case
    starved = replace(config, l1_budget_tokens=0, l2_budget_tokens=0, l3_budget_tokens=0)
    free = Budget(float("inf"))
    a, b = compile_once(store, config, free, "sound"), compile_once(store, starved, free, "sound")
    assert a.sent == b.sent
    if a.sent:
        assert a.entries == b.entries

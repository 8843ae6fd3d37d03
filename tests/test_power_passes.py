"""The six invariants of what is sent and refused on stores with tool blocks and images (docs/model.md,
"What the structural passes change").

The reference layout models the windows' tool-pair step backs, the recent window's post-strip prices and the
structural passes, so the six judge these stores too. Each has a red-first test: a hand-made store with a tool
pair or an image, an unnamed bug injected with ``monkeypatch`` in the step backs or the passes, the invariant
red (before the passes were modelled, it skipped or set aside this store); without the bug, green.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import strategies.emission as emission
import strategies.hierarchical as hierarchical
import strategies.passes as passes
import strategies.tool_pruning as tool_pruning
import strategies.windows as windows
from invariants.generators import Case, tool_cases
from invariants.properties import InvariantViolation, variant_name
from reference.model import Budget, Config, Image, Message, Store, Summary, Text, ToolResult, ToolUse
from reference.rendering import Selection, render
from tests.builders import prose, store, summary
from tests.shapes import violations, with_shapes


def _m(i: int, *content, participant: str = "user") -> Message:
    return Message(f"m{i}", participant, tuple(content))


def _l1(sid: str, first: int, last: int) -> Summary:
    ids = tuple(f"m{i}" for i in range(first, last + 1))
    return Summary(sid, 1, prose(10), 10, 0, ids, (ids[0], ids[-1]))


def _use(k: int) -> ToolUse:
    return ToolUse(f"u{k}", "read", {"path": "a"})


def _result(k: int) -> ToolResult:
    return ToolResult(f"u{k}", "file contents")


TEXT = Text(prose(10))  # priced 10; a call with text 36, a result 6
#: m1 calls, m2 answers. A head window of 50 first exceeds at m2 (10 + 36 + 6), so the head ends at 2, then
#: steps back to 1: the call leaves the head with its result. L1-a holds the pair, L1-b the next two.
_HEAD_CALL_STORE = (
    _m(0, TEXT),
    _m(1, TEXT, _use(1), participant="assistant"),
    _m(2, _result(1)),
    _m(3, TEXT),
    _m(4, TEXT, participant="assistant"),
    _m(5, TEXT),
)
HEAD_CALL = Case(
    Store(_HEAD_CALL_STORE, (_l1("L1-a", 1, 2), _l1("L1-b", 3, 4))),
    Config(head_window_tokens=50, recent_window_tokens=10),
    Budget(max_tokens=10**6),
)
#: The same messages with no summaries and a budget that the raw call (36) breaks after m0 (10).
HEAD_CALL_REFUSED = Case(
    Store(_HEAD_CALL_STORE), Config(head_window_tokens=50, recent_window_tokens=10), Budget(max_tokens=30)
)
#: m3 calls, m4 answers. A recent window of 20 first exceeds at m3 (10 + 6 + 36), so it opens on the result
#: m4, then retreats to 3: the tail takes the call. L1-0 holds m2 and m3, straddling the middle and the tail.
RECENT_RESULT = Case(
    Store(
        (
            _m(0, TEXT),
            _m(1, TEXT, participant="assistant"),
            _m(2, TEXT),
            _m(3, TEXT, _use(1), participant="assistant"),
            _m(4, _result(1)),
            _m(5, TEXT),
        ),
        (_l1("L1-0", 2, 3),),
    ),
    Config(recent_window_tokens=20),
    Budget(max_tokens=10**6),
)
#: m1's call is answered two entries down: the pairing pass moves the result up into a repair entry.
DISPLACED_RESULT = Case(
    Store((_m(0, TEXT), _m(1, TEXT, _use(1), participant="assistant"), _m(2, TEXT), _m(3, _result(1)), _m(4, TEXT))),
    Config(),
    Budget(max_tokens=10**6),
)
#: Two reads, one result kept: the older result says one more recent result follows.
TWO_READS = Case(
    Store(
        (
            _m(0, _use(1), participant="assistant"),
            _m(1, _result(1)),
            _m(2, _use(2), participant="assistant"),
            _m(3, _result(2)),
        )
    ),
    Config(tool_result_max_last_n=1),
    Budget(max_tokens=10**6),
)
#: One message with two images, one live image allowed: the first is stripped, the last kept.
TWO_IMAGES = Case(
    Store((_m(0, Image(), TEXT, Image()), _m(1, TEXT))), Config(max_live_images=1), Budget(max_tokens=10**6)
)
#: An image in the oldest of a tail of three text messages.
IMAGE_TAIL = Case(
    Store((_m(0, Image(), TEXT), _m(1, TEXT, participant="assistant"), _m(2, TEXT))),
    Config(recent_window_tokens=10**6),
    Budget(max_tokens=10**6),
)
#: L2-0 holds m1 (head) and m4, m5 (middle), not m2, m3 between: its pair stands at m1, before m2 and m3.
GAP_STRADDLE = Case(
    store(
        6,
        [
            summary("L1-a", 1, 1, parent="L2-0"),
            summary("L1-b", 4, 5, parent="L2-0"),
            summary("L2-0", 1, 5, level=2, sources=["L1-a", "L1-b"]),
        ],
    ),
    Config(head_window_tokens=25, recent_window_tokens=0),
    Budget(max_tokens=10**6),
)
#: The newest message is a call no one answers: sound sends it with a stub; the faithful trim pops it from the
#: tail (TRIM_DROPS_TRAILING_TOOL_USE), which breaks tail-suffix on both faithful variants.
TRAILING_CALL = Case(
    Store((_m(0, TEXT), _m(1, TEXT, _use(1), participant="assistant"))),
    Config(recent_window_tokens=10**6),
    Budget(max_tokens=10**6),
)
SHAPES = (
    TRAILING_CALL,
    GAP_STRADDLE,
    IMAGE_TAIL,
    HEAD_CALL,
    HEAD_CALL_REFUSED,
    RECENT_RESULT,
    DISPLACED_RESULT,
    TWO_READS,
    TWO_IMAGES,
)


@pytest.mark.red_on("main-48bb87a1", "pr-8bb01ab8")
@settings(max_examples=max(20, settings().max_examples // 5))
@given(case=tool_cases())
@with_shapes(SHAPES)
def test_what_is_sent_and_refused_over_tool_cycles_follows_the_reference(case, variant):
    found = violations(case, variant)
    if found:
        raise InvariantViolation(found, f"variant {variant_name(variant)}", case=tuple(case))


@settings(max_examples=max(20, settings().max_examples // 5))
@given(case=tool_cases(parallel=True))
def test_what_is_sent_over_two_call_messages_follows_the_reference(case):
    """A message making two calls, the second answered next and the first later or never: the pairing repair puts
    the moved result (or a stub) into the answering entry before its own result (docs/model.md, Tool pairing)."""
    found = violations(case, "sound")
    if found:
        raise InvariantViolation(found, "variant sound", case=tuple(case))


@pytest.mark.parametrize("case", SHAPES, ids=lambda c: f"{len(c.store.messages)}msg")
def test_the_tool_shapes_hold_on_sound(case):
    assert violations(case, "sound") == []


# ----------------------------------------------------------------------------- the reference itself


def test_the_reference_renders_the_passes():
    """Rule B moves the displaced result into a repair entry before m2; m3, left empty, says so."""
    store, config, _ = DISPLACED_RESULT
    sent = render(store, config, Selection(frozenset(m.id for m in store.messages), ()))
    assert [(e.kind, e.message_id) for e in sent] == [
        ("raw", "m0"),
        ("raw", "m1"),
        ("repair", None),
        ("raw", "m2"),
        ("raw", "m3"),
        ("raw", "m4"),
    ]
    assert sent[2].content == (_result(1),)
    assert sent[4].content == (Text("[tool result moved during context repair]"),)


def test_the_reference_strips_all_but_the_newest_image():
    store, config, _ = TWO_IMAGES
    sent = render(store, config, Selection(frozenset({"m0", "m1"}), ()))
    assert sent[0].content == (Text("[image omitted]"), TEXT, Image())


# ----------------------------------------------------------------------------- red first, one per invariant


def _no_head_step_back(monkeypatch):
    monkeypatch.setattr(windows, "head_step_back", lambda messages, boundary, start=0: boundary)


def test_rendering_sees_a_changed_pruning_marker(monkeypatch):
    assert violations(TWO_READS, "sound", ["rendering"]) == []
    monkeypatch.setattr(tool_pruning, "result_marker", lambda tool, fresher: f"[{tool}: {fresher} newer]")
    [v] = violations(TWO_READS, "sound", ["rendering"])
    assert "reference rendering" in v.message


def test_rendering_sees_the_wrong_image_stripped(monkeypatch):
    assert violations(TWO_IMAGES, "sound", ["rendering"]) == []
    original = passes.strip

    def strip_last(content, kept, *placeholder):
        return tuple(reversed(original(tuple(reversed(content)), kept, *placeholder)))

    monkeypatch.setattr(passes, "strip", strip_last)
    [v] = violations(TWO_IMAGES, "sound", ["rendering"])
    assert "image omitted" in v.message


def test_selection_sees_a_head_that_keeps_the_call(monkeypatch):
    assert violations(HEAD_CALL, "sound", ["selection"]) == []
    _no_head_step_back(monkeypatch)
    [v] = violations(HEAD_CALL, "sound", ["selection"])
    assert "['L1-b', 'L1-a']" in v.message


def test_exactly_once_sees_a_head_that_keeps_the_call(monkeypatch):
    assert violations(HEAD_CALL, "sound", ["exactly-once"]) == []
    _no_head_step_back(monkeypatch)
    [v] = violations(HEAD_CALL, "sound", ["exactly-once"])
    assert "m1 (1 raw, 1 through summaries)" in v.message


def test_chronological_sees_a_tail_sent_newest_first(monkeypatch):
    """A bug no other invariant sees here (nothing to pair): an image made the store one the invariant skipped."""
    assert violations(IMAGE_TAIL, "sound", ["chronological"]) == []
    original = emission.accept_tail

    def newest_first(run, tail_items, config):
        accepted, evicted = original(run, tail_items, config)
        return accepted[::-1], evicted

    monkeypatch.setattr(hierarchical, "accept_tail", newest_first)
    [v] = violations(IMAGE_TAIL, "sound", ["chronological"])
    assert "entry 1 stands for ['m1']" in v.message
    assert violations(IMAGE_TAIL, "sound", ["well-formed", "stats-total", "nothing-lost"]) == []


def test_tail_suffix_sees_a_recent_window_that_leaves_the_call_out(monkeypatch):
    assert violations(RECENT_RESULT, "sound", ["tail-suffix"]) == []
    monkeypatch.setattr(windows, "recent_step_back", lambda messages, boundary: boundary)
    [v] = violations(RECENT_RESULT, "sound", ["tail-suffix"])
    assert "the tail is [3, 6)" in v.message


def test_diagnostics_full_sees_a_head_that_keeps_the_call(monkeypatch):
    assert violations(HEAD_CALL_REFUSED, "sound", ["diagnostics-full"]) == []
    _no_head_step_back(monkeypatch)
    [v] = violations(HEAD_CALL_REFUSED, "sound", ["diagnostics-full"])
    assert "middle_count is 0, expected 4" in v.message


#: A call whose input is over the cap and has an array-index key after a plain one.
INDEX_KEY_INPUT = Case(
    Store(
        (_m(0, ToolUse("u1", "read", {"b": "x" * 40, "1": "y", "a": 3}), participant="assistant"), _m(1, _result(1)))
    ),
    Config(tool_use_input_max_tokens=2),
    Budget(max_tokens=10**6),
)


def test_a_capped_input_lists_its_keys_in_object_keys_order():
    """docs/model.md, "Tool pruning": ``_keys`` in ``Object.keys`` order, array-index keys first."""
    assert violations(INDEX_KEY_INPUT, "sound", ["rendering"]) == []
    strategy = hierarchical.HierarchicalStrategy(INDEX_KEY_INPUT.config, "sound")
    strategy.initialize(INDEX_KEY_INPUT.store)
    [call] = strategy.compile(INDEX_KEY_INPUT.budget).entries[0].content
    assert call.input["_keys"] == ["1", "b", "a"]


def test_a_pair_straddling_the_head_stands_before_the_unclaimed_middle_messages_in_its_span():
    """A text-only shape the general cases seldom reach: the layout puts the pair at its first leaf (m1), so m2 and
    m3 follow it; chronological reads the pair there (it was red on this case before)."""
    strategy = hierarchical.HierarchicalStrategy(GAP_STRADDLE.config, "sound")
    strategy.initialize(GAP_STRADDLE.store)
    sent = strategy.compile(GAP_STRADDLE.budget).entries
    assert [(e.kind, e.message_id) for e in sent] == [
        ("raw", "m0"),
        ("raw", "m1"),
        ("question", None),
        ("answer", None),
        ("raw", "m2"),
        ("raw", "m3"),
    ]
    assert violations(GAP_STRADDLE, "sound") == []

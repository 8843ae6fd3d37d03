"""Small hand-built stores on which one named defect, switched on alone in ``sound``, shows (the judges' tests).

Each is a ``Case`` small enough to read: the comment says what sound does and what the defect changes. Some are
the known edges (``invariants.examples``) or the shipped seed scenarios, named here once.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from invariants import examples as known
from invariants.generators import Case
from reference.model import Budget, Config, Image, Message, RedactedThinking, Store, Text, ToolResult, ToolUse
from reference.scenario import load_scenario
from tests.builders import carriers, msg, store, summary

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def scenario(name: str) -> Case:
    """A shipped scenario file (under ``tests/scenarios``) as a case."""
    [path] = SCENARIOS.glob(f"*/{name}.scenario.json")
    sc = load_scenario(path)
    return Case(sc.store, sc.config, sc.budget)


def _m(i: int, *content: object, participant: str = "user") -> Message:
    return Message(f"m{i}", participant, tuple(content))


USE = ToolUse("u0", "read", {"path": "a"})

#: Five messages of 10, a head of m0, a recent window of m3 and m4; L2-0 holds L1-0 (m3) and L1-1 (m4), both in
#: the tail. Sound never selects L2-0; as a candidate (DEEP_WINDOW_CANDIDATES) it is sent beside m3 and m4 raw.
DEEP_IN_THE_TAIL = Case(
    store(
        5,
        [
            summary("L1-0", 3, 3, parent="L2-0"),
            summary("L1-1", 4, 4, parent="L2-0"),
            summary("L2-0", 3, 4, level=2, sources=["L1-0", "L1-1"]),
        ],
    ),
    Config(head_window_tokens=5, recent_window_tokens=20),
    Budget(max_tokens=10**6),
)

#: Combined mode, L1-0 (m1) blank, L1-1 (m2) not: sound refuses (m1 is covered by nothing sent); a blank
#: candidate (BLANK_SUMMARIES_SELECTED) goes into the combined answer blank and counts m1 as covered.
BLANK_IN_COMBINED = Case(
    store(4, [replace(summary("L1-0", 1, 1), content="  "), summary("L1-1", 2, 2)]),
    Config(head_window_tokens=5, recent_window_tokens=5, positioned_recall_pairs=False),
    Budget(max_tokens=10**6),
)

#: A summary with an empty carrier list and measured tokens (100) far above its text (10): sound prices its text;
#: EMPTY_CARRIERS_FLOOR floors it at 100.
EMPTY_CARRIERS = Case(
    store(3, [summary("L1-0", 1, 1, tokens=100, carriers=())]),
    Config(head_window_tokens=5, recent_window_tokens=5),
    Budget(max_tokens=10**6),
)

#: A header template with a placeholder and an id holding ``$&``: one pass puts the id in as it is; four chained
#: ``String.replace`` calls (HEADER_REPLACE_CHAINED) expand ``$&`` into the placeholder.
DOLLAR_HEADER = Case(
    Store(
        messages=tuple(msg(i) for i in range(3)),
        summaries=(replace(summary("L1-0", 1, 1), id="L$&"),),
    ),
    Config(head_window_tokens=5, recent_window_tokens=5),
    Budget(max_tokens=10**6),
)

#: A positioned xml answer longer than a cap of 5: sent capped (ANSWER_PRICED_UNCAPPED prices it whole).
CAPPED_ENVELOPE = Case(
    store(4, [summary("L1-0", 1, 2, content_tokens=40)]),
    Config(recall_envelope="xml", max_message_tokens=5),
    Budget(max_tokens=10**6),
)

#: A NaN budget: sound refuses it (InvalidConfigError); UNCHECKED_BAD_VALUES compiles with it and
#: sends against a NaN-free limit only by luck.
NAN_BUDGET = Case(store(3), Config(), Budget(max_tokens=math.nan))
#: known.NAN_STAMP's NaN stamp on a redacted reasoning block: sound refuses (over budget), a compile that prices stamps
#: verbatim (STAMPS_VERBATIM) sends a NaN price.
_NAN_REDACTED = replace(known.NAN_STAMP.store.messages[0], content=(RedactedThinking("x", math.nan),))
NAN_REDACTED_STAMP = replace(
    known.NAN_STAMP,
    store=replace(known.NAN_STAMP.store, messages=(_NAN_REDACTED, *known.NAN_STAMP.store.messages[1:])),
)

#: m0 head, L1-0's pair over m1 and m2 then L1-1's over m3 and m4 in the middle, m5 raw after them, m6 the tail (each
#: message 10 tokens, the 15-token tail window holds one): both pairs selected.
TWO_PAIRS = Case(
    store(7, [summary("L1-0", 1, 2), summary("L1-1", 3, 4)]),
    Config(head_window_tokens=15, recent_window_tokens=15),
    Budget(max_tokens=10**6),
)

#: A trailing unanswered call (TRIM_DROPS_TRAILING_TOOL_USE pops it): sound answers it with a stub.
TRAILING_CALL = Case(
    Store((_m(0, Text("hello")), _m(1, USE, participant="assistant"))), Config(recent_window_tokens=1000), Budget(1000)
)
#: The call raw, its answer folded into L1-0: the pairing stub goes uncharged (TOOL_PASSES_UNPRICED).
STUB_AFTER_CALL = Case(
    Store(
        (_m(0, USE, participant="assistant"), _m(1, ToolResult("u0", "file contents"))),
        (replace(summary("L1-0", 1, 1), content="the agent read a file", tokens=5),),
    ),
    Config(),
    Budget(46),
)
#: Two tail images, one live: the older is sent as a placeholder but priced whole (TAIL_PRICED_PRE_STRIP).
TAIL_IMAGES = Case(
    Store((_m(0, Image()), _m(1, Image()))), Config(recent_window_tokens=10**6, max_live_images=1), Budget(10**6)
)
#: m0's image raw in the middle, m1's folded: priced as a placeholder, sent whole (IMAGE_COUNT_STORE_WIDE).
MIDDLE_IMAGE = Case(
    Store((_m(0, Image()), _m(1, Image())), (replace(summary("L1-0", 1, 1), content="the agent", tokens=5),)),
    Config(max_live_images=1),
    Budget(30),
)

#: A refusal at m1 after a head of m0, with chunk work folding m2 (after the refusal) only.
MIDDLE_REFUSAL = known.MIDDLE_REFUSAL_AFTER_HEAD
#: A head refusal with queued work.
HEAD_REFUSAL = known.HEAD_REFUSAL_WITH_WORK
#: A head of m0 (10), then L1-0's pair (a reply with reasoning, 40 measured) refused: a budget of 40 with 10 kept
#: for the response, so the configured budget, the reserve and the input budget all differ.
HEAD_THEN_PAIR_REFUSED = Case(
    store(4, [summary("L1-0", 1, 2, tokens=40, content_tokens=40, carriers=carriers(40))]),
    Config(head_window_tokens=15),
    Budget(max_tokens=40, reserve_for_response=10),
)

#: One call whose input (about 100 tokens) passes a tool input cap of 20, and its result: sound sends the input
#: capped and keeps the store; PRUNE_WRITES_STORE writes the capped input into the stored call.
CAPPED_TOOL_INPUT = Case(
    Store(
        (
            _m(0, ToolUse("u0", "read", {"path": "x" * 400}), participant="assistant"),
            _m(1, ToolResult("u0", "file contents")),
        )
    ),
    Config(recent_window_tokens=10**5, tool_use_input_max_tokens=20),
    Budget(10**6),
)
#: Two calls of one tool with a last-1 limit on its results: sound sends the older result as the marker and keeps
#: the store; PRUNE_WRITES_STORE writes the marker into the stored result.
MARKED_TOOL_RESULT = Case(
    Store(
        (
            _m(0, ToolUse("u0", "read", {"path": "a"}), ToolUse("u1", "read", {"path": "b"}), participant="assistant"),
            _m(1, ToolResult("u0", "file a"), ToolResult("u1", "file b")),
        )
    ),
    Config(recent_window_tokens=10**5, tool_result_max_last_n=(("read", 1),)),
    Budget(10**6),
)

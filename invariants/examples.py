"""Known edges of the compile, as cases for ``@example`` and for reading (docs/model.md).

Each is small enough to check by hand; the comments say what the sound compile does with it.
"""

from __future__ import annotations

import math

from invariants.generators import LONG_PROSE, Case
from reference.model import Budget, Config, Message, Store, Summary, Text, Thinking, Work


def _msg(mid: str, *content) -> Message:
    return Message(id=mid, participant="User", content=tuple(content))


def _l1(sid: str, ids: tuple[str, ...], content: str, tokens=5, carriers=None) -> Summary:
    return Summary(
        id=sid,
        level=1,
        content=content,
        tokens=tokens,
        source_level=0,
        source_ids=ids,
        source_range=(ids[0], ids[-1]),
        response_content=carriers,
    )


#: A combined pair over the grace limit with nothing after it: sound refuses at the pair; the
#: unchecked combined pair (main) sends it over the limit.
COMBINED_OVER_GRACE = Case(
    Store(messages=(_msg("m0", Text("hello")),), summaries=(_l1("L1-0", ("m0",), LONG_PROSE[0]),)),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=20),
)

#: A cap where min(E, cap + 50) is below what truncate sends: the cut text plus its marker costs more
#: than the original (144 tokens, under cap + 50 = 150): truncate sends 152 tokens, over the grace limit
#: floor(144 * 1.02) = 146 of a budget of 144.
_CAPPED_TEXT = ("the agent read a file " * 19).strip()
RAW_CAP_BELOW_SENT = Case(
    Store(messages=(_msg("m0", Text(_CAPPED_TEXT)),)),
    Config(max_message_tokens=100),
    Budget(max_tokens=144),
)

#: A NaN stamp: the reference prices the thinking block by its text; verbatim, NaN poisons the total,
#: and a NaN total refuses nothing.
NAN_STAMP = Case(
    Store(messages=(_msg("m0", Thinking("x", None, math.nan)), _msg("m1", Text(LONG_PROSE[1])))),
    Config(),
    Budget(max_tokens=5),
)

#: One summary, one message, defaults: the positioned question is "[Recall L1-0]", not the label.
ONE_PAIR = Case(
    Store(messages=(_msg("m0", Text("the")),), summaries=(_l1("L1-0", ("m0",), "the"),)),
    Config(),
    Budget(max_tokens=8),
)

#: A cap that leaves the second summary out of the combined answer: sound refuses (m1 would be lost);
#: counting the left-out summary as coverage sends a context that loses m1.
COMBINED_LEAVES_ONE_OUT = Case(
    Store(
        messages=(_msg("m0", Text("hello")), _msg("m1", Text("world"))),
        summaries=(_l1("L1-0", ("m0",), LONG_PROSE[0]), _l1("L1-1", ("m1",), "x")),
    ),
    Config(positioned_recall_pairs=False, max_message_tokens=1),
    Budget(max_tokens=math.inf),
)

#: A head refusal with work queued elsewhere: compression never folds the head away.
HEAD_REFUSAL_WITH_WORK = Case(
    Store(messages=(_msg("m0", Text("the")), _msg("m1", Text("end"))), work=(Work("chunk", "queued", frozenset()),)),
    Config(head_window_tokens=2),
    Budget(max_tokens=1),
)

#: A middle refusal after a head: the head's tokens are the head's, not middle.
MIDDLE_REFUSAL_AFTER_HEAD = Case(
    Store(
        messages=(_msg("m0", Text("the agent")), _msg("m1", Text(LONG_PROSE[0])), _msg("m2", Text("end"))),
        work=(Work("chunk", "queued", frozenset({"m2"})),),
    ),
    Config(head_window_tokens=5),
    Budget(max_tokens=20),
)

#: The refused prefix (docs/model.md, Compression work and cleared_by): work folding only a raw message sent before it.
_TWO_RAW = (_msg("m0", Text("the")), _msg("m1", Text(LONG_PROSE[0])))
PREFIX_RAW_BEFORE = Case(
    Store(messages=_TWO_RAW, work=(Work("chunk", "queued", frozenset({"m0"})),)),
    Config(),
    Budget(max_tokens=20),
)

#: ... work that folds only the leaves of a pair sent before the refused message.
PREFIX_PAIR_BEFORE = Case(
    Store(
        messages=_TWO_RAW,
        summaries=(_l1("L1-0", ("m0",), "the"),),
        work=(Work("merge", "running", frozenset({"L1-0"})),),
    ),
    Config(),
    Budget(max_tokens=20),
)

#: ... work that folds only the refused message itself.
PREFIX_REFUSED_ITSELF = Case(
    Store(messages=_TWO_RAW, work=(Work("chunk", "queued", frozenset({"m1"})),)),
    Config(),
    Budget(max_tokens=20),
)

#: ... a raw message refused after the combined pair, with work folding only the pair's summary's leaves.
PREFIX_AFTER_COMBINED = Case(
    Store(
        messages=_TWO_RAW, summaries=(_l1("L1-0", ("m0",), "the"),), work=(Work("chunk", "queued", frozenset({"m0"})),)
    ),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=20),
)

#: ... the combined pair refused, with work folding only its summary's leaves; and work elsewhere (m1)
#: that must not count.
PREFIX_AT_COMBINED = Case(
    Store(
        messages=(_msg("m0", Text("the")), _msg("m1", Text("end"))),
        summaries=(_l1("L1-0", ("m0",), LONG_PROSE[0]),),
        work=(Work("merge", "queued", frozenset({"L1-0"})),),
    ),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=20),
)

#: ... a refusal with queued work that folds nothing before it (only a later summary).
WORK_AFTER_REFUSAL = Case(
    Store(
        messages=(*_TWO_RAW, _msg("m2", Text("end"))),
        summaries=(_l1("L1-0", ("m2",), "end"),),
        work=(Work("merge", "queued", frozenset({"L1-0"})),),
    ),
    Config(),
    Budget(max_tokens=20),
)

#: Selection: a combined answer whose selection order (creation order) differs from position order, and a
#: summary whose measured tokens stop the waterfall at a small budget: sound orders the answer by
#: position, so the bytes are the same at every budget.
_LATER_CREATED_FIRST = Summary(
    id="L1-1", level=1, content="later", tokens=1000, source_level=0, source_ids=("m1",), source_range=("m1", "m1")
)
COMBINED_ORDER_ACROSS_BUDGETS = Case(
    Store(
        messages=(_msg("m0", Text("the")), _msg("m1", Text("agent"))),
        summaries=(_LATER_CREATED_FIRST, _l1("L1-0", ("m0",), "earlier")),
    ),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=math.inf),
)

#: Selection: an L2 whose only leaf is in the recent window: sound never selects it (the message goes
#: raw in the tail at every budget); as a candidate it is sent (raw content twice) only when it fits.
_DEEP = (
    Summary(
        id="L1-0",
        level=1,
        content="agent",
        tokens=5,
        source_level=0,
        source_ids=("m0",),
        source_range=("m0", "m0"),
        parent_id="L2-0",
    ),
    Summary(
        id="L2-0",
        level=2,
        content="agent",
        tokens=10**6,
        source_level=1,
        source_ids=("L1-0",),
        source_range=("m0", "m0"),
    ),
)
DEEP_SUMMARY_IN_THE_TAIL = Case(
    Store(messages=(_msg("m0", Text("agent")),), summaries=_DEEP),
    Config(recent_window_tokens=5),
    Budget(max_tokens=math.inf),
)

ALL = {
    "combined pair over the grace limit, nothing after it": COMBINED_OVER_GRACE,
    "cap where min(E, cap + 50) is below what truncate sends": RAW_CAP_BELOW_SENT,
    "NaN stamp": NAN_STAMP,
    "one positioned pair": ONE_PAIR,
    "combined answer leaves a summary out": COMBINED_LEAVES_ONE_OUT,
    "head refusal with work queued": HEAD_REFUSAL_WITH_WORK,
    "middle refusal after a head": MIDDLE_REFUSAL_AFTER_HEAD,
    "prefix: a raw message before the refused one is folded": PREFIX_RAW_BEFORE,
    "prefix: a pair before the refused message is folded": PREFIX_PAIR_BEFORE,
    "prefix: the refused message itself is folded": PREFIX_REFUSED_ITSELF,
    "prefix: the combined pair before the refused message is folded": PREFIX_AFTER_COMBINED,
    "prefix: the refused combined pair is folded": PREFIX_AT_COMBINED,
    "prefix: only a summary after the refusal is folded": WORK_AFTER_REFUSAL,
    "combined answer order across budgets": COMBINED_ORDER_ACROSS_BUDGETS,
    "deep summary inside the recent window": DEEP_SUMMARY_IN_THE_TAIL,
}

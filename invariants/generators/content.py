"""Texts, blocks, contents and carriers: the strategies block by block, and seeded samplers of the same mix.

Texts mix prose, JSON-ish and astral text, and strings built to sit on either side of the 12% density
threshold; every block kind appears, tool results nest.
"""

from __future__ import annotations

import math
import random

from hypothesis import strategies as st

from invariants.generators.draws import choice, weighted
from reference.model import Block, Document, Image, RedactedThinking, Text, Thinking, ToolResult, ToolUse

NAN = math.nan
INF = math.inf

WORDS = (
    "the",
    "agent",
    "read",
    "a",
    "file",
    "and",
    "wrote",
    "tests",
    "then",
    "it",
    "fixed",
    "bug",
    "in",
    "parser",
    "we",
    "talked",
    "about",
    "budget",
    "summary",
    "of",
    "old",
    "turns",
)


def _words(n: int, offset: int = 0) -> str:
    return " ".join(WORDS[(offset + k * 7) % len(WORDS)] for k in range(n))


def _density_string(n: int, d: int, dense: str) -> str:
    """A string of ``n`` units with ``d`` dense ones: around 12% it flips the estimator's rate."""
    return "x" * (n - d) + dense * d


# Texts come from precomputed pools (one draw each, so generation stays cheap and shrinks to the first,
# shortest entry), plus a little arbitrary text for the cases no pool thought of.
PROSE = tuple(_words(n, n) for n in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30))
LONG_PROSE = tuple(_words(n, n) for n in (40, 60, 90, 130, 200))
DENSE = (
    '{"a":1}',
    "[1,2]",
    "path/to_x=1",
    '{"path":"/a/b_c","q":[1,2,3]}',
    "`x`" * 10,
    "__init__",
    "key=value " * 6,
    '{"k":"' + "v" * 40 + '"}',
)
ASTRAL_TEXTS = (
    "😀",
    "𝒳 read 🧠",
    "the agent 😀 wrote 🚀🚀 tests",
    "中文 é ü — ß",
    "🧠" * 20,
    "a𐍈b" * 5,
    # Long enough that a message cap cuts them, with astral characters before and at the cut.
    " 😀 ".join(_words(30, 3).split(" ")),
    "🚀" * 45,
    "x😀" * 30,
)
THRESHOLD = tuple(
    _density_string(n, d, c) for n, d in ((25, 3), (25, 4), (50, 6), (50, 7), (9, 1), (9, 2)) for c in ("{", "é")
)
ODD = ("", " ", "\n", "\ud800", "a\ud83d", "   \t ", "x")

prose = st.sampled_from(PROSE)
long_text = st.sampled_from(LONG_PROSE)

#: Any text a block may hold: mostly short prose, sometimes dense, astral, near the threshold, long or odd.
TEXT_POOL = PROSE * 4 + LONG_PROSE + DENSE + ASTRAL_TEXTS + THRESHOLD + ODD

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.sampled_from(("", "x", "é", "😀", "a\ud800")),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(("a", "path", "q")), inner, max_size=3),
    max_leaves=6,
)

#: Any text a block may hold: mostly from the pool (short prose, dense, astral, near the threshold,
#: long, odd), sometimes arbitrary.
texts = weighted((2, st.sampled_from(TEXT_POOL)), (1, st.text(max_size=10)))

#: A stamp: absent mostly; an ordinary count; or a bad number (0, negative, NaN, infinite, fractional), each class
#: often enough that a stamped kind meets it in a few percent of cases.
stamps = choice((6, [None]), (2, [0, 1, 7, 40, 300, 2999]), (2, [0, -5, NAN, INF, -INF, 0.5, -1, NAN, 2.5, NAN]))

#: A summary's measured tokens: missing, ordinary, far above the estimate, or bad.
measured_tokens = choice(
    (4, [5, 1, 2, 3, 8, 13, 21, 34, 55, 89, 144, 233, 377]),
    (2, [None]),
    (2, [400, 610, 987, 1597, 2584, 4181]),
    (1, [0, -3, NAN, INF, 10**6, 12.5]),
)

signatures = st.one_of(st.none(), st.just(""), st.integers(1, 400).map(lambda n: "S" * n))
redacted_data = st.one_of(st.none(), st.just(""), st.integers(1, 600).map(lambda n: "Q" * n))


thinking_blocks = st.builds(Thinking, texts, signatures, stamps)
redacted_blocks = st.builds(RedactedThinking, redacted_data, stamps)
text_blocks = st.builds(Text, texts)
leaf_blocks = weighted(
    (3, text_blocks),
    (1, thinking_blocks),
    (1, redacted_blocks),
    (1, st.builds(ToolUse, st.just("t1"), st.sampled_from(("read", "grep")), json_values)),
    (1, st.builds(ToolResult, st.just("t1"), texts)),
    (1, st.builds(Image, stamps)),
    (1, st.just(Document())),
)
nested_result = st.builds(
    ToolResult,
    st.just("t1"),
    st.lists(
        leaf_blocks | st.builds(ToolResult, st.just("t2"), st.lists(leaf_blocks, max_size=2).map(tuple)), max_size=3
    ).map(tuple),
)
blocks = weighted((4, leaf_blocks), (1, nested_result))

#: A message's content: usually one Text, sometimes several blocks of any kind, sometimes none.
contents = weighted(
    (4, st.builds(lambda t: (Text(t),), texts)),
    (3, st.lists(blocks, min_size=1, max_size=3).map(tuple)),
    (1, st.just(())),
)

#: A summary's carriers: None (no reasoning), an empty list, text only, reasoning then text (the usual
#: reply), or any blocks in any order.
carriers = weighted(
    (3, st.none()),
    (1, st.just(())),
    (1, st.tuples(text_blocks)),
    (2, st.tuples(st.one_of(thinking_blocks, redacted_blocks), text_blocks)),
    (2, st.lists(st.one_of(thinking_blocks, redacted_blocks, text_blocks), min_size=1, max_size=3).map(tuple)),
)

# Seeded samplers of the same mix as the strategies above, for the pools (``store_shapes``): drawing a
# content block by block costs a dozen Hypothesis choices, a pooled one costs one.


def _r_text(r: random.Random) -> str:
    return r.choice(TEXT_POOL) if r.random() < 0.9 else "".join(r.choice('ab é😀{"_') for _ in range(r.randint(0, 8)))


def _r_stamp(r: random.Random) -> object:
    return r.choice(stamps.elements)


def _r_thinking(r: random.Random) -> Thinking:
    signature = r.choice((None, "", "S" * r.randint(1, 400)))
    return Thinking(_r_text(r), signature, _r_stamp(r))


def _r_redacted(r: random.Random) -> RedactedThinking:
    return RedactedThinking(r.choice((None, "", "Q" * r.randint(1, 600))), _r_stamp(r))


def _r_json(r: random.Random, depth: int = 0) -> object:
    k = r.randint(0, 5 if depth < 2 else 3)
    if k == 4:
        return [_r_json(r, depth + 1) for _ in range(r.randint(0, 3))]
    if k == 5:
        return {key: _r_json(r, depth + 1) for key in r.sample(("a", "path", "q"), r.randint(0, 3))}
    return r.choice((None, True, False, 0, -(2**53), 2**53, 7, "", "x", "é", "😀", "a\ud800"))


def _r_leaf(r: random.Random) -> Block:
    kind = r.choices(
        ("text", "thinking", "redacted", "tool_use", "tool_result", "image", "document"), weights=(3, 1, 1, 1, 1, 1, 1)
    )[0]
    return {
        "text": lambda: Text(_r_text(r)),
        "thinking": lambda: _r_thinking(r),
        "redacted": lambda: _r_redacted(r),
        "tool_use": lambda: ToolUse("t1", r.choice(("read", "grep")), _r_json(r)),
        "tool_result": lambda: ToolResult("t1", _r_text(r)),
        "image": lambda: Image(_r_stamp(r)),
        "document": Document,
    }[kind]()


def _r_block(r: random.Random) -> Block:
    if r.random() < 0.8:
        return _r_leaf(r)
    inner = [
        _r_leaf(r) if r.random() < 0.8 else ToolResult("t2", tuple(_r_leaf(r) for _ in range(r.randint(0, 2))))
        for _ in range(r.randint(0, 3))
    ]
    return ToolResult("t1", tuple(inner))


def _r_content(r: random.Random) -> tuple[Block, ...]:
    kind = r.choices(("text", "blocks", "empty"), weights=(4, 3, 1))[0]
    if kind == "text":
        return (Text(_r_text(r)),)
    return () if kind == "empty" else tuple(_r_block(r) for _ in range(r.randint(1, 3)))


def _r_carriers(r: random.Random) -> tuple[Block, ...] | None:
    kind = r.choices(("none", "empty", "text", "usual", "any"), weights=(3, 1, 1, 2, 2))[0]

    def reasoning() -> Block:
        return _r_thinking(r) if r.random() < 0.5 else _r_redacted(r)

    if kind == "none":
        return None
    if kind == "empty":
        return ()
    if kind == "text":
        return (Text(_r_text(r)),)
    if kind == "usual":
        return (reasoning(), Text(_r_text(r)))
    return tuple(r.choice((reasoning, lambda: Text(_r_text(r))))() for _ in range(r.randint(1, 3)))


participants = st.sampled_from(("User", "Claude", "Tool"))


def sample_message(r: random.Random) -> tuple[str, tuple[Block, ...]]:
    return r.choice(participants.elements), _r_content(r)


def sample_summary_fields(r: random.Random) -> tuple[str, object, tuple[Block, ...] | None]:
    kind = r.choices(("prose", "long", "any", "empty"), weights=(3, 1, 1, 1))[0]
    text = {
        "prose": lambda: r.choice(PROSE),
        "long": lambda: r.choice(LONG_PROSE),
        "any": lambda: _r_text(r),
        "empty": lambda: "",
    }[kind]()
    return text, r.choice(measured_tokens.elements), _r_carriers(r)


# Tool cycles, for the pooled histories: calls answered in the next message, late, twice, before the call, never,
# or answering nothing; wide calls; images old and new. Ids are unique per call, so the pairing and pruning passes
# have real pairs to keep, move, stub, drop and count.
TOOL_TURNS = (
    ("pair",) * 5 + ("twice", "early") * 3 + ("late", "open", "orphan", "wide", "image", "image", "prose", "prose")
)


def _tool_call(k: int, r: random.Random, keys: int = 0) -> ToolUse:
    """A call whose input holds a path and ``keys`` more keys, array-index keys among them."""
    size = r.randint(1, 40)
    extra = {key: size for key in ("mode", "1", "limit", "0", "offset")[:keys]}
    return ToolUse(f"u{k}", r.choice(("read", "read", "grep")), {"path": "a" * size, **extra})


def sample_tool_turns(r: random.Random, n: int) -> tuple[tuple[str, tuple[Block, ...]], ...]:
    """``n`` messages of tool cycles (participant and content), in the mix of ``TOOL_TURNS``."""
    turns: list[tuple[str, tuple[Block, ...]]] = []
    k = 0
    while len(turns) < n:
        shape = r.choice(TOOL_TURNS)
        extra = (Image(_r_stamp(r)),) if r.random() < 0.5 else ()
        call = _tool_call(k, r, 5 if shape == "wide" else 0)
        result = ToolResult(call.id, _r_text(r))
        if shape in ("pair", "wide"):
            turns += [("Claude", (Text(r.choice(PROSE)), call)), ("User", (result, *extra))]
        elif shape == "late":
            turns += [("Claude", (call,)), ("User", (Text(_r_text(r)),)), ("User", (result, *extra))]
        elif shape == "twice":
            turns += [("Claude", (call,)), ("User", (result, ToolResult(call.id, _r_text(r)), *extra))]
        elif shape == "early":
            turns += [("User", (result,)), ("Claude", (call,)), ("User", (ToolResult(call.id, _r_text(r)),))]
        elif shape == "open":
            turns.append(("Claude", (Text(r.choice(PROSE)), call)))
        elif shape == "orphan":
            turns.append(("User", (ToolResult(f"gone{k}", _r_text(r)),)))
        elif shape == "image":
            turns.append(("User", (Text(r.choice(PROSE)), Image(_r_stamp(r)), Image(_r_stamp(r)), *extra)))
        else:
            turns.append((r.choice(participants.elements), (Text(_r_text(r)), *extra)))
        k += 1
    return tuple(turns[:n])

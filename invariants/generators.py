"""Composable Hypothesis strategies for what docs/model.md allows (The data to Config and budget).

The shapes are chosen to reach interesting cases quickly rather than to sample uniformly:

- stores are small (1-8 messages mostly, up to 12), so a compile costs a millisecond;
- summary trees are built from contiguous chunks of messages (L1), merged level by level from the
  unmerged frontier (L2..L4, ``parent_id`` set on merged children), so every store is structurally
  valid by construction; some messages stay unsummarized, some summaries stay unmerged, and windows
  over a few messages make summaries touch the head or the tail;
- texts mix prose, JSON-ish and astral text, and strings built to sit on either side of the 12%
  density threshold; every block kind appears, tool results nest;
- carriers, stamps, measured tokens, caps, windows, grace ratios, calibrations, estimators and
  budgets draw their bad values (NaN, infinities, negatives, 0) often enough to matter but rarely
  enough that ordinary cases dominate;
- budgets sit on the store's own edges: the reference price of what the sound compile sends at an
  unlimited budget, one below it, the grace boundary, 0, huge, +inf, and malformed values.

Everything shrinks toward the plain case: no summaries, no carriers, default config, ordinary budget.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar

from hypothesis import strategies as st

from reference.model import (
    Block,
    Budget,
    Config,
    Document,
    Image,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Work,
)
from reference.numerics import Number, len16

NAN = math.nan
INF = math.inf

# ----------------------------------------------------------------------------- texts

WORDS = ("the", "agent", "read", "a", "file", "and", "wrote", "tests", "then", "it", "fixed", "bug",
         "in", "parser", "we", "talked", "about", "budget", "summary", "of", "old", "turns")


def _words(n: int, offset: int = 0) -> str:
    return " ".join(WORDS[(offset + k * 7) % len(WORDS)] for k in range(n))


def _density_string(n: int, d: int, dense: str) -> str:
    """A string of ``n`` units with ``d`` dense ones: around 12% it flips the estimator's rate."""
    return "x" * (n - d) + dense * d


# Texts come from precomputed pools (one draw each, so generation stays cheap and shrinks to the first,
# shortest entry), plus a little arbitrary text for the cases no pool thought of.
PROSE = tuple(_words(n, n) for n in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30))
LONG_PROSE = tuple(_words(n, n) for n in (40, 60, 90, 130, 200))
DENSE = ('{"a":1}', "[1,2]", "path/to_x=1", '{"path":"/a/b_c","q":[1,2,3]}', "`x`" * 10, "__init__",
         "key=value " * 6, '{"k":"' + "v" * 40 + '"}')
ASTRAL_TEXTS = ("😀", "𝒳 read 🧠", "the agent 😀 wrote 🚀🚀 tests", "中文 é ü — ß", "🧠" * 20, "a𐍈b" * 5)
THRESHOLD = tuple(_density_string(n, d, c) for n, d in ((25, 3), (25, 4), (50, 6), (50, 7), (9, 1), (9, 2))
                  for c in ("{", "é"))
ODD = ("", " ", "\n", "\ud800", "a\ud83d", "   \t ", "x")

prose = st.sampled_from(PROSE)
long_text = st.sampled_from(LONG_PROSE)

#: Any text a block may hold: mostly short prose, sometimes dense, astral, near the threshold, long or odd.
TEXT_POOL = PROSE * 4 + LONG_PROSE + DENSE + ASTRAL_TEXTS + THRESHOLD + ODD

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.sampled_from(("", "x", "é", "😀", "a\ud800")),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(("a", "path", "q")), inner,
                                                                 max_size=3),
    max_leaves=6,
)

# ----------------------------------------------------------------------------- numbers


def weighted(*options: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """``one_of`` with integer weights (a branch listed ``w`` times); shrinks toward the first option.

    ``one_of`` drops a strategy object it already has, so each copy is a distinct (identity-mapped) object.
    """
    return st.one_of(*(strat.map(_same) for w, strat in options for _ in range(w)))


def _same(x: object) -> object:
    return x


def choice(*groups: tuple[int, list]) -> st.SearchStrategy:
    """One draw from constant values: group ``k`` (weight ``w``) gets ``w`` parts in 12 of the mass.

    Shrinks toward the first value of the first group.
    """
    values: list = []
    for w, items in groups:
        n = w * 12
        values.extend((list(items) * (n // len(items) + 1))[:n])
    return st.sampled_from(values)


#: Any text a block may hold: mostly from the pool (short prose, dense, astral, near the threshold,
#: long, odd), sometimes arbitrary.
texts = weighted((2, st.sampled_from(TEXT_POOL)), (1, st.text(max_size=10)))

#: A stamp: absent mostly; an ordinary count; or a bad number (0, negative, NaN, infinite, fractional).
stamps = choice((6, [None]), (2, [0, 1, 7, 40, 300, 2999]), (1, [0, -5, NAN, INF, -INF, 0.5]))

#: A summary's measured tokens: missing, ordinary, far above the estimate, or bad.
measured_tokens = choice((4, [5, 1, 2, 3, 8, 13, 21, 34, 55, 89, 144, 233, 377]), (2, [None]),
                        (2, [400, 610, 987, 1597, 2584, 4181]), (1, [0, -3, NAN, INF, 10**6, 12.5]))

signatures = st.one_of(st.none(), st.just(""), st.integers(1, 400).map(lambda n: "S" * n))
redacted_data = st.one_of(st.none(), st.just(""), st.integers(1, 600).map(lambda n: "Q" * n))

# ----------------------------------------------------------------------------- blocks

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
nested_result = st.builds(ToolResult, st.just("t1"), st.lists(
    leaf_blocks | st.builds(ToolResult, st.just("t2"), st.lists(leaf_blocks, max_size=2).map(tuple)),
    max_size=3).map(tuple))
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

# ----------------------------------------------------------------------------- pools
#
# Drawing a content block by block costs a dozen Hypothesis choices; most cases come instead from
# pools built once, at import, by a seeded sampler of the same mix (one choice each, shrinking to the
# pool's first and simplest entry). The block-by-block strategies stay for the rest.


def _r_text(r: random.Random) -> str:
    return r.choice(TEXT_POOL) if r.random() < 0.9 else "".join(r.choice("ab é😀{\"_") for _ in range(r.randint(0, 8)))


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
    kind = r.choices(("text", "thinking", "redacted", "tool_use", "tool_result", "image", "document"),
                     weights=(3, 1, 1, 1, 1, 1, 1))[0]
    return {"text": lambda: Text(_r_text(r)), "thinking": lambda: _r_thinking(r),
            "redacted": lambda: _r_redacted(r),
            "tool_use": lambda: ToolUse("t1", r.choice(("read", "grep")), _r_json(r)),
            "tool_result": lambda: ToolResult("t1", _r_text(r)),
            "image": lambda: Image(_r_stamp(r)), "document": Document}[kind]()


def _r_block(r: random.Random) -> Block:
    if r.random() < 0.8:
        return _r_leaf(r)
    inner = [_r_leaf(r) if r.random() < 0.8 else ToolResult("t2", tuple(_r_leaf(r) for _ in range(r.randint(0, 2))))
             for _ in range(r.randint(0, 3))]
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


def _pool(make, n: int, seed: int) -> tuple:
    """``n`` samples of ``make``, simplest (shortest) first, so that shrinking lands on the plain case."""
    r = random.Random(seed)
    return tuple(sorted((make(r) for _ in range(n)), key=lambda x: len(repr(x))))


# ----------------------------------------------------------------------------- estimators


@dataclass(frozen=True)
class NamedEstimator:
    """A custom text estimator: a pure function of the string, with a readable name."""

    name: str
    fn: Callable[[str], Number] = field(compare=False)
    #: Declared pure: a compile may remember its prices per store (``strategies.pricing.Prices.messages``).
    pure: ClassVar[bool] = True

    def __call__(self, s: str) -> Number:
        return self.fn(s)

    def __repr__(self) -> str:
        return f"<estimator {self.name}>"


ESTIMATORS: tuple[NamedEstimator, ...] = (
    NamedEstimator("len//3", lambda s: len(s) // 3),
    NamedEstimator("len16/4 (fractional)", lambda s: len16(s) / 4),
    NamedEstimator("len16/2.3", lambda s: len16(s) / 2.3),
    NamedEstimator("constant 7", lambda s: 7),
    NamedEstimator("zero", lambda s: 0),
    NamedEstimator("NaN for long text", lambda s: NAN if len(s) > 12 else len(s)),
    NamedEstimator("negative", lambda s: -len(s)),
    NamedEstimator("infinite for empty", lambda s: INF if s == "" else 1),
)
GOOD_ESTIMATORS = ESTIMATORS[:5]

estimators = choice((8, [None]), (1, GOOD_ESTIMATORS), (1, ESTIMATORS))
calibrations = choice((6, [1.0]), (2, [0.5, 1.3, 2.0, 0.26, 3.99]), (1, [0.25, 4, NAN, INF, -1, 0]))

# ----------------------------------------------------------------------------- stores


#: A summary's text: prose mostly, sometimes long (so a cap cuts it), anything, or empty (not a candidate).
summary_texts = weighted((3, prose), (1, long_text), (1, texts), (1, st.just("")))


# Strategies the composites draw from, built once (a strategy built inside a draw is validated each time).
_CHUNK_SIZES = choice((3, [1, 2]), (1, [3, 4]))
_WORK_COUNTS = choice((1, [0]), (2, [1]), (1, [2]))
_WORK_KINDS = st.sampled_from(("chunk", "merge") * 3 + ("in-flight",))
_WORK_STATES = st.sampled_from(("queued", "running"))
_LEAST_MESSAGES = choice((1, [1]), (3, [2, 3, 4]))
_LONGEST = {n: choice((4, [n]), (1, [max(n, 12)])) for n in (8, 12)}
_EPOCHS = st.sampled_from((1, 0))


Skeleton = tuple[tuple[str, int, tuple[str, ...], str, str, str | None], ...]  # id, level, sources, first, last, parent


def tree_shape(ids: list[str], max_level: int, integer: Callable[[int, int], int],
               chunk: Callable[[], int]) -> Skeleton:
    """L1 summaries over contiguous chunks of ``ids``, merged level by level from the unmerged frontier."""
    specs: list[dict] = []
    counters: dict[int, int] = {}

    def new(level: int, source_ids: list[str], first: str, last: str) -> dict:
        k = counters.get(level, 0)
        counters[level] = k + 1
        spec = {"id": f"L{level}-{k}", "level": level, "source_ids": tuple(source_ids), "first": first,
                "last": last, "parent_id": None}
        specs.append(spec)
        return spec

    i = 0
    frontier: list[dict] = []
    while i < len(ids):
        size = chunk()
        part = ids[i:i + size]
        if integer(0, 2) > 0:
            frontier.append(new(1, part, part[0], part[-1]))
        i += size
    for level in range(1, max_level):
        at_level = [s for s in frontier if s["level"] == level]
        j = 0
        while j < len(at_level):
            group = at_level[j:j + integer(1, 3)]
            if integer(0, 2) == 2:
                parent = new(level + 1, [c["id"] for c in group], group[0]["first"], group[-1]["last"])
                for c in group:
                    c["parent_id"] = parent["id"]
                frontier.append(parent)
            j += len(group)
    return tuple((sp["id"], sp["level"], sp["source_ids"], sp["first"], sp["last"], sp["parent_id"]) for sp in specs)


def _r_shape(n: int) -> Callable[[random.Random], Skeleton]:
    def make(r: random.Random) -> Skeleton:
        shape = tree_shape([f"m{i}" for i in range(n)], 4, r.randint, lambda: r.choice(_CHUNK_SIZES.elements))
        if len(shape) > 1 and r.random() < 0.2:
            shape = tuple(r.sample(shape, len(shape)))  # summaries stored out of creation order
        return shape
    return make


@functools.cache
def tree_shapes(n: int) -> tuple[Skeleton, ...]:
    """The pooled tree shapes over ``n`` messages, fewest summaries first."""
    return tuple(sorted(set(_pool(_r_shape(n), 150, 100 + n)), key=lambda t: (len(t), repr(t))))


#: Tree shapes per message count, pooled (one choice); each pool is built when first drawn from.
TREE_SHAPES = {n: st.deferred(lambda n=n: st.sampled_from(tree_shapes(n))) for n in range(1, 13)}


def _summary_tree(draw: st.DrawFn, ids: list[str], max_level: int = 4) -> tuple[Summary, ...]:
    """A summary tree over ``ids`` (a pooled shape for the stores' own ids), each summary's fields drawn."""
    n = len(ids)
    if max_level == 4 and n in TREE_SHAPES and ids == [f"m{i}" for i in range(n)]:
        shape = draw(TREE_SHAPES[n])
    else:
        shape = tree_shape(ids, max_level, lambda a, b: draw(st.integers(a, b)), lambda: draw(_CHUNK_SIZES))
    out = []
    for sid, level, sources, first, last, parent in shape:
        content, tokens, carriers_ = draw(summary_fields)
        out.append(Summary(id=sid, level=level, content=content, tokens=tokens, source_level=level - 1,
                           source_ids=sources, source_range=(first, last), parent_id=parent,
                           response_content=carriers_))
    return tuple(out)


def _works(draw: st.DrawFn, message_ids: list[str], summaries: tuple[Summary, ...]) -> tuple[Work, ...]:
    """Queued or running compression work, or a compression in flight with nothing recorded.

    Chunk work usually folds a run of the messages no summary holds yet, and merge work a run of the
    unmerged summaries (what a compressor would queue next), before or after any point; sometimes it
    folds any set of ids, or nothing.
    """
    summarized = {m for s in summaries if s.source_level == 0 for m in s.source_ids}
    fresh = [m for m in message_ids if m not in summarized]
    frontier = [s.id for s in summaries if s.parent_id is None]
    out = []
    for _ in range(draw(_WORK_COUNTS)):
        kind = draw(_WORK_KINDS)
        state = draw(_WORK_STATES)
        if kind == "in-flight":
            out.append(Work("chunk", "running", None))
            continue
        if kind == "merge" and not summaries:
            kind = "chunk"
        usual = fresh if kind == "chunk" else frontier
        pick = draw(st.integers(0, 3))
        if pick > 0 and usual:
            start = draw(st.integers(0, len(usual) - 1))
            folds = frozenset(usual[start:start + draw(st.integers(1, 3))])
        else:
            everything = message_ids if kind == "chunk" else [s.id for s in summaries]
            folds = frozenset(draw(st.sets(st.sampled_from(everything), max_size=3)))
        out.append(Work(kind, state, folds))
    return tuple(out)


participants = st.sampled_from(("User", "Claude", "Tool"))


def _r_message(r: random.Random) -> tuple[str, tuple[Block, ...]]:
    return r.choice(participants.elements), _r_content(r)


def _r_summary_fields(r: random.Random) -> tuple[str, object, tuple[Block, ...] | None]:
    kind = r.choices(("prose", "long", "any", "empty"), weights=(3, 1, 1, 1))[0]
    text = {"prose": lambda: r.choice(PROSE), "long": lambda: r.choice(LONG_PROSE), "any": lambda: _r_text(r),
            "empty": lambda: ""}[kind]()
    return text, r.choice(measured_tokens.elements), _r_carriers(r)


@functools.cache
def message_pool() -> tuple[tuple[str, tuple[Block, ...]], ...]:
    return _pool(_r_message, 1500, 16)


@functools.cache
def summary_pool() -> tuple[tuple[str, object, tuple[Block, ...] | None], ...]:
    return _pool(_r_summary_fields, 1000, 17)


# The pools are built when first drawn from (``st.deferred``), not at import: a run that fails in an example
# test never pays for them.
message_parts = st.deferred(lambda: st.sampled_from(message_pool()))
#: A summary's text, measured tokens and carriers, mostly as one pooled choice.
summary_fields = st.deferred(lambda: st.sampled_from(summary_pool()))


def _r_history(r: random.Random) -> tuple[tuple[str, tuple[Block, ...]], ...]:
    least = r.choice(_LEAST_MESSAGES.elements)
    longest = r.choice(_LONGEST[8].elements)
    n = min(longest, least + int(r.expovariate(1 / 3)))
    return tuple(r.choice(message_pool()) for _ in range(n))


@functools.cache
def history_pool() -> tuple[tuple[tuple[str, tuple[Block, ...]], ...], ...]:
    return tuple(sorted(_pool(_r_history, 3000, 19), key=len))


#: Whole histories (participant and content per message), shortest first: three cases in four draw one.
HISTORY_POOL = st.deferred(lambda: st.sampled_from(history_pool()))
_WHOLE_HISTORY = choice((3, [True]), (1, [False]))
_MESSAGE_LISTS = {(least, longest): st.lists(message_parts, min_size=least, max_size=longest)
                  for least in (1, 2, 3, 4) for longest in (8, 12)}


def _store(draw: st.DrawFn, max_messages: int = 8, estimator: st.SearchStrategy | None = None) -> Store:
    """A structurally valid store: messages, a summary tree over them, work, calibration, epoch, estimator."""
    # A drawn minimum (shrinking to 1) keeps most stores at 3 messages or more; list deletion shrinks the rest.
    if max_messages == 8 and draw(_WHOLE_HISTORY):
        parts = draw(HISTORY_POOL)  # a whole history in one choice (most cases)
    else:
        least = draw(_LEAST_MESSAGES)
        longest = draw(_LONGEST[max_messages] if max_messages in _LONGEST
                       else choice((4, [max_messages]), (1, [max(max_messages, 12)])))
        parts = draw(_MESSAGE_LISTS[least, longest] if (least, longest) in _MESSAGE_LISTS
                     else st.lists(message_parts, min_size=least, max_size=longest))
    ids = [f"m{i}" for i in range(len(parts))]
    messages = tuple(Message(id=i, participant=p, content=c) for i, (p, c) in zip(ids, parts, strict=True))
    summaries = _summary_tree(draw, ids)
    work = _works(draw, ids, summaries)
    return Store(messages=messages, summaries=summaries, calibration=draw(calibrations),
                 pricing_epoch=draw(_EPOCHS),
                 text_estimator=draw(estimators if estimator is None else estimator), work=work)


# ----------------------------------------------------------------------------- configs

window_sizes = choice((5, [0]), (3, [1, 2, 3, 5, 8, 13, 21, 34, 55]), (1, [89, 144, 233, 377]),
                      (1, [-1, NAN, INF, 10**9]))
caps = choice((6, [0]), (1, [None]), (3, [1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20]), (1, [25, 40, 60, 100, 150, 200]),
              (1, [0.5, 2.5, 1e-9]), (1, [NAN, -5, -INF, INF, -0.5]))
level_budgets = choice((6, [30000]), (2, [0, 1, 5, 20, 50, 100, 300]), (1, [10**12, NAN, -1]))
grace_ratios = choice((12, [0.02]), (5, [0, 0.1, 0.5, 1e-9]), (1, [NAN, -0.1, INF]))
labels = st.sampled_from(("What do you remember from earlier?", "", "Recall?", "{id}", "Recall 😀 [json]"))
templates = st.sampled_from(("[Recall {id}]", "[Recall {id} L{level} {first}..{last}]", "{id}{id}{level}",
                             "no placeholders", "{first}-{last} {unknown} {{id}}", ""))


@st.composite
def configs(draw: st.DrawFn) -> Config:
    """Any config docs/model.md, Config and budget, allows, bad numbers included."""
    return Config(
        head_window_tokens=draw(window_sizes),
        recent_window_tokens=draw(window_sizes),
        max_message_tokens=draw(caps),
        positioned_recall_pairs=draw(st.booleans().map(lambda b: not b)),
        recall_envelope=draw(st.sampled_from(("none", "xml"))),
        carrier_policy=draw(st.sampled_from(("full", "live-strip"))),
        summary_context_label=draw(labels),
        recall_header_template=draw(templates),
        summary_participant=draw(st.sampled_from(("Claude", "Assistant"))),
        l1_budget_tokens=draw(level_budgets),
        l2_budget_tokens=draw(level_budgets),
        l3_budget_tokens=draw(level_budgets),
        over_budget_grace_ratio=draw(grace_ratios),
        enforce_budget=draw(choice((9, [True]), (1, [False]))),
    )


def _r_config(r: random.Random) -> Config:
    pick = r.choice
    return Config(
        head_window_tokens=pick(window_sizes.elements), recent_window_tokens=pick(window_sizes.elements),
        max_message_tokens=pick(caps.elements), positioned_recall_pairs=r.random() < 0.5,
        recall_envelope=pick(("none", "xml")), carrier_policy=pick(("full", "live-strip")),
        summary_context_label=pick(labels.elements), recall_header_template=pick(templates.elements),
        summary_participant=pick(("Claude", "Assistant")), l1_budget_tokens=pick(level_budgets.elements),
        l2_budget_tokens=pick(level_budgets.elements), l3_budget_tokens=pick(level_budgets.elements),
        over_budget_grace_ratio=pick(grace_ratios.elements), enforce_budget=r.random() < 0.9)


def _config_rank(c: Config) -> int:
    """How far a config is from the default (the pool is sorted by it, so it shrinks toward the default)."""
    default = Config()
    return sum(repr(getattr(c, f)) != repr(getattr(default, f)) for f in Config.__dataclass_fields__)


@functools.cache
def config_pool() -> tuple[Config, ...]:
    return tuple(sorted((_r_config(random.Random(18 + k)) for k in range(600)), key=_config_rank))


#: A config: from the pool mostly (one choice), drawn field by field sometimes. (The whole mix is deferred:
#: ``one_of`` would merge the weighted copies of a deferred pool into one branch.)
pooled_configs = st.deferred(lambda: weighted((6, st.sampled_from(config_pool())), (1, configs())))


# ----------------------------------------------------------------------------- budgets


def input_budget_for(price: Number, grace: Number) -> int | None:
    """The smallest integer ``B >= 0`` with ``floor(B * (1 + g)) >= price`` in doubles (None when undefined)."""
    g = 0 if grace < 0 else grace  # Math.max(0, g); NaN stays NaN
    if not (math.isfinite(price) and math.isfinite(g)) or price >= 2**53:
        return None
    factor = 1 + g
    b = max(0, math.ceil(price / factor))
    while b > 0 and math.floor((b - 1) * factor) >= price:
        b -= 1
    while math.floor(b * factor) < price:
        b += 1
    return b


def sound_entries(store: Store, config: Config) -> tuple | None:
    """What the sound compile sends at an unlimited budget (None when it refuses)."""
    from strategies.hierarchical import HierarchicalStrategy

    strategy = HierarchicalStrategy(config, frozenset())
    strategy.initialize(store)
    try:
        return strategy.compile(Budget(max_tokens=INF)).entries
    except Exception:
        return None


def sound_price(store: Store, config: Config) -> Number | None:
    """The reference price of what the sound compile sends at an unlimited budget (None when it refuses)."""
    from reference.price import reference_price

    entries = sound_entries(store, config)
    return None if entries is None else reference_price(entries, store, config)


#: Where a budget sits: on the store's own edges mostly (the whole context's price, the grace boundary,
#: the boundary after any one item sent, so that the next one is refused), sometimes anywhere inside,
#: ordinary, or malformed.
budget_edges = weighted(
    (3, st.just("exact")), (2, st.just("grace")), (3, st.just("grace-1")), (1, st.just("below")),
    (4, st.just("item")), (2, st.just("inside")), (1, st.just("reserve")), (1, st.just("zero")),
    (1, st.just("huge")), (1, st.just("inf")), (1, st.just("malformed")), (6, st.just("middle")),
    (3, st.just("head")), (3, st.just("raw-after-combined")),
)


#: The "middle" edge reserves a few tokens for the response, so its refusals tell the configured budget
#: from the input budget.
MIDDLE_RESERVE = 7
_MIDDLE_TARGETS = st.sampled_from((1, 1, 0))


def _finite_price(x: Number | None, fallback: Number) -> int:
    if x is None or not math.isfinite(x) or x >= 2**53:
        x = fallback
    return max(0, math.ceil(x))


def _budget(draw: st.DrawFn, store: Store, config: Config, edge: str | None = None) -> Budget:
    """A budget around the store's own edges (see the module docstring), on ``edge`` when given."""
    from reference.estimator import content_tokens
    from reference.price import reference_price

    if edge is None:
        edge = draw(budget_edges)
    if edge == "zero":
        return Budget(max_tokens=0)
    if edge == "huge":
        return Budget(max_tokens=10**9)
    if edge == "inf":
        return Budget(max_tokens=INF)
    if edge == "malformed":
        return draw(st.sampled_from((Budget(max_tokens=NAN), Budget(max_tokens=-1), Budget(max_tokens=-INF),
                                     Budget(max_tokens=100, reserve_for_response=NAN),
                                     Budget(max_tokens=100, reserve_for_response=-1),
                                     Budget(max_tokens=100, reserve_for_response=INF),
                                     Budget(max_tokens=100, reserve_for_response=200),
                                     Budget(max_tokens=INF, reserve_for_response=INF))))
    entries = sound_entries(store, config)
    raw_total = sum((content_tokens(m.content, store) for m in store.messages), 0)
    price = _finite_price(None if entries is None else reference_price(entries, store, config),
                          raw_total if math.isfinite(raw_total) else 1000)
    grace = config.over_budget_grace_ratio
    grace = grace if math.isfinite(grace) else 0

    def covering(p: int) -> int:
        b = input_budget_for(p, grace)
        return p if b is None else b

    boundary = covering(price)
    from reference.selection import Rules, bounds

    head_end, middle_end = bounds(store, config, Rules())
    if edge == "head" and entries and head_end > 0:
        # One token short of the whole head: the last head message is refused.
        at = max(0, covering(_finite_price(reference_price(entries[:head_end], store, config), 0)) - 1)
    elif edge == "raw-after-combined" and entries and not config.positioned_recall_pairs and any(
            e.kind == "raw" and head_end <= store.index(e.message_id) < middle_end for e in entries):
        # One token short of the first raw middle message, sent after the combined pair.
        end = next(i + 1 for i, e in enumerate(entries)
                   if e.kind == "raw" and head_end <= store.index(e.message_id) < middle_end)
        at = max(0, covering(_finite_price(reference_price(entries[:end], store, config), 0)) - 1)
    elif edge == "middle" and entries and any(e.kind == "question" for e in entries):
        # One token short of the first recall pair (positioned or combined): the middle refuses there,
        # after a head of whatever length the store has.
        # Or, in combined mode, one short of the first raw message after the combined pair.
        first = next(i for i, e in enumerate(entries) if e.kind == "question")
        ends = [first + 2]
        if not config.positioned_recall_pairs:
            ends += [i + 1 for i, e in enumerate(entries) if i > first + 1 and e.kind == "raw"
                     and head_end <= store.index(e.message_id) < middle_end][:1]
        end = ends[min(draw(_MIDDLE_TARGETS), len(ends) - 1)]
        at = max(0, covering(_finite_price(reference_price(entries[:end], store, config), 0)) - 1)
        return Budget(max_tokens=at + MIDDLE_RESERVE, reserve_for_response=MIDDLE_RESERVE)
    elif edge == "item" and entries:
        # The boundary after the k-th item sent (a raw message or a whole pair): the next item is refused.
        ends = [i + 1 for i, e in enumerate(entries) if e.kind != "question"]
        k = draw(st.integers(0, len(ends) - 1))
        at = covering(_finite_price(reference_price(entries[:ends[k]], store, config), 0))
    elif edge == "exact":
        at = price
    elif edge == "below":
        at = max(0, price - 1)
    elif edge == "grace":
        at = boundary
    elif edge == "grace-1":
        at = max(0, boundary - 1)
    elif edge in ("inside", "item", "middle", "head", "raw-after-combined"):
        at = draw(st.integers(0, max(0, boundary - 1)))
    else:  # reserve: the same input budget, part of it reserved for the response
        reserve = draw(st.integers(1, 500))
        return Budget(max_tokens=boundary + reserve, reserve_for_response=reserve)
    return Budget(max_tokens=at)


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One input to the compile: a store, a config and a budget."""

    store: Store
    config: Config
    budget: Budget

    def __iter__(self):
        return iter((self.store, self.config, self.budget))


# The composites below call the drawing functions above directly: a strategy built inside a draw costs its
# validation and label each time, a function call does not.


@st.composite
def summary_trees(draw: st.DrawFn, ids: list[str], max_level: int = 4) -> tuple[Summary, ...]:
    """A summary tree over ``ids`` (see ``_summary_tree``)."""
    return _summary_tree(draw, ids, max_level)


@st.composite
def works(draw: st.DrawFn, message_ids: list[str], summaries: tuple[Summary, ...]) -> tuple[Work, ...]:
    """Compression work over a store (see ``_works``)."""
    return _works(draw, message_ids, summaries)


@st.composite
def stores(draw: st.DrawFn, max_messages: int = 8, estimator: st.SearchStrategy | None = None) -> Store:
    """A structurally valid store (see ``_store``)."""
    return _store(draw, max_messages, estimator)


@st.composite
def budgets(draw: st.DrawFn, store: Store, config: Config, edge: str | None = None) -> Budget:
    """A budget around the store's own edges (see ``_budget``)."""
    return _budget(draw, store, config, edge)


@st.composite
def cases(draw: st.DrawFn, max_messages: int = 8, store_strategy: st.SearchStrategy | None = None,
          config_strategy: st.SearchStrategy | None = None) -> Case:
    """A store, a config, and a budget on that store's edges."""
    store = _store(draw, max_messages) if store_strategy is None else draw(store_strategy)
    config = draw(pooled_configs if config_strategy is None else config_strategy)
    edge = draw(budget_edges)
    config = for_edge(store, config, edge)
    return Case(store, config, _budget(draw, store, config, edge))


def _raw_after_pair(store: Store, config: Config) -> bool:
    """Whether the sound compile, unlimited, sends a raw middle message after a recall pair."""
    from reference.selection import Rules, bounds

    entries = sound_entries(store, config) or ()
    head_end, middle_end = bounds(store, config, Rules())
    first = next((i for i, e in enumerate(entries) if e.kind == "question"), None)
    return first is not None and any(e.kind == "raw" and head_end <= store.index(e.message_id) < middle_end
                                     for e in entries[first + 2:])


def for_edge(store: Store, config: Config, edge: str) -> Config:
    """The config an edge needs on ``store``: the raw after the combined pair needs combined pairs,
    enforced, and a middle window (no head or recent window when the config's leave no raw after a pair).
    """
    if edge != "raw-after-combined":
        return config
    combined = replace(config, positioned_recall_pairs=False, enforce_budget=True)
    if _raw_after_pair(store, combined):
        return combined
    return replace(combined, head_window_tokens=0, recent_window_tokens=0)


def with_large_level_budgets(config: Config) -> Config:
    """Every level budget at 10**12 (docs/model.md, Invariants: `exact-budget`, "with large level budgets")."""
    return replace(config, l1_budget_tokens=10**12, l2_budget_tokens=10**12, l3_budget_tokens=10**12)


# ----------------------------------------------------------------------------- tool pairs and images


def _tool_use(k: int, name: str, size: int, keys: int = 0) -> ToolUse:
    """A call whose input holds a path and ``keys`` more keys, array-index keys among them."""
    extra = {key: size for key in ("mode", "1", "limit", "0", "offset")[:keys]}
    return ToolUse(f"u{k}", name, {"path": "a" * size, **extra})


@st.composite
def tool_turns(draw: st.DrawFn, n: int) -> list[tuple[str, tuple]]:
    """``n`` messages of tool cycles: a call, then its answer, with prose, orphans and images between.

    Most calls are answered in the next message (a pair that a window boundary may split), some are
    left open (an orphaned tool_use, the newest message often is one), some answers answer nothing,
    some come a message late (the pairing pass moves them up), some calls have wide inputs; images sit
    in old and new messages alike.
    """
    turns: list[tuple[str, tuple]] = []
    k = 0
    while len(turns) < n:
        shape = draw(choice((6, ["pair"]), (2, ["prose"]), (1, ["open-use", "orphan-result", "image"]),
                            (1, ["late-result", "wide-use"])))
        extra = (Image(draw(choice((3, [None]), (1, [5, 40, 300])))),) if draw(st.integers(0, 4)) == 0 else ()
        if shape == "pair":
            name = draw(st.sampled_from(("read", "grep")))
            turns.append(("Claude", (Text(draw(prose)), _tool_use(k, name, draw(st.integers(1, 40))))))
            turns.append(("User", (ToolResult(f"u{k}", draw(texts)), *extra)))
            k += 1
        elif shape in ("late-result", "wide-use"):
            late = shape == "late-result"
            turns.append(("Claude", (_tool_use(k, "read", draw(st.integers(1, 40)), 0 if late else 5),)))
            turns += [("User", (Text(draw(texts)),))] if late else []
            turns.append(("User", (ToolResult(f"u{k}", draw(texts)), *extra)))
            k += 1
        elif shape == "open-use":
            turns.append(("Claude", (_tool_use(k, "read", draw(st.integers(1, 40))),)))
            k += 1
        elif shape == "orphan-result":
            turns.append(("User", (ToolResult(f"gone{k}", draw(texts)),)))
            k += 1
        elif shape == "image":
            turns.append(("User", (Text(draw(prose)), Image(draw(stamps)), *extra)))
        else:
            turns.append((draw(participants), (Text(draw(texts)), *extra)))
    return turns[:n]


@st.composite
def tool_stores(draw: st.DrawFn, max_messages: int = 10) -> Store:
    """A store of tool cycles and images (see ``tool_turns``), summarized like ``stores``, default estimator."""
    n = draw(st.integers(2, max_messages))
    turns = draw(tool_turns(n))
    ids = [f"m{i}" for i in range(len(turns))]
    messages = tuple(Message(id=i, participant=p, content=c) for i, (p, c) in zip(ids, turns, strict=True))
    summaries = _summary_tree(draw, ids)
    return Store(messages=messages, summaries=summaries, calibration=draw(calibrations.filter(math.isfinite)))


#: Image and tool-pruning settings: off mostly, tight enough to bite sometimes.
live_images = choice((4, [0]), (2, [1, 2]), (1, [3, 6]))
strip_depths = choice((4, [0]), (2, [5, 20, 60]), (1, [200, 1000]))
input_caps = choice((5, [0]), (1, [1, 3, 10]))
last_ns = choice((5, [None]), (1, [0, 1, 2]), (1, [(("read", 1),), (("grep", 0), ("read", 3))]))


@st.composite
def tool_configs(draw: st.DrawFn) -> Config:
    """Ordinary configs with windows that fall among the tool cycles, and the image and pruning settings."""
    base = draw(configs())
    return replace(base, head_window_tokens=draw(choice((2, [0]), (3, [5, 13, 21, 34, 55, 89]))),
                   recent_window_tokens=draw(choice((2, [0]), (3, [5, 13, 21, 34, 55, 89, 144]))),
                   max_live_images=draw(live_images), image_strip_depth_tokens=draw(strip_depths),
                   tool_use_input_max_tokens=draw(input_caps), tool_result_max_last_n=draw(last_ns))


def tool_cases(max_messages: int = 10) -> st.SearchStrategy[Case]:
    """Cases over tool-cycle stores and tool configs, with budgets on their edges."""
    return cases(store_strategy=tool_stores(max_messages), config_strategy=tool_configs())

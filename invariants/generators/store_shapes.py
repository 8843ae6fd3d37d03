"""Stores: estimators, summary trees, compression work, and whole histories, pooled where they can be.

Stores are small mostly (1-8 messages, up to 12), so a compile costs a millisecond; about one history in eight is
large (11 to 30 messages, where ``m10`` sorts before ``m2``) or huge (31 to 52), and one in three is tool cycles
(``sample_tool_turns``), spread through the pool so that they are drawn that often. Summary trees are
built from contiguous chunks of messages (L1), merged level by level from the unmerged frontier (L2..L4,
``parent_id`` set on merged children), so every store is structurally valid by construction; some
messages stay unsummarized, some summaries stay unmerged.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from hypothesis import strategies as st

from invariants.generators.content import INF, NAN, sample_message, sample_summary_fields, sample_tool_turns
from invariants.generators.draws import choice, pool_of, simplest_first, spread
from reference.model import Block, Message, Store, Summary, Work
from reference.numerics import Number, len16


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


# Strategies the composites draw from, built once (a strategy built inside a draw is validated each time).
_CHUNK_SIZES = choice((3, [1, 2]), (1, [3, 4]))
_LEAST_MESSAGES = choice((1, [1]), (3, [2, 3, 4]))
_LONGEST = choice((4, [8]), (1, [12]))  # of a pooled history
_EPOCHS = st.sampled_from((1, 0))


Skeleton = tuple[tuple[str, int, tuple[str, ...], str, str, str | None], ...]  # id, level, sources, first, last, parent


def tree_shape(
    ids: list[str], max_level: int, integer: Callable[[int, int], int], chunk: Callable[[], int]
) -> Skeleton:
    """L1 summaries over contiguous chunks of ``ids``, merged level by level from the unmerged frontier."""
    specs: list[dict] = []
    counters: dict[int, int] = {}

    def new(level: int, source_ids: list[str], first: str, last: str) -> dict:
        k = counters.get(level, 0)
        counters[level] = k + 1
        spec = {
            "id": f"L{level}-{k}",
            "level": level,
            "source_ids": tuple(source_ids),
            "first": first,
            "last": last,
            "parent_id": None,
        }
        specs.append(spec)
        return spec

    i = 0
    frontier: list[dict] = []
    while i < len(ids):
        size = chunk()
        part = ids[i : i + size]
        if integer(0, 2) > 0:
            frontier.append(new(1, part, part[0], part[-1]))
        i += size
    for level in range(1, max_level):
        at_level = [s for s in frontier if s["level"] == level]
        j = 0
        while j < len(at_level):
            group = at_level[j : j + integer(1, 3)]
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
    return tuple(sorted(set(pool_of(_r_shape(n), 150, 100 + n)), key=lambda t: (len(t), repr(t))))


#: The sizes of the large pooled histories: 11 to 30 messages (where an id's string order and its position
#: disagree: ``m10`` sorts before ``m2``), and more than 30.
LARGE_COUNTS = (11, 12, 13, 16, 20, 24, 30)
HUGE_COUNTS = (31, 40, 52)
#: Message counts with a pool of tree shapes.
POOLED_COUNTS = frozenset((*range(1, 13), *LARGE_COUNTS, *HUGE_COUNTS))


SummaryFields = tuple[str, object, tuple[Block, ...] | None]  # text, measured tokens, carriers
Tree = tuple[Skeleton, tuple[SummaryFields, ...]]  # a shape, and each of its summaries' fields


def _r_tree(n: int) -> Callable[[random.Random], Tree]:
    shapes, fields = tree_shapes(n), summary_pool()

    def make(r: random.Random) -> Tree:
        shape = r.choice(shapes)
        return shape, tuple(r.choice(fields) for _ in shape)

    return make


@functools.cache
def trees(n: int) -> tuple[Tree, ...]:
    """The pooled trees over ``n`` messages: the plainest (fewest summaries, simplest fields) first, then 600
    samples, fewest summaries first (a stable sort keeps each count's mix)."""
    plain = tree_shapes(n)[0]
    pool = simplest_first((plain, tuple(summary_pool()[0] for _ in plain)), _r_tree(n), 600, 500 + n)
    return tuple(sorted(pool, key=lambda t: len(t[0])))


@functools.cache
def tree_choices(n: int) -> st.SearchStrategy[Tree]:
    """A pooled tree over ``n`` messages, its shape and its summaries' fields, in one choice.

    One choice rather than one per summary: Hypothesis replays an example with a repeated draw up to five
    times with values copied across (``generate_mutations_from``), so many-summary stores would crowd out
    fresh cases (see the package docstring); ``polish`` plainens each summary's fields of a failing case.
    """
    return st.sampled_from(trees(n))


def _summaries(shape: Skeleton, fields: tuple[SummaryFields, ...]) -> tuple[Summary, ...]:
    return tuple(
        Summary(
            id=sid,
            level=level,
            content=content,
            tokens=tokens,
            source_level=level - 1,
            source_ids=sources,
            source_range=(first, last),
            parent_id=parent,
            response_content=carriers_,
        )
        for (sid, level, sources, first, last, parent), (content, tokens, carriers_) in zip(shape, fields, strict=True)
    )


def draw_summary_tree(draw: st.DrawFn, ids: list[str], max_level: int = 4) -> tuple[Summary, ...]:
    """A summary tree over ``ids``: a pooled tree for the stores' own ids, else a shape and each summary's
    fields drawn one by one."""
    n = len(ids)
    if max_level == 4 and n in POOLED_COUNTS and ids == [f"m{i}" for i in range(n)]:
        return _summaries(*draw(tree_choices(n)))
    shape = tree_shape(ids, max_level, lambda a, b: draw(st.integers(a, b)), lambda: draw(_CHUNK_SIZES))
    return _summaries(shape, tuple(draw(summary_field_choices()) for _ in shape))


#: Planned work items, read against a store's ids by ``planned_works``: each is ``("in-flight",)`` or
#: ``(kind, state, run, start, length, fractions)``: a run of the usual ids (``start`` a fraction of them) when
#: ``run`` and there are any, else the ids at ``fractions`` of all of them.
WorkPlan = tuple[tuple, ...]
_WORK_COUNTS = (0, 1, 1, 2)
_WORK_KINDS = ("chunk", "merge") * 3 + ("in-flight",)
_WORK_STATES = ("queued", "running")


def _r_work_plan(r: random.Random) -> WorkPlan:
    """Up to two work items: chunk or merge (3 in 7 each) or in flight, queued or running; a run in 5 of 8,
    else any ids, none in 2 of 5 of those."""
    plan = []
    for _ in range(r.choice(_WORK_COUNTS)):
        kind = r.choice(_WORK_KINDS)
        state = r.choice(_WORK_STATES)
        if kind == "in-flight":
            plan.append(("in-flight",))
            continue
        run, start, length = r.random() < 0.625, r.random(), r.randint(1, 3)
        plan.append((kind, state, run, start, length, tuple(r.random() for _ in range(r.choice((0, 0, 1, 2, 3))))))
    return tuple(plan)


@functools.cache
def work_plans() -> tuple[WorkPlan, ...]:
    """The pooled work plans, no work first."""
    return simplest_first((), _r_work_plan, 1000, 21)


@functools.cache
def work_plan_choices() -> st.SearchStrategy[WorkPlan]:
    """A pooled work plan in one choice."""
    return st.sampled_from(work_plans())


def _at(ids: list[str], u: float) -> str:
    return ids[int(u * len(ids))]


def planned_works(plan: WorkPlan, message_ids: list[str], summaries: tuple[Summary, ...]) -> tuple[Work, ...]:
    """The work ``plan`` describes over a store: a run of the fresh messages (chunk) or of the unmerged
    summaries (merge), or any ids; merge work over a store without summaries is chunk work."""
    summarized = {m for s in summaries if s.source_level == 0 for m in s.source_ids}
    fresh = [m for m in message_ids if m not in summarized]
    frontier = [s.id for s in summaries if s.parent_id is None]
    out = []
    for kind, *rest in plan:
        if kind == "in-flight":
            out.append(Work("chunk", "running", None))
            continue
        state, run, start, length, fractions = rest
        if kind == "merge" and not summaries:
            kind = "chunk"
        usual = fresh if kind == "chunk" else frontier
        if run and usual:
            at = int(start * len(usual))
            folds = frozenset(usual[at : at + length])
        else:
            everything = message_ids if kind == "chunk" else [s.id for s in summaries]
            folds = frozenset(_at(everything, u) for u in fractions) if everything else frozenset()
        out.append(Work(kind, state, folds))
    return tuple(out)


def draw_works(draw: st.DrawFn, message_ids: list[str], summaries: tuple[Summary, ...]) -> tuple[Work, ...]:
    """Queued or running compression work, or a compression in flight with nothing recorded, in one choice.

    Chunk work usually folds a run of the messages no summary holds yet, and merge work a run of the
    unmerged summaries (what a compressor would queue next), before or after any point; sometimes it
    folds any set of ids, or nothing.
    """
    return planned_works(draw(work_plan_choices()), message_ids, summaries)


@functools.cache
def message_pool() -> tuple[tuple[str, tuple[Block, ...]], ...]:
    return pool_of(sample_message, 1500, 16)


@functools.cache
def summary_pool() -> tuple[tuple[str, object, tuple[Block, ...] | None], ...]:
    return pool_of(sample_summary_fields, 1000, 17)


# Each pool, and the strategy choosing from it, is built when first drawn from, not at import (a run that fails
# in an example test never pays for them), by a cached function rather than ``st.deferred``, whose extra
# layer would cost every draw.


@functools.cache
def message_lists(least: int, longest: int) -> st.SearchStrategy[list[tuple[str, tuple[Block, ...]]]]:
    """Between ``least`` and ``longest`` pooled messages (participant and content), one choice each."""
    return st.lists(st.sampled_from(message_pool()), min_size=least, max_size=longest)


@functools.cache
def summary_field_choices() -> st.SearchStrategy[tuple[str, object, tuple[Block, ...] | None]]:
    """A summary's text, measured tokens and carriers in one choice (for a tree that is not pooled)."""
    return st.sampled_from(summary_pool())


#: The history templates (``_r_history``) and their weights: messages from the message pool, or tool cycles
#: (``sample_tool_turns``); each usually short, sometimes large (``LARGE_COUNTS``) or huge (``HUGE_COUNTS``).
_TEMPLATES = ("messages",) * 2 + ("tool cycles",)
_SIZES = ("short",) * 22 + ("large",) * 2 + ("huge",)

History = tuple[tuple[str, tuple[Block, ...]], ...]


def _r_history(r: random.Random) -> tuple[bool, History]:
    """A history, and whether it is plain (short, of pooled messages) rather than tool cycles or large."""
    size = r.choice(_SIZES)
    if size == "short":
        least = r.choice(_LEAST_MESSAGES.elements)
        longest = r.choice(_LONGEST.elements)
        n = min(longest, least + int(r.expovariate(1 / 3)))
    else:
        n = r.choice(LARGE_COUNTS if size == "large" else HUGE_COUNTS)
    if r.choice(_TEMPLATES) == "tool cycles":
        return False, sample_tool_turns(r, max(n, 6))
    return size == "short", tuple(r.choice(message_pool()) for _ in range(n))


@functools.cache
def history_pool() -> tuple[History, ...]:
    """The pooled histories: 4,000 samples of ``_r_history``, the plain ones shortest first, with the tool cycles and
    the large ones spread evenly through them (``spread``)."""
    r = random.Random(19)
    samples = [_r_history(r) for _ in range(4000)]
    plain = tuple(sorted((h for ok, h in samples if ok), key=len))
    return spread(plain, tuple(h for ok, h in samples if not ok))


@functools.cache
def history_choices() -> st.SearchStrategy[History]:
    """A whole history (participant and content per message) in one choice, from a pool shortest first (see
    ``tree_choices`` for why not a list of messages)."""
    return st.sampled_from(history_pool())


@functools.cache
def list_bounds(longest: int) -> st.SearchStrategy[tuple[int, int]]:
    """A message list's least and longest lengths in one choice: least 1 to 4 evenly (``_LEAST_MESSAGES``'s mix);
    ``longest`` 4 times in 5, else at least 12."""
    return st.sampled_from([(least, n) for least in (1, 2, 3, 4) for n in (longest,) * 4 + (max(longest, 12),)])


def draw_store(draw: st.DrawFn, max_messages: int = 8, estimator: st.SearchStrategy | None = None) -> Store:
    """A structurally valid store: messages, a summary tree over them, work, calibration, epoch, estimator."""
    if max_messages == 8:
        parts = draw(history_choices())
    else:
        # A drawn minimum (shrinking to 1) keeps most stores at 3 messages or more; list deletion shrinks the rest.
        least, longest = draw(list_bounds(max_messages))
        parts = draw(message_lists(least, longest))
    ids = [f"m{i}" for i in range(len(parts))]
    messages = tuple(Message(id=i, participant=p, content=c) for i, (p, c) in zip(ids, parts, strict=True))
    summaries = draw_summary_tree(draw, ids)
    if estimator is None:
        plan, text_estimator, epoch, calibration = draw(store_settings_choices())
    else:
        plan, text_estimator = draw(work_plan_choices()), draw(estimator)
        epoch, calibration = draw(_EPOCHS), draw(calibrations)
    return Store(
        messages=messages,
        summaries=summaries,
        calibration=calibration,
        pricing_epoch=epoch,
        text_estimator=text_estimator,
        work=planned_works(plan, ids, summaries),
    )


#: A store's work plan, estimator, pricing epoch and calibration.
StoreSettings = tuple[WorkPlan, NamedEstimator | None, int, Number]


def _r_store_settings(r: random.Random) -> StoreSettings:
    return (_r_work_plan(r), r.choice(estimators.elements), r.choice(_EPOCHS.elements), r.choice(calibrations.elements))


@functools.cache
def store_settings_pool() -> tuple[StoreSettings, ...]:
    """The pooled settings: none of them (no work, the default estimator, epoch 1, calibration 1) first, then
    2,000 samples in the order drawn, each setting in its own mix."""
    return simplest_first(((), None, 1, 1.0), _r_store_settings, 2000, 22)


@functools.cache
def store_settings_choices() -> st.SearchStrategy[StoreSettings]:
    """A store's work plan, estimator, pricing epoch and calibration in one choice (what they need on a failing
    case, ``invariants.polish`` finds after the shrink)."""
    return st.sampled_from(store_settings_pool())


# The composites call the drawing functions directly: a strategy built inside a draw costs its validation
# and label each time, a function call does not.


@st.composite
def summary_trees(draw: st.DrawFn, ids: list[str], max_level: int = 4) -> tuple[Summary, ...]:
    """A summary tree over ``ids`` (see ``draw_summary_tree``)."""
    return draw_summary_tree(draw, ids, max_level)


@st.composite
def works(draw: st.DrawFn, message_ids: list[str], summaries: tuple[Summary, ...]) -> tuple[Work, ...]:
    """Compression work over a store (see ``draw_works``)."""
    return draw_works(draw, message_ids, summaries)


@st.composite
def stores(draw: st.DrawFn, max_messages: int = 8, estimator: st.SearchStrategy | None = None) -> Store:
    """A structurally valid store (see ``draw_store``)."""
    return draw_store(draw, max_messages, estimator)

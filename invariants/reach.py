"""What shape a generated case has, for Hypothesis' statistics and steering.

``observe(case)`` records, with ``hypothesis.event``, the refusal site the ``sound`` compile reaches
(head, positioned, combined pair, raw after the combined pair, or none), the window shape, the
pair mode and the compression work, and ``target``s the distance to the grace boundary. Run a property test with
``--hypothesis-show-statistics`` to see the figures.

``shapes_of(case)`` says which of the report's ``SHAPES`` a case reaches (store sizes, ids out of string order, astral
and cut text, block kinds by stamp class, what the tool passes do to results, images stripped by each rule, blank,
merged and straddling summaries, windows of 0 and each class of cap, every refusal site and kind, and a stub beside
a real result, which only the parallel tool cases reach), read from the case and from what the reference selects, lays
out and runs the passes over at its budget, never from the code under test, so a change to the compile cannot move the
figures; ``benchmarks/bench_reach.py`` prints them for ``ci``, ``deep`` and the tool generators' cases.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from hypothesis import HealthCheck, event, given, seed, settings, target
from hypothesis.strategies import SearchStrategy

from invariants.generators import Case
from invariants.properties import UNLIMITED, compile_once, grace_limit, refusal_site
from reference import passes
from reference.estimator import content_tokens
from reference.images import depth_start, live_flags
from reference.model import Block, Budget, Config, Store, Text, Thinking, ToolResult, ToolUse
from reference.numerics import Number, is_number, js_trim
from reference.price import prose, reference_price
from reference.rendering import SEPARATOR_TEXT, Item, finish, layout, positioned_pair
from reference.selection import Layout, Rules, message_prices, select
from strategies.errors import OverBudgetError

T = TypeVar("T")

SITES = ("head", "positioned", "combined-pair", "raw-after-combined")
#: What compression work a store holds (``work_shapes``): none, chunk or merge work that folds something,
#: work that folds nothing, a compression in flight.
WORK_SHAPES = ("none", "chunk", "merge", "folds nothing", "in flight")


def site_of(case: Case) -> str:
    """The refusal site the sound compile reaches on ``case``, or what else it does."""
    store, config, budget = case
    out = compile_once(store, config, budget, "sound")
    if out.sent:
        return "sent"
    if not isinstance(out.error, OverBudgetError):
        return type(out.error).__name__
    ref = select(store, config, budget)
    raw = [*range(ref.head_end), *ref.middle_raw, *range(ref.middle_end, len(store.messages))]
    items = layout(store, config, raw, ref.selected, (ref.head_end, ref.middle_end))
    at = refusal_site(out.error, items)
    return "unplaced" if at is None else items[at].site


def window_shape(case: Case) -> str:
    """Which windows are non-empty, and whether a selected summary straddles the middle and a window."""
    store, config, budget = case
    ref = select(store, config, budget)
    n = len(store.messages)
    parts = [
        name
        for name, present in (
            ("head", ref.head_end > 0),
            ("middle", ref.middle_end > ref.head_end),
            ("tail", ref.middle_end < n),
        )
        if present
    ]
    straddles = any(
        any(store.index(m) < ref.head_end or store.index(m) >= ref.middle_end for m in store.leaves(s.id))
        for s in ref.selected
    )
    return "+".join(parts or ["empty"]) + (" (straddling summary)" if straddles else "")


def pair_mode(case: Case) -> str:
    config = case.config
    return f"{'positioned' if config.positioned_recall_pairs else 'combined'}, envelope {config.recall_envelope}"


def work_shapes(case: Case) -> frozenset[str]:
    """Which of ``WORK_SHAPES`` the store's work items take ("none" when it holds no work)."""
    shapes = {"in flight" if w.folds is None else "folds nothing" if not w.folds else w.kind for w in case.store.work}
    return frozenset(shapes or {"none"})


def grace_distance(case: Case) -> float | None:
    """How far the grace limit is from the price of what the sound compile sends unlimited (None if undefined)."""
    store, config, budget = case
    free = compile_once(store, config, UNLIMITED, "sound")
    if not free.sent:
        return None
    price = reference_price(free.entries, store, config)
    limit = grace_limit(budget, config)
    distance = abs(limit - price)
    return float(distance) if math.isfinite(distance) else None


def observe(case: Case) -> None:
    """Record the case's refusal site, window shape, pair mode and work; steer toward the grace boundary."""
    event("refusal site: " + site_of(case))
    event("windows: " + window_shape(case))
    event("pairs: " + pair_mode(case))
    event("work: " + ", ".join(sorted(work_shapes(case))))
    distance = grace_distance(case)
    if distance is not None:
        target(-distance, label="closeness to the grace boundary")


def reach(cases: Iterable[Case]) -> Counter[str]:
    """How many of ``cases`` reach each site (and each other outcome)."""
    return Counter(site_of(c) for c in cases)


# ----------------------------------------------------------------------------- the shapes a case reaches

#: Every shape the reach report measures, by group; ``shapes_of`` says which of them a case reaches. Each is read
#: from the case itself or from what the reference (``reference/``) selects, lays out and runs the passes over at
#: the case's budget, never from the code under test.
STAMPED = ("Thinking", "RedactedThinking", "Image")
STAMP_CLASSES = ("absent", "0", "negative", "NaN", "fractional")
SHAPE_GROUPS: dict[str, tuple[str, ...]] = {
    "store": ("messages <= 5", "messages 6-10", "messages 11-30", "messages 31+", "ids out of string order"),
    "text": ("astral text", "text cut by the cap", "astral text cut by the cap", "the cut at an astral character"),
    "blocks": (
        "block Text",
        "block ToolUse",
        "block ToolResult",
        "block Document",
        *(f"block {kind}, stamp {stamp}" for kind in STAMPED for stamp in STAMP_CLASSES),
    ),
    "tools": (
        "tool result dropped",
        "tool result moved",
        "tool result stubbed",
        "tool result pruned, one limit for every tool",
        "tool result pruned, a per-tool limit",
        "tool result pruned, limit 0",
        "tool call input capped",
        "dropped result that would change its tool's pruning",
    ),
    "images": ("image stripped by depth", "image stripped by count", "image kept live"),
    "summaries": ("summary blank", "summary merged", "summary straddling"),
    "config": (
        "head window 0",
        "recent window 0",
        "cap off (0 or none)",
        "cap fractional",
        "cap negative, NaN or infinite",
        "grace ratio 0",
        "budget not enforced",
    ),
    "refusals": (
        "sent",
        "refused at the head",
        "refused at a middle raw message",
        "refused at a positioned pair",
        "refused at the combined pair",
        "refused at a raw message after the combined pair",
        "tail evicted",
        "summary left out of the combined answer",
        "bad budget",
        "bad grace ratio or window",
        "bad estimate",
    ),
}
SHAPES: tuple[str, ...] = tuple(s for group in SHAPE_GROUPS.values() for s in group)
#: What the tool generators (``tool_cases``) exist for, each in at least 1% of their draws (tests/test_reach.py): the
#: tool passes' shapes, images kept and stripped by depth, and windows of 0 among tool cycles.
TOOL_CASE_SHAPES: tuple[str, ...] = (
    *(s for s in SHAPE_GROUPS["tools"] if s != "dropped result that would change its tool's pruning"),
    "image stripped by depth",
    "image kept live",
    "head window 0",
    "recent window 0",
)
#: ``tool_cases(parallel=True)`` exist for messages making two calls: a call answered a message late (moved), or one
#: never answered, stubbed beside its sibling's result.
STUB_BESIDE_A_RESULT = "tool result stubbed beside a real one"
PARALLEL_CASE_SHAPES: tuple[str, ...] = ("tool result moved", "tool result stubbed", STUB_BESIDE_A_RESULT)

_CUT_MARK = "\n\n[truncated — original was "
_SITE_SHAPES = {
    "head": "refused at the head",
    "combined-pair": "refused at the combined pair",
    "raw-after-combined": "refused at a raw message after the combined pair",
}


def _size_shape(n: int) -> str:
    return (
        "messages <= 5" if n <= 5 else "messages 6-10" if n <= 10 else "messages 11-30" if n <= 30 else "messages 31+"
    )


def _stamp_class(value: Number | None) -> str | None:
    if value is None:
        return "absent"
    if math.isnan(value):
        return "NaN"
    if value == 0:
        return "0"
    if value < 0:
        return "negative"
    return "fractional" if math.isfinite(value) and value != int(value) else None


def _walk(content: Iterable[Block]) -> Iterator[Block]:
    """Every block of ``content``, those nested in tool results included."""
    for b in content:
        yield b
        if isinstance(b, ToolResult) and not isinstance(b.content, str):
            yield from _walk(b.content)


def _strings(b: Block) -> tuple[str, ...]:
    if isinstance(b, Text):
        return (b.text,)
    if isinstance(b, Thinking):
        return (b.thinking,)
    if isinstance(b, ToolResult) and isinstance(b.content, str):
        return (b.content,)
    return ()


def _astral(s: str) -> bool:
    return any(ord(c) > 0xFFFF for c in s)


def _config_shapes(config: Config) -> set[str]:
    """The settings whose edges the compile treats apart: windows of 0, each class of cap, no grace, no budget."""
    found: set[str] = set()
    if config.head_window_tokens == 0:
        found.add("head window 0")
    if config.recent_window_tokens == 0:
        found.add("recent window 0")
    cap = config.max_message_tokens
    if cap is None or cap == 0:
        found.add("cap off (0 or none)")
    elif not (math.isfinite(cap) and cap > 0):
        found.add("cap negative, NaN or infinite")
    elif cap != int(cap):
        found.add("cap fractional")
    if config.over_budget_grace_ratio == 0:
        found.add("grace ratio 0")
    if not config.enforce_budget:
        found.add("budget not enforced")
    return found


def _block_shapes(store: Store) -> set[str]:
    found: set[str] = set()
    carriers = (s.response_content or () for s in store.summaries)
    for b in _walk(b for content in (*(m.content for m in store.messages), *carriers) for b in content):
        kind = type(b).__name__
        if kind in STAMPED:
            stamp = _stamp_class(b.token_estimate)
            if stamp is not None:
                found.add(f"block {kind}, stamp {stamp}")
        else:
            found.add(f"block {kind}")
        if any(_astral(s) for s in _strings(b)):
            found.add("astral text")
    if any(_astral(s.content) for s in store.summaries):
        found.add("astral text")
    return found


def _cut_shapes(store: Store, items: list[Item]) -> set[str]:
    """Texts the reference's cap cuts in what it lays out, and whether the cut runs through astral text."""
    originals = {s for b in _walk(b for m in store.messages for b in m.content) for s in _strings(b)} | {
        s for summary in store.summaries for b in _walk(prose(summary)) for s in _strings(b)
    }
    found: set[str] = set()
    for it in items:
        for b in _walk(b for e in it.entries for b in e.content):
            for text in _strings(b):
                if _CUT_MARK not in text or text in originals:
                    continue
                found.add("text cut by the cap")
                kept = text[: text.rindex(_CUT_MARK)]
                whole = [o for o in originals if o.startswith(kept) and len(o) > len(kept)]
                if any(_astral(o[: len(kept) + 1]) for o in whole):
                    found.add("astral text cut by the cap")
                # the cap counts UTF-16 units, the text holds code points: they part at an astral character
                if any(_astral(o[len(kept)]) or _astral(kept[-1:]) for o in whole):
                    found.add("the cut at an astral character")
    return found


def _finite(x: Number) -> bool:
    return is_number(x) and math.isfinite(x) and x >= 0


def _bad_values(config: Config, budget: Budget) -> str | None:
    """The bad-value refusal a case's numbers call for (docs/model.md, The bad-value refusals), if any."""
    if not (budget.max_tokens >= 0) or not _finite(budget.reserve_for_response) or budget.input_budget < 0:
        return "bad budget"
    if not _finite(config.over_budget_grace_ratio) or any(
        math.isnan(w) for w in (config.head_window_tokens, config.recent_window_tokens)
    ):
        return "bad grace ratio or window"
    return None


@dataclass(frozen=True)
class _Checked:
    """A custom estimator that remembers whether it ever returned what the compile must refuse."""

    fn: Callable[[str], Number]
    bad: list[bool]

    def __call__(self, s: str) -> Number:
        value = self.fn(s)
        if not (is_number(value) and math.isfinite(value) and value >= 0):
            self.bad.append(True)
        return value


def _item_price(it: Item, store: Store, config: Config) -> Number:
    return reference_price(it.entries, store, config)


def _emission_shapes(store: Store, config: Config, budget: Budget, ref: Layout, items: list[Item]) -> set[str]:
    """Where the reference's running total meets the grace limit: a refused item, tail evictions, or summaries
    the combined answer leaves out (docs/model.md, Emission and the grace check; Coverage)."""
    limit = grace_limit(budget, config)
    total: Number = 0
    for it in items:
        if it.site == "tail":
            break
        price = _item_price(it, store, config)
        if total + price > limit:
            if it.site == "positioned":
                return {"refused at a middle raw message" if it.raw else "refused at a positioned pair"}
            return {_SITE_SHAPES[it.site]}
        total += price
    found: set[str] = set()
    accepted: Number = 0
    for it in reversed([it for it in items if it.site == "tail"]):
        accepted += _item_price(it, store, config)
        if total + accepted > limit:
            found.add("tail evicted")
            break
    held = {s.id for it in items if it.site == "combined-pair" for s in it.held}
    if not config.positioned_recall_pairs and any(s.id not in held for s in ref.selected):
        found.add("summary left out of the combined answer")
    return found or {"sent"}


def _tool_limit(config: Config, tool: str) -> Number | None:
    """The result limit that applies to ``tool`` (docs/model.md, Tool pruning): one for all, or its own."""
    setting = config.tool_result_max_last_n
    return dict(setting).get(tool) if isinstance(setting, tuple) else setting


def _results_of(p: passes.Piece) -> list[tuple[str, str]]:
    """The genuine (not stub) tool results of an entry, each as its call's id and its content."""
    return [(b.tool_use_id, repr(b.content)) for b, stub in p.blocks() if isinstance(b, ToolResult) and not stub]


def _pass_shapes(store: Store, config: Config, planned: list[Item]) -> set[str]:
    """What the reference's structural passes do to the tool results and images of what it lays out."""
    found: set[str] = set()
    pieces = [passes.Piece.of(k, e) for k, it in enumerate(planned) for e in it.entries]
    paired = passes.pair(pieces)

    def results(ps: list[passes.Piece]) -> Counter[tuple[str, str]]:
        return Counter(key for p in ps for key in _results_of(p))

    before, after = results(pieces), results(paired)
    dropped = before - after
    if dropped:
        found.add("tool result dropped")
    where = {(p.entry.message_id, key) for p in pieces for key in _results_of(p)}
    if any((p.entry.message_id, key) not in where for p in paired for key in _results_of(p)):
        found.add("tool result moved")
    if any(any(p.stubs) for p in paired):
        found.add("tool result stubbed")
    if any(any(p.stubs) and _results_of(p) for p in paired):
        found.add(STUB_BESIDE_A_RESULT)
    pruned = passes.prune(paired, config)
    tool_of = {b.id: b.name for p in paired for b in p.entry.content if isinstance(b, ToolUse)}
    limits = config.tool_result_max_last_n
    for p, q in zip(paired, pruned, strict=True):
        for (b, _), (c, _) in zip(p.blocks(), q.blocks(), strict=True):
            if isinstance(b, ToolUse) and c != b:
                found.add("tool call input capped")
            if isinstance(b, ToolResult) and c != b:
                limit = _tool_limit(config, tool_of[b.tool_use_id])
                found.add(
                    "tool result pruned, a per-tool limit"
                    if isinstance(limits, tuple)
                    else "tool result pruned, one limit for every tool"
                )
                if limit == 0:
                    found.add("tool result pruned, limit 0")
    if limits is not None:
        kept = Counter(tool_of[i] for (i, _), n in after.items() for _ in range(n) if i in tool_of)
        lost = Counter(tool_of[i] for (i, _), n in dropped.items() for _ in range(n) if i in tool_of)
        for tool, n in lost.items():
            limit = _tool_limit(config, tool)
            # Counted, the dropped results would prune more of the tool's kept ones (a limit of 0 prunes all anyway).
            if limit is not None and limit > 0 and kept[tool] > 0 and kept[tool] + n > limit:
                found.add("dropped result that would change its tool's pruning")
    positions = [None if p.entry.message_id is None else store.index(p.entry.message_id) for p in pruned]
    start = depth_start(message_prices(store, Rules()), config.image_strip_depth_tokens)
    flags = live_flags([p.entry.content for p in pruned], positions, start, config)
    for position, live in zip(positions, flags, strict=True):
        for ok in live:
            if ok:
                found.add("image kept live")
            elif position is None or position < start:
                found.add("image stripped by depth")
            else:
                found.add("image stripped by count")
    return found


def shapes_of(case: Case) -> frozenset[str]:
    """Which of ``SHAPES`` ``case`` reaches (see ``SHAPE_GROUPS``)."""
    store, config, budget = case
    n = len(store.messages)
    found = {_size_shape(n)} | _block_shapes(store) | _config_shapes(config)
    ids = [m.id for m in store.messages]
    if ids != sorted(ids):
        found.add("ids out of string order")
    if any(js_trim(s.content) == "" and s.parent_id is None for s in store.summaries):
        found.add("summary blank")
    bad = _bad_values(config, budget)
    if bad is not None:
        return frozenset(found | {bad})
    checked = store
    if store.text_estimator is not None:
        checked = replace(store, text_estimator=_Checked(store.text_estimator, []))
    ref = select(checked, config, budget)
    raw = [*range(ref.head_end), *ref.middle_raw, *range(ref.middle_end, n)]
    planned = layout(checked, config, raw, ref.selected, (ref.head_end, ref.middle_end))
    items = finish(checked, config, planned)
    found |= _cut_shapes(store, planned) | _pass_shapes(checked, config, planned)
    if any(s.level > 1 for s in ref.selected):
        found.add("summary merged")
    if any(
        any(store.index(m) < ref.head_end or store.index(m) >= ref.middle_end for m in store.leaves(s.id))
        for s in ref.selected
    ):
        found.add("summary straddling")
    emitted = _emission_shapes(checked, config, budget, ref, items)
    for m in store.messages:  # the sound compile checks the estimator on every text first
        content_tokens(m.content, checked)
    for s in store.summaries:
        _item_price(Item("positioned", positioned_pair(s, config)), checked, config)
    content_tokens((Text(config.summary_context_label), Text(SEPARATOR_TEXT)), checked)
    if isinstance(checked.text_estimator, _Checked) and checked.text_estimator.bad:
        return frozenset(found | {"bad estimate"})
    return frozenset(found | emitted)


def shares(cases: Iterable[Case], names: tuple[str, ...] = SHAPES) -> dict[str, float]:
    """The share of ``cases`` reaching each of ``names`` (default ``SHAPES``), in their order."""
    counts: Counter[str] = Counter()
    total = 0
    for case in cases:
        counts.update(shapes_of(case))
        total += 1
    return {shape: counts[shape] / total if total else 0.0 for shape in names}


def first_draws(strategy: SearchStrategy[T], n: int, from_seed: int | None = None) -> list[T]:
    """The first ``n`` values (cases, stores, configs) a ``@given`` test draws from ``strategy``: derandomized (as
    under ``ci``, the same on every run), or from ``from_seed`` (as under ``deep``, repeatable)."""
    got: list[T] = []

    @settings(
        max_examples=n,
        derandomize=from_seed is None,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: T) -> None:
        got.append(value)

    (collect if from_seed is None else seed(from_seed)(collect))()
    return got
